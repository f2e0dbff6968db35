/**
 * The echo server of the bench's `machine` scenario (a child process): echoes every TCP chunk back
 * and answers an IPC 'cpu' message with its own CPU time (µs), so the bench can tell what one
 * wake-up costs a process on this machine.
 */
const net = require('node:net');

const server = net.createServer((socket) => socket.on('data', (chunk) => socket.write(chunk)));
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', (message) => {
  if (message === 'cpu') {
    const { user, system } = process.cpuUsage();
    process.send({ cpuUs: user + system });
  } else if (message === 'stop') {
    server.close();
    process.disconnect();
  }
});
