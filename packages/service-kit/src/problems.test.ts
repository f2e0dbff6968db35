import express from 'express';
import request from 'supertest';
import { problemHandler, refusalProblems } from './problems';

/** A bare app whose routes throw what libraries throw, rendered by the kit's problemHandler. */
function appThrowing(error: () => unknown) {
  const app = express();
  app.get('/boom', () => {
    throw error();
  });
  app.use(problemHandler);
  return app;
}

describe('problemHandler', () => {
  test('a URIError (a value that does not percent-decode) is a 400, not a 500', async () => {
    const res = await request(appThrowing(() => new URIError('URI malformed'))).get('/boom');
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'bad_request' });
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
  });

  test("a library's 4xx without a public message keeps its status, with a generic detail", async () => {
    const res = await request(appThrowing(() => Object.assign(new Error('Failed to decode param secret-ish'), { status: 400 }))).get('/boom');
    expect({ status: res.status, code: res.body.code, detail: res.body.detail }).toEqual({ status: 400, code: 'bad_request', detail: 'the request is not valid' });
  });

  test.each([
    ['P2024', 'Timed out fetching a new connection from the connection pool.'],
    ['P2028', 'Transaction API error: Unable to start a transaction in the given time.'],
  ])('Prisma %s (a busy database) is a 503 database_busy with Retry-After: 1, nothing of its message', async (code, message) => {
    const busy = Object.assign(new Error(message), { code, clientVersion: '7.0.0', meta: {} });
    const res = await request(appThrowing(() => busy)).get('/boom');
    expect({ status: res.status, code: res.body.code, retryAfter: res.headers['retry-after'] }).toEqual({ status: 503, code: 'database_busy', retryAfter: '1' });
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.text).not.toContain('Unable to start');
    expect(res.text).not.toContain('Timed out');
  });

  test('another Prisma error is not a busy database', async () => {
    const res = await request(appThrowing(() => Object.assign(new Error('Record to update not found.'), { code: 'P2025', clientVersion: '7.0.0' }))).get('/boom');
    expect({ status: res.status, code: res.body.code, retryAfter: res.headers['retry-after'] }).toEqual({ status: 500, code: 'internal_error', retryAfter: undefined });
  });

  test('anything else stays a 500 that leaks nothing', async () => {
    const res = await request(appThrowing(() => new Error('database password is hunter2'))).get('/boom');
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 500, code: 'internal_error' });
    expect(res.text).not.toContain('hunter2');
  });
});

describe('refusalProblems', () => {
  test('maps a refusal to a problem with its listed status, 400 for an unlisted code', () => {
    const problemOf = refusalProblems({ not_pending: 409, email_failed: 500 });
    expect(problemOf({ code: 'not_pending', detail: 'the application is approved' })).toMatchObject({ status: 409, code: 'not_pending', detail: 'the application is approved' });
    expect(problemOf({ code: 'email_failed', detail: 'x' }).status).toBe(500);
    expect(problemOf({ code: 'something_else', detail: 'y' }).status).toBe(400);
  });
});
