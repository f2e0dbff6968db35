/**
 * The bare proxy of gateway-overhead.ts (a child process): http-proxy-middleware alone on a
 * node:http server, with a keep-alive agent as the gateway's, in front of the upstream given as
 * argv[2]: the floor of what any proxy built on it costs. Sends its port over IPC once listening.
 */
const http = require('node:http');
const { createProxyMiddleware } = require('http-proxy-middleware');

const agent = new http.Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 256 });
const proxy = createProxyMiddleware({ target: process.argv[2], agent, changeOrigin: true, ejectPlugins: true });
const server = http.createServer((req, res) =>
  proxy(req, res, () => {
    res.statusCode = 502;
    res.end();
  }),
);
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('disconnect', () => process.exit(0));
