/**
 * The upstream of gateway-overhead.ts (a child process): a bare node:http server answering every
 * request with the same small JSON (an address list's size), so what is measured in front of it is
 * the proxy alone. Sends its port over IPC once listening.
 */
const { Buffer } = require('node:buffer');
const http = require('node:http');

const body = JSON.stringify({
  addresses: [{ id: 'a0c5b3f4-2a5c-4f55-8d33-0b5a1f1d2a11', label: 'Rumah', line1: '12 Jalan Ampang', city: 'Kuala Lumpur', postcode: '50450' }],
});
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('disconnect', () => process.exit(0));
