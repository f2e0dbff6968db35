/**
 * Every HTTP route of Pasar as the services register it: each feature's `routes` and `leanRoutes`
 * (and the gateway's own routes) are called on a recording router, which keeps the method, the
 * full path and the source file that made the call (from the call's stack). Paths built from
 * constants or loops come out as they are served. `npm run routes` prints the listing;
 * `npm run routes -- --write` writes docs/routes.md, which `routes.test.ts` holds to a fresh one.
 */
import { relative, sep } from 'node:path';
import { API_PREFIX, kitRoutes, loadConfig, type LeanRouter, type ServiceFeature } from '@pasar/service-kit';
import type { Router } from 'express';
import type { z } from 'zod';
import { adminConfigSchema } from '../../../apps/admin/src/config';
import { features as adminFeatures } from '../../../apps/admin/src/features';
import { b2bConfigSchema } from '../../../apps/b2b/src/config';
import { features as b2bFeatures } from '../../../apps/b2b/src/features';
import { checkoutConfigSchema } from '../../../apps/checkout/src/config';
import { features as checkoutFeatures } from '../../../apps/checkout/src/features';
import { loadGatewayConfig } from '../../../apps/gateway/src/config';
import { gatewayRoutes } from '../../../apps/gateway/src/routes';
import { vendorConfigSchema } from '../../../apps/vendor/src/config';
import { features as vendorFeatures } from '../../../apps/vendor/src/features';
import { ROOT } from './import-graph';

export interface RouteEntry {
  method: string;
  /** The full path, `/api/v1/...`, with express's `:name` parameters. */
  path: string;
  service: string;
  /** The source file that registered it, relative to the repository root. */
  file: string;
  /** Also served on the lean path (service-kit lean.ts), not only by express. */
  lean: boolean;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const THIS_FILE = __filename;

/** The first file on the stack outside this module and node_modules: where `router.get(...)` was written. */
function callerFile(): string {
  for (const line of (new Error().stack ?? '').split('\n').slice(1)) {
    const match = /(?:\(|at )(?:file:\/\/)?(\/[^()]+?\.[cm]?[jt]sx?):\d+:\d+\)?$/.exec(line.trim());
    if (!match || match[1] === THIS_FILE || match[1].includes(`${sep}node_modules${sep}`)) continue;
    return relative(ROOT, match[1]).split(sep).join('/');
  }
  throw new Error('routes: cannot tell which file registered a route');
}

/**
 * What a feature's registration receives instead of its prisma, bus, log and relay: any property
 * is another such value and any call answers one. Registration only closes over them; nothing is
 * called until a request comes. The config is the service's real one, from its development defaults.
 */
function stand(): unknown {
  const target = function () {} as unknown as Record<PropertyKey, unknown>;
  const proxy: unknown = new Proxy(target, {
    get: (_t, key) => (key === 'then' ? undefined : key === Symbol.toPrimitive ? () => 'stand-in' : proxy),
    apply: () => proxy,
    construct: () => proxy as object,
  });
  return proxy;
}

function recorder(service: string, lean: boolean, into: RouteEntry[]): Router & LeanRouter {
  const router: Record<string, unknown> = {};
  for (const method of METHODS) {
    router[method] = (path: unknown) => {
      if (typeof path !== 'string') throw new Error(`routes: ${service} registered a ${method} route without a string path`);
      into.push({ method: method.toUpperCase(), path: `${API_PREFIX}${path}`, service, file: callerFile(), lean });
      return router;
    };
  }
  for (const other of ['use', 'all', 'route', 'param']) {
    router[other] = () => {
      throw new Error(`routes: ${service} calls router.${other} (${callerFile()}); the listing cannot read it`);
    };
  }
  return router as unknown as Router & LeanRouter;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each service's feature type differs only in its config and prisma
type AnyFeature = ServiceFeature<any, any>;

const SERVICES: Record<string, { features: readonly AnyFeature[]; config: z.ZodType }> = {
  checkout: { features: checkoutFeatures, config: checkoutConfigSchema },
  b2b: { features: b2bFeatures, config: b2bConfigSchema },
  vendor: { features: vendorFeatures, config: vendorConfigSchema },
  admin: { features: adminFeatures, config: adminConfigSchema },
};

const DEVELOPMENT = { NODE_ENV: 'development' };

/** A feature's context for registering its routes: its service's name and config, stand-ins for the rest. */
function contextOf(name: string, config: unknown): never {
  return { name, config, prisma: stand(), bus: stand(), log: stand(), relay: stand() } as never;
}

/** Every route, sorted by path, then method. */
export function listRoutes(): RouteEntry[] {
  const entries: RouteEntry[] = [];
  const gatewayConfig = loadGatewayConfig(DEVELOPMENT);
  kitRoutes(recorder('gateway', false, entries), contextOf('gateway', gatewayConfig));
  gatewayRoutes(recorder('gateway', false, entries), { ...(stand() as object), config: gatewayConfig, production: false } as never, stand() as never);
  for (const [service, { features, config }] of Object.entries(SERVICES)) {
    const ctx = contextOf(service, loadConfig(config, DEVELOPMENT));
    kitRoutes(recorder(service, false, entries), ctx);
    for (const feature of features) {
      const lean: RouteEntry[] = [];
      feature.leanRoutes?.(recorder(service, true, lean), ctx);
      feature.routes?.(recorder(service, false, entries), ctx);
      entries.push(...lean);
    }
  }
  return entries.sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method) || a.service.localeCompare(b.service));
}

/** The features of one of the services listed here (checkout, b2b, vendor, admin). */
export function featuresOf(service: string): readonly AnyFeature[] {
  const entry = SERVICES[service];
  if (!entry) throw new Error(`routes: no service ${service}`);
  return entry.features;
}

/** The services that register lean routes (read from the listing). */
export function servicesWithLeanRoutes(routes: readonly RouteEntry[] = listRoutes()): string[] {
  return [...new Set(routes.filter((r) => r.lean).map((r) => r.service))].sort();
}

/** docs/routes.md: a table of every route. */
export function routesMarkdown(routes: readonly RouteEntry[]): string {
  const lines = [
    '# Routes',
    '',
    'Every HTTP route the gateway and the services serve, read from the routes as they are registered',
    '(`npm run routes`; regenerate this file with `npm run routes -- --write`, and `tools/stack/src/routes.test.ts`',
    'fails when it is stale). A route marked *lean* is also served without express (service-kit `lean.ts`).',
    'The gateway forwards the rest of `/api/v1` to the service that answers it (its route table,',
    '`apps/gateway/src/proxy/route-table.ts`).',
    '',
    '| method | path | service | file |',
    '|---|---|---|---|',
    ...routes.map((r) => `| ${r.method} | \`${r.path}\` | ${r.service} | [${r.file}](../${r.file})${r.lean ? ' (lean)' : ''} |`),
    '',
  ];
  return lines.join('\n');
}

/** The listing for a terminal: one route a line. */
export function routesText(routes: readonly RouteEntry[]): string {
  const width = Math.max(...routes.map((r) => r.path.length));
  return routes.map((r) => `${r.method.padEnd(6)} ${r.path.padEnd(width)}  ${r.service.padEnd(8)} ${r.file}${r.lean ? ' (lean)' : ''}`).join('\n');
}
