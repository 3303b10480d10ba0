#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 8: the wrapper against what a stranger passes it (issues 27 and 33).
// Switches read as Chromium reads them (-x, last one wins): no port of
// Chromium's own beside the proxy, Chromium bound to loopback whatever
// address the client gives.
'use strict';
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { spawn, spawnSync, execFileSync } = require('node:child_process');
const { test } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./lib/harness');
const wr = require('./lib/wrapper');

const ALL = { timeout: 60000 };

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

// The TCP listening addresses ("127.0.0.1:9222") of process pid, from the kernel.
function listeningOf(pid) {
  const out = execFileSync('ss', ['-ltnpH'], { encoding: 'utf8' });
  return out.split('\n').filter((l) => l.includes(`pid=${pid},`)).map((l) => l.trim().split(/\s+/)[3]);
}

// Starts the wrapper in port mode with args; resolves its DevTools line's port.
async function startPort(args, env = {}) {
  const child = spawn(h.WRAPPER_BIN, args, { stdio: ['ignore', 'ignore', 'pipe'], detached: true, env: wr.wrapperEnv(env) });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d; });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const stop = async () => {
    try { process.kill(child.pid, 'SIGTERM'); } catch { /* gone */ }
    await Promise.race([exited, h.sleep(5000)]);
    h.descendants(child.pid).forEach((p) => { try { process.kill(p, 'SIGKILL'); } catch { /* gone */ } });
    try { process.kill(child.pid, 'SIGKILL'); } catch { /* gone */ }
  };
  const m = await h.waitFor(() => /^DevTools listening on ws:\/\/([\d.]+):(\d+)\//m.exec(stderr),
    { timeout: 20000, what: 'the DevTools line' }).catch(async (e) => { await stop(); throw e; });
  return { child, exited, stop, port: Number(m[2]), host: m[1], stderr: () => stderr };
}

test('issue 27 #1: -remote-debugging-port beside the pipe is refused like --remote-debugging-port', ALL, () => {
  for (const args of [['--remote-debugging-pipe', '-remote-debugging-port=9333'], ['-remote-debugging-pipe', '--remote-debugging-port=9333']]) {
    const r = spawnSync(h.WRAPPER_BIN, args, { env: wr.wrapperEnv(), encoding: 'utf8', timeout: 10000, stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'] });
    assert.equal(r.status, 1, `${args}: exit 1 (${r.status}, ${r.stderr})`);
    assert.match(r.stderr, /^cdpproxy-chromium: both --remote-debugging-pipe and --remote-debugging-port: .+\n$/, `${args}: one line`);
  }
});

test('issue 27 #1: -remote-debugging-port=N and --remote-debugging-address=0.0.0.0: the proxy on N, Chromium on loopback only', ALL, async (t) => {
  const profile = h.tmpdir('cdpproxy-wrap-hard-');
  const want = await freePort();
  const w = await startPort([...h.CHROME_FLAGS, `--user-data-dir=${profile.dir}`, `-remote-debugging-port=${want}`,
    '--remote-debugging-address=0.0.0.0']);
  try {
    assert.equal(w.port, want, 'the DevTools line names the port the client asked for');
    const chrome = wr.chromiumOf(w.child.pid);
    assert.ok(chrome, 'the wrapper started Chromium (it did not exec it)');
    const argv = h.cmdline(chrome);
    assert.ok(!argv.some((a) => a.includes(`remote-debugging-port=${want}`)), `Chromium did not get the client's port: ${argv.join(' ')}`);
    assert.ok(argv.includes('--remote-debugging-address=127.0.0.1') && !argv.some((a) => a.includes('0.0.0.0')),
      'Chromium\'s address is the wrapper\'s (loopback)');
    const bound = listeningOf(chrome);
    t.diagnostic(`Chromium listens on ${bound.join(', ')}; the proxy on ${listeningOf(w.child.pid).join(', ')}`);
    assert.ok(bound.length > 0 && bound.every((a) => a.startsWith('127.0.0.1:')), `Chromium bound to loopback only: ${bound}`);
    assert.ok(!bound.includes(`127.0.0.1:${want}`), 'and not on the client\'s port');
    assert.deepEqual(listeningOf(w.child.pid), [`127.0.0.1:${want}`], 'the proxy is what listens on it (loopback)');
    const version = await h.getJSON(`http://127.0.0.1:${want}/json/version`);
    assert.equal(new URL(version.webSocketDebuggerUrl).port, String(want), 'discovery through the proxy names the proxy');
  } finally {
    await w.stop();
    profile.remove();
  }
});

test('issue 27 #9: a message size past 4GiB is refused at start, by the wrapper and by cdpproxy', ALL, () => {
  const huge = '18446744073709551615';
  const r = spawnSync(h.WRAPPER_BIN, [...h.CHROME_FLAGS, '--remote-debugging-pipe'], {
    env: wr.wrapperEnv({ CDPPROXY_MAX_MESSAGE: huge }), encoding: 'utf8', timeout: 5000, stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'],
  });
  assert.equal(r.status, 1, `the wrapper: exit 1 (${r.status} ${r.signal}, ${r.stderr})`);
  assert.match(r.stderr, new RegExp(`^cdpproxy-chromium: CDPPROXY_MAX_MESSAGE: '${huge}' is above 4GiB[^\\n]*\\n$`), 'one line with the reason');
  const p = spawnSync(h.PROXY_BIN, ['--listen', '127.0.0.1:0', '--max-message', huge], { encoding: 'utf8', timeout: 5000 });
  assert.notEqual(p.status, 0, `cdpproxy: refused (${p.status} ${p.signal})`);
  assert.match(p.stderr, new RegExp(`--max-message: '${huge}' is above 4GiB`), `cdpproxy says why: ${p.stderr}`);
  assert.ok(!/not reachable/.test(p.stderr), 'before looking for Chrome');
});
