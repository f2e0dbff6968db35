import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  headers: http.IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

/** What the receiver answers one request with; `hold` never answers (the request stays open). */
export type Answer = { status: number; headers?: Record<string, string>; body?: string } | 'hold';

export interface Receiver {
  url: string;
  received: ReceivedWebhook[];
  /** The answers of the next requests, in order; then `fallback`. */
  answers: Answer[];
  fallback: Answer;
  close(): Promise<void>;
}

/** A real HTTP receiver on loopback (webhook tests): records every request and answers as told (200 by default). */
export async function startReceiver(path = '/hooks'): Promise<Receiver> {
  const held: http.ServerResponse[] = [];
  const receiver: Receiver = {
    url: '',
    received: [],
    answers: [],
    fallback: { status: 200 },
    async close() {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      receiver.received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), receivedAt: Date.now() });
      const answer = receiver.answers.shift() ?? receiver.fallback;
      if (answer === 'hold') {
        held.push(res);
        return;
      }
      res.writeHead(answer.status, answer.headers).end(answer.body ?? 'ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  return receiver;
}
