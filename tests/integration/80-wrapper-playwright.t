#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 8: a Playwright suite as users run it: `npx playwright test` of
// tests/rigs/playwright, whose config's launchOptions.executablePath is the
// wrapper (pipe mode: fds 3 and 4). Pages, page.route, a 4 MiB Uint8Array
// upload (its Network.requestWillBeSent, which Network.enable fills with the
// body, over the wrapper's 16 MiB queue bound) and a download pass through
// it, two workers each get their own wrapper and log file (CDPPROXY_LOG
// names a directory), and nothing is left behind. Then what the message
// core adds: the log's Network.enable commands with their sessions. The
// network-postdata-cap policy under this rig (CDPPROXY_POLICY per wrapper,
// Network.enable rewritten, its uploads passing and faster) is 84-audit's,
// two rounds of its upload spec; Playwright's page.route under it is
// 60-policies'.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./lib/harness');
const wr = require('./lib/wrapper');

const ALL = { timeout: 240000 };
const RIG = path.join(h.ROOT, 'tests/rigs/playwright');
// The rig's server (a page with a download link, /data.json, POST /upload).
const { start: startRigServer } = require('../rigs/server');
const CLIENTS = path.join(h.ROOT, 'tests/clients');

// `npx playwright test` of the rig (or of its spec files named in specs)
// with env; resolves {code, report (the JSON reporter's), stderr, logs:
// {file: records}, wrappers: pids}.
async function runRig(server, env = {}, specs = []) {
  const logs = h.tmpdir('cdpproxy-wrap-pw-log-');
  const out = h.tmpdir('cdpproxy-wrap-pw-out-');
  const child = h.spawnTracked('npx', ['--no-install', 'playwright', 'test', '--config', path.join(RIG, 'playwright.config.js'), '--reporter=json', ...specs], {
    cwd: CLIENTS,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: wr.wrapperEnv({
      CDPPROXY_BROWSER: h.WRAPPER_BIN, CDPPROXY_LOG: logs.dir, RIG_URL: server.url, RIG_OUT: out.dir,
      // The upload spec's bodies: 1 MiB passes through the pipe as any
      // other body (the large message here is the transfer spec's 16 MiB);
      // the upload spec's speed under the cap is 84-audit's.
      RIG_UPLOAD_MIB: '1',
      // The transfer spec's upload: 4 MiB makes a requestWillBeSent of about
      // 30 MiB (postData with each zero byte escaped in six, and base64
      // postDataEntries), twice the queue bound, as 20's, 22's and 23's
      // large messages; its default 16 made one of about 117 MiB.
      RIG_TRANSFER_MIB: '4',
      // The rig's files require @playwright/test from the committed client tree.
      NODE_PATH: path.join(CLIENTS, 'node_modules'), ...env,
    }),
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d; });
  child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d; });
  const code = await new Promise((resolve) => child.on('exit', (c, s) => resolve(c === null ? s : c)));
  let report = null;
  try { report = JSON.parse(stdout); } catch { /* reported below */ }
  const logsRead = wr.readLogs(logs.dir);
  logs.remove();
  out.remove();
  const wrappers = Object.keys(logsRead).map((f) => Number(/cdpproxy-chromium-(\d+)\.jsonl/.exec(f)[1]));
  return { code, report, stdout, stderr, logs: logsRead, wrappers, logDir: logs.dir };
}

// Every test result of a JSON report, flattened: {title, status, stdout}.
function results(report) {
  const out = [];
  const walk = (suite) => {
    for (const s of suite.suites || []) walk(s);
    for (const spec of suite.specs || []) {
      for (const t of spec.tests) {
        for (const r of t.results) out.push({ title: spec.title, status: r.status, error: r.error && (r.error.message || '').slice(0, 500), stdout: (r.stdout || []).map((x) => x.text || '').join('') });
      }
    }
  };
  for (const s of report.suites) walk(s);
  return out;
}

function uploadMbps(run) {
  const r = results(run.report).find((x) => /uploads a \d+ MiB Uint8Array/.test(x.title));
  const m = r && /([\d.]+) Mbps/.exec(r.stdout);
  return m ? Number(m[1]) : null;
}

let plain;

test('npx playwright test, browser launched through the wrapper: the suite passes, nothing left', ALL, async (t) => {
  const server = await startRigServer();
  plain = await runRig(server);
  await server.close();
  assert.ok(plain.report, `the JSON reporter's output parses; stderr:\n${plain.stderr}\nstdout:\n${plain.stdout.slice(0, 2000)}`);
  const all = results(plain.report);
  const bad = all.filter((r) => r.status !== 'passed');
  assert.deepEqual(bad, [], 'every test passed');
  assert.equal(all.length, 7, `seven tests ran: ${all.map((r) => r.title)}`);
  assert.equal(plain.code, 0, 'npx playwright test exits 0');
  t.diagnostic(`upload through the wrapper (passthrough): ${uploadMbps(plain)} Mbps`);
  const sent = Object.values(plain.logs).flat().filter((r) => r.kind === 'event' && r.method === 'Network.requestWillBeSent');
  const largest = Math.max(0, ...sent.map((r) => r.bytes));
  t.diagnostic(`the largest Network.requestWillBeSent: ${(largest / 1048576).toFixed(1)} MiB`);
  assert.ok(largest > 16 << 20, `the upload's Network.requestWillBeSent, over the 16 MiB queue bound, passed: ${largest} bytes`);
  assert.equal(plain.wrappers.length, 2, `two workers, two wrappers, a log file each: ${Object.keys(plain.logs)}`);
  for (const pid of plain.wrappers) {
    assert.equal(h.alive(pid), false, `wrapper ${pid} has exited`);
    assert.deepEqual(wr.tmpdirsOf(pid), [], `wrapper ${pid} left no temporary directory`);
  }
  // (this run's wrappers only, by their CDPPROXY_LOG: the tests run in parallel)
  const left = h.allPids().filter((p) => h.alive(p) && h.cmdline(p)[0] === h.WRAPPER_BIN &&
    h.environ(p).includes(`CDPPROXY_LOG=${plain.logDir}`));
  assert.deepEqual(left, [], 'no wrapper process left');
  for (const [file, log] of Object.entries(plain.logs)) {
    // The WebSocket leg's schema: the core writes both legs' records.
    const open = log.find((r) => r.kind === 'open');
    assert.ok(open && open.leg === 'pipe' && open.path === '/devtools/browser' && typeof open.upstream === 'string' &&
      open.client && open.client.library === 'unknown', `${file}: the pipe's open is logged: ${JSON.stringify(open)}`);
    const closes = log.filter((r) => r.kind === 'close');
    assert.deepEqual(closes.map((r) => [r.side, r.code, r.reason, r.by === 'client' || r.by === 'upstream']).sort(),
      [['client', 1000, '', true], ['upstream', 1000, '', true]], `${file}: and its close, a record per side: ${JSON.stringify(closes)}`);
  }
});

// Needs the message core behind the pipe leg (proxy/pipe/pipe.c): without
// it the wrapper would relay without logging messages.
test('the log holds the suite\'s Network.enable commands, with their sessions', ALL, () => {
  assert.ok(plain && plain.report, 'the suite ran');
  const enables = Object.values(plain.logs).flat().filter((r) => r.kind === 'command' && r.method === 'Network.enable');
  assert.ok(enables.length >= 7, `a Network.enable per page at least (7 tests): ${enables.length} logged`);
  assert.ok(enables.every((r) => typeof r.session === 'string' && r.session.length > 0),
    `each with the page's session: ${JSON.stringify(enables.slice(0, 3))}`);
});
