import type { Role } from '@pasar/contracts';
import type { Identity } from './identity';
import { forbidden, unauthenticated } from './problems';

/** What the role checks read of a request: an express request, or a lean route's. */
export interface WithIdentity {
  identity: Identity | null;
}

/** The signed-in caller; 401 when anonymous. */
export function requireUser(req: WithIdentity): Identity {
  if (!req.identity) throw unauthenticated();
  return req.identity;
}

/** The signed-in caller with one of the roles; 401 anonymous, 403 other role. */
export function requireRole(req: WithIdentity, ...roles: Role[]): Identity {
  const identity = requireUser(req);
  if (!roles.includes(identity.role)) throw forbidden(`this needs the ${roles.join(' or ')} role`);
  return identity;
}
