#!/usr/bin/env node
// bench-http-proxy: Node's http-proxy in front of a CDP endpoint, set up as
// browser-farm front ends do (HTTP and WebSocket upgrades passed through), for
// tools/bench-proxy.sh. Usage: bench-http-proxy.js UPSTREAM_PORT
// Listens on a free loopback port and prints
// "http-proxy: listening on http://127.0.0.1:PORT" on stderr; exits on SIGTERM.
'use strict';
const http = require('node:http');
const path = require('node:path');
const { createRequire } = require('node:module');

const clients = createRequire(path.join(__dirname, '../tests/clients/package.json'));
const httpProxy = clients('http-proxy');

const upstream = Number(process.argv[2]);
if (!upstream) {
  process.stderr.write('usage: bench-http-proxy.js UPSTREAM_PORT\n');
  process.exit(2);
}
const proxy = httpProxy.createProxyServer({ target: `http://127.0.0.1:${upstream}`, ws: true });
proxy.on('error', (err, req, res) => {
  // A failed upstream closes that client only, as a front end would.
  if (res && typeof res.writeHead === 'function' && !res.headersSent) {
    res.writeHead(502);
    res.end(String(err.message));
  } else if (res && typeof res.destroy === 'function') {
    res.destroy();
  }
});
const server = http.createServer((req, res) => proxy.web(req, res));
server.on('upgrade', (req, socket, head) => {
  socket.setNoDelay(true);
  proxy.ws(req, socket, head);
});
proxy.on('open', (sock) => sock.setNoDelay(true));
server.listen(0, '127.0.0.1', () => {
  process.stderr.write(`http-proxy: listening on http://127.0.0.1:${server.address().port}\n`);
});
for (const sig of ['SIGTERM', 'SIGINT']) {
  process.on(sig, () => { server.close(); proxy.close(); process.exit(0); });
}
