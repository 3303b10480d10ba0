#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// The dashboard at /proxy/, opened in a real Chromium (launched by
// Playwright) while a Playwright session works through the proxy: the
// session shows with its URL and Network.enable, the switcher changes the
// policy, the live tail shows the session's messages, text from the browser
// stays text, and the page logs no error (so its Content-Security-Policy
// lets its own script and style run). The screenshot is left in
// build/dashboard.png. With --token, the page and its endpoints need it.
// No page of another origin may frame it: a page on another port that
// tries gets the frame blocked. Its last view says how each connection
// ended: closed by whom, or, once the proxy is killed, no close record.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
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

test('the dashboard and the /proxy/ answers carry the headers that stop framing, sniffing and caching', ALL, async () => {
  for (const p of ['/proxy/', '/proxy/stats', '/proxy/policy', '/proxy/policies', '/proxy/events', '/proxy/nothing']) {
    const r = await h.httpRequest(`${env.endpoint}${p}`);
    assert.match(r.headers['content-security-policy'] || '', /frame-ancestors 'none'/, `${p}: CSP frame-ancestors 'none'`);
    assert.equal(r.headers['x-frame-options'], 'DENY', `${p}: X-Frame-Options`);
    assert.equal(r.headers['x-content-type-options'], 'nosniff', `${p}: X-Content-Type-Options`);
    assert.equal(r.headers['referrer-policy'], 'no-referrer', `${p}: Referrer-Policy`);
    assert.equal(r.headers['cache-control'], 'no-store', `${p}: Cache-Control`);
  }
  const page = await h.httpRequest(`${env.endpoint}/proxy/`);
  const csp = page.headers['content-security-policy'];
  assert.match(csp, /default-src 'self'/, `the dashboard's CSP: ${csp}`);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/, 'no inline script or style but its own, by hash');
});

test('a page on another port that frames the dashboard gets the frame blocked', ALL, async () => {
  const target = `${env.endpoint}/proxy/`;
  const framer = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><title>framer</title><iframe id="f" src="${target}" width="800" height="600"></iframe>`);
  });
  await new Promise((r) => framer.listen(0, '127.0.0.1', r));
  const { chromium } = h.client('playwright-core');
  const viewer = await chromium.launch({ executablePath: h.CHROMIUM, args: ['--no-sandbox'] });
  try {
    const page = await viewer.newPage();
    const messages = [];
    page.on('console', (m) => messages.push(m.text()));
    const dashLoads = [];
    page.on('response', (r) => { if (r.url().startsWith(target)) dashLoads.push(r.status()); });
    await page.goto(`http://127.0.0.1:${framer.address().port}/`);
    await h.waitFor(() => dashLoads.length > 0, { what: 'the frame\'s request for the dashboard' });
    await page.waitForTimeout(1000);
    const frame = page.frames().find((f) => f !== page.mainFrame());
    let controls = null;
    try { controls = frame ? await frame.$('#pol-switch') : null; } catch { controls = null; }
    assert.equal(controls, null, `the framed dashboard has no switch to click (frame at ${frame && frame.url()})`);
    assert.ok(messages.some((m) => /frame-ancestors|X-Frame-Options/.test(m)),
      `Chromium says why it blocked the frame: ${JSON.stringify(messages).slice(0, 400)}`);
  } finally {
    await viewer.close();
    framer.close();
  }
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

// ChromeDriver ends its browser (the wrapper, the proxy in it) with SIGKILL:
// no close is ever written. The page keeps its last view and says so.
test('the last view says how each connection ended: closed, or no close record once the proxy is killed', ALL, async () => {
  const chrome = await h.startChrome();
  const proxy = await h.startProxy({ upstreamPort: chrome.port });
  const { chromium } = h.client('playwright-core');
  const viewer = await chromium.launch({ executablePath: h.CHROMIUM, args: ['--no-sandbox'] });
  let b;
  try {
    const dash = await viewer.newPage();
    await dash.goto(`${proxy.httpURL}/proxy/`);
    const version = await h.getJSON(`${proxy.httpURL}/json/version`);
    const a = await h.RawCDP.connect(version.webSocketDebuggerUrl);
    b = await h.RawCDP.connect(version.webSocketDebuggerUrl);
    await a.send('Browser.getVersion');
    await b.send('Browser.getVersion');
    await dash.waitForFunction(() => known.size === 2, null, { timeout: 10000 });
    await a.close();
    await dash.waitForFunction(() => /closed by the client \(\d+/.test(document.querySelector('#ended').textContent), null, { timeout: 10000 });
    process.kill(proxy.pid, 'SIGKILL');
    await dash.waitForFunction(() => /no close record: the process ended \(killed\?\) after live entry \d+/.test(document.querySelector('#ended').textContent),
      null, { timeout: 10000 });
    const ended = await dash.textContent('#ended');
    assert.match(ended, /closed by the client/, `the one closed still says so: ${ended}`);
    assert.equal((ended.match(/no close record/g) || []).length, 1, `the other, and only it, has no close record: ${ended}`);
    assert.match(await dash.textContent('#hdr-status'), /no answer since .*: the last view/, 'the header says the view is the last');
  } finally {
    await viewer.close();
    if (b) b.ws.terminate();
    await proxy.stop();
    proxy.removeDir();
    await chrome.stop();
  }
});
