#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 1: cdplog on a real log: Playwright through cdpproxy --log --log-bodies,
// then `cdplog summary` and `pairs` must agree with the log counted here, list
// each page session's Network.enable with its session, and name an error.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const h = require('./lib/harness');

const CDPLOG = process.env.CDPLOG_BIN || path.join(path.dirname(h.PROXY_BIN), 'cdplog');
const ALL = { timeout: 60000 };
let env;
let logPath;
let records;

function cdplog(args) {
  const r = spawnSync(CDPLOG, args, { encoding: 'utf8', maxBuffer: 64 << 20, timeout: 30000 });
  assert.equal(r.error, undefined, `cdplog ran: ${r.error}`);
  return r;
}

// 2 KiB: commands whole, some events (frame trees, attached targets) cut.
test('start chromium, local server and cdpproxy --log --log-bodies=2048', { ...ALL, skip: h.DIRECT && 'CDPPROXY_DIRECT=1' }, async () => {
  env = await h.setup({ proxyArgs: ['--log-bodies=2048'] });
});

test('Playwright: two pages, a route, a failing evaluate, a mark', ALL, async (t) => {
  if (!env) return t.skip('setup failed');
  const { chromium } = h.client('playwright-core');
  const browser = await chromium.connectOverCDP(env.endpoint, { timeout: 15000 });
  try {
    const context = browser.contexts()[0];
    const page = await context.newPage();
    await page.goto(env.server.url);
    await page.route('**/data.json', (route) => route.fulfill({ status: 200, contentType: 'application/json', body: '{}' }));
    await page.evaluate(() => fetch('/data.json').then((r) => r.json()));
    const cdp = await context.newCDPSession(page);
    await cdp.send('CDPProxy.mark', { label: 'phase two' });
    // A NUL in a string: logged whole, the line holds \u0000.
    assert.equal((await cdp.send('Runtime.evaluate', { expression: '"a\0b".length' })).result.value, 3);
    await assert.rejects(cdp.send('Runtime.evaluate', { expression: '1', contextId: 987654 }),
      /Cannot find context/, 'an evaluate in no context fails');
    await cdp.detach();
    const second = await context.newPage();
    await second.goto(env.server.url);
    await second.close();
    await page.close();
  } finally {
    await browser.close();
  }
  const result = await env.stopProxy();
  records = h.checkProxyExit(assert, result, env.proxy.logPath);
  logPath = env.proxy.logPath;
});

test('the README\'s jq examples run on whole and cut bodies alike', ALL, (t) => {
  if (!records) return t.skip('no log');
  const whole = records.filter((r) => r.body !== undefined && !r.truncated);
  const cut = records.filter((r) => r.truncated);
  assert.ok(whole.length > 0 && whole.every((r) => typeof r.body === 'object'), 'whole bodies are JSON objects');
  assert.ok(cut.length > 0, `some bodies were cut at 2048 bytes (${cut.length})`);
  for (const r of cut) {
    assert.equal(typeof r.body, 'string', 'a cut body is a string');
    assert.ok(r.body_bytes > 2048 && Buffer.byteLength(r.body) <= 2048, `with its whole size: ${r.body_bytes}`);
  }
  assert.ok(!records.some((r) => r.redacted), 'nothing to redact, nothing says redacted');
  const readme = fs.readFileSync(path.join(h.ROOT, 'README.md'), 'utf8');
  const examples = readme.split('\n').filter((l) => /^jq .* rig\.jsonl$/.test(l));
  assert.ok(examples.length >= 4, `the README's jq examples: ${examples.length}`);
  for (const ex of examples) {
    const args = [...ex.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] !== undefined ? m[1] : m[2]).slice(1, -1);
    const r = spawnSync('jq', [...args, logPath], { encoding: 'utf8', maxBuffer: 64 << 20 });
    assert.equal(r.status, 0, `${ex}: exit 0; stderr: ${r.stderr}`);
    assert.ok(r.stdout.trim().length > 0, `${ex}: prints something`);
  }
  const params = spawnSync('jq', ['-c', "select(.kind==\"command\") | {conn, method, params: ((.body | objects | .params) // \"(cut or no body)\")}", logPath], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const nav = params.stdout.split('\n').filter(Boolean).map(JSON.parse).find((x) => x.method === 'Page.navigate');
  assert.equal(nav && nav.params.url, env.server.url, `params read straight from the body: ${JSON.stringify(nav)}`);
});

test('summary --json: counts per method and domain equal the log counted here', ALL, (t) => {
  if (!records) return t.skip('no log');
  const r = cdplog(['summary', logPath, '--json']);
  assert.equal(r.status, 0, `exit 0; stderr: ${r.stderr}`);
  const s = JSON.parse(r.stdout);
  const msgs = records.filter((x) => x.dir);
  const want = {};
  for (const m of msgs) {
    const k = m.method || '(no method)';
    const w = want[k] || (want[k] = { messages: 0, commands: 0, responses: 0, events: 0, errors: 0, up: 0, down: 0, rtt: 0 });
    w.messages++;
    w[m.dir] += m.bytes;
    if (m.kind === 'command') w.commands++;
    if (m.kind === 'event') w.events++;
    if (m.kind === 'response') { w.responses++; if (m.error !== undefined) w.errors++; if (m.rtt_us !== undefined) w.rtt++; }
  }
  assert.deepEqual(Object.keys(s.methods).sort(), Object.keys(want).sort(), 'the same methods');
  for (const [k, w] of Object.entries(want)) {
    const g = s.methods[k];
    assert.deepEqual({ messages: g.messages, commands: g.commands, responses: g.responses, events: g.events,
      errors: g.errors, up: g.bytes[0], down: g.bytes[1], rtt: g.rtt_us.n }, w, `${k}: counts, bytes, round trips`);
  }
  const net = msgs.filter((m) => m.method && m.method.startsWith('Network.'));
  assert.equal(s.domains.Network.messages, net.length, 'domain Network: every Network.* message');
  assert.equal(s.totals.messages, msgs.length, 'total messages');
  assert.equal(s.input.records, records.length, 'every record read');
  assert.equal(s.input.bad_lines, 0, 'no bad lines');
  const rtts = msgs.filter((m) => m.method === 'Network.enable' && m.rtt_us !== undefined).map((m) => m.rtt_us);
  assert.equal(s.methods['Network.enable'].rtt_us.max, Math.max(...rtts), 'Network.enable: the slowest round trip');

  const pages = records.filter((x) => x.kind === 'session' && x.event === 'attached' && x.type === 'page');
  const netOn = new Set(msgs.filter((m) => m.kind === 'response' && m.method === 'Network.enable' && m.error === undefined).map((m) => m.session));
  for (const p of pages.filter((x) => netOn.has(x.session))) {
    const got = s.sessions.find((x) => x.session === p.session);
    assert.ok(got, `page session ${p.session} is listed`);
    assert.equal(got.targetId, p.targetId, 'with its target');
    assert.equal(got.type, 'page');
    assert.ok(Object.prototype.hasOwnProperty.call(got.enabled, 'Network'), `with Network enabled: ${JSON.stringify(got.enabled)}`);
  }
  assert.ok(netOn.size >= 2, `two page sessions enabled Network: ${[...netOn]}`);
  assert.equal(s.policies.length, 1, 'one policy generation');
  assert.deepEqual(s.marks.map((m) => m.what.replace(/ session.*/, '')), ['"phase two"'], 'the mark');
});

test('summary: a table a person reads', ALL, (t) => {
  if (!records) return t.skip('no log');
  const r = cdplog(['summary', logPath]);
  assert.equal(r.status, 0, r.stderr);
  t.diagnostic(r.stdout.split('\n').slice(0, 16).join('\n'));
  assert.match(r.stdout, /^Domain +messages commands +events +bytes up +bytes down +rtt p50 +rtt p99 +rtt max errors$/m);
  assert.match(r.stdout, /^Network\.enable +\d+/m, 'Network.enable has a row');
  assert.match(r.stdout, /^Sessions: \d+/m);
  assert.match(r.stdout, /"phase two"/, 'the mark is shown');
});

test('pairs: every Network.enable of a page session, with its session and round trip', ALL, (t) => {
  if (!records) return t.skip('no log');
  const r = cdplog(['pairs', logPath, '--json', '--method', 'Network.enable']);
  assert.equal(r.status, 0, r.stderr);
  const got = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
  const cmds = records.filter((m) => m.dir === 'up' && m.kind === 'command' && m.method === 'Network.enable');
  assert.deepEqual(got.map((p) => [p.conn, p.id, p.session]), cmds.map((m) => [m.conn, m.id, m.session]),
    'each command, in the order sent, with its session');
  for (const p of got) {
    const resp = records.find((m) => m.kind === 'response' && m.conn === p.conn && m.id === p.id);
    assert.equal(p.rtt_us, resp.rtt_us, `id ${p.id}: the round trip of its response`);
  }
  const pages = new Set(records.filter((x) => x.kind === 'session' && x.type === 'page').map((x) => x.session));
  assert.ok(got.filter((p) => pages.has(p.session)).length >= 2, 'page sessions among them');

  const all = cdplog(['pairs', logPath]);
  assert.equal(all.status, 0, all.stderr);
  const nCmds = records.filter((m) => m.dir === 'up' && m.kind === 'command').length;
  assert.match(all.stdout, new RegExp(`: ${nCmds} commands shown`), 'one line per command');
  assert.match(all.stdout, /Runtime\.evaluate .*error -32000: Cannot find context with specified id/,
    'the failing evaluate with its error');
  const sess = got[0].session.slice(0, 8);
  const one = cdplog(['pairs', logPath, '--session', sess]);
  const lines = one.stdout.split('\n').filter((l) => /^ +\+\d/.test(l));
  assert.ok(lines.length > 0 && lines.every((l) => l.includes(` ${sess} `)), '--session keeps that session only');
});

test('timeline, bad lines, flags', ALL, (t) => {
  if (!records) return t.skip('no log');
  const tl = cdplog(['timeline', logPath]);
  assert.equal(tl.status, 0, tl.stderr);
  assert.match(tl.stdout, /Network\.enable/, 'the timeline shows Network.enable');
  assert.match(tl.stdout, /policy gen 1: passthrough/);
  const bad = path.join(path.dirname(logPath), 'bad.jsonl');
  fs.writeFileSync(bad, fs.readFileSync(logPath, 'utf8').split('\n').slice(0, 5).join('\n') + '\nnot json\n{"t":\n');
  const b = cdplog(['summary', bad]);
  assert.equal(b.status, 0, b.stderr);
  assert.match(b.stdout, /2 lines are not records; the first is line 6/, 'bad lines counted, the first named');
  const v = cdplog(['--version']);
  assert.match(v.stdout, /^cdplog \S+\n$/);
  const f = cdplog(['summary', logPath, '--bogus']);
  assert.equal(f.status, 2);
  assert.equal(f.stderr.trim().split('\n').length, 1, `one line: ${f.stderr}`);
  assert.match(f.stderr, /see --help/);
});

test('stop everything', ALL, async (t) => {
  if (!env) return t.skip('setup failed');
  await env.teardown();
});
