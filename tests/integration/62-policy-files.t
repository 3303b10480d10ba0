#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 6: policy files on the command line. --check-policy accepts every
// shipped policy and refuses bad ones (exit 2, "FILE: $.json.path: reason" on
// stderr); it warns (exit 0; 2 with --strict) on names and parameters the
// protocol does not have, and on values of the wrong JSON type; the schema
// policies/cdpproxy-policy.schema.json (checked with Debian's
// python3-jsonschema) accepts what policy.c accepts and refuses what it
// refuses; --policy BAD --launch exits 2 before anything starts (no Chromium
// ever runs); with a good policy --launch starts, and a bad PUT /proxy/policy
// is answered 400 while the running policy stays. A policy given by name
// (--policy, --check-policy, CDPPROXY_POLICY) is found as PUT {"name"}
// finds it.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const h = require('./lib/harness');
const wr = require('./lib/wrapper');

const ALL = { timeout: 50000, skip: h.DIRECT && 'CDPPROXY_DIRECT=1: these test the proxy binary' };
const POLICY_DIR = path.join(h.ROOT, 'policies');
const SCHEMA = path.join(POLICY_DIR, 'cdpproxy-policy.schema.json');
// The shipped policies: every .json of policies/ but the schema.
const shippedPolicies = () => fs.readdirSync(POLICY_DIR).filter((f) => f.endsWith('.json') && !f.endsWith('.schema.json')).sort();
const reEscape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

let tmp;

// Runs the proxy to completion (it must exit by itself within `timeout`);
// kills it by PID otherwise. Resolves {code, signal, stdout, stderr, timedOut}.
function runProxy(args, timeout = 10000, opts = {}) {
  return new Promise((resolve) => {
    const child = h.spawnTracked(h.PROXY_BIN, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    let timedOut = false;
    const timer = setTimeout(() => { timedOut = true; child.kill('SIGTERM'); setTimeout(() => child.kill('SIGKILL'), 5000).unref(); }, timeout);
    child.on('close', (code, signal) => { clearTimeout(timer); resolve({ code, signal, stdout, stderr, timedOut, pid: child.pid }); });
  });
}

// PIDs of live processes whose command line contains s, by pgrep -f.
function pgrep(s) {
  try {
    return execFileSync('pgrep', ['-f', '--', s], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number)
      .filter((p) => p !== process.pid && h.alive(p));
  } catch (e) {
    if (e.status === 1) return [];  // none
    throw e;
  }
}

test('set up a scratch directory and a Chromium launcher that leaves a trace', ALL, async () => {
  tmp = h.tmpdir('cdpproxy-policy-files-');
  tmp.launcher = path.join(tmp.dir, 'chromium-traced');
  tmp.trace = path.join(tmp.dir, 'launched');
  fs.writeFileSync(tmp.launcher, `#!/bin/sh\necho "$$" >> '${tmp.trace}'\nexec '${h.CHROMIUM}' "$@"\n`, { mode: 0o755 });
});

test('--check-policy accepts every shipped policy (exit 0, no warning, also with --strict)', ALL, async () => {
  const files = shippedPolicies();
  for (const must of ['passthrough', 'no-network', 'network-postdata-cap', 'force-network', 'quiet-events']) {
    assert.ok(files.includes(`${must}.json`), `policies/${must}.json is shipped`);
  }
  for (const f of files) {
    const file = path.join(POLICY_DIR, f);
    const r = await runProxy(['--check-policy', file]);
    assert.equal(r.code, 0, `--check-policy ${f}: exit 0 (stderr: ${r.stderr})`);
    assert.equal(r.stderr, '', `${f}: nothing on stderr`);
    const name = JSON.parse(fs.readFileSync(file, 'utf8')).name || path.basename(f, '.json');
    assert.match(r.stdout, new RegExp(`^${reEscape(file)}: policy ${reEscape(name)}, \\d+ rules, \\d+ injects: ok\\n$`),
      `${f}: one line saying it is ok`);
    const strict = await runProxy(['--check-policy', file, '--strict']);
    assert.deepEqual([strict.code, strict.stderr], [0, ''], `${f}: clean under --strict too`);
  }
});

// [file name, content, the JSON path and reason stderr must give after "FILE: "]
const BAD = [
  ['invalid-json.json', '{"rules": [\n  {"method": "Network.enable", "action": "stub"}\n', /^line \d+ column \d+: .+/],
  ['trailing-garbage.json', '{"rules": []} x', /^line 1 column \d+: .+/],
  ['duplicate-key.json', '{"rules": [], "rules": []}', /^line 1 column \d+: duplicate object key/],
  ['not-an-object.json', [], /^\$: a policy must be an object, not an array$/],
  ['unknown-action.json', { rules: [{ method: 'Network.enable', action: 'explode' }] },
    /^\$\.rules\[0\]\.action: unknown action 'explode' \(expected pass, stub, reject, rewrite, drop or delay\)$/],
  ['missing-action.json', { rules: [{ method: 'Network.enable' }] }, /^\$\.rules\[0\]\.action: missing/],
  ['bad-glob.json', { rules: [{ method: 'Network.enable', action: 'pass' }, { method: 'Net[', action: 'stub' }] },
    /^\$\.rules\[1\]\.method: bad glob 'Net\[': only \* and \? are special/],
  ['bad-url-glob.json', { rules: [{ method: 'Page.*', url: 'http://x/{a,b}', action: 'pass' }] }, /^\$\.rules\[0\]\.url: bad glob 'http:\/\/x\/\{a,b\}'/],
  ['missing-method.json', { rules: [{ action: 'stub' }] }, /^\$\.rules\[0\]\.method: missing/],
  ['ms-string.json', { rules: [{ method: 'Runtime.evaluate', action: 'delay', ms: '100' }] },
    /^\$\.rules\[0\]\.ms: delay needs milliseconds, an integer from 0 to 600000, not a string$/],
  ['ms-too-big.json', { rules: [{ method: 'Runtime.evaluate', action: 'delay', ms: 600001 }] }, /^\$\.rules\[0\]\.ms: delay needs milliseconds/],
  ['code-string.json', { rules: [{ method: 'X.y', action: 'reject', code: '1' }] },
    /^\$\.rules\[0\]\.code: must be an integer, not a string$/],
  ['log-string.json', { rules: [{ method: 'X.y', action: 'pass', log: 'no' }] }, /^\$\.rules\[0\]\.log: must be true or false, not a string$/],
  ['target-number.json', { rules: [{ method: 'X.y', action: 'pass', target: 5 }] }, /^\$\.rules\[0\]\.target: must be a string, not an integer$/],
  ['rules-object.json', { rules: {} }, /^\$\.rules: must be an array of rules, not an object$/],
  ['unknown-key.json', { rules: [{ method: 'X.y', action: 'pass', mehtod: 'X.z' }] }, /^\$\.rules\[0\]: unknown key 'mehtod'$/],
  ['unknown-top-key.json', { rule: [] }, /^\$: unknown key 'rule'$/],
  ['drop-command.json', { rules: [{ method: 'Network.enable', kind: 'command', action: 'drop' }] },
    /^\$\.rules\[0\]\.kind: drop applies to events only/],
  ['stub-event.json', { rules: [{ method: 'Network.requestWillBeSent', kind: 'event', action: 'stub' }] },
    /^\$\.rules\[0\]\.kind: stub applies to commands only$/],
  ['bad-kind.json', { rules: [{ method: 'X.y', kind: 'request', action: 'pass' }] }, /^\$\.rules\[0\]\.kind: must be "command", "event", "response"/],
  ['rewrite-nothing.json', { rules: [{ method: 'Network.enable', action: 'rewrite' }] }, /^\$\.rules\[0\]: rewrite needs "params" to merge or "remove"$/],
  ['stub-result-array.json', { rules: [{ method: 'X.y', action: 'stub', result: [1] }] }, /^\$\.rules\[0\]\.result: must be an object, not an array$/],
  ['inject-bad-method.json', { inject: [{ target: 'page', commands: [{ method: 'Networkenable' }] }] },
    /^\$\.inject\[0\]\.commands\[0\]: must be \{"method": "Domain\.command", "params": \{\.\.\.\}\}$/],
  ['inject-params-array.json', { inject: [{ commands: [{ method: 'Network.enable', params: [] }] }] },
    /^\$\.inject\[0\]\.commands\[0\]: "params" must be an object, not an array$/],
];

test('--check-policy refuses bad files: exit 2, "FILE: $.path: reason" on stderr', ALL, async () => {
  for (const [name, content, reason] of BAD) {
    const file = path.join(tmp.dir, name);
    fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
    const r = await runProxy(['--check-policy', file]);
    assert.equal(r.code, 2, `${name}: exit 2 (stdout ${JSON.stringify(r.stdout)}, stderr ${JSON.stringify(r.stderr)})`);
    assert.equal(r.stdout, '', `${name}: nothing on stdout`);
    const lines = r.stderr.split('\n').filter(Boolean);
    assert.equal(lines.length, 1, `${name}: one line on stderr: ${JSON.stringify(r.stderr)}`);
    const prefix = `cdpproxy: ${file}: `;
    assert.ok(lines[0].startsWith(prefix), `${name}: the line names the file: ${lines[0]}`);
    assert.match(lines[0].slice(prefix.length), reason, `${name}: the JSON path and the reason`);
  }
  const missing = path.join(tmp.dir, 'no-such-file.json');
  const r = await runProxy(['--check-policy', missing]);
  assert.equal(r.code, 2, 'a missing file: exit 2');
  assert.match(r.stderr, new RegExp(`^cdpproxy: ${reEscape(missing)}: .*No such file`), 'says the file is missing');
});

// [file name, policy, the warnings stderr must give after "cdpproxy: warning: FILE: "]
const WARN = [
  ['enabel.json', { rules: [{ method: 'Network.enabel', kind: 'command', action: 'stub' }] },
    ["$.rules[0].method: 'Network.enabel' is not a command of the protocol (did you mean Network.enable?)"]],
  ['postdata-string.json', { rules: [{ method: 'Network.enable', kind: 'command', action: 'rewrite', params: { maxPostDataSize: '65536' } }] },
    ["$.rules[0].params.maxPostDataSize: 'maxPostDataSize' of Network.enable is an integer, not a string"]],
  ['unknown-param.json', { rules: [{ method: 'Network.enable', action: 'rewrite', params: { maxPostDataSise: 65536, bogus: true } }] },
    ["$.rules[0].params.maxPostDataSise: Network.enable has no parameter 'maxPostDataSise' (did you mean maxPostDataSize?)",
      "$.rules[0].params.bogus: Network.enable has no parameter 'bogus'"]],
  ['inject-and-events.json', {
    rules: [
      { method: 'Network.dataRecieved', action: 'drop' },
      { method: 'Network.enable', action: 'drop' },
      { method: 'Netwrk.*', action: 'pass' },
      { method: 'Network.*', action: 'rewrite', remove: ['nope'] },
      { method: 'Network.getCookies', action: 'stub', result: { cookie: [] } },
    ],
    inject: [{ target: 'page', commands: [{ method: 'Page.enabel' }, { method: 'Network.enable', params: { maxPostDataSize: 1.5 } }] }],
  }, [
    "$.rules[0].method: 'Network.dataRecieved' is not an event of the protocol (did you mean Network.dataReceived?)",
    '$.rules[1].method: Network.enable is a command, and this rule matches events only',
    "$.rules[2].method: 'Netwrk.*' matches none of the protocol's commands and events",
    "$.rules[3].remove[0]: no method matching 'Network.*' has a parameter 'nope'",
    "$.rules[4].result.cookie: Network.getCookies has no result member 'cookie' (did you mean cookies?)",
    "$.inject[0].commands[0].method: 'Page.enabel' is not a command of the protocol (did you mean Page.enable?)",
    "$.inject[0].commands[1].params.maxPostDataSize: 'maxPostDataSize' of Network.enable is an integer, not a number",
  ]],
];

// Patterns, the proxy's own domain, responses, results, quoted globs: all
// known, nothing to warn about.
const CLEAN = {
  name: 'clean',
  rules: [
    { method: 'Network.*', kind: 'command', action: 'rewrite', params: { maxPostDataSize: 65536 }, remove: ['reportDirectSocketTraffic'] },
    { method: '*.enable', target: 'worker', action: 'stub', mapper: false },
    { method: 'CDPProxy.mark', action: 'rewrite', params: { label: 'x' } },
    { method: 'Network.getCookies', kind: 'response', action: 'rewrite', params: { cookies: [] } },
    { method: 'Network.getCookies', action: 'stub', result: { cookies: [] } },
    { method: 'Network.dataReceived', action: 'drop', log: false },
    { method: 'Target.*', kind: 'event', action: 'pass' },
    { method: 'Runtime.evaluate', action: 'rewrite', params: { timeout: 1.5, expression: '1', serializationOptions: {} } },
    { method: 'Page.navigat?', action: 'delay', ms: 10 },
    { method: 'Network.enabl\\e', action: 'reject', code: -32000, message: 'no' },
    { method: '*', action: 'pass' },
  ],
  inject: [{ commands: [{ method: 'Page.enable' }, { method: 'Network.enable', params: { maxPostDataSize: 65536 } }] }],
};

test('--check-policy warns on unknown names, parameters and wrong types: exit 0, 2 with --strict', ALL, async () => {
  for (const [name, content, warnings] of WARN) {
    const file = path.join(tmp.dir, name);
    fs.writeFileSync(file, JSON.stringify(content, null, 2));
    const r = await runProxy(['--check-policy', file]);
    assert.equal(r.code, 0, `${name}: a warning is not an error: exit 0 (stderr ${r.stderr})`);
    assert.deepEqual(r.stderr.split('\n').filter(Boolean), warnings.map((w) => `cdpproxy: warning: ${file}: ${w}`),
      `${name}: each warning with the file, the JSON path and the nearest name`);
    const n = warnings.length;
    assert.match(r.stdout, new RegExp(`^${reEscape(file)}: policy .*: ok, ${n} warnings?\\n$`), `${name}: ok, with the count`);
    const strict = await runProxy(['--strict', '--check-policy', file]);
    assert.equal(strict.code, 2, `${name}: --strict: exit 2`);
    assert.equal(strict.stdout, '', `${name}: --strict: no "ok"`);
    assert.match(strict.stderr, new RegExp(`cdpproxy: ${reEscape(file)}: ${n} warnings?, refused \\(--strict\\)\\n$`), `${name}: --strict says why`);
  }
  const file = path.join(tmp.dir, 'clean.json');
  fs.writeFileSync(file, JSON.stringify(CLEAN, null, 2));
  const r = await runProxy(['--check-policy', file, '--strict']);
  assert.deepEqual([r.code, r.stderr], [0, ''], 'a policy of patterns, CDPProxy, responses and results: no warning');
  const lone = await runProxy(['--strict']);
  assert.equal(lone.code, 2, '--strict alone is a usage error');
  assert.match(lone.stderr, /--strict goes with --check-policy/);
});

// The policies of tests/policy-cases/*.test: [json, accepted by policy.c?].
function policyCases() {
  const dir = path.join(h.ROOT, 'tests/policy-cases');
  const out = [];
  for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.test'))) {
    for (const line of fs.readFileSync(path.join(dir, f), 'utf8').split('\n')) {
      const m = /^(policy|switch|bad-policy) (.*)$/.exec(line);
      if (!m) continue;
      // A stub that would silently break the BiDi mapper is refused by
      // what the rules mean in order, which a schema cannot say.
      if (m[1] === 'bad-policy' && m[2].includes('for the WebDriver BiDi mapper too')) continue;
      const json = m[1] === 'bad-policy' ? m[2].slice(0, m[2].indexOf(' => ')) : m[2];
      out.push([json, m[1] !== 'bad-policy', `${f}: ${line.slice(0, 100)}`]);
    }
  }
  return out;
}

// Validates docs against the schema with Debian's python3-jsonschema:
// per doc, null or the reason.
function schemaVerdicts(docs) {
  const out = execFileSync('/usr/bin/python3', [path.join(__dirname, 'lib/policy-schema.py'), SCHEMA],
    { input: JSON.stringify(docs), encoding: 'utf8' });
  return JSON.parse(out);
}

test('the schema (python3-jsonschema) accepts what policy.c accepts and refuses what it refuses', ALL, async () => {
  const cases = [];  // [doc, accepted, what]
  for (const f of shippedPolicies()) cases.push([JSON.parse(fs.readFileSync(path.join(POLICY_DIR, f), 'utf8')), true, `policies/${f}`]);
  for (const [json, ok, what] of policyCases()) cases.push([JSON.parse(json), ok, what]);
  for (const [name, content] of BAD) if (typeof content !== 'string') cases.push([content, false, `BAD ${name}`]);
  for (const [name, content] of WARN) cases.push([content, true, `WARN ${name}`]);
  cases.push([CLEAN, true, 'CLEAN']);
  assert.ok(cases.filter((c) => !c[1]).length >= 40 && cases.filter((c) => c[1]).length >= 40, `enough cases of each (${cases.length})`);

  const verdicts = schemaVerdicts(cases.map((c) => c[0]));
  cases.forEach(([doc, ok, what], i) => {
    if (ok) assert.equal(verdicts[i], null, `${what}: valid under the schema`);
    else assert.notEqual(verdicts[i], null, `${what}: refused by the schema`);
  });
  // And by the parser, through the same command a user runs.
  for (const [i, [doc, ok, what]] of cases.entries()) {
    const file = path.join(tmp.dir, `schema-case-${i}.json`);
    fs.writeFileSync(file, JSON.stringify(doc));
    const r = await runProxy(['--check-policy', file]);
    assert.equal(r.code, ok ? 0 : 2, `${what}: --check-policy ${ok ? 'accepts' : 'refuses'} it (${r.stderr})`);
  }
});

test('cdpproxy-policy(5) is clean under mandoc -Tlint and documents every key and action of the schema', ALL, async () => {
  const page = path.join(POLICY_DIR, 'cdpproxy-policy.5');
  let lint;
  try {
    lint = execFileSync('mandoc', ['-Tlint', '-Wwarning', page], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    assert.fail(`mandoc -Tlint -Wwarning: exit ${e.status}: ${e.stdout}${e.stderr}`);
  }
  assert.equal(lint, '', 'no warning');
  const text = fs.readFileSync(page, 'utf8');
  const schema = JSON.parse(fs.readFileSync(SCHEMA, 'utf8'));
  const keys = new Set([...Object.keys(schema.properties), ...Object.keys(schema.$defs.rule.properties),
    ...Object.keys(schema.$defs.inject.properties), ...Object.keys(schema.$defs.command.properties)]);
  for (const k of keys) assert.match(text, new RegExp(`^\\.(It )?Ic ${k}\\b`, 'm'), `the page names the key '${k}'`);
  for (const a of schema.$defs.rule.properties.action.enum) assert.match(text, new RegExp(`^\\.It Ic ${a}$`, 'm'), `the page has an entry for the action '${a}'`);
  for (const f of shippedPolicies()) assert.ok(text.includes(`.It Pa ${f}\n`), `the page lists ${f} under FILES`);
});

test('cdpproxy --policy BAD --launch exits 2 before starting anything', ALL, async () => {
  const marker = `--cdpproxy-test-marker=${crypto.randomBytes(6).toString('hex')}`;
  const bad = path.join(tmp.dir, 'unknown-action.json');
  const log = path.join(tmp.dir, 'must-not-exist.jsonl');
  assert.deepEqual(pgrep(marker), [], 'no process with the marker before');
  const r = await runProxy([`--launch=${tmp.launcher}`, '--listen', '127.0.0.1:0', '--log', log, '--policy', bad, '--', marker]);
  const after = pgrep(marker);
  for (const p of after) { try { process.kill(p, 'SIGKILL'); } catch { /* gone */ } }
  assert.equal(r.timedOut, false, `the proxy exited by itself: ${r.stderr}`);
  assert.equal(r.code, 2, `exit status 2: ${r.stderr}`);
  assert.match(r.stderr, new RegExp(`^cdpproxy: ${reEscape(bad)}: \\$\\.rules\\[0\\]\\.action: unknown action 'explode'`),
    'stderr: file, JSON path and reason');
  assert.doesNotMatch(r.stderr, /listening on/, 'it never listened');
  assert.deepEqual(after, [], 'no Chromium (or anything with the marker) is running after');
  assert.equal(fs.existsSync(tmp.trace), false, 'the Chromium launcher never ran');
  assert.equal(fs.existsSync(log), false, 'the log was never opened');

  // The policy is checked before the upstream too: 2, not 1 (unreachable upstream).
  const r2 = await runProxy(['--listen', '127.0.0.1:0', '--upstream', '127.0.0.1:1', '--policy', bad]);
  assert.equal(r2.code, 2, `bad policy with an unreachable upstream: 2 (${r2.stderr})`);
  assert.match(r2.stderr, /unknown action 'explode'/, 'for the policy\'s reason');
});

test('control: --policy GOOD --launch starts Chromium; a bad PUT is 400 and the policy stays', ALL, async () => {
  const marker = `--cdpproxy-test-marker=${crypto.randomBytes(6).toString('hex')}`;
  const proxy = await h.startProxy({
    launch: tmp.launcher, args: ['--policy', path.join(POLICY_DIR, 'no-network.json'), '--policy-dir', POLICY_DIR, '--', marker],
  });
  let result;
  let records;
  try {
    assert.ok(fs.existsSync(tmp.trace), 'the launcher ran');
    const running = pgrep(marker).filter((p) => p !== proxy.pid);
    assert.ok(running.length >= 1, 'Chromium with the marker is running (so the check above can see one)');
    const before = await h.getJSON(`${proxy.httpURL}/proxy/policy`);
    assert.deepEqual([before.name, before.gen], ['no-network', 1], 'started with no-network');

    const put = (body) => h.putPolicy(proxy.httpURL, body);
    let r = await put(JSON.stringify({ name: 'x', rules: [{ method: 'Network.enable', action: 'delay', ms: '100' }] }));
    assert.equal(r.status, 400, 'wrong type: 400');
    assert.equal(r.json.error, 'PUT /proxy/policy: $.rules[0].ms: delay needs milliseconds, an integer from 0 to 600000, not a string', 'source, JSON path and reason');
    r = await put(JSON.stringify({ rules: [{ method: 'Network.enable', kind: 'command', action: 'drop' }] }));
    assert.equal(r.status, 400, 'drop on a command: 400');
    assert.match(r.json.error, /^PUT \/proxy\/policy: \$\.rules\[0\]\.kind: drop applies to events only/);
    r = await put('{"rules": [');
    assert.equal(r.status, 400, 'invalid JSON: 400');
    assert.match(r.json.error, /not JSON/);
    r = await put(JSON.stringify({ name: 'unknown-action' }));
    assert.equal(r.status, 400, 'a name with no such file in the policy dir: 400');
    const after = await h.getJSON(`${proxy.httpURL}/proxy/policy`);
    assert.deepEqual([after.name, after.gen, after.since_us], [before.name, before.gen, before.since_us], 'the running policy stays');

    // A policy with a warning is switched to, the warning in the answer.
    r = await put(JSON.stringify({ name: 'typo', rules: [{ method: 'Network.enabel', kind: 'command', action: 'stub' }] }));
    assert.equal(r.status, 200, 'a policy with a warning still loads');
    assert.deepEqual(r.json.policy.warnings, ["PUT /proxy/policy: $.rules[0].method: 'Network.enabel' is not a command of the protocol (did you mean Network.enable?)"],
      'PUT answers with the warning');
    assert.deepEqual([r.json.name, r.json.gen], ['typo', 2], 'generation 2');

    // A good PUT still works after the bad ones.
    r = await put(JSON.stringify({ name: 'passthrough' }));
    assert.equal(r.status, 200, 'a good PUT: 200');
    assert.deepEqual([r.json.name, r.json.gen], ['passthrough', 3], 'generation 3');
    assert.equal(r.json.policy.warnings, undefined, 'no warnings: no key');
  } finally {
    result = await proxy.stop();
    records = h.readLog(proxy.logPath);
    proxy.removeDir();
  }
  assert.equal(result.code, 0, `proxy exit 0: ${result.stderr}`);
  assert.deepEqual(result.leftover, [], 'nothing it started outlives it');
  assert.deepEqual(pgrep(marker), [], 'its Chromium is gone');
  const policies = records.filter((x) => x.kind === 'policy').map((x) => [x.name, x.via, x.warnings]);
  assert.deepEqual(policies, [['no-network', 'start', undefined],
    ['typo', 'PUT', ["PUT /proxy/policy: $.rules[0].method: 'Network.enabel' is not a command of the protocol (did you mean Network.enable?)"]],
    ['passthrough', 'PUT', undefined]], 'the log has each switch, with its warnings when it had any');
});

// A policy named as PUT /proxy/policy {"name"} names it, from a directory
// that has no such file: found in the policies folder (the source tree's
// here; 90-install-deb.t checks the installed one), with or without .json;
// --policy-dir is where a name is looked for; a file here stays a file.
test('a policy by name: --check-policy, --policy and CDPPROXY_POLICY find it as PUT {"name"} does', ALL, async () => {
  const here = { cwd: tmp.dir };
  const want = fs.realpathSync(path.join(POLICY_DIR, 'network-postdata-cap.json'));
  for (const arg of ['network-postdata-cap', 'network-postdata-cap.json']) {
    const r = await runProxy(['--check-policy', arg], 10000, here);
    assert.equal(r.code, 0, `--check-policy ${arg}: exit 0 (${r.stderr})`);
    const file = r.stdout.split(': ')[0];
    assert.equal(fs.realpathSync(file), want, `--check-policy ${arg}: the policies folder's file`);
    assert.match(r.stdout, /: policy network-postdata-cap, 1 rules/, `--check-policy ${arg}: that policy`);
  }
  fs.writeFileSync(path.join(tmp.dir, 'mine.json'), JSON.stringify({ name: 'mine-in-dir', rules: [] }));
  let r = await runProxy(['--policy-dir', tmp.dir, '--check-policy', 'mine'], 10000, { cwd: '/' });
  assert.equal(r.code, 0, `--policy-dir DIR --check-policy mine: exit 0 (${r.stderr})`);
  assert.match(r.stdout, /: policy mine-in-dir, /, 'found in --policy-dir');
  fs.writeFileSync(path.join(tmp.dir, 'network-postdata-cap.json'), JSON.stringify({ name: 'the-local-file', rules: [] }));
  r = await runProxy(['--check-policy', 'network-postdata-cap.json'], 10000, here);
  assert.match(r.stdout, /^network-postdata-cap\.json: policy the-local-file, /, 'a file here is a file, not a name');
  fs.unlinkSync(path.join(tmp.dir, 'network-postdata-cap.json'));
  r = await runProxy(['--check-policy', 'no-such-policy'], 10000, here);
  assert.equal(r.code, 2, 'a name with no file: exit 2');
  assert.match(r.stderr, /policies\/no-such-policy\.json: unable to open/, `the file looked for is named: ${r.stderr}`);

  const { echo, port } = await h.startEcho();
  const proxy = await h.startProxy({ upstreamPort: port, args: ['--policy', 'network-postdata-cap'] });
  try {
    assert.equal((await h.getJSON(`${proxy.httpURL}/proxy/policy`)).name, 'network-postdata-cap', '--policy NAME runs that policy');
    const list = await h.getJSON(`${proxy.httpURL}/proxy/policies`);
    assert.equal(fs.realpathSync(list.dir), fs.realpathSync(POLICY_DIR), 'and the names PUT takes are the same folder\'s');
  } finally {
    await proxy.stop();
    proxy.removeDir();
    echo.kill('SIGKILL');
  }

  const env = wr.wrapperEnv({ CDPPROXY_POLICY: 'no-such-policy' });
  r = spawnSync(h.WRAPPER_BIN, ['--headless', '--remote-debugging-pipe'], { env, cwd: tmp.dir, encoding: 'utf8', timeout: 10000 });
  assert.equal(r.status, 1, 'CDPPROXY_POLICY naming no policy: exit 1');
  assert.match(r.stderr, /policies\/no-such-policy\.json: unable to open/, `the file looked for is named: ${r.stderr}`);
  const profile = h.tmpdir('cdpproxy-policy-name-');
  const w = wr.spawnPipeWrapper(profile.dir, { CDPPROXY_POLICY: 'network-postdata-cap', CDPPROXY_CONTROL: '127.0.0.1:0' });
  try {
    const m = await h.waitFor(() => /control on http:\/\/127\.0\.0\.1:(\d+)/.exec(w.stderr()), { timeout: 20000, what: 'the control line' });
    assert.equal((await h.getJSON(`http://127.0.0.1:${m[1]}/proxy/policy`)).name, 'network-postdata-cap', 'CDPPROXY_POLICY=NAME runs that policy');
  } finally {
    try { process.kill(-w.child.pid, 'SIGKILL'); } catch { /* gone */ }
    await h.within(w.exited, 5000);
    profile.remove();
  }
});

test('remove the scratch directory', ALL, async () => {
  if (tmp) tmp.remove();
});
