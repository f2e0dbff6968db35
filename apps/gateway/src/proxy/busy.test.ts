/**
 * No request waits at the gateway for an upstream: an instance takes UPSTREAM_MAX_SOCKETS requests
 * at a time, beyond that the answer is 503 `service_busy` with Retry-After at once; a request whose
 * client went away is aborted upstream and gives its place back.
 */
import { waitFor } from '@pasar/testkit';
import { createTestWorld, startCheckoutStandIn, type TestWorld } from '../../test/harness';
import type { GatewayHandle } from '../app';

/** A checkout instance whose catalog answers only when the test lets it; it counts the requests that arrive and those whose caller left. */
async function startHeldInstance() {
  const held: (() => void)[] = [];
  const seen = { arrived: 0, leftBeforeAnswer: 0 };
  const server = await startCheckoutStandIn((router) => {
    router.get('/catalog/products', (_req, res) => {
      seen.arrived += 1;
      res.once('close', () => {
        if (!res.writableFinished) seen.leftBeforeAnswer += 1;
      });
      held.push(() => {
        if (!res.writableEnded && !res.destroyed) res.json({ ok: true });
      });
    });
  });
  return { server, seen, answerAll: () => held.splice(0).forEach((answer) => answer()) };
}

describe('an upstream with as many requests as it takes', () => {
  let world: TestWorld;
  let gateway: GatewayHandle;
  let instance: Awaited<ReturnType<typeof startHeldInstance>>;
  const catalog = () => `${gateway.url}/api/v1/catalog/products`;

  beforeAll(async () => {
    world = await createTestWorld();
    instance = await startHeldInstance();
    gateway = await world.start({ CHECKOUT_URL: instance.server.url, UPSTREAM_MAX_SOCKETS: '2', UPSTREAM_TIMEOUT_MS: '20000' });
  });
  afterAll(async () => {
    instance.answerAll();
    await world.close();
    await instance.server.close();
  });

  it('answers the request past the limit 503 service_busy with Retry-After at once, and takes requests again when a place is free', async () => {
    const first = fetch(catalog());
    const second = fetch(catalog());
    await waitFor(() => instance.seen.arrived === 2, 5000);

    const startedAt = Date.now();
    const third = await fetch(catalog());
    expect(Date.now() - startedAt).toBeLessThan(2000);
    expect(third.status).toBe(503);
    expect(third.headers.get('retry-after')).toBe('1');
    expect(third.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await third.json()).toMatchObject({ status: 503, code: 'service_busy' });
    // it never reached the instance
    expect(instance.seen.arrived).toBe(2);

    instance.answerAll();
    expect((await first).status).toBe(200);
    expect((await second).status).toBe(200);
    const fourth = fetch(catalog());
    await waitFor(() => instance.seen.arrived === 3, 5000);
    instance.answerAll();
    expect((await fourth).status).toBe(200);
  });

  it('aborts the upstream request of a client that went away, and gives its place to the next request', async () => {
    const leftBefore = instance.seen.leftBeforeAnswer;
    const arrivedBefore = instance.seen.arrived;
    const gone = [new AbortController(), new AbortController()];
    const abandoned = gone.map((controller) => fetch(catalog(), { signal: controller.signal }).catch((err: unknown) => err));
    await waitFor(() => instance.seen.arrived === arrivedBefore + 2, 5000);
    for (const controller of gone) controller.abort();
    await Promise.all(abandoned);

    // the instance sees both requests closed without waiting for its answer
    await waitFor(() => instance.seen.leftBeforeAnswer === leftBefore + 2, 5000);
    // and both places are free again: two new requests go through, none is refused as busy
    const next = [fetch(catalog()), fetch(catalog())];
    await waitFor(() => instance.seen.arrived === arrivedBefore + 4, 5000);
    instance.answerAll();
    expect((await Promise.all(next)).map((res) => res.status)).toEqual([200, 200]);
  });
});
