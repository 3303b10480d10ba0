#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// A message cut through on the wrapper's pipe is never far ahead of its
// reader. The browser sends 48 MiB in one message to a client that reads
// nothing for 3 s: the wrapper reads about READ_AHEAD (1 MiB) more of it
// than the client's pipe took, then holds, so its memory stays far below
// the message and the browser's write waits, as it would with no proxy
// (before, the wrapper read all 48 MiB while the client read nothing, and
// the client got the last byte a whole read of it after the browser sent
// it). Then the client reads: the message whole, then the answer after it.
// The browser is tools/bench-large.js's fake one, which writes 48 MiB at
// once: Chromium takes over 30 s to make a 48 MiB answer on a loaded
// 2-core machine, so whether the wrapper holds could not be seen with it.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./lib/harness');
const wr = require('./lib/wrapper');

const MIB = 48;

test(`a client that does not read a ${MIB} MiB message: the wrapper holds about 1 MiB ahead of it, then delivers it whole`, { timeout: 60000 }, async (t) => {
  const dir = h.tmpdir('cdpproxy-readahead-');
  const fake = path.join(dir.dir, 'fake-chrome');
  fs.writeFileSync(fake, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(h.ROOT, 'tools/bench-large.js'))} --fake-pipe-chrome "$@"\n`, { mode: 0o755 });
  const w = wr.spawnPipeWrapper(dir.dir, { CDPPROXY_CHROMIUM: fake });
  try {
    const rssBefore = h.rssKiB(w.child.pid);
    w.child.stdio[4].pause();   // from now on nothing is read from fd 4
    await w.write(`{"id":1,"method":"Bench.large","params":{"size":${MIB << 20}}}\0`);
    await h.sleep(3000);
    const peakKiB = Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${w.child.pid}/status`, 'utf8'))[1]);
    t.diagnostic(`wrapper RSS ${(rssBefore / 1024).toFixed(0)} MiB before, peak ${(peakKiB / 1024).toFixed(0)} MiB with the ${MIB} MiB message unread`);
    if (!process.env.CDPPROXY_SANITIZED)
      assert.ok(peakKiB - rssBefore < 16 * 1024,
        `the wrapper grew ${((peakKiB - rssBefore) / 1024).toFixed(0)} MiB: under 16 MiB of a ${MIB} MiB message its reader has not read`);
    const raw = [];
    let nuls = 0;   // counted as the bytes come: joining them at every poll would copy 48 MiB each time
    w.child.stdio[4].removeAllListeners('data');   // the raw bytes: the event is no JSON to parse whole here
    w.child.stdio[4].on('data', (d) => { raw.push(d); for (let i = d.indexOf(0); i >= 0; i = d.indexOf(0, i + 1)) nuls++; });
    w.child.stdio[4].resume();
    await h.waitFor(() => nuls >= 2, { timeout: 30000, what: 'the message and the answer' });
    const all = Buffer.concat(raw), end = all.indexOf(0);
    const event = all.subarray(0, end), answer = JSON.parse(all.subarray(end + 1, all.indexOf(0, end + 1)).toString());
    assert.equal(event.length, MIB << 20, 'the message whole');
    assert.ok(event.subarray(0, 40).toString().startsWith('{"method":"Bench.large"'), 'the message first');
    assert.equal(answer.id, 1, 'then the answer');
    assert.ok(answer.result.lastIn >= answer.result.firstIn, 'which carries the browser\'s marks');
    w.child.stdio[3].end();
    assert.deepEqual(await h.within(w.exited, 10000), { code: 0, signal: null }, 'ends cleanly');
  } finally {
    try { process.kill(w.child.pid, 'SIGKILL'); } catch { /* gone */ }
    dir.remove();
  }
});
