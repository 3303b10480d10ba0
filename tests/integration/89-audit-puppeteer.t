#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 8: `cdpbench audit` on the example Puppeteer rig, configured only
// through the environment (PUPPETEER_EXECUTABLE_PATH per arm): the default
// arms direct, passthrough and the postdata cap, each run passing, the cap
// faster than passthrough, the findings (maxPostDataSize, Fetch.enable *).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./lib/harness');
const { ALL, RIGS, audit, arm } = require('./lib/audit');

test('Puppeteer rig, configured only through the environment: direct, passthrough, cap', ALL, async (t) => {
  const r = await audit(['--rounds', '2', '--warmup-rounds', '0', '--', 'node', path.join(RIGS, 'puppeteer/rig.js')],
    { RIG_UPLOAD_MIB: '8' });
  assert.equal(r.code, 0, `audit exits 0; stderr:\n${r.stderr.slice(-3000)}`);
  assert.deepEqual(r.json.arms.map((a) => a.name), ['direct', 'passthrough', 'network-postdata-cap'], 'the default arms');
  for (const a of r.json.arms) assert.deepEqual(a.runs.filter((x) => !x.ok).map((x) => x.error), [], `${a.name}: every run passed`);
  assert.ok(arm(r.json, 'direct').runs.every((x) => x.logs === null), 'direct: no proxy, so no logs');
  const out = fs.readFileSync(arm(r.json, 'direct').runs[0].output, 'utf8');
  assert.match(out, /^ok: 3 uploads/m, `the rig ran under direct: ${out.slice(-500)}`);
  const cap = arm(r.json, 'network-postdata-cap');
  t.diagnostic(`cap vs passthrough: ${JSON.stringify(cap.ratio_to_passthrough)}`);
  assert.ok(cap.ratio_to_passthrough.point < 1, 'network-postdata-cap is faster than passthrough');
  assert.ok(r.json.rig.enables['Network.enable {}'].by_type.page >= 2, 'Network.enable {} in its page sessions');
  assert.ok(r.json.rig.findings.some((f) => f.id === 'network-postdata'), 'the maxPostDataSize finding');
  assert.ok(r.json.rig.findings.some((f) => f.id === 'fetch-all'), 'request interception: Fetch.enable with *');
  r.out.remove();
});
