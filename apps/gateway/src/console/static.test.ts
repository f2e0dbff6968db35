import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import request from 'supertest';
import { securityHeaders } from '../http/security';
import { consoleStatic } from './static';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'console-dist-'));
  await mkdir(join(dir, 'assets'));
  await writeFile(join(dir, 'index.html'), '<!doctype html><div id="root"></div>');
  await writeFile(join(dir, 'assets', 'index-abc.js'), 'console.log(1)');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const appFor = (root: string) => {
  const app = express();
  app.use(securityHeaders(), consoleStatic(root));
  app.use((_req, res) => res.status(418).send('next'));
  return app;
};

describe('the console at /console/', () => {
  test('index.html (never cached) and hashed assets (cached a year) with a CSP of its own files only', async () => {
    const index = await request(appFor(dir)).get('/console/').expect(200);
    expect(index.text).toContain('id="root"');
    expect(index.headers['cache-control']).toBe('no-cache');
    const csp = index.headers['content-security-policy'];
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    const asset = await request(appFor(dir)).get('/console/assets/index-abc.js').expect(200);
    expect(asset.headers['cache-control']).toContain('immutable');
  });

  test('/console redirects to /console/; unknown files 404; other paths and writes pass through', async () => {
    expect((await request(appFor(dir)).get('/console').expect(301)).headers.location).toBe('/console/');
    await request(appFor(dir)).get('/console/assets/nope.js').expect(404);
    await request(appFor(dir)).get('/console/../package.json').expect(404);
    await request(appFor(dir)).get('/api/v1/health').expect(418);
    await request(appFor(dir)).post('/console/').expect(418);
  });

  test('no built bundle: 404 saying how to build it', async () => {
    const res = await request(appFor(join(dir, 'missing'))).get('/console/').expect(404);
    expect(res.text).toMatch(/npm run build/);
  });
});
