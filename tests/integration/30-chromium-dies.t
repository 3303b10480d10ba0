#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 3: Chromium dies under connected clients. With --launch the proxy's
// own Chromium is SIGKILLed while a command is in flight: every client must
// see a close (1011 with a reason) within 2 s, a new client must work (the
// proxy starts Chromium again), and nothing it started may outlive it. With
// --upstream the same close must reach the clients and the proxy stay up.
'use strict';
const fs = require('node:fs');
const { test } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./lib/harness');

const ALL = { timeout: 50000 };
const CLOSE_WITHIN_MS = 2000;
const NEVER = 'new Promise(() => {})';

function comm(pid) {
  try { return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim(); } catch { return ''; }
}

// The browser process the proxy started: its child running chromium that is
// not one of Chromium's own helpers (--type=...).
function proxyChromium(proxyPid) {
  return h.descendants(proxyPid).filter((p) => h.procStat(p) && h.procStat(p).ppid === proxyPid &&
    comm(p) === 'chromium' && !h.cmdline(p).some((a) => a.startsWith('--type=')));
}

// Connects a browser-level and a page-level client through `endpoint` and
// leaves a never-answered Runtime.evaluate in flight on the page client.
async function connectClients(endpoint) {
  const version = await h.getJSON(`${endpoint}/json/version`);
  const browser = await h.RawCDP.connect(version.webSocketDebuggerUrl);
  const v = await browser.call('Browser.getVersion');
  assert.match(v.product, /Chrom/, 'browser client works');
  const target = await h.getJSON(`${endpoint}/json/new?about:blank`, { method: 'PUT' });
  const page = await h.RawCDP.connect(target.webSocketDebuggerUrl);
  assert.equal((await page.call('Runtime.evaluate', { expression: '1+1' })).result.value, 2, 'page client works');
  const inflight = page.send('Runtime.evaluate', { expression: NEVER, awaitPromise: true });
  inflight.catch(() => {});
  await h.sleep(100); // let the command reach Chromium
  return { browser, page, inflight, target };
}

// Waits (bounded) for both clients' closes and returns them with delays.
async function closesAfter(clients, killedAt) {
  let timer;
  const timeout = new Promise((resolve) => { timer = setTimeout(() => resolve(null), CLOSE_WITHIN_MS + 3000); });
  const out = {};
  for (const name of ['browser', 'page']) {
    const c = await Promise.race([clients[name].closed, timeout]);
    out[name] = c && { ...c, after: c.at - killedAt };
  }
  clearTimeout(timer);
  return out;
}

// Both clients saw a close within CLOSE_WITHIN_MS of the kill; through the
// proxy, with 1011 and a reason.
function assertCloses(closes, { proxied }) {
  for (const name of ['browser', 'page']) {
    const c = closes[name];
    assert.ok(c, `${name} client saw a close at all`);
    assert.ok(c.after <= CLOSE_WITHIN_MS, `${name} client closed ${c.after} ms after the kill (limit ${CLOSE_WITHIN_MS})`);
    if (proxied) {
      assert.equal(c.code, 1011, `${name} client close code 1011 (got ${c.code} "${c.reason}")`);
      assert.ok(c.reason.length > 0, `${name} close has a reason`);
    }
  }
}

test('--launch: SIGKILL Chromium mid-command; clients closed, proxy relaunches, nothing left', { ...ALL, skip: h.DIRECT && 'CDPPROXY_DIRECT=1 (needs the proxy)' }, async (t) => {
  const proxy = await h.startProxy({ launch: true });
  let stopped = false;
  try {
    const first = await h.waitFor(() => proxyChromium(proxy.pid)[0], { timeout: 20000, what: 'the proxy\'s chromium' });
    const profile = (h.cmdline(first).find((a) => a.startsWith('--user-data-dir=')) || '').slice('--user-data-dir='.length);
    assert.ok(profile, `the launched chromium has a --user-data-dir: ${h.cmdline(first).join(' ')}`);
    t.diagnostic(`proxy ${proxy.pid} launched chromium ${first} (profile ${profile})`);
    const clients = await h.waitFor(() => connectClients(proxy.httpURL), { timeout: 20000, what: 'clients to connect' });
    const oldTree = [first, ...h.descendants(first)];

    const killedAt = Date.now();
    process.kill(first, 'SIGKILL');
    const closes = await closesAfter(clients, killedAt);
    t.diagnostic(`closes: ${JSON.stringify(closes)}`);
    assertCloses(closes, { proxied: true });
    await assert.rejects(clients.inflight, /closed/, 'the in-flight command fails with the close');

    // A new client works: the proxy starts a new Chromium.
    const again = await h.waitFor(async () => {
      const v = await h.getJSON(`${proxy.httpURL}/json/version`);
      const c = await h.RawCDP.connect(v.webSocketDebuggerUrl);
      try {
        return (await c.call('Browser.getVersion')).product;
      } finally { await c.close(); }
    }, { timeout: 20000, interval: 250, what: 'a new client to work after the kill' });
    assert.match(again, /Chrom/, 'new client talks to a Chromium');
    const second = proxyChromium(proxy.pid);
    assert.equal(second.length, 1, `one chromium child after relaunch: ${second}`);
    assert.notEqual(second[0], first, 'it is a new Chromium');
    const newProfile = (h.cmdline(second[0]).find((a) => a.startsWith('--user-data-dir=')) || '').slice('--user-data-dir='.length);
    assert.ok(newProfile && newProfile !== profile, `the new chromium has a profile of its own: ${newProfile}`);
    const newTree = [second[0], ...h.descendants(second[0])];

    const stats = await h.getJSON(`${proxy.httpURL}/proxy/stats`);
    assert.equal(stats.connections.open, 0, `no connection left open: ${JSON.stringify(stats.connections)}`);

    const result = await proxy.stop();
    stopped = true;
    const log = h.checkProxyExit(assert, result, proxy.logPath);
    const survivors = [...oldTree, ...newTree].filter(h.alive);
    assert.deepEqual(survivors, [], 'no chromium process the proxy started remains');
    const byProfile = h.allPids().filter((p) => h.alive(p) &&
      h.cmdline(p).some((a) => (profile && a.includes(profile)) || (newProfile && a.includes(newProfile))));
    assert.deepEqual(byProfile, [], 'no process uses either launched profile');
    // Chromium's own temporary directory lives in the profile (TMPDIR), so
    // a removed profile leaves nothing behind in /tmp either.
    for (const dir of [profile, newProfile].filter(Boolean))
      assert.equal(fs.existsSync(dir), false, `launched profile ${dir} removed`);

    const pagePath = `/devtools/page/${clients.target.id}`;
    const open = log.find((r) => r.kind === 'open' && r.path === pagePath);
    assert.ok(open, `log has the page connection (${pagePath})`);
    const closed = h.closesOf(log, open.conn);
    assert.ok(closed.length > 0 && closed.every((r) => r.code === 1011),
      `page connection's close logged with 1011: ${JSON.stringify(closed)}`);
    assert.ok(log.some((r) => r.conn === open.conn && r.dir === 'up' && r.kind === 'command' &&
      r.method === 'Runtime.evaluate' && r.id === 2), 'the in-flight command was logged');
    assert.ok(!log.some((r) => r.conn === open.conn && r.dir === 'down' && r.kind === 'response' && r.id === 2),
      'and never answered');
  } finally {
    if (!stopped) await proxy.stop();
    proxy.removeDir();
  }
});

test('--upstream: Chromium killed; clients closed promptly, proxy stays up', ALL, async (t) => {
  const env = await h.setup({ server: false });
  try {
    const clients = await connectClients(env.endpoint);
    const killedAt = Date.now();
    process.kill(-env.chrome.pgid, 'SIGKILL');
    const closes = await closesAfter(clients, killedAt);
    t.diagnostic(`closes: ${JSON.stringify(closes)}`);
    assertCloses(closes, { proxied: !env.direct });
    await assert.rejects(clients.inflight, /closed/, 'the in-flight command fails with the close');
    if (!env.direct) {
      assert.equal(env.proxy.exited(), null, 'proxy still running');
      const stats = await h.getJSON(`${env.endpoint}/proxy/stats`);
      assert.equal(stats.connections.open, 0, `no connection left open: ${JSON.stringify(stats.connections)}`);
      const res = await h.httpRequest(`${env.endpoint}/json/version`);
      assert.notEqual(res.status, 200, `discovery without Chromium is an error (${res.status})`);
      const result = await env.stopProxy();
      const log = h.checkProxyExit(assert, result, env.proxy.logPath);
      const conns = log.filter((r) => r.kind === 'open').map((r) => r.conn);
      assert.equal(conns.length, 2, 'two connections logged');
      for (const conn of conns) {
        const closed = h.closesOf(log, conn);
        assert.ok(closed.length > 0, `conn ${conn} has a close record`);
        for (const r of closed) assert.equal(r.code, 1011, `conn ${conn} close logged with 1011: ${JSON.stringify(r)}`);
      }
    }
  } finally {
    await env.teardown();
  }
});
