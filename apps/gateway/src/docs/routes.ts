import { buildOpenApiDocument } from '@pasar/contracts';
import { API_PREFIX, notFound } from '@pasar/service-kit';
import type { RequestHandler, Router } from 'express';
import type { ApiReference } from './reference';

/** GET /openapi.json (from the contracts) and the API reference at /docs. */
export function docsRoutes(router: Router, reference: ApiReference): void {
  const document = JSON.stringify(buildOpenApiDocument());
  router.get('/openapi.json', (_req, res) => {
    res.type('application/json').send(document);
  });
  router.get('/docs', reference.page);
  router.get('/docs/assets/:file', (req, res) => {
    const asset = reference.assets.get(String(req.params.file));
    if (!asset) throw notFound('asset');
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.type(asset.contentType).send(asset.body);
  });
}

/** `/docs` and `/openapi.json` at the root lead to their /api/v1 places (handy in a browser). */
export function docsShortcut(): RequestHandler {
  return (req, res, next) => {
    if ((req.method === 'GET' || req.method === 'HEAD') && (req.path === '/docs' || req.path === '/openapi.json')) {
      return res.redirect(302, `${API_PREFIX}${req.path}`);
    }
    next();
  };
}
