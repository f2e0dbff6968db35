import { Writable } from 'node:stream';
import { createLogger } from '@pasar/service-kit';
import request from 'supertest';
import { createTestWorld, signIn, signUp, uniqueEmail, type TestWorld } from '../../test/harness';

/** Every line the gateway logs, as text. */
class CapturedLog extends Writable {
  text = '';
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

describe('gateway logs hold no secrets', () => {
  let world: TestWorld;
  let url: string;
  const log = new CapturedLog();

  beforeAll(async () => {
    world = await createTestWorld();
    const gateway = await world.start({}, { log: createLogger('gateway', 'trace', log) });
    url = gateway.url;
  });
  afterAll(async () => {
    await world.close();
  });

  test('signing up, in and out logs the requests, but neither the session token, the password nor secret query values', async () => {
    const password = 'a very private passphrase';
    const email = uniqueEmail('logged');
    const first = await signUp(url, email, password);
    const second = await signIn(url, email, password);
    await request(url).post('/api/v1/auth/sign-in').send({ email, password: `${password} wrong` }).expect(401);
    await request(url).get('/api/v1/auth/session').set('Cookie', second.cookie).set('Authorization', 'Bearer some-bearer-token').expect(200);
    await request(url).post('/api/v1/auth/sign-out').set('Cookie', second.cookie).expect(204);
    await request(url).get('/api/v1/auth/session?token=query-token-value&vcode=query-vcode-value&page=2').expect(401);

    // the requests were logged, with their headers (so the absence below means redaction, not silence)
    expect(log.text).toContain('/api/v1/auth/sign-in');
    expect(log.text).toContain('/api/v1/auth/session');
    expect(log.text).toContain('[Redacted]');
    for (const token of [first.cookie.split('=')[1], second.cookie.split('=')[1]]) expect(log.text).not.toContain(token);
    expect(log.text).not.toContain(password);
    expect(log.text).not.toContain('some-bearer-token');
    // secret query values neither (the URL keeps the rest)
    expect(log.text).toContain('/api/v1/auth/session?token=[Redacted]&vcode=[Redacted]&page=2');
    expect(log.text).not.toContain('query-token-value');
    expect(log.text).not.toContain('query-vcode-value');
  });

  test('a label link is logged without its signature, also when the upstream fails', async () => {
    const link = '/api/v1/shipment-labels/0b6f2d1e-3c4a-4f5b-8a9c-1d2e3f405162?expires=1893456000&signature=label-signature-value';
    const res = await request(url).get(link);
    expect(res.status).toBeGreaterThanOrEqual(500); // no admin runs in this world: the proxy fails and logs it
    expect(log.text).toContain('proxy to upstream failed');
    expect(log.text).toContain('?expires=1893456000&signature=[Redacted]');
    expect(log.text).not.toContain('label-signature-value');
  });
});
