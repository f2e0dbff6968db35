import type { Subscription } from '@nats-io/transport-node';
import { serveRpc, type Bus } from '@pasar/bus';
import { identityCreateUser, identityResetPassword, identityUsers } from '@pasar/contracts';
import type { SessionDeps } from '../auth/sessions';
import { createUser, findUsers, resetPassword } from './users';

/** The gateway answers the identity rpcs (DESIGN §4); instances share them by queue group. */
export function serveIdentityRpc(bus: Bus, deps: Pick<SessionDeps, 'prisma' | 'revocations'>): Subscription[] {
  return [
    serveRpc(bus, identityCreateUser, (request, ctx) => createUser(deps, request, ctx.requestId)),
    serveRpc(bus, identityResetPassword, (request) => resetPassword(deps, request)),
    serveRpc(bus, identityUsers, (request) => findUsers(deps, request)),
  ];
}
