/**
 * docs/routes.md is the listing of the routes as registered (`npm run routes -- --write`): it
 * matches a fresh listing, every file it names exists, and every endpoint of the OpenAPI document
 * (packages/contracts) is registered by some service or the gateway.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { apiRoutes } from '@pasar/contracts';
import { API_PREFIX } from '@pasar/service-kit';
import { ROOT } from './import-graph';
import { listRoutes, routesMarkdown } from './routes';

const routes = listRoutes();
/** `/api/v1/x/:id/y` and `/x/{productId}/y` → `/x/{}/y`. */
const shape = (path: string) => path.replace(/:[A-Za-z0-9_]+|\{[^}]+\}/g, '{}');

test('docs/routes.md matches a fresh listing (regenerate: npm run routes -- --write)', () => {
  expect(readFileSync(join(ROOT, 'docs', 'routes.md'), 'utf8')).toBe(routesMarkdown(routes));
});

test('the listing reads paths built from constants, lean routes, and every service', () => {
  expect(routes).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ method: 'GET', path: `${API_PREFIX}/admin/shipments/bookings`, service: 'admin', file: 'apps/admin/src/shipments/routes.ts' }),
      expect.objectContaining({ method: 'POST', path: `${API_PREFIX}/checkout/submit`, service: 'checkout', lean: true }),
      expect.objectContaining({ method: 'POST', path: `${API_PREFIX}/auth/sign-in`, service: 'gateway' }),
    ]),
  );
  expect(new Set(routes.map((r) => r.service))).toEqual(new Set(['gateway', 'checkout', 'b2b', 'vendor', 'admin']));
});

test('every file the listing names exists', () => {
  const missing = [...new Set(routes.map((r) => r.file))].filter((file) => !existsSync(join(ROOT, file)));
  expect(missing).toEqual([]);
});

test('no method and path is registered twice, except a lean route and its express twin', () => {
  const seen = new Map<string, number>();
  for (const r of routes.filter((r) => !r.lean)) seen.set(`${r.method} ${shape(r.path)}`, (seen.get(`${r.method} ${shape(r.path)}`) ?? 0) + 1);
  expect([...seen].filter(([, n]) => n > 1)).toEqual([]);
});

test('every endpoint of the OpenAPI document is registered', () => {
  // a template segment ({id}, {service}) stands for a parameter or for each literal a service registers
  const template = (path: string) => new RegExp(`^${shape(`${API_PREFIX}${path}`).replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\}/g, '[^/]+')}$`);
  const unregistered = apiRoutes
    .filter((api) => !routes.some((r) => r.method === api.method.toUpperCase() && template(api.path).test(shape(r.path))))
    .map((api) => `${api.method.toUpperCase()} ${api.path}`);
  expect(unregistered).toEqual([]);
});
