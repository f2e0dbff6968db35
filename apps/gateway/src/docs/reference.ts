import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { RequestHandler } from 'express';

const ASSETS_DIR = path.join(__dirname, 'assets');
/** Scalar's browser bundle, when @scalar/api-reference is installed. */
const SCALAR_BUNDLE = path.join('@scalar', 'api-reference', 'dist', 'browser', 'standalone.js');

export interface ReferenceAsset {
  contentType: string;
  body: Buffer;
}

export interface ApiReference {
  /** Which renderer the page uses. */
  kind: 'scalar' | 'built-in';
  /** GET /docs. */
  page: RequestHandler;
  /** Files the page loads from /docs/assets/<name>; nothing comes from a CDN. */
  assets: Map<string, ReferenceAsset>;
}

/** Where Node would find a file of an installed package (its node_modules folders, nearest first). */
function findInstalled(relative: string): string | undefined {
  const dirs = require.resolve.paths(relative.split(path.sep)[0]) ?? [];
  return dirs.map((dir) => path.join(dir, relative)).find((file) => existsSync(file));
}

/**
 * The interactive API reference at /docs, offline. With Scalar's browser bundle installed
 * (@scalar/api-reference) the page is @scalar/express-api-reference's, pointed at that bundle
 * served by the gateway; without it, the gateway's own reference page (docs/assets) renders
 * the same OpenAPI document and can send requests.
 */
export async function createApiReference(options: {
  specUrl: string;
  assetsUrl: string;
  title: string;
  /** Scalar's standalone bundle; found among the installed packages when not given, null = never. */
  scalarBundle?: string | null;
}): Promise<ApiReference> {
  const scalarBundle = options.scalarBundle === undefined ? findInstalled(SCALAR_BUNDLE) : options.scalarBundle;
  if (scalarBundle) {
    const { apiReference } = await import('@scalar/express-api-reference');
    return {
      kind: 'scalar',
      page: apiReference({ url: options.specUrl, cdn: `${options.assetsUrl}/scalar.js`, pageTitle: options.title }) as RequestHandler,
      assets: new Map([['scalar.js', { contentType: 'text/javascript; charset=utf-8', body: readFileSync(scalarBundle) }]]),
    };
  }
  const html = builtInPage(options);
  return {
    kind: 'built-in',
    page: (_req, res) => {
      res.type('html').send(html);
    },
    assets: new Map([
      ['reference.js', { contentType: 'text/javascript; charset=utf-8', body: readFileSync(path.join(ASSETS_DIR, 'reference.js')) }],
      ['reference.css', { contentType: 'text/css; charset=utf-8', body: readFileSync(path.join(ASSETS_DIR, 'reference.css')) }],
    ]),
  };
}

function builtInPage(options: { specUrl: string; assetsUrl: string; title: string }): string {
  const attr = (v: string) => v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${attr(options.title)}</title>
    <link rel="stylesheet" href="${attr(options.assetsUrl)}/reference.css" />
  </head>
  <body>
    <div id="app" data-spec-url="${attr(options.specUrl)}">Loading the API reference...</div>
    <script src="${attr(options.assetsUrl)}/reference.js"></script>
  </body>
</html>
`;
}
