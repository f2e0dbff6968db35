/**
 * The image's bundle (scripts/bundle-service.mjs, what the Dockerfile runs) without docker:
 * checkout's bundle runs as the image runs it (node dist/main.js in the bundle's folder) against
 * real PostgreSQL and NATS, tracing to an OTLP receiver. pg and express are installed beside the
 * bundle rather than bundled, so the tracing instrumentations patch them as they load: a
 * request's trace holds its express route and its queries, as it does from the sources.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestSchema, DEFAULT_TEST_DATABASE_URL } from '@pasar/db';
import { freePort, signFor, startOtlpReceiver, TEST_IDENTITY_SECRET, TEST_NATS_URL, uniqueNamespace, waitFor, type OtlpReceiver } from '@pasar/testkit';
import { silentSink } from './logs';
import { ManagedProcess } from './process';
import { DEFAULT_PORTS } from './services';
import { deleteStreams, serviceEnvironment, SERVICE_NODE_FLAGS, waitUntilReady } from './stack';

const ROOT = join(__dirname, '..', '..', '..');
const out = mkdtempSync(join(tmpdir(), 'pasar-bundle-'));
const db = createTestSchema(undefined, 'bundle');
const namespace = uniqueNamespace('bundle');
let receiver: OtlpReceiver | undefined;
let checkout: ManagedProcess | undefined;
let url = '';

beforeAll(async () => {
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'bundle-service.mjs'), 'checkout', out], { cwd: ROOT, stdio: 'pipe' });
  receiver = await startOtlpReceiver();
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  const env = serviceEnvironment({
    service: 'checkout',
    ports: { ...DEFAULT_PORTS, checkout: port },
    databaseUrl: DEFAULT_TEST_DATABASE_URL,
    schema: db.schema,
    natsUrl: TEST_NATS_URL,
    namespace,
    identitySecret: TEST_IDENTITY_SECRET,
    logLevel: 'warn',
    nodeEnv: 'test',
    admin: { email: 'unused@example.test', password: 'unused' },
  });
  const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '200', OTEL_TRACES_SAMPLER: 'always_on' };
  checkout = new ManagedProcess({
    name: 'checkout',
    command: process.execPath,
    args: [...SERVICE_NODE_FLAGS, 'dist/main.js'],
    cwd: out,
    env: { PATH: process.env.PATH, ...env, ...otel },
    sink: silentSink,
    keepLines: 200,
  });
  checkout.start();
  await waitUntilReady(checkout, url, Date.now() + 60_000);
}, 180_000);

afterAll(async () => {
  await checkout?.stop();
  await receiver?.close();
  await db.drop();
  await deleteStreams(TEST_NATS_URL, namespace);
  rmSync(out, { recursive: true, force: true });
}, 60_000);

test('pg and express sit beside the bundle, not in it', () => {
  for (const name of ['pg', 'express']) expect(existsSync(join(out, 'node_modules', name, 'package.json'))).toBe(true);
});

test("the bundled service traces a request's express route and its queries", async () => {
  const path = '/api/v1/catalog/products';
  // an anonymous caller, signed as the gateway signs
  const response = await fetch(`${url}${path}`, { headers: signFor('GET', path, null) });
  expect(response.status).toBe(200);
  const traceId = /^00-([0-9a-f]{32})-/.exec(response.headers.get('traceresponse') ?? '')?.[1];
  expect(traceId).toBeDefined();
  const { spans } = receiver as OtlpReceiver;
  const trace = await waitFor(() => {
    const of = spans.filter((s) => s.traceId === traceId);
    const route = of.find((s) => s.attributes['express.type'] === 'request_handler');
    const query = of.find((s) => s.attributes['db.system'] === 'postgresql' || s.attributes['db.system.name'] === 'postgresql');
    return route && query ? { route, query, of } : undefined;
  }, 30_000, 200).catch((err: unknown) => {
    throw new Error(`the trace holds ${JSON.stringify(spans.filter((s) => s.traceId === traceId).map((s) => s.name))}`, { cause: err });
  });
  expect(trace.route.attributes['http.route']).toMatch(/\/catalog\/products$/);
  // the query is a child of a span of the same request
  expect(trace.of.some((s) => s.spanId === trace.query.parentSpanId)).toBe(true);
});
