#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 9: the BiDi mapper's CDP through the proxy (proxy/mapper). Selenium
// (Debian's python3-selenium 4.8.3, a raw WebSocket to webSocketUrl) with
// ChromeDriver launching the wrapper with CDPPROXY_LOG, CDPPROXY_CONTROL and
// the policy network-postdata-cap: BiDi still works (session, navigate,
// script.evaluate, a log.entryAdded event); the log has the mapper's own
// connection, named as the mapper and riding on ChromeDriver's, with
// Target.attachToBrowserTarget and Network.enable on it; the policy's rule
// hits that Network.enable (/proxy/policy), so a 4 MiB Uint8Array upload
// from the page runs faster than with CDPPROXY_BIDI_CHANNEL=0, where the
// mapper's CDP never crosses the proxy and the upload's body is copied into
// its events uncapped. Both medians, and a classic WebDriver session's, are
// reported as diagnostics.
'use strict';
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { test } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./lib/harness');

const ALL = { timeout: 300000 };
const PYTHON = '/usr/bin/python3';   // Debian's, with its selenium and websocket
const POLICY = path.join(h.ROOT, 'policies', 'network-postdata-cap.json');
const UPLOADS = 5;

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

// As 93's: a Python script in a process group of its own, killed after timeout.
function python(script, args, timeout) {
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

// argv: the wrapper, the page, the control port, Chromium's flags (JSON),
// the uploads, "bidi" or "classic". Prints JSON: the BiDi answers and
// events, each upload's ms (timed in the page), /proxy/policy.
const SELENIUM = `
import json, sys, urllib.request, websocket
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
binary, url, control, flags, uploads, mode = sys.argv[1:7]
UPLOAD = "(async()=>{const b=new Uint8Array(4194304);const t=performance.now();" \\
         "const r=await (await fetch('/echo',{method:'POST',body:b})).json();return [performance.now()-t,r.bytes]})()"
o = webdriver.ChromeOptions()
o.binary_location = binary
for a in json.loads(flags):
    o.add_argument(a)
if mode == "bidi":
    o.set_capability("webSocketUrl", True)
d = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=o)
out = {"answers": {}, "events": [], "uploads": []}
try:
    d.get(url)
    if mode == "bidi":
        bidi = websocket.create_connection(d.capabilities["webSocketUrl"])
        def send(i, method, params):
            bidi.send(json.dumps({"id": i, "method": method, "params": params}))
            while True:
                m = json.loads(bidi.recv())
                if m.get("id") == i:
                    out["answers"][i] = m
                    return m
                out["events"].append(m)
        ctx = d.current_window_handle
        send(1, "session.subscribe", {"events": ["log.entryAdded"]})
        send(2, "browsingContext.navigate", {"context": ctx, "url": url, "wait": "complete"})
        send(3, "script.evaluate", {"expression": "console.log('through the channel'); 6 * 7",
                                    "awaitPromise": False, "target": {"context": ctx}})
        while not any(e.get("method") == "log.entryAdded" for e in out["events"]):
            out["events"].append(json.loads(bidi.recv()))
        for k in range(int(uploads)):
            r = send(10 + k, "script.evaluate", {"expression": UPLOAD, "awaitPromise": True,
                                                 "target": {"context": ctx}})
            out["uploads"].append(r["result"]["result"]["value"][0]["value"])
            out["upload_bytes"] = r["result"]["result"]["value"][1]["value"]
        bidi.close()
    else:
        for k in range(int(uploads)):
            out["uploads"].append(d.execute_script("return await " + UPLOAD)[0])
    if control != "0":
        out["policy"] = json.loads(urllib.request.urlopen("http://127.0.0.1:" + control + "/proxy/policy", timeout=10).read())
    print(json.dumps(out))
finally:
    d.quit()
`;

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };

// One Selenium session through the wrapper with env set; its output and
// its log's records.
async function session(server, env, mode) {
  const dir = h.tmpdir('cdpproxy-bidi-channel-');
  const logs = path.join(dir.dir, 'logs');
  fs.mkdirSync(logs);
  const control = await freePort();
  const all = { CDPPROXY_LOG: logs, CDPPROXY_CONTROL: `127.0.0.1:${control}`, CDPPROXY_POLICY: POLICY, ...env };
  const saved = {};
  for (const k of Object.keys(all)) { saved[k] = process.env[k]; process.env[k] = all[k]; }
  try {
    const out = JSON.parse(await python(SELENIUM, [h.WRAPPER_BIN, server.url, String(control),
      JSON.stringify(h.CHROME_FLAGS), String(UPLOADS), mode], 240000));
    const files = fs.readdirSync(logs);
    out.log = files.length === 1 ? h.readLog(path.join(logs, files[0])) : [];
    return out;
  } finally {
    for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k]; else process.env[k] = v;
    dir.remove();
  }
}

let server;
test('start the local page', ALL, async () => {
  server = await h.startServer();
});

let off;
test('CDPPROXY_BIDI_CHANNEL=0: the mapper\'s CDP stays inside Chrome', ALL, async (t) => {
  if (!server) return t.skip('no server');
  off = await session(server, { CDPPROXY_BIDI_CHANNEL: '0' }, 'bidi');
  assert.equal(off.answers[3].result.result.value, 42);
  assert.ok(!off.log.some((r) => r.kind === 'open' && r.client.library === 'chromium-bidi mapper'), 'no mapper connection');
  const fwd = off.log.find((r) => r.kind === 'channel');
  assert.ok(fwd && fwd.event === 'forwarded' && /--no-bidi-channel/.test(fwd.why), `the log says why: ${JSON.stringify(fwd)}`);
  assert.ok(off.log.some((r) => r.kind === 'command' && r.method === 'Target.exposeDevToolsProtocol' && !r.action),
    'exposeDevToolsProtocol went to Chrome');
  t.diagnostic(`channel off, capped policy: 4 MiB upload median ${median(off.uploads).toFixed(0)} ms (${off.uploads.map((x) => x.toFixed(0)).join(' ')})`);
});

test('the mapper\'s CDP crosses the proxy: logged, named, subject to the policy', ALL, async (t) => {
  if (!server) return t.skip('no server');
  const on = await session(server, {}, 'bidi');
  const a = on.answers;
  assert.equal(a[1].type, 'success', `session.subscribe: ${JSON.stringify(a[1])}`);
  assert.equal(a[2].type, 'success', `browsingContext.navigate: ${JSON.stringify(a[2])}`);
  assert.deepEqual(a[3].result.result, { type: 'number', value: 42 }, 'script.evaluate ran in the page');
  const ev = on.events.find((e) => e.method === 'log.entryAdded');
  assert.equal(ev && ev.params.text, 'through the channel', 'the subscribed event came');
  assert.equal(on.upload_bytes, 4194304, 'the server got the whole upload');

  const log = on.log;
  const opens = log.filter((r) => r.kind === 'open');
  const driver = opens.find((r) => r.client.library === 'chromedriver');
  const mapper = opens.find((r) => r.client.library === 'chromium-bidi mapper');
  assert.ok(driver && mapper, `ChromeDriver's connection and the mapper's: ${JSON.stringify(opens.map((r) => r.client))}`);
  assert.equal(mapper.client.by, 'channel');
  assert.equal(mapper.client.host_conn, driver.conn, 'the mapper\'s rides on ChromeDriver\'s');
  assert.equal(mapper.path, driver.path, 'to the same browser endpoint');
  const ch = log.find((r) => r.kind === 'channel' && r.event === 'open');
  assert.ok(ch && ch.conn === driver.conn && ch.mapper_conn === mapper.conn, `the channel record: ${JSON.stringify(ch)}`);
  const on2 = (m) => log.filter((r) => r.conn === mapper.conn && r.kind === 'command' && r.method === m);
  assert.ok(on2('Target.attachToBrowserTarget').length >= 1, 'Target.attachToBrowserTarget on the mapper\'s connection');
  const ne = on2('Network.enable');
  assert.ok(ne.length >= 1, 'Network.enable on the mapper\'s connection');
  assert.ok(ne.every((r) => r.action === 'rewrite'), `the policy rewrote it: ${JSON.stringify(ne)}`);
  assert.ok(on.policy.policy.rules[0].hits >= ne.length, `its hits in /proxy/policy: ${JSON.stringify(on.policy.policy.rules)}`);
  assert.ok(!log.some((r) => r.conn === driver.conn && r.kind === 'command' && r.method === 'Target.exposeDevToolsProtocol' && r.action !== 'channel'),
    'exposeDevToolsProtocol never reached Chrome');
  // The carriers: the mapper's messages each way on ChromeDriver's connection, the proxy's.
  assert.ok(log.some((r) => r.conn === driver.conn && r.method === 'Runtime.bindingCalled' && r.action === 'channel'), 'carriers up');
  assert.ok(log.some((r) => r.conn === driver.conn && r.method === 'Runtime.callFunctionOn' && r.by === 'proxy'), 'carriers down');

  const mOn = median(on.uploads);
  t.diagnostic(`channel on, capped policy: 4 MiB upload median ${mOn.toFixed(0)} ms (${on.uploads.map((x) => x.toFixed(0)).join(' ')})`);
  if (off) {
    const mOff = median(off.uploads);
    t.diagnostic(`off/on: ${(mOff / mOn).toFixed(2)}x`);
    assert.ok(mOn < mOff, `the capped upload is faster with the channel: ${mOn.toFixed(0)} ms vs ${mOff.toFixed(0)} ms`);
  }
});

test('a classic WebDriver session, for comparison', ALL, async (t) => {
  if (!server) return t.skip('no server');
  const classic = await session(server, {}, 'classic');
  t.diagnostic(`classic WebDriver: 4 MiB upload median ${median(classic.uploads).toFixed(0)} ms (${classic.uploads.map((x) => x.toFixed(0)).join(' ')})`);
});

test('stop the local page', ALL, async () => {
  if (server) await server.close();
});
