#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 2: cut-through forwarding (proxy/ws/README.md) with real Chromium.
// 8 MiB and 32 MiB answers and an 8 MiB console event, pipelined with
// small commands, arrive whole and in Chromium's order, to a client that
// stops reading for 2 s meanwhile (backpressure); the log records them
// with their sizes, methods and round trips. 32 MiB is twice the proxy's
// default queue bound (16 MiB, which the two 8 MiB messages ahead of it
// fill) and 128 times the 256 KiB over which a message is cut through;
// 117 MiB is tools/bench-large.js's (make bench-proxy). Behind a policy
// whose rules match those messages only once their last bytes are in (a
// response's rule needs its command, an event's rule is judged whole),
// the rules still see, and rewrite, the whole message. A command with two
// "method" keys is judged alike, small or cut through: as invalid.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const h = require('./lib/harness');

const ALL = { timeout: 300000 };
const MiB = 1 << 20;
const SKIP_DIRECT = h.DIRECT && 'CDPPROXY_DIRECT=1';
let env, page, ruled, ruledDir;
const sha = {}; // sha256 of the page's strings, computed in the page

// window[name]: n bytes of 1 KiB blocks, each starting with its index in
// hex (a lost, repeated or reordered block changes the hash); its sha256.
const build = (name, n) => `(async () => {
  const filler = 'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ+/'.repeat(16).slice(8);
  const parts = new Array(${n / 1024});
  for (let i = 0; i < parts.length; i++) parts[i] = i.toString(16).padStart(8, '0') + filler;
  window.${name} = parts.join('');
  const d = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(window.${name}));
  return Array.from(new Uint8Array(d), (b) => b.toString(16).padStart(2, '0')).join('');
})()`;

// What each message that arrives starts with: its id, or its method, read
// from its first bytes (a 32 MiB message is not parsed twice).
function arrivals(cdp) {
  const seen = [];
  cdp.ws.on('message', (data) => {
    const head = data.subarray(0, 200).toString();
    const m = /^\{"id":(\d+)/.exec(head) || /^\{"method":"([^"]+)"/.exec(head);
    seen.push(m ? (/^\d+$/.test(m[1]) ? Number(m[1]) : m[1]) : head.slice(0, 40));
  });
  return seen;
}

const evaluate = (cdp, expression) => cdp.send('Runtime.evaluate', { expression, returnByValue: true });

// Sends the mix: small, 8 MiB answer, an 8 MiB console event and a small
// answer, the big answer (32 MiB, or 8 MiB), small. Returns the
// responses, in send order.
async function mix(cdp, { pauseMs = 0, big = '__s32' } = {}) {
  const sent = [
    evaluate(cdp, '1'),
    evaluate(cdp, 'window.__s8'),
    evaluate(cdp, 'console.log(window.__s8), 2'),
    evaluate(cdp, `window.${big}`),
    evaluate(cdp, '3'),
  ];
  if (pauseMs) {   // the client stops reading: the proxy's queue fills
    cdp.ws._socket.pause();
    await h.sleep(pauseMs);
    cdp.ws._socket.resume();
  }
  return Promise.all(sent);
}

function checkMix(t, cdp, seen, rs, { rewritten = false, big = '__s32' } = {}) {
  const [a, b, c, d, e] = rs;
  const first = rs[0].id;
  assert.equal(a.result.result.value, 1, 'small answer before');
  assert.equal(h.sha256(b.result.result.value), sha.s8, '8 MiB answer whole');
  assert.equal(c.result.result.value, 2, 'small answer after the console event');
  assert.equal(h.sha256(d.result.result.value), sha[big.slice(2)], `${big} answer whole`);
  assert.equal(e.result.result.value, 3, 'small answer last');
  const ev = cdp.events.filter((x) => x.method === 'Runtime.consoleAPICalled').pop();
  assert.ok(ev, 'the 8 MiB console event came');
  assert.equal(h.sha256(ev.params.args[0].value), sha.s8, '8 MiB console event whole');
  const order = seen.slice(seen.indexOf(first));
  assert.deepEqual(order, [first, first + 1, 'Runtime.consoleAPICalled', first + 2, first + 3, first + 4],
    'in the order Chromium sent them');
  if (rewritten) {
    for (const r of rs) assert.equal(r.result.cut, 'seen', `answer ${r.id} rewritten by its rule`);
    assert.equal(ev.params.cut, 'seen', 'console event rewritten by its rule');
  }
  cdp.events.length = 0;
}

test('start chromium, cdpproxy and one behind late-matching rules; build 8 and 32 MiB strings', ALL, async () => {
  env = await h.setup();
  // A page of the local server: crypto.subtle needs a secure context.
  page = await h.getJSON(`${env.endpoint}/json/new?${env.server.url}`, { method: 'PUT' });
  const cdp = await h.RawCDP.connect(page.webSocketDebuggerUrl);
  try {
    await h.waitFor(async () => {
      const r = await cdp.call('Runtime.evaluate', { expression: 'document.readyState + " " + location.href', returnByValue: true });
      return r.result.value === `complete ${env.server.url}`;
    }, { timeout: 10000, what: 'the page to load' });
    sha.s8 = (await cdp.call('Runtime.evaluate', { expression: build('__s8', 8 * MiB), awaitPromise: true, returnByValue: true })).result.value;
    sha.s32 = (await cdp.call('Runtime.evaluate', { expression: build('__s32', 32 * MiB), awaitPromise: true, returnByValue: true })).result.value;
  } finally {
    await cdp.close();
  }
  if (h.DIRECT) return;
  ruledDir = h.tmpdir('cdpproxy-cut-');
  const policy = path.join(ruledDir.dir, 'late.json');
  fs.writeFileSync(policy, JSON.stringify({
    name: 'late',
    rules: [
      { method: 'Runtime.evaluate', kind: 'response', action: 'rewrite', params: { cut: 'seen' } },
      { method: 'Runtime.consoleAPICalled', kind: 'event', action: 'rewrite', params: { cut: 'seen' } },
    ],
  }));
  ruled = await h.startProxy({ upstreamPort: env.chrome.port, args: ['--policy', policy] });
});

test('8 and 32 MiB messages and small ones, a client that stops reading for 2 s: whole, in order', ALL, async (t) => {
  if (!env) return t.skip('setup failed');
  const cdp = await h.RawCDP.connect(page.webSocketDebuggerUrl);
  try {
    const seen = arrivals(cdp);
    await cdp.call('Runtime.enable');
    const started = Date.now();
    checkMix(t, cdp, seen, await mix(cdp, { pauseMs: 2000 }));
    t.diagnostic(`mix in ${Date.now() - started} ms`);
  } finally {
    await cdp.close();
  }
});

test('rules that match only once the message is whole see it whole', { ...ALL, skip: SKIP_DIRECT }, async (t) => {
  if (!ruled) return t.skip('setup failed');
  const cdp = await h.RawCDP.connect(`ws://127.0.0.1:${ruled.port}/devtools/page/${page.id}`);
  try {
    const seen = arrivals(cdp);
    await cdp.call('Runtime.enable');
    // 8 MiB for the big one too: a rewrite parses the message whole.
    checkMix(t, cdp, seen, await mix(cdp, { big: '__s8' }), { rewritten: true, big: '__s8' });
  } finally {
    await cdp.close();
  }
});

test('logs: the large messages with their sizes, methods and round trips', { ...ALL, skip: SKIP_DIRECT }, async (t) => {
  if (!env) return t.skip('setup failed');
  const ruledResult = ruled && await ruled.stop();
  if (ruled) h.checkProxyExit(assert, ruledResult, ruled.logPath);
  const result = await env.stopProxy();
  const recs = h.checkProxyExit(assert, result, env.proxy.logPath) || h.readLog(env.proxy.logPath);
  const big = recs.filter((r) => r.kind === 'response' && r.method === 'Runtime.evaluate' && r.bytes > 32 * MiB);
  assert.equal(big.length, 1, 'the 32 MiB answer logged');
  for (const r of big) assert.ok(r.rtt_us > 0, 'with their round trip');
  const ev = recs.filter((r) => r.kind === 'event' && r.method === 'Runtime.consoleAPICalled' && r.bytes > 8 * MiB);
  // (Runtime.enable may replay the page's console messages: one or more.)
  assert.ok(ev.length >= 1, `the 8 MiB console event logged (${ev.length})`);
});

// A command with two "method" keys, Page.navigate then Runtime.evaluate,
// behind a policy that rejects Runtime.evaluate: small (stored, scanned
// whole) and 2 MiB (past cut_min: cut through on its first method). Chromium
// refuses duplicate keys (-32700): so does the proxy's scanner, the same way
// on both paths: each is an invalid message, logged as one, no rule judged
// it by either key, and Chromium's refusal is the client's answer.
test('two "method" keys: the small and the cut-through command are judged alike, as invalid', { ...ALL, skip: SKIP_DIRECT }, async (t) => {
  if (!env) return t.skip('setup failed');
  const dir = h.tmpdir('cdpproxy-dupkey-');
  const policy = path.join(dir.dir, 'no-eval.json');
  fs.writeFileSync(policy, JSON.stringify({ name: 'no-eval', rules: [{ method: 'Runtime.evaluate', kind: 'command', action: 'reject' }] }));
  const proxy = await h.startProxy({ upstreamPort: env.chrome.port, args: ['--policy', policy] });
  let result;
  try {
    const cdp = await h.RawCDP.connect(`ws://127.0.0.1:${proxy.port}/devtools/page/${page.id}`);
    const answers = new Map();
    cdp.ws.on('message', (d) => { const m = JSON.parse(d.toString()); if (m.id >= 9000) answers.set(m.id, m); });
    const pad = 'x'.repeat(2 * MiB);
    const sent = {
      small: '{"id":9001,"method":"Page.navigate","method":"Runtime.evaluate","params":{"expression":"1"}}',
      cut: `{"id":9002,"method":"Page.navigate","params":{"url":"about:blank","pad":"${pad}"},"method":"Runtime.evaluate"}`,
    };
    cdp.ws.send(sent.small);
    cdp.ws.send(sent.cut);
    await h.waitFor(() => answers.size === 2, { timeout: 20000, what: 'both answers' });
    for (const id of [9001, 9002]) t.diagnostic(`${id}: ${JSON.stringify(answers.get(id)).slice(0, 200)}`);
    assert.ok(answers.get(9001).error && answers.get(9002).error, 'each is answered with an error');
    assert.equal(answers.get(9001).error.code, answers.get(9002).error.code, 'the same error');
    await cdp.close();
    result = await proxy.stop();
    const recs = h.checkProxyExit(assert, result, proxy.logPath);
    const rec = (text) => recs.filter((r) => r.dir === 'up' && r.bytes === Buffer.byteLength(text))
      .map((r) => ({ kind: r.kind, method: r.method, action: r.action }));
    t.diagnostic(`small: ${JSON.stringify(rec(sent.small))}, cut through: ${JSON.stringify(rec(sent.cut))}`);
    assert.deepEqual(rec(sent.cut), rec(sent.small), 'both logged alike');
    assert.deepEqual(rec(sent.small), [{ kind: 'invalid', method: undefined, action: undefined }], 'as one invalid message');
  } finally {
    if (!result) await proxy.stop();
    proxy.removeDir();
    dir.remove();
  }
});

test('teardown', ALL, async () => {
  if (ruled) ruled.removeDir();
  if (ruledDir) ruledDir.remove();
  if (env) await env.teardown();
});
