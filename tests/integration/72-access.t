#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Access and secrets end to end: --token (401 without it, Bearer or ?token=
// with it, Playwright with headers), --max-connections (503 past it), a
// non-loopback --listen refused at start, and --log-bodies redacting cookies
// and auth headers unless --log-secrets.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const h = require('./lib/harness');

const ALL = { timeout: 60000, skip: h.DIRECT && 'CDPPROXY_DIRECT=1' };
const TOKEN = 'tok-3f9a';
let env;

test('start chromium', ALL, async () => {
  env = await h.setup({ server: false, proxyArgs: ['--token', TOKEN, '--max-connections', '2'] });
});

test('--token: 401 without it or with a wrong one, served with Bearer or ?token=', ALL, async () => {
  const url = `${env.endpoint}/json/version`;
  const none = await h.httpRequest(url);
  assert.equal(none.status, 401, `no token: 401 (${none.body.slice(0, 80)})`);
  assert.match(none.body, /missing token/);
  const wrong = await h.httpRequest(url, { headers: { Authorization: 'Bearer nope' } });
  assert.equal(wrong.status, 401, 'a wrong token: 401');
  const bearer = await h.httpRequest(url, { headers: { Authorization: `Bearer ${TOKEN}` } });
  assert.equal(bearer.status, 200, 'Bearer token: 200');
  const query = await h.httpRequest(`${url}?token=${TOKEN}`);
  assert.equal(query.status, 200, '?token=: 200');
  const ws = JSON.parse(bearer.body).webSocketDebuggerUrl;
  await assert.rejects(h.wsConnect(ws), /401/, 'an upgrade without the token: 401');
  const cdp = await h.RawCDP.connect(`${ws}?token=${TOKEN}`);
  assert.match((await cdp.call('Browser.getVersion')).product, /Chrome\//, 'an upgrade with ?token= works');
  await cdp.close();
  const log = await h.waitForLog(env.proxy.logPath, (l) => l.some((r) => r.kind === 'close' && r.side === 'client'),
    'the close record in the log');
  assert.ok(log.filter((r) => r.kind === 'refused' && r.status === 401).length >= 3, 'each refusal is logged');
  assert.ok(log.some((r) => r.kind === 'open'), 'the upgrade with ?token= is logged');
  assert.ok(!fs.readFileSync(env.proxy.logPath, 'utf8').includes(TOKEN), 'the token itself is not in the log');
});

test('Playwright connects with the token in its headers', ALL, async () => {
  const { chromium } = h.client('playwright-core');
  const browser = await chromium.connectOverCDP(env.endpoint, { headers: { Authorization: `Bearer ${TOKEN}` } });
  const page = await browser.contexts()[0].newPage();
  assert.equal(await page.evaluate(() => 6 * 7), 42, 'evaluate through the proxy');
  await page.close();
  await browser.close();
});

test('--max-connections 2: the third WebSocket gets 503 with the reason', ALL, async () => {
  const version = JSON.parse((await h.httpRequest(`${env.endpoint}/json/version`, {
    headers: { Authorization: `Bearer ${TOKEN}` } })).body);
  const url = `${version.webSocketDebuggerUrl}?token=${TOKEN}`;
  const a = await h.RawCDP.connect(url);
  const b = await h.RawCDP.connect(url);
  await assert.rejects(h.wsConnect(url), /503/, 'the third is refused with 503');
  await a.close();
  await h.sleep(200);
  const c = await h.RawCDP.connect(url);
  assert.match((await c.call('Browser.getVersion')).product, /Chrome\//, 'a slot freed is usable again');
  await Promise.all([b.close(), c.close()]);
});

test('a non-loopback --listen without --allow-remote and a token is refused at start', ALL, () => {
  const r = spawnSync(h.PROXY_BIN, ['--listen', '0.0.0.0:0', '--upstream', `127.0.0.1:${env.chrome.port}`],
    { encoding: 'utf8', env: { ...process.env, CDPPROXY_TOKEN: '' } });
  assert.equal(r.status, 2, 'exit 2');
  assert.match(r.stderr, /needs --allow-remote and a token/);
});

test('--log-bodies redacts cookies and auth headers; --log-secrets keeps them', ALL, async () => {
  for (const secrets of [false, true]) {
    const proxy = await h.startProxy({ upstreamPort: env.chrome.port,
      args: ['--log-bodies', ...(secrets ? ['--log-secrets'] : [])] });
    try {
      const target = await h.getJSON(`${proxy.httpURL}/json/new?about:blank`, { method: 'PUT' });
      const cdp = await h.RawCDP.connect(target.webSocketDebuggerUrl);
      await cdp.call('Network.enable');
      await cdp.call('Network.setCookie', { name: 'sid', value: 'cookie-s3cret', url: 'http://127.0.0.1/' });
      await cdp.call('Network.setExtraHTTPHeaders', { headers: { Authorization: 'Bearer header-s3cret' } });
      const got = await cdp.call('Network.getCookies', { urls: ['http://127.0.0.1/'] });
      assert.equal(got.cookies[0].value, 'cookie-s3cret', 'the client itself gets the real cookie');
      await cdp.close();
      await h.httpRequest(`${proxy.httpURL}/json/close/${target.id}`);
    } finally {
      const res = await proxy.stop();
      const text = fs.readFileSync(proxy.logPath, 'utf8');
      proxy.removeDir();
      assert.equal(res.code, 0, 'proxy exits 0');
      if (secrets) {
        assert.match(text, /cookie-s3cret/, '--log-secrets: the cookie is in the log');
        assert.match(text, /header-s3cret/, '--log-secrets: the header is in the log');
      } else {
        assert.doesNotMatch(text, /cookie-s3cret|header-s3cret/, 'no secret reaches the log');
        assert.match(text, /<redacted>/, 'redacted values are marked');
        const headers = text.split('\n').filter((l) => l.includes('"Network.setExtraHTTPHeaders"') &&
          l.includes('"dir":"up"'));
        assert.ok(headers.length && headers.every((l) => l.includes('<redacted>')),
          'the setExtraHTTPHeaders command is logged, its Authorization redacted');
      }
    }
  }
});

test('stop everything', { timeout: 30000 }, async () => {
  if (env) await env.teardown();
});
