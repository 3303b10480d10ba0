#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 8: `cdpbench audit --log` on logs captured by `cdpproxy --log
// --log-bodies`: a Playwright page (Network.enable {}: the finding) and a
// raw client enabling only Page and Runtime (no false finding). Nothing is
// run but the proxy and the client; one Chromium serves both captures, each
// through a proxy (and a log) of its own.
'use strict';
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./lib/harness');
const { ALL, capture, auditLog } = require('./lib/audit');

let chrome;
before(async () => { if (!h.DIRECT) chrome = await h.startChrome(); });
after(async () => { if (chrome) await chrome.stop(); });

test('audit --log on a cdpproxy --log of Playwright: the finding, and nothing is run', { ...ALL, skip: h.DIRECT && 'CDPPROXY_DIRECT=1' }, async () => {
  const log = await capture(chrome, async (env) => {
    const { chromium } = h.client('playwright-core');
    const browser = await chromium.connectOverCDP(env.endpoint, { timeout: 15000 });
    const page = await browser.contexts()[0].newPage();
    await page.goto(env.server.url);
    await browser.close();
  });
  const out = auditLog(log);
  assert.match(out, /Network\.enable \{\}\s+in \d+ sessions? \(\d+ page/, `Network.enable {} per page session:\n${out}`);
  assert.match(out, /Network\.enable without maxPostDataSize/, 'the finding');
  assert.match(out, /network-postdata-cap/, 'with its policy');
});

test('audit --log on a log with no Network at all: no false finding', { ...ALL, skip: h.DIRECT && 'CDPPROXY_DIRECT=1' }, async () => {
  const log = await capture(chrome, async (env) => {
    const targets = await h.getJSON(`${env.endpoint}/json/list`);
    const page = targets.find((x) => x.type === 'page');
    const cdp = await h.RawCDP.connect(page.webSocketDebuggerUrl);
    await cdp.call('Page.enable');
    await cdp.call('Runtime.enable');
    await cdp.call('Runtime.evaluate', { expression: 'console.log("hi"), 1 + 1' });
    cdp.close();
  });
  const records = h.readLog(log);
  assert.ok(records.some((x) => x.method === 'Page.enable') && !records.some((x) => /^Network\./.test(x.method || '')), 'the log has Page and no Network');
  const out = auditLog(log);
  assert.match(out, /Page\.enable \{\}/, `the enables are listed:\n${out}`);
  assert.match(out, /none of the known-costly patterns/, 'and no finding');
  assert.doesNotMatch(out, /maxPostDataSize/, 'maxPostDataSize is not mentioned');
});
