#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 4: cdpbench end to end against the real Chromium. --quick fills every
// cell, the sink counts every byte the page sent, and the report files exist
// and parse; a replay captured from real Playwright through cdpproxy
// (--log --log-bodies) runs as a scenario, and its failures are told; the
// command line. Timings are the report's business: nothing here asserts a
// speed, and each run is one round (what is checked is every cell and every
// byte, and every cell is in each round): 12 Chromium starts in all, on every
// CPU (--placement shared: split would pin every browser of every cdpbench
// running beside this file to the same one), so this file runs beside others
// (40, --budget, runs alone).
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const h = require('./lib/harness');
const { cdpbench, readReport, checkCell } = require('./lib/cdpbench');

let spoiledRun;   // the replay test's run, for the test of its failures

test('cdpbench --quick fills every cell and writes a report that parses', { timeout: 150000 }, async (t) => {
  const out = h.tmpdir('cdpbench-quick-');
  const started = Date.now();
  // 256 KiB bodies, not --quick's 4 MiB, and one round, not 2: what is
  // checked is every cell and every byte, not a speed; the Network and
  // playwright u8 trials (about 0.07x: a third of a second a MiB, all CPU)
  // take 16x less, and there are half as many.
  const r = await cdpbench(['--quick', '--mib', '0.25', '--rounds', '1', '--placement', 'shared',
    '--out', out.dir], 140000);
  t.diagnostic(`cdpbench --quick took ${((Date.now() - started) / 1000).toFixed(1)} s`);
  assert.equal(r.code, 0, `exit 0; stderr:\n${r.stderr.slice(-3000)}`);
  assert.match(r.stdout, /vs none/, 'the table is printed');

  const rep = readReport(out.dir);
  const names = rep.scenarios.map((s) => s.name);
  assert.deepEqual(names, ['native', 'none', 'attach', 'Network', 'playwright'], 'the quick matrix');
  assert.deepEqual(rep.bodies, ['u8', 'blob']);
  assert.equal(rep.config.rounds, 1, '--rounds 1 holds with --quick');
  assert.equal(rep.cells.length, names.length * rep.bodies.length, 'scenario x body cells');
  for (const c of rep.cells) checkCell(rep, c);
  assert.match(rep.environment.chromium, /Chromium/, 'the Chromium version is recorded');
  assert.ok(rep.environment.kernel && rep.environment.cpus >= 1, 'kernel and CPUs are recorded');
  // launch.c's base flags, recorded first: the list the tests and bench tools use (one list, two languages).
  assert.deepEqual(rep.environment.chromium_flags.slice(0, h.CHROME_FLAGS.length), [...h.CHROME_FLAGS],
    'the flags are recorded, and they are tools/common/chromium-flags.js');

  const pw = rep.cells.find((c) => c.scenario === 'playwright' && c.body === 'u8');
  const pwScenario = rep.scenarios.find((s) => s.name === 'playwright');
  assert.ok(pwScenario.commands.some((c) => c.method === 'Network.enable'), 'the playwright replay enables Network');
  for (const s of pw.samples) {
    assert.equal(s.detail.cdp.errors, 0, `every replayed command was answered: ${JSON.stringify(s.detail.cdp.failed)}`);
    assert.ok(s.detail.cdp.commands >= pwScenario.commands.length, 'the commands were sent');
  }

  const md = fs.readFileSync(path.join(out.dir, 'report.md'), 'utf8');
  assert.match(md, /^# cdpbench/, 'report.md has its title');
  for (const c of rep.cells) {
    assert.ok(md.includes(`| ${c.scenario} |`), `report.md has a row for ${c.scenario}`);
  }
  const html = fs.readFileSync(path.join(out.dir, 'report.html'), 'utf8');
  assert.match(html, /^<!doctype html>/i, 'report.html is HTML');
  assert.ok(html.trimEnd().endsWith('</html>'), 'report.html is complete');
  assert.equal((html.match(/<svg /g) || []).length, rep.bodies.length, 'one chart per body');
  assert.equal((html.match(/<svg /g) || []).length, (html.match(/<\/svg>/g) || []).length, 'charts are closed');
  assert.ok(!/(src|href)="(https?:)?\/\//.test(html), 'report.html loads nothing from the network');
});

test('a replay captured from real Playwright through cdpproxy runs as a scenario', { timeout: 150000 }, async (t) => {
  const chrome = await h.startChrome();
  const proxy = await h.startProxy({ upstreamPort: chrome.port, args: ['--log-bodies'] });
  try {
    const { chromium } = h.client('playwright-core');
    const browser = await chromium.connectOverCDP(proxy.httpURL, { timeout: 15000 });
    const page = await browser.contexts()[0].newPage();
    await page.close();
    await browser.close();
  } finally {
    await proxy.stop();
    await chrome.stop();
  }

  const printed = await cdpbench(['--print-replay', proxy.logPath], 20000);
  assert.equal(printed.code, 0, `--print-replay exits 0: ${printed.stderr}`);
  const cmds = printed.stdout.trim().split('\n').map((l) => JSON.parse(l));
  const methods = cmds.map((c) => c.method);
  t.diagnostic(`captured: ${methods.join(', ')}`);
  for (const m of ['Page.enable', 'Runtime.enable', 'Network.enable']) {
    assert.ok(methods.includes(m), `the captured page session sent ${m}`);
  }

  // The same log spoiled twice: Network.enable's body cut at 40 bytes, and a
  // Target.getTargetInfo of a target that does not exist added after it.
  const out = h.tmpdir('cdpbench-replay-');
  const spoiled = path.join(out.dir, 'spoiled.jsonl');
  const recs = h.readLog(proxy.logPath);
  const net = recs.find((x) => x.dir === 'up' && x.kind === 'command' && x.method === 'Network.enable' &&
    x.session && recs.some((y) => y.kind === 'command' && y.method === 'Page.enable' && y.session === x.session));
  assert.ok(net, 'the page session\'s Network.enable is in the log');
  const text = typeof net.body === 'string' ? net.body : JSON.stringify(net.body);
  const bad = { ...net, id: 99999, method: 'Target.getTargetInfo',
    body: JSON.stringify({ id: 99999, method: 'Target.getTargetInfo', params: { targetId: 'no-such-target' }, sessionId: net.session }) };
  Object.assign(net, { body: text.slice(0, 40), truncated: true });
  fs.writeFileSync(spoiled, recs.flatMap((x) => (x === net ? [x, bad] : [x])).map((x) => JSON.stringify(x)).join('\n') + '\n');

  // --quick's trial (one warm-up transfer and one measured, no more by the
  // clock) of 256 KiB: the replays enable Network, which makes u8 slow.
  const r = await cdpbench(['--replay', proxy.logPath, '--replay', spoiled, '--scenarios', 'none', '--bodies', 'u8',
    '--mib', '0.25', '--transfers', '1', '--warmup-ms', '0', '--measure-ms', '0', '--rounds', '1',
    '--warmup-rounds', '0', '--placement', 'shared', '--out', out.dir], 120000);
  proxy.removeDir();
  assert.equal(r.code, 0, `exit 0; stderr:\n${r.stderr.slice(-3000)}`);
  const rep = readReport(out.dir);
  spoiledRun = { r, rep, dir: out.dir };
  const sc = rep.scenarios.find((s) => s.name.startsWith('replay:') && s.name !== 'replay:spoiled');
  assert.ok(sc, `a replay scenario: ${rep.scenarios.map((s) => s.name)}`);
  assert.deepEqual(sc.commands.map((c) => c.method), methods, 'it runs the captured commands');
  const cell = rep.cells.find((c) => c.scenario === sc.name);
  checkCell(rep, cell);
  for (const s of cell.samples) {
    assert.equal(s.detail.cdp.errors, 0, `every replayed command was answered: ${JSON.stringify(s.detail.cdp.failed)}`);
  }
});

// Issue 18: a replay whose commands fail, or whose params the log cut, says
// so with the cause and the remedy in the table, the findings and report.md.
test('replay failures and cut params are told, with their cause', (t) => {
  if (!spoiledRun) return t.skip('no replay run');
  const { r, rep, dir } = spoiledRun;
  const sc = rep.scenarios.find((s) => s.name === 'replay:spoiled');
  assert.ok(sc, 'the spoiled replay ran');
  assert.deepEqual(sc.params_lost, { no_body: 0, cut: 1, cut_at: 40 }, 'one body cut at 40 bytes');
  assert.match(r.stderr, /spoiled\.jsonl: 1 command replays with \{\} params: 1 had its body cut at 40 bytes by cdpproxy's --log-bodies limit \(rerun it with a larger --log-bodies=N\)/,
    'the warning names the cause and the remedy');
  const cell = rep.cells.find((c) => c.scenario === sc.name);
  assert.equal(cell.commands_failed.max, 1, `one command failed per trial: ${JSON.stringify(cell.commands_failed)}`);
  // (the first trial that got as far as the commands: one may have failed before, under load)
  const withCmds = cell.samples.find((x) => x.detail.cdp && x.detail.cdp.failed.length);
  assert.ok(withCmds, `a trial recorded the failed command: ${cell.samples.map((x) => x.error)}`);
  const chromeSaid = JSON.parse(withCmds.detail.cdp.failed[0].error).message;
  assert.ok(chromeSaid, 'Chrome gave a reason');
  assert.equal(cell.commands_failed.why, `Target.getTargetInfo: ${chromeSaid}`, 'the reason is the method and what Chrome said');
  assert.match(r.stdout, /replay:spoiled .*\(1 of \d+ commands failed: see findings\)/, 'the table marks the row');
  assert.ok(rep.findings.some((f) => f.startsWith('replay:spoiled: 1 of its ') &&
    f.includes(` commands failed in each trial (Target.getTargetInfo: ${chromeSaid})`)),
    `a finding says which and why: ${rep.findings.join(' | ')}`);
  assert.ok(rep.findings.some((f) => /^replay:spoiled: .*cut at 40 bytes.*--log-bodies=N/.test(f)), 'and one says what the log cut');
  const md = fs.readFileSync(path.join(dir, 'report.md'), 'utf8');
  assert.match(md, /- replay:spoiled \/ u8: 1 of its \d+ commands failed in each trial/, 'report.md lists it under Failures');
  assert.match(md, /\| replay:spoiled \|.*cut at 40 bytes/, 'and in the scenario\'s row');
});

test('--version, and a bad flag is one line', async () => {
  const v = await cdpbench(['--version'], 10000);
  assert.equal(v.code, 0);
  assert.match(v.stdout, /^cdpbench \S+\n$/);
  const b = await cdpbench(['--no-such-flag'], 10000);
  assert.equal(b.code, 2);
  assert.equal(b.stderr.trim(), "cdpbench: unknown option '--no-such-flag' (see --help)");
  const d = await cdpbench(['--budget', '5x'], 10000);
  assert.equal(d.code, 2);
  assert.equal(d.stderr.trim(), "cdpbench: --budget wants a duration (5m, 90s, 1m30s), not '5x'");
  const t = await cdpbench(['--target-ci', '1.5'], 10000);
  assert.equal(t.code, 2);
  assert.match(t.stderr, /^cdpbench: --target-ci wants a fraction/);
  const o = await cdpbench(['--order-seed', 'abc'], 10000);
  assert.equal(o.code, 2);
  assert.equal(o.stderr.trim(), "cdpbench: --order-seed wants a number of at least 0, not 'abc'");
  const w = await cdpbench(['--warmup-ms', '-5'], 10000);
  assert.equal(w.code, 2);
  assert.equal(w.stderr.trim(), "cdpbench: --warmup-ms wants a number from 0 to 60000, not '-5'");
});
