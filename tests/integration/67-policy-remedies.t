#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 6: the remedy policies keep what the client needs. Through cdpproxy
// and real Chromium, real Playwright (and Puppeteer where it applies) under
// policies/network-buffer-cap.json, fetch-routes-only.json and
// fetch-static-only.json: page.route fulfils and continues,
// waitForResponse, response.body(), page.on('request'), and what each policy
// gives up (a large response.body(); events of requests that are no longer
// paused), each checked against a control policy that must behave otherwise.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const path = require('node:path');
const h = require('./lib/harness');

const ALL = { timeout: 60000 };
const SKIP = h.DIRECT && 'CDPPROXY_DIRECT=1: policies need the proxy';
const POLICY_DIR = path.join(h.ROOT, 'policies');
const SMALL = 64 * 1024;        // a download under network-buffer-cap's 1 MiB
const LARGE = 2 * 1024 * 1024;  // over it: Chrome keeps no copy
const UPLOAD = 1024 * 1024;     // over maxPostDataSize 65536

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>remedies</title></head>
<body><img id="img" src="/img.png"><script>window.pageMarker = 42;</script></body></html>`;
// A 1x1 transparent PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

let chrome, server, proxy;

// GET / (PAGE), /img.png, /api/* ({"source":"server","path"}),
// /download?bytes=N (N bytes, byte i = i & 255), POST /upload ({"bytes"});
// records every request it answers.
function startServer() {
  const requests = [];
  const srv = http.createServer((req, res) => {
    let bytes = 0;
    req.on('data', (c) => { bytes += c.length; });
    req.on('end', () => {
      const url = new URL(req.url, 'http://x');
      requests.push({ method: req.method, path: url.pathname, bytes });
      if (url.pathname === '/') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(PAGE);
      } else if (url.pathname === '/img.png') {
        res.writeHead(200, { 'content-type': 'image/png' });
        res.end(PNG);
      } else if (url.pathname.startsWith('/api/')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ source: 'server', path: url.pathname }));
      } else if (url.pathname === '/download') {
        const n = Number(url.searchParams.get('bytes'));
        const b = Buffer.alloc(n);
        for (let i = 0; i < n; i++) b[i] = i & 255;
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'cache-control': 'no-store' });
        res.end(b);
      } else if (req.method === 'POST' && url.pathname === '/upload') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ bytes }));
      } else {
        res.writeHead(404);
        res.end();
      }
    });
  });
  srv.keepAliveTimeout = 1000;
  return new Promise((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const url = `http://127.0.0.1:${srv.address().port}`;
      const close = () => new Promise((r) => { srv.closeAllConnections(); srv.close(() => r()); });
      resolve({ url, requests, close, count: (p) => requests.filter((r) => r.path === p).length });
    });
  });
}

async function usePolicy(name) {
  const r = await h.putPolicy(proxy.httpURL, { name });
  assert.equal(r.status, 200, `PUT /proxy/policy ${name}: ${r.body}`);
}

// The Network and Fetch params Chrome got for the client's page session.
async function chromeEnabled(targetId) {
  const stats = await h.getJSON(`${proxy.httpURL}/proxy/stats`);
  const s = stats.sessions.find((x) => x.targetId === targetId && x.type === 'page' && x.client_enabled && x.client_enabled.Page);
  assert.ok(s, `the page session of ${targetId} in /proxy/stats`);
  return s.enabled;
}

async function withPlaywright(fn) {
  const { chromium } = h.client('playwright-core');
  const browser = await chromium.connectOverCDP(proxy.httpURL, { timeout: 15000 });
  try {
    const context = browser.contexts()[0];
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    const { targetInfo } = await cdp.send('Target.getTargetInfo');
    await cdp.detach();
    await fn(page, targetInfo.targetId);
    await page.close();
  } finally {
    await browser.close();
  }
}

// The page uploads n bytes to /upload with fetch(): the server's count.
const upload = (page, n) => page.evaluate((len) => fetch('/upload', { method: 'POST', body: new Uint8Array(len) })
  .then((r) => r.json()).then((j) => j.bytes), n);
const fetchJSON = (page, p) => page.evaluate((u) => fetch(u).then((r) => r.json()), p);

test('start chromium, the server and cdpproxy (--policy-dir policies)', { ...ALL, skip: SKIP }, async () => {
  chrome = await h.startChrome();
  server = await startServer();
  proxy = await h.startProxy({ upstreamPort: chrome.port, args: ['--policy-dir', POLICY_DIR] });
});

for (const pol of ['network-buffer-cap', 'network-postdata-cap']) {
  test(`${pol}: Playwright's events, waitForResponse, route and response.body()`, { ...ALL, skip: SKIP }, async () => {
    await usePolicy(pol);
    await withPlaywright(async (page, targetId) => {
      const seen = [];
      page.on('request', (r) => seen.push(r.url()));
      const resp = await page.goto(`${server.url}/?${pol}`);
      assert.equal(resp && resp.status(), 200, 'goto resolves with the response');
      const net = (await chromeEnabled(targetId)).Network;
      if (pol === 'network-buffer-cap') {
        assert.deepEqual(net, { maxPostDataSize: 65536, maxResourceBufferSize: 1048576, maxTotalBufferSize: 16777216 },
          'Chrome got Network.enable with the three limits');
      } else {
        assert.deepEqual(net, { maxPostDataSize: 65536 }, 'control: Chrome got only the post-data cap');
      }

      // route: one fulfilled, one continued to the server.
      await page.route('**/api/mocked', (r) => r.fulfill({ contentType: 'application/json', body: '{"source":"route"}' }));
      await page.route('**/api/passed', (r) => r.continue());
      const passedBefore = server.count('/api/passed');
      assert.deepEqual(await fetchJSON(page, '/api/mocked'), { source: 'route' }, 'route.fulfill answered');
      const waited = page.waitForResponse('**/api/passed');
      assert.deepEqual(await fetchJSON(page, '/api/passed'), { source: 'server', path: '/api/passed' }, 'route.continue reached the server');
      assert.equal((await waited).status(), 200, 'waitForResponse resolved for the continued request');
      assert.equal(server.count('/api/passed'), passedBefore + 1, 'the continued request reached the server once');
      await page.unrouteAll();

      // response.body(): small downloads always; a large one only without the buffer cap.
      for (const n of [SMALL, LARGE]) {
        const [r] = await Promise.all([
          page.waitForResponse(`**/download?bytes=${n}`),
          page.evaluate((len) => fetch(`/download?bytes=${len}`).then((x) => x.arrayBuffer()).then((b) => b.byteLength), n),
        ]);
        await r.finished();
        if (n === LARGE && pol === 'network-buffer-cap') {
          await assert.rejects(r.body(), /Network\.getResponseBody|No (resource|data)/,
            'network-buffer-cap: response.body() of a 2 MiB response fails (Chrome kept no copy)');
        } else {
          const b = await r.body();
          assert.equal(b.length, n, `response.body() has the ${n} bytes`);
          assert.equal(b[n - 1], (n - 1) & 255, 'and they are the server\'s bytes');
        }
      }

      // An upload: reaches the server, Playwright sees the request (no body copy).
      const posts = [];
      page.on('request', (r) => { if (r.method() === 'POST') posts.push(r); });
      assert.equal(await upload(page, UPLOAD), UPLOAD, 'the 1 MiB upload reached the server whole');
      await h.waitFor(() => posts.length === 1, { what: 'page.on("request") for the upload' });
      assert.equal(posts[0].postDataBuffer(), null, 'its body is over maxPostDataSize: not copied');
      assert.ok(seen.some((u) => u.endsWith(`/?${pol}`)) && seen.some((u) => u.endsWith('/upload')),
        'page.on("request") saw the navigation and the upload');
    });
  });
}

test('fetch-routes-only: routes on */api/* fulfil and continue; other requests are not paused', { ...ALL, skip: SKIP }, async () => {
  await usePolicy('fetch-routes-only');
  await withPlaywright(async (page, targetId) => {
    const seen = [];
    page.on('request', (r) => seen.push(r.url()));
    let uploadRouted = 0;
    await page.route('**/api/mocked', (r) => r.fulfill({ contentType: 'application/json', body: '{"source":"route"}' }));
    await page.route('**/api/passed', (r) => r.continue());
    await page.route('**/upload', (r) => { uploadRouted++; return r.continue(); });
    const resp = await page.goto(`${server.url}/?fetch-routes-only`);
    assert.equal(resp && resp.status(), 200, 'goto resolves with its response: documents are still paused');
    const fetchParams = (await chromeEnabled(targetId)).Fetch;
    assert.deepEqual(fetchParams.patterns.map((p) => p.urlPattern), ['*/api/*', '*'], `Chrome got the policy's patterns: ${JSON.stringify(fetchParams)}`);
    assert.equal(fetchParams.handleAuthRequests, true, 'and Playwright\'s handleAuthRequests');

    assert.deepEqual(await fetchJSON(page, '/api/mocked'), { source: 'route' }, 'route.fulfill answered');
    const waited = page.waitForResponse('**/api/passed');
    assert.deepEqual(await fetchJSON(page, '/api/passed'), { source: 'server', path: '/api/passed' }, 'route.continue reached the server');
    assert.equal((await waited).status(), 200, 'waitForResponse resolved for a routed URL');

    const before = server.count('/upload');
    assert.equal(await upload(page, UPLOAD), UPLOAD, 'the upload reached the server whole');
    assert.equal(server.count('/upload'), before + 1, 'once');
    await h.sleep(200);
    assert.equal(uploadRouted, 0, 'the upload was not paused: its route handler did not run');
    assert.ok(!seen.some((u) => u.endsWith('/upload')), 'the price: page.on("request") did not see the unpaused upload');
    assert.ok(seen.some((u) => u.endsWith('/api/passed')), 'but saw the routed requests');
  });
});

test('control, passthrough: the same route on /upload runs (every request is paused)', { ...ALL, skip: SKIP }, async () => {
  await usePolicy('passthrough');
  await withPlaywright(async (page) => {
    let uploadRouted = 0;
    await page.route('**/upload', (r) => { uploadRouted++; return r.continue(); });
    await page.goto(`${server.url}/?passthrough`);
    assert.equal(await upload(page, UPLOAD), UPLOAD, 'the upload reached the server whole');
    assert.equal(uploadRouted, 1, 'passthrough: the upload was paused and routed');
  });
});

test('fetch-static-only: asset routes work, fetch() is never paused', { ...ALL, skip: SKIP }, async () => {
  await usePolicy('fetch-static-only');
  await withPlaywright(async (page, targetId) => {
    let images = 0, api = 0;
    await page.route('**/*.png', (r) => { images++; return r.abort(); });
    await page.route('**/api/mocked', (r) => { api++; return r.fulfill({ contentType: 'application/json', body: '{"source":"route"}' }); });
    const imgBefore = server.count('/img.png');
    const resp = await page.goto(`${server.url}/?fetch-static-only`);
    assert.equal(resp && resp.status(), 200, 'goto resolves with its response');
    const types = (await chromeEnabled(targetId)).Fetch.patterns.map((p) => p.resourceType);
    assert.deepEqual(types, ['Document', 'Stylesheet', 'Script', 'Image', 'Font', 'Media'], 'Chrome got the asset types');
    assert.equal(await page.evaluate(() => document.getElementById('img').naturalWidth), 0, 'the image route aborted the image');
    assert.equal(images, 1, 'the image route ran');
    assert.equal(server.count('/img.png'), imgBefore, 'the aborted image never reached the server');
    assert.deepEqual(await fetchJSON(page, '/api/mocked'), { source: 'server', path: '/api/mocked' },
      'the price: a route on a fetch() URL does not apply, the server answers');
    assert.equal(api, 0, 'the fetch route handler did not run');
    assert.equal(await upload(page, UPLOAD), UPLOAD, 'the upload reached the server whole');
  });
});

test('fetch-routes-only: Puppeteer\'s interception answers */api/*, uploads pass unpaused', { ...ALL, skip: SKIP }, async () => {
  await usePolicy('fetch-routes-only');
  const puppeteer = h.client('puppeteer-core');
  const browser = await puppeteer.connect({ browserURL: proxy.httpURL, protocolTimeout: 15000 });
  try {
    const page = await browser.newPage();
    await page.setRequestInterception(true);
    const intercepted = [];
    page.on('request', (req) => {
      intercepted.push(new URL(req.url()).pathname);
      if (req.url().endsWith('/api/mocked')) req.respond({ contentType: 'application/json', body: '{"source":"intercept"}' });
      else req.continue();
    });
    const resp = await page.goto(`${server.url}/?pptr`, { waitUntil: 'load', timeout: 15000 });
    assert.equal(resp && resp.status(), 200, 'goto resolves with its response');
    assert.deepEqual(await fetchJSON(page, '/api/mocked'), { source: 'intercept' }, 'the interception answered');
    assert.equal(await upload(page, UPLOAD), UPLOAD, 'the upload reached the server whole');
    await h.sleep(200);
    assert.ok(intercepted.includes('/api/mocked') && !intercepted.includes('/upload'),
      `Puppeteer saw the routed request and not the upload: ${JSON.stringify(intercepted)}`);
    await page.close();
  } finally {
    await browser.disconnect();
  }
});

test('stop cdpproxy, chromium and the server', { ...ALL, skip: SKIP }, async () => {
  if (proxy) {
    const r = await proxy.stop();
    proxy.removeDir();
    assert.equal(r.timedOut, false, 'the proxy exited on SIGTERM');
    assert.deepEqual(r.leftover, [], 'and left nothing running');
  }
  if (server) await server.close();
  if (chrome) await chrome.stop();
});
