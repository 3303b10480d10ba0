#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 8: `cdpbench audit` on the example Puppeteer rig, configured only
// through the environment (PUPPETEER_EXECUTABLE_PATH per arm), one round of
// three arms: passthrough and the postdata cap, each run passing, the cap
// faster than passthrough, the findings (maxPostDataSize, Fetch.enable *);
// and a policy that breaks the suite: its run failed, kept out of the
// figures, never a speed-up. The direct arm is 91's (the default arms by
// name, the environment each gets, no logs), with a shell for the suite:
// here it would only run the rig on plain Chromium. The cap's speed with a
// CI over rounds is 84's (the Playwright rig).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./lib/harness');
const { ALL, RIGS, audit, arm } = require('./lib/audit');

test('Puppeteer rig, configured only through the environment: direct, passthrough, cap, and a policy that breaks it', ALL, async (t) => {
  const dir = h.tmpdir('cdpproxy-audit-policy-');
  const breaks = path.join(dir.dir, 'breaks-evaluate.json');
  fs.writeFileSync(breaks, JSON.stringify({ rules: [{ method: 'Runtime.callFunctionOn', action: 'reject' }] }));
  const r = await audit(['--rounds', '1', '--warmup-rounds', '0', '--policies', `passthrough,network-postdata-cap,${breaks}`,
    '--', 'node', path.join(RIGS, 'puppeteer/rig.js')], { RIG_UPLOAD_MIB: '4' });
  assert.equal(r.code, 0, `audit exits 0; stderr:\n${r.stderr.slice(-3000)}`);
  assert.deepEqual(r.json.arms.map((a) => a.name), ['passthrough', 'network-postdata-cap', 'breaks-evaluate'], 'the arms');
  for (const a of r.json.arms.slice(0, 2)) assert.deepEqual(a.runs.filter((x) => !x.ok).map((x) => x.error), [], `${a.name}: every run passed`);
  const out = fs.readFileSync(arm(r.json, 'passthrough').runs[0].output, 'utf8');
  assert.match(out, /^ok: 3 uploads/m, `the rig ran through the wrapper: ${out.slice(-500)}`);
  const cap = arm(r.json, 'network-postdata-cap');
  t.diagnostic(`cap vs passthrough: ${JSON.stringify(cap.ratio_to_passthrough)}`);
  // One round: a cap made a passthrough reads about 1 either side, the cap
  // 0.34-0.45 (4 MiB uploads under load): so under 0.85, not just under 1.
  assert.ok(cap.ratio_to_passthrough.point < 0.85, `network-postdata-cap is faster than passthrough by 15% at least: ${JSON.stringify(cap.ratio_to_passthrough)}`);
  assert.ok(r.json.rig.enables['Network.enable {}'].by_type.page >= 2, 'Network.enable {} in its page sessions');
  assert.ok(r.json.rig.findings.some((f) => f.id === 'network-postdata'), 'the maxPostDataSize finding');
  assert.ok(r.json.rig.findings.some((f) => f.id === 'fetch-all'), 'request interception: Fetch.enable with *');

  const bad = arm(r.json, 'breaks-evaluate');
  assert.equal(bad.runs_ok, 0, 'the breaking policy: no run passed');
  assert.equal(bad.runs_failed, 1, 'its run failed');
  assert.ok(bad.runs.every((x) => /exit status 1/.test(x.error)), `with its exit status: ${bad.runs.map((x) => x.error)}`);
  assert.equal(bad.wall_seconds.point, null, 'no median from failed runs');
  assert.equal(bad.ratio.point, null, 'no ratio');
  assert.equal(bad.ratio_to_passthrough.point, null, 'nor against passthrough');
  assert.match(r.stdout, /breaks-evaluate: 1 run failed and is left out/, 'the summary says it failed');
  assert.doesNotMatch(r.stdout.split('\n').filter((l) => l.startsWith('breaks-evaluate')).join('\n'), /faster/, 'and never calls it faster');
  r.out.remove();
  dir.remove();
});
