#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 1: chrome-remote-interface through cdpproxy: List, New, Version,
// Protocol, a page connection running Runtime.evaluate, Close; the log must
// show the evaluate command and its response with rtt_us.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./lib/harness');

const ALL = { timeout: 50000 };
let env;
let CDP;
let evaluated; // {targetId} of the page where Runtime.evaluate returned 2

test('start chromium, local server and cdpproxy', ALL, async () => {
  CDP = h.client('chrome-remote-interface');
  env = await h.setup();
});

test('CDP.Version and CDP.List point at the endpoint', ALL, async (t) => {
  if (!env) return t.skip('setup failed');
  const opts = { host: '127.0.0.1', port: env.port };
  const version = await CDP.Version(opts);
  assert.match(version.Browser, /Chrome\//, 'CDP.Version returns the browser');
  assert.equal(new URL(version.webSocketDebuggerUrl).port, String(env.port), 'browser ws url on the endpoint port');
  const targets = await CDP.List(opts);
  assert.ok(targets.length > 0, 'CDP.List returns targets');
  for (const target of targets) {
    const u = new URL(target.webSocketDebuggerUrl);
    assert.equal(u.host, `127.0.0.1:${env.port}`, `target ${target.id} webSocketDebuggerUrl ${target.webSocketDebuggerUrl}`);
    assert.equal(u.pathname, `/devtools/page/${target.id}`, 'target ws path kept');
  }
  assert.ok(targets.some((x) => x.type === 'page'), 'there is a page target');
});

test('connect to a page target, Runtime.evaluate 1+1 = 2', ALL, async (t) => {
  if (!env) return t.skip('setup failed');
  const opts = { host: '127.0.0.1', port: env.port };
  const target = await CDP.New({ ...opts, url: env.server.url });
  assert.equal(new URL(target.webSocketDebuggerUrl).host, `127.0.0.1:${env.port}`, 'CDP.New target URL on the endpoint');
  // CDP fetches /json/protocol through the endpoint unless local: true.
  const client = await CDP({ ...opts, target });
  client.on('event', () => {});
  try {
    const { Runtime, Page } = client;
    await Page.enable();
    await Runtime.enable();
    const r = await Runtime.evaluate({ expression: '1+1' });
    assert.deepEqual(r.result, { type: 'number', value: 2, description: '2' }, 'Runtime.evaluate 1+1');
    const loaded = Page.loadEventFired();
    await Page.navigate({ url: `${env.server.url}?cri` });
    await loaded;
    const marker = await Runtime.evaluate({ expression: 'window.pageMarker' });
    assert.equal(marker.result.value, 'cdpproxy-42', 'the new target loaded the local page');
  } finally {
    await client.close();
  }
  evaluated = { targetId: target.id };
  await CDP.Close({ ...opts, id: target.id });
  await h.waitFor(async () => !(await CDP.List(opts)).some((x) => x.id === target.id),
    { timeout: 5000, what: 'closed target to leave the list' });
  t.diagnostic(`evaluated on target ${target.id}`);
});

test('proxy exits cleanly; log has Runtime.evaluate with rtt_us', { ...ALL, skip: h.DIRECT && 'CDPPROXY_DIRECT=1' }, async (t) => {
  if (!env) return t.skip('setup failed');
  const result = await env.stopProxy();
  const records = h.checkProxyExit(assert, result, env.proxy.logPath);
  const open = records.find((r) => r.kind === 'open' && r.path === `/devtools/page/${evaluated.targetId}`);
  assert.ok(open, `log has the page connection's open record (/devtools/page/${evaluated.targetId})`);
  const conn = open.conn;
  // The first Runtime.evaluate on the connection is the one that returned 2.
  const cmd = records.find((r) => r.conn === conn && r.dir === 'up' && r.kind === 'command' &&
    r.method === 'Runtime.evaluate');
  assert.ok(cmd && Number.isInteger(cmd.id), `log has Runtime.evaluate sent up on conn ${conn}`);
  evaluated.id = cmd.id;
  assert.equal(cmd.session, undefined, 'a page connection\'s own session has no session field');
  assert.ok(cmd.bytes > 0, 'command bytes');
  const resp = records.find((r) => r.conn === conn && r.dir === 'down' && r.kind === 'response' && r.id === evaluated.id);
  assert.ok(resp, `log has the response to id ${evaluated.id}`);
  assert.equal(resp.method, 'Runtime.evaluate', 'response carries its command\'s method');
  assert.ok(Number.isInteger(resp.rtt_us) && resp.rtt_us >= 0, `response rtt_us: ${JSON.stringify(resp)}`);
  assert.ok(resp.t >= cmd.t, 'response logged after its command');
  assert.ok(records.some((r) => r.conn === conn && r.dir === 'down' && r.kind === 'event' &&
    r.method === 'Runtime.executionContextCreated'), 'log has Runtime events on that connection');
  const closed = h.closesOf(records, conn);
  assert.ok(closed.some((r) => r.by === 'client'), `client closed the page connection: ${JSON.stringify(closed)}`);
});

test('stop everything', ALL, async (t) => {
  if (!env) return t.skip('setup failed');
  await env.teardown();
  assert.notEqual(env.chrome.exited(), null, 'chromium exited');
});
