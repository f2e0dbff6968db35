import type { Router } from 'express';
import { accountRoutes } from './account/routes';
import type { AuthDeps } from './auth/auth';
import { authRoutes } from './auth/routes';
import type { ApiReference } from './docs/reference';
import { docsRoutes } from './docs/routes';

/**
 * The gateway's own routes under /api/v1 (everything else is proxied by the route table): sign-in
 * and sessions, the account's own pages, the OpenAPI document and its reader. The one list, which
 * the gateway mounts and `npm run routes` reads.
 */
export function gatewayRoutes(router: Router, deps: AuthDeps & { production: boolean }, reference: ApiReference): void {
  authRoutes(router, deps);
  accountRoutes(router, deps);
  docsRoutes(router, reference);
}
