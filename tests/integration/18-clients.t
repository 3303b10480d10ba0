#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Clients the other tests do not use, each with its defaults, through one
// proxy: Playwright and Puppeteer at once (told apart in /proxy/stats, whose
// counts a POST /proxy/stats/reset starts again), Python websocket-client and
// websockets (same answer as Chrome itself), Selenium with debuggerAddress
// and WebDriver BiDi through ChromeDriver, and Chrome's DevTools frontend.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./lib/harness');

const ALL = { timeout: 90000 };
const PROXY_ONLY = { ...ALL, skip: h.DIRECT && 'CDPPROXY_DIRECT=1' };
// Debian's python3 with its python3-websocket(s) and python3-selenium, not
// whatever python3 comes first in PATH.
const PYTHON = '/usr/bin/python3';
let env;

// Runs a Python script with args in a process group of its own (ChromeDriver
// included), killed after timeout; resolves its stdout (throws with stderr).
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

// The open record of the newest connection whose client is `library`.
async function openedBy(library, what) {
  const recs = await h.waitForLog(env.proxy.logPath, (l) => l.some((r) => r.kind === 'open' &&
    r.client && r.client.library === library), what, 10000);
  return recs.filter((r) => r.kind === 'open' && r.client.library === library).pop();
}

test('start chromium, local server and cdpproxy (the DevTools frontend allowed)', ALL, async () => {
  env = await h.setup({ proxyArgs: ['--allow-origin', 'devtools://devtools'] });
});

test('Playwright and Puppeteer on one proxy at once, each told apart in /proxy/stats', PROXY_ONLY, async (t) => {
  if (!env) return t.skip('setup failed');
  const pw = await h.client('playwright-core').chromium.connectOverCDP(env.endpoint, { timeout: 15000 });
  const { webSocketDebuggerUrl } = await h.getJSON(`${env.endpoint}/json/version`);
  const pp = await h.client('puppeteer-core').connect({ browserWSEndpoint: webSocketDebuggerUrl, protocolTimeout: 15000 });
  try {
    const [a, b] = await Promise.all([pw.contexts()[0].newPage(), pp.newPage()]);
    await Promise.all([a.goto(env.server.url), b.goto(env.server.url)]);
    assert.equal(await a.title(), 'cdpproxy test page', 'Playwright\'s page loaded');
    assert.equal(await b.title(), 'cdpproxy test page', 'Puppeteer\'s page loaded');

    const stats = await h.getJSON(`${env.endpoint}/proxy/stats`);
    const by = (lib) => stats.connections.list.filter((c) => c.client.library === lib);
    t.diagnostic(JSON.stringify(stats.connections.list.map((c) => ({ id: c.id, ...c.client }))));
    assert.equal(by('playwright').length, 1, 'one Playwright connection');
    assert.equal(by('puppeteer').length, 1, 'one Puppeteer connection');
    const [p, q] = [by('playwright')[0], by('puppeteer')[0]];
    assert.notEqual(p.id, q.id, 'two connections');
    assert.match(p.client.user_agent, /^Playwright\/\d/, 'Playwright\'s User-Agent');
    assert.match(q.client.user_agent, /^Puppeteer \d/, 'Puppeteer\'s User-Agent');
    for (const c of [p, q]) {
      assert.equal(c.client.by, 'user-agent', `${c.client.library}: told by its User-Agent`);
      assert.match(c.client.remote, /^127\.0\.0\.1:\d+$/, `${c.client.library}: its address and port`);
    }
    assert.notEqual(p.client.remote, q.client.remote, 'each from its own port');
    assert.ok(stats.sessions.some((s) => s.conn === p.id && s.type === 'page'), 'Playwright\'s page session on its connection');
    assert.ok(stats.sessions.some((s) => s.conn === q.id && s.type === 'page'), 'Puppeteer\'s page session on its connection');

    const text = await h.httpRequest(`${env.endpoint}/proxy/stats?format=text`);
    assert.equal(text.status, 200, '?format=text: 200');
    assert.match(text.headers['content-type'], /^text\/plain/, 'as text');
    assert.match(text.body, new RegExp(`^conn ${p.id}  playwright \\(by user-agent\\)  127\\.0\\.0\\.1:\\d+  /devtools/browser/\\S+  Playwright/`, 'm'),
      `a line for Playwright's connection:\n${text.body.slice(0, 600)}`);
    assert.match(text.body, new RegExp(`^conn ${q.id}  puppeteer \\(by user-agent\\)`, 'm'), 'a line for Puppeteer\'s');
    assert.match(text.body, /^method +msgs_up +msgs_down +bytes_up +bytes_down +p50_us/m, 'the table printed at exit');
    assert.match(text.body, /^Page\.navigate +[1-9]/m, 'with Page.navigate counted');

    // A phase: the counts start again; a foreign page may not reset them.
    const foreign = await h.httpRequest(`${env.endpoint}/proxy/stats/reset`, { method: 'POST', headers: { Origin: 'http://evil.example' } });
    assert.equal(foreign.status, 403, `a foreign Origin may not reset: ${foreign.status}`);
    const reset = await h.httpRequest(`${env.endpoint}/proxy/stats/reset`, { method: 'POST' });
    assert.equal(reset.status, 200, `POST /proxy/stats/reset: ${reset.body}`);
    const after = await h.getJSON(`${env.endpoint}/proxy/stats`);
    assert.ok(!after.methods['Page.navigate'], 'Page.navigate forgotten by the reset');
    assert.ok(after.since_us > stats.since_us, 'since_us moved to the reset');
    assert.equal(after.connections.list.length, stats.connections.list.length, 'the connections stay');
    await b.evaluate(() => 1 + 1);
    const later = await h.getJSON(`${env.endpoint}/proxy/stats`);
    assert.ok(later.methods['Runtime.callFunctionOn'], 'counting goes on after the reset');
    await h.waitForLog(env.proxy.logPath, (l) => l.some((r) => r.kind === 'stats_reset'), 'a stats_reset record');
    const opens = h.readLog(env.proxy.logPath).filter((r) => r.kind === 'open');
    assert.ok(opens.some((r) => r.conn === p.id && r.client.library === 'playwright'), 'the open record names the client');
  } finally {
    await pp.disconnect();
    await pw.close();
  }
});

const WEBSOCKET_CLIENT = `
import json, sys, websocket
ws = websocket.create_connection(sys.argv[1])
ws.send(json.dumps({"id": 1, "method": "Browser.getVersion"}))
print(ws.recv())
ws.close()
`;

const WEBSOCKETS = `
import asyncio, json, sys, websockets
async def main():
    async with websockets.connect(sys.argv[1]) as ws:
        await ws.send(json.dumps({"id": 1, "method": "Browser.getVersion"}))
        print(await ws.recv())
asyncio.run(main())
`;

for (const [name, script, library] of [['websocket-client', WEBSOCKET_CLIENT, 'python-websocket-client'],
  ['websockets', WEBSOCKETS, 'python-websockets']]) {
  test(`Python ${name} with its defaults: the same answer as from Chrome itself`, ALL, async (t) => {
    if (!env) return t.skip('setup failed');
    const direct = JSON.parse(await python(script, [env.chrome.wsURL]));
    const { webSocketDebuggerUrl } = await h.getJSON(`${env.endpoint}/json/version`);
    const proxied = JSON.parse(await python(script, [webSocketDebuggerUrl]));
    assert.ok(direct.result && direct.result.product, `Chrome answered: ${JSON.stringify(direct)}`);
    assert.deepEqual(proxied, direct, 'the same answer through the proxy');
    if (env.direct) return;
    const open = await openedBy(library, `an open record of ${library}`);
    t.diagnostic(JSON.stringify(open.client));
  });
}

const SELENIUM = `
import json, sys, websocket
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
o = webdriver.ChromeOptions()
o.debugger_address = sys.argv[1]
o.set_capability("webSocketUrl", True)
d = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=o)
try:
    d.get(sys.argv[2])
    out = {"title": d.title, "marker": d.execute_script("return window.pageMarker")}
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

test('Selenium with debuggerAddress at the proxy, and WebDriver BiDi through ChromeDriver', ALL, async (t) => {
  if (!env) return t.skip('setup failed');
  const out = JSON.parse(await python(SELENIUM, [`127.0.0.1:${env.port}`, env.server.url], 80000));
  assert.equal(out.title, 'cdpproxy test page', 'WebDriver: get and title');
  assert.equal(out.marker, 'cdpproxy-42', 'WebDriver: execute_script');
  assert.equal(out.bidi.type, 'success', `BiDi script.evaluate: ${JSON.stringify(out.bidi)}`);
  assert.deepEqual(out.bidi.result.result, { type: 'string', value: 'cdpproxy test page' }, 'BiDi evaluated in the page');
  if (env.direct) return;
  const open = await openedBy('chromedriver', 'ChromeDriver\'s connection');
  // The log is written a tick after the messages: wait for BiDi's first event.
  const isBidi = (r) => r.conn === open.conn && r.kind === 'event' && r.method === 'Runtime.bindingCalled';
  const recs = (await h.waitForLog(env.proxy.logPath, (l) => l.some(isBidi), 'a Runtime.bindingCalled record', 10000)
    .catch(() => h.readLog(env.proxy.logPath))).filter((r) => r.conn === open.conn);
  const methods = new Set(recs.filter((r) => r.kind === 'command').map((r) => r.method));
  t.diagnostic(`ChromeDriver's commands: ${[...methods].sort().join(' ')}`);
  assert.ok(methods.has('Page.navigate') || methods.has('Runtime.evaluate'), 'ChromeDriver\'s CDP is in the log');
  // BiDi rides on CDP: the mapper's answers come back as Runtime.bindingCalled.
  assert.ok(recs.some((r) => r.kind === 'event' && r.method === 'Runtime.bindingCalled'),
    'BiDi arrives as Runtime.bindingCalled events');
});

test('Chrome\'s DevTools frontend through the proxy (--allow-origin devtools://devtools)', PROXY_ONLY, async (t) => {
  if (!env) return t.skip('setup failed');
  const cdp = await h.RawCDP.connect(env.chrome.wsURL);
  try {
    const { targetId } = await cdp.call('Target.createTarget', { url: env.server.url });
    const frontend = `devtools://devtools/bundled/inspector.html?ws=127.0.0.1:${env.port}/devtools/page/${targetId}`;
    const fe = await cdp.call('Target.createTarget', { url: frontend });
    const open = await openedBy('devtools-frontend', 'the frontend\'s connection');
    assert.equal(open.path, `/devtools/page/${targetId}`, 'it opened the page it inspects');
    assert.equal(open.client.by, 'handshake', 'told by its Origin');
    assert.match(open.client.user_agent, /Chrome\//, 'a browser\'s User-Agent');
    const recs = await h.waitForLog(env.proxy.logPath, (l) => l.some((r) => r.conn === open.conn &&
      r.kind === 'response' && r.method === 'Network.enable'), 'the frontend\'s Network.enable answered', 15000);
    const cmds = recs.filter((r) => r.conn === open.conn && r.kind === 'command').map((r) => r.method);
    t.diagnostic(`the frontend sent ${cmds.length} commands: ${[...new Set(cmds)].slice(0, 12).join(' ')} ...`);
    assert.ok(cmds.includes('Runtime.enable') && cmds.includes('Page.enable'), 'its Runtime.enable and Page.enable');
    await cdp.call('Target.closeTarget', { targetId: fe.targetId });
    await cdp.call('Target.closeTarget', { targetId });
  } finally {
    await cdp.close();
  }
});

test('proxy exits cleanly', PROXY_ONLY, async (t) => {
  if (!env) return t.skip('setup failed');
  const result = await env.stopProxy();
  h.checkProxyExit(assert, result, env.proxy.logPath);
});

test('stop everything', ALL, async (t) => {
  if (!env) return t.skip('setup failed');
  await env.teardown();
});
