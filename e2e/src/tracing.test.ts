/**
 * OpenTelemetry through the whole stack: every service exports to an OTLP/HTTP (JSON) receiver
 * this test runs. A submit's trace holds checkout's (HTTP, its queries) and (through NATS) vendor's
 * spans, a request to an express route its request handler's; no express middleware layer and no query outside a request or a
 * message has a span; a payment's also the notifier's; `traceresponse` names the trace, problem bodies carry
 * its id, log lines its trace_id; an inbound traceparent does not reach past the gateway; no span
 * attribute holds the session cookie or the password.
 */
import { randomUUID } from 'node:crypto';
import { startOtlpReceiver, traceparentParts, waitFor, type OtlpReceiver, type ReceivedSpan, type TestBus } from '@pasar/testkit';
import { connectStackBus } from './support/bus';
import { newShopper, openStore, submit, type E2eStore } from './support/commerce';
import type { Problem } from './support/http';
import { API, startE2eStack, withLogs, type E2eStack } from './support/stack';

let receiver: OtlpReceiver | undefined;
let e2e: E2eStack | undefined;
let testBus: TestBus | undefined;
let store: E2eStore | undefined;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '200', OTEL_TRACES_SAMPLER: 'always_on' };
  e2e = await startE2eStack({ env: { gateway: otel, checkout: otel, b2b: otel, vendor: otel, admin: otel, notifier: otel } });
  testBus = await connectStackBus(e2e);
  store = await openStore(e2e, testBus, { basePrice: '10.00', stock: 50 }, 5);
}, 240_000);

afterAll(async () => {
  await testBus?.bus.close();
  await e2e?.stop();
  await receiver?.close();
}, 60_000);

function env() {
  if (!e2e || !store || !receiver) throw new Error('the stack did not start');
  return { e2e, store, receiver };
}

const traceIdOf = (traceresponse: string | null) => traceparentParts(traceresponse).traceId;

/** Waits until the trace has a span of each service that satisfies `wanted` (by service). */
async function traceWith(traceId: string, wanted: Record<string, (span: ReceivedSpan) => boolean>): Promise<ReceivedSpan[]> {
  const { receiver } = env();
  try {
    return await waitFor(() => {
      const spans = receiver.spans.filter((s) => s.traceId === traceId);
      return Object.entries(wanted).every(([service, ok]) => spans.some((s) => s.service === service && ok(s))) ? spans : undefined;
    }, 60_000, 200);
  } catch (err) {
    const seen = receiver.spans.filter((s) => s.traceId === traceId).map((s) => `${s.service}: ${s.name}`);
    throw new Error(`trace ${traceId} never held every wanted span; it has ${JSON.stringify(seen)}`, { cause: err });
  }
}

describe('traces across HTTP and NATS', () => {
  test(
    'submit and payment traces cross checkout, vendor and the notifier over NATS; responses and problems name them; no secret is recorded',
    withLogs(
      () => e2e,
      async () => {
        const { e2e: stack, store, receiver } = env();
        const shopper = await newShopper(stack, 'traced');

        const placed = await submit(shopper.client, { addressId: shopper.addressId, items: [{ productId: store.productId, quantity: 1 }], shippingMethodId: store.shippingMethodId }, randomUUID());
        expect(placed.status).toBe(201);
        const submitTrace = traceIdOf(placed.headers.get('traceresponse'));
        expect(submitTrace).toBeDefined();
        const submitSpans = await traceWith(submitTrace, {
          checkout: (s) => s.name.startsWith('pg') || s.name.includes('INSERT') || String(s.attributes['db.system'] ?? '') === 'postgresql',
          vendor: (s) => s.name === 'checkout.order.created process' && typeof s.attributes['messaging.message.id'] === 'string',
        });
        // the vendor's consumer span continues the trace (it has a parent in it)
        const consumer = submitSpans.find((s) => s.service === 'vendor' && s.name === 'checkout.order.created process') as ReceivedSpan;
        expect(consumer.parentSpanId).toBeDefined();
        // one trace from the door: checkout's HTTP server span is a child of a gateway span
        const fromDoor = await traceWith(submitTrace, {
          gateway: (g) => receiver.spans.some((c) => c.service === 'checkout' && c.parentSpanId === g.spanId),
        });
        const gatewaySpanIds = new Set(fromDoor.filter((s) => s.service === 'gateway').map((s) => s.spanId));
        const checkoutRoots = fromDoor.filter((s) => s.service === 'checkout' && !fromDoor.some((p) => p.service === 'checkout' && p.spanId === s.parentSpanId));
        expect(checkoutRoots.length).toBeGreaterThan(0);
        for (const root of checkoutRoots) expect(gatewaySpanIds.has(root.parentSpanId as string)).toBe(true);
        // and vendor's consumer span has a checkout span as its parent
        expect(submitSpans.some((s) => s.service === 'checkout' && s.spanId === consumer.parentSpanId)).toBe(true);
        // the answer's traceresponse names the gateway's server span, not checkout's (whose headers the proxy copies)
        const answeredBy = traceparentParts(placed.headers.get('traceresponse')).spanId;
        const answering = await traceWith(submitTrace, { gateway: (s) => s.spanId === answeredBy });
        expect(answering.find((s) => s.spanId === answeredBy)).toMatchObject({ service: 'gateway', kind: 2 });

        const paid = await shopper.client.post(`${API}/checkout/payment/initiate/${placed.body.orderId}`);
        expect(paid.status).toBe(200);
        const paymentTrace = traceIdOf(paid.headers.get('traceresponse'));
        expect(paymentTrace).toBeDefined();
        expect(paymentTrace).not.toBe(submitTrace);
        await traceWith(paymentTrace, {
          checkout: () => true,
          vendor: (s) => s.name === 'checkout.order.paid process',
          notifier: (s) => s.name.endsWith(' process'),
        });

        // a problem names its trace, as its response does
        const missing = await shopper.client.get<Problem & { traceId?: string }>(`${API}/account/orders/${randomUUID()}`);
        expect(missing.status).toBe(404);
        expect(missing.body.traceId).toBe(traceIdOf(missing.headers.get('traceresponse')));
        // an express route (the submit is not one: it takes checkout's lean path) has its request handler's span
        await traceWith(missing.body.traceId as string, { checkout: (s) => s.attributes['express.type'] === 'request_handler' && s.attributes['http.route'] === '/api/v1/account/orders/:id' });

        // a live stream's snapshot read (the gateway's fetch) continues the stream's trace into checkout
        const missingOrder = randomUUID();
        const streamMissing = await shopper.client.get<Problem & { traceId?: string }>(`${API}/account/orders/${missingOrder}/events`);
        expect(streamMissing.status).toBe(404);
        // (the gateway's client span ends after checkout's server span, so it may be exported later: wait for both)
        const streamSpans = await traceWith(streamMissing.body.traceId as string, {
          checkout: (s) => s.kind === 2 && s.attributes['url.path'] === `/api/v1/account/orders/${missingOrder}`,
          gateway: (s) => s.kind === 3,
        });
        const snapshotRead = streamSpans.find((s) => s.service === 'checkout' && s.kind === 2) as ReceivedSpan;
        expect(streamSpans.find((s) => s.spanId === snapshotRead.parentSpanId)).toMatchObject({ service: 'gateway', kind: 3, name: 'GET' });

        // the gateway starts its own trace: a caller's traceparent is not followed
        const foreign = '0af7651916cd43dd8448eb211c80319c';
        const withParent = await shopper.client.get(`${API}/account/orders`, { headers: { traceparent: `00-${foreign}-b7ad6b7169203331-01` } });
        expect(withParent.status).toBe(200);
        expect(traceIdOf(withParent.headers.get('traceresponse'))).not.toBe(foreign);
        // a malformed one is ignored, not a 500
        expect((await shopper.client.get(`${API}/account/orders`, { headers: { traceparent: 'garbage' } })).status).toBe(200);

        // log lines written during the submit carry its trace id
        await waitFor(() => Object.values(stack.stack.instances).flat().some((s) => s.recentLines().some((line) => line.includes(`"trace_id":"${submitTrace}"`))), 30_000, 200);

        // nothing secret in any attribute of any span
        const cookie = shopper.client.jar.header() as string;
        const token = cookie.split('=').slice(1).join('=');
        const everything = JSON.stringify(receiver.spans.map((s) => s.attributes));
        expect(token.length).toBeGreaterThan(10);
        expect(everything).not.toContain(token);
        expect(everything).not.toMatch(/x-pasar-sig|set-cookie|"cookie"/i);
        expect(everything).not.toMatch(/signature=/);

        // no span per express middleware layer; a query is traced only inside a request's or a
        // message's span (the outbox relay's and the workers' own queries start no trace)
        expect(receiver.spans.filter((s) => s.attributes['express.type'] === 'middleware').map((s) => `${s.service}: ${s.name}`)).toEqual([]);
        const queries = receiver.spans.filter((s) => s.attributes['db.system'] === 'postgresql' || s.attributes['db.system.name'] === 'postgresql');
        expect(queries.length).toBeGreaterThan(0);
        expect(queries.filter((s) => s.parentSpanId === undefined).map((s) => `${s.service}: ${s.name}`)).toEqual([]);
        // nor does a request's trace hold the relay's own statements: the marks of the rows a submit
        // handed over run later, from a timer the submit armed, for every row handed over meanwhile
        expect(queries.filter((s) => s.name.includes('outbox-mark')).map((s) => `${s.service}: ${s.name}`)).toEqual([]);
      },
    ),
    300_000,
  );
});
