/**
 * Consumer fixtures (packages/contracts/fixtures) against the producers' schemas: every
 * (event, consumer) and (rpc, caller) pair found in the code has one, and each still holds. A
 * producer change that breaks a consumer fails here (README "Message contracts").
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { z } from 'zod';
import { breaksCaller, breaksReader, leafPaths } from './compatibility';
import * as contracts from './index';
import type { EventContract, RpcContract } from './messaging';

const ROOT = join(__dirname, '..', '..', '..');
const FIXTURES = join(__dirname, '..', 'fixtures');

const isEvent = (value: unknown): value is EventContract =>
  typeof value === 'object' && value !== null && 'type' in value && 'data' in value && 'version' in value;
const isRpc = (value: unknown): value is RpcContract =>
  typeof value === 'object' && value !== null && 'subject' in value && 'request' in value && 'response' in value;

/** The contracts by their exported name (what the code imports) and by type or subject (the fixture folders). */
const byExport = new Map(Object.entries(contracts).filter(([, value]) => isEvent(value) || isRpc(value)) as [string, EventContract | RpcContract][]);
const eventsByType = new Map([...byExport.values()].filter(isEvent).map((event) => [event.type, event]));
const rpcsBySubject = new Map([...byExport.values()].filter(isRpc).map((rpc) => [rpc.subject, rpc]));

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((file) => !/\.test\.ts$|test-fixtures\.ts$|[/\\]generated[/\\]/.test(file));
}

/** `<service>.<consumer>` of every consume/consumeWithInbox, and `<service>` of every callRpc, per contract, read from the code. */
function pairsInCode(): { events: Set<string>; rpcs: Set<string> } {
  const events = new Set<string>();
  const rpcs = new Set<string>();
  const places = [
    ...readdirSync(join(ROOT, 'apps')).map((app) => ({ service: app, dir: join(ROOT, 'apps', app, 'src') })),
    { service: 'stack', dir: join(ROOT, 'tools', 'stack', 'src') },
  ];
  for (const { service, dir } of places) {
    for (const file of sourceFiles(dir)) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/\bconsume(?:WithInbox)?\(/g)) {
        const call = text.slice(match.index, match.index + 500);
        const name = /name:\s*'([^']+)'/.exec(call)?.[1];
        const event = /event:\s*(\w+)/.exec(call)?.[1];
        if (!name || !event) continue; // a rate limiter's consume(key, 1), not a bus consumer
        const contract = byExport.get(event);
        if (!contract || !isEvent(contract)) throw new Error(`${relative(ROOT, file)}: consumer ${name} reads ${event}, which is no event contract`);
        events.add(`${contract.type}/${service}.${name}`);
      }
      for (const match of text.matchAll(/\bcallRpc\(\s*[\w.]+,\s*(\w+)/g)) {
        const contract = byExport.get(match[1]);
        if (!contract || !isRpc(contract)) throw new Error(`${relative(ROOT, file)}: callRpc of ${match[1]}, which is no rpc contract`);
        rpcs.add(`${contract.subject}/${service}`);
      }
    }
  }
  return { events, rpcs };
}

function fixtureFiles(): string[] {
  return readdirSync(FIXTURES, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.json'))
    .map((file) => file.replace(/\\/g, '/').replace(/\.json$/, ''))
    .sort();
}

const readFixture = (name: string): unknown => JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), 'utf8'));

describe('consumer fixtures', () => {
  const code = pairsInCode();

  test('the code has consumers and callers to check (the scan still finds them)', () => {
    expect(code.events.size).toBeGreaterThanOrEqual(17);
    expect(code.rpcs.size).toBeGreaterThanOrEqual(16);
    expect(code.events).toContain('checkout.order.created/vendor.shipments-order-created');
    expect(code.rpcs).toContain('rpc.identity.create_user/admin');
  });

  test('every (event, consumer) and (rpc, caller) pair in the code has a fixture, and every fixture a pair', () => {
    const expected = [...code.events, ...code.rpcs].sort();
    expect(fixtureFiles()).toEqual(expected);
  });

  test.each(fixtureFiles().filter((name) => eventsByType.has(name.split('/')[0])))('%s still holds against the producer', (name) => {
    const event = eventsByType.get(name.split('/')[0]) as EventContract;
    expect(breaksReader(event.data, readFixture(name))).toEqual([]);
  });

  test.each(fixtureFiles().filter((name) => rpcsBySubject.has(name.split('/')[0])))('%s: its request and what it reads of the answer still hold', (name) => {
    const rpc = rpcsBySubject.get(name.split('/')[0]) as RpcContract;
    const fixture = readFixture(name) as { request: unknown; response: unknown };
    expect(Object.keys(fixture).sort()).toEqual(['request', 'response']);
    expect(breaksCaller(rpc.request, fixture.request)).toEqual([]);
    expect(breaksReader(rpc.response, fixture.response)).toEqual([]);
  });
});

describe('what breaks a reader or a caller', () => {
  const producer = z.object({
    id: z.uuid(),
    status: z.enum(['paid', 'shipped']),
    total: z.string(),
    lines: z.array(z.object({ sku: z.string(), qty: z.number().int() })),
    note: z.string().nullable(),
  });
  const reads = { id: '00000000-0000-4000-8000-000000000001', status: 'shipped', lines: [{ sku: 'A-1' }] };

  test('the fields a reader uses, still produced: nothing breaks; fields it does not use may be added freely', () => {
    expect(breaksReader(producer, reads)).toEqual([]);
    expect(breaksReader(producer.extend({ added: z.string() }), reads)).toEqual([]);
  });

  test('a removed or renamed field breaks it', () => {
    const renamed = producer.omit({ status: true }).extend({ state: z.enum(['paid', 'shipped']) });
    expect(breaksReader(renamed, reads)).toEqual(['status: no longer in the producer\'s schema']);
    const nested = producer.extend({ lines: z.array(z.object({ code: z.string(), qty: z.number() })) });
    expect(breaksReader(nested, reads)).toEqual(["lines.0.sku: no longer in the producer's schema"]);
  });

  test('a retyped field or a narrowed enum breaks it', () => {
    expect(breaksReader(producer.extend({ status: z.enum(['paid']) }), reads)).toEqual([expect.stringMatching(/^status: /)]);
    expect(breaksReader(producer.extend({ id: z.number() }), reads)).toEqual([expect.stringMatching(/^id: .*expected number/)]);
  });

  test('a caller breaks when the server newly requires a field or refuses a value it sends', () => {
    const request = { id: '00000000-0000-4000-8000-000000000001', status: 'paid', total: '1.00', lines: [], note: null };
    expect(breaksCaller(producer, request)).toEqual([]);
    expect(breaksCaller(producer.extend({ reason: z.string() }), request)).toEqual([expect.stringMatching(/^reason: /)]);
    expect(breaksCaller(producer.extend({ total: z.number() }), request)).toEqual([expect.stringMatching(/^total: /)]);
  });

  test('leafPaths lists every leaf of an example', () => {
    expect(leafPaths({ a: 1, b: { c: null, d: [] }, e: [{ f: 'x' }] })).toEqual([['a'], ['b', 'c'], ['b', 'd'], ['e', 0, 'f']]);
  });
});
