#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 1: cdplog har on a real page load. A local site (a redirect, HTML,
// CSS, JS, images, a fetch with an Authorization header, a POST with a body,
// a cookie, a failed request) is loaded by Playwright through
// `cdpproxy --launch --log F --log-bodies`, the client fetching the response
// bodies; `cdplog har F -o out.har` must pass the HAR 1.2 schema
// (har-validator), hold every request with its timings and bodies and none of
// the secrets, and replay with Playwright's routeFromHAR, the site stopped,
// to the same page text.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const h = require('./lib/harness');

const CDPLOG = process.env.CDPLOG_BIN || path.join(path.dirname(h.PROXY_BIN), 'cdplog');
const ALL = { timeout: 60000 };
const IMAGES = 14;
const TOKEN = 'Bearer har-test-token-0123456789';
const COOKIE = 'sid=har-test-cookie-9876543210';
// A 1x1 PNG; each image URL answers it with its number in a tEXt-free tail
// byte so that no two bodies are equal.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

const INDEX = `<!doctype html>
<html><head><meta charset="utf-8"><title>cdplog har test site</title>
<link rel="stylesheet" href="/css/a.css"><link rel="stylesheet" href="/css/b.css">
<script src="/js/lib.js"></script></head>
<body><h1 id="title">HAR test site</h1>
<p id="static">served by the test</p>
${Array.from({ length: IMAGES }, (_, i) => `<img src="/img/${i}.png" alt="">`).join('\n')}
<img src="/broken.png" alt="">
<p id="out">waiting</p>
<script src="/js/app.js"></script></body></html>
`;
const LIB = 'window.harLib = { join: (a, b) => a + " / " + b };\n';
const APP = `(async () => {
  // The token is put together here: a page's own source is not redacted.
  const token = [${JSON.stringify(TOKEN.split('-'))}].flat().join('-');
  const data = await (await fetch('/api/data.json', { headers: { Authorization: token } })).json();
  const echo = await (await fetch('/api/echo', { method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ n: 42, word: 'hello' }) })).json();
  document.getElementById('out').textContent = harLib.join('data ' + data.value, 'echo ' + echo.got);
  document.title = 'loaded';
})();
`;

// The site: every request it answered, by path.
function startSite() {
  const seen = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      const url = new URL(req.url, 'http://x');
      seen.push({ method: req.method, path: url.pathname, headers: req.headers, body });
      const send = (status, type, data, extra = {}) => {
        res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', ...extra });
        res.end(data);
      };
      const p = url.pathname;
      if (p === '/') send(302, 'text/plain', 'moved', { location: '/index.html' });
      else if (p === '/index.html') send(200, 'text/html; charset=utf-8', INDEX, { 'set-cookie': `${COOKIE}; Path=/` });
      else if (p === '/css/a.css') send(200, 'text/css', 'h1 { color: navy; }\n');
      else if (p === '/css/b.css') send(200, 'text/css', 'p { margin: 2px; }\n');
      else if (p === '/js/lib.js') send(200, 'text/javascript', LIB);
      else if (p === '/js/app.js') send(200, 'text/javascript', APP);
      else if (/^\/img\/\d+\.png$/.test(p)) send(200, 'image/png', PNG);
      else if (p === '/api/data.json') send(200, 'application/json', JSON.stringify({ value: req.headers.authorization === TOKEN ? 'authorized' : 'anonymous' }));
      else if (p === '/api/echo' && req.method === 'POST') send(200, 'application/json', JSON.stringify({ got: JSON.parse(body).word }));
      else if (p === '/broken.png') {
        // Cut mid-body: Chrome fails it at once (an empty answer it would retry).
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': '1000' });
        res.write(PNG.subarray(0, 10), () => req.socket.destroy());
      }
      else send(404, 'text/plain', 'not found');
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      const close = () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); });
      resolve({ port, url: `http://127.0.0.1:${port}/`, seen, close });
    });
  });
}

function cdplog(args) {
  const r = spawnSync(CDPLOG, args, { encoding: 'utf8', maxBuffer: 64 << 20, timeout: 30000 });
  assert.equal(r.error, undefined, `cdplog ran: ${r.error}`);
  return r;
}

let site;
let logPath;
let liveText;
let tmp;
let harPath;
let har;

// --log-secrets: the log keeps the token and the cookie, so that the HAR's
// lack of them is cdplog's redaction, not the log's.
test('record: Playwright loads the site through cdpproxy --launch --log --log-bodies --log-secrets', { ...ALL, skip: h.DIRECT && 'CDPPROXY_DIRECT=1' }, async (t) => {
  const t0 = Date.now();
  tmp = h.tmpdir('cdplog-har-');
  site = await startSite();
  // about:blank: not Chromium's new tab page, whose loading competes with the site's.
  const proxy = await h.startProxy({ launch: true, args: ['--log-bodies=1048576', '--log-secrets', '--', 'about:blank'] });
  t.diagnostic(`proxy and chromium up after ${Date.now() - t0} ms`);
  const { chromium } = h.client('playwright-core');
  const browser = await chromium.connectOverCDP(proxy.httpURL, { timeout: 15000 });
  try {
    const page = await browser.contexts()[0].newPage();
    const bodies = [];
    // Playwright's response.body() is Network.getResponseBody.
    page.on('response', (r) => bodies.push(r.body().then((b) => b.length, () => -1)));
    await page.goto(site.url, { waitUntil: 'load' });
    await page.waitForFunction(() => document.title === 'loaded', null, { timeout: 10000 });
    liveText = await page.innerText('body');
    await Promise.all(bodies);
    await page.close();
  } finally {
    await browser.close();
  }
  t.diagnostic(`page loaded and closed after ${Date.now() - t0} ms`);
  const result = await proxy.stop();
  h.checkProxyExit(assert, result, proxy.logPath);
  logPath = path.join(tmp.dir, 'log.jsonl');
  fs.copyFileSync(proxy.logPath, logPath);
  proxy.removeDir();
  t.diagnostic(`proxy stopped after ${Date.now() - t0} ms`);
  assert.match(liveText, /data authorized \/ echo hello/, `the page ran its script: ${liveText}`);
  assert.ok(site.seen.length >= 20, `the site answered 20+ requests: ${site.seen.length}`);
  const log = fs.readFileSync(logPath, 'utf8');
  assert.ok(log.includes(TOKEN) && log.includes(COOKIE), 'the log holds the token and the cookie (--log-secrets)');
});

test('cdplog har: a valid HAR 1.2 with every request, its timings and bodies', ALL, async (t) => {
  if (!logPath) return t.skip('no log');
  harPath = path.join(tmp.dir, 'out.har');
  const r = cdplog(['har', logPath, '-o', harPath]);
  assert.equal(r.status, 0, `exit 0; stderr: ${r.stderr}`);
  assert.match(r.stderr, /^cdplog: \d+ entries from /, `one line of counts on stderr: ${r.stderr}`);
  const text = fs.readFileSync(harPath, 'utf8');
  har = JSON.parse(text);
  await h.client('har-validator').har(har).catch((e) =>
    assert.fail(`HAR 1.2 schema: ${JSON.stringify((e.errors || [e.message]).slice(0, 5))}`));
  assert.equal(har.log.version, '1.2');

  const mine = har.log.entries.filter((e) => e.request.url.startsWith(site.url));
  const byPath = (p, m = 'GET') => mine.filter((e) => e.request.url === site.url + p.slice(1) && e.request.method === m);
  const answered = site.seen.filter((s) => s.path !== '/broken.png');
  for (const s of answered) assert.equal(byPath(s.path, s.method).length, 1, `one entry for ${s.method} ${s.path}`);
  assert.ok(mine.length >= 20, `20+ entries of the site: ${mine.length}`);

  const [redirect] = byPath('/');
  assert.equal(redirect.response.status, 302, 'the redirect is an entry of its own');
  assert.equal(redirect.response.redirectURL, `${site.url}index.html`);
  assert.ok(redirect.response.headers.some((x) => /^location$/i.test(x.name) && x.value === '/index.html'), 'with its Location');
  const [index] = byPath('/index.html');
  assert.equal(index.response.content.text, INDEX, 'the document with the body the client fetched');
  const [img] = byPath('/img/3.png');
  assert.equal(img.response.content.encoding, 'base64');
  assert.deepEqual(Buffer.from(img.response.content.text, 'base64'), PNG, 'an image, base64');
  assert.equal(img.response.content.size, PNG.length);
  const [post] = byPath('/api/echo', 'POST');
  assert.deepEqual(post.request.postData, { mimeType: 'application/json', text: '{"n":42,"word":"hello"}' }, 'the POST body');
  assert.equal(post.response.content.text, '{"got":"hello"}');
  const [broken] = byPath('/broken.png');
  assert.match(broken.response._error, /^net::ERR_/, 'the failed request, with its error');
  assert.match(broken.response.content.comment, /^failed: net::ERR_/, 'its comment says why it has no body');

  const pages = har.log.pages.filter((p) => p.title.startsWith(site.url));
  assert.equal(pages.length, 1, `one page for the site: ${JSON.stringify(har.log.pages)}`);
  assert.equal(pages[0].title, `${site.url}index.html`, 'named where its redirect ended');
  assert.ok(mine.every((e) => e.pageref === pages[0].id), 'every entry of the site is on it');
  assert.ok(pages[0].pageTimings.onContentLoad > 0 && pages[0].pageTimings.onLoad >= pages[0].pageTimings.onContentLoad,
    `page timings: ${JSON.stringify(pages[0].pageTimings)}`);
  const t0 = Date.parse(pages[0].startedDateTime);
  for (const e of mine) {
    const sum = ['blocked', 'dns', 'connect', 'send', 'wait', 'receive'].reduce((a, k) => a + Math.max(e.timings[k], 0), 0);
    assert.ok(Math.abs(sum - e.time) < 0.01, `${e.request.url}: time ${e.time} is the sum of its timings ${sum}`);
    assert.ok(Date.parse(e.startedDateTime) >= t0 && Date.parse(e.startedDateTime) < t0 + 20000, `${e.request.url}: started with its page`);
    if (e.response.status === 200 && !e.response._error) {
      assert.ok(e.timings.wait >= 0 && e.time > 0, `${e.request.url}: timed`);
      assert.ok(e.response.content.text !== undefined, `${e.request.url}: the body Playwright fetched`);
    }
  }
  assert.ok(!text.includes(TOKEN.split(' ')[1]) && !text.includes(COOKIE.split('=')[1]), 'neither the token nor the cookie is in the HAR');
  const [data] = byPath('/api/data.json');
  assert.deepEqual(data.request.headers.filter((x) => /^(authorization|cookie)$/i.test(x.name)).map((x) => x.value),
    ['<redacted>', '<redacted>'], 'Authorization and Cookie redacted');
  assert.ok(index.response.headers.some((x) => /^set-cookie$/i.test(x.name) && x.value === '<redacted>'), 'Set-Cookie redacted');
});

test('cdplog har --per-session: one valid file per page session', ALL, async (t) => {
  if (!har) return t.skip('no HAR');
  const base = path.join(tmp.dir, 'each.har');
  const r = cdplog(['har', logPath, '-o', base, '--per-session']);
  assert.equal(r.status, 0, r.stderr);
  const files = fs.readdirSync(tmp.dir).filter((f) => /^each-.+\.har$/.test(f));
  assert.ok(files.length >= 1, `files: ${files}`);
  let total = 0;
  for (const f of files) {
    const one = JSON.parse(fs.readFileSync(path.join(tmp.dir, f), 'utf8'));
    await h.client('har-validator').har(one);
    const sessions = new Set(one.log.entries.map((e) => e.pageref));
    assert.ok(one.log.entries.every((e) => one.log.pages.some((p) => p.id === e.pageref)), `${f}: its entries' pages are in it`);
    assert.ok(sessions.size >= 1);
    total += one.log.entries.length;
  }
  assert.equal(total, har.log.entries.length, 'the same entries, split');
  const bad = cdplog(['har', logPath, '--per-session']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--per-session wants -o FILE/);
});

test('replay: routeFromHAR with the site stopped renders the same text', ALL, async (t) => {
  if (!har) return t.skip('no HAR');
  await site.close();
  await assert.rejects(fetch(site.url), 'the site is stopped');
  const { chromium } = h.client('playwright-core');
  const browser = await chromium.launch({ executablePath: h.CHROMIUM, args: ['--no-sandbox'] });
  try {
    const context = await browser.newContext();
    await context.routeFromHAR(harPath, { notFound: 'abort' });
    const page = await context.newPage();
    await page.goto(site.url);
    await page.waitForFunction(() => document.title === 'loaded', null, { timeout: 10000 });
    assert.equal(await page.innerText('body'), liveText, 'the same text, from the HAR alone');
  } finally {
    await browser.close();
  }
});

test('stop everything', ALL, async () => {
  if (site) await site.close();
  if (process.env.KEEP_HAR_LOG && logPath) fs.copyFileSync(logPath, process.env.KEEP_HAR_LOG);
  if (tmp) tmp.remove();
});
