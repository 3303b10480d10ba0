#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 4: cdpbench's verdicts end to end against the real Chromium: every
// ratio to none gets one word (slower, faster, no clear effect, inconclusive),
// the same in the table, report.md, report.html and report.json; the baseline
// and its A/A repeat get none; Network.enable on u8 (about 0.06-0.15x) reads
// slower. A small matrix, 4 rounds (the fewest a verdict needs) of 256 KiB:
// what is checked is the words' agreement, not a speed. (Network's u8 costs
// a third of a second a MiB, all CPU; at 256 KiB, load 18, it read 0.14x
// [0.11, 0.18] against an A/A band of x1.76: slower while the band stays
// under x5.) The warm-up and measured transfers still run to 150 and 300 ms:
// with one of each the A/A band widened past Network's ratio. The matrix is none,
// Network and none#2 (the A/A check that sets the band): 12 Chromium starts.
// An attach cell, whose word falls either way, is left to
// tests/unit/report_view_test.c, which renders a synthetic report's slower,
// no clear effect and inconclusive through the same renderers. About
// 30 s on a quiet machine; on a loaded one cdpbench is stopped (SIGINT)
// after 200 s, and the words of what finished must still agree.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const h = require('./lib/harness');

const { cdpbench } = require('./lib/cdpbench');
const WORDS = ['slower', 'faster', 'no clear effect', 'inconclusive'];

const escHtml = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
  .replace(/"/g, '&quot;').replace(/'/g, '&#39;');

test('one verdict per ratio, the same in the table, report.md, report.html and report.json', { timeout: 260000 }, async (t) => {
  const out = h.tmpdir('cdpbench-verdicts-');
  const started = Date.now();
  const r = await cdpbench(['--scenarios', 'none,Network,none', '--bodies', 'u8', '--rounds', '4',
    '--mib', '0.25', '--out', out.dir], 200000);
  t.diagnostic(`cdpbench took ${((Date.now() - started) / 1000).toFixed(1)} s`);
  assert.ok(r.code === 0 || r.code === 130, `exit 0 (or 130: stopped on a loaded machine); stderr:\n${r.stderr.slice(-3000)}`);

  const rep = JSON.parse(fs.readFileSync(path.join(out.dir, 'report.json'), 'utf8'));
  const md = fs.readFileSync(path.join(out.dir, 'report.md'), 'utf8');
  const html = fs.readFileSync(path.join(out.dir, 'report.html'), 'utf8');
  const lines = r.stdout.split('\n');
  assert.match(lines.find((l) => /^body +scenario/.test(l)) || '', /verdict$/, 'the table has a verdict column');

  for (const c of rep.cells) {
    const what = `${c.scenario}/${c.body}`;
    if (c.scenario === 'none' || c.scenario === 'none#2') {
      assert.equal(c.verdict, null, `${what}: no verdict (the baseline and its A/A repeat)`);
      continue;
    }
    assert.ok(c.verdict && WORDS.includes(c.verdict.verdict), `${what}: a verdict in report.json: ${JSON.stringify(c.verdict)}`);
    assert.ok(c.verdict.band >= 1.15, `${what}: its band is at least x1.15 (${c.verdict.band})`);
    const word = c.verdict.verdict;
    const row = lines.find((l) => new RegExp(`^${c.body} +${c.scenario} `).test(l));
    assert.ok(row && row.includes(word) && WORDS.filter((w) => w !== word).every((w) => !row.includes(w)),
      `${what}: the table says ${word}: ${row}`);
    const mdRow = md.split('\n').find((l) => l.startsWith(`| ${c.scenario} |`));
    assert.ok(mdRow && mdRow.includes(`| ${word} |`), `${what}: report.md says ${word}: ${mdRow}`);
    const htmlRow = html.split('\n').find((l) => l.startsWith(`<tr><td>${escHtml(c.scenario)}</td>`));
    assert.ok(htmlRow && htmlRow.includes(`<td>${escHtml(word)}</td>`), `${what}: report.html says ${word}: ${htmlRow}`);
  }
  const net = rep.cells.find((c) => c.scenario === 'Network');
  if (r.code === 130) {
    t.diagnostic(`stopped after ${rep.config.measured_rounds_run} rounds: Network's verdict (${net.verdict.verdict}) not held to slower`);
  } else assert.equal(net.verdict.verdict, 'slower',
    `Network.enable on u8 (${net.ratio_to_none}x ${JSON.stringify(net.ratio_ci)}) reads slower: ${net.verdict.why}`);
  for (const doc of [r.stdout, md, html]) {
    assert.match(doc, /no clear effect when the whole CI lies within x1\.15 of 1\.0/, 'the rule is stated');
  }
});
