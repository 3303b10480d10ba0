#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 8: Selenium (Debian's python3-selenium) with ChromeDriver launching
// the wrapper as its browser. First what ChromeDriver relies on in port
// mode: DevToolsActivePort, read as soon as it exists, never names
// Chromium's own port (a third of ChromeDriver's sessions bypassed the proxy
// when it did). Then a session in each of ChromeDriver's ways: its default
// (--remote-debugging-port=0 and DevToolsActivePort), --remote-debugging-pipe
// in the options' args, and WebDriver BiDi (webSocketUrl): navigate, title,
// a script, quit() (which kills the browser); then the wrapper's log has
// every CDP command ChromeDriver's own verbose log says it sent, each with
// its answer, and its last line is whole.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./lib/harness');
const wr = require('./lib/wrapper');

const ALL = { timeout: 90000 };
const CDPLOG = process.env.CDPLOG_BIN || path.join(path.dirname(h.PROXY_BIN), 'cdplog');
// Debian's python3 with its python3-selenium, not whatever comes first in PATH.
const PYTHON = '/usr/bin/python3';

// Runs a Python script with args in a process group of its own (ChromeDriver
// and the browser included), killed after timeout; resolves its stdout
// (throws with its stderr). As 18-clients.t's.
function python(script, args, timeout = 60000) {
  return new Promise((resolve, reject) => {
    const child = h.spawnTracked(PYTHON, ['-c', script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    const timer = setTimeout(() => process.kill(-child.pid, 'SIGKILL'), timeout);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`python exited ${code} ${signal || ''}:\n${err.slice(-2000)}`));
    });
  });
}

// argv: the wrapper, the page, the mode (port, pipe, bidi), ChromeDriver's
// log file, and Chromium's flags (JSON).
const SELENIUM = `
import json, sys, websocket
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
binary, url, mode, cdlog, flags = sys.argv[1:6]
o = webdriver.ChromeOptions()
o.binary_location = binary
for a in json.loads(flags):
    o.add_argument(a)
if mode == "pipe":
    o.add_argument("--remote-debugging-pipe")
if mode == "bidi":
    o.set_capability("webSocketUrl", True)
d = webdriver.Chrome(service=Service("/usr/bin/chromedriver", service_args=["--verbose", "--log-path=" + cdlog]),
                     options=o)
try:
    d.get(url)
    out = {"title": d.title, "marker": d.execute_script("return window.pageMarker")}
    if mode == "bidi":
        bidi = websocket.create_connection(d.capabilities["webSocketUrl"])
        bidi.send(json.dumps({"id": 1, "method": "script.evaluate", "params": {
            "expression": "document.title", "awaitPromise": False,
            "target": {"context": d.current_window_handle}}}))
        out["bidi"] = json.loads(bidi.recv())
        bidi.close()
    print(json.dumps(out))
finally:
    d.quit()
`;

test('DevToolsActivePort names only the proxy\'s port, from the first read on', ALL, async (t) => {
  const dir = h.tmpdir('cdpproxy-wrap-dtap-');
  const profile = path.join(dir.dir, 'profile');
  const file = path.join(profile, 'DevToolsActivePort');
  const errPath = path.join(dir.dir, 'stderr');
  const err = fs.openSync(errPath, 'w');
  const child = h.spawnTracked(h.WRAPPER_BIN, [...h.CHROME_FLAGS, `--user-data-dir=${profile}`,
    '--remote-debugging-port=0', 'about:blank'], { stdio: ['ignore', 'ignore', err], env: wr.wrapperEnv() });
  fs.closeSync(err);
  try {
    // Poll as fast as a client can, without yielding (ChromeDriver polls
    // the file the moment it has started the browser), until a second after
    // the wrapper's DevTools line.
    const seen = new Set();
    let line = null;
    for (const until = Date.now() + 30000; Date.now() < until && (!line || Date.now() < line.at + 1000);) {
      try { seen.add(fs.readFileSync(file, 'utf8').split('\n')[0]); } catch { /* not there yet, or not a file */ }
      if (!line) {
        const m = /DevTools listening on ws:\/\/127\.0\.0\.1:(\d+)\//.exec(fs.readFileSync(errPath, 'utf8'));
        if (m) line = { port: m[1], at: Date.now() };
      }
    }
    assert.ok(line, 'the wrapper printed its DevTools line');
    t.diagnostic(`proxy at ${line.port}; DevToolsActivePort read as ${JSON.stringify([...seen])}`);
    assert.deepEqual([...seen], [line.port], 'every read of DevToolsActivePort named the proxy\'s port');
  } finally {
    process.kill(child.pid, 'SIGTERM');
    await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once('exit', r)));
    dir.remove();
  }
});

let server;
test('start the local page', ALL, async () => {
  server = await h.startServer();
});

for (const mode of ['port', 'pipe', 'bidi']) {
  test(`Selenium, ChromeDriver launching the wrapper: ${mode}`, ALL, async (t) => {
    if (!server) return t.skip('no server');
    const dir = h.tmpdir(`cdpproxy-wrap-sel-${mode}-`);
    const logs = path.join(dir.dir, 'logs');
    const cdlog = path.join(dir.dir, 'chromedriver.log');
    fs.mkdirSync(logs);
    try {
      // The wrapper's environment reaches it through python and ChromeDriver.
      const saved = process.env.CDPPROXY_LOG;
      process.env.CDPPROXY_LOG = logs;
      let out;
      try {
        out = JSON.parse(await python(SELENIUM, [h.WRAPPER_BIN, server.url, mode, cdlog, JSON.stringify(h.CHROME_FLAGS)], 80000));
      } finally {
        if (saved === undefined) delete process.env.CDPPROXY_LOG; else process.env.CDPPROXY_LOG = saved;
      }
      assert.equal(out.title, 'cdpproxy test page', 'WebDriver: get and title');
      assert.equal(out.marker, 'cdpproxy-42', 'WebDriver: execute_script');
      if (mode === 'bidi') {
        assert.equal(out.bidi.type, 'success', `BiDi script.evaluate: ${JSON.stringify(out.bidi)}`);
        assert.deepEqual(out.bidi.result.result, { type: 'string', value: 'cdpproxy test page' }, 'BiDi evaluated in the page');
      }

      const cd = fs.readFileSync(cdlog, 'utf8');
      const launch = /Launching chrome: (.*)/.exec(cd)[1];
      assert.ok(launch.startsWith(`${h.WRAPPER_BIN} `), 'ChromeDriver launched the wrapper');
      assert.ok(launch.includes(mode === 'pipe' ? '--remote-debugging-pipe' : '--remote-debugging-port=0'),
        `ChromeDriver's ${mode === 'pipe' ? 'pipe' : 'port'}`);
      if (mode !== 'pipe') {
        const listening = /DevTools listening on ws:\/\/127\.0\.0\.1:(\d+)\//.exec(cd)[1];
        const used = /DevTools HTTP Request: http:\/\/localhost:(\d+)\//.exec(cd)[1];
        assert.equal(used, listening, 'ChromeDriver asked the proxy\'s port (the wrapper\'s DevTools line), not Chromium\'s');
      }
      // ChromeDriver's own count, its pipe included.
      const sent = [...cd.matchAll(/DevTools WebSocket Command: (\S+) \(id=(\d+)\)/g)].map((m) => `${m[1]}#${m[2]}`);
      assert.ok(sent.length > 10, `ChromeDriver's verbose log lists its commands (${sent.length})`);

      const files = fs.readdirSync(logs);
      assert.equal(files.length, 1, 'one wrapper, one log');
      const text = fs.readFileSync(path.join(logs, files[0]), 'utf8');
      const lines = text.split('\n').filter((l) => l !== '');
      assert.doesNotThrow(() => JSON.parse(lines[lines.length - 1]), `the log's last line is whole: ${lines[lines.length - 1].slice(0, 200)}`);
      const log = h.readLog(path.join(logs, files[0]));
      const cmds = log.filter((r) => r.kind === 'command');
      t.diagnostic(`ChromeDriver sent ${sent.length} commands (its log); the wrapper's log has ${cmds.length} commands, ` +
        `${log.filter((r) => r.kind === 'response').length} responses, ${log.length} records`);
      // Both need the log written as it goes: quit() ends the browser, and
      // so the wrapper, with SIGKILL.
      const logged = new Set(cmds.map((c) => `${c.method}#${c.id}`));
      assert.deepEqual(sent.filter((s) => !logged.has(s)), [], 'every command ChromeDriver sent is in the log');
      const answered = new Set(log.filter((r) => r.kind === 'response').map((r) => `${r.conn} ${r.id} ${r.session || ''}`));
      const unanswered = cmds.filter((c) => !answered.has(`${c.conn} ${c.id} ${c.session || ''}`));
      assert.deepEqual(unanswered.map((c) => `${c.method}#${c.id}`), [], 'every command in the log has its answer');
      // No close record: cdplog says so of every connection, and after which record.
      const sum = spawnSync(CDPLOG, ['summary', path.join(logs, files[0]), '--json'], { encoding: 'utf8' });
      const conns = JSON.parse(sum.stdout).connections;
      assert.ok(conns.length >= 1 && conns.every((c) => !c.closed &&
        c.ended.startsWith(`no close record: the process was killed after record ${log.length} `)),
      `cdplog: each connection ended with no close record, after the log's last record (${log.length}): ${JSON.stringify(conns)}`);
    } finally {
      dir.remove();
    }
  });
}

test('stop the local page', ALL, async () => {
  if (server) await server.close();
});
