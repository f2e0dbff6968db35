import request from 'supertest';
import pino from 'pino';
import { z } from 'zod';
import { MAX_JSON_DEPTH, isMalformedUrl, jsonDepthExceeds, unacceptableTextIn } from './body';
import { createService, type RunningServer } from './service';
import { parse } from './validate';

let handled = 0;
const service = createService({
  name: 'body-kit',
  log: pino({ level: 'silent' }),
  identitySecret: 'body-test-secret-1234567890',
  // this suite is about bodies and URLs, not the signature: every caller is anonymous
  authenticate: (req, _res, next) => {
    req.identity = null;
    next();
  },
  formPaths: ['/form'],
  routes: (router) => {
    router.post('/echo', (req, res) => {
      handled += 1;
      res.json({ body: req.body as unknown });
    });
    router.post('/form', (req, res) => {
      handled += 1;
      res.json({ body: req.body as unknown });
    });
    router.get('/things/:id', (req, res) => {
      handled += 1;
      res.json({ id: req.params.id });
    });
    router.delete('/things/:id', (_req, res) => {
      handled += 1;
      res.status(204).end();
    });
    router.post('/bounded', (req, res) => {
      const body = parse(z.object({ name: z.string().max(200), quantity: z.number().int().min(1).max(1000) }), req.body);
      res.json(body);
    });
  },
});
let server: RunningServer;

beforeAll(async () => {
  server = await service.listen(0);
});
afterAll(async () => {
  await server.close();
});

const nested = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

describe('jsonDepthExceeds', () => {
  const bytes = (text: string) => Buffer.from(text);
  test.each([
    ['flat object', '{"a":1}', 1, false],
    ['exactly the bound', '[[["x"]]]', 3, false],
    ['one deeper than the bound', '[[[["x"]]]]', 3, true],
    ['brackets inside strings do not count', '{"a":"[[[[[[{{{{"}', 1, false],
    ['an escaped quote does not end the string', '{"a":"\\"[[[[[["}', 1, false],
    ['an escaped backslash before the closing quote', '{"a":"\\\\","b":[[[1]]]}', 4, false],
    ['siblings do not add up', '[[1],[2],[3],[4]]', 2, false],
    ['a scalar', '42', 0, false],
  ])('%s', (_name, text, max, expected) => {
    expect(jsonDepthExceeds(bytes(text), max)).toBe(expected);
  });

  test('a 100,000-level body is found without recursion', () => {
    expect(jsonDepthExceeds(bytes(nested(100_000)), MAX_JSON_DEPTH)).toBe(true);
  });
});

describe('unacceptableTextIn', () => {
  test.each([
    ['a plain body', { a: 'x', b: [1, 'y', { c: null }] }, undefined],
    ['emoji (a surrogate pair) are fine', { name: 'kopi \u{1F375}' }, undefined],
    ['a NUL in a top-level string', { name: 'a\u0000b' }, 'nul_character'],
    ['a NUL deep in an array', { items: [{ notes: ['ok', 'x\u0000'] }] }, 'nul_character'],
    ['a NUL in a key', { ['ke\u0000y']: 1 }, 'nul_character'],
    ['a NUL as the whole body', '\u0000', 'nul_character'],
    ['a lone high surrogate', { name: 'a\ud800' }, 'malformed_unicode'],
    ['a lone low surrogate in a key', { ['\udc00']: 'x' }, 'malformed_unicode'],
    ['numbers and booleans', { n: 0, t: true }, undefined],
    ['no body', undefined, undefined],
  ])('%s', (_name, value, expected) => {
    expect(unacceptableTextIn(value)).toBe(expected);
  });
});

describe('isMalformedUrl', () => {
  test.each([
    ['/api/v1/things/abc', false],
    ['/api/v1/things/abc?q=a b&r=[x]', false],
    ['/api/v1/things/%20ok?q=caf%C3%A9', false],
    ['/api/v1/things/%E0%A4%A', true],
    ['/api/v1/things/%', true],
    ['/api/v1/things/a%00b', true],
    ['/api/v1/things/a?q=%00', true],
  ])('%s → %s', (url, expected) => {
    expect(isMalformedUrl(url)).toBe(expected);
  });
});

describe('bad input answers 400 problem+json before any handler runs', () => {
  beforeEach(() => {
    handled = 0;
  });

  const expectProblem = (res: request.Response, code: string) => {
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 400, code });
    expect(handled).toBe(0);
  };

  test('a malformed percent-encoding in a path param', async () => {
    expectProblem(await request(server.url).get('/api/v1/things/%E0%A4%A'), 'malformed_url');
  });

  test('a malformed percent-encoding on an unknown path too (no router 500)', async () => {
    expectProblem(await request(server.url).get('/api/v1/nowhere/%E0%A4%A/x'), 'malformed_url');
    expectProblem(await request(server.url).get('/%E0%A4%A'), 'malformed_url');
  });

  test('an encoded NUL in the path or the query', async () => {
    expectProblem(await request(server.url).get('/api/v1/things/a%00'), 'malformed_url');
    expectProblem(await request(server.url).get('/api/v1/things/a?x=%00'), 'malformed_url');
  });

  test("a malformed URL's 400 carries the app middleware's headers through answerHeaders, which no middleware sees", async () => {
    const seen: string[] = [];
    const withHeaders = await createService({
      name: 'body-kit-headers',
      log: pino({ level: 'silent' }),
      identitySecret: 'body-test-secret-1234567890',
      authenticate: (req, _res, next) => {
        req.identity = null;
        next();
      },
      appMiddleware: [
        (req, res, next) => {
          seen.push(req.originalUrl);
          res.setHeader('x-app', 'set');
          next();
        },
      ],
      answerHeaders: (req, res) => res.setHeader('x-app', `set for ${req.headers.origin ?? 'nobody'}`),
      routes: (router) => router.get('/things/:id', (req, res) => void res.json({ id: req.params.id })),
    }).listen(0);
    try {
      const malformed = await request(withHeaders.url).get('/api/v1/things/a%00').set('Origin', 'http://shop.example');
      expectProblem(malformed, 'malformed_url');
      expect(malformed.headers['x-app']).toBe('set for http://shop.example');
      expect(seen).toEqual([]); // still answered before any middleware
      const fine = await request(withHeaders.url).get('/api/v1/things/a').expect(200, { id: 'a' });
      expect(fine.headers['x-app']).toBe('set'); // other answers get them from the middleware
      expect(seen).toEqual(['/api/v1/things/a']);
    } finally {
      await withHeaders.close();
    }
    // without it, the 400 carries no header of the service's middleware
    expect((await request(server.url).get('/api/v1/things/a%00')).headers['x-app']).toBeUndefined();
  });

  test('a body on a GET, HEAD or DELETE, of any type: 400 body_not_allowed, unread; none (or an empty one) passes', async () => {
    for (const method of ['get', 'delete'] as const) {
      for (const [type, body] of [['text/plain', 'hello'], ['application/json', '{"a":1}'], ['application/x-www-form-urlencoded', 'a=1']]) {
        const res = await request(server.url)[method]('/api/v1/things/a').set('content-type', type).send(body);
        expectProblem(res, 'body_not_allowed');
        expect(res.body.detail).toBe(`a ${method.toUpperCase()} request takes no body; send it without one`);
      }
    }
    const head = await request(server.url).head('/api/v1/things/a').set('content-type', 'text/plain').set('content-length', '5').send('hello');
    expect([head.status, handled]).toEqual([400, 0]);
    await request(server.url).get('/api/v1/things/a').expect(200);
    await request(server.url).get('/api/v1/things/a').set('content-type', 'application/json').set('content-length', '0').expect(200);
    await request(server.url).delete('/api/v1/things/a').expect(204);
    expect(handled).toBe(3);
  });

  test('a NUL in a JSON string, at any depth, keys too', async () => {
    for (const body of [{ name: 'a\u0000' }, { items: [{ deep: [{ deeper: 'x\u0000y' }] }] }, { ['k\u0000']: 1 }]) {
      const res = await request(server.url).post('/api/v1/echo').set('content-type', 'application/json').send(JSON.stringify(body));
      expectProblem(res, 'nul_character');
    }
  });

  test('a lone surrogate in a JSON string (jsonb refuses it)', async () => {
    const res = await request(server.url).post('/api/v1/echo').set('content-type', 'application/json').send('{"payload":{"note":"\\ud800"}}');
    expectProblem(res, 'malformed_unicode');
  });

  test('a NUL in a form body', async () => {
    const res = await request(server.url).post('/api/v1/form').type('form').send('name=a%00b');
    expectProblem(res, 'nul_character');
  });

  test('a body nested 5,000 levels deep (no "Maximum call stack size exceeded")', async () => {
    const res = await request(server.url).post('/api/v1/echo').set('content-type', 'application/json').send(nested(5_000));
    expectProblem(res, 'json_too_deep');
    const arrays = await request(server.url).post('/api/v1/echo').set('content-type', 'application/json').send('['.repeat(5_000) + ']'.repeat(5_000));
    expectProblem(arrays, 'json_too_deep');
  });

  test('a body one level deeper than the bound is refused, one at the bound passes', async () => {
    const over = await request(server.url).post('/api/v1/echo').set('content-type', 'application/json').send(nested(MAX_JSON_DEPTH + 1));
    expectProblem(over, 'json_too_deep');
    await request(server.url).post('/api/v1/echo').set('content-type', 'application/json').send(nested(MAX_JSON_DEPTH)).expect(200);
    expect(handled).toBe(1);
  });

  test('a 1 MB array of 500,000 items is walked without blowing the stack', async () => {
    const items = `[${'0,'.repeat(499_999)}"\\u0000"]`;
    expectProblem(await request(server.url).post('/api/v1/echo').set('content-type', 'application/json').send(items), 'nul_character');
    await request(server.url).post('/api/v1/echo').set('content-type', 'application/json').send(`[${'0,'.repeat(499_999)}0]`).expect(200);
  });

  test('bad JSON', async () => {
    for (const text of ['{"a":', '{a:1}', '[1,]', '"unterminated']) {
      const res = await request(server.url).post('/api/v1/echo').set('content-type', 'application/json').send(text);
      expectProblem(res, 'malformed_json');
    }
  });

  test('a huge number or a huge string is a validation 400', async () => {
    for (const body of [
      { name: 'x'.repeat(100_000), quantity: 1 },
      { name: 'x', quantity: 1e308 },
      { name: 'x', quantity: Number.MAX_SAFE_INTEGER + 2 },
      { name: 'x', quantity: -1e308 },
    ]) {
      const res = await request(server.url).post('/api/v1/bounded').send(body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_failed' });
    }
    const huge = await request(server.url).post('/api/v1/bounded').set('content-type', 'application/json').send('{"name":"x","quantity":1e999}');
    expect(huge.status).toBe(400);
  });
});
