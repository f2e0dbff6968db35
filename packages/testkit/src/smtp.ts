import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface CaughtEmail {
  from: string;
  to: string[];
  raw: string;
  subject: string;
  /** Header value lookup (case-insensitive), from the raw message. */
  header(name: string): string | undefined;
}

export interface SmtpCatcher {
  port: number;
  url: string;
  messages: CaughtEmail[];
  /** Makes the next `count` messages fail with a 451 (temporary) answer. */
  failNext(count: number): void;
  /** Refuses this recipient (550, mailbox unavailable) until `acceptRecipient`. */
  refuseRecipient(address: string): void;
  acceptRecipient(address: string): void;
  waitFor(predicate: (m: CaughtEmail) => boolean, timeoutMs?: number): Promise<CaughtEmail>;
  close(): Promise<void>;
}

function parseHeaders(raw: string): Map<string, string> {
  const head = raw.split(/\r?\n\r?\n/)[0] ?? '';
  const unfolded = head.replace(/\r?\n[ \t]+/g, ' ');
  const map = new Map<string, string>();
  for (const line of unfolded.split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0) map.set(line.slice(0, i).trim().toLowerCase(), line.slice(i + 1).trim());
  }
  return map;
}

/** A real SMTP server on a free local port that keeps what it receives. */
export async function startSmtpCatcher(options: { onMessage?: (mail: CaughtEmail) => void } = {}): Promise<SmtpCatcher> {
  const messages: CaughtEmail[] = [];
  let failures = 0;
  const refused = new Set<string>();
  const waiters: { predicate: (m: CaughtEmail) => boolean; resolve: (m: CaughtEmail) => void }[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (!refused.has(address.address.toLowerCase())) return callback();
      const err = new Error('mailbox unavailable') as Error & { responseCode: number };
      err.responseCode = 550;
      callback(err);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (failures > 0) {
          failures -= 1;
          const err = new Error('try again later') as Error & { responseCode: number };
          err.responseCode = 451;
          return callback(err);
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        const headers = parseHeaders(raw);
        const mail: CaughtEmail = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          subject: headers.get('subject') ?? '',
          header: (name) => headers.get(name.toLowerCase()),
        };
        messages.push(mail);
        options.onMessage?.(mail);
        for (const w of [...waiters]) {
          if (w.predicate(mail)) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(mail);
          }
        }
        callback();
      });
    },
  });
  // a client that goes away mid-session (a notifier restarted or killed) is the server's 'error'
  // event: unhandled, it would end the process the catcher runs in (npm start, the bench)
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    messages,
    failNext(count) {
      failures = count;
    },
    refuseRecipient(address) {
      refused.add(address.toLowerCase());
    },
    acceptRecipient(address) {
      refused.delete(address.toLowerCase());
    },
    waitFor(predicate, timeoutMs = 15000) {
      const found = messages.find(predicate);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const waiter = { predicate, resolve };
        waiters.push(waiter);
        setTimeout(() => {
          const i = waiters.indexOf(waiter);
          if (i >= 0) {
            waiters.splice(i, 1);
            reject(new Error(`no matching e-mail within ${timeoutMs} ms (got ${messages.length})`));
          }
        }, timeoutMs).unref();
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
