#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 8: CDPPROXY_CONTROL at a fixed port, as chrome-launcher's users need
// it (it hides the browser's stderr, where a port 0 would be named): a port
// already taken is one line and exit 1 in both modes, with no crash and
// nothing left behind.
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
