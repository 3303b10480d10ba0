#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 1: Puppeteer's connect({browserURL}) and connect({browserWSEndpoint})
// through cdpproxy: newPage, goto, evaluate, request interception, close;
// then /proxy/stats and the log must show the page session's Network.enable.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./lib/harness');

const ALL = { timeout: 50000 };
let env;
const seen = {}; // label -> {targetId, conn, sessionId}

async function puppeteerScenario(t, label, connectOpts) {
  const puppeteer = h.client('puppeteer-core');
  const browser = await puppeteer.connect({ ...connectOpts, protocolTimeout: 15000 });
  try {
    const version = await browser.version();
    assert.match(version, /Chrom/, `browser.version() through the endpoint: ${version}`);
    const page = await browser.newPage();
    const resp = await page.goto(env.server.url, { waitUntil: 'load', timeout: 15000 });
    assert.equal(resp.status(), 200, 'goto the local page: 200');
    assert.equal(await page.title(), 'cdpproxy test page');
    assert.equal(await page.evaluate(() => window.pageMarker), 'cdpproxy-42', 'evaluate in the page');

    // Interception (Fetch.enable): answer data.json, pass the rest on.
    const before = env.server.requests.filter((r) => r.path === '/data.json').length;
    await page.setRequestInterception(true);
    page.on('request', (req) => {
      if (req.isInterceptResolutionHandled()) return;
      if (req.url().endsWith('/data.json')) {
        req.respond({ status: 200, contentType: 'application/json', body: JSON.stringify({ source: `intercept-${label}` }) });
      } else {
        req.continue();
      }
    });
    const data = await page.evaluate(() => fetch('/data.json').then((r) => r.json()));
    assert.deepEqual(data, { source: `intercept-${label}` }, 'intercepted request answered by the client');
    assert.equal(env.server.requests.filter((r) => r.path === '/data.json').length, before,
      'answered request never reached the server');
    const echo = await page.evaluate(() => fetch('/echo', { method: 'POST', body: 'abc'.repeat(1000) }).then((r) => r.json()));
    assert.equal(echo.bytes, 3000, 'continued POST reached the server');
    await page.setRequestInterception(false);

    const cdp = await page.createCDPSession();
    const { targetInfo: { targetId } } = await cdp.send('Target.getTargetInfo');
    await cdp.detach();
    assert.ok(targetId, 'page target id');
    const info = { targetId };
    if (!env.direct) {
      const stats = await h.getJSON(`${env.endpoint}/proxy/stats`);
      assert.ok(Array.isArray(stats.sessions), '/proxy/stats has a sessions array');
      const mine = stats.sessions.filter((s) => s.targetId === targetId && s.type === 'page' &&
        s.sessionId && s.enabled && Object.prototype.hasOwnProperty.call(s.enabled, 'Network'));
      assert.equal(mine.length, 1,
        `one page session of target ${targetId} with Network enabled; sessions: ${JSON.stringify(stats.sessions)}`);
      Object.assign(info, { conn: mine[0].conn, sessionId: mine[0].sessionId });
      t.diagnostic(`${label}: page session ${info.sessionId} on conn ${info.conn}, enabled ${JSON.stringify(mine[0].enabled)}`);
    }
    seen[label] = info;
    await page.close();
  } finally {
    await browser.disconnect();
  }
}

test('start chromium, local server and cdpproxy', ALL, async () => {
  env = await h.setup();
});

test('puppeteer.connect({browserURL}): newPage, goto, evaluate, intercept, close', ALL, async (t) => {
  if (!env) return t.skip('setup failed');
  await puppeteerScenario(t, 'browserURL', { browserURL: env.endpoint });
});

test('puppeteer.connect({browserWSEndpoint}) from the endpoint\'s /json/version', ALL, async (t) => {
  if (!env) return t.skip('setup failed');
  const version = await h.getJSON(`${env.endpoint}/json/version`);
  assert.equal(new URL(version.webSocketDebuggerUrl).host, `127.0.0.1:${env.port}`,
    'webSocketDebuggerUrl points at the endpoint');
  await puppeteerScenario(t, 'browserWSEndpoint', { browserWSEndpoint: version.webSocketDebuggerUrl });
});

test('proxy exits cleanly; log shows each page session\'s Network.enable', { ...ALL, skip: h.DIRECT && 'CDPPROXY_DIRECT=1' }, async (t) => {
  if (!env) return t.skip('setup failed');
  const result = await env.stopProxy();
  const records = h.checkProxyExit(assert, result, env.proxy.logPath);
  for (const label of ['browserURL', 'browserWSEndpoint']) {
    const s = seen[label];
    assert.ok(s && s.sessionId, `${label}: page session known from /proxy/stats`);
    const cmd = records.find((r) => r.dir === 'up' && r.kind === 'command' && r.method === 'Network.enable' &&
      r.session === s.sessionId && r.conn === s.conn);
    assert.ok(cmd, `${label}: log has Network.enable sent up on conn ${s.conn} session ${s.sessionId}`);
    const resp = records.find((r) => r.dir === 'down' && r.kind === 'response' && r.conn === s.conn &&
      r.id === cmd.id && r.session === s.sessionId);
    assert.ok(resp && resp.method === 'Network.enable' && Number.isInteger(resp.rtt_us),
      `${label}: response to Network.enable logged with method and rtt_us: ${JSON.stringify(resp)}`);
    const fetchEnable = records.find((r) => r.dir === 'up' && r.kind === 'command' && r.method === 'Fetch.enable' &&
      r.session === s.sessionId);
    assert.ok(fetchEnable, `${label}: log has Fetch.enable (request interception) on the page session`);
    const events = records.filter((r) => r.dir === 'down' && r.kind === 'event' && r.session === s.sessionId);
    assert.ok(events.some((r) => r.method === 'Network.requestWillBeSent'),
      `${label}: log has Network.requestWillBeSent events for the page session`);
  }
});

test('stop everything', ALL, async (t) => {
  if (!env) return t.skip('setup failed');
  await env.teardown();
  assert.notEqual(env.chrome.exited(), null, 'chromium exited');
});
