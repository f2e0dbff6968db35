import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import express from 'express';
import { createLogger } from './logger';
import { requestLogger, requestLogLevel } from './request-log';

/** Every line logged, parsed. */
class CapturedLog extends Writable {
  lines: Record<string, unknown>[] = [];
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    for (const line of chunk.toString().split('\n').filter(Boolean)) this.lines.push(JSON.parse(line) as Record<string, unknown>);
    done();
  }
}

/** An express app behind requestLogger on a free port; answers per path. */
async function serve(level: string) {
  const log = new CapturedLog();
  const app = express();
  app.use((req, _res, next) => {
    req.requestId = 'req-1';
    next();
  });
  app.use(requestLogger(createLogger('test', level, log), (req) => req.url === '/healthz'));
  app.get('/ok', (_req, res) => void res.json({ ok: true }));
  app.get('/healthz', (_req, res) => void res.json({ ok: true }));
  app.get('/refused', (req, res) => {
    req.log.warn({ why: 'test' }, 'refusing');
    res.status(404).json({ code: 'not_found' });
  });
  app.get('/broken', (_req, res) => void res.status(500).json({ code: 'internal' }));
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  /** The lines once the request's own line (written when the response closes) is in. */
  const call = async (path: string, lines: number) => {
    await (await fetch(`${url}${path}`)).text();
    for (let i = 0; i < 100 && log.lines.length < lines; i += 1) await new Promise((r) => setTimeout(r, 10));
    return log.lines;
  };
  return { log, call, close: () => new Promise((r) => server.close(r)) };
}

describe('request log', () => {
  test('levels: info for an answer, warn for a refusal or an aborted request, error for a failure', () => {
    expect(requestLogLevel(200, true)).toBe('info');
    expect(requestLogLevel(201, false)).toBe('warn');
    expect(requestLogLevel(404, true)).toBe('warn');
    expect(requestLogLevel(503, true)).toBe('error');
  });

  test('at info: one line per request with method, redacted URL, status and request id; health checks skipped', async () => {
    const app = await serve('info');
    try {
      await app.call('/healthz', 0);
      const lines = await app.call('/ok?token=secret-value&page=2', 1);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({
        level: 30,
        msg: 'request completed',
        reqId: 'req-1',
        req: { method: 'GET', url: '/ok?token=[Redacted]&page=2' },
        res: { statusCode: 200 },
      });
      expect(typeof lines[0].responseTime).toBe('number');
      expect(JSON.stringify(lines)).not.toContain('secret-value');
    } finally {
      await app.close();
    }
  });

  test('at warn: a 2xx logs nothing; a refusal logs its handler line (bound to the request id) and the request at warn; a 5xx at error', async () => {
    const app = await serve('warn');
    try {
      await app.call('/ok', 0);
      await app.call('/refused', 2);
      const lines = await app.call('/broken', 3);
      expect(lines.map((l) => [l.level, l.msg, (l.res as { statusCode?: number } | undefined)?.statusCode])).toEqual([
        [40, 'refusing', undefined],
        [40, 'request completed', 404],
        [50, 'request completed', 500],
      ]);
      expect(lines[0]).toMatchObject({ reqId: 'req-1', why: 'test' });
    } finally {
      await app.close();
    }
  });
});
