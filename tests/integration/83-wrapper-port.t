#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 8: the wrapper's port mode as a raw client sees it, and its
// configuration: the "DevTools listening" line and DevToolsActivePort name
// the proxy; CDPPROXY_CONTROL serves /proxy/stats and /proxy/policy (PUT
// switches); SIGHUP reloads CDPPROXY_POLICY; SIGTERM ends Chromium and the
// wrapper with nothing left. A bad policy, CBOR pipes, a non-loopback
// control address: one line, exit 1, nothing started.
'use strict';
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');
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

test('port mode: the DevTools line, DevToolsActivePort, CDPPROXY_CONTROL, SIGHUP, SIGTERM', ALL, async (t) => {
  const dir = h.tmpdir('cdpproxy-wrap-port-');
  const profile = path.join(dir.dir, 'profile');
  const policies = path.join(dir.dir, 'policies');
  fs.mkdirSync(policies);
  for (const p of ['passthrough', 'no-network', 'network-postdata-cap'])
    fs.copyFileSync(path.join(h.ROOT, `policies/${p}.json`), path.join(policies, `${p}.json`));
  const active = path.join(policies, 'active.json');
  fs.copyFileSync(path.join(policies, 'passthrough.json'), active);
  const control = await freePort();
  const child = spawn(h.WRAPPER_BIN, [...h.CHROME_FLAGS, `--user-data-dir=${profile}`, '--remote-debugging-port=0'], {
    stdio: ['ignore', 'ignore', 'pipe'], detached: true,
    env: wr.wrapperEnv({ CDPPROXY_CONTROL: `127.0.0.1:${control}`, CDPPROXY_POLICY: active }),
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d; });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  try {
    const m = await h.waitFor(() => /^DevTools listening on ws:\/\/127\.0\.0\.1:(\d+)(\/devtools\/browser\/[\w-]+)$/m.exec(stderr),
      { timeout: 20000, what: 'the DevTools line' });
    const port = Number(m[1]);
    const chrome = wr.chromiumOf(child.pid);
    assert.equal((stderr.match(/DevTools listening on/g) || []).length, 1, 'one DevTools line: Chromium\'s own is replaced');
    assert.ok(!h.cmdline(chrome).includes(`--remote-debugging-port=${port}`), 'the port in the line is not Chromium\'s');
    const version = await h.getJSON(`http://127.0.0.1:${port}/json/version`);
    assert.equal(new URL(version.webSocketDebuggerUrl).port, String(port), 'discovery through it names it');
    const file = await h.waitFor(() => fs.readFileSync(path.join(profile, 'DevToolsActivePort'), 'utf8'), { what: 'DevToolsActivePort' });
    assert.equal(file, `${port}\n${m[2]}`, 'DevToolsActivePort names the proxy\'s port and the browser path');

    const stats = await h.getJSON(`http://127.0.0.1:${control}/proxy/stats`);
    assert.ok(stats.connections, 'CDPPROXY_CONTROL serves /proxy/stats');
    assert.equal((await h.getJSON(`http://127.0.0.1:${control}/proxy/policy`)).name, 'passthrough', 'and /proxy/policy');
    const put = await h.putPolicy(`http://127.0.0.1:${control}`, { name: 'no-network' });
    assert.equal(put.status, 200, `PUT /proxy/policy {"name":"no-network"} (beside CDPPROXY_POLICY): ${put.body}`);
    assert.equal((await h.getJSON(`http://127.0.0.1:${port}/proxy/policy`)).name, 'no-network', 'switched for the proxy');

    fs.copyFileSync(path.join(policies, 'network-postdata-cap.json'), active);
    process.kill(child.pid, 'SIGHUP');
    await h.waitFor(async () => (await h.getJSON(`http://127.0.0.1:${control}/proxy/policy`)).name === 'network-postdata-cap',
      { what: 'SIGHUP to reload CDPPROXY_POLICY' });

    const tree = [chrome, ...h.descendants(chrome)];
    process.kill(child.pid, 'SIGTERM');
    const end = await h.within(exited, 10000);
    t.diagnostic(`after SIGTERM: ${JSON.stringify(end)}`);
    assert.ok(end, 'SIGTERM (forwarded to Chromium) ends the wrapper');
    assert.deepEqual(await wr.goneWithin(tree, 2000), [], 'and Chromium');
    assert.deepEqual(wr.tmpdirsOf(child.pid), [], 'no temporary directory left');
  } finally {
    h.descendants(child.pid).forEach((p) => { try { process.kill(p, 'SIGKILL'); } catch { /* gone */ } });
    try { process.kill(child.pid, 'SIGKILL'); } catch { /* gone */ }
    dir.remove();
  }
});

test('refused at start with one line and exit 1, nothing started', ALL, () => {
  const dir = h.tmpdir('cdpproxy-wrap-bad-');
  const bad = path.join(dir.dir, 'bad.json');
  fs.writeFileSync(bad, '{"rules": [');
  const cases = [
    [{ CDPPROXY_POLICY: bad }, ['--remote-debugging-pipe'], new RegExp(`^cdpproxy-chromium: ${bad}: .+\\n$`)],
    [{}, ['--remote-debugging-pipe=cbor'], /^cdpproxy-chromium: --remote-debugging-pipe=cbor is not supported: .+\n$/],
    [{ CDPPROXY_CONTROL: '0.0.0.0:9999' }, ['--remote-debugging-port=0'], /^cdpproxy-chromium: CDPPROXY_CONTROL: 0\.0\.0\.0 is not a loopback address.*\n$/],
    [{}, ['--remote-debugging-pipe', '--remote-debugging-port=0'], /^cdpproxy-chromium: both .+\n$/],
  ];
  try {
    for (const [env, args, want] of cases) {
      const r = spawnSync(h.WRAPPER_BIN, args, { env: wr.wrapperEnv(env), encoding: 'utf8', timeout: 10000 });
      assert.equal(r.status, 1, `${JSON.stringify(env)} ${args}: exit 1 (${r.status}, ${r.stderr})`);
      assert.match(r.stderr, want, `${JSON.stringify(env)} ${args}: one line`);
      // (its own directories only: the tests run in parallel)
      assert.deepEqual(wr.tmpdirsOf(r.pid), [], 'no directory made');
    }
  } finally {
    dir.remove();
  }
});
