#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 8: Selenium (Debian's python3-selenium) with ChromeDriver launching
// the wrapper as its browser. First what ChromeDriver relies on in port
// mode: DevToolsActivePort, read as soon as it exists, never names
// Chromium's own port (a third of ChromeDriver's sessions bypassed the proxy
// when it did).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./lib/harness');
const wr = require('./lib/wrapper');

const ALL = { timeout: 90000 };

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
