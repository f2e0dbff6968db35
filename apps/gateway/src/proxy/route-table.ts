import { SETTLEMENT_IMPORT_BODY_LIMIT, SETTLEMENT_IMPORT_PATH } from '@pasar/contracts';

/** Where a path under /api/v1 is served. */
export type Upstream = 'checkout' | 'b2b' | 'vendor' | 'admin';
export type RouteTarget = 'gateway' | Upstream;
/** `public`: anyone; `any`: signed in; `vendor`/`admin`: signed in with that role (the coarse gate of DESIGN §1). */
export type RouteAccess = 'public' | 'any' | 'vendor' | 'admin';

export interface GatewayRoute {
  /** Path prefix under /api/v1, matched on whole segments (`/vendor` does not match `/vendor-applications`). */
  prefix: string;
  to: RouteTarget;
  access: RouteAccess;
  /**
   * The service takes a repeat of any request here as the first one, as it does a GET/HEAD or a
   * request with an Idempotency-Key: one an instance dropped may go to another instance
   * (upstreams.ts mayRetryElsewhere).
   */
  repeatable?: true;
}

/**
 * The gateway's route table (DESIGN §1): the longest matching prefix wins; a path no entry
 * matches is a 404. Fine-grained rules (customer only, B2B roles, ownership) live in the services.
 */
export const ROUTE_TABLE: readonly GatewayRoute[] = [
  // served by the gateway itself
  { prefix: '/auth', to: 'gateway', access: 'public' },
  { prefix: '/account/profile', to: 'gateway', access: 'any' },
  { prefix: '/account/setup', to: 'gateway', access: 'any' },
  { prefix: '/account/change-password', to: 'gateway', access: 'any' },
  { prefix: '/account/must-change-password', to: 'gateway', access: 'any' },
  { prefix: '/openapi.json', to: 'gateway', access: 'public' },
  { prefix: '/docs', to: 'gateway', access: 'public' },
  // each service's dead letters (operators), served by that service (service-kit dead-letter-routes.ts)
  { prefix: '/admin/dead-letters/gateway', to: 'gateway', access: 'admin' },
  { prefix: '/admin/dead-letters/checkout', to: 'checkout', access: 'admin' },
  { prefix: '/admin/dead-letters/b2b', to: 'b2b', access: 'admin' },
  { prefix: '/admin/dead-letters/vendor', to: 'vendor', access: 'admin' },
  { prefix: '/admin/dead-letters/admin', to: 'admin', access: 'admin' },

  // checkout
  { prefix: '/checkout', to: 'checkout', access: 'any' },
  { prefix: '/catalog', to: 'checkout', access: 'public' },
  // the payment gateway repeats a notification until acknowledged; checkout takes a repeat of one transaction as nothing new
  { prefix: '/payments/notify', to: 'checkout', access: 'public', repeatable: true },
  { prefix: '/family', to: 'checkout', access: 'any' },
  { prefix: '/account', to: 'checkout', access: 'any' },
  { prefix: '/vendor/products', to: 'checkout', access: 'vendor' },
  { prefix: '/vendor/returns', to: 'checkout', access: 'vendor' },
  { prefix: '/admin/vouchers', to: 'checkout', access: 'admin' },
  { prefix: '/admin/kol-codes', to: 'checkout', access: 'admin' },
  { prefix: '/admin/categories', to: 'checkout', access: 'admin' },
  { prefix: '/admin/orders', to: 'checkout', access: 'admin' },

  // vendor
  { prefix: '/vendor', to: 'vendor', access: 'vendor' },
  { prefix: '/admin/vendor', to: 'vendor', access: 'admin' },

  // b2b
  { prefix: '/b2b', to: 'b2b', access: 'any' },
  { prefix: '/admin/b2b', to: 'b2b', access: 'admin' },

  // admin
  { prefix: '/vendor-applications', to: 'admin', access: 'any' },
  { prefix: '/admin/vendor-applications', to: 'admin', access: 'admin' },
  { prefix: '/admin/shipments', to: 'admin', access: 'admin' },
  { prefix: '/admin/shipping', to: 'admin', access: 'admin' },
  // signed label URLs: no session, the HMAC signature and expiry are the permission (admin answers 403 otherwise)
  { prefix: '/shipment-labels', to: 'admin', access: 'public' },
];

/** The body limit of a proxied request (the gateway reads the whole body to sign its digest): 1 MB unless listed. */
export const DEFAULT_BODY_LIMIT = '1mb';

/** Routes that take larger bodies (method, exact path under /api/v1): the settlement CSV import only. */
export const BODY_LIMITS: readonly { method: string; path: string; limit: string }[] = [
  { method: 'POST', path: SETTLEMENT_IMPORT_PATH, limit: SETTLEMENT_IMPORT_BODY_LIMIT },
];
