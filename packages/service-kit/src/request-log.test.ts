import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import express from 'express';
import pino from 'pino';
import { createLogger, redactUrl } from './logger';
import { requestLineLogger, requestLogger, requestLogLevel } from './request-log';

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

describe("a label link's signature (issue 24)", () => {
  const link = '/shipment-labels/0b6f2d1e-3c4a-4f5b-8a9c-1d2e3f405162?expires=1893456000&signature=label-signature-value';

  test('the request log of a refused link keeps its URL but not its signature', async () => {
    const app = await serve('warn');
    try {
      // a refused link (expired or tampered: admin refuses it) is logged at warn with its URL
      const lines = await app.call('/refused?expires=1893456000&signature=label-signature-value', 2);
      expect(lines.at(-1)).toMatchObject({ req: { url: '/refused?expires=1893456000&signature=[Redacted]' }, res: { statusCode: 404 } });
      expect(JSON.stringify(lines)).not.toContain('label-signature-value');
    } finally {
      await app.close();
    }
    expect(redactUrl(link)).toBe('/shipment-labels/0b6f2d1e-3c4a-4f5b-8a9c-1d2e3f405162?expires=1893456000&signature=[Redacted]');
    expect(redactUrl('/x?Signature=ABC&page=2')).toBe('/x?Signature=[Redacted]&page=2');
  });

  test('a logged object naming the signature (top level or nested) has it redacted', () => {
    const log = new CapturedLog();
    const logger = createLogger('test', 'info', log);
    logger.info({ signature: 'label-signature-value', label: { signature: 'label-signature-value', expires: 1 } }, 'label link');
    expect(log.lines[0]).toMatchObject({ signature: '[Redacted]', label: { signature: '[Redacted]', expires: 1 } });
    expect(JSON.stringify(log.lines)).not.toContain('label-signature-value');
  });
});

describe('requestLineLogger', () => {
  test('writes the line the service logger writes for the same fields (level, time, bindings, fields, msg), the URL\'s secrets redacted', async () => {
    const direct = new CapturedLog();
    const viaPino = new CapturedLog();
    const child = (stream: CapturedLog) => createLogger('test', 'info', stream).child({ extra: 'bound' });
    const line = requestLineLogger(child(direct));
    const server = createServer((req, res) => {
      line(req, res, () => 'req-9');
      res.statusCode = req.url?.startsWith('/missing') ? 404 : 200;
      res.end('x');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      await (await fetch(`${url}/ok?vcode=secret-value&page=1`)).text();
      await (await fetch(`${url}/missing`)).text();
      for (let i = 0; i < 100 && direct.lines.length < 2; i += 1) await new Promise((r) => setTimeout(r, 10));
      expect(direct.lines).toHaveLength(2);
      const remoteAddress = (direct.lines[0].req as { remoteAddress: string }).remoteAddress;
      const expected = child(viaPino);
      expected.info({ reqId: 'req-9', req: { method: 'GET', url: '/ok?vcode=[Redacted]&page=1', remoteAddress }, res: { statusCode: 200 }, responseTime: direct.lines[0].responseTime }, 'request completed');
      expected.warn({ reqId: 'req-9', req: { method: 'GET', url: '/missing', remoteAddress }, res: { statusCode: 404 }, responseTime: direct.lines[1].responseTime }, 'request completed');
      const withoutTime = (lines: Record<string, unknown>[]) => lines.map(({ time, ...rest }) => ({ ...rest, hasTime: typeof time === 'number' }));
      expect(withoutTime(direct.lines)).toEqual(withoutTime(viaPino.lines));
      expect(Object.keys(direct.lines[0])).toEqual(Object.keys(viaPino.lines[0]));
      expect(JSON.stringify(direct.lines)).not.toContain('secret-value');
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  test.each([
    ['a mixin', { mixin: () => ({ mixed: true }) }, { mixed: true }],
    ['a log formatter', { formatters: { log: (o: Record<string, unknown>) => ({ ...o, formatted: true }) } }, { formatted: true }],
    ['a req serializer', { serializers: { req: (r: { method: string }) => ({ only: r.method }) } }, { req: { only: 'GET' } }],
  ])('the logger\'s own options apply to the line (%s)', async (_case, options, expected) => {
    const log = new CapturedLog();
    const line = requestLineLogger(pino({ level: 'info', ...options }, log));
    const server = createServer((req, res) => {
      line(req, res, () => 'req-m');
      res.end('x');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      await (await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/a`)).text();
      for (let i = 0; i < 100 && log.lines.length < 1; i += 1) await new Promise((r) => setTimeout(r, 10));
      expect(log.lines[0]).toMatchObject({ ...expected, reqId: 'req-m', msg: 'request completed' });
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
