#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 4: cdpbench --budget against the real Chromium, when the budget binds:
// a target no run reaches runs until the budget is spent, and the budget
// holds. This counts the rounds that fit in a time budget, so this file runs
// alone (see lib/testrules.yml); the budget that stops at the target is
// 43's, which runs beside the others; the rest of cdpbench's tests are 41. Each
// trial starts a Chromium: this run has the fewest that show a budget adding
// rounds and then stopping.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./lib/harness');
const { cdpbench, readReport } = require('./lib/cdpbench');

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
