/**
 * Dead letters per service: outbox events never published and consumed messages parked. The
 * endpoints (`/admin/dead-letters/{service}/...`) come with another change that is not on this
 * branch yet; this module holds their shape as that change defines it (DeadLetterMessage, replay,
 * discard with a reason) so the generated client does not depend on them. Once they are in the
 * OpenAPI document, these calls move to `api` from ./client.
 */
import { ApiError, type Problem } from './client';

export const SERVICES = ['gateway', 'checkout', 'b2b', 'vendor', 'admin'] as const;
export type ServiceName = (typeof SERVICES)[number];

export interface DeadLetter {
  kind: 'outbox' | 'consumer';
  id: string;
  type: string;
  consumer: string | null;
  eventId: string;
  error: string;
  deliveries: number | null;
  parkedAt: string;
}

async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`/api/v1/admin/dead-letters/${path}`, { method, credentials: 'same-origin', headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  const parsed = text ? (JSON.parse(text) as unknown) : undefined;
  if (!res.ok) throw new ApiError(res.status, parsed as Partial<Problem> | undefined);
  return parsed as T;
}

const one = (service: ServiceName, letter: Pick<DeadLetter, 'kind' | 'id'>) =>
  `${encodeURIComponent(service)}/messages/${encodeURIComponent(letter.kind)}/${encodeURIComponent(letter.id)}`;

export const listDeadLetters = (service: ServiceName) => call<DeadLetter[]>('GET', `${encodeURIComponent(service)}/messages?limit=100`);
export const replayDeadLetter = (service: ServiceName, letter: DeadLetter) => call<{ replayed: number }>('POST', `${one(service, letter)}/replay`);
export const discardDeadLetter = (service: ServiceName, letter: DeadLetter, reason: string) => call<unknown>('POST', `${one(service, letter)}/discard`, { reason });
