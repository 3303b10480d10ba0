#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 1: HTTP discovery through cdpproxy, compared with Chromium answering
// directly: every URL in the answers must name the proxy's address as the
// client addressed it, and statuses must match Chromium's.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./lib/harness');

const ALL = { timeout: 30000 };
let env;
let direct; // Chromium's own http://127.0.0.1:port
let proxyHost; // host:port the tests address the endpoint by

// Every ws URL in a target or version object must be on `host`.
function assertURLsOn(obj, host, what) {
  if (obj.webSocketDebuggerUrl !== undefined) {
    const u = new URL(obj.webSocketDebuggerUrl);
    assert.equal(u.protocol, 'ws:', `${what}: ws scheme`);
    assert.equal(u.host, host, `${what}: webSocketDebuggerUrl ${obj.webSocketDebuggerUrl} on ${host}`);
  }
  if (obj.devtoolsFrontendUrl !== undefined) {
    const q = obj.devtoolsFrontendUrl.slice(obj.devtoolsFrontendUrl.indexOf('?') + 1);
    const ws = new URLSearchParams(q).get('ws');
    assert.ok(ws, `${what}: devtoolsFrontendUrl has ws=: ${obj.devtoolsFrontendUrl}`);
    assert.ok(ws.startsWith(`${host}/devtools/`), `${what}: devtoolsFrontendUrl ws=${ws} on ${host}`);
    if (obj.webSocketDebuggerUrl) {
      assert.equal(`ws://${ws}`, obj.webSocketDebuggerUrl, `${what}: ws= and webSocketDebuggerUrl agree`);
    }
  }
}

test('start chromium, local server and cdpproxy', ALL, async () => {
  env = await h.setup();
  direct = env.chrome.httpURL;
  proxyHost = `127.0.0.1:${env.port}`;
});

test('GET /json/version and /json/version/', ALL, async (t) => {
  if (!env) return t.skip('setup failed');
  const mine = await h.getJSON(`${direct}/json/version`);
  for (const p of ['/json/version', '/json/version/']) {
    const res = await h.httpRequest(`${env.endpoint}${p}`);
    assert.equal(res.status, 200, `${p} status`);
    assert.match(res.headers['content-type'] || '', /application\/json/, `${p} content-type`);
    const v = JSON.parse(res.body);
    assert.equal(v.Browser, mine.Browser, `${p} Browser`);
    assert.equal(v['Protocol-Version'], mine['Protocol-Version'], `${p} Protocol-Version`);
    assertURLsOn(v, proxyHost, p);
    assert.equal(new URL(v.webSocketDebuggerUrl).pathname, new URL(mine.webSocketDebuggerUrl).pathname,
      `${p} keeps the browser target path`);
    if (!env.direct) assert.ok(!res.body.includes(`:${env.chrome.port}`), `${p} never names Chromium's port`);
  }
});

test('URLs follow the Host header the client used', ALL, async (t) => {
  if (!env) return t.skip('setup failed');
  const res = await h.httpRequest(`${env.endpoint}/json/version`, { headers: { Host: `localhost:${env.port}` } });
  assert.equal(res.status, 200, 'Host: localhost accepted');
  assertURLsOn(JSON.parse(res.body), `localhost:${env.port}`, 'Host: localhost');
  const list = await h.httpRequest(`${env.endpoint}/json/list`, { headers: { Host: `localhost:${env.port}` } });
  for (const target of JSON.parse(list.body)) assertURLsOn(target, `localhost:${env.port}`, `list ${target.id}`);
});

test('GET /json and /json/list', ALL, async (t) => {
  if (!env) return t.skip('setup failed');
  const mine = await h.getJSON(`${direct}/json/list`);
  for (const p of ['/json', '/json/list']) {
    const res = await h.httpRequest(`${env.endpoint}${p}`);
    assert.equal(res.status, 200, `${p} status`);
    const list = JSON.parse(res.body);
    assert.ok(Array.isArray(list) && list.length > 0, `${p} is a non-empty array`);
    assert.deepEqual(list.map((x) => x.id).sort(), mine.map((x) => x.id).sort(), `${p} lists Chromium's targets`);
    for (const target of list) {
      assertURLsOn(target, proxyHost, `${p} ${target.id}`);
      assert.equal(new URL(target.webSocketDebuggerUrl).pathname, `/devtools/page/${target.id}`);
    }
    if (!env.direct) assert.ok(!res.body.includes(`:${env.chrome.port}`), `${p} never names Chromium's port`);
  }
});

test('GET /json/protocol', ALL, async (t) => {
  if (!env) return t.skip('setup failed');
  const mine = await h.getJSON(`${direct}/json/protocol`);
  const proto = await h.getJSON(`${env.endpoint}/json/protocol`);
  assert.ok(Array.isArray(proto.domains) && proto.domains.length > 10, 'protocol has domains');
  assert.deepEqual(proto.domains.map((d) => d.domain), mine.domains.map((d) => d.domain), 'same domains as Chromium');
  assert.ok(proto.domains.some((d) => d.domain === 'Network'), 'Network domain present');
});

test('PUT /json/new, /json/activate/ID, /json/close/ID', ALL, async (t) => {
  if (!env) return t.skip('setup failed');
  const url = `${env.server.url}?new`;
  const created = await h.getJSON(`${env.endpoint}/json/new?${url}`, { method: 'PUT' });
  assert.equal(created.type, 'page', '/json/new made a page');
  assert.ok(created.id, 'new target has an id');
  assertURLsOn(created, proxyHost, '/json/new');
  const listed = (await h.getJSON(`${direct}/json/list`)).find((x) => x.id === created.id);
  assert.ok(listed, 'Chromium lists the new target');
  await h.waitFor(async () => env.server.requests.some((r) => r.path === '/' && r.method === 'GET'),
    { timeout: 10000, what: 'the new target to load the local page' });

  const act = await h.httpRequest(`${env.endpoint}/json/activate/${created.id}`);
  assert.equal(act.status, 200, `/json/activate status (${act.body})`);
  assert.match(act.body, /activated/i, 'activate answer');

  const close = await h.httpRequest(`${env.endpoint}/json/close/${created.id}`);
  assert.equal(close.status, 200, `/json/close status (${close.body})`);
  assert.match(close.body, /clos/i, 'close answer');
  await h.waitFor(async () => !(await h.getJSON(`${direct}/json/list`)).some((x) => x.id === created.id),
    { timeout: 5000, what: 'the closed target to leave Chromium\'s list' });
});

test('statuses match Chromium\'s for wrong methods, unknown ids and paths', ALL, async (t) => {
  if (!env) return t.skip('setup failed');
  const cases = [
    ['GET', '/json/new?about:blank'],
    ['GET', '/json/activate/NO-SUCH-TARGET'],
    ['GET', '/json/close/NO-SUCH-TARGET'],
    ['GET', '/json/bogus'],
    ['GET', '/no/such/path'],
  ];
  const before = (await h.getJSON(`${direct}/json/list`)).map((x) => x.id).sort();
  for (const [method, p] of cases) {
    const want = await h.httpRequest(`${direct}${p}`, { method });
    const got = await h.httpRequest(`${env.endpoint}${p}`, { method });
    assert.equal(got.status, want.status, `${method} ${p}: proxy ${got.status}, Chromium ${want.status}`);
  }
  await h.sleep(200);
  const after = (await h.getJSON(`${direct}/json/list`)).map((x) => x.id).sort();
  assert.deepEqual(after, before, 'GET /json/new (refused) created no target');
});

test('a DNS-rebinding Host is refused, as Chromium refuses it', ALL, async (t) => {
  if (!env) return t.skip('setup failed');
  const want = await h.httpRequest(`${direct}/json/version`, { headers: { Host: `rebind.example:${env.chrome.port}` } });
  const got = await h.httpRequest(`${env.endpoint}/json/version`, { headers: { Host: `rebind.example:${env.port}` } });
  assert.notEqual(want.status, 200, `Chromium refuses a foreign Host (${want.status})`);
  // Chromium says 500; the proxy says 403 Forbidden, with the reason.
  assert.equal(got.status, h.DIRECT ? want.status : 403, `proxy refuses a foreign Host: ${got.status} ${got.body.slice(0, 100)}`);
  if (!h.DIRECT) assert.match(got.body, /not an IP address or localhost/, 'the refusal says why');
  assert.ok(!got.body.includes('webSocketDebuggerUrl'), 'no debugger URL leaks to a foreign Host');
});

test('a WebSocket upgrade with a foreign Origin or Host is refused as Chromium refuses it', ALL, async (t) => {
  if (!env) return t.skip('setup failed');
  const upgrade = async (url, opts) => {
    try {
      const ws = await h.wsConnect(url, opts);
      ws.terminate();
      return 'open';
    } catch (e) {
      return e.message;
    }
  };
  const mine = (await h.getJSON(`${direct}/json/version`)).webSocketDebuggerUrl;
  const theirs = (await h.getJSON(`${env.endpoint}/json/version`)).webSocketDebuggerUrl;
  assert.equal(await upgrade(theirs, {}), 'open', 'an upgrade without Origin is accepted');
  const results = [];
  for (const [what, opts] of [
    ['Origin: http://evil.example', { origin: 'http://evil.example' }],
    ['Host: rebind.example', { headers: { Host: 'rebind.example' } }],
  ]) {
    const want = await upgrade(mine, opts);
    assert.notEqual(want, 'open', `Chromium refuses ${what}`);
    results.push([what, want, await upgrade(theirs, opts)]);
  }
  const accepted = results.filter(([, , got]) => got === 'open');
  assert.deepEqual(accepted.map(([what]) => what), [],
    `proxy refuses what Chromium refuses: ${results.map(([w, want, got]) => `${w}: Chromium "${want}", proxy "${got}"`).join('; ')}`);
});

test('proxy exits cleanly with a valid log', { ...ALL, skip: h.DIRECT && 'CDPPROXY_DIRECT=1' }, async (t) => {
  if (!env) return t.skip('setup failed');
  const result = await env.stopProxy();
  h.checkProxyExit(assert, result, env.proxy.logPath, { expectRecords: false });
});

test('stop everything', ALL, async (t) => {
  if (!env) return t.skip('setup failed');
  await env.teardown();
  assert.notEqual(env.chrome.exited(), null, 'chromium exited');
});
