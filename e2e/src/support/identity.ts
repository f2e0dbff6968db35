import { randomUUID } from 'node:crypto';

let counter = 0;

/** A fresh customer for one test: unique e-mail, valid password and name. */
export function newCustomer(label = 'customer'): { email: string; password: string; fullName: string } {
  counter += 1;
  return {
    email: `${label}-${counter}-${randomUUID().slice(0, 8)}@e2e.pasar.test`,
    password: `pw-${randomUUID()}`,
    fullName: `E2E ${label} ${counter}`,
  };
}

/** A valid address body (snake_case as the spec shows it). */
export function addressBody(label: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    label,
    full_name: 'Siti Aminah',
    phone: '+60123456789',
    address_line_1: `${label} 12, Jalan Ampang`,
    city: 'Kuala Lumpur',
    postcode: '50450',
    state: 'Wilayah Persekutuan',
    ...overrides,
  };
}
