#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 4: cdpbench end to end against the real Chromium. --quick fills every
// cell, the sink counts every byte the page sent, and the report files exist
// and parse; a replay captured from real Playwright through cdpproxy
// (--log --log-bodies) runs as a scenario. Timings are the report's business:
// nothing here asserts a speed.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const h = require('./lib/harness');

let spoiledRun;   // the replay test's run, for the test of its failures
const CDPBENCH = process.env.CDPBENCH_BIN || path.join(path.dirname(h.PROXY_BIN), 'cdpbench');

// Runs cdpbench; resolves {code, signal, stdout, stderr}. On timeout it gets
// SIGINT (it then stops what it started and reports), then SIGKILL.
function cdpbench(args, timeout) {
  return new Promise((resolve, reject) => {
    if (!fs.existsSync(CDPBENCH)) {
      reject(new Error(`${CDPBENCH} not found: run make (or set CDPBENCH_BIN)`));
      return;
    }
    const child = h.spawnTracked(CDPBENCH, args, { cwd: h.ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => {
      child.kill('SIGINT');
      setTimeout(() => child.kill('SIGKILL'), 15000).unref();
    }, timeout);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

function readReport(dir) {
  const file = path.join(dir, 'report.json');
  assert.ok(fs.existsSync(file), `${file} exists`);
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

// Every sample of a cell is usable and the sink counted exactly what the page sent.
function checkCell(rep, c) {
  const what = `${c.scenario}/${c.body}`;
  const errors = c.samples.filter((s) => !s.ok).map((s) => `round ${s.round}: ${s.error}`);
  assert.equal(c.failed, 0, `${what}: no failed trial (${errors.join('; ')})`);
  assert.equal(c.n, rep.config.rounds, `${what}: a sample in every measured round`);
  assert.ok(c.median_mbps > 0, `${what}: a median (${c.median_mbps})`);
  for (const s of c.samples) {
    const measured = s.detail.transfers.filter((x) => !x.warmup).length;
    if (c.scenario !== 'native') {
      assert.ok(measured >= rep.config.transfers && measured <= rep.config.max_transfers,
        `${what} round ${s.round}: ${measured} measured transfers, from ${rep.config.transfers} to ${rep.config.max_transfers}`);
    }
    // Warm-up: the fewest, then more until warmup_ms of them (none more without it).
    const warm = s.detail.transfers.filter((x) => x.warmup).length;
    if (c.scenario !== 'native') {
      assert.ok(rep.config.warmup_ms > 0 ? warm >= rep.config.warmup_transfers : warm === rep.config.warmup_transfers,
        `${what} round ${s.round}: ${warm} warm-up transfers (${rep.config.warmup_transfers}, ${rep.config.warmup_ms} ms)`);
    }
    const perTrial = rep.config.bytes * (warm + measured);
    assert.equal(s.page_bytes, perTrial, `${what} round ${s.round}: the page moved every byte`);
    assert.equal(s.sink_bytes, s.page_bytes, `${what} round ${s.round}: sink bytes == bytes sent`);
    assert.ok(s.page_mbps > 0, `${what} round ${s.round}: timed in the page`);
  }
  if (c.scenario !== 'none' && !c.scenario.startsWith('none#')) {
    assert.equal(typeof c.ratio_to_none, 'number', `${what}: a ratio to none`);
  }
  // One CI schema in report.json and audit.json: {point, lo, hi, n}.
  for (const k of ['ci', 'sink_ci', 'ratio_ci', 'aa_ci']) {
    assert.deepEqual(Object.keys(c[k]), ['point', 'lo', 'hi', 'n'], `${what}: ${k} is {point, lo, hi, n}`);
  }
  assert.equal(c.ci.point, c.median_mbps, `${what}: ci.point is the median`);
  assert.equal(c.ratio_ci.point, c.ratio_to_none, `${what}: ratio_ci.point is the ratio`);
}

test('cdpbench --quick fills every cell and writes a report that parses', { timeout: 150000 }, async (t) => {
  const out = h.tmpdir('cdpbench-quick-');
  const started = Date.now();
  // 1 MiB bodies, not --quick's 4: what is checked is every cell and every
  // byte, not a speed, and the Network and playwright u8 trials take 4x less.
  const r = await cdpbench(['--quick', '--mib', '1', '--out', out.dir], 140000);
  t.diagnostic(`cdpbench --quick took ${((Date.now() - started) / 1000).toFixed(1)} s`);
  assert.equal(r.code, 0, `exit 0; stderr:\n${r.stderr.slice(-3000)}`);
  assert.match(r.stdout, /vs none/, 'the table is printed');

  const rep = readReport(out.dir);
  const names = rep.scenarios.map((s) => s.name);
  assert.deepEqual(names, ['native', 'none', 'attach', 'Network', 'playwright'], 'the quick matrix');
  assert.deepEqual(rep.bodies, ['u8', 'blob']);
  assert.equal(rep.cells.length, names.length * rep.bodies.length, 'scenario x body cells');
  for (const c of rep.cells) checkCell(rep, c);
  assert.match(rep.environment.chromium, /Chromium/, 'the Chromium version is recorded');
  assert.ok(rep.environment.kernel && rep.environment.cpus >= 1, 'kernel and CPUs are recorded');
  assert.ok(rep.environment.chromium_flags.includes('--disable-quic'), 'the flags are recorded');

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

  const r = await cdpbench(['--replay', proxy.logPath, '--replay', spoiled, '--scenarios', 'none', '--bodies', 'u8',
    '--mib', '1', '--rounds', '2', '--warmup-rounds', '0', '--out', out.dir], 120000);
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

// Issue 21: --budget adds rounds until every ratio's CI is within --target-ci.
// A loose target is reached at the fewest rounds a CI is trusted from (8); a
// target no machine reaches runs until the budget is spent, and says so.
test('--budget stops when every ratio is within --target-ci, at 8 rounds', { timeout: 150000 }, async () => {
  const out = h.tmpdir('cdpbench-budget-');
  const r = await cdpbench(['--scenarios', 'none,attach,none', '--bodies', 'u8', '--mib', '1',
    '--rounds', '2', '--warmup-rounds', '0', '--budget', '2m', '--target-ci', '0.99',
    '--measure-ms', '200', '--order-seed', '12345', '--out', out.dir], 140000);
  assert.equal(r.code, 0, `exit 0; stderr:\n${r.stderr.slice(-3000)}`);
  const rep = readReport(out.dir);
  assert.equal(rep.config.budget_seconds, 120, '2m is 120 s');
  assert.equal(rep.config.order_seed, 12345, '--order-seed is recorded');
  for (let k = 0; k < rep.config.rounds_run; k++) {
    const pos = rep.cells.flatMap((c) => c.samples.filter((x) => x.round === k)).map((x) => x.position)
      .sort((a, b) => a - b);
    assert.deepEqual(pos, pos.map((_, i) => i), `round ${k}: each cell at its own position`);
  }
  const pl = rep.environment.placement;
  if (rep.environment.cpus >= 2) {
    assert.equal(pl.placement, 'split', `the sink apart from the browsers by default: ${JSON.stringify(pl)}`);
    assert.ok(pl.sink_cpus && pl.browser_cpus && !pl.browser_cpus.split(/[,-]/).includes(pl.sink_cpus),
      `the sink's CPU is not the browsers': ${JSON.stringify(pl)}`);
  }
  assert.equal(rep.environment.load_average_start.length, 3, 'the load average is recorded');
  assert.equal(rep.config.target_ci, 0.99);
  assert.equal(rep.config.stopped_because, 'every ratio reached the target');
  assert.equal(rep.config.measured_rounds_run, 8, 'no more rounds than a trusted CI needs');
  const targets = rep.cells.filter((c) => c.precision.target);
  assert.deepEqual(targets.map((c) => c.scenario), ['attach', 'none#2'], 'the ratio and the A/A check are held to the target');
  for (const c of targets) {
    assert.ok(c.precision.reached && c.precision.ci_halfwidth <= 0.99, `${c.scenario}: reached (${c.precision.ci_halfwidth})`);
  }
  for (const c of rep.cells) {
    checkCell({ ...rep, config: { ...rep.config, rounds: 8 } }, c);
    const v = c.precision.variance;
    assert.equal(v.trials, 8, `${c.scenario}: the split has every trial`);
    assert.ok(v.transfers > 2 * 8, `${c.scenario}: --measure-ms 200 added transfers (${v.transfers})`);
    const warm = c.samples.map((x) => x.detail.transfers.filter((t) => t.warmup).length);
    assert.ok(warm.some((n) => n > 1), `${c.scenario}: 150 ms of warm-up took more than one 1 MiB transfer (${warm})`);
    assert.ok(v.within_trial > 0 && v.between_trials >= 0, `${c.scenario}: a split (${JSON.stringify(v)})`);
  }
  const md = fs.readFileSync(path.join(out.dir, 'report.md'), 'utf8');
  assert.match(md, /spread trial \/ transfer/, 'report.md has the split');
  assert.match(md, /\| none#2 \/ none \| u8 \| [0-9.]+ \| \[[0-9.]+, [0-9.]+\] \| (ok \(spread|fails: )/, 'report.md has the A/A gate');
});

test('--budget with a target no run reaches spends the budget and says which cells fell short', { timeout: 120000 }, async () => {
  const out = h.tmpdir('cdpbench-budget-');
  const started = Date.now();
  const r = await cdpbench(['--scenarios', 'none,attach', '--bodies', 'u8', '--mib', '1',
    '--rounds', '2', '--warmup-rounds', '0', '--budget', '40s', '--target-ci', '0.001',
    '--measure-ms', '0', '--out', out.dir], 110000);
  const took = (Date.now() - started) / 1000;
  assert.equal(r.code, 0, `exit 0; stderr:\n${r.stderr.slice(-3000)}`);
  const rep = readReport(out.dir);
  assert.equal(rep.config.stopped_because, 'the budget was spent');
  assert.ok(took < 40 + 15, `the budget holds: ${took} s for 40 s`);
  assert.ok(rep.config.measured_rounds_run > 2, `rounds were added (${rep.config.measured_rounds_run})`);
  const attach = rep.cells.find((c) => c.scenario === 'attach');
  assert.equal(attach.precision.reached, false, 'attach did not reach +-0.1%');
  assert.ok(attach.precision.rounds_for_target > rep.config.measured_rounds_run, 'and would need more rounds');
  assert.match(r.stdout, /u8 +attach .*~/, 'the table marks it ~');
  assert.ok(rep.findings.some((f) => /^0 of 1 ratios have a CI within \+-0.1%/.test(f) && f.includes('the budget was spent')),
    `a finding says so: ${rep.findings.join(' | ')}`);
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
