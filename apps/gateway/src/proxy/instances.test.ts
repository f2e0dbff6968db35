/** The gateway in front of two instances of a service: spread, skip the stopped one, take it back. */
import { createService, type RunningServer } from '@pasar/service-kit';
import { TEST_IDENTITY_SECRET, freePort, silentLog } from '@pasar/testkit';
import request from 'supertest';
import { createTestWorld, type TestWorld } from '../../test/harness';
import type { GatewayHandle } from '../app';

/** A checkout instance answering the public catalog with its own name. */
async function startInstance(name: string, port = 0): Promise<RunningServer> {
  const service = createService({
    name: 'checkout',
    log: silentLog,
    identitySecret: TEST_IDENTITY_SECRET,
    publicPaths: ['/catalog/products'],
    routes: (router) => {
      router.all('/catalog/products', (_req, res) => {
        res.json({ instance: name });
      });
    },
  });
  return service.listen(port);
}

async function instancesAnswering(gatewayUrl: string, requests: number): Promise<string[]> {
  const answers: string[] = [];
  for (let i = 0; i < requests; i += 1) {
    const res = await request(gatewayUrl).get('/api/v1/catalog/products');
    answers.push(res.status === 200 ? (res.body as { instance: string }).instance : `status ${res.status}`);
  }
  return answers;
}

describe('several instances of a service', () => {
  let world: TestWorld;
  let gateway: GatewayHandle;
  let first: RunningServer;
  let second: RunningServer | undefined;
  let secondPort: number;

  beforeAll(async () => {
    world = await createTestWorld();
    first = await startInstance('first');
    secondPort = await freePort();
    second = await startInstance('second', secondPort);
    gateway = await world.start({
      CHECKOUT_URL: `${first.url},http://127.0.0.1:${secondPort}`,
      UPSTREAM_HEALTH_INTERVAL_MS: '0', // the passive check alone; the probe has its unit test
      UPSTREAM_RETRY_DOWN_AFTER_MS: '300',
    });
  });
  afterAll(async () => {
    await world.close();
    await first.close();
    await second?.close();
  });

  it('spreads requests over both instances in turn', async () => {
    const answers = await instancesAnswering(gateway.url, 6);
    expect(answers.filter((a) => a === 'first')).toHaveLength(3);
    expect(answers.filter((a) => a === 'second')).toHaveLength(3);
  });

  it('a stopped instance is skipped (a refused GET goes to the other one), and taken back once it answers again', async () => {
    await second?.close();
    second = undefined;
    expect(await instancesAnswering(gateway.url, 6)).toEqual(['first', 'first', 'first', 'first', 'first', 'first']);

    // a POST refused by the stopped instance is not sent twice: a clear 503 at worst, never a 500
    const post = await request(gateway.url).post('/api/v1/catalog/products').send({});
    expect([200, 503]).toContain(post.status);

    second = await startInstance('second', secondPort);
    // its trial request comes once the retry delay has passed; from then on both share the work again
    await new Promise((resolve) => setTimeout(resolve, 400));
    const answers = await instancesAnswering(gateway.url, 8);
    expect(answers).not.toContain('status 503');
    expect(answers.filter((a) => a === 'second').length).toBeGreaterThanOrEqual(3);
  });
});
