import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as contracts from './index';
import { BUS_SERVICES, EVENT_GRANTS, RPC_GRANTS, busGrantsOf, renderBusPermissionTable } from './bus-permissions';

const isEvent = (value: unknown): value is contracts.EventContract =>
  typeof value === 'object' && value !== null && 'type' in value && 'data' in value && 'version' in value;
const isRpc = (value: unknown): value is contracts.RpcContract =>
  typeof value === 'object' && value !== null && 'subject' in value && 'request' in value && 'response' in value;

describe('the bus permission table', () => {
  test('names every event and rpc of the contracts, each once (a new one without a row could not be sent)', () => {
    const events = [...new Set((Object.values(contracts) as unknown[]).filter(isEvent).map((e) => e.type))].sort();
    const rpcs = [...new Set((Object.values(contracts) as unknown[]).filter(isRpc).map((r) => contracts.rpcSubjectOf(r)))].sort();
    expect(EVENT_GRANTS.map((g) => g.event.type).sort()).toEqual(events);
    expect(RPC_GRANTS.map((g) => contracts.rpcSubjectOf(g.rpc)).sort()).toEqual(rpcs);
  });

  test('only the gateway answers rpc.identity.*, only the notifier rpc.notifier.*; every rpc has one answerer', () => {
    for (const grant of RPC_GRANTS) {
      if (grant.rpc.subject.startsWith('rpc.identity.')) expect(grant.answerer).toBe('gateway');
      if (grant.rpc.subject.startsWith('rpc.notifier.')) expect(grant.answerer).toBe('notifier');
      expect(grant.callers).not.toContain(grant.answerer);
    }
    expect(busGrantsOf('vendor').answers).toEqual(['rpc.vendor.create_store', 'rpc.vendor.booking_context', 'rpc.vendor.store_of_owner']);
    expect(busGrantsOf('gateway').reads).toEqual(['CHECKOUT', 'VENDOR']);
    expect(busGrantsOf('vendor').reads).toEqual([]);
  });

  test('a service publishes only events of its own or notify requests, and reads only what it consumes', () => {
    expect(busGrantsOf('vendor').publishes).not.toContain('checkout.order.paid');
    expect(busGrantsOf('checkout').publishes).toContain('checkout.order.paid');
    expect(busGrantsOf('checkout').calls).not.toContain('rpc.identity.reset_password');
    for (const service of BUS_SERVICES) {
      for (const subject of busGrantsOf(service).publishes) {
        expect([service === 'gateway' ? 'identity' : service, 'notify']).toContain(subject.split('.')[0]);
      }
    }
  });

  test('docs/architecture.md shows the table as generated (npm run nats:config -- --table)', () => {
    const doc = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'architecture.md'), 'utf8');
    const start = '<!-- bus-permissions:start -->\n';
    const end = '<!-- bus-permissions:end -->';
    const shown = doc.slice(doc.indexOf(start) + start.length, doc.indexOf(end));
    expect(doc.indexOf(start)).toBeGreaterThan(0);
    expect(shown).toBe(renderBusPermissionTable());
  });
});
