#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 8: cut-through on the pipe leg (proxy/pipe/README.md) with real
// Chromium behind the wrapper. A raw pipe client pipelines small commands
// with 8 MiB and 32 MiB answers and an 8 MiB console event: each arrives
// whole (sha256 of its string, built the same in the page and here) and in
// Chromium's order, and the 32 MiB answer's first bytes reach the client
// before its last byte reached the wrapper (the log record's time): it was
// cut through, not stored. 32 MiB is 32 times the wrapper's pipes (1 MiB),
// 128 times its reads (256 KiB) and twice its queue bound (16 MiB);
// 117 MiB is tools/bench-large.js's (make bench-proxy). Then real
// Playwright, which launches the wrapper with --remote-debugging-pipe: a
// 32 MiB page.evaluate result and a 8 MiB console message come whole. A
// command with two "method" keys is judged alike, small or cut through.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const path = require('node:path');
const h = require('./lib/harness');
const wr = require('./lib/wrapper');

const ALL = { timeout: 240000 };
const MiB = 1 << 20;

// A string of n bytes of 1 KiB blocks, each starting with its index in hex
// (a lost, repeated or reordered block changes the hash), as the page builds it.
const BUILD = (n) => `(() => {
  const filler = 'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ+/'.repeat(16).slice(8);
  const parts = new Array(${n / 1024});
  for (let i = 0; i < parts.length; i++) parts[i] = i.toString(16).padStart(8, '0') + filler;
  return parts.join('');
})()`;
const built = (n) => eval(BUILD(n)); // eslint-disable-line no-eval

// The wrapper in pipe mode on our fds 3 and 4, read without joining chunks
// (a 32 MiB message in 64 KiB reads): each message's bytes, the wall time
// its first bytes came, and its start for the order.
function pipeClient(profile, logDir, env = {}) {
  const child = spawn(h.WRAPPER_BIN, [...h.CHROME_FLAGS, `--user-data-dir=${profile}`, '--remote-debugging-pipe', 'about:blank'], {
    stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'], detached: true,
    env: wr.wrapperEnv({ CDPPROXY_LOG: path.join(logDir, 'log.jsonl'), ...env }),
  });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let stderr = '', parts = [], firstAt = 0, next = 1;
  const msgs = [], waiting = new Map();
  child.stdio[2].setEncoding('utf8').on('data', (d) => { stderr += d; });
  child.stdio[4].on('data', (d) => {
    for (;;) {
      if (!parts.length) firstAt = Date.now();
      const i = d.indexOf(0);
      if (i < 0) { parts.push(d); return; }
      parts.push(d.subarray(0, i));
      const bytes = Buffer.concat(parts);
      parts = [];
      d = d.subarray(i + 1);
      const m = { firstAt, lastAt: Date.now(), bytes, head: bytes.subarray(0, 200).toString() };
      msgs.push(m);
      const id = /^\{"id":(\d+)/.exec(m.head);
      if (id && waiting.has(Number(id[1]))) waiting.get(Number(id[1]))(m);
      if (!d.length) return;
    }
  });
  const send = (method, params = {}, sessionId) => {
    const id = next++;
    const p = new Promise((resolve) => waiting.set(id, resolve));
    child.stdio[3].write(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }) + '\0');
    return { id, p };
  };
  const call = async (...a) => JSON.parse((await send(...a).p).bytes.toString());
  // A message written as it is, answered to id.
  const raw = (id, text) => {
    const p = new Promise((resolve) => waiting.set(id, resolve));
    child.stdio[3].write(text + '\0');
    return p;
  };
  return { child, exited, msgs, send, call, raw, stderr: () => stderr };
}

test('raw pipe client: 8 and 32 MiB answers, an 8 MiB event, small ones: whole, in order, cut through', ALL, async (t) => {
  const profile = h.tmpdir('cdpproxy-pipecut-prof-');
  const logs = h.tmpdir('cdpproxy-pipecut-log-');
  const c = pipeClient(profile.dir, logs.dir);
  try {
    const { result: { targetId } } = await c.call('Target.createTarget', { url: 'about:blank' });
    const { result: { sessionId } } = await c.call('Target.attachToTarget', { targetId, flatten: true });
    const ev = (expression) => c.send('Runtime.evaluate', { expression, returnByValue: true }, sessionId);
    await c.call('Runtime.enable', {}, sessionId);
    for (const [name, n] of [['__s8', 8 * MiB], ['__s32', 32 * MiB]])
      await c.call('Runtime.evaluate', { expression: `window.${name} = ${BUILD(n)}, 0`, returnByValue: true }, sessionId);
    const want8 = h.sha256(built(8 * MiB)), want32 = h.sha256(built(32 * MiB));
    const start = c.msgs.length;
    const sent = [ev('1'), ev('window.__s8'), ev('console.log(window.__s8), 2'), ev('window.__s32'), ev('3')];
    const got = await Promise.all(sent.map((s) => s.p));
    const value = (m) => JSON.parse(m.bytes.toString()).result.result.value;
    assert.equal(value(got[0]), 1, 'small answer before');
    assert.equal(h.sha256(value(got[1])), want8, '8 MiB answer whole');
    assert.equal(value(got[2]), 2, 'small answer after the console event');
    assert.equal(h.sha256(value(got[3])), want32, '32 MiB answer whole');
    assert.equal(value(got[4]), 3, 'small answer last');
    const order = c.msgs.slice(start).map((m) => { const x = /^\{"id":(\d+)/.exec(m.head) || /^\{"method":"([^"]+)"/.exec(m.head); return x && (/^\d+$/.test(x[1]) ? Number(x[1]) : x[1]); });
    const ids = sent.map((s) => s.id);
    assert.deepEqual(order, [ids[0], ids[1], 'Runtime.consoleAPICalled', ids[2], ids[3], ids[4]], 'in the order Chromium sent them');
    const event = c.msgs.slice(start).find((m) => m.head.startsWith('{"method":"Runtime.consoleAPICalled"'));
    assert.equal(h.sha256(JSON.parse(event.bytes.toString()).params.args[0].value), want8, '8 MiB console event whole');
    c.child.stdio[3].end();
    assert.deepEqual(await h.within(c.exited, 15000), { code: 0, signal: null }, 'closing fd 3 ends the wrapper with 0');
    // The wrapper's record of the 32 MiB answer: t is when its last byte was read.
    const recs = Object.values(wr.readLogs(logs.dir))[0] || [];
    const rec = recs.find((r) => r.kind === 'response' && r.id === ids[3]);
    assert.ok(rec, 'the log has the 32 MiB answer');
    assert.equal(rec.bytes, got[3].bytes.length, 'its record gives its size');
    const leadMs = rec.t / 1000 - got[3].firstAt;
    t.diagnostic(`32 MiB: first bytes at the client ${leadMs.toFixed(0)} ms before its last byte reached the wrapper; client read it in ${got[3].lastAt - got[3].firstAt} ms`);
    assert.ok(leadMs > 5, `its first bytes came before its last one reached the wrapper (${leadMs.toFixed(1)} ms)`);
  } finally {
    try { process.kill(-c.child.pid, 'SIGKILL'); } catch { /* gone */ }
    await h.within(c.exited, 5000);
    profile.remove();
    logs.remove();
  }
});

// 22-cut-through's duplicate "method" keys on the pipe leg: a small command
// and a 2 MiB one (cut through) behind CDPPROXY_POLICY rejecting
// Runtime.evaluate are judged alike, as invalid, and Chromium refuses both.
test('two "method" keys on the pipe: the small and the cut-through command are judged alike, as invalid', ALL, async (t) => {
  const profile = h.tmpdir('cdpproxy-pipedup-prof-');
  const logs = h.tmpdir('cdpproxy-pipedup-log-');
  const policy = path.join(logs.dir, 'no-eval.json');
  require('node:fs').writeFileSync(policy, JSON.stringify({ name: 'no-eval', rules: [{ method: 'Runtime.evaluate', kind: 'command', action: 'reject' }] }));
  const c = pipeClient(profile.dir, logs.dir, { CDPPROXY_POLICY: policy });
  try {
    const { result: { targetId } } = await c.call('Target.createTarget', { url: 'about:blank' });
    const { result: { sessionId } } = await c.call('Target.attachToTarget', { targetId, flatten: true });
    const sent = {
      small: `{"id":9001,"method":"Page.navigate","method":"Runtime.evaluate","params":{"expression":"1"},"sessionId":"${sessionId}"}`,
      cut: `{"id":9002,"method":"Page.navigate","params":{"url":"about:blank","pad":"${'x'.repeat(2 * MiB)}"},"method":"Runtime.evaluate","sessionId":"${sessionId}"}`,
    };
    const answers = await Promise.all([c.raw(9001, sent.small), c.raw(9002, sent.cut)]).then((ms) => ms.map((m) => JSON.parse(m.bytes.toString())));
    t.diagnostic(`answers: ${JSON.stringify(answers).slice(0, 300)}`);
    assert.ok(answers[0].error && answers[1].error, 'each is answered with an error');
    assert.equal(answers[0].error.code, answers[1].error.code, 'the same error');
    c.child.stdio[3].end();
    assert.deepEqual(await h.within(c.exited, 15000), { code: 0, signal: null }, 'closing fd 3 ends the wrapper with 0');
    const recs = h.readLog(path.join(logs.dir, 'log.jsonl'));
    const rec = (text) => recs.filter((r) => r.dir === 'up' && r.bytes === Buffer.byteLength(text))
      .map((r) => ({ kind: r.kind, method: r.method, action: r.action }));
    t.diagnostic(`small: ${JSON.stringify(rec(sent.small))}, cut through: ${JSON.stringify(rec(sent.cut))}`);
    assert.deepEqual(rec(sent.cut), rec(sent.small), 'both logged alike');
    assert.deepEqual(rec(sent.small), [{ kind: 'invalid', method: undefined, action: undefined }], 'as one invalid message');
  } finally {
    try { process.kill(-c.child.pid, 'SIGKILL'); } catch { /* gone */ }
    await h.within(c.exited, 5000);
    profile.remove();
    logs.remove();
  }
});

test('Playwright over the wrapper\'s pipe: a 32 MiB evaluate result and an 8 MiB console message whole', ALL, async () => {
  const { chromium } = h.client('playwright-core');
  const browser = await chromium.launch({ executablePath: h.WRAPPER_BIN, args: h.CHROME_FLAGS, env: wr.wrapperEnv({}) });
  try {
    const page = await browser.newPage();
    const logged = new Promise((resolve) => page.on('console', (m) => resolve(m.text())));
    await page.evaluate(`window.__s8 = ${BUILD(8 * MiB)}; console.log(window.__s8)`);
    assert.equal(h.sha256(await logged), h.sha256(built(8 * MiB)), '8 MiB console message whole');
    assert.equal(h.sha256(await page.evaluate(BUILD(32 * MiB))), h.sha256(built(32 * MiB)), '32 MiB result whole');
    assert.equal(await page.evaluate('1 + 2'), 3, 'and a small one after it');
  } finally {
    await browser.close();
  }
});
