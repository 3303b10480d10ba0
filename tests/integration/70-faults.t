#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Faults: an upstream that never answers, bad frames (binary ones also
// through a fake upstream, as Chrome refuses them; fragments, pings and
// frames a client must not send), and a client that
// vanishes mid-message, 1,000 connect/disconnect cycles (RSS back to its
// start), 16 concurrent clients each driving its own page, SIGTERM with open
// connections. SOAK=1 makes the cycle count 20,000 (`make soak`).
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const net = require('node:net');
const { spawnSync } = require('node:child_process');
const h = require('./lib/harness');

const ALL = { timeout: 120000, skip: h.DIRECT && 'CDPPROXY_DIRECT=1' };
const CYCLES = process.env.SOAK ? 20000 : 1000;
let env;

test('start chromium and cdpproxy', ALL, async () => {
  env = await h.setup({ server: false });
});

test('an upstream that accepts but never answers: 1011 on the upgrade, 502 on HTTP, within --upstream-timeout', ALL, async () => {
  const sockets = new Set();
  const silent = net.createServer((s) => { sockets.add(s); s.on('data', () => {}); s.on('error', () => {}); });
  await new Promise((r) => silent.listen(0, '127.0.0.1', r));
  const proxy = await h.startProxy({ upstreamPort: silent.address().port, args: ['--upstream-timeout', '2'] });
  try {
    const t0 = Date.now();
    const res = await h.httpRequest(`${proxy.httpURL}/json/version`);
    assert.equal(res.status, 502, `HTTP gets 502: ${res.status} ${res.body}`);
    assert.match(res.body, /no answer in time/);
    assert.ok(Date.now() - t0 < 4000, `502 within the timeout (${Date.now() - t0} ms)`);

    const cdp = await h.RawCDP.connect(`ws://127.0.0.1:${proxy.port}/devtools/browser/x`);
    const t1 = Date.now();
    const closed = await cdp.closed;
    assert.equal(closed.code, 1011, `the client gets 1011: ${closed.code} ${closed.reason}`);
    assert.match(closed.reason, /did not answer the upgrade within 2 s/);
    assert.ok(closed.at - t1 < 4000, `closed within the timeout (${closed.at - t1} ms)`);
  } finally {
    const result = await proxy.stop();
    proxy.removeDir();
    for (const s of sockets) s.destroy();
    silent.close();
    assert.equal(result.code, 0, `proxy exits 0: ${result.stderr.slice(-300)}`);
  }
});

test('invalid JSON and binary frames are forwarded untouched, logged, and the proxy keeps serving', ALL, async () => {
  const version = await h.getJSON(`${env.endpoint}/json/version`);
  const seen = h.readLog(env.proxy.logPath).length;
  const cdp = await h.RawCDP.connect(version.webSocketDebuggerUrl);
  const answers = [];
  cdp.ws.removeAllListeners('message');
  cdp.ws.on('message', (data) => answers.push(data.toString()));
  cdp.ws.send('this is not json');
  await h.waitFor(() => answers.length >= 1, { what: "Chrome's answer to invalid JSON" });
  assert.match(answers[0], /"code":-32700/, `Chrome's parse error reaches the client: ${answers[0]}`);
  cdp.ws.send(Buffer.from([1, 2, 3]), { binary: true });
  const closed = await h.within(cdp.closed, 3000);
  // Chrome does not accept binary frames; whatever it does, the proxy passes on.
  if (closed) assert.notEqual(closed.code, 1006, `a close from Chrome is passed on: ${closed.code}`);
  else cdp.ws.terminate();
  const again = await h.RawCDP.connect(version.webSocketDebuggerUrl);
  assert.equal((await again.call('Browser.getVersion')).product.startsWith('Chrome/'), true, 'a new client is served');
  await again.close();
  // Wait for all of it in the log: both connections' client-side closes.
  const log = await h.waitForLog(env.proxy.logPath, (l) => {
    const opens = l.slice(seen).filter((r) => r.kind === 'open');
    return opens.length === 2 && opens.every((o) => l.some((r) => r.kind === 'close' && r.conn === o.conn && r.side === 'client'));
  }, "both clients' closes in the log");
  assert.ok(log.some((r) => r.kind === 'invalid' && r.dir === 'up' && r.bytes === 16), 'the invalid message is logged as invalid');
  assert.ok(log.some((r) => r.kind === 'binary' && r.dir === 'up' && r.bytes === 3), 'the binary frame is logged as binary');
});

test('binary frames pass both ways as binary, byte for byte (a fake upstream: Chrome refuses them)', ALL, async () => {
  const { WebSocketServer } = h.client('ws');
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  await new Promise((r) => wss.once('listening', r));
  const got = [];
  const up = Buffer.from([1, 2, 3, 0, 200]), down = Buffer.from([9, 8, 7, 0, 255, 10]);
  wss.on('connection', (s) => s.on('message', (data, isBinary) => {
    got.push({ data: Buffer.from(data), isBinary });
    s.send(down, { binary: true });
  }));
  let proxy, log, result;
  try {
    proxy = await h.startProxy({ upstreamPort: wss.address().port });
    const ws = await h.wsConnect(`ws://127.0.0.1:${proxy.port}/devtools/page/fake`);
    const back = new Promise((resolve) => ws.once('message', (data, isBinary) => resolve({ data: Buffer.from(data), isBinary })));
    ws.send(up, { binary: true });
    const reply = await h.within(back, 5000);
    assert.equal(got.length, 1, 'the peer gets one message');
    assert.ok(got[0].isBinary && got[0].data.equals(up), `the peer gets it as binary, byte for byte: ${JSON.stringify(got[0])}`);
    assert.ok(reply && reply.isBinary && reply.data.equals(down), `the client gets the answer as binary, byte for byte: ${JSON.stringify(reply)}`);
    ws.close();
  } finally {
    if (proxy) {
      result = await proxy.stop();   // the whole log is in the file once it has exited
      log = h.readLog(proxy.logPath);
      proxy.removeDir();
    }
    wss.close();
  }
  assert.equal(result.code, 0, `proxy exits 0: ${result.stderr.slice(-300)}`);
  assert.ok(log.some((r) => r.kind === 'binary' && r.dir === 'up' && r.bytes === up.length), 'logged up as binary');
  assert.ok(log.some((r) => r.kind === 'binary' && r.dir === 'down' && r.bytes === down.length), 'logged down as binary');
});

test("the client's frames: a fragmented message with a ping between its fragments; bad frames get 1002", ALL, async () => {
  const version = await h.getJSON(`${env.endpoint}/json/version`);
  const seen = h.readLog(env.proxy.logPath).length;
  const ws = await h.wsConnect(version.webSocketDebuggerUrl);
  const answers = [];
  ws.on('message', (data) => answers.push(JSON.parse(data.toString())));
  const pong = new Promise((resolve) => ws.once('pong', (data) => resolve(data.toString())));
  ws.send('{"id":1,"method":"Brow', { fin: false });
  ws.ping('between');
  ws.send('ser.get', { fin: false });
  ws.send('Version"}', { fin: true });
  assert.equal(await pong, 'between', 'the ping between fragments is answered with its payload');
  await h.waitFor(() => answers.length >= 1, { what: 'the answer to the fragmented command' });
  assert.equal(answers[0].id, 1);
  assert.match(answers[0].result.product, /Chrome\//, 'the three fragments reached Chrome as one command');
  // A frame without the mask a client must use.
  const closed = (sock) => h.within(
    new Promise((resolve) => sock.once('close', (code, reason) => resolve({ code, reason: reason.toString() }))),
    5000).then((c) => c || { code: 'none within 5 s', reason: '' });
  const first = closed(ws);
  ws._socket.write(Buffer.from([0x81, 0x02, 0x7b, 0x7d]));
  const unmasked = await first;
  assert.equal(unmasked.code, 1002, 'an unmasked frame: 1002');
  assert.match(unmasked.reason, /unmasked/);
  // A continuation frame with no message begun (masked, mask 0).
  const ws2 = await h.wsConnect(version.webSocketDebuggerUrl);
  const second = closed(ws2);
  ws2._socket.write(Buffer.from([0x80, 0x82, 0, 0, 0, 0, 0x7b, 0x7d]));
  const stray = await second;
  assert.equal(stray.code, 1002, 'a stray continuation frame: 1002');
  assert.match(stray.reason, /continuation/);
  // A close code no endpoint may send (1005: "no status") gets 1002 too.
  const ws3 = await h.wsConnect(version.webSocketDebuggerUrl);
  const third = closed(ws3);
  ws3._socket.write(Buffer.from([0x88, 0x82, 0, 0, 0, 0, 0x03, 0xed]));
  const reserved = await third;
  assert.equal(reserved.code, 1002, 'close code 1005 from a client: 1002');
  assert.match(reserved.reason, /close code 1005/);
  // Upgrades RFC 6455 does not allow, or that ask for a subprotocol, get 400.
  const { host, port } = new URL(version.webSocketDebuggerUrl);
  const upgrade = (headers) => new Promise((resolve) => {
    const sock = net.connect(Number(port), host.replace(/:.*/, ''));
    let got = '';
    sock.on('data', (d) => { got += d; });
    sock.on('close', () => resolve(got.split('\r\n')[0]));
    sock.on('error', () => resolve(got.split('\r\n')[0]));
    sock.write(`GET ${new URL(version.webSocketDebuggerUrl).pathname} HTTP/1.1\r\nHost: ${host}\r\n` +
      `Upgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n${headers}\r\n`);
    setTimeout(() => sock.end(), 500);
  });
  assert.match(await upgrade('Connection: keep-alive\r\n'), / 400 /, 'no Connection: Upgrade: 400');
  assert.match(await upgrade('Connection: Upgrade\r\nSec-WebSocket-Protocol: foo\r\n'), / 400 /, 'a subprotocol asked for: 400');
  assert.match(await upgrade('Connection: keep-alive, Upgrade\r\n'), / 101 /, 'Connection: keep-alive, Upgrade: 101');
  const cdp = await h.RawCDP.connect(version.webSocketDebuggerUrl);
  assert.match((await cdp.call('Browser.getVersion')).product, /Chrome\//, 'the next client is served');
  await cdp.close();
  const log = await h.waitForLog(env.proxy.logPath, (l) => l.slice(seen).filter((r) => r.kind === 'close' &&
    r.side === 'client').length >= 5, "the clients' closes").then((l) => l.slice(seen));
  const conn = log.find((r) => r.kind === 'open').conn;   // the fragmenting client's
  const ups = log.filter((r) => r.conn === conn && r.dir === 'up');
  assert.deepEqual(ups.map((r) => [r.kind, r.id, r.method, r.bytes]), [['command', 1, 'Browser.getVersion', 38]],
    'the fragmented command is logged once, whole; the refused frame not at all');
  const refused = log.filter((r) => r.kind === 'close' && r.side === 'client' && r.code === 1002);
  assert.equal(refused.length, 3, 'the three refusals are logged with 1002');
  assert.ok(refused.every((r) => r.by === 'proxy'), 'as closed by the proxy');
});

test('a client that vanishes mid-message: the proxy keeps serving', ALL, async () => {
  const version = await h.getJSON(`${env.endpoint}/json/version`);
  const seen = h.readLog(env.proxy.logPath).length;
  const ws = await h.wsConnect(version.webSocketDebuggerUrl);
  // By hand, so that it surely stops mid-message: the header of a masked
  // 20 MiB text frame and 1 MiB of its payload, then the socket is gone.
  const header = Buffer.alloc(14);
  header[0] = 0x81;
  header[1] = 0x80 | 127;
  header.writeBigUInt64BE(BigInt(20 << 20), 2);
  ws._socket.write(Buffer.concat([header, Buffer.alloc(1 << 20, 0x20)]));   // mask 0: spaces stay spaces
  await h.sleep(200);
  ws._socket.destroy();
  await h.sleep(300);
  assert.equal(env.proxy.exited(), null, 'the proxy is still running');
  const cdp = await h.RawCDP.connect(version.webSocketDebuggerUrl);
  assert.match((await cdp.call('Browser.getVersion')).product, /Chrome\//, 'the next client is served');
  await cdp.close();
  // The first client close after what was logged when the test began (the
  // test before waits for its own last record) is the vanished client's.
  const log = await h.waitForLog(env.proxy.logPath, (l) => l.slice(seen).some((r) => r.kind === 'close' &&
    r.side === 'client'), "the vanished client's close").then((l) => l.slice(seen));
  const close = log.find((r) => r.kind === 'close' && r.side === 'client');
  assert.match(close.reason, /went away without a close/, 'its close is logged as the client going away');
  assert.ok(!log.some((r) => r.conn === close.conn && r.dir === 'up'), 'no message of its is logged: the cut one was not taken as complete');
});

test(`${CYCLES} connect/disconnect cycles: RSS back to its start`, ALL, async (t) => {
  const version = await h.getJSON(`${env.endpoint}/json/version`);
  const cycle = async () => {
    const cdp = await h.RawCDP.connect(version.webSocketDebuggerUrl);
    await cdp.call('Browser.getVersion');
    await cdp.close();
  };
  for (let i = 0; i < 50; i++) await cycle();   // warm-up: lws and malloc settle
  await h.sleep(200);
  const before = h.rssKiB(env.proxy.pid);
  for (let i = 0; i < CYCLES; i++) await cycle();
  await h.sleep(500);
  const after = h.rssKiB(env.proxy.pid);
  const stats = await h.getJSON(`${env.endpoint}/proxy/stats`);
  t.diagnostic(`RSS before ${before} KiB, after ${CYCLES} cycles ${after} KiB`);
  assert.equal(stats.connections.open, 0, 'no connection left open');
  // Under a sanitizer or valgrind freed memory is held back on purpose.
  if (!process.env.CDPPROXY_SANITIZED)
    assert.ok(after - before < 2048, `RSS grew by ${after - before} KiB over ${CYCLES} cycles (allowed < 2 MiB)`);
});

// 16 pages, each a renderer of its own: the proxy interleaves 16 clients'
// answers as it would 64. With 64 (until 2026-12-05) this file took 30.2
// and 30.6 CPU-s alone, with 16 15.1 and 17.1 (interleaved, per-file cgroup).
test('16 concurrent clients, each driving its own page', ALL, async (t) => {
  const N = 16;
  const targets = [];
  for (let i = 0; i < N; i++) targets.push(await h.getJSON(`${env.endpoint}/json/new?about:blank`, { method: 'PUT' }));
  const t0 = Date.now();
  const results = await Promise.all(targets.map(async (target, i) => {
    const cdp = await h.RawCDP.connect(target.webSocketDebuggerUrl);
    let sum = 0;
    for (let k = 0; k < 20; k++) {
      const r = await cdp.call('Runtime.evaluate', { expression: `${i} * 1000 + ${k}` });
      assert.equal(r.result.value, i * 1000 + k, `client ${i} call ${k} gets its own answer`);
      sum += r.result.value;
    }
    await cdp.close();
    return sum;
  }));
  t.diagnostic(`${N} clients x 20 evaluates in ${Date.now() - t0} ms`);
  results.forEach((sum, i) => assert.equal(sum, 20 * i * 1000 + 190, `client ${i}'s answers add up`));
  for (const target of targets) await h.httpRequest(`${env.endpoint}/json/close/${target.id}`);
});

test('SIGTERM with open connections: close frames, a complete log, exit 0', ALL, async () => {
  const version = await h.getJSON(`${env.endpoint}/json/version`);
  const a = await h.RawCDP.connect(version.webSocketDebuggerUrl);
  const b = await h.RawCDP.connect(version.webSocketDebuggerUrl);
  await a.call('Browser.getVersion');
  const result = await env.stopProxy();
  const [ca, cb] = await Promise.all([a.closed, b.closed]);
  assert.equal(ca.code, 1001, `client a gets 1001: ${ca.code} ${ca.reason}`);
  assert.equal(cb.code, 1001, `client b gets 1001: ${cb.code} ${cb.reason}`);
  assert.match(ca.reason, /shutting down/);
  const log = h.checkProxyExit(assert, result, env.proxy.logPath);
  const opened = log.filter((r) => r.kind === 'open').map((r) => r.conn);
  const closedConns = new Set(log.filter((r) => r.kind === 'close' && r.side === 'client').map((r) => r.conn));
  assert.deepEqual(opened.filter((c) => !closedConns.has(c)), [], 'every connection opened has its close in the log');
});

// A second SIGTERM (or Ctrl-C) while the proxy stops once woke the loop of a
// context already destroyed: exit 139 in 32 of 40 runs before the fix.
test('SIGTERM again and again while it stops: exit 0 every time, never a crash', ALL, async (t) => {
  const { echo, port } = await h.startEcho();
  const runs = 20;
  const ends = [];
  for (let i = 0; i < runs; i++) {
    const p = await h.startProxy({ upstreamPort: port });
    const exited = new Promise((resolve) => p.child.once('exit', (code, signal) => resolve({ code, signal })));
    // A shell sends them as fast as it can until the proxy has exited (a
    // zombie: this process reaps it only after spawnSync returns).
    spawnSync('sh', ['-c', 'p=$1; kill -TERM $p; while kill -TERM $p 2>/dev/null; do ' +
      'read -r s < /proc/$p/stat || break; s=${s##*) }; [ "${s%% *}" = Z ] && break; done', '_', String(p.pid)],
      { timeout: 20000 });
    ends.push(await exited);
    p.removeDir && p.removeDir();
  }
  echo.kill('SIGTERM');
  t.diagnostic(`${runs} runs: ${JSON.stringify(ends.reduce((m, e) => ({ ...m, [`${e.code}/${e.signal}`]: (m[`${e.code}/${e.signal}`] || 0) + 1 }), {}))}`);
  assert.deepEqual(ends.filter((e) => e.code !== 0), [], 'every run exits 0');
});

test('stop everything', { timeout: 30000 }, async () => {
  if (env) await env.teardown();
});
