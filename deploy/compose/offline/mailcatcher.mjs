#!/usr/bin/env node
// pasar-local/mailcatcher — a stand-in for Mailpit where no container registry answers: SMTP on
// 1025 (any sender, any recipient, no auth, no TLS) and, on 8025, the part of Mailpit's HTTP API
// the compose smoke reads: GET /api/v1/messages (newest first), GET /api/v1/message/<ID>,
// DELETE /api/v1/messages, GET /readyz. Messages are kept in memory (the newest 1000).
// `mailpit readyz` is the healthcheck, as with Mailpit.
/* global fetch, Buffer, URL */
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { SMTPServer } from 'smtp-server';
import { simpleParser } from 'mailparser';

const SMTP_PORT = Number(process.env.MP_SMTP_PORT ?? 1025);
const HTTP_PORT = Number(process.env.MP_UI_PORT ?? 8025);

if (process.argv[2] === 'readyz') {
  fetch(`http://127.0.0.1:${HTTP_PORT}/readyz`)
    .then((res) => process.exit(res.ok ? 0 : 1))
    .catch(() => process.exit(1));
} else {
  const messages = [];
  const address = (list) => (list?.value ?? []).map((a) => ({ Name: a.name ?? '', Address: a.address ?? '' }));
  const summary = (m) => ({ ID: m.ID, From: m.From, To: m.To, Subject: m.Subject, Created: m.Created, Size: m.Size });

  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      const chunks = [];
      stream.on('data', (c) => chunks.push(c));
      stream.on('end', async () => {
        try {
          const raw = Buffer.concat(chunks);
          const mail = await simpleParser(raw);
          const from = address(mail.from)[0] ?? { Name: '', Address: '' };
          messages.unshift({
            ID: randomUUID(), From: from, To: address(mail.to), Subject: mail.subject ?? '',
            Created: new Date().toISOString(), Size: raw.length, Text: mail.text ?? '', HTML: mail.html || '',
          });
          messages.length = Math.min(messages.length, 1000);
          console.log(`mail to ${messages[0].To.map((t) => t.Address).join(', ')}: ${messages[0].Subject}`);
          callback();
        } catch (err) {
          callback(err);
        }
      });
    },
  });
  smtp.listen(SMTP_PORT, '0.0.0.0');

  const send = (res, status, body) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/readyz' || url.pathname === '/livez') return send(res, 200, { ok: true });
    if (url.pathname === '/api/v1/messages' && req.method === 'GET') {
      return send(res, 200, { total: messages.length, count: messages.length, messages: messages.map(summary) });
    }
    if (url.pathname === '/api/v1/messages' && req.method === 'DELETE') {
      messages.length = 0;
      return send(res, 200, 'ok');
    }
    const one = /^\/api\/v1\/message\/([^/]+)$/.exec(url.pathname);
    const found = one && messages.find((m) => m.ID === one[1]);
    if (found) return send(res, 200, found);
    send(res, 404, { error: 'not found' });
  }).listen(HTTP_PORT, '0.0.0.0', () => console.log(`mailcatcher: SMTP :${SMTP_PORT}, HTTP API :${HTTP_PORT}`));

  for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => process.exit(0));
}
