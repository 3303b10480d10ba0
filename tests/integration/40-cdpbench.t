#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 4: cdpbench --budget against the real Chromium: rounds are added until
// every ratio's CI is within --target-ci, or until the budget is spent. These
// count the rounds that fit in a time budget, so this file runs alone (see
// lib/testrules.yml); the rest of cdpbench's tests are 41. Each trial starts a
// Chromium: the first run has the 24 trials its 8 rounds of 3 cells need, the
// second the fewest that show a budget adding rounds and then stopping.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const h = require('./lib/harness');
const { cdpbench, readReport, checkCell } = require('./lib/cdpbench');

// Issue 21: --budget adds rounds until every ratio's CI is within --target-ci.
// A loose target is reached at the fewest rounds a CI is trusted from (8); a
// target no machine reaches runs until the budget is spent, and says so.
test('--budget stops when every ratio is within --target-ci, at 8 rounds', { timeout: 150000 }, async () => {
  const out = h.tmpdir('cdpbench-budget-');
  const r = await cdpbench(['--scenarios', 'none,attach,none', '--bodies', 'u8', '--mib', '1',
    '--rounds', '2', '--warmup-rounds', '0', '--budget', '2m', '--target-ci', '0.99',
    '--measure-ms', '100', '--order-seed', '12345', '--out', out.dir], 140000);
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
    // bench.html's rule, whatever this machine's speed: after the first N
    // (2 measured; the warm-up's count), a transfer is added while the ones
    // before it took under the time asked (--measure-ms 100; 150 ms of
    // warm-up), and none once they took it, up to the most allowed.
    for (const x of c.samples) {
      for (const [warmup, first, ms, most] of [[false, 2, 100, rep.config.max_transfers],
        [true, rep.config.warmup_transfers, rep.config.warmup_ms, rep.config.warmup_transfers + rep.config.max_transfers]]) {
        const t = x.detail.transfers.filter((y) => y.warmup === warmup).map((y) => y.page_ms);
        const took = (a) => a.reduce((sum, y) => sum + y, 0);
        const what = `${c.scenario} round ${x.round}, ${warmup ? 'warm-up' : 'measured'}: ${t.map((y) => y.toFixed(1))} ms`;
        assert.ok(t.length >= first, `${what}: at least ${first}`);
        const slack = 0.05 * t.length;   // the record rounds each time to 0.1 ms
        if (t.length > first) assert.ok(took(t.slice(0, -1)) < ms + slack, `${what}: added only while under ${ms} ms`);
        if (t.length < most) assert.ok(took(t) >= ms - slack, `${what}: stopped only at ${ms} ms`);
      }
    }
    assert.ok(v.within_trial > 0 && v.between_trials >= 0, `${c.scenario}: a split (${JSON.stringify(v)})`);
  }
  const md = fs.readFileSync(path.join(out.dir, 'report.md'), 'utf8');
  assert.match(md, /spread trial \/ transfer/, 'report.md has the split');
  assert.match(md, /\| none#2 \/ none \| u8 \| [0-9.]+ \| \[[0-9.]+, [0-9.]+\] \| (ok \(spread|fails: )/, 'report.md has the A/A gate');
});

// One round asked for, so that the budget adds the second (the two rounds any
// budget runs, whatever it predicts) and a round after those is held to it;
// a short budget, as any that must stop a run whose target is out of reach
// holds the same (matrix.c's plan).
test('--budget with a target no run reaches spends the budget and says which cells fell short', { timeout: 120000 }, async () => {
  const out = h.tmpdir('cdpbench-budget-');
  const started = Date.now();
  const r = await cdpbench(['--scenarios', 'none,attach', '--bodies', 'u8', '--mib', '1',
    '--rounds', '1', '--warmup-rounds', '0', '--budget', '12s', '--target-ci', '0.001',
    '--measure-ms', '0', '--warmup-ms', '0', '--out', out.dir], 110000);
  const took = (Date.now() - started) / 1000;
  assert.equal(r.code, 0, `exit 0; stderr:\n${r.stderr.slice(-3000)}`);
  const rep = readReport(out.dir);
  assert.equal(rep.config.budget_seconds, 12, '12s is 12 s');
  assert.equal(rep.config.stopped_because, 'the budget was spent');
  assert.ok(took < 12 + 15, `the budget holds: ${took} s for 12 s`);
  assert.ok(rep.config.measured_rounds_run > 1, `rounds were added to --rounds 1 (${rep.config.measured_rounds_run})`);
  const attach = rep.cells.find((c) => c.scenario === 'attach');
  assert.equal(attach.precision.reached, false, 'attach did not reach +-0.1%');
  assert.ok(attach.precision.rounds_for_target > rep.config.measured_rounds_run, 'and would need more rounds');
  assert.match(r.stdout, /u8 +attach .*~/, 'the table marks it ~');
  assert.ok(rep.findings.some((f) => /^0 of 1 ratios have a CI within \+-0.1%/.test(f) && f.includes('the budget was spent')),
    `a finding says so: ${rep.findings.join(' | ')}`);
});
