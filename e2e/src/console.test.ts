/**
 * The operator console in a real browser (issue 28): Debian's chromium (/usr/bin/chromium, no
 * download) driven headless by playwright-core against a whole stack started here. An
 * administrator signs in, approves a pending vendor application (the row leaves the queue and the
 * credentials e-mail reaches the SMTP catcher), uploads a settlement CSV and sees its flagged lines;
 * a customer's session gets the 403 page. A screenshot of each page goes to docs/console/.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '@pasar/testkit';
import { chromium, type Browser, type Page } from 'playwright-core';
import { show } from './support/http';
import { newCustomer } from './support/identity';
import { API, startE2eStack, withLogs, type E2eStack } from './support/stack';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOTS = join(__dirname, '..', '..', 'docs', 'console');
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

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`no chromium at ${CHROMIUM}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
  mkdirSync(SCREENSHOTS, { recursive: true });
  e2e = await startE2eStack();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}, 180_000);

afterAll(async () => {
  await browser?.close();
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
});
