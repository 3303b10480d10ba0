#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 0: the docs, without a browser. Every relative link in every *.md
// resolves to a file (and a #fragment to a heading of a Markdown file); each
// measured claim the docs once gave two values for has one value in all of
// them; every flag in a flag table is one its program's --help lists; the
// programs the README says `make` builds are those in build/.
// DOCS_PREMERGE=1: what other parts of the same change deliver (the manual
// pages, the schema, -h and -V) is reported as TODO instead of failing.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '../..');
const B = path.resolve(ROOT, process.env.B || 'build');
const PREMERGE = process.env.DOCS_PREMERGE === '1';
// Paths the docs link to that other files of the same change provide.
const EXPECTED = [
  'proxy/app/cdpproxy.1', 'proxy/app/cdpproxy-chromium.1', 'tools/cdpbench/cdpbench.1',
  'tools/cdplog/cdplog.1', 'proxy/obs/cdpproxy-log.5', 'policies/cdpproxy-policy.5',
  'policies/cdpproxy-policy.schema.json', 'tools/deb/README.md', 'LICENSE',
];
// The programs `make` builds into build/ (the Makefile's all: the two
// proxies and every tools/NAME.c or tools/NAME/ but common/).
const PROGRAMS = ['cdpproxy', 'cdpproxy-chromium', 'cdpbench', 'cdplog', 'uploadsink', 'cdp-echo', 'cdp-load', 'bench-scan'];

function docs() {
  const out = [];
  (function walk(dir) {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (['node_modules', 'build', '.git', 'report', 'audit'].includes(e.name)) continue;
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.md')) out.push(p);
    }
  })(ROOT);
  return out.sort();
}

// Markdown without its fenced blocks and code spans' contents kept apart.
function prose(text) {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

// GitHub's heading anchors: lower case, punctuation but - and _ dropped,
// spaces to -, repeats numbered.
function anchors(text) {
  const seen = new Map();
  const out = new Set();
  for (const m of prose(text).matchAll(/^#{1,6}\s+(.*?)\s*#*\s*$/gm)) {
    const base = m[1].toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(base) || 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

function todoOrFail(t, missing, what) {
  if (!missing.length) return;
  const pending = missing.filter((m) => m.pending);
  const real = missing.filter((m) => !m.pending);
  if (PREMERGE && pending.length) t.todo(`${what}, from other parts of the change: ${[...new Set(pending.map((m) => m.what.replace(/^[^ ]*\.md: /, '')))].join('; ')}`);
  assert.deepEqual((PREMERGE ? real : missing).map((m) => m.what), [], what);
}

test('every relative link in every *.md resolves (a #fragment to a heading)', () => {
  const missing = [];
  let n = 0;
  for (const file of docs()) {
    const text = fs.readFileSync(file, 'utf8');
    for (const m of prose(text).matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1];
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      n++;
      const [p, frag] = target.split('#');
      const abs = p ? path.resolve(path.dirname(file), p) : file;
      const rel = path.relative(ROOT, abs);
      const where = `${path.relative(ROOT, file)}: ${target}`;
      if (!fs.existsSync(abs)) { missing.push({ what: where, pending: EXPECTED.includes(rel) }); continue; }
      if (frag && abs.endsWith('.md') && !anchors(fs.readFileSync(abs, 'utf8')).has(frag)) missing.push({ what: `${where} (no such heading)` });
    }
  }
  assert.ok(n > 50, `links found: ${n}`);
  todoOrFail({ todo: (s) => console.log(`# TODO ${s}`) }, missing, 'links that resolve');
  for (const e of EXPECTED) {
    if (!fs.existsSync(path.join(ROOT, e))) {
      if (PREMERGE) console.log(`# TODO expected after the merge: ${e}`);
      else assert.fail(`expected path missing: ${e}`);
    }
  }
});

// Each claim: patterns that capture its value wherever the docs state it,
// in the words they used. CHANGELOG.md is left out: it records what earlier
// docs said, dated.
const CLAIMS = [
  { what: 'u8 upload under Network.enable, x of no debugger', one: true, re: [
    /\*\*(\d\.\d+)× \[[\d., ]+\]\*\* of its speed with no debugger/g,
    /Mbps with `Network\.enable`, (\d\.\d+)×/g,
    /against (\d\.\d+)× with a plain `Network\.enable`/g] },
  { what: 'u8 upload with no debugger, Mbps', re: [
    /(\d[\d,]*) Mbps without a debugger/g,
    /absolute Mbps drop \(`none` ([\d-]+)/g] },
  { what: 'Network.enable {maxPostDataSize: 65536}, x of no debugger', re: [
    /gets most of it back \((\d\.\d+)×/g,
    /`make report`: (\d\.\d+)× of no debugger/g] },
  { what: 'user CPU an answer at 20k/s, cdpproxy (us)', one: true, re: [
    /([\d.]+) us of user CPU an answer for cdpproxy/g,
    /cdpproxy ~([\d.]+)(?: us)? \(parsing/g] },
  { what: 'user CPU an answer at 20k/s, nginx (us)', one: true, re: [
    /against ~([\d.]+) us for nginx/g,
    /nginx (?:spends )?~([\d.]+)\s*us(?: an answer in user space|,)/g] },
  { what: 'memory bound: fixed overhead (MiB)', one: true, re: [
    /(\d+) MiB of fixed overhead/g,
    /within the (\d+) MiB plus one maximum message/g] },
];

test('each measured claim has one value across the docs', () => {
  const texts = docs().filter((f) => path.basename(f) !== 'CHANGELOG.md')
    .map((f) => [path.relative(ROOT, f), fs.readFileSync(f, 'utf8').replace(/\s+/g, ' ')]);
  const bad = [];
  for (const c of CLAIMS) {
    const found = [];
    for (const [f, text] of texts) for (const re of c.re) for (const m of text.matchAll(re)) found.push(`${m[1]} (${f})`);
    const values = [...new Set(found.map((x) => x.split(' ')[0]))];
    console.log(`# ${c.what}: ${found.join(', ') || 'not stated'}`);
    if (values.length > 1) bad.push(`${c.what}: one value, not ${found.join(', ')}`);
    if (c.one && !values.length) bad.push(`${c.what}: not stated`);
  }
  assert.deepEqual(bad, [], 'one value a claim');
});

test('what `make` builds, as the docs say it', () => {
  const built = fs.readdirSync(B).filter((n) => {
    const st = fs.statSync(path.join(B, n));
    return st.isFile() && (st.mode & 0o111) !== 0;
  }).sort();
  assert.deepEqual(built, [...PROGRAMS].sort(), `build/ holds exactly the programs (run make first): ${built}`);
  let said = 0;
  for (const f of docs().filter((x) => path.basename(x) !== 'CHANGELOG.md')) {
    const text = fs.readFileSync(f, 'utf8').replace(/\s+/g, ' ');
    for (const m of text.matchAll(/`make`(?: alone)? builds (?!each)([^.]*)\./g)) {
      said++;
      const named = [...m[1].matchAll(/`(?:build\/)?([a-z][a-z0-9.-]*)`/g)].map((x) => x[1]).filter((x) => !x.endsWith('.a') && x !== 'build');
      assert.deepEqual([...named].sort(), [...PROGRAMS].sort(), `${path.relative(ROOT, f)}: "${m[0]}"`);
    }
  }
  assert.ok(said >= 1, 'the README says what make builds');
});

// A flag table's program: the file and the nearest heading above it.
const TABLES = [
  { file: 'proxy/README.md', heading: /^## Flags/, prog: ['cdpproxy'] },
  { file: 'tools/cdpbench/README.md', heading: /^## The report/, prog: ['cdpbench'] },
  { file: 'tools/cdpbench/README.md', heading: /^## Auditing/, prog: ['cdpbench', 'audit'] },
  { file: 'tools/cdplog/README.md', heading: /^# cdplog/, prog: ['cdplog'] },
];

test('every flag in a flag table is one its program takes', (t) => {
  const pending = [];
  let rows = 0;
  for (const tb of TABLES) {
    const lines = fs.readFileSync(path.join(ROOT, tb.file), 'utf8').split('\n');
    const [bin, ...sub] = tb.prog;
    const help = spawnSync(path.join(B, bin), [...sub, '--help'], { encoding: 'utf8' });
    const text = help.stdout + help.stderr;
    let top = '';
    let inTable = false;
    for (const l of lines) {
      if (/^#{1,2} /.test(l)) top = l;
      if (/^\| flag \|/.test(l)) { inTable = tb.heading.test(top); continue; }
      if (!l.startsWith('|')) { inTable = false; continue; }
      if (!inTable || /^\|-/.test(l)) continue;
      const first = l.split('|')[1];
      for (const [flag] of first.matchAll(/--?[A-Za-z][a-z-]*/g)) {
        rows++;
        if (['-h', '-V', '--help', '--version'].includes(flag)) {
          const r = spawnSync(path.join(B, bin), [...sub, flag], { encoding: 'utf8' });
          if (r.status !== 0) pending.push({ what: `${tb.prog.join(' ')} ${flag}: exit ${r.status}`, pending: true });
          continue;
        }
        if (!new RegExp(`(^|[\\s,])${flag}([\\s=,[]|$)`, 'm').test(text)) pending.push({ what: `${tb.file}: ${tb.prog.join(' ')} ${flag} is not in its --help` });
      }
    }
  }
  assert.ok(rows > 40, `flags checked: ${rows}`);
  todoOrFail({ todo: (s) => console.log(`# TODO ${s}`) }, pending, 'flags the programs take');
  void t;
});
