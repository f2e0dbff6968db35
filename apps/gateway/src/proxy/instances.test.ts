/** The gateway in front of two instances of a service: spread, skip the stopped one, take it back. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunningServer } from '@pasar/service-kit';
import { freePort } from '@pasar/testkit';
import request from 'supertest';
import { createTestWorld, startCheckoutStandIn, type TestWorld } from '../../test/harness';
import type { GatewayHandle } from '../app';

/** A checkout instance answering the public catalog with its own name. */
function startInstance(name: string, port = 0): Promise<RunningServer> {
  return startCheckoutStandIn((router) => {
    router.all('/catalog/products', (_req, res) => {
      res.json({ instance: name });
    });
  }, port);
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


    second = await startInstance('second', secondPort);
    // its trial request comes once the retry delay has passed; from then on both share the work again
    await new Promise((resolve) => setTimeout(resolve, 400));
    const answers = await instancesAnswering(gateway.url, 8);
    expect(answers).not.toContain('status 503');
    expect(answers.filter((a) => a === 'second').length).toBeGreaterThanOrEqual(3);
  });
});

describe('an instance lost with requests on their way', () => {
  let world: TestWorld;
  let steady: RunningServer;
  let crashing: RunningServer;
  const seen = { crashing: 0, steady: 0 };

  /** An instance that closes the connection of every POST it receives without answering (a crash mid-request). */
  function startCrashingInstance(): Promise<RunningServer> {
    return startCheckoutStandIn((router) => {
      router.post(['/catalog/products', '/payments/notify'], (req) => {
        seen.crashing += 1;
        req.socket.destroy();
      });
    });
  }

  beforeAll(async () => {
    world = await createTestWorld();
    crashing = await startCrashingInstance();
    steady = await startCheckoutStandIn((router) => {
      router.post('/catalog/products', (req, res) => {
        seen.steady += 1;
        res.status(201).json({ instance: 'steady', got: req.body as unknown });
      });
      router.post('/payments/notify', (_req, res) => {
        seen.steady += 1;
        res.type('text/plain').send('OK');
      });
    });
  });
  afterAll(async () => {
    await world.close();
    await crashing.close();
    await steady.close();
  });

  /** Two POSTs in turn: round robin sends one of them to each instance. */
  async function twoPosts(gatewayUrl: string, headers: Record<string, string>) {
    return [
      await request(gatewayUrl).post('/api/v1/catalog/products').set(headers).send({ n: 1 }),
      await request(gatewayUrl).post('/api/v1/catalog/products').set(headers).send({ n: 2 }),
    ];
  }

  it('a POST whose instance does not take the connection goes to the other one, body and all', async () => {
    const stoppedPort = await freePort(); // nothing listens there: refused
    const gateway = await world.start({ CHECKOUT_URL: `http://127.0.0.1:${stoppedPort},${steady.url}`, UPSTREAM_HEALTH_INTERVAL_MS: '0' });
    const before = seen.steady;
    const answers = await twoPosts(gateway.url, {});
    expect(answers.map((res) => res.status)).toEqual([201, 201]);
    expect(answers.map((res) => (res.body as { got: { n: number } }).got.n)).toEqual([1, 2]);
    expect(seen.steady - before).toBe(2);
  });

  it('a POST whose instance closed the connection goes to the other one with an Idempotency-Key, and is never sent twice without', async () => {
    const gateway = await world.start({ CHECKOUT_URL: `${crashing.url},${steady.url}`, UPSTREAM_HEALTH_INTERVAL_MS: '0' });
    const before = { ...seen };
    const keyed = await twoPosts(gateway.url, { 'idempotency-key': 'b7d1a9c2-5a43-4e0b-9f57-0d0c3f1e2a11' });
    expect(keyed.map((res) => res.status)).toEqual([201, 201]);
    // each answered once by the steady one, whichever the crashing one took first
    expect(seen.steady - before.steady).toBe(2);
    expect(seen.crashing - before.crashing).toBeGreaterThanOrEqual(1);

    // without a key the crashed attempt may have been done: 502, and the other instance never sees it
    const middle = { ...seen };
    const plain = await twoPosts(gateway.url, {});
    expect(plain.map((res) => res.status).sort()).toEqual([201, 502]);
    expect(plain.find((res) => res.status === 502)?.body).toMatchObject({ code: 'bad_gateway' });
    expect(seen.crashing - middle.crashing).toBe(1);
    expect(seen.steady - middle.steady).toBe(1);
  });

  it("the payment gateway's notification (a repeatable route) goes to the other instance without a key", async () => {
    const gateway = await world.start({ CHECKOUT_URL: `${crashing.url},${steady.url}`, UPSTREAM_HEALTH_INTERVAL_MS: '0' });
    const before = { ...seen };
    const notify = () => request(gateway.url).post('/api/v1/payments/notify').type('form').send({ orderid: 'ABC123', status: '00' });
    const answers = [await notify(), await notify()];
    expect(answers.map((res) => res.status)).toEqual([200, 200]);
    expect(seen.steady - before.steady).toBe(2);
    expect(seen.crashing - before.crashing).toBeGreaterThanOrEqual(1);
  });
});

describe('one instance killed, the other busy', () => {
  it('a request goes to the busy instance that timed out, not to the one that refuses connections', async () => {
    const world = await createTestWorld();
    let delayMs = 0;
    const busy = await startCheckoutStandIn((router) => {
      router.get('/catalog/products', (_req, res) => {
        setTimeout(() => res.json({ instance: 'busy' }), delayMs);
      });
    });
    const killedPort = await freePort(); // nothing listens there: refused, as a killed container restarting
    try {
      // no probe and no trial within the test: only what the requests see marks the instances
      const gateway = await world.start({
        CHECKOUT_URL: `http://127.0.0.1:${killedPort},${busy.url}`,
        UPSTREAM_HEALTH_INTERVAL_MS: '0',
        UPSTREAM_RETRY_DOWN_AFTER_MS: '60000',
        UPSTREAM_TIMEOUT_MS: '300',
      });
      // refused by the killed one (marked down), sent again to the busy one
      expect(await instancesAnswering(gateway.url, 1)).toEqual(['busy']);
      // the busy one falls behind: a GET that timed out once sent is not sent again, and it is marked down too
      delayMs = 1_000;
      expect(await instancesAnswering(gateway.url, 1)).toEqual(['status 504']);
      // both down: the busy one, which still takes connections, gets the requests, not the killed one
      delayMs = 0;
      expect(await instancesAnswering(gateway.url, 3)).toEqual(['busy', 'busy', 'busy']);
    } finally {
      await world.close();
      await busy.close();
    }
  });
});

describe('with the active probe', () => {
  it('an instance the probe finds unhealthy gets no request at all, not even a trial, until its /healthz answers 200', async () => {
    const world = await createTestWorld();
    let healthy = false;
    const seen = { sick: 0 };
    // a plain HTTP instance: /healthz says whether it is healthy, the catalog answers whatever it says
    const sickServer = createServer((req, res) => {
      if (req.url === '/healthz') return void res.writeHead(healthy ? 200 : 503).end();
      seen.sick += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ instance: 'sick' }));
    });
    await new Promise<void>((resolve) => sickServer.listen(0, '127.0.0.1', () => resolve()));
    const sick = { url: `http://127.0.0.1:${(sickServer.address() as AddressInfo).port}`, close: () => new Promise<void>((resolve) => sickServer.close(() => resolve())) };
    const first = await startInstance('first');
    try {
      const gateway = await world.start({ CHECKOUT_URL: `${first.url},${sick.url}`, UPSTREAM_HEALTH_INTERVAL_MS: '100', UPSTREAM_RETRY_DOWN_AFTER_MS: '100' });
      // the probe has found it unhealthy; well past the retry delay, every request goes to the first one
      await new Promise((resolve) => setTimeout(resolve, 400));
      const before = seen.sick;
      for (let round = 0; round < 4; round += 1) {
        expect(await instancesAnswering(gateway.url, 3)).toEqual(['first', 'first', 'first']);
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
      expect(seen.sick).toBe(before);
      healthy = true;
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(await instancesAnswering(gateway.url, 4)).toContain('sick');
    } finally {
      await world.close();
      await first.close();
      await sick.close();
    }
  });
});
