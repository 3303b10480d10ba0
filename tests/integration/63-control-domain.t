#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// The CDPProxy domain, in band: a test steers its own A/B run through the
// CDP session it already has (Playwright newCDPSession, Puppeteer
// createCDPSession); the proxy answers and Chrome never sees the command.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./lib/harness');

const ALL = { timeout: 120000, skip: h.DIRECT && 'CDPPROXY_DIRECT=1' };
let env;

test('start chromium and cdpproxy', ALL, async () => {
  env = await h.setup({ proxyArgs: ['--log-bodies', '--policy-dir', require('node:path').join(h.ROOT, 'policies')] });
});

test('Playwright newCDPSession: getPolicy, setPolicy by name, mark, getStats; unknown methods named', ALL, async () => {
  const { chromium } = h.client('playwright-core');
  const browser = await chromium.connectOverCDP(env.endpoint);
  try {
    const page = await browser.contexts()[0].newPage();
    const cdp = await page.context().newCDPSession(page);
    const before = await cdp.send('CDPProxy.getPolicy');
    assert.equal(before.name, 'passthrough', `the policy in force: ${JSON.stringify(before).slice(0, 200)}`);
    const set = await cdp.send('CDPProxy.setPolicy', { name: 'network-postdata-cap' });
    assert.equal(set.name, 'network-postdata-cap', 'setPolicy answers with the new policy');
    assert.equal(set.gen, before.gen + 1, 'a new generation');
    const viaHttp = await h.getJSON(`${env.endpoint}/proxy/policy`);
    assert.equal(viaHttp.name, 'network-postdata-cap', '/proxy/policy agrees');
    await cdp.send('CDPProxy.mark', { label: 'phase 2: capped' });
    await page.evaluate(() => 40 + 2);
    const stats = await cdp.send('CDPProxy.getStats');
    assert.ok(stats.methods && stats.sessions.length >= 1, `getStats has methods and sessions: ${Object.keys(stats)}`);
    await assert.rejects(cdp.send('CDPProxy.frobnicate'), /CDPProxy\.frobnicate.*wasn't found.*CDPProxy\.getPolicy.*CDPProxy\.mark/,
      'an unknown CDPProxy method is a CDP error naming the known ones');
    await assert.rejects(cdp.send('CDPProxy.setPolicy', { name: 'no-such-policy' }), /no-such-policy\.json: unable to open/,
      'a policy that cannot be loaded is a CDP error with the reason');
    await assert.rejects(cdp.send('CDPProxy.setPolicy', { name: '../etc/passwd' }), /not a policy name/,
      'a path is not a policy name');
    const back = await cdp.send('CDPProxy.setPolicy', { policy: { name: 'inline', rules: [] } });
    assert.equal(back.name, 'inline', 'a policy given inline');
  } finally {
    await browser.close();
  }
  const log = await h.waitForLog(env.proxy.logPath, (l) => l.some((r) => r.kind === 'mark'), 'the mark record');
  const mark = log.find((r) => r.kind === 'mark');
  assert.equal(mark.label, 'phase 2: capped', 'the mark is in the log with its label');
  assert.ok(mark.session, 'with the session it was sent on');
  assert.ok(!log.some((r) => r.dir === 'up' && !r.by && r.method && r.method.startsWith('CDPProxy.') && r.action !== 'control'),
    'no CDPProxy command went to Chrome');
  const after = log.filter((r) => r.conn === mark.conn && r.t >= mark.t && r.method === 'Runtime.evaluate');
  assert.ok(after.length >= 1, 'the session\'s messages after the mark come after it in the log');
  assert.ok(after.every((r) => r.gen > mark.gen - 1), 'and carry the new generation');
});

test('Puppeteer createCDPSession: setPolicy and mark', ALL, async () => {
  const puppeteer = h.client('puppeteer-core');
  const browser = await puppeteer.connect({ browserURL: env.endpoint });
  try {
    const page = await browser.newPage();
    const cdp = await page.createCDPSession();
    const set = await cdp.send('CDPProxy.setPolicy', { name: 'no-network' });
    assert.equal(set.name, 'no-network', 'Puppeteer switches the policy in band');
    await cdp.send('CDPProxy.mark', { label: 'puppeteer' });
    await page.close();
  } finally {
    await browser.disconnect();
  }
  const log = await h.waitForLog(env.proxy.logPath, (l) => l.some((r) => r.kind === 'mark' && r.label === 'puppeteer'), 'the Puppeteer mark');
  assert.ok(log.some((r) => r.kind === 'policy' && r.name === 'no-network' && r.via === 'CDPProxy.setPolicy'), 'the switch is logged with how it came');
});

test('what a client gives CDPProxy is bounded: a label of 1 KiB, params of 1 MiB, a policy name', ALL, async () => {
  const version = await h.getJSON(`${env.endpoint}/json/version`);
  const cdp = await h.RawCDP.connect(version.webSocketDebuggerUrl);
  try {
    const fits = await cdp.send('CDPProxy.mark', { label: 'k'.repeat(1024) });
    assert.deepEqual(fits.result, {}, `a 1,024-byte label is taken: ${JSON.stringify(fits.error)}`);
    const long = await cdp.send('CDPProxy.mark', { label: 'L'.repeat(1025) });
    assert.deepEqual(long.error, { code: -32602, message: 'CDPProxy.mark: label longer than 1024 bytes' },
      'a longer label is a CDP error saying why');
    const t0 = Date.now();
    const huge = await cdp.send('CDPProxy.mark', { label: 'H'.repeat(4 << 20) });
    assert.deepEqual(huge.error, { code: -32602, message: 'CDPProxy.mark: params longer than 1048576 bytes' },
      `params over 1 MiB are refused unparsed (${Date.now() - t0} ms)`);
    const name = await cdp.send('CDPProxy.setPolicy', { name: 'p'.repeat(300) });
    assert.equal(name.error && name.error.code, -32602, 'a policy name longer than a file name is refused');
    assert.match(name.error.message, /is not a policy name .*at most 200 bytes/, name.error.message.slice(0, 300));
    assert.ok(name.error.message.length < 600, 'and the answer does not quote all of it');
  } finally {
    await cdp.close();
  }
  const log = await h.waitForLog(env.proxy.logPath, (l) => l.some((r) => r.kind === 'mark' && r.label === 'k'.repeat(1024)),
    'the 1 KiB mark');
  assert.deepEqual(log.filter((r) => r.kind === 'mark' && r.label.length > 1024).map((r) => r.label.length), [],
    'no mark record with a longer label');
});

test('control and stub answers echo the command\'s sessionId byte for byte, UTF-8 or not', ALL, async () => {
  const version = await h.getJSON(`${env.endpoint}/json/version`);
  const ws = await h.wsConnect(version.webSocketDebuggerUrl, { skipUTF8Validation: true });
  const answers = new Map();
  ws.on('message', (data) => {
    const m = /^\{"id":(\d+),/.exec(data.toString('latin1'));
    if (m) answers.set(Number(m[1]), data);
  });
  // Raw bytes of a text frame: {"id":N,"method":M,"params":P,"sessionId":"<sid>"}
  const send = async (id, method, params, sid) => {
    ws.send(Buffer.concat([Buffer.from(`{"id":${id},"method":"${method}","params":${JSON.stringify(params)},"sessionId":"`),
      sid, Buffer.from('"}')]), { binary: false });
    return h.waitFor(() => answers.get(id), { what: `the answer to ${id} ${method}` });
  };
  const tail = (sid) => Buffer.concat([Buffer.from(',"sessionId":"'), sid, Buffer.from('"}')]);
  try {
    const sids = [Buffer.from([0xff, 0xfe, 0x41, 0xc3]), Buffer.from('\\ud800\\u0041-escaped'),
      Buffer.from('S'.repeat(300))];
    let id = 1;
    for (const sid of sids) {
      const a = await send(id, 'CDPProxy.getPolicy', {}, sid);
      assert.ok(a.subarray(a.length - sid.length - 16).equals(tail(sid)),
        `a control answer ends with the sessionId as sent (${sid.subarray(0, 20).toString('latin1')}): ` +
        `${a.subarray(a.length - 60).toString('latin1')}`);
      id++;
    }
    const set = await send(id++, 'CDPProxy.setPolicy', { name: 'no-network' }, Buffer.from(''));
    assert.match(set.toString(), /"name":"no-network"/, 'the policy stubs Network.enable');
    for (const sid of sids) {
      const a = await send(id, 'Network.enable', {}, sid);
      assert.ok(a.subarray(a.length - sid.length - 16).equals(tail(sid)),
        `a stub answer ends with the sessionId as sent: ${a.subarray(a.length - 60).toString('latin1')}`);
      assert.ok(a.toString('latin1').startsWith(`{"id":${id},"result":`), `a stub's result: ${a.toString('latin1').slice(0, 80)}`);
      id++;
    }
    await send(id++, 'CDPProxy.setPolicy', { name: 'passthrough' }, Buffer.from(''));
  } finally {
    ws.close();
  }
});

test('the proxy exits cleanly with a valid log', ALL, async () => {
  const result = await env.stopProxy();
  h.checkProxyExit(assert, result, env.proxy.logPath);
  await env.teardown();
});

test('--no-control-domain: CDPProxy commands go to Chrome, which does not know them', ALL, async () => {
  const chrome = await h.startChrome();
  const proxy = await h.startProxy({ upstreamPort: chrome.port, args: ['--no-control-domain'] });
  try {
    const version = await h.getJSON(`${proxy.httpURL}/json/version`);
    const cdp = await h.RawCDP.connect(version.webSocketDebuggerUrl);
    const r = await cdp.send('CDPProxy.getPolicy');
    assert.ok(r.error && !/cdpproxy answers/.test(r.error.message), `Chrome's own error: ${JSON.stringify(r.error)}`);
    await cdp.close();
  } finally {
    const result = await proxy.stop();
    proxy.removeDir();
    await chrome.stop();
    assert.equal(result.code, 0, `proxy exits 0: ${result.stderr.slice(-300)}`);
  }
});
