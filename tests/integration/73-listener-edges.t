#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// The listener as a stranger meets it: what the kernel says is bound for each
// --listen form, a port in use, raw connections that close early, dribble
// or overflow, bytes that are not UTF-8, long Host and Origin headers, the
// token in the query, the refusal page, and 500 idle connections at
// `ulimit -n 256`. After each, the proxy is alive and a CDP call through it
// works.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const dns = require('node:dns').promises;
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const h = require('./lib/harness');

const ALL = { timeout: 120000, skip: h.DIRECT && 'CDPPROXY_DIRECT=1' };
const TOKEN = 'tok-73e1';
const IDLE_SECS = 10;   /* LISTEN_IDLE_SECS in proxy/loop/listen.h */
const WRAP = (process.env.CDPPROXY_WRAP || '').split(' ').filter(Boolean);
// CPU time is asserted on the proxy itself, not under valgrind.
const CPU_CHECKED = !WRAP.length;
let chrome;

// The proxy with --listen LISTEN (under `ulimit -n` when given), its log in
// a temp dir; resolves once it prints its "listening on" line.
async function proxyOn(listen, { args = [], ulimit, env = {} } = {}) {
  const dir = h.tmpdir('cdpproxy-73-');
  const logPath = path.join(dir.dir, 'log.jsonl');
  // CDPPROXY_WRAP runs the proxy under a tool (make valgrind), as startProxy does.
  const cmd = [...WRAP, h.PROXY_BIN, '--listen', listen, '--upstream', `127.0.0.1:${chrome.port}`,
    '--log', logPath, ...args];
  const opts = { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } };
  const child = ulimit
    ? h.spawnTracked('sh', ['-c', `ulimit -n ${ulimit} && exec "$@"`, 'sh', ...cmd], opts)
    : h.spawnTracked(cmd[0], cmd.slice(1), opts);
  let stderr = '', exited = null;
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d) => { stderr += d; if (stderr.length > 8 << 20) stderr = stderr.slice(-(1 << 20)); });
  child.once('exit', (code, signal) => { exited = { code, signal }; });
  const m = await h.waitFor(() => {
    if (exited) throw new Error(`cdpproxy exited (${JSON.stringify(exited)}): ${stderr}`);
    return /listening on http:\/\/(\S+):(\d+) /.exec(stderr);
  }, { timeout: 20000, what: 'the "listening on" line' });
  const port = Number(m[2]);
  return {
    pid: child.pid, port, logPath, host: m[1], url: `http://${m[1]}:${port}`,
    stderr: () => stderr, exited: () => exited,
    async stop() {
      try { process.kill(child.pid, 'SIGTERM'); } catch { /* gone */ }
      await h.waitFor(() => exited, { timeout: 15000, what: 'the proxy to exit' });
      dir.remove();
      // 0 on SIGTERM: no crash, and under ASan no leak.
      if (exited.code !== 0) throw new Error(`cdpproxy exited ${JSON.stringify(exited)}: ${stderr.slice(-2000)}`);
      return exited;
    },
  };
}

// The LISTEN sockets process p has on its port, from the kernel: IPv4
// "a.b.c.d" and IPv6 in the 32 hex digits of /proc/net/tcp6. Only p's own
// (by inode): a parallel test's listener may have the same port number in
// the other family (make test once saw 127.0.0.1 beside [::1]'s).
function listening(p) {
  const mine = new Set();
  for (const fd of fs.readdirSync(`/proc/${p.pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${p.pid}/fd/${fd}`));
      if (m) mine.add(m[1]);
    } catch { /* closed meanwhile */ }
  }
  const out = [];
  for (const [file, v6] of [['/proc/net/tcp', false], ['/proc/net/tcp6', true]]) {
    let lines = [];
    try { lines = fs.readFileSync(file, 'utf8').split('\n').slice(1); } catch { continue; }
    for (const l of lines) {
      const f = l.trim().split(/\s+/);
      if (f.length < 10 || f[3] !== '0A' || !mine.has(f[9])) continue;
      const [addr, port] = f[1].split(':');
      if (parseInt(port, 16) !== p.port) continue;
      out.push(v6 ? `v6:${addr}` : Buffer.from(addr, 'hex').reverse().join('.'));
    }
  }
  return out.sort();
}
const V6_LOOPBACK = 'v6:00000000000000000000000001000000';

// Alive, and a CDP command through the proxy answers.
async function cdpWorks(p, what) {
  assert.equal(p.exited(), null, `${what}: the proxy is alive (stderr: ${p.stderr().slice(-500)})`);
  const v = await h.getJSON(`${p.url}/json/version`);
  const cdp = await h.RawCDP.connect(v.webSocketDebuggerUrl);
  try {
    assert.match((await cdp.call('Browser.getVersion')).product, /Chrome\//, `${what}: a CDP call works`);
  } finally {
    await cdp.close();
  }
}

// A raw connection to the proxy; resolves once connected.
function rawConnect(port, host = '127.0.0.1') {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, host, () => resolve(s));
    s.once('error', reject);
  });
}

// Resolves {data, ms} when the proxy closes s (or after ms, {timedOut}).
function untilClosed(s, ms) {
  const t0 = Date.now();
  let data = '';
  s.on('data', (d) => { data += d; });
  s.on('error', () => {});
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ timedOut: true, data }), ms);
    s.once('close', () => { clearTimeout(timer); resolve({ data, ms: Date.now() - t0 }); });
  });
}

test('start chromium', ALL, async () => {
  chrome = await h.startChrome();
});

test('--listen 127.0.0.1:PORT binds 127.0.0.1 only, says the kernel', ALL, async () => {
  const p = await proxyOn('127.0.0.1:0');
  try {
    assert.deepEqual(listening(p), ['127.0.0.1'], 'one LISTEN socket, on 127.0.0.1 (not [::] or 0.0.0.0)');
    await cdpWorks(p, '127.0.0.1');
  } finally {
    await p.stop();
  }
});

test('--listen localhost binds each address localhost resolves to; [::1] is loopback', ALL, async () => {
  const want = (await dns.lookup('localhost', { all: true }))
    .map((a) => (a.family === 6 ? (a.address === '::1' ? V6_LOOPBACK : a.address) : a.address));
  const p = await proxyOn('localhost:0');
  try {
    assert.deepEqual(listening(p), [...new Set(want)].sort(), `localhost: ${want.join(', ')}`);
    await cdpWorks(p, 'localhost');
  } finally {
    await p.stop();
  }
  const q = await proxyOn('[::1]:0');
  try {
    assert.equal(q.host, '[::1]', 'the listening line brackets the IPv6 address');
    assert.deepEqual(listening(q), [V6_LOOPBACK], '[::1]: one LISTEN socket on ::1, IPv6 only');
    await cdpWorks(q, '[::1]');
  } finally {
    await q.stop();
  }
});

test('a port in use: one line on stderr, exit 1', ALL, async () => {
  const p = await proxyOn('127.0.0.1:0');
  try {
    const r = spawnSync(h.PROXY_BIN, ['--listen', `127.0.0.1:${p.port}`, '--upstream', `127.0.0.1:${chrome.port}`],
      { encoding: 'utf8', timeout: 10000 });
    assert.equal(r.status, 1, `exit 1 (${JSON.stringify(r.stderr)})`);
    assert.equal(r.stderr.trim().split('\n').length, 1, `one line: ${JSON.stringify(r.stderr)}`);
    assert.match(r.stderr, /^cdpproxy: cannot listen on 127\.0\.0\.1:\d+: Address already in use\n$/);
    await cdpWorks(p, 'the first proxy');
  } finally {
    await p.stop();
  }
});

test('an empty token is no token: --allow-remote refuses it', ALL, () => {
  const base = ['--allow-remote', '--listen', '0.0.0.0:0', '--upstream', `127.0.0.1:${chrome.port}`];
  const a = spawnSync(h.PROXY_BIN, [...base, '--token', ''], { encoding: 'utf8', timeout: 5000 });
  assert.equal(a.status, 2, `--token "": exit 2, not listening (${JSON.stringify(a.stderr)})`);
  assert.match(a.stderr, /--token is empty/);
  const b = spawnSync(h.PROXY_BIN, base, { encoding: 'utf8', timeout: 5000,
    env: { ...process.env, CDPPROXY_TOKEN: '' } });
  assert.equal(b.status, 2, `CDPPROXY_TOKEN="": exit 2 (${JSON.stringify(b.stderr)})`);
  assert.match(b.stderr, /needs --allow-remote and a token/);
});

test('raw connections that end early, dribble or overflow do not kill it', ALL, async () => {
  const p = await proxyOn('127.0.0.1:0');
  try {
    const s1 = await rawConnect(p.port);
    s1.destroy();   /* a port scanner's connect-and-close */
    await h.sleep(300);
    await cdpWorks(p, 'connect and close');

    const s2 = await rawConnect(p.port);
    s2.end('GET /json/ver');   /* half a request line */
    await untilClosed(s2, 5000);
    await cdpWorks(p, 'half a request line');

    for (const [what, req] of [
      ['a header over the limit', `GET /json/version HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(9000)}\r\n\r\n`],
      ['a URL over the limit', `GET /json/version?${'a'.repeat(9000)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`],
    ]) {
      const s = await rawConnect(p.port);
      s.write(req);
      const r = await untilClosed(s, 5000);
      assert.ok(!r.timedOut, `${what}: the connection is closed`);
      assert.doesNotMatch(r.data, /^HTTP\/1\.1 200/, `${what}: not served`);
      await cdpWorks(p, what);
    }

    // In parallel, as they take the idle deadline each: a request one byte a
    // second, a connection that sends nothing, and one kept alive after an answer.
    const slow = await rawConnect(p.port);
    const req = 'GET /json/version HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: ' + 'a'.repeat(100);
    let i = 0;
    const drip = setInterval(() => { if (!slow.destroyed) slow.write(req[i++ % req.length]); }, 1000);
    const silent = await rawConnect(p.port);
    const kept = await rawConnect(p.port);
    kept.write('GET /json/version HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n');
    const limit = (IDLE_SECS + 4) * 1000;
    const [a, b, c] = await Promise.all([untilClosed(slow, limit), untilClosed(silent, limit), untilClosed(kept, limit)]);
    clearInterval(drip);
    assert.ok(!a.timedOut && a.ms >= (IDLE_SECS - 1) * 1000, `one byte a second: closed at the deadline (${a.ms} ms)`);
    assert.ok(!b.timedOut, `a silent connection: closed (${b.ms} ms)`);
    assert.ok(!c.timedOut, `an idle kept-alive connection: closed (${c.ms} ms)`);
    assert.match(c.data, /^HTTP\/1\.1 200/, 'the kept-alive connection had its answer first');
    await cdpWorks(p, 'after the idle deadlines');
  } finally {
    const res = await p.stop();
    assert.equal(res.code, 0, `exit 0 (${JSON.stringify(res)})`);
  }
});

test('a web page pointing <img> and <link rel=preconnect> at the proxy: the Playwright session lives on', ALL, async () => {
  const p = await proxyOn('127.0.0.1:0');
  const { chromium } = h.client('playwright-core');
  const browser = await chromium.connectOverCDP(p.url, { timeout: 15000 });
  try {
    const page = await browser.contexts()[0].newPage();
    await page.setContent(`<link rel="preconnect" href="${p.url}"><link rel="dns-prefetch" href="${p.url}">` +
      `<img src="${p.url}/x.png"><img src="${p.url}/json/version?${'a'.repeat(9000)}">`);
    await h.sleep((IDLE_SECS + 2) * 1000);   /* the preconnected socket meets the idle deadline */
    assert.equal(await page.evaluate(() => 6 * 7), 42, 'the session through the proxy still works');
    await page.close();
    await cdpWorks(p, 'after the web page');
  } finally {
    await browser.close();
    await p.stop();
  }
});

test('JSON from any bytes: a policy name of 300 é, a path that is not UTF-8', ALL, async () => {
  const p = await proxyOn('127.0.0.1:0');
  try {
    const r = await h.putPolicy(p.url, { name: 'é'.repeat(300) });
    assert.equal(r.status, 400, 'an unknown policy: 400');
    assert.match(r.json.error, /é/, `the error names it: ${r.json.error.slice(0, 80)}`);
    await cdpWorks(p, 'PUT /proxy/policy with 300 é');

    // A raw upgrade to a path with a %FF byte: the open record still has its path.
    const s = await rawConnect(p.port);
    s.write('GET /devtools/browser/%FF%C3%28x?a=%FE HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\n' +
      'Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n');
    await h.sleep(500);
    s.destroy();
    const log = await h.waitForLog(p.logPath, (l) => l.filter((x) => x.kind === 'open').length >= 2,
      'the open record');
    const open = log.filter((x) => x.kind === 'open')[1];
    assert.equal(open.path, '/devtools/browser/%FF%C3%28x?a=%FE', 'the open record has the path as the client wrote it');
    await cdpWorks(p, 'a path that is not UTF-8');
  } finally {
    await p.stop();
  }
});

test('Host and Origin of 300 bytes and more are checked, not skipped; the 403 is plain text', ALL, async () => {
  const p = await proxyOn('127.0.0.1:0');
  try {
    const longHost = await h.httpRequest(`${p.url}/json/version`, { headers: { Host: `${'a'.repeat(300)}.example` } });
    assert.equal(longHost.status, 403, 'a Host of 308 bytes: 403');
    const longOrigin = await h.httpRequest(`${p.url}/json/version`, { headers: { Origin: `http://${'b'.repeat(400)}.example` } });
    assert.equal(longOrigin.status, 403, 'an Origin of 415 bytes: 403');
    const v = await h.getJSON(`${p.url}/json/version`);
    await assert.rejects(h.wsConnect(v.webSocketDebuggerUrl, { origin: `http://${'c'.repeat(500)}.example` }), /403/,
      'an upgrade with an Origin of 515 bytes: 403');
    const evil = await h.httpRequest(`${p.url}/json/version`, { headers: { Origin: 'http://x"><script>alert(1)</script>' } });
    assert.equal(evil.status, 403, 'a web page: 403');
    assert.match(evil.headers['content-type'], /^text\/plain/, 'the refusal is plain text, not HTML');
    assert.doesNotMatch(evil.body, /<html|<h1/i, 'no markup around the echoed Origin');
    await cdpWorks(p, 'after the long headers');
  } finally {
    await p.stop();
  }
});

test('token= is taken out of the query argument by argument, the rest passed on as sent', ALL, async () => {
  const p = await proxyOn('127.0.0.1:0', { args: ['--token', TOKEN] });
  try {
    for (const q of [`x=1&token=${TOKEN}`, `token=${TOKEN}&x=1`, `a=1&token=${TOKEN}&b=2`]) {
      const r = await h.httpRequest(`${p.url}/json/version?${q}`);
      assert.equal(r.status, 200, `?${q}: 200`);
    }
    // Chrome's /json/new takes its query up to the first '&' as the URL.
    const target = 'http://127.0.0.1:9/p?a=1,b=x:@/z';
    const made = await h.getJSON(`${p.url}/json/new?${target}&token=${TOKEN}`, { method: 'PUT' });
    assert.equal(made.url, target, 'Chrome got the URL without the token, every byte as sent');
    const first = await h.getJSON(`${p.url}/json/new?token=${TOKEN}&${target}`, { method: 'PUT' });
    assert.equal(first.url, target, 'token= first: the same URL');
    await h.httpRequest(`${p.url}/json/close/${first.id}?token=${TOKEN}`);
    const ws = `${made.webSocketDebuggerUrl}?x=1&token=${TOKEN}&y=2,3`;
    // Chrome refuses an upgrade with arguments (500): the proxy's open record
    // shows what was passed on.
    const cdp = await h.RawCDP.connect(ws);
    await cdp.closed;
    const log = await h.waitForLog(p.logPath, (l) => l.some((x) => x.kind === 'open'), 'the open record');
    assert.equal(log.find((x) => x.kind === 'open').path, `/devtools/page/${made.id}?x=1&y=2,3`,
      'the open record: the path and the other arguments, in order');
    assert.ok(!fs.readFileSync(p.logPath, 'utf8').includes(TOKEN), 'the token is not in the log');
    await h.httpRequest(`${p.url}/json/close/${made.id}?token=${TOKEN}`);
  } finally {
    await p.stop();
  }
});

// Opens n connections that send nothing (kept in socks), then checks the
// proxy neither spins (CPU over 3 s) nor floods stderr; prints both as what.
async function idleConnections(p, n, socks, what) {
  for (let i = 0; i < n; i++) {
    const s = net.connect(p.port, '127.0.0.1');
    s.on('error', () => {});
    socks.push(s);
  }
  await h.sleep(1000);
  const t0 = h.procStat(p.pid).ticks;
  await h.sleep(3000);
  const ticks = h.procStat(p.pid).ticks - t0;
  const lines = p.stderr().split('\n').length;
  process.stderr.write(`# ${what}: ${ticks} CPU ticks in 3 s, ${lines} stderr lines\n`);
  if (CPU_CHECKED) assert.ok(ticks < 60, `CPU over 3 s: ${ticks} ticks (< 60 of 300: not spinning)`);
  assert.ok(lines < 20, `stderr: ${lines} lines (at most one a second)`);
}

test('500 idle connections at ulimit -n 256: no spinning, few lines, then served again', ALL, async () => {
  const p = await proxyOn('127.0.0.1:0', { ulimit: 256 });
  const socks = [];
  try {
    await idleConnections(p, 500, socks, '500 idle connections');
    const st = await h.getJSON(`${p.url}/proxy/stats`).catch(() => null);
    if (st) process.stderr.write(`# http: ${JSON.stringify(st.http)}\n`);
    for (const s of socks) s.destroy();
    await h.sleep(500);
    await cdpWorks(p, 'after 500 idle connections');
  } finally {
    for (const s of socks) s.destroy();
    await p.stop();
  }
});

test('out of descriptors (ulimit -n 40, WebSockets holding them): new connections closed, no spinning', ALL, async () => {
  const p = await proxyOn('127.0.0.1:0', { ulimit: 40 });
  const held = [];
  const socks = [];
  try {
    const v = await h.getJSON(`${p.url}/json/version`);
    // Each WebSocket holds two descriptors (client and Chrome legs): open
    // them until the proxy has none left for a new one.
    for (let i = 0; i < 40; i++) {
      try {
        const c = await h.RawCDP.connect(v.webSocketDebuggerUrl);
        await c.call('Browser.getVersion');
        held.push(c);
      } catch { break; }
    }
    assert.ok(held.length >= 5 && held.length < 40, `${held.length} WebSockets took the descriptors`);
    await idleConnections(p, 200, socks, `out of descriptors: ${held.length} WebSockets`);
    assert.match(p.stderr(), /out of file descriptors|no room for a new connection/, 'the shortage is said');
    for (const s of socks) s.destroy();
    await Promise.all(held.splice(0).map((c) => c.close()));
    await h.sleep(500);
    await cdpWorks(p, 'once the WebSockets are closed');
  } finally {
    for (const s of socks) s.destroy();
    await Promise.all(held.map((c) => c.close()));
    await p.stop();
  }
});

test('stop chromium', { timeout: 30000 }, async () => {
  if (chrome) await chrome.stop();
});
