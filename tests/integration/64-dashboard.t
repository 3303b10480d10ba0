#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// The dashboard at /proxy/, opened in a real Chromium (launched by
// Playwright) while a Playwright session works through the proxy: the
// session shows with its URL and Network.enable, the switcher changes the
// policy, the live tail shows the session's messages, text from the browser
// stays text, and the page logs no error. The screenshot is left in
// build/dashboard.png. With --token, the page and its endpoints need it.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const h = require('./lib/harness');

const ALL = { timeout: 120000, skip: h.DIRECT && 'CDPPROXY_DIRECT=1' };
let env;

test('start chromium, the server and cdpproxy', ALL, async () => {
  env = await h.setup({ proxyArgs: ['--policy-dir', path.join(h.ROOT, 'policies')] });
});

test('the dashboard shows a live Playwright session, switches the policy, tails messages', ALL, async () => {
  const { chromium } = h.client('playwright-core');
  const rig = await chromium.connectOverCDP(env.endpoint);
  const viewer = await chromium.launch({ executablePath: h.CHROMIUM, args: ['--no-sandbox'] });
  try {
    const page = await rig.contexts()[0].newPage();
    const evil = '<img src=x onerror="window.__xss=1;alert(1)">';
    await page.goto(env.server.url);
    const dash = await viewer.newPage({ viewport: { width: 1400, height: 1000 } });
    const problems = [];
    dash.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
    dash.on('pageerror', (e) => problems.push(e.message));
    dash.on('dialog', (d) => { problems.push(`dialog: ${d.message()}`); d.dismiss(); });
    await dash.goto(`${env.endpoint}/proxy/`);
    await dash.waitForFunction(() => document.querySelector('#sessions').textContent.includes('Network'), null, { timeout: 20000 });
    const sessions = await dash.textContent('#sessions');
    assert.ok(sessions.includes(env.server.url), `the session's URL is shown: ${sessions.slice(0, 300)}`);
    // Chrome encodes markup in URLs; a client's method name it passes as is.
    const version = await h.getJSON(`${env.endpoint}/json/version`);
    const raw = await h.RawCDP.connect(version.webSocketDebuggerUrl);
    await raw.send(`Evil.${evil}`);
    await dash.waitForFunction((m) => document.querySelector('#tail-body').textContent.includes(m), `Evil.${evil}`, { timeout: 10000 });
    assert.equal(await dash.evaluate(() => window.__xss), undefined, 'a method name with markup shows as text: no script of it ran');
    assert.equal(await dash.locator('#tail-body img, #rtts img').count(), 0, 'and no element was made of it');
    await raw.close();

    await dash.waitForFunction(() => [...document.querySelectorAll('#pol-choice option')].some((o) => o.value === 'network-postdata-cap'));
    await dash.selectOption('#pol-choice', 'network-postdata-cap');
    await dash.click('#pol-switch');
    await dash.waitForFunction(() => document.querySelector('#pol-msg').textContent.includes('now network-postdata-cap'), null, { timeout: 10000 });
    const pol = await h.getJSON(`${env.endpoint}/proxy/policy`);
    assert.equal(pol.name, 'network-postdata-cap', 'the switch reached the proxy');

    for (let i = 0; i < 5; i++) await page.evaluate(() => 6 * 7);
    await dash.waitForFunction(() => document.querySelector('#tail-body').textContent.includes('Runtime.evaluate'), null, { timeout: 10000 });
    await dash.waitForTimeout(1200);   // a second of rates for the chart
    await dash.screenshot({ path: path.join(h.ROOT, 'build/dashboard.png'), fullPage: true });
    assert.deepEqual(problems, [], 'the dashboard logged no error and raised no dialog');
    const log = h.readLog(env.proxy.logPath);
    assert.ok(log.some((r) => r.kind === 'policy' && r.name === 'network-postdata-cap' && r.via === 'PUT'),
      'the log has the switch made from the page');
  } finally {
    await viewer.close();
    await rig.close();
  }
});

test('a page of another origin may not switch the policy', ALL, async () => {
  const r = await h.httpRequest(`${env.endpoint}/proxy/policy`, {
    method: 'PUT', headers: { origin: 'http://127.0.0.1:1', 'content-type': 'application/json' },
    body: '{"name":"passthrough"}',
  });
  assert.equal(r.status, 403, `another origin: ${r.status}`);
  const own = await h.httpRequest(`${env.endpoint}/proxy/policy`, {
    method: 'PUT', headers: { origin: env.endpoint, 'content-type': 'application/json' },
    body: '{"name":"passthrough"}',
  });
  assert.equal(own.status, 200, `the proxy's own origin (its dashboard): ${own.status} ${own.body}`);
});

test('the proxy exits cleanly', ALL, async () => {
  const result = await env.stopProxy();
  h.checkProxyExit(assert, result, env.proxy.logPath);
  await env.teardown();
});

test('with --token: the dashboard and its endpoints answer 401 without it', ALL, async () => {
  const chrome = await h.startChrome();
  const proxy = await h.startProxy({ upstreamPort: chrome.port, args: ['--token', 'sesame'] });
  try {
    for (const p of ['/proxy/', '/proxy/events', '/proxy/policies', '/proxy/stats']) {
      const r = await h.httpRequest(`${proxy.httpURL}${p}`);
      assert.equal(r.status, 401, `${p} without the token: ${r.status}`);
    }
    const page = await h.httpRequest(`${proxy.httpURL}/proxy/?token=sesame`);
    assert.equal(page.status, 200, 'the page with the token in the URL');
    assert.match(page.body, /<title>cdpproxy<\/title>/, 'is the dashboard');
    const ev = await h.httpRequest(`${proxy.httpURL}/proxy/events`, { headers: { authorization: 'Bearer sesame' } });
    assert.equal(ev.status, 200, 'events with the token as the page sends it');
  } finally {
    const result = await proxy.stop();
    proxy.removeDir();
    await chrome.stop();
    assert.equal(result.code, 0, `proxy exits 0: ${result.stderr.slice(-300)}`);
  }
});
