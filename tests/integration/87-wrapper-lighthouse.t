#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 8: Lighthouse as its users run it, `CHROME_PATH=<the wrapper>
// lighthouse URL` (chrome-launcher starts the wrapper in port mode and ends
// it with SIGKILL to its process group): the report is whole (no
// runtimeError, performance metrics), the log has its Tracing.start answered,
// and CDPPROXY_CONTROL at a fixed port answers /proxy/stats during the run
// (chrome-launcher hides the browser's stderr, where a port 0 would be
// named). A fixed port already taken is one line and exit 1 in both modes,
// with no crash and nothing left behind.
'use strict';
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { test } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./lib/harness');
const wr = require('./lib/wrapper');

const ALL = { timeout: 60000 };
const LIGHTHOUSE = path.join(h.ROOT, 'tests/clients/node_modules/lighthouse/cli/index.js');

// A free loopback port, as the port a user would pick for CDPPROXY_CONTROL.
function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

// A listening socket on a free loopback port: { port, close }.
function holdPort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => resolve({
      port: s.address().port, close: () => new Promise((r) => s.close(r)),
    }));
  });
}

test('CDPPROXY_CONTROL at a port already taken: one line, exit 1, nothing left (both modes)', ALL, async () => {
  const held = await holdPort();
  const dir = h.tmpdir('cdpproxy-wrap-ctl-');
  const modes = {
    port: { args: ['--remote-debugging-port=0'], stdio: ['ignore', 'ignore', 'pipe'] },
    pipe: { args: ['--remote-debugging-pipe'], stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] },
  };
  try {
    for (const [mode, { args, stdio }] of Object.entries(modes)) {
      const profile = path.join(dir.dir, mode);
      const r = spawnSync(h.WRAPPER_BIN, [...h.CHROME_FLAGS, `--user-data-dir=${profile}`, ...args, 'about:blank'], {
        env: wr.wrapperEnv({ CDPPROXY_CONTROL: `127.0.0.1:${held.port}` }), stdio, encoding: 'utf8', timeout: 20000,
      });
      // Port mode starts Chromium first (the proxy needs its port), so its
      // lines may come before; the wrapper's own is the last.
      const last = r.stderr.trimEnd().split('\n').pop();
      assert.deepEqual({ status: r.status, signal: r.signal }, { status: 1, signal: null },
        `${mode} mode: exit 1, not a crash (${r.stderr.slice(-300)})`);
      assert.equal(last, `cdpproxy-chromium: CDPPROXY_CONTROL: cannot listen on 127.0.0.1:${held.port}: Address already in use`,
        `${mode} mode: the reason names the variable and the port`);
      assert.deepEqual(wr.tmpdirsOf(r.pid), [], `${mode} mode: no temporary directory left`);
      const left = h.allPids().filter((p) => h.cmdline(p).includes(`--user-data-dir=${profile}`));
      assert.deepEqual(await wr.goneWithin(left, 3000), [], `${mode} mode: no Chromium left`);
    }
  } finally {
    await held.close();
    dir.remove();
  }
});

test('Lighthouse through the wrapper (CHROME_PATH), CDPPROXY_CONTROL at a fixed port', { timeout: 150000 }, async (t) => {
  const server = await h.startServer();
  const dir = h.tmpdir('cdpproxy-wrap-lh-');
  const logs = path.join(dir.dir, 'logs');
  fs.mkdirSync(logs);
  const control = await freePort();
  const reportPath = path.join(dir.dir, 'report.json');
  const child = h.spawnTracked(process.execPath, [LIGHTHOUSE, server.url, '--only-categories=performance',
    '--output=json', `--output-path=${reportPath}`, '--quiet', `--chrome-flags=${h.CHROME_FLAGS.join(' ')}`], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: wr.wrapperEnv({ CHROME_PATH: h.WRAPPER_BIN, CDPPROXY_LOG: logs, CDPPROXY_CONTROL: `127.0.0.1:${control}` }),
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d; });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let ended = null;
  exited.then((e) => { ended = e; });
  try {
    // While it runs: the wrapper (its log file names it), its browser, and
    // the fixed control port serving the connection chrome-launcher's
    // puppeteer-core opened.
    const stats = await h.waitFor(async () => {
      if (ended) throw new Error(`lighthouse ended first: ${JSON.stringify(ended)}`);
      const s = await h.getJSON(`http://127.0.0.1:${control}/proxy/stats`, { timeout: 2000 });
      return s.connections.list.length > 0 && s;
    }, { timeout: 60000, interval: 200, what: `a connection in /proxy/stats at the fixed port ${control}` });
    const conn = stats.connections.list[0];
    t.diagnostic(`at 127.0.0.1:${control} during the run: ${JSON.stringify(conn.client)}`);
    const file = fs.readdirSync(logs)[0];
    const wrapper = Number(/^cdpproxy-chromium-(\d+)\.jsonl$/.exec(file)[1]);
    const tree = [wrapper, ...h.descendants(wrapper)];

    let timer;
    const end = await Promise.race([exited, new Promise((r) => { timer = setTimeout(r, 120000, null); })]);
    clearTimeout(timer);
    assert.deepEqual(end, { code: 0, signal: null }, `lighthouse exits 0: ${stderr.slice(-1000)}`);
    const report = JSON.parse(fs.readFileSync(reportPath, 'utf8'));
    t.diagnostic(`Lighthouse ${report.lighthouseVersion}: performance ${report.categories.performance.score}, ` +
      `FCP ${Math.round(report.audits['first-contentful-paint'].numericValue)} ms, ` +
      `LCP ${Math.round(report.audits['largest-contentful-paint'].numericValue)} ms`);
    assert.equal(report.runtimeError, undefined, 'no runtimeError');
    assert.equal(typeof report.categories.performance.score, 'number', 'a performance score');
    for (const id of ['first-contentful-paint', 'largest-contentful-paint', 'speed-index', 'total-blocking-time'])
      assert.equal(typeof report.audits[id].numericValue, 'number', `${id}: a measured value`);
    assert.ok(report.audits['first-contentful-paint'].numericValue > 0, 'first-contentful-paint above 0');
    assert.ok(server.requests.some((r) => r.path === '/'), 'the page was loaded from the local server');

    const log = h.readLog(path.join(logs, file));
    const starts = log.filter((r) => r.kind === 'command' && r.method === 'Tracing.start');
    assert.ok(starts.length > 0, 'the log has Lighthouse\'s Tracing.start');
    for (const c of starts) {
      const answer = log.find((r) => r.kind === 'response' && r.conn === c.conn && r.id === c.id &&
        r.session === c.session);
      assert.ok(answer && !answer.error, `Tracing.start (id ${c.id}) answered without an error`);
    }
    assert.deepEqual(await wr.goneWithin(tree, 5000), [], 'the wrapper and its browser are gone');
  } finally {
    await server.close();
    dir.remove();
  }
});
