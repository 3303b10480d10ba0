#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 8: `cdpbench audit` on real suites: the example Playwright rig run by
// `npx playwright test` and the Puppeteer rig configured only through the
// environment, each under the wrapper per arm; a policy that breaks the suite
// (failed runs, not a speed-up); and `audit --log` on logs captured by
// `cdpproxy --log`, with and without Network (no false finding). Rounds are
// cut to 2 with no warm-up, the Playwright rig to its upload spec (3 tests), so
// the file stays near a minute and a half on a quiet 2-core machine.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');
const { test } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./lib/harness');
const wr = require('./lib/wrapper');

const ALL = { timeout: 240000 };
const CDPBENCH = path.resolve(path.dirname(h.PROXY_BIN), 'cdpbench');
const CLIENTS = path.join(h.ROOT, 'tests/clients');
const RIGS = path.join(h.ROOT, 'tests/rigs');

// Runs `cdpbench audit ARGS` from tests/clients (the rigs' node_modules);
// resolves {code, stdout, stderr, json (audit.json), out (its directory)}.
async function audit(args, env = {}) {
  const out = h.tmpdir('cdpproxy-audit-');
  const child = h.spawnTracked(CDPBENCH, ['audit', '--out', out.dir, ...args], {
    cwd: CLIENTS,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: wr.wrapperEnv({ NODE_PATH: path.join(CLIENTS, 'node_modules'), ...env }),
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d; });
  child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d; });
  const code = await new Promise((resolve) => child.on('exit', (c, s) => resolve(c === null ? s : c)));
  let json = null;
  try { json = JSON.parse(fs.readFileSync(path.join(out.dir, 'audit.json'), 'utf8')); } catch { /* asserted */ }
  return { code, stdout, stderr, json, out };
}

function arm(json, name) {
  return json.arms.find((a) => a.name === name);
}

// The wrappers of an audit's runs, from their log files' names
// (cdpproxy-chromium-PID.jsonl): none may be alive or leave a TMPDIR.
function wrappersOf(json) {
  const pids = [];
  for (const a of json.arms) {
    for (const run of a.runs) {
      if (!run.logs) continue;
      for (const f of fs.readdirSync(run.logs)) {
        const m = /cdpproxy-chromium-(\d+)\.jsonl$/.exec(f);
        if (m) pids.push(Number(m[1]));
      }
    }
  }
  return pids;
}

test('Playwright rig: `npx playwright test` per arm; the cap is faster, Network.enable {} per page session', ALL, async (t) => {
  const junit = path.join(h.tmpdir('cdpproxy-audit-junit-').dir, 'junit.xml');
  const r = await audit(['--rounds', '2', '--warmup-rounds', '0', '--policies', 'passthrough,network-postdata-cap',
    '--junit', junit, '--', 'npx', '--no-install', 'playwright', 'test', '--config', path.join(RIGS, 'playwright/playwright.config.js'), 'upload.spec.js'],
  { RIG_JUNIT: junit, RIG_UPLOAD_MIB: '4' });
  assert.equal(r.code, 0, `audit exits 0; stderr:\n${r.stderr.slice(-3000)}`);
  assert.ok(r.json, 'audit.json parses');
  for (const a of r.json.arms) {
    assert.equal(a.runs.length, 2, `${a.name}: two runs`);
    assert.deepEqual(a.runs.filter((x) => !x.ok).map((x) => x.error), [], `${a.name}: every run passed`);
    assert.ok(a.runs.every((x) => x.logs && fs.readdirSync(x.logs).some((f) => f.endsWith('.jsonl'))), `${a.name}: each run has its wrapper logs`);
  }
  const cap = arm(r.json, 'network-postdata-cap');
  t.diagnostic(`wall: passthrough ${arm(r.json, 'passthrough').wall_seconds.point} s, cap ${cap.wall_seconds.point} s, ratio ${cap.ratio.point} [${cap.ratio.lo}, ${cap.ratio.hi}]`);
  assert.ok(cap.ratio.point < 1 && cap.ratio_excludes_1, `network-postdata-cap is faster than passthrough: ${JSON.stringify(cap.ratio)}`);
  assert.match(r.stdout, /network-postdata-cap\s+2\/2 .* faster/, 'the summary says so');
  const enables = r.json.rig.enables['Network.enable {}'];
  assert.ok(enables && enables.by_type.page >= 3, `Network.enable {} listed per page session: ${JSON.stringify(enables)}`);
  const finding = r.json.rig.findings.find((f) => f.id === 'network-postdata');
  assert.ok(finding && /maxPostDataSize/.test(finding.title), `the finding names maxPostDataSize: ${JSON.stringify(r.json.rig.findings.map((f) => f.title))}`);
  assert.match(finding.remedy, /network-postdata-cap/, 'and the policy that removes it');
  assert.match(r.stdout, /Network\.enable \{\}\s+in \d+ sessions \(\d+ page/, 'the summary lists Network.enable {} by page session');
  assert.ok(r.json.tests.some((x) => /Uint8Array/.test(x.name)), `JUnit tests read: ${r.json.tests.map((x) => x.name)}`);
  const up = r.json.tests.find((x) => /uploads 4 MiB as Uint8Array/.test(x.name));
  assert.ok(up && up.arms[1].ratio.point < 1, `the Uint8Array upload test is faster under the cap: ${JSON.stringify(up && up.arms[1])}`);
  const html = fs.readFileSync(path.join(r.out.dir, 'audit.html'), 'utf8');
  assert.ok(html.includes('<svg') && html.includes('maxPostDataSize'), 'audit.html has its charts and the finding');
  assert.ok(!/(src|href)="(https?:)?\/\//.test(html), 'audit.html loads nothing from the network');
  assert.ok(fs.readFileSync(path.join(r.out.dir, 'audit.md'), 'utf8').includes('network-postdata-cap'), 'audit.md written');
  const wrappers = wrappersOf(r.json);
  assert.ok(wrappers.length >= 4, `two workers' wrappers per run: ${wrappers}`);
  assert.deepEqual(wrappers.filter(h.alive), [], 'no wrapper left running');
  assert.deepEqual(wrappers.flatMap(wr.tmpdirsOf), [], 'no wrapper left a temporary directory');
  r.out.remove();
});

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

test('a policy that breaks the suite: failed runs, kept out of the figures, never a speed-up', ALL, async () => {
  const dir = h.tmpdir('cdpproxy-audit-policy-');
  const breaks = path.join(dir.dir, 'breaks-evaluate.json');
  fs.writeFileSync(breaks, JSON.stringify({ rules: [{ method: 'Runtime.callFunctionOn', action: 'reject' }] }));
  const r = await audit(['--rounds', '2', '--warmup-rounds', '0', '--policies', `passthrough,${breaks}`, '--', 'node', path.join(RIGS, 'puppeteer/rig.js')],
    { RIG_UPLOAD_MIB: '1' });
  assert.equal(r.code, 0, `audit exits 0; stderr:\n${r.stderr.slice(-2000)}`);
  const bad = arm(r.json, 'breaks-evaluate');
  assert.equal(bad.runs_ok, 0, 'no run passed');
  assert.equal(bad.runs_failed, 2, 'two failed runs');
  assert.ok(bad.runs.every((x) => /exit status 1/.test(x.error)), `each with its exit status: ${bad.runs.map((x) => x.error)}`);
  assert.equal(bad.wall_seconds.point, null, 'no median from failed runs');
  assert.equal(bad.ratio.point, null, 'no ratio');
  assert.match(r.stdout, /breaks-evaluate: 2 runs failed and are left out/, 'the summary says they failed');
  assert.doesNotMatch(r.stdout.split('\n').filter((l) => l.startsWith('breaks-evaluate')).join('\n'), /faster/, 'and never calls it faster');
  assert.equal(arm(r.json, 'passthrough').runs_ok, 2, 'the other arm passed');
  r.out.remove();
  dir.remove();
});

test('the environment per arm, the process group stopped, and Ctrl-C reports the rounds that finished', ALL, async () => {
  const dir = h.tmpdir('cdpproxy-audit-int-');
  const pids = path.join(dir.dir, 'pids');
  const out = h.tmpdir('cdpproxy-audit-');
  // Each run leaves a `sleep 100` behind in its group and says what it was given.
  const script = `sleep 100 & echo $! >> ${pids}; echo "arm=$CDPBENCH_AUDIT_ARM browser=$CDPPROXY_BROWSER pptr=$PUPPETEER_EXECUTABLE_PATH policy=$CDPPROXY_POLICY log=$CDPPROXY_LOG"; sleep 1`;
  const child = h.spawnTracked(CDPBENCH, ['audit', '--out', out.dir, '--rounds', '3', '--warmup-rounds', '0',
    '--policies', 'direct,passthrough', '--', 'sh', '-c', script], { stdio: ['ignore', 'pipe', 'pipe'], env: wr.wrapperEnv() });
  let stderr = '';
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d; });
  child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d; });
  await h.waitFor(() => /\[3\/6\] round 2\/3\s+\S+: running/.test(stderr), { timeout: 60000, what: 'the third run' });
  // "running" is said before the shell runs: wait for it to have started its sleep (slow under ASan).
  await h.waitFor(() => fs.existsSync(pids) && fs.readFileSync(pids, 'utf8').trim().split('\n').length >= 3,
    { timeout: 30000, what: 'the third run\'s sleep' });
  child.kill('SIGINT');
  const code = await new Promise((resolve) => child.on('exit', (c, sig) => resolve(c === null ? sig : c)));
  assert.equal(code, 130, `exit status 130 after Ctrl-C; stderr:\n${stderr}`);
  assert.match(stderr, /interrupted; reporting the 1 rounds that finished/, 'it says so');
  const json = JSON.parse(fs.readFileSync(path.join(out.dir, 'audit.json'), 'utf8'));
  assert.equal(json.interrupted, true, 'audit.json: interrupted');
  assert.equal(json.config.rounds_run, 1, 'one whole round reported');
  assert.deepEqual(json.arms.map((a) => a.runs.length), [1, 1], 'one run per arm');
  assert.match(stdout, /1 measured round/, 'the summary is printed');
  const left = fs.readFileSync(pids, 'utf8').trim().split('\n').map(Number);
  assert.equal(left.length, 3, 'three runs started');
  assert.deepEqual(await wr.goneWithin(left, 5000), [], 'what each run left in its group is stopped, the interrupted one too');
  const direct = fs.readFileSync(json.arms[0].runs[0].output, 'utf8');
  const pass = fs.readFileSync(json.arms[1].runs[0].output, 'utf8');
  assert.match(direct, new RegExp(`arm=direct browser=${json.environment.chromium_path} pptr=${json.environment.chromium_path} policy= log=$`, 'm'), `direct: the real browser, no proxy: ${direct}`);
  assert.match(pass, new RegExp(`arm=passthrough browser=${h.WRAPPER_BIN} pptr=${h.WRAPPER_BIN} policy=/\\S+/passthrough.json log=${json.arms[1].runs[0].logs}$`, 'm'),
    `passthrough: the wrapper by its absolute path, the policy, a log directory of the run: ${pass}`);
  out.remove();
  dir.remove();
});

// Issue 27 #4: a JUnit file with a DOCTYPE ("billion laughs") is refused at
// once, in bounded time; the runs still count and the summary and audit.md
// say why their tests are missing. No browser: the command only writes it.
test('a hostile JUnit file: refused, named with the reason, the audit still reports', ALL, async () => {
  const dir = h.tmpdir('cdpproxy-audit-lol-');
  const junit = path.join(dir.dir, 'junit.xml');
  const lol = path.join(dir.dir, 'lol.xml');
  let dtd = '<!ENTITY l0 "lol">';
  for (let i = 1; i <= 9; i++) dtd += `<!ENTITY l${i} "${`&l${i - 1};`.repeat(10)}">`;
  fs.writeFileSync(lol, `<?xml version="1.0"?><!DOCTYPE t [${dtd}]><testsuite><testcase name="&l9;"/></testsuite>`);
  const r = await audit(['--rounds', '2', '--warmup-rounds', '0', '--junit', junit, '--', 'cp', lol, junit]);
  assert.equal(r.code, 0, `audit exits 0; stderr:\n${r.stderr.slice(-3000)}`);
  const runs = r.json.arms.flatMap((a) => a.runs);
  assert.equal(runs.length, 2 * r.json.arms.length, 'every run ran');
  assert.ok(runs.every((x) => x.ok && /--junit: .*junit\.xml has a DOCTYPE: refused/.test(x.error)), `each run passed, with the refusal: ${runs.map((x) => x.error)}`);
  assert.deepEqual(r.json.tests, [], 'no tests from it');
  assert.match(r.stdout, /\d+ passing runs without test figures \(see audit\.md\); the first: --junit: \S+junit\.xml has a DOCTYPE/, 'the summary says why');
  const md = fs.readFileSync(path.join(r.out.dir, 'audit.md'), 'utf8');
  assert.match(md, /- round 0, \S+: --junit: \S+junit\.xml has a DOCTYPE: refused/, 'audit.md lists the runs');
  r.out.remove();
  dir.remove();
});

// `audit --log` on logs of cdpproxy --log --log-bodies: a Playwright page
// (Network.enable {}), and a raw client enabling only Page and Runtime.
async function capture(drive) {
  const env = await h.setup({ proxyArgs: ['--log-bodies=65536'] });
  try {
    await drive(env);
  } finally {
    await env.stopProxy();
  }
  const copy = path.join(h.tmpdir('cdpproxy-audit-log-').dir, 'rig.jsonl');
  fs.copyFileSync(env.proxy.logPath, copy);
  await env.teardown();
  return copy;
}

function auditLog(file) {
  const r = spawnSync(CDPBENCH, ['audit', '--log', file], { encoding: 'utf8', timeout: 30000 });
  assert.equal(r.status, 0, `audit --log exits 0: ${r.stderr}`);
  return r.stdout;
}

test('audit --log on a cdpproxy --log of Playwright: the finding, and nothing is run', { ...ALL, skip: h.DIRECT && 'CDPPROXY_DIRECT=1' }, async () => {
  const log = await capture(async (env) => {
    const { chromium } = h.client('playwright-core');
    const browser = await chromium.connectOverCDP(env.endpoint, { timeout: 15000 });
    const page = await browser.contexts()[0].newPage();
    await page.goto(env.server.url);
    await browser.close();
  });
  const out = auditLog(log);
  assert.match(out, /Network\.enable \{\}\s+in \d+ sessions? \(\d+ page/, `Network.enable {} per page session:\n${out}`);
  assert.match(out, /Network\.enable without maxPostDataSize/, 'the finding');
  assert.match(out, /network-postdata-cap/, 'with its policy');
});

test('audit --log on a log with no Network at all: no false finding', { ...ALL, skip: h.DIRECT && 'CDPPROXY_DIRECT=1' }, async () => {
  const log = await capture(async (env) => {
    const targets = await h.getJSON(`${env.endpoint}/json/list`);
    const page = targets.find((x) => x.type === 'page');
    const cdp = await h.RawCDP.connect(page.webSocketDebuggerUrl);
    await cdp.call('Page.enable');
    await cdp.call('Runtime.enable');
    await cdp.call('Runtime.evaluate', { expression: 'console.log("hi"), 1 + 1' });
    cdp.close();
  });
  const records = h.readLog(log);
  assert.ok(records.some((x) => x.method === 'Page.enable') && !records.some((x) => /^Network\./.test(x.method || '')), 'the log has Page and no Network');
  const out = auditLog(log);
  assert.match(out, /Page\.enable \{\}/, `the enables are listed:\n${out}`);
  assert.match(out, /none of the known-costly patterns/, 'and no finding');
  assert.doesNotMatch(out, /maxPostDataSize/, 'maxPostDataSize is not mentioned');
});
