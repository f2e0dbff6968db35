/**
 * Parked messages and dead letters per service. These endpoints are being added by another change
 * (`/admin/dead-letters/...`); until they are in the OpenAPI document this module holds the shape
 * the console expects, so the typed client and the rest of the console do not depend on it.
 */
import { ApiError, type Problem } from './client';

export const SERVICES = ['checkout', 'b2b', 'vendor', 'admin', 'notifier'] as const;
export type ServiceName = (typeof SERVICES)[number];

export interface DeadLetter {
  id: string;
  consumer: string;
  subject: string;
  eventId: string;
  error: string;
  deliveries: number;
  parkedAt: string;
}

async function call<T>(method: string, path: string): Promise<T> {
  const res = await fetch(`/api/v1/admin/dead-letters/${path}`, { method, credentials: 'same-origin', headers: { accept: 'application/json' } });
  const text = await res.text();
  const body = text ? (JSON.parse(text) as unknown) : undefined;
  if (!res.ok) throw new ApiError(res.status, body as Partial<Problem> | undefined);
  return body as T;
}

export const listDeadLetters = (service: ServiceName) => call<DeadLetter[]>('GET', encodeURIComponent(service));
export const replayDeadLetter = (service: ServiceName, id: string) => call<unknown>('POST', `${encodeURIComponent(service)}/${encodeURIComponent(id)}/replay`);
export const discardDeadLetter = (service: ServiceName, id: string) => call<unknown>('POST', `${encodeURIComponent(service)}/${encodeURIComponent(id)}/discard`);
