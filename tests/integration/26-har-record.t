#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 2: a HAR that replays although the client read no body. Playwright
// launches Chromium through cdpproxy-chromium with CDPPROXY_RECORD_BODIES=1
// and loads a local page (a title, a stylesheet, a script that fetches JSON)
// without ever reading a response body; the proxy fetches each body itself
// (Network.getResponseBody after loadingFinished, its answers kept from the
// client). `cdplog har` of that log must hold every body and say on stderr
// that no entry lacks one, and Playwright's routeFromHAR (notFound: 'abort')
// must replay it with the site stopped: the title, the stylesheet's colour
// and the script's text. Then `cdpproxy --launch --record-bodies=1` (a
// budget of one byte): each body is left unfetched with a body_not_fetched
// record, and cdplog says so, entry by entry and on stderr.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const h = require('./lib/harness');
const { wrapperEnv } = require('./lib/wrapper');

const CDPLOG = process.env.CDPLOG_BIN || path.join(path.dirname(h.PROXY_BIN), 'cdplog');
const ALL = { timeout: 90000 };
const TITLE = 'record-bodies test site';
const INDEX = `<!doctype html>
<html><head><meta charset="utf-8"><title>${TITLE}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/site.css"></head>
<body><h1 id="head">recorded</h1><p id="out">waiting</p>
<script src="/app.js"></script></body></html>
`;
const CSS = 'h1 { color: rgb(12, 34, 56); }\n';
const APP = `fetch('/api/data.json').then((r) => r.json()).then((d) => {
  document.getElementById('out').textContent = 'script ran: ' + d.word;
});
`;

function startSite() {
  const server = http.createServer((req, res) => {
    const send = (type, data) => { res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' }); res.end(data); };
    const p = new URL(req.url, 'http://x').pathname;
    if (p === '/') send('text/html; charset=utf-8', INDEX);
    else if (p === '/site.css') send('text/css', CSS);
    else if (p === '/app.js') send('text/javascript', APP);
    else if (p === '/api/data.json') send('application/json', JSON.stringify({ word: 'replayed' }));
    else { res.writeHead(404, { 'content-type': 'text/plain' }); res.end('not found'); }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      const close = () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); });
      resolve({ url: `http://127.0.0.1:${port}/`, close });
    });
  });
}

function cdplog(args) {
  const r = spawnSync(CDPLOG, args, { encoding: 'utf8', maxBuffer: 64 << 20, timeout: 30000 });
  assert.equal(r.error, undefined, `cdplog ran: ${r.error}`);
  return r;
}

// What the page shows: its title, the stylesheet's colour, the script's text.
async function view(page) {
  await page.waitForFunction(() => document.getElementById('out').textContent.startsWith('script ran'), null, { timeout: 10000 });
  return {
    title: await page.title(),
    color: await page.$eval('#head', (e) => getComputedStyle(e).color),
    out: await page.innerText('#out'),
  };
}

// Loads the site in a new page and reads no response body.
async function load(browser, url) {
  const context = browser.contexts()[0] || await browser.newContext();
  const page = await context.newPage();
  await page.goto(url, { waitUntil: 'load' });
  const seen = await view(page);
  await page.close();
  return seen;
}

let site;
let tmp;
let harPath;
let live;

test('record: Playwright through the wrapper with CDPPROXY_RECORD_BODIES=1 reads no body', { ...ALL, skip: h.DIRECT && 'CDPPROXY_DIRECT=1' }, async () => {
  tmp = h.tmpdir('har-record-');
  site = await startSite();
  const logPath = path.join(tmp.dir, 'run.jsonl');
  const { chromium } = h.client('playwright-core');
  const browser = await chromium.launch({ executablePath: h.WRAPPER_BIN, args: ['--no-sandbox'],
    env: wrapperEnv({ CDPPROXY_LOG: logPath, CDPPROXY_RECORD_BODIES: '1' }) });
  try {
    live = await load(browser, site.url);
  } finally {
    await browser.close();
  }
  assert.deepEqual(live, { title: TITLE, color: 'rgb(12, 34, 56)', out: 'script ran: replayed' }, 'the page, live');
  const records = h.readLog(logPath);
  const clientAsked = records.filter((r) => r.method === 'Network.getResponseBody' && r.kind === 'command' && !r.by);
  assert.equal(clientAsked.length, 0, 'the client asked for no body');
  const fetched = records.filter((r) => r.method === 'Network.getResponseBody' && r.kind === 'response' && r.by === 'proxy');
  assert.ok(fetched.length >= 4, `the proxy fetched the document's, the stylesheet's, the script's and the JSON's: ${fetched.length}`);
  harPath = path.join(tmp.dir, 'run.har');
  const r = cdplog(['har', logPath, '-o', harPath]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /^cdplog: 0 of \d+ entries have no response body$/m, `every entry has its body: ${r.stderr}`);
  const har = JSON.parse(fs.readFileSync(harPath, 'utf8'));
  await h.client('har-validator').har(har);
  const text = (p) => har.log.entries.find((e) => e.request.url === site.url + p)?.response.content.text;
  assert.equal(text(''), INDEX, 'the document');
  assert.equal(text('site.css'), CSS, 'the stylesheet');
  assert.equal(text('app.js'), APP, 'the script');
});

test('replay: routeFromHAR with the site stopped renders the title, the stylesheet and the script', ALL, async (t) => {
  if (!harPath) return t.skip('no HAR');
  await site.close();
  await assert.rejects(fetch(site.url), 'the site is stopped');
  const { chromium } = h.client('playwright-core');
  const browser = await chromium.launch({ executablePath: h.CHROMIUM, args: ['--no-sandbox'] });
  try {
    const context = await browser.newContext();
    await context.routeFromHAR(harPath, { notFound: 'abort' });
    assert.deepEqual(await load(browser, site.url), live, 'the same page, from the HAR alone');
  } finally {
    await browser.close();
  }
});

test('a budget of one byte: nothing fetched, each entry and stderr say why', { ...ALL, skip: h.DIRECT && 'CDPPROXY_DIRECT=1' }, async () => {
  site = await startSite();
  const proxy = await h.startProxy({ launch: true, args: ['--record-bodies=1', '--', 'about:blank'] });
  const { chromium } = h.client('playwright-core');
  const browser = await chromium.connectOverCDP(proxy.httpURL, { timeout: 15000 });
  try {
    await load(browser, site.url);
  } finally {
    await browser.close();
  }
  const result = await proxy.stop();
  h.checkProxyExit(assert, result, proxy.logPath);
  const records = h.readLog(proxy.logPath);
  const skipped = records.filter((r) => r.kind === 'body_not_fetched');
  assert.ok(skipped.length >= 4 && skipped.every((r) => r.budget === 1 && r.requestId && r.session),
    `a body_not_fetched record for each: ${JSON.stringify(skipped[0])}`);
  assert.equal(records.filter((r) => r.method === 'Network.getResponseBody').length, 0, 'and no fetch');
  const out = path.join(tmp.dir, 'budget.har');
  const r = cdplog(['har', proxy.logPath, '-o', out]);
  proxy.removeDir();
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /^cdplog: (\d+) of \d+ entries have no response body: \1 past the --record-bodies budget$/m, r.stderr);
  const har = JSON.parse(fs.readFileSync(out, 'utf8'));
  const css = har.log.entries.find((e) => e.request.url === `${site.url}site.css`);
  assert.match(css.response.content.comment, /not fetched: over the --record-bodies budget \(0 of 1 bytes/, css.response.content.comment);
});

test('stop everything', ALL, async () => {
  if (site) await site.close();
  if (tmp) tmp.remove();
});
