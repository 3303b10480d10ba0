#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 1: Playwright's chromium.connectOverCDP through cdpproxy, by the HTTP
// endpoint and by the WebSocket endpoint: page, goto, evaluate, route; then
// the proxy's /proxy/stats and log must show the page session's Network.enable.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./lib/harness');

const ALL = { timeout: 50000 };
let env;
const seen = {}; // label -> {targetId, conn, sessionId} of the page, from /proxy/stats

async function playwrightScenario(t, label, connectTo) {
  const { chromium } = h.client('playwright-core');
  const browser = await chromium.connectOverCDP(connectTo, { timeout: 15000 });
  try {
    const context = browser.contexts()[0];
    assert.ok(context, 'connectOverCDP gives the default context');
    const page = await context.newPage();
    const resp = await page.goto(env.server.url);
    assert.equal(resp.status(), 200, 'goto the local page: 200');
    assert.equal(await page.title(), 'cdpproxy test page');
    assert.equal(await page.evaluate(() => window.pageMarker), 'cdpproxy-42', 'evaluate in the page');
    assert.equal(await page.textContent('#greeting'), 'hello from the test server');

    // route.fulfill: the page sees the routed body and the server sees nothing.
    const before = env.server.requests.filter((r) => r.path === '/data.json').length;
    await page.route('**/data.json', (route) => route.fulfill({
      status: 200, contentType: 'application/json', body: JSON.stringify({ source: `route-${label}` }),
    }));
    const data = await page.evaluate(() => fetch('/data.json').then((r) => r.json()));
    assert.deepEqual(data, { source: `route-${label}` }, 'fulfilled route answered the fetch');
    assert.equal(env.server.requests.filter((r) => r.path === '/data.json').length, before,
      'fulfilled request never reached the server');

    // route.continue with an added header: the server sees header and body.
    await page.route('**/echo', (route) => route.continue({
      headers: { ...route.request().headers(), 'x-cdpproxy-test': label },
    }));
    const echo = await page.evaluate(async () => {
      const body = new Uint8Array(200000);
      for (let i = 0; i < body.length; i++) body[i] = (i * 31) & 255;
      const r = await fetch('/echo', { method: 'POST', body });
      return r.json();
    });
    const expected = Buffer.alloc(200000);
    for (let i = 0; i < expected.length; i++) expected[i] = (i * 31) & 255;
    assert.deepEqual(echo, { bytes: 200000, sha256: h.sha256(expected), header: label },
      'continued route reached the server with its header and intact POST body');

    const cdp = await context.newCDPSession(page);
    const { targetInfo } = await cdp.send('Target.getTargetInfo');
    await cdp.detach();
    const info = { targetId: targetInfo.targetId };

    if (!env.direct) {
      const stats = await h.getJSON(`${env.endpoint}/proxy/stats`);
      assert.equal(typeof stats.connections, 'object', '/proxy/stats has connections');
      assert.ok(stats.connections.open >= 1, `at least one open connection: ${JSON.stringify(stats.connections)}`);
      assert.ok(Array.isArray(stats.sessions), '/proxy/stats has a sessions array');
      assert.ok(stats.methods && stats.methods['Network.enable'], '/proxy/stats counts Network.enable under methods');
      assert.ok(stats.domains && stats.domains.Network, '/proxy/stats counts the Network domain');
      const mine = stats.sessions.filter((s) => s.targetId === info.targetId && s.type === 'page' &&
        s.sessionId && s.enabled && Object.prototype.hasOwnProperty.call(s.enabled, 'Network'));
      assert.equal(mine.length, 1,
        `one page session of target ${info.targetId} with Network enabled; sessions: ${JSON.stringify(stats.sessions)}`);
      Object.assign(info, { conn: mine[0].conn, sessionId: mine[0].sessionId });
      t.diagnostic(`${label}: page session ${info.sessionId} on conn ${info.conn}, enabled ${JSON.stringify(mine[0].enabled)}`);
    }
    seen[label] = info;
    await page.close();
  } finally {
    await browser.close();
  }
}

test('start chromium, local server and cdpproxy', ALL, async () => {
  env = await h.setup();
});

test('connectOverCDP(http://proxy): page, goto, evaluate, route', ALL, async (t) => {
  if (!env) return t.skip('setup failed');
  await playwrightScenario(t, 'http', env.endpoint);
});

test('connectOverCDP(webSocketDebuggerUrl from /json/version)', ALL, async (t) => {
  if (!env) return t.skip('setup failed');
  const version = await h.getJSON(`${env.endpoint}/json/version`);
  const u = new URL(version.webSocketDebuggerUrl);
  assert.equal(u.host, `127.0.0.1:${env.port}`, 'webSocketDebuggerUrl points at the endpoint');
  await playwrightScenario(t, 'ws', version.webSocketDebuggerUrl);
});

test('proxy exits cleanly; log shows each page session\'s Network.enable', { ...ALL, skip: h.DIRECT && 'CDPPROXY_DIRECT=1' }, async (t) => {
  if (!env) return t.skip('setup failed');
  const result = await env.stopProxy();
  const records = h.checkProxyExit(assert, result, env.proxy.logPath);
  for (const label of ['http', 'ws']) {
    const s = seen[label];
    assert.ok(s && s.sessionId, `${label}: page session known from /proxy/stats`);
    const open = records.find((r) => r.kind === 'open' && r.conn === s.conn);
    assert.ok(open && /^\/devtools\/browser\//.test(open.path), `${label}: conn ${s.conn} opened on /devtools/browser/: ${JSON.stringify(open)}`);
    assert.equal(open.leg, 'websocket', `${label}: on the WebSocket leg`);
    const cmd = records.find((r) => r.dir === 'up' && r.kind === 'command' && r.method === 'Network.enable' &&
      r.session === s.sessionId && r.conn === s.conn);
    assert.ok(cmd, `${label}: log has Network.enable sent up on conn ${s.conn} session ${s.sessionId}`);
    assert.equal(typeof cmd.id, 'number', 'command record has its id');
    const resp = records.find((r) => r.dir === 'down' && r.kind === 'response' && r.conn === s.conn &&
      r.id === cmd.id && r.session === s.sessionId);
    assert.ok(resp, `${label}: log has the response to Network.enable (id ${cmd.id})`);
    assert.equal(resp.method, 'Network.enable', 'response record carries its command\'s method');
    assert.ok(Number.isInteger(resp.rtt_us) && resp.rtt_us >= 0, `response has rtt_us: ${JSON.stringify(resp)}`);
    const attached = records.find((r) => r.kind === 'session' && r.event === 'attached' && r.conn === s.conn &&
      r.session === s.sessionId);
    assert.ok(attached && attached.type === 'page' && attached.targetId, `${label}: a session record maps the session to its page target: ${JSON.stringify(attached)}`);
    assert.ok(attached.browserContextId, `${label}: with its browser context`);
    assert.ok(records.some((r) => r.kind === 'session' && r.event === 'url' && r.session === s.sessionId && /^http:/.test(r.url)),
      `${label}: and a record when its URL changed to the test page`);
    const closed = h.closesOf(records, s.conn);
    assert.ok(closed.some((r) => r.by === 'client'), `${label}: Playwright closed the connection: ${JSON.stringify(closed)}`);
  }
});

test('stop everything', ALL, async (t) => {
  if (!env) return t.skip('setup failed');
  await env.teardown();
  assert.equal(env.chrome.exited() !== null, true, 'chromium exited');
});
