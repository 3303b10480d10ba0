#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// A message cut through on the WebSocket leg is never far ahead of its
// reader (24 checks the pipe leg; core.h CORE_READ_AHEAD, the one rule).
// Chrome sends 64 MiB in one message to a client that reads nothing for
// 3 s: cdpproxy reads about 1 MiB more of it than the sockets toward the
// client took, then holds, so its memory stays far below the message and
// Chrome's write waits, as it would with no proxy (before, it read all
// 64 MiB while the client read nothing). Then the client reads: the
// message whole, then the answer after it. Chrome is tools/bench-large.js's
// fake one, which writes the message at once (a real Chromium takes tens
// of seconds to make one this large on a loaded 2-core machine).
'use strict';
const path = require('node:path');
const fs = require('node:fs');
const { fork } = require('node:child_process');
const { test } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./lib/harness');

const MIB = 64;

test(`a client that does not read a ${MIB} MiB message: cdpproxy holds about 1 MiB ahead of it, then delivers it whole`, { timeout: 60000 }, async (t) => {
  const chrome = fork(path.join(h.ROOT, 'tools/bench-large.js'), ['--fake-chrome'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let proxy = null;
  try {
    const port = await new Promise((resolve, reject) => {
      chrome.on('message', (m) => { if (m.port) resolve(m.port); });
      chrome.once('exit', (code) => reject(new Error(`the fake Chrome exited ${code}`)));
    });
    proxy = await h.startProxy({ upstreamPort: port });
    const sock = await h.rawUpgrade(proxy.port, '/devtools/page/bench', { paused: true });
    const rssBefore = h.rssKiB(proxy.pid);
    sock.write(h.wsClientFrame(1, `{"id":1,"method":"Bench.large","params":{"size":${MIB << 20}}}`));
    await h.sleep(3000);
    const status = fs.readFileSync(`/proc/${proxy.pid}/status`, 'utf8');
    const peakKiB = Number(/VmHWM:\s+(\d+)/.exec(status)[1]);
    t.diagnostic(`cdpproxy RSS ${(rssBefore / 1024).toFixed(0)} MiB before, peak ${(peakKiB / 1024).toFixed(0)} MiB with the ${MIB} MiB message unread`);
    if (!process.env.CDPPROXY_SANITIZED)
      assert.ok(peakKiB - rssBefore < 24 * 1024,
        `cdpproxy grew ${((peakKiB - rssBefore) / 1024).toFixed(0)} MiB: under 24 MiB of a ${MIB} MiB message its reader has not read`);
    const [event, answer] = await h.readFrames(sock, 2);
    assert.equal(event.payload.length, MIB << 20, 'the message whole');
    assert.ok(event.payload.subarray(0, 40).toString().startsWith('{"method":"Bench.large"'), 'the message first');
    assert.equal(JSON.parse(answer.payload.toString()).id, 1, 'then the answer');
    sock.destroy();
    const r = await proxy.stop();
    proxy = null;
    assert.equal(r.code, 0, `cdpproxy exits 0: ${r.stderr.slice(-2000)}`);
  } finally {
    if (proxy) await proxy.stop();
    chrome.kill('SIGKILL');
  }
});
