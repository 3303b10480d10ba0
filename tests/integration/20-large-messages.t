#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 2: large messages through cdpproxy with a raw WebSocket client: a
// 32 MiB returnByValue string down and a 24 MiB expression up arrive intact
// (both over the default 16 MiB queue bound, 128 and 96 times the 256 KiB
// over which a message is cut through); behind --max-message 16MiB the
// same traffic closes that connection with 1009 while another client on
// the same proxy keeps working.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./lib/harness');

const ALL = { timeout: 50000 };
const MiB = 1 << 20;
const BIG = 32 * MiB;
const UP = 24 * MiB;
let env;
let page1; // target made for the big string
let page2; // target for the bystander client
let bigSha; // sha256 of window.__big computed in the page
let small; // second proxy, --max-message 16MiB

// BIG bytes of 1 KiB blocks, each starting with its index in hex so that a lost,
// repeated or reordered chunk changes the hash.
const BUILD_BIG = `(async () => {
  const filler = 'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ+/'.repeat(16).slice(8);
  const parts = new Array(${BIG / 1024});
  for (let i = 0; i < parts.length; i++) parts[i] = i.toString(16).padStart(8, '0') + filler;
  window.__big = parts.join('');
  const d = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(window.__big));
  return { length: window.__big.length, sha256: Array.from(new Uint8Array(d), (b) => b.toString(16).padStart(2, '0')).join('') };
})()`;

// A deterministic ASCII string of n bytes made in node (no JSON escapes).
function nodeString(n) {
  const block = Buffer.alloc(4096);
  for (let i = 0; i < block.length; i++) block[i] = 0x41 + ((i * 7) % 26);
  const buf = Buffer.alloc(n);
  for (let off = 0; off < n; off += block.length) {
    block.write((off / block.length).toString(16).padStart(8, '0'), 0, 'latin1');
    block.copy(buf, off);
  }
  return buf.toString('latin1');
}

// The UP bytes both up tests send, made once.
let up;
const upString = () => (up = up || nodeString(UP));

async function newTarget(endpoint, url) {
  return h.getJSON(`${endpoint}/json/new?${url}`, { method: 'PUT' });
}

async function waitLoaded(cdp, url) {
  await h.waitFor(async () => {
    const r = await cdp.call('Runtime.evaluate', { expression: 'document.readyState + " " + location.href', returnByValue: true });
    return r.result.value === `complete ${url}`;
  }, { timeout: 10000, what: `${url} to load` });
}

// ws URL of a target on another endpoint (same id, other host:port).
function wsOn(port, target) {
  return `ws://127.0.0.1:${port}/devtools/page/${target.id}`;
}

test('start chromium, local server and cdpproxy', ALL, async () => {
  env = await h.setup();
  page1 = await newTarget(env.endpoint, env.server.url);
  page2 = await newTarget(env.endpoint, 'about:blank');
});

test('a 32 MiB returnByValue string arrives intact', ALL, async (t) => {
  if (!env) return t.skip('setup failed');
  const cdp = await h.RawCDP.connect(page1.webSocketDebuggerUrl);
  try {
    await waitLoaded(cdp, env.server.url);
    const built = await cdp.call('Runtime.evaluate', { expression: BUILD_BIG, awaitPromise: true, returnByValue: true });
    assert.equal(built.result.value.length, BIG, 'page built 32 MiB');
    bigSha = built.result.value.sha256;
    const started = Date.now();
    const r = await cdp.call('Runtime.evaluate', { expression: 'window.__big', returnByValue: true });
    t.diagnostic(`32 MiB value in ${Date.now() - started} ms`);
    const v = r.result.value;
    assert.equal(typeof v, 'string', 'value is a string');
    assert.equal(v.length, BIG, 'value length 32 MiB');
    assert.equal(v.slice(0, 8), '00000000', 'first block');
    assert.equal(v.slice(BIG - 1024, BIG - 1016), (BIG / 1024 - 1).toString(16).padStart(8, '0'), 'last block');
    assert.equal(h.sha256(v), bigSha, 'sha256 in node equals sha256 in the page');
  } finally {
    await cdp.close();
  }
});

test('a 24 MiB expression sent up arrives intact', ALL, async (t) => {
  if (!env) return t.skip('setup failed');
  const s = upString();
  const cdp = await h.RawCDP.connect(page1.webSocketDebuggerUrl);
  try {
    const expression = `(async () => {
      const s = '${s}';
      const d = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(s));
      return s.length + ' ' + Array.from(new Uint8Array(d), (b) => b.toString(16).padStart(2, '0')).join('');
    })()`;
    const r = await cdp.call('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true });
    assert.equal(r.result.value, `${UP} ${h.sha256(s)}`, 'page saw the 24 MiB string with the same sha256');
  } finally {
    await cdp.close();
  }
});

test('behind --max-message 16MiB: 32 MiB down closes that connection with 1009, others work', { ...ALL, skip: h.DIRECT && 'CDPPROXY_DIRECT=1' }, async (t) => {
  if (!env) return t.skip('setup failed');
  small = await h.startProxy({ upstreamPort: env.chrome.port, args: ['--max-message', '16MiB'] });
  const victim = await h.RawCDP.connect(wsOn(small.port, page1));
  const bystander = await h.RawCDP.connect(wsOn(small.port, page2));
  assert.equal((await bystander.call('Runtime.evaluate', { expression: '1+1' })).result.value, 2, 'bystander works before');
  assert.equal((await victim.call('Runtime.evaluate', { expression: 'window.__big.length' })).result.value, BIG,
    'victim works with small messages');

  const started = Date.now();
  const big = victim.send('Runtime.evaluate', { expression: 'window.__big', returnByValue: true });
  await assert.rejects(big, /connection closed/, 'the 32 MiB answer never arrives');
  const closed = await victim.closed;
  t.diagnostic(`victim closed ${closed.at - started} ms after the request: ${closed.code} ${closed.reason}`);
  assert.equal(closed.code, 1009, `victim closed with 1009 (got ${closed.code} "${closed.reason}")`);

  assert.equal((await bystander.call('Runtime.evaluate', { expression: '1+1' })).result.value, 2, 'bystander works after');
  const fresh = await h.RawCDP.connect(wsOn(small.port, page1));
  assert.equal((await fresh.call('Runtime.evaluate', { expression: 'window.__big.length' })).result.value, BIG,
    'a new connection to the same page works');
  await fresh.close();
  await bystander.close();
});

test('behind --max-message 16MiB: 24 MiB up closes that connection with 1009, others work', { ...ALL, skip: h.DIRECT && 'CDPPROXY_DIRECT=1' }, async (t) => {
  if (!env) return t.skip('setup failed');
  const victim = await h.RawCDP.connect(wsOn(small.port, page1));
  const bystander = await h.RawCDP.connect(wsOn(small.port, page2));
  const s = upString();
  const big = victim.send('Runtime.evaluate', { expression: `'${s}'.length` });
  // The close may come while the client is still writing: then ws's send
  // callback fails first ("not opened"/"closed"), which is a rejection too.
  await assert.rejects(big, /connection closed|not open|CLOSED|closed/i, 'the 24 MiB command gets no answer');
  const closed = await victim.closed;
  assert.equal(closed.code, 1009, `victim closed with 1009 (got ${closed.code} "${closed.reason}")`);
  assert.equal((await bystander.call('Runtime.evaluate', { expression: '1+1' })).result.value, 2, 'bystander works after');
  await bystander.close();
});

test('logs: big messages counted, 1009 closes recorded as the proxy\'s', { ...ALL, skip: h.DIRECT && 'CDPPROXY_DIRECT=1' }, async (t) => {
  if (!env) return t.skip('setup failed');
  const smallResult = await small.stop();
  const smallLog = h.checkProxyExit(assert, smallResult, small.logPath);
  small.removeDir();
  const opens = smallLog.filter((r) => r.kind === 'open' && r.path === `/devtools/page/${page1.id}`);
  assert.equal(opens.length, 3, `three connections to page1 on the small proxy: ${JSON.stringify(opens)}`);
  for (const victimOpen of [opens[0], opens[2]]) {
    const closed = h.closesOf(smallLog, victimOpen.conn);
    assert.ok(closed.some((r) => r.code === 1009 && r.by === 'proxy'),
      `conn ${victimOpen.conn} closed by the proxy with 1009: ${JSON.stringify(closed)}`);
  }
  const fresh = h.closesOf(smallLog, opens[1].conn);
  assert.ok(fresh.some((r) => r.by === 'client') && fresh.every((r) => r.code !== 1009),
    `the fresh connection closed normally: ${JSON.stringify(fresh)}`);

  const result = await env.stopProxy();
  const log = h.checkProxyExit(assert, result, env.proxy.logPath);
  const down = log.find((r) => r.dir === 'down' && r.kind === 'response' && r.method === 'Runtime.evaluate' && r.bytes > BIG);
  assert.ok(down, 'log has the >32 MiB Runtime.evaluate response');
  assert.ok(Number.isInteger(down.rtt_us), 'with rtt_us');
  const up = log.find((r) => r.dir === 'up' && r.kind === 'command' && r.method === 'Runtime.evaluate' && r.bytes > UP);
  assert.ok(up, 'log has the >24 MiB Runtime.evaluate command');
});

test('stop everything', ALL, async (t) => {
  if (!env) return t.skip('setup failed');
  if (small && !small.exited()) await small.stop();
  await env.teardown();
  assert.notEqual(env.chrome.exited(), null, 'chromium exited');
});
