#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 8: `cdpbench audit` when things go wrong, with no browser (the
// command is a shell or cp): the environment each arm gives its command and
// Ctrl-C in the middle (the rounds that finished are reported, each run's
// process group stopped), and a hostile JUnit file (refused, the audit still
// reports, with the default arms). A policy that breaks a real suite is an
// arm of 89's audit of the Puppeteer rig, which runs that rig anyway.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./lib/harness');
const wr = require('./lib/wrapper');
const { ALL, CDPBENCH, audit } = require('./lib/audit');

test('the environment per arm, the process group stopped, and Ctrl-C reports the rounds that finished', ALL, async () => {
  const dir = h.tmpdir('cdpproxy-audit-int-');
  const pids = path.join(dir.dir, 'pids');
  const out = h.tmpdir('cdpproxy-audit-');
  // Each run leaves a `sleep 100` behind in its group and says what it was
  // given; the first two end at once, the third waits for the Ctrl-C.
  const script = `sleep 100 & echo $! >> ${pids}; echo "arm=$CDPBENCH_AUDIT_ARM browser=$CDPPROXY_BROWSER pptr=$PUPPETEER_EXECUTABLE_PATH policy=$CDPPROXY_POLICY log=$CDPPROXY_LOG"; [ $(wc -l < ${pids}) -lt 3 ] || sleep 60`;
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
  assert.equal(json.arms[0].runs[0].logs, null, 'direct: no proxy, so no logs in audit.json');
  assert.match(pass, new RegExp(`arm=passthrough browser=${h.WRAPPER_BIN} pptr=${h.WRAPPER_BIN} policy=/\\S+/passthrough.json log=${json.arms[1].runs[0].logs}$`, 'm'),
    `passthrough: the wrapper by its absolute path, the policy, a log directory of the run: ${pass}`);
  out.remove();
  dir.remove();
});

// Issue 30: NAME:nolog is the policy with no log, the proxy's own cost
// without the log's; direct:nolog means nothing and is refused.
test('an arm NAME:nolog runs the policy with no CDPPROXY_LOG; direct:nolog is refused', ALL, async () => {
  const script = 'echo "arm=$CDPBENCH_AUDIT_ARM policy=$CDPPROXY_POLICY log=${CDPPROXY_LOG-unset} bodies=${CDPPROXY_LOG_BODIES-unset}"';
  const r = await audit(['--rounds', '1', '--warmup-rounds', '0', '--policies', 'direct,passthrough:nolog,passthrough', '--', 'sh', '-c', script]);
  assert.equal(r.code, 0, `audit exits 0; stderr:\n${r.stderr.slice(-3000)}`);
  assert.deepEqual(r.json.arms.map((a) => a.name), ['direct', 'passthrough:nolog', 'passthrough'], 'the arms, named');
  const [, nolog, pass] = r.json.arms;
  assert.equal(nolog.policy, pass.policy, 'the same policy file');
  assert.equal(nolog.runs[0].logs, null, 'no log directory for the nolog arm');
  assert.match(fs.readFileSync(nolog.runs[0].output, 'utf8'), /^arm=passthrough:nolog policy=\/\S+\/passthrough\.json log=unset bodies=unset$/m, 'no log asked of the wrapper');
  assert.match(fs.readFileSync(pass.runs[0].output, 'utf8'), new RegExp(`^arm=passthrough policy=\\S+ log=${pass.runs[0].logs} bodies=16KiB$`, 'm'), 'the logged arm still logs');
  r.out.remove();
  const bad = await audit(['--policies', 'direct:nolog,passthrough', '--', 'true']);
  assert.equal(bad.code, 2, `direct:nolog refused with status 2; stderr: ${bad.stderr}`);
  assert.match(bad.stderr, /--policies: direct:nolog: direct runs no proxy/, 'and says why');
  bad.out.remove();
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
  assert.deepEqual(r.json.arms.map((a) => a.name), ['direct', 'passthrough', 'network-postdata-cap'], 'the default arms');
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
