import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import express from 'express';
import request from 'supertest';
import { createApiReference } from './reference';

const options = { specUrl: '/api/v1/openapi.json', assetsUrl: '/api/v1/docs/assets', title: 'Pasar API reference' };

async function serve(reference: Awaited<ReturnType<typeof createApiReference>>) {
  const app = express();
  app.get('/docs', reference.page);
  return request(app).get('/docs').expect(200);
}

describe('API reference page', () => {
  it('uses Scalar (@scalar/express-api-reference, loaded by dynamic import) with its bundle served locally', async () => {
    const bundle = path.join(mkdtempSync(path.join(tmpdir(), 'scalar-')), 'standalone.js');
    writeFileSync(bundle, 'window.Scalar = { createApiReference() {} };');
    const reference = await createApiReference({ ...options, scalarBundle: bundle });
    expect(reference.kind).toBe('scalar');
    expect([...reference.assets.keys()]).toEqual(['scalar.js']);
    const page = await serve(reference);
    expect(page.text).toContain('<script src="/api/v1/docs/assets/scalar.js"></script>');
    expect(page.text).toContain('Scalar.createApiReference');
    expect(page.text).toContain('/api/v1/openapi.json');
    expect(page.text).not.toContain('cdn.jsdelivr.net');
  });

  it('falls back to the built-in page without Scalar’s bundle', async () => {
    const reference = await createApiReference({ ...options, scalarBundle: null });
    expect(reference.kind).toBe('built-in');
    expect([...reference.assets.keys()].sort()).toEqual(['reference.css', 'reference.js']);
    const page = await serve(reference);
    expect(page.text).toContain('data-spec-url="/api/v1/openapi.json"');
    expect(page.text).toContain('<script src="/api/v1/docs/assets/reference.js"></script>');
  });
});
