import { Writable } from 'node:stream';
import pino from 'pino';
import request from 'supertest';
import { sendProblem, writeProblem } from './problems';
import { createService, requestIdFrom, type RunningServer } from './service';

/** Every line logged, parsed. */
class CapturedLog extends Writable {
  lines: Record<string, unknown>[] = [];
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    for (const line of chunk.toString().split('\n').filter(Boolean)) this.lines.push(JSON.parse(line) as Record<string, unknown>);
    done();
  }
}

describe('rawRequests: requests answered before express', () => {
  const log = new CapturedLog();
  let server: RunningServer;
  let opsUrl: RunningServer;
  let expressCalls = 0;
  beforeAll(async () => {
    const service = createService({
      name: 'raw',
      log: pino({ level: 'info' }, log),
      identitySecret: 'raw-test-secret-1234567890',
      authenticate: (req, _res, next) => {
        req.identity = null;
        next();
      },
      routes: (router) => {
        router.get('/express-problem', (_req, res) => {
          expressCalls += 1;
          sendProblem(res, 403, 'forbidden', 'not you');
        });
      },
      rawRequests: (kit) => (req, res) => {
        if (!req.url?.startsWith('/api/v1/raw')) return false;
        const requestId = requestIdFrom(req.headers);
        kit.track(req, res, { requestId: () => requestId, route: () => '/api/v1/raw' });
        res.setHeader('x-request-id', requestId);
        writeProblem(res, req.method, 403, 'forbidden', 'not you', requestId);
        return true;
      },
    });
    server = await service.listen(0);
    opsUrl = await service.listenOps(0);
  });
  afterAll(async () => {
    await server.close();
    await opsUrl.close();
  });

  test('a taken request never reaches express; the rest does', async () => {
    await request(server.url).get('/api/v1/raw/x').expect(403);
    expect(expressCalls).toBe(0);
    await request(server.url).get('/api/v1/express-problem').expect(403);
    expect(expressCalls).toBe(1);
  });

  test('writeProblem answers with the headers and body express sendProblem gives', async () => {
    const viaExpress = await request(server.url).get('/api/v1/express-problem').set('x-request-id', 'same-id');
    const raw = await request(server.url).get('/api/v1/raw/x').set('x-request-id', 'same-id');
    const comparable = (res: request.Response) => {
      const { date: _date, ...headers } = res.headers;
      return { status: res.status, headers, body: res.text };
    };
    expect(comparable(raw)).toEqual(comparable(viaExpress));
    const head = await request(server.url).head('/api/v1/raw/x').expect(403);
    expect(head.text ?? '').toBe('');
  });

  test('kit.track: the request metric by route and the request log line, as express requests get', async () => {
    log.lines.length = 0;
    await request(server.url).get('/api/v1/raw/y?token=secret-value').set('x-request-id', 'tracked-1').expect(403);
    for (let i = 0; i < 100 && log.lines.length < 1; i += 1) await new Promise((r) => setTimeout(r, 10));
    expect(log.lines).toEqual([
      expect.objectContaining({ level: 40, reqId: 'tracked-1', req: expect.objectContaining({ method: 'GET', url: '/api/v1/raw/y?token=[Redacted]' }), res: { statusCode: 403 }, msg: 'request completed' }),
    ]);
    const metrics = await request(opsUrl.url).get('/metrics').expect(200);
    expect(metrics.text).toMatch(/http_request_duration_seconds_count\{service="raw",method="GET",route="\/api\/v1\/raw",status="403"\} [1-9]/);
  });
});

describe('requestIdFrom', () => {
  test('keeps a well-formed caller id (the signed one first), otherwise makes one', () => {
    expect(requestIdFrom({ 'x-pasar-request-id': 'a-1', 'x-request-id': 'b-2' })).toBe('a-1');
    expect(requestIdFrom({ 'x-request-id': 'b-2' })).toBe('b-2');
    expect(requestIdFrom({ 'x-request-id': 'bad id!' })).toMatch(/^[0-9a-f-]{36}$/);
    expect(requestIdFrom({ 'x-request-id': 'x'.repeat(101) })).toMatch(/^[0-9a-f-]{36}$/);
  });
});
