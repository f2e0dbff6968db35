import { startFakeCarrier, type FakeCarrier } from './fake-carrier';

let carrier: FakeCarrier;
beforeAll(async () => {
  carrier = await startFakeCarrier();
});
afterAll(async () => {
  await carrier.close();
});

const post = (path: string, key: string) =>
  fetch(`${carrier.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': key }, body: JSON.stringify({ reference: key }) });

describe('fake carrier', () => {
  test('carrier_a books with the label in the answer; a repeated Idempotency-Key answers the same waybill', async () => {
    const first = (await (await post('/v1/shipments', 'k-a')).json()) as { waybillNo: string; labelPdf: string };
    expect(first.waybillNo).toMatch(/^CA[0-9A-F]{10}$/);
    expect(Buffer.from(first.labelPdf, 'base64').subarray(0, 5).toString()).toBe('%PDF-');
    const again = (await (await post('/v1/shipments', 'k-a')).json()) as { waybillNo: string };
    expect(again.waybillNo).toBe(first.waybillNo);
    expect(carrier.requests.filter((r) => r.idempotencyKey === 'k-a')).toHaveLength(2);
  });

  test('carrier_b books a tracking number and serves its label on GET', async () => {
    const res = await post('/api/bookings', 'k-b');
    expect(res.status).toBe(201);
    const { trackingNumber } = (await res.json()) as { trackingNumber: string };
    const label = await fetch(`${carrier.url}/api/bookings/${trackingNumber}/label`);
    expect(label.headers.get('content-type')).toBe('application/pdf');
    expect(Buffer.from(await label.arrayBuffer()).subarray(0, 5).toString()).toBe('%PDF-');
    expect((await fetch(`${carrier.url}/api/bookings/UNKNOWN/label`)).status).toBe(404);
  });

  test('fails, refuses and hangs on request, then books again', async () => {
    carrier.failNext(2, 502);
    carrier.rejectNext(1);
    expect((await post('/api/bookings', 'k-f')).status).toBe(502);
    expect((await post('/api/bookings', 'k-f')).status).toBe(502);
    expect((await post('/api/bookings', 'k-f')).status).toBe(422);
    carrier.hangNext(1);
    const hung = fetch(`${carrier.url}/api/bookings`, { method: 'POST', headers: { 'idempotency-key': 'k-h' }, body: '{}', signal: AbortSignal.timeout(300) });
    await expect(hung).rejects.toThrow();
    expect(carrier.requests.filter((r) => r.idempotencyKey === 'k-h').map((r) => r.answered)).toEqual(['hung']);
    expect((await post('/api/bookings', 'k-f')).status).toBe(201);
  });
});
