import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AckPolicy } from '@nats-io/jetstream';
import { connect, nkeyAuthenticator, PermissionViolationError } from '@nats-io/transport-node';
import { BUS_SERVICES, checkoutOrderPaid, identityResetPassword, type BusService } from '@pasar/contracts';
import { silentLog, startOwnNatsServer, uniqueNamespace, waitFor, type OwnNatsServer } from '@pasar/testkit';
import { Bus } from './bus';
import { createNatsUserKey, natsAuthorizationConfig, natsPermissionsOf, type NatsUserKey } from './permissions';
import { callRpc, serveRpc } from './rpc';
import { ensureStreams } from './streams';

/** A real nats-server with the generated users and permissions; each service connects as itself. */
describe('NATS users with permissions from the contracts', () => {
  const namespace = uniqueNamespace('perm');
  const keys = Object.fromEntries(BUS_SERVICES.map((service) => [service, createNatsUserKey()])) as Record<BusService, NatsUserKey>;
  let dir: string;
  let nats: OwnNatsServer;
  const buses: Bus[] = [];

  async function connectAs(service: BusService): Promise<Bus> {
    const bus = await Bus.connect({ natsUrl: nats.url, namespace, service, log: silentLog, auth: { nkeySeed: keys[service].seed } });
    buses.push(bus);
    return bus;
  }

  /** The permission errors a connection was told about. */
  function violations(bus: Bus): PermissionViolationError[] {
    const seen: PermissionViolationError[] = [];
    void (async () => {
      for await (const status of bus.nc.status()) {
        if (status.type === 'error' && status.error instanceof PermissionViolationError) seen.push(status.error);
      }
    })();
    return seen;
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pasar-nats-auth-'));
    const users = BUS_SERVICES.map((service) => ({ name: service, publicKey: keys[service].publicKey, permissions: natsPermissionsOf(service, namespace) }));
    const configFile = join(dir, 'nats-auth.conf');
    writeFileSync(configFile, JSON.stringify(natsAuthorizationConfig(users)));
    nats = await startOwnNatsServer({ configFile });
  });

  afterAll(async () => {
    await Promise.all(buses.map((bus) => bus.close()));
    await nats?.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  test('an anonymous connection is refused', async () => {
    await expect(connect({ servers: nats.url, reconnect: false, timeout: 5000 })).rejects.toThrow(/Authorization Violation/i);
  });

  test('a seed the server does not know is refused', async () => {
    const stranger = createNatsUserKey();
    const authenticator = nkeyAuthenticator(new TextEncoder().encode(stranger.seed));
    await expect(connect({ servers: nats.url, reconnect: false, timeout: 5000, authenticator })).rejects.toThrow(/Authorization Violation/i);
  });

  test("vendor's user publishing checkout.order.paid is a permission violation and nothing is delivered; checkout's gets through", async () => {
    const checkout = await connectAs('checkout');
    const vendor = await connectAs('vendor');
    await ensureStreams(checkout, ['CHECKOUT']);
    const stream = checkout.naming.stream('CHECKOUT');
    const subject = checkout.naming.subject(checkoutOrderPaid.type);
    // vendor's own durable consumer of the event, made and read with vendor's user (its JetStream grants)
    const durable = vendor.naming.durable('vendor', 'shipments-order-paid');
    const jsm = await vendor.jsm;
    await jsm.consumers.add(stream, { durable_name: durable, filter_subject: subject, ack_policy: AckPolicy.Explicit });
    const consumer = await vendor.js.consumers.get(stream, durable);

    const vendorViolations = violations(vendor);
    await expect(vendor.js.publish(subject, JSON.stringify({ forged: true }), { timeout: 3000 })).rejects.toThrow();
    await waitFor(() => vendorViolations.some((v) => v.operation === 'publish' && v.subject === subject), 10_000);
    expect((await (await checkout.jsm).streams.info(stream)).state.messages).toBe(0);
    expect(await consumer.next({ expires: 1500 })).toBeNull();

    // the control: the publisher the contracts name gets through, and vendor receives and acks it
    await checkout.js.publish(subject, JSON.stringify({ genuine: true }), { timeout: 5000 });
    const delivered = await consumer.next({ expires: 10_000 });
    expect(delivered?.json()).toEqual({ genuine: true });
    await delivered?.ackAck();
    expect((await (await checkout.jsm).streams.info(stream)).state.messages).toBe(1);
  });

  test("checkout's user calling rpc.identity.reset_password is refused; admin's is answered", async () => {
    const gateway = await connectAs('gateway');
    const asked: string[] = [];
    serveRpc(gateway, identityResetPassword, async ({ userId }) => {
      asked.push(userId);
      return { user: { id: userId, email: 'someone@example.com', fullName: 'Someone', phone: null, role: 'customer' as const, mustChangePassword: true } };
    });
    await gateway.nc.flush();
    const admin = await connectAs('admin');
    const checkout = await connectAs('checkout');
    const allowedId = '00000000-0000-4000-8000-000000000001';
    const refusedId = '00000000-0000-4000-8000-000000000002';
    await expect(callRpc(admin, identityResetPassword, { userId: allowedId, password: 'new password 1', mustChangePassword: true }, { timeoutMs: 10_000 })).resolves.toMatchObject({ user: { id: allowedId } });
    const checkoutViolations = violations(checkout);
    await expect(callRpc(checkout, identityResetPassword, { userId: refusedId, password: 'new password 1', mustChangePassword: true }, { timeoutMs: 3000 })).rejects.toThrow();
    await waitFor(() => checkoutViolations.some((v) => v.operation === 'publish' && v.subject === checkout.naming.subject(identityResetPassword.subject)), 10_000);
    expect(asked).toEqual([allowedId]);
  });

  test('only the gateway may answer rpc.identity.*, and nobody reads another service\'s replies', async () => {
    const vendor = await connectAs('vendor');
    const vendorViolations = violations(vendor);
    vendor.nc.subscribe(vendor.naming.subject(identityResetPassword.subject));
    vendor.nc.subscribe('_INBOX_admin.>');
    await waitFor(
      () =>
        vendorViolations.some((v) => v.operation === 'subscription' && v.subject === vendor.naming.subject(identityResetPassword.subject)) &&
        vendorViolations.some((v) => v.operation === 'subscription' && v.subject === '_INBOX_admin.>'),
      10_000,
    );
  });
});
