import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A real local HTTP server speaking both carriers' APIs (admin's carrier adapters, DESIGN §7):
 *   carrier_a  POST /v1/shipments          → 201 {waybillNo, labelPdf (base64)}
 *              GET  /v1/shipments/{n}/label → the PDF
 *   carrier_b  POST /api/bookings          → 201 {trackingNumber}
 *              GET  /api/bookings/{n}/label → the PDF (served on demand)
 * Like a real carrier it honours `Idempotency-Key`: a repeated booking answers the first one's
 * number. It can be told to fail the next bookings with a 5xx, refuse them with a 4xx, or hang.
 */
export interface FakeCarrier {
  url: string;
  /** Every booking request received, in order (failed ones too). */
  requests: { carrier: 'carrier_a' | 'carrier_b'; idempotencyKey: string | undefined; body: unknown; answered: number | 'hung' }[];
  /** Bookings made (idempotency key → tracking number). */
  booked: Map<string, string>;
  /** The next `count` booking requests answer `status` (default 503). */
  failNext(count: number, status?: number): void;
  /** The next `count` booking requests answer a 4xx (default 422) with a reason. */
  rejectNext(count: number, status?: number): void;
  /** The next `count` booking requests never answer (the caller's timeout decides). */
  hangNext(count: number): void;
  /** Label GETs answer 503 while set. */
  labelsDown: boolean;
  /** How many label GETs were received. */
  labelRequests: number;
  close(): Promise<void>;
}

/** The PDF every fake label is: a minimal valid document naming the tracking number. */
export function fakeLabelPdf(trackingNumber: string): Buffer {
  const text = `BT /F1 12 Tf 20 100 Td (Fake carrier label ${trackingNumber.replace(/[^A-Za-z0-9-]/g, '')}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 297 200] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${text.length} >>\nstream\n${text}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let pdf = '%PDF-1.4\n';
  const offsets = objects.map((object, i) => {
    const at = pdf.length;
    pdf += `${i + 1} 0 obj\n${object}\nendobj\n`;
    return at;
  });
  const xref = pdf.length;
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(pdf, 'latin1');
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

export async function startFakeCarrier(): Promise<FakeCarrier> {
  let failures: { count: number; status: number } = { count: 0, status: 503 };
  let rejections: { count: number; status: number } = { count: 0, status: 422 };
  let hangs = 0;
  const sockets = new Set<Socket>();
  const labels = new Map<string, Buffer>();

  const fake: FakeCarrier = {
    url: '',
    requests: [],
    booked: new Map(),
    failNext(count, status = 503) {
      failures = { count, status };
    },
    rejectNext(count, status = 422) {
      rejections = { count, status };
    },
    hangNext(count) {
      hangs = count;
    },
    labelsDown: false,
    labelRequests: 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };

  async function book(carrier: 'carrier_a' | 'carrier_b', req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    let body: unknown = null;
    try {
      body = JSON.parse(raw);
    } catch {
      body = raw;
    }
    const key = req.headers['idempotency-key'] as string | undefined;
    const entry: FakeCarrier['requests'][number] = { carrier, idempotencyKey: key, body, answered: 0 };
    fake.requests.push(entry);
    if (hangs > 0) {
      hangs -= 1;
      entry.answered = 'hung';
      return; // never answers; the socket is destroyed on close
    }
    if (failures.count > 0) {
      failures.count -= 1;
      entry.answered = failures.status;
      return json(res, failures.status, { error: 'carrier temporarily unavailable' });
    }
    if (rejections.count > 0) {
      rejections.count -= 1;
      entry.answered = rejections.status;
      return json(res, rejections.status, { error: 'postcode not served' });
    }
    const dedupeKey = `${carrier}:${key ?? randomBytes(8).toString('hex')}`;
    let number = fake.booked.get(dedupeKey);
    if (!number) {
      number = `${carrier === 'carrier_a' ? 'CA' : 'CB'}${randomBytes(5).toString('hex').toUpperCase()}`;
      fake.booked.set(dedupeKey, number);
      labels.set(number, fakeLabelPdf(number));
    }
    entry.answered = 201;
    if (carrier === 'carrier_a') return json(res, 201, { waybillNo: number, labelPdf: (labels.get(number) as Buffer).toString('base64') });
    return json(res, 201, { trackingNumber: number });
  }

  function label(number: string, res: ServerResponse): void {
    fake.labelRequests += 1;
    if (fake.labelsDown) return json(res, 503, { error: 'labels unavailable' });
    const pdf = labels.get(decodeURIComponent(number));
    if (!pdf) return json(res, 404, { error: 'unknown tracking number' });
    res.writeHead(200, { 'content-type': 'application/pdf' }).end(pdf);
  }

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'POST' && path === '/v1/shipments') return void book('carrier_a', req, res);
    if (req.method === 'POST' && path === '/api/bookings') return void book('carrier_b', req, res);
    const labelPath = /^\/(?:v1\/shipments|api\/bookings)\/([^/]+)\/label$/.exec(path);
    if (req.method === 'GET' && labelPath) return label(labelPath[1], res);
    json(res, 404, { error: 'no such endpoint' });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
