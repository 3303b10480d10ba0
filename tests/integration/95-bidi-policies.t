#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 6: policies and the WebDriver BiDi mapper. Real Puppeteer with
// protocol: 'webDriverBiDi' runs chromium-bidi's mapper in Node, whose CDP
// crosses cdpproxy to real Chromium. The mapper swallows a stubbed or
// rejected Network.enable or Fetch.enable (request interception is then
// silently lost), so: no-network keeps the mapper's Network and Fetch and
// caps its Network.enable (params merged: the mapper's own kept), request
// interception works under it; a policy that would stub what the mapper
// needs is refused at load with the reason; with "mapper": false the stub
// loads and leaves the mapper alone while a CDP client is still stubbed.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const path = require('node:path');
const h = require('./lib/harness');

const ALL = { timeout: 90000 };
const SKIP = h.DIRECT && 'CDPPROXY_DIRECT=1: policies need the proxy';
const POLICY_DIR = path.join(h.ROOT, 'policies');

let chrome, server, proxy;

function startServer() {
  const requests = [];
  const srv = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests.push(req.url);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><title>bidi</title><p>hi</p>');
    });
  });
  srv.keepAliveTimeout = 1000;
  return new Promise((resolve) => srv.listen(0, '127.0.0.1', () => resolve({
    url: `http://127.0.0.1:${srv.address().port}`, requests,
    close: () => new Promise((r) => { srv.closeAllConnections(); srv.close(() => r()); }),
  })));
}

// Puppeteer over WebDriver BiDi through the proxy: fn(page, browser).
async function withBidi(fn) {
  const puppeteer = h.client('puppeteer-core');
  const { webSocketDebuggerUrl } = await h.getJSON(`${proxy.httpURL}/json/version`);
  const browser = await puppeteer.connect({ browserWSEndpoint: webSocketDebuggerUrl, protocol: 'webDriverBiDi' });
  try {
    const page = await browser.newPage();
    await fn(page, browser);
    await page.close();
  } finally {
    await browser.disconnect();
  }
}

// The Network params Chrome has for each session of the connections the
// proxy told as the BiDi mapper (/proxy/stats).
async function mapperNetwork() {
  const stats = await h.getJSON(`${proxy.httpURL}/proxy/stats`);
  const mappers = stats.connections.list.filter((c) => c.client.bidi_mapper).map((c) => c.id);
  assert.equal(mappers.length, 1, `one connection told as the mapper: ${JSON.stringify(stats.connections.list)}`);
  return stats.sessions.filter((s) => mappers.includes(s.conn) && s.enabled && s.enabled.Network)
    .map((s) => s.enabled.Network);
}

test('start chromium, a server and cdpproxy (--policy-dir policies)', { ...ALL, skip: SKIP }, async () => {
  chrome = await h.startChrome();
  server = await startServer();
  proxy = await h.startProxy({ upstreamPort: chrome.port, args: ['--policy-dir', POLICY_DIR] });
});

for (const pol of ['no-network', 'no-network-keep-fetch', 'network-postdata-cap']) {
  test(`${pol}: Puppeteer webDriverBiDi's request interception intercepts; the mapper's Network.enable is capped, its own params kept`, { ...ALL, skip: SKIP }, async () => {
    const r = await h.putPolicy(proxy.httpURL, { name: pol });
    assert.equal(r.status, 200, r.body);
    await withBidi(async (page) => {
      const seen = [];
      await page.setRequestInterception(true);
      page.on('request', (req) => {
        seen.push(req.url());
        if (req.url().endsWith('/blocked')) req.respond({ status: 200, contentType: 'text/plain', body: 'mocked' });
        else req.continue();
      });
      const resp = await page.goto(`${server.url}/page`);
      assert.ok(resp, 'goto() has a response');
      assert.equal(resp.status(), 200);
      const text = await page.evaluate(() => fetch('/blocked').then((x) => x.text()));
      assert.equal(text, 'mocked', 'the intercepted request was answered by the test, not the server');
      assert.ok(seen.some((u) => u.endsWith('/page')), `the navigation was intercepted: ${seen}`);
      assert.ok(!server.requests.includes('/blocked'), 'the mocked request never reached the server');
      const nets = await mapperNetwork();
      assert.ok(nets.length >= 1, 'Chrome has Network enabled for the mapper');
      for (const n of nets) {
        assert.equal(n.maxPostDataSize, 65536, `capped: ${JSON.stringify(n)}`);
        assert.equal(n.maxTotalBufferSize, 200000000, 'the mapper\'s own buffer size kept');
        assert.equal(typeof n.enableDurableMessages, 'boolean', 'the mapper\'s enableDurableMessages kept (Puppeteer asks false)');
      }
    });
  });
}

test('a policy that stubs Network.enable for the mapper too is refused at load, with the reason', { ...ALL, skip: SKIP }, async () => {
  const r = await h.putPolicy(proxy.httpURL, { rules: [{ method: 'Network.enable', action: 'stub' }] });
  assert.equal(r.status, 400);
  assert.match(r.body, /\$\.rules\[0\]: stubs Network\.enable for the WebDriver BiDi mapper too, silently/);
  assert.match(JSON.parse(r.body).error, /add "mapper": false to this rule/);
  const r2 = await h.putPolicy(proxy.httpURL, { rules: [{ method: 'Fetch.enable', action: 'reject' }] });
  assert.equal(r2.status, 400);
  assert.match(r2.body, /rejects Fetch\.enable for the WebDriver BiDi mapper too.*network\.addIntercept/);
});

test('"mapper": false: the stub loads, a CDP client is stubbed and the BiDi mapper is not', { ...ALL, skip: SKIP }, async () => {
  const r = await h.putPolicy(proxy.httpURL, { rules: [{ method: 'Network.enable', action: 'stub', mapper: false }] });
  assert.equal(r.status, 200, r.body);
  const before = (await h.getJSON(`${proxy.httpURL}/proxy/policy`)).policy.rules[0].hits;
  await withBidi(async (page) => {
    await page.setRequestInterception(true);
    let n = 0;
    page.on('request', (req) => { n++; req.continue(); });
    await page.goto(`${server.url}/again`);
    assert.ok(n >= 1, 'the mapper kept Network and Fetch: its request was intercepted');
  });
  assert.equal((await h.getJSON(`${proxy.httpURL}/proxy/policy`)).policy.rules[0].hits, before,
    'the stub decided nothing of the mapper\'s');
  const { chromium } = h.client('playwright-core');
  const pw = await chromium.connectOverCDP(proxy.httpURL, { timeout: 15000 });
  try {
    const page = await pw.contexts()[0].newPage();
    await page.close();
  } finally {
    await pw.close();
  }
  assert.ok((await h.getJSON(`${proxy.httpURL}/proxy/policy`)).policy.rules[0].hits > before,
    'a CDP client\'s Network.enable was stubbed');
});

test('stop', { ...ALL, skip: SKIP }, async () => {
  if (proxy) await proxy.stop();
  if (chrome) await chrome.stop();
  if (server) await server.close();
});
