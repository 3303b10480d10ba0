#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// Floods from a client that never reads: pings (empty and 125-byte), commands
// a policy stubs, and commands Chrome never answers. Whatever the proxy
// queues, whoever wrote it, counts against --queue-bytes and pauses the side
// that produced it, so peak RSS stays within the README's bound; afterwards
// the proxy is alive and a real Playwright session through it works. And a
// million distinct method names: the stats stay bounded, and so does what
// /proxy/stats costs.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const h = require('./lib/harness');

const ALL = { timeout: 180000, skip: h.DIRECT && 'CDPPROXY_DIRECT=1' };
const QUEUE_MIB = 1;
// The README's bound: per connection, two queues of --queue-bytes plus a
// message being reassembled each way, over a fixed overhead (libraries,
// the message pool, write batches, the log's buffers).
const FIXED_MIB = 40;
let env;

function statusKiB(pid, field) {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m[1]);
}

// Writes chunk after chunk while the socket takes them, up to maxBytes or
// until the proxy has taken nothing for stallMs (it stopped reading).
// Returns the bytes written and whether it stalled.
async function flood(sock, chunk, maxBytes, stallMs = 1500) {
  let written = 0;
  while (written < maxBytes) {
    if (!sock.write(chunk)) {
      const drained = await Promise.race([
        new Promise((r) => sock.once('drain', () => r(true))),
        h.sleep(stallMs).then(() => false),
      ]);
      if (!drained) return { written, stalled: true };
    }
    written += chunk.length;
  }
  return { written, stalled: false };
}

async function playwrightWorks(endpoint) {
  const { chromium } = h.client('playwright-core');
  const browser = await chromium.connectOverCDP(endpoint);
  try {
    const page = await browser.contexts()[0].newPage();
    assert.equal(await page.evaluate(() => 6 * 7), 42, 'a Playwright page through the proxy evaluates');
    await page.close();
  } finally {
    await browser.close();
  }
}

function withinBound(pid, baseKiB, what) {
  const peak = statusKiB(pid, 'VmHWM');
  // Under a sanitizer freed memory is held back on purpose: no bound then.
  if (process.env.CDPPROXY_SANITIZED) return console.log(`# ${what}: peak RSS ${(peak / 1024).toFixed(1)} MiB (sanitized: not checked)`);
  const bound = baseKiB + (FIXED_MIB + 4 * QUEUE_MIB) * 1024;
  console.log(`# ${what}: peak RSS ${(peak / 1024).toFixed(1)} MiB (start ${(baseKiB / 1024).toFixed(1)} MiB, bound ${(bound / 1024).toFixed(1)} MiB)`);
  assert.ok(peak <= bound, `${what}: peak RSS ${peak} KiB within ${bound} KiB`);
}

test('start chromium and cdpproxy with --queue-bytes 1MiB', ALL, async () => {
  env = await h.setup({ server: false, proxyArgs: ['--queue-bytes', `${QUEUE_MIB}MiB`, '--policy-dir', path.join(h.ROOT, 'policies')] });
});

for (const [name, payload] of [['empty', Buffer.alloc(0)], ['125-byte', Buffer.alloc(125, 0x61)]]) {
  test(`a flood of ${name} pings from a client that never reads: the client is paused, memory bounded`, ALL, async () => {
    const base = statusKiB(env.proxy.pid, 'VmRSS');
    const version = await h.getJSON(`${env.endpoint}/json/version`);
    const sock = await h.rawUpgrade(env.port, new URL(version.webSocketDebuggerUrl).pathname, { paused: true });
    const one = h.wsClientFrame(0x9, payload);
    const chunk = Buffer.concat(Array(Math.floor(65536 / one.length)).fill(one));
    const r = await flood(sock, chunk, 512 << 20);
    console.log(`# ${name} pings: ${(r.written / 1048576).toFixed(1)} MiB written before the proxy stopped reading`);
    assert.ok(r.stalled, `the proxy stops reading a client whose pongs it cannot deliver (${r.written} bytes taken)`);
    withinBound(env.proxy.pid, base, `${name} ping flood`);
    sock.destroy();
    await playwrightWorks(env.endpoint);
  });
}

test('a flood of commands the policy stubs, from a client that never reads: paused, bounded', ALL, async () => {
  const put = await h.putPolicy(env.endpoint, { name: 'no-network' });
  assert.equal(put.status, 200, `policy switched: ${put.body}`);
  const base = statusKiB(env.proxy.pid, 'VmRSS');
  const version = await h.getJSON(`${env.endpoint}/json/version`);
  const sock = await h.rawUpgrade(env.port, new URL(version.webSocketDebuggerUrl).pathname, { paused: true });
  const cmds = [];
  for (let i = 1; i <= 1000; i++) cmds.push(h.wsClientFrame(0x1, JSON.stringify({ id: i, method: 'Network.enable', params: {} })));
  const r = await flood(sock, Buffer.concat(cmds), 512 << 20);
  console.log(`# stub flood: ${(r.written / 1048576).toFixed(1)} MiB of Network.enable written before the proxy stopped reading`);
  assert.ok(r.stalled, `the proxy stops reading a client whose stub answers it cannot deliver (${r.written} bytes taken)`);
  withinBound(env.proxy.pid, base, 'stub flood');
  sock.destroy();
  const back = await h.putPolicy(env.endpoint, { name: 'passthrough' });
  assert.equal(back.status, 200, `policy switched back: ${back.body}`);
  await playwrightWorks(env.endpoint);
});

test('64 clients that each claim a 200 MiB frame and send 10 bytes of it: no memory taken on their word', ALL, async () => {
  const base = statusKiB(env.proxy.pid, 'VmSize');
  const version = await h.getJSON(`${env.endpoint}/json/version`);
  const socks = [];
  for (let i = 0; i < 64; i++) {
    const sock = await h.rawUpgrade(env.port, new URL(version.webSocketDebuggerUrl).pathname, { paused: true });
    const len = 200 << 20;
    const head = Buffer.from([0x81, 0x80 | 127, 0, 0, 0, 0, len >>> 24, (len >> 16) & 255, (len >> 8) & 255, len & 255, 1, 2, 3, 4]);
    sock.write(Buffer.concat([head, Buffer.alloc(10, 0x20)]));
    socks.push(sock);
  }
  await h.sleep(500);
  const grew = statusKiB(env.proxy.pid, 'VmSize') - base;
  console.log(`# 64 claims of 200 MiB: the proxy's address space grew ${(grew / 1024).toFixed(1)} MiB`);
  assert.ok(grew < 256 * 1024, `address space grew ${grew} KiB, not 64 x 200 MiB`);
  for (const s of socks) s.destroy();
  await playwrightWorks(env.endpoint);
});

test('the proxy exits cleanly with a valid log', ALL, async () => {
  const result = await env.stopProxy();
  h.checkProxyExit(assert, result, env.proxy.logPath);
  await env.teardown();
});

test('30,000 commands an upstream never answers: the oldest are forgotten and counted, memory bounded', ALL, async () => {
  // A fake Chrome that upgrades and then reads and never answers: Chrome
  // itself answers everything, so it cannot be made to leave 30,000 waiting.
  const WebSocket = h.client('ws');
  const server = http.createServer();
  const wss = new WebSocket.WebSocketServer({ server, perMessageDeflate: false });
  let received = 0;
  wss.on('connection', (ws) => ws.on('message', () => { received++; }));
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const proxy = await h.startProxy({ upstreamPort: server.address().port });
  try {
    const base = statusKiB(proxy.pid, 'VmRSS');
    const ws = await h.wsConnect(`ws://127.0.0.1:${proxy.port}/devtools/browser/silent`);
    const N = 30000;
    for (let i = 1; i <= N; i++) ws.send(JSON.stringify({ id: i, method: 'Runtime.evaluate', params: { expression: `${i}` } }));
    await h.waitFor(() => received === N, { timeout: 30000, what: `all ${N} commands at the fake upstream (${received})` });
    const stats = await h.getJSON(`${proxy.httpURL}/proxy/stats`);
    console.log(`# ${N} unanswered commands: ${stats.pending_evicted} forgotten`);
    assert.ok(stats.pending_evicted >= N - 16384, `the oldest are forgotten and counted: ${stats.pending_evicted}`);
    withinBound(proxy.pid, base, `${N} unanswered commands`);
    ws.close();
  } finally {
    const result = await proxy.stop();
    proxy.removeDir();
    wss.close();
    server.close();
    assert.equal(result.code, 0, `proxy exits 0: ${result.stderr.slice(-300)}`);
  }
});

test('a million distinct method names: /proxy/stats answers within 100 ms, peak RSS within the bound', ALL, async () => {
  // The issue's reproducer: batches of 500 commands {"id":N,"method":"D<N%97>.m<32 hex>"}
  // over one WebSocket to a proxy in front of cdp-echo (which answers each).
  const N = Number(process.env.CDPPROXY_FLOOD_NAMES || 1000000);
  const { echo, port } = await h.startEcho();
  const proxy = await h.startProxy({ upstreamPort: port, args: ['--queue-bytes', `${QUEUE_MIB}MiB`, '--log', '/dev/null'] });
  try {
    const base = statusKiB(proxy.pid, 'VmRSS');
    const sock = await h.rawUpgrade(proxy.port, '/devtools/browser/names');
    const salt = crypto.randomBytes(8).toString('hex');
    const t0 = Date.now();
    await h.floodCommands(sock, N, (i) => `D${i % 97}.m${crypto.createHash('md5').update(`${salt}${i}`).digest('hex')}`);
    console.log(`# ${N} distinct names answered through the proxy in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const times = [];
    let stats;
    for (let i = 0; i < 5; i++) {
      const t = process.hrtime.bigint();
      const r = await h.httpRequest(`${proxy.httpURL}/proxy/stats`, { timeout: 30000 });
      times.push(Number(process.hrtime.bigint() - t) / 1e6);
      assert.equal(r.status, 200, `GET /proxy/stats: ${r.status}`);
      stats = JSON.parse(r.body);
    }
    times.sort((a, b) => a - b);
    const median = times[2];
    const methods = Object.keys(stats.methods).length;
    console.log(`# GET /proxy/stats: median ${median.toFixed(1)} ms of 5 (${times.map((t) => t.toFixed(1)).join(', ')}), ` +
      `${methods} methods, pooled_names ${stats.other_methods.pooled_names}`);
    assert.ok(methods <= 256 + 10, `the stats keep 256 names outside the protocol, then pool: ${methods} methods`);
    const pooled = stats.methods['(other methods)'];
    assert.equal(pooled.messages[0], N - 256, 'the pool counts every other name\'s command');
    const est = stats.other_methods.pooled_names;
    assert.ok(Math.abs(est - (N - 256)) < 0.1 * N, `pooled_names estimates the ${N - 256} distinct names: ${est}`);
    if (!process.env.CDPPROXY_SANITIZED) assert.ok(median < 100, `GET /proxy/stats median ${median.toFixed(1)} ms < 100 ms`);
    withinBound(proxy.pid, base, `${N} distinct method names`);
    sock.destroy();
  } finally {
    const result = await proxy.stop();
    proxy.removeDir();
    echo.kill('SIGKILL');
    assert.equal(result.code, 0, `proxy exits 0: ${result.stderr.slice(-300)}`);
  }
});
