#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 9: a WebdriverIO suite as users run it: `wdio run` of
// tests/rigs/wdio (mocha), ChromeDriver launching the wrapper as its browser
// (goog:chromeOptions.binary) in a WebDriver BiDi session, WebdriverIO's
// default. The suite passes (an upload, a click, a console message as a
// log.entryAdded event, a browser.mock), nothing is left running, and the
// wrapper's log holds what crosses the proxy of BiDi (DESIGN.md §6): the
// mapper's hidden target, Target.exposeDevToolsProtocol, its
// sendBidiResponse binding and the mapper's script, each BiDi command as a
// Runtime.evaluate of onBidiMessage(...) on the mapper's session, each
// answer and event as Runtime.bindingCalled. Then RIG_CLASSIC=1: a classic
// session, the BiDi-only tests skipped, no mapper in the log.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./lib/harness');
const wr = require('./lib/wrapper');
const { start: startRigServer } = require('../rigs/server');

const ALL = { timeout: 180000 };
const CLIENTS = path.join(h.ROOT, 'tests/clients');
const CONFIG = path.join(h.ROOT, 'tests/rigs/wdio/wdio.conf.js');
// 1 MiB: the upload's network.beforeRequestSent still carries the body
// (goog:postData, about 6 MiB of it) through the binding; the rig's 4 MiB
// default costs WebdriverIO some 45 s here (tools/bidi-bench measures it).
const MIB = 1;

// `wdio run` of the rig with env; resolves {code, out (stdout and stderr),
// logs: {file: records}, whole: files whose last line is whole, logDir}.
async function runRig(server, env = {}) {
  const logs = h.tmpdir('cdpproxy-wrap-wdio-log-');
  const child = h.spawnTracked(process.execPath, [path.join(CLIENTS, 'node_modules/@wdio/cli/bin/wdio.js'), 'run', CONFIG], {
    cwd: CLIENTS,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: wr.wrapperEnv({
      CDPPROXY_BROWSER: h.WRAPPER_BIN, CDPPROXY_LOG: logs.dir, CDPPROXY_LOG_BODIES: '1',
      RIG_URL: server.url, RIG_UPLOAD_MIB: String(MIB), ...env,
    }),
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d) => { out += d; });
  child.stderr.setEncoding('utf8').on('data', (d) => { out += d; });
  const code = await new Promise((resolve) => child.on('exit', (c, s) => resolve(c === null ? s : c)));
  const logsRead = wr.readLogs(logs.dir);
  const whole = Object.keys(logsRead).filter((f) => fs.readFileSync(path.join(logs.dir, f), 'utf8').endsWith('\n'));
  logs.remove();
  return { code, out, logs: logsRead, whole, logDir: logs.dir };
}

// The wrappers this run started (by its CDPPROXY_LOG) still alive.
function wrappersLeft(run) {
  return h.allPids().filter((p) => h.alive(p) && h.cmdline(p)[0] === h.WRAPPER_BIN &&
    h.environ(p).includes(`CDPPROXY_LOG=${run.logDir}`));
}

// A logged message's body as an object (a body cut at 64 KiB is a string).
const bodyOf = (r) => (r.body && typeof r.body === 'object' ? r.body : null);

let server;
test('start the rig\'s server', ALL, async () => {
  server = await startRigServer();
});

let bidi;
test('wdio run, ChromeDriver launching the wrapper, a BiDi session: the suite passes, nothing left', ALL, async (t) => {
  if (!server) return t.skip('no server');
  bidi = await runRig(server);
  assert.equal(bidi.code, 0, `wdio exits 0; its output:\n${bidi.out.slice(-4000)}`);
  assert.match(bidi.out, /4 passing/, 'four tests passed');
  assert.match(bidi.out, /Spec Files:\s+1 passed, 1 total/, 'the spec file passed');
  const up = /upload (\d+) bytes in ([\d.]+) ms: ([\d.]+) Mbps \((\w+)\)/.exec(bidi.out);
  assert.ok(up, 'the upload test reported its time');
  assert.equal(Number(up[1]), MIB << 20, 'the whole body arrived');
  assert.equal(up[4], 'BiDi', 'in a BiDi session');
  t.diagnostic(`upload in the page: ${up[2]} ms, ${up[3]} Mbps`);
  const files = Object.keys(bidi.logs);
  assert.equal(files.length, 1, `one session, one wrapper, one log: ${files}`);
  assert.deepEqual(bidi.whole, files, 'the log\'s last line is whole (ChromeDriver ends the browser with SIGKILL)');
  assert.deepEqual(wrappersLeft(bidi), [], 'no wrapper left running');
  const pid = Number(/cdpproxy-chromium-(\d+)\.jsonl/.exec(files[0])[1]);
  assert.deepEqual(wr.tmpdirsOf(pid), [], 'nor a temporary directory of the wrapper\'s');
});

test('the log holds the mapper and the BiDi traffic through it', ALL, (t) => {
  assert.ok(bidi && bidi.code === 0, 'the BiDi run passed');
  const log = Object.values(bidi.logs)[0];
  const cmds = log.filter((r) => r.kind === 'command');
  const expose = cmds.find((r) => r.method === 'Target.exposeDevToolsProtocol');
  assert.ok(expose && bodyOf(expose) && bodyOf(expose).params.bindingName === 'cdp',
    `Target.exposeDevToolsProtocol {bindingName: 'cdp'}: ${JSON.stringify(expose)}`);
  const binding = cmds.find((r) => r.method === 'Runtime.addBinding' && bodyOf(r) && bodyOf(r).params.name === 'sendBidiResponse');
  assert.ok(binding, 'Runtime.addBinding {name: sendBidiResponse}');
  const mapper = binding.session;
  assert.ok(mapper, 'on the mapper target\'s session');
  const onMapper = log.filter((r) => r.session === mapper);
  const script = onMapper.find((r) => r.kind === 'command' && r.method === 'Runtime.evaluate' && r.bytes > 100000);
  assert.ok(script, 'the mapper\'s script evaluated in its target');
  t.diagnostic(`the mapper's script: ${script.bytes} bytes`);

  // Each BiDi command: Runtime.evaluate of onBidiMessage("<JSON>").
  const sent = onMapper.filter((r) => r.kind === 'command' && r.method === 'Runtime.evaluate' && bodyOf(r) &&
    /^onBidiMessage\(/.test(bodyOf(r).params.expression))
    .map((r) => JSON.parse(JSON.parse(/^onBidiMessage\((.*)\)$/s.exec(bodyOf(r).params.expression)[1])));
  const methods = new Set(sent.map((m) => m.method));
  t.diagnostic(`${sent.length} BiDi commands: ${[...methods].sort().join(', ')}`);
  for (const m of ['session.subscribe', 'browsingContext.navigate', 'script.callFunction', 'network.addIntercept']) {
    assert.ok(methods.has(m), `${m} crossed the proxy as onBidiMessage`);
  }
  // Each answer and event: Runtime.bindingCalled {name: sendBidiResponse}.
  const called = onMapper.filter((r) => r.kind === 'event' && r.method === 'Runtime.bindingCalled');
  const payloads = called.filter((r) => bodyOf(r) && bodyOf(r).params.name === 'sendBidiResponse')
    .map((r) => JSON.parse(bodyOf(r).params.payload));
  const answered = new Set(payloads.filter((p) => 'id' in p).map((p) => p.id));
  assert.deepEqual(sent.filter((m) => !answered.has(m.id)).map((m) => `${m.method}#${m.id}`), [],
    'every BiDi command has its answer in a bindingCalled');
  assert.ok(payloads.some((p) => p.method === 'log.entryAdded' && p.params.text === 'rig console 42'),
    'the page\'s console.log came back as a log.entryAdded event');
  // The cost DESIGN.md §6 names: the mapper's Network.enable has no
  // maxPostDataSize, so the upload's network events carry its body
  // (goog:postData) to every client subscribed to them, WebdriverIO included.
  const largest = Math.max(0, ...called.map((r) => r.bytes));
  t.diagnostic(`the largest Runtime.bindingCalled: ${(largest / 1048576).toFixed(1)} MiB`);
  assert.ok(largest > MIB << 20, `a network event carried the ${MIB} MiB body: ${largest} bytes`);
  const unanswered = cmds.filter((c) => !log.some((r) => r.kind === 'response' && r.conn === c.conn && r.id === c.id &&
    (r.session || '') === (c.session || '')));
  assert.deepEqual(unanswered.map((c) => `${c.method}#${c.id}`), [], 'every CDP command in the log has its answer');
});

test('RIG_CLASSIC=1: a classic session, the BiDi-only tests skipped, no mapper', ALL, async (t) => {
  if (!server) return t.skip('no server');
  const classic = await runRig(server, { RIG_CLASSIC: '1' });
  assert.equal(classic.code, 0, `wdio exits 0; its output:\n${classic.out.slice(-4000)}`);
  assert.match(classic.out, /2 passing/, 'two tests passed');
  assert.match(classic.out, /2 skipped/, 'two skipped');
  const up = /upload (\d+) bytes in ([\d.]+) ms: ([\d.]+) Mbps \((\w+)\)/.exec(classic.out);
  assert.ok(up && up[4] === 'classic', 'the upload ran in a classic session');
  t.diagnostic(`upload in the page: ${up[2]} ms, ${up[3]} Mbps`);
  const log = Object.values(classic.logs)[0] || [];
  assert.ok(log.some((r) => r.kind === 'command' && r.method === 'Page.navigate'), 'ChromeDriver\'s CDP is in the log');
  assert.ok(!log.some((r) => r.method === 'Target.exposeDevToolsProtocol'), 'and no BiDi mapper');
  assert.deepEqual(wrappersLeft(classic), [], 'no wrapper left running');
});

test('stop the rig\'s server', ALL, async () => {
  if (server) await server.close();
});
