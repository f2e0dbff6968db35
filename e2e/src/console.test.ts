/**
 * The operator console in a real browser (issue 28): Debian's chromium (/usr/bin/chromium, no
 * download) driven headless by playwright-core against a whole stack started here. An
 * administrator signs in, approves a pending vendor application (the row leaves the queue and the
 * credentials e-mail reaches the SMTP catcher), uploads a settlement CSV and sees its flagged lines;
 * a customer's session gets the 403 page. It finds an order by e-mail and by short id and opens it,
 * sees a store's failing webhook delivery (its endpoint answers 500), replays a message checkout
 * really parked (it fails again and stays parked) and discards it with a reason. A screenshot of each page goes to
 * CONSOLE_SCREENSHOTS (docs/console for the README), else a temporary folder the run names.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { addAddress } from '@pasar/stack';
import { waitFor, type TestBus } from '@pasar/testkit';
import { chromium, type Browser, type Page } from 'playwright-core';
import { connectStackBus, envelope, publish } from './support/bus';
import { asSession, openStore, pollUntil, submit } from './support/commerce';
import { show, type ApiClient } from './support/http';
import { addressBody, newCustomer } from './support/identity';
import { API, startE2eStack, withLogs, type E2eStack } from './support/stack';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
// a folder of the run's own, so `npm test` leaves the work tree as it found it; the README's
// screenshots are refreshed with CONSOLE_SCREENSHOTS=docs/console
const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS ? resolve(process.env.CONSOLE_SCREENSHOTS) : join(tmpdir(), `pasar-console-screenshots-${process.pid}`);
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let e2e: E2eStack | undefined;
let browser: Browser | undefined;
let testBus: TestBus | undefined;
/** A webhook receiver that is down: every request answers 500. */
let brokenReceiver: http.Server | undefined;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`no chromium at ${CHROMIUM}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
  mkdirSync(SCREENSHOTS, { recursive: true });
  console.log(`console screenshots: ${SCREENSHOTS}`);
  e2e = await startE2eStack();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await testBus?.bus.close();
  brokenReceiver?.closeAllConnections();
  await new Promise<void>((resolve) => (brokenReceiver ? brokenReceiver.close(() => resolve()) : resolve()));
  await e2e?.stop();
}, 60_000);

function env(): { e2e: E2eStack; browser: Browser } {
  if (!e2e || !browser) throw new Error('the stack or the browser did not start');
  return { e2e, browser };
}

/** A signed-up customer applies to sell; the application's store name and the vendor e-mail. */
async function pendingApplication(): Promise<{ storeName: string; email: string }> {
  const applicant = env().e2e.client();
  expect((await applicant.post(`${API}/auth/sign-up`, newCustomer('applicant'))).status).toBe(201);
  const email = `vendor-${randomUUID().slice(0, 8)}@e2e.pasar.test`;
  const storeName = `Kraf Console ${randomUUID().slice(0, 6)}`;
  const res = await applicant.post(`${API}/vendor-applications`, {
    email,
    full_name: 'Nurul Huda',
    phone: '+60198765432',
    store_name: storeName,
    description: 'Songket and handwoven bags',
    bank_name: 'CIMB',
    bank_account_number: '8000123456',
    bank_account_name: 'Kraf Tangan Enterprise',
    tin: 'IG12345678901',
    msic_code: '47711',
    intermediary_consent_accepted: true,
    intermediary_consent_tos_version: '2026-01',
  });
  if (res.status !== 201) throw new Error(`apply: ${show(res)}`);
  return { storeName, email };
}

async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto(`${env().e2e.stack.gatewayUrl}/console/`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

const shot = (page: Page, name: string) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });

describe('the operator console in chromium', () => {
  it(
    'admin: sign in, approve a vendor application (credentials e-mail caught), upload a settlement CSV and see flagged lines; a customer gets 403',
    withLogs(
      () => e2e,
      async () => {
        const { e2e, browser } = env();
        const application = await pendingApplication();
        const context = await browser.newContext({ viewport: { width: 1360, height: 900 } });
        const page = await context.newPage();
        // a loaded machine (several stacks at once) renders slowly
        page.setDefaultTimeout(60_000);
        try {
          await page.goto(`${e2e.stack.gatewayUrl}/console/`);
          await page.getByRole('button', { name: 'Sign in' }).waitFor();
          await shot(page, 'sign-in');

          await signIn(page, e2e.stack.admin.email, e2e.stack.admin.password);
          await page.getByRole('heading', { name: 'Review queues' }).waitFor();
          const row = page.getByTestId('application-row').filter({ hasText: application.storeName });
          await row.waitFor();
          await shot(page, 'queues');
          // no token in browser storage: the session is the HttpOnly cookie
          expect(await page.evaluate('[localStorage.length, sessionStorage.length, document.cookie]')).toEqual([0, 0, '']);

          await row.getByRole('button', { name: `Approve ${application.storeName}` }).click();
          // the approval saga (account, store, credentials e-mail) may take a while on a busy machine; an error it answers shows in the row
          await row.waitFor({ state: 'detached', timeout: 120_000 }).catch(async (err: unknown) => {
            throw new Error(`the application row stayed: ${await row.textContent().catch(() => '(gone)')}`, { cause: err });
          });
          await waitFor(() => e2e.smtp.messages.some((m) => m.to.includes(application.email) && /Temporary password/.test(m.raw.replace(/=\r?\n/g, ''))), 60_000);

          await page.getByRole('link', { name: 'Failed work' }).click();
          await page.getByRole('heading', { name: 'Failed work' }).waitFor();
          await page.getByRole('heading', { name: 'Carrier bookings: failed' }).waitFor();
          await shot(page, 'failed-work');

          await page.getByRole('link', { name: 'Settlements' }).click();
          await page.getByRole('heading', { name: 'Upload a settlement file' }).waitFor();
          const stranger = `ZZ${randomUUID().slice(0, 8).toUpperCase()}`;
          const csv = ['Waybill No,Billing Date,Weight (kg),Amount (MYR)', `${stranger},2026-11-02,0.80,7.25`, `${stranger},2026-11-09,0.80,7.25`, 'BAD,2026-02-30,1,1'].join('\n');
          await page.getByLabel('CSV file').setInputFiles({ name: 'carrier_a-november.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
          await page.getByRole('button', { name: 'Import' }).click();
          const result = page.getByRole('status', { name: 'Import result' });
          await result.getByText('2 inserted').waitFor();
          await result.getByText(stranger).waitFor();
          expect(await result.textContent()).toContain('line 4: Billing Date "2026-02-30" is not a date');
          const line = page.getByTestId('reconciliation-row').filter({ hasText: stranger });
          await line.waitFor();
          expect(await line.textContent()).toMatch(/duplicate_bill.*unknown_parcel/);
          await page.getByLabel('Flag').selectOption('unknown_parcel');
          await page.getByTestId('reconciliation-row').filter({ hasText: stranger }).waitFor();
          await shot(page, 'settlements');

          await page.getByRole('button', { name: 'Sign out' }).click();
          await page.getByRole('button', { name: 'Sign in' }).waitFor();
        } finally {
          await context.close();
        }

        const customer = newCustomer('console-customer');
        expect((await e2e.client().post(`${API}/auth/sign-up`, customer)).status).toBe(201);
        const other = await browser.newContext({ viewport: { width: 1360, height: 700 } });
        try {
          const page = await other.newPage();
          await signIn(page, customer.email, customer.password);
          await page.getByRole('heading', { name: /403/ }).waitFor();
          await shot(page, 'forbidden');
          // the API behind it refuses too
          const status = await page.evaluate(async () => (await fetch('/api/v1/admin/shipping/reconciliation', { credentials: 'same-origin' })).status);
          expect(status).toBe(403);
        } finally {
          await other.close();
        }
      },
    ),
    300_000,
  );

  it(
    'admin: find an order by e-mail and short id and open it, see a failing webhook delivery, replay a parked message (it stays parked) and discard it',
    withLogs(
      () => e2e,
      async () => {
        const { e2e, browser } = env();
        testBus = await connectStackBus(e2e);
        const store = await openStore(e2e, testBus, { basePrice: '25.00', stock: 50 }, 5);
        const admin = e2e.client();
        expect((await admin.post(`${API}/auth/sign-in`, e2e.stack.admin)).status).toBe(200);

        // an order of a customer whose e-mail the search is given
        const shopper = newCustomer('console-shopper');
        const customer = e2e.client();
        expect((await customer.post(`${API}/auth/sign-up`, shopper)).status).toBe(201);
        const addressId = await addAddress(asSession(customer), addressBody('Home') as Parameters<typeof addAddress>[1]);
        const placed = await submit(customer, { addressId, items: [{ productId: store.productId, quantity: 2 }] }, randomUUID());
        if (placed.status !== 201) throw new Error(`submit: ${show(placed)}`);
        const { orderId, shortId } = placed.body;
        // the customer's e-mail reaches checkout's replica, and the order vendor, by event
        await pollUntil<{ orders: { id: string }[] }>(admin, `/admin/orders?q=${encodeURIComponent(shopper.email)}`, (b) => b.orders.some((o) => o.id === orderId), 60_000);
        await pollUntil<unknown[]>(admin, `/admin/vendor/orders/${orderId}/shipments`, (b) => b.length === 1, 60_000);

        // the store's webhook endpoint is down: its ping fails and is retried
        brokenReceiver = http.createServer((_req, res) => res.writeHead(500).end('down'));
        await new Promise<void>((resolve) => brokenReceiver?.listen(0, '127.0.0.1', resolve));
        const receiverUrl = `http://127.0.0.1:${(brokenReceiver.address() as AddressInfo).port}/hooks?token=do-not-show`;
        const endpoint = await store.vendor.post<{ id: string }>(`${API}/vendor/webhooks`, { url: receiverUrl, events: ['sub_order.created'] });
        if (endpoint.status !== 201) throw new Error(`webhook endpoint: ${show(endpoint)}`);
        expect((await store.vendor.post(`${API}/vendor/webhooks/${endpoint.body.id}/test`, {})).status).toBe(201);
        type Deliveries = { deliveries: { endpointId: string; storeName: string }[] };
        const failing = await pollUntil<Deliveries>(admin, '/admin/vendor/webhook-deliveries?status=failing', (b) => b.deliveries.some((d) => d.endpointId === endpoint.body.id), 60_000);
        const storeName = failing.deliveries.find((d) => d.endpointId === endpoint.body.id)?.storeName ?? '';

        // a malformed event on a subject checkout consumes: its consumer parks it
        const malformed = envelope('vendor.store.upserted', { storeId: 'not-a-store' });
        await publish(testBus, malformed);
        type Parked = { id: string; eventId: string; consumer: string | null; deliveries: number | null }[];
        const parkedOf = async (client: ApiClient) =>
          ((await client.get<Parked>(`${API}/admin/dead-letters/checkout/messages?kind=consumer&type=vendor.store.upserted`)).body ?? []).filter((m) => m.eventId === malformed.id);
        let lastList = '';
        const firstParking = await waitFor(async () => {
          const res = await admin.get(`${API}/admin/dead-letters/checkout/messages?kind=consumer`);
          lastList = show(res);
          return (await parkedOf(admin))[0];
        }, 60_000).catch((err: unknown) => {
          throw new Error(`checkout did not list the parked message ${malformed.id}; last list: ${lastList.slice(0, 1500)}`, { cause: err });
        });

        const context = await browser.newContext({ viewport: { width: 1360, height: 900 } });
        const page = await context.newPage();
        page.setDefaultTimeout(60_000);
        try {
          await signIn(page, e2e.stack.admin.email, e2e.stack.admin.password);
          await page.getByRole('heading', { name: 'Review queues' }).waitFor();

          // orders: by e-mail, then by short id, then the detail
          await page.getByRole('link', { name: 'Orders' }).click();
          const search = page.getByLabel('Short id, order id or customer e-mail');
          await search.fill(shopper.email.toUpperCase());
          await page.getByRole('button', { name: 'Search' }).click();
          await page.getByTestId('order-row').filter({ hasText: shortId }).waitFor();
          await search.fill(shortId.toLowerCase());
          await page.getByRole('button', { name: 'Search' }).click();
          const row = page.getByTestId('order-row').filter({ hasText: shortId });
          await row.waitFor();
          expect(await row.textContent()).toContain(shopper.email);
          await shot(page, 'orders');
          await row.getByRole('button', { name: `Open order ${shortId}` }).click();
          await page.getByRole('heading', { name: `Order ${shortId}` }).waitFor();
          await page.getByRole('table', { name: 'Sub-orders' }).getByText('2 × Kopi Tenom', { exact: false }).waitFor();
          await page.getByRole('table', { name: 'Shipments' }).getByText('pending_payment').waitFor();
          await page.getByTestId('timeline-row').filter({ hasText: 'order placed' }).waitFor();
          await shot(page, 'order-detail');

          // failed work: the failing delivery (host only), then the parked message
          await page.getByRole('link', { name: 'Failed work' }).click();
          const delivery = page.getByTestId('webhook-row').filter({ hasText: storeName });
          await delivery.waitFor();
          const deliveryText = (await delivery.textContent()) ?? '';
          expect(deliveryText).toContain('HTTP 500');
          expect(deliveryText).toContain(new URL(receiverUrl).host);
          expect(deliveryText).not.toContain('do-not-show');

          const parkedRow = page.getByTestId('dead-letter-row').filter({ hasText: 'vendor.store.upserted' });
          await parkedRow.first().waitFor();
          await shot(page, 'failed-work');
          expect(await parkedRow.count()).toBe(1);
          await parkedRow.getByRole('button', { name: 'Replay' }).click();
          // replayed through checkout's consumer, the message fails its contract again: it stays parked, one delivery more
          const replayed = await waitFor(async () => (await parkedOf(admin)).find((m) => m.id === firstParking.id && (m.deliveries ?? 0) > (firstParking.deliveries ?? 0)), 60_000);
          await page.getByRole('button', { name: 'Refresh parked messages' }).click();
          await parkedRow.filter({ hasText: String(replayed.deliveries) }).waitFor();
          expect(await parkedRow.count()).toBe(1);

          await page.getByLabel('Reason to discard').fill('malformed test event from e2e');
          await parkedRow.getByRole('button', { name: 'Discard' }).click();
          await parkedRow.first().waitFor({ state: 'detached' });
          expect(await parkedOf(admin)).toEqual([]);
          const discards = await admin.get<{ eventId: string; reason: string }[]>(`${API}/admin/dead-letters/checkout/discards`);
          expect(discards.body.filter((d) => d.eventId === malformed.id).map((d) => d.reason)).toEqual(['malformed test event from e2e']);
        } finally {
          await context.close();
        }
      },
    ),
    300_000,
  );
});
