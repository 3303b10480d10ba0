#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 0: one command-line convention and the manual pages. Every program
// `make all` builds (`make print-programs`) answers -h, --help, -V and
// --version (exit 0; the version line is "NAME VERSION", the version built,
// build/version); a bad flag is one line on stderr and exit 2; a missing
// argument says so. cdpproxy-chromium passes --help and --version on to the
// browser and has --cdpproxy-help and --cdpproxy-version of its own. Every
// page under proxy/, tools/ and policies/ is clean for `mandoc -Tlint` and
// `man --warnings`, and lexgrog finds its NAME; a program's page lists the
// flags its --help lists, no more, no fewer; the log page has one real
// record of each kind the proxy writes. No browser.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const h = require('./lib/harness');

const ROOT = path.resolve(__dirname, '../..');
const B = path.dirname(h.PROXY_BIN);

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 20000, ...opts });
  assert.equal(r.error, undefined, `${cmd} ${args.join(' ')} ran: ${r.error}`);
  return r;
}

// Run from a recipe, the outer make's flags are not for this one.
function make(target) {
  const env = { ...process.env };
  for (const k of ['MAKEFLAGS', 'MFLAGS', 'MAKELEVEL']) delete env[k];
  const r = run('make', ['-s', '--no-print-directory', target], { cwd: ROOT, env });
  assert.equal(r.status, 0, `make ${target}: ${r.stderr}`);
  return r.stdout.trim();
}

const programs = make('print-programs').split(/\s+/);
const version = fs.readFileSync(path.join(B, 'version'), 'utf8').trim();

// What a program is asked as: cdpbench's audit is a program of its own here.
// The wrapper's own switches are prefixed: the plain ones are Chromium's.
const cases = programs.flatMap((p) => (p === 'cdpbench'
  ? [{ name: p, bin: p, pre: [] }, { name: 'cdpbench audit', bin: p, pre: ['audit'] }]
  : [{ name: p, bin: p, pre: [] }]));
const own = (c) => (c.bin === 'cdpproxy-chromium'
  ? { help: ['--cdpproxy-help'], version: ['--cdpproxy-version'], bad: '--cdpproxy-no-such-flag',
      see: '--cdpproxy-help' }
  : { help: ['-h', '--help'], version: ['-V', '--version'], bad: '--no-such-flag', see: '--help' });

function prog(c, args, opts) {
  return run(path.join(B, c.bin), [...c.pre, ...args], opts);
}

test('make print-programs names every program, built', () => {
  assert.ok(programs.length >= 8, `programs: ${programs.join(' ')}`);
  for (const p of ['cdpproxy', 'cdpproxy-chromium', 'cdpbench', 'cdplog']) assert.ok(programs.includes(p), p);
  for (const p of programs) assert.ok(fs.existsSync(path.join(B, p)), `${B}/${p} built`);
  assert.match(version, /^\S+$/, `build/version: '${version}'`);
});

for (const c of cases) {
  test(`${c.name}: help and version, exit 0`, () => {
    const o = own(c);
    for (const a of o.help) {
      const r = prog(c, [a]);
      assert.equal(r.status, 0, `${a}: exit 0 (${r.stderr})`);
      assert.match(r.stdout, new RegExp(`^usage: ${c.name} `), `${a}: the usage on stdout`);
      assert.equal(r.stderr, '', `${a}: nothing on stderr`);
    }
    // cdpbench audit is cdpbench's: its version line names the program.
    for (const a of o.version) {
      const r = prog(c, [a]);
      assert.equal(r.status, 0, `${a}: exit 0 (${r.stderr})`);
      assert.equal(r.stdout, `${c.bin} ${version}\n`, `${a}: one line, "${c.bin} ${version}"`);
      assert.equal(r.stderr, '', `${a}: nothing on stderr`);
    }
  });

  test(`${c.name}: a bad flag is one line on stderr, exit 2`, () => {
    const o = own(c);
    const bad = [[o.bad, `unknown option '${o.bad}'`]];
    if (c.bin !== 'cdpproxy-chromium') bad.push([`${o.bad}=1`, `unknown option '${o.bad}'`], ['-Z', "unknown option '-Z'"]);
    for (const [a, what] of bad) {
      const r = prog(c, [a]);
      assert.equal(r.status, 2, `${a}: exit 2 (${r.stderr})`);
      assert.equal(r.stdout, '', `${a}: nothing on stdout`);
      assert.equal(r.stderr, `${c.name}: ${what} (see ${o.see})\n`, `${a}: one line`);
    }
  });

  // The first flag --help shows with an argument ("--listen HOST:PORT").
  test(`${c.name}: a missing argument says so, exit 2`, (t) => {
    const help = prog(c, own(c).help.slice(-1)).stdout;
    const m = /^\s+(--[a-z][a-z0-9-]*) [A-Z]/m.exec(help);
    if (!m) return t.skip('no flag with an argument');
    const r = prog(c, [m[1]]);
    assert.equal(r.status, 2, `${m[1]}: exit 2 (${r.stderr})`);
    assert.equal(r.stderr, `${c.name}: '${m[1]}' needs an argument (see --help)\n`);
    const n = prog(c, [`${own(c).help.slice(-1)[0]}=x`]);
    assert.equal(n.status, 2, '--help=x: exit 2');
    assert.equal(n.stderr, `${c.name}: '--help' takes no argument (see --help)\n`);
  });
}

test('cdp-load: a whole-number flag that is not one is refused with the flag, exit 2', () => {
  const int = 'from 1 to 2147483647';
  const n = 'of at least 0';
  for (const [flag, val, want] of [['--connections', 'x', int], ['--in-flight', '0', int],
    ['--count', '-1', n], ['--flood', '3x', n], ['--seed', '', n]]) {
    const r = run(path.join(B, 'cdp-load'), [flag, val, 'ws://127.0.0.1:9/']);
    assert.equal(r.status, 2, `${flag} ${val}: exit 2 (${r.stderr})`);
    assert.equal(r.stderr, `cdp-load: ${flag} wants a number ${want}, not '${val}'\n`);
  }
});

test('cdpproxy-chromium: --help and --version are the browser\'s', () => {
  const dir = h.tmpdir('cdpproxy-cli-');
  try {
    const fake = path.join(dir.dir, 'chromium');
    fs.writeFileSync(fake, '#!/bin/sh\necho "fake chromium $*"\n', { mode: 0o755 });
    const env = { ...process.env, CDPPROXY_CHROMIUM: fake };
    for (const a of ['--help', '-h', '--version', '-V', '--cdpproxy-nothing-after', '--']) {
      const args = a === '--' ? ['--', '--cdpproxy-help'] : [a];
      const r = run(h.WRAPPER_BIN, args, { env });
      if (a === '--cdpproxy-nothing-after') {
        assert.equal(r.status, 2, 'an unknown --cdpproxy- switch is the wrapper\'s, refused');
        continue;
      }
      assert.equal(r.status, 0, `${args.join(' ')}: exit 0 (${r.stderr})`);
      assert.equal(r.stdout, `fake chromium ${args.join(' ')}\n`, `${args.join(' ')}: passed to the browser as given`);
    }
  } finally {
    dir.remove();
  }
});

// --- the manual pages --------------------------------------------------------

const pages = run('find', ['proxy', 'tools', 'policies', '-name', '*.[15]', '-type', 'f'], { cwd: ROOT })
  .stdout.split('\n').filter(Boolean).sort();
const pageNames = new Set(pages.map((p) => path.basename(p)));

test('every program has a page beside its source', () => {
  for (const p of programs) assert.ok(pageNames.has(`${p}.1`), `${p}.1 under proxy/ or tools/`);
  assert.ok(pageNames.has('cdpproxy-log.5'), 'cdpproxy-log.5');
});

for (const page of pages) {
  test(`${page}: mandoc -Tlint, man --warnings, lexgrog`, () => {
    const file = path.join(ROOT, page);
    const lint = run('mandoc', ['-Tlint', file]);
    // A page of this tree is not installed: mandoc cannot know it exists.
    const left = (lint.stdout + lint.stderr).split('\n').filter(Boolean).filter((l) => {
      const m = /referenced manual not found: Xr (\S+) (\S+)/.exec(l);
      if (m) return !pageNames.has(`${m[1]}.${m[2]}`);
      return !/outdated mandoc\.db lacks/.test(l);
    });
    assert.deepEqual(left, [], `mandoc -Tlint ${page}`);
    assert.ok(lint.status <= 1, `mandoc -Tlint: status ${lint.status}`);
    const man = run('man', ['--warnings', '-l', file], { env: { ...process.env, MANPAGER: 'cat', PAGER: 'cat', MANWIDTH: '80' } });
    assert.equal(man.status, 0, `man -l ${page}`);
    assert.equal(man.stderr, '', `man --warnings -l ${page}: no warnings`);
    const lg = run('lexgrog', [file]);
    const name = path.basename(page).replace(/\.[0-9]$/, '');
    assert.equal(lg.status, 0, `lexgrog ${page}: ${lg.stdout}`);
    assert.match(lg.stdout, new RegExp(`: "${name.replace(/[.+]/g, '\\$&')} - \\S`), `lexgrog finds NAME ${name} - ...`);
  });
}

// Flags as --help shows them ("--listen", "-h"), and as the page marks them
// (.Fl Fl listen, .Fl h); a macro after Fl (.Fl Fl Ar x) is not a flag.
function helpFlags(text) {
  return new Set([...text.matchAll(/(?<![\w-])(--[a-z][a-z0-9-]*[a-z0-9]|-[a-zA-Z])(?![\w-])/g)].map((m) => m[1]));
}
function pageFlags(src) {
  const flags = new Set();
  for (const line of src.split('\n')) {
    if (line.startsWith('.\\"')) continue;
    for (const m of line.matchAll(/\bFl( Fl)? ([A-Za-z0-9][\w-]*)/g)) {
      if (/^[A-Z][a-z]$/.test(m[2])) continue;
      flags.add(`${m[1] ? '--' : '-'}${m[2]}`);
    }
  }
  return flags;
}

for (const p of programs) {
  test(`${p}.1 lists the flags --help lists, and only those`, () => {
    const page = pages.find((f) => path.basename(f) === `${p}.1`);
    assert.ok(page, `${p}.1 exists`);
    const c = { bin: p, pre: [] };
    let help = prog(c, own(c).help.slice(-1)).stdout;
    if (p === 'cdpbench') help += prog({ bin: p, pre: ['audit'] }, ['--help']).stdout;
    const inHelp = helpFlags(help);
    const inPage = pageFlags(fs.readFileSync(path.join(ROOT, page), 'utf8'));
    assert.deepEqual([...inHelp].filter((f) => !inPage.has(f)).sort(), [], `in ${p} --help, not in ${page}`);
    assert.deepEqual([...inPage].filter((f) => !inHelp.has(f)).sort(), [], `in ${page}, not in ${p} --help`);
  });
}

// The kinds the proxy writes, read from its source: log_event("KIND") and
// the message kinds (route.c's kind_names and its binary and invalid).
test('cdpproxy-log.5: one real record of each kind the proxy writes', () => {
  const kinds = new Set();
  const files = run('find', ['proxy', '-name', '*.c'], { cwd: ROOT }).stdout.split('\n').filter(Boolean);
  for (const f of files) {
    const src = fs.readFileSync(path.join(ROOT, f), 'utf8');
    for (const m of src.matchAll(/\blog_event(?:_at)?\(([^;]*?)"([a-z_]+)"/g)) kinds.add(m[2]);
    const names = /kind_names\[\]\s*=\s*\{([^}]*)\}/.exec(src);
    if (names) for (const m of names[1].matchAll(/"([a-z_]+)"/g)) kinds.add(m[1]);
    for (const m of src.matchAll(/\brec\.kind\s*=([^;]*);/g)) for (const k of m[1].matchAll(/"([a-z_]+)"/g)) kinds.add(k[1]);
  }
  assert.ok(kinds.size >= 12, `kinds found in proxy/: ${[...kinds].join(' ')}`);
  const page = fs.readFileSync(path.join(ROOT, 'proxy/obs/cdpproxy-log.5'), 'utf8');
  const samples = page.split('\n').filter((l) => l.startsWith('{"t":')).map((l) => JSON.parse(l.replace(/\\e/g, '\\')));
  const seen = new Map();
  for (const r of samples) {
    for (const k of ['t', 'gen', 'conn', 'kind']) assert.ok(k in r, `${JSON.stringify(r)} has ${k}`);
    seen.set(r.kind, (seen.get(r.kind) || 0) + 1);
  }
  for (const k of kinds) assert.equal(seen.get(k), 1, `one sample of kind ${k}`);
  for (const k of seen.keys()) assert.ok(kinds.has(k), `sample kind ${k} is one the proxy writes`);
});
