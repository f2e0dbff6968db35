import { STREAMS, eventSubjectOf, type StreamName } from '@pasar/contracts';

/**
 * Every subject and stream lives under a namespace so parallel test runs (and several
 * environments on one NATS) never collide. The empty namespace gives DESIGN's plain names.
 */
export class Naming {
  constructor(readonly namespace: string) {
    if (namespace && !/^[a-z][a-z0-9_]{0,40}$/.test(namespace)) {
      throw new Error(`bad NATS namespace "${namespace}": lower-case letters, digits and _ only`);
    }
  }

  subject(type: string): string {
    return this.namespace ? `${this.namespace}.${type}` : type;
  }

  /** The subject an event envelope is published on: its type's, routed by its data (EventRoute). */
  eventSubject(event: { type: string; data?: unknown }): string {
    return this.subject(eventSubjectOf(event.type, event.data));
  }

  /** The plain type of a namespaced subject. */
  typeOf(subject: string): string {
    return this.namespace ? subject.slice(this.namespace.length + 1) : subject;
  }

  stream(name: StreamName): string {
    return this.namespace ? `${this.namespace.toUpperCase()}_${name}` : name;
  }

  streamSubjects(name: StreamName): string[] {
    return [this.subject(`${STREAMS[name]}.>`)];
  }

  /** Durable consumer names may not contain dots. */
  durable(service: string, name: string): string {
    return `${service}_${name}`.replace(/[^A-Za-z0-9_-]/g, '_');
  }
}
