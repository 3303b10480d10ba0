#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 6: live policy switches against real Chromium. Playwright keeps one
// page open while PUT /proxy/policy flips passthrough -> no-network ->
// passthrough -> network-postdata-cap -> passthrough: the proxy disables and
// replays Network.enable upstream, and the client keeps navigating. Injected
// domains come and go with the policy; SIGHUP reloads the --policy file and a
// bad file keeps the running policy. Log records are split by generation.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const h = require('./lib/harness');

const ALL = { timeout: 50000 };
const SKIP = h.DIRECT && 'CDPPROXY_DIRECT=1: policies need the proxy';
const POLICY_DIR = path.join(h.ROOT, 'policies');
const PROXY_ID_BASE = 1000000000;
const LARGE = 200 * 1024;

let env;
const has = (o, k) => !!o && Object.prototype.hasOwnProperty.call(o, k);

const putPolicy = (body) => h.putPolicy(env.endpoint, body);

// PUTs {"name": name} and checks the answer; returns the new generation.
async function switchTo(name, gens) {
  const r = await putPolicy({ name });
  assert.equal(r.status, 200, `PUT /proxy/policy {"name":"${name}"}: ${r.body}`);
  assert.equal(r.json.name, name, 'the answer names the new policy');
  assert.equal(r.json.policy.source, path.join(POLICY_DIR, `${name}.json`), 'loaded from the policy directory');
  if (gens) gens.push([name, r.json.gen]);
  return r.json.gen;
}

async function sessionById(sessionId) {
  const stats = await h.getJSON(`${env.endpoint}/proxy/stats`);
  return stats.sessions.find((s) => s.sessionId === sessionId);
}

// Waits until /proxy/stats shows session sid in the state pred accepts.
function waitSession(sid, pred, what) {
  let last;
  return h.waitFor(async () => {
    last = await sessionById(sid);
    return last && pred(last) && last;
  }, { what: () => `${what} (last: ${JSON.stringify(last)})` });
}

// POSTs n bytes from the page; resolves the number of bytes the server got.
function postFromPage(page, n) {
  return page.evaluate(async (len) => {
    const r = await fetch('/echo', { method: 'POST', body: new Uint8Array(len).fill(7) });
    return (await r.json()).bytes;
  }, n);
}

test('start chromium, local server and cdpproxy --policy-dir policies/ --log-bodies', { ...ALL, skip: SKIP }, async () => {
  env = await h.setup({ proxyArgs: ['--policy-dir', POLICY_DIR, '--log-bodies=4096'] });
  const active = await h.getJSON(`${env.endpoint}/proxy/policy`);
  assert.equal(active.name, 'passthrough', 'no --policy: the built-in passthrough');
  assert.equal(active.gen, 1, 'generation 1');
});

const pw = { gens: [['passthrough', 1]] };
test('Playwright: passthrough -> no-network -> passthrough -> network-postdata-cap -> passthrough, live', { ...ALL, skip: SKIP }, async (t) => {
  assert.ok(env, 'setup done');
  const { chromium } = h.client('playwright-core');
  const browser = await chromium.connectOverCDP(env.endpoint, { timeout: 15000 });
  try {
    const context = browser.contexts()[0];
    const page = await context.newPage();
    const seen = [];
    page.on('request', (r) => seen.push(r));
    const seenURL = (u) => seen.some((r) => r.url() === u);
    const visit = async (q) => {
      const u = `${env.server.url}?${q}`;
      const gets = env.server.requests.filter((r) => r.path === '/').length;
      const resp = await page.goto(u);
      assert.equal(env.server.requests.filter((r) => r.path === '/').length, gets + 1, `${q}: the server got the navigation`);
      assert.equal(await page.evaluate(() => location.search + ' ' + window.pageMarker), `?${q} cdpproxy-42`, `${q}: evaluate after goto`);
      return { resp, u };
    };

    // passthrough: the page session as Playwright set it up.
    let v = await visit('one');
    assert.equal(v.resp && v.resp.status(), 200, 'passthrough: goto 200');
    assert.ok(seenURL(v.u), 'passthrough: page.on("request") saw the navigation');
    const cdp = await context.newCDPSession(page);
    const { targetInfo } = await cdp.send('Target.getTargetInfo');
    await cdp.detach();
    const stats = await h.getJSON(`${env.endpoint}/proxy/stats`);
    const mine = stats.sessions.filter((s) => s.targetId === targetInfo.targetId && has(s.client_enabled, 'Page'));
    assert.equal(mine.length, 1, `Playwright's page session: ${JSON.stringify(stats.sessions)}`);
    const sid = mine[0].sessionId;
    Object.assign(pw, { sid, conn: mine[0].conn });
    assert.deepEqual(mine[0].enabled.Network, {}, 'passthrough: Chrome has Network {} as Playwright sent it');
    const bigBefore = seen.length;
    assert.equal(await postFromPage(page, LARGE), LARGE, 'POST reached the server');
    await h.waitFor(() => seen.slice(bigBefore).find((r) => r.method() === 'POST'), { what: 'the POST seen by Playwright' });
    assert.equal(seen.slice(bigBefore).find((r) => r.method() === 'POST').postDataBuffer().length, LARGE,
      'passthrough: request.postDataBuffer() is the whole 200 KiB body');

    // -> no-network: the proxy disables Network upstream, the client's enable is kept.
    assert.equal(await switchTo('no-network', pw.gens), 2, 'no-network is generation 2');
    let s = await waitSession(sid, (x) => !has(x.enabled, 'Network'), 'Network disabled upstream');
    assert.deepEqual(s.client_enabled.Network, {}, `client_enabled still has Network: ${JSON.stringify(s)}`);
    assert.ok(!has(s.proxy_enabled, 'Network'), 'proxy_enabled lacks Network');
    assert.ok(has(s.enabled, 'Page') && has(s.enabled, 'Runtime'), 'the other domains stay enabled');
    const before2 = seen.length;
    v = await visit('two');
    assert.equal(v.resp, null, 'no-network: goto still works (resolves null: no Network events)');
    assert.equal(seen.length, before2, 'no-network: page.on("request") is silent');
    assert.equal(await page.evaluate(() => 6 * 7), 42, 'no-network: evaluate works');

    // -> passthrough: the client's Network.enable {} is replayed by the proxy.
    assert.equal(await switchTo('passthrough', pw.gens), 3, 'passthrough is generation 3');
    s = await waitSession(sid, (x) => has(x.enabled, 'Network'), 'Network enabled again upstream');
    assert.deepEqual(s.enabled.Network, {}, 'replayed with the client\'s params {}');
    assert.deepEqual(s.client_enabled.Network, {}, 'client_enabled unchanged');
    assert.deepEqual(s.proxy_enabled.Network, {}, 'the proxy records the replay as its own enable');
    v = await visit('three');
    assert.equal(v.resp && v.resp.status(), 200, 'passthrough again: goto 200');
    assert.ok(seenURL(v.u), 'passthrough again: Playwright sees requests (page.on("request"))');

    // -> network-postdata-cap: re-enabled with the client's params rewritten by the new policy.
    assert.equal(await switchTo('network-postdata-cap', pw.gens), 4, 'network-postdata-cap is generation 4');
    s = await waitSession(sid, (x) => x.enabled.Network && x.enabled.Network.maxPostDataSize === 65536, 'Network re-enabled with the cap');
    assert.deepEqual(s.enabled.Network, { maxPostDataSize: 65536 }, 'Chrome has Network with maxPostDataSize 65536');
    assert.deepEqual(s.client_enabled.Network, {}, 'client_enabled is what the client sent');
    v = await visit('four');
    assert.equal(v.resp && v.resp.status(), 200, 'cap: goto 200');
    const capBefore = seen.length;
    assert.equal(await postFromPage(page, LARGE), LARGE, 'cap: POST reached the server');
    await h.waitFor(() => seen.slice(capBefore).find((r) => r.method() === 'POST'), { what: 'the POST seen by Playwright' });
    assert.equal(seen.slice(capBefore).find((r) => r.method() === 'POST').postData(), null,
      'cap: request.postData() is null for a 200 KiB body');

    // -> passthrough: replayed without the cap; Chrome copies bodies again.
    assert.equal(await switchTo('passthrough', pw.gens), 5, 'passthrough is generation 5');
    s = await waitSession(sid, (x) => x.enabled.Network && !has(x.enabled.Network, 'maxPostDataSize'), 'Network re-enabled without the cap');
    const afterBefore = seen.length;
    assert.equal(await postFromPage(page, LARGE), LARGE, 'POST reached the server');
    await h.waitFor(() => seen.slice(afterBefore).find((r) => r.method() === 'POST'), { what: 'the POST seen by Playwright' });
    assert.equal(seen.slice(afterBefore).find((r) => r.method() === 'POST').postDataBuffer().length, LARGE,
      'passthrough again: the whole body is back in the event');
    v = await visit('five');
    assert.equal(v.resp && v.resp.status(), 200, 'goto 200');
    t.diagnostic(`page session ${sid} on conn ${pw.conn}; generations ${JSON.stringify(pw.gens)}`);
    await page.close();
  } finally {
    await browser.close();
  }
});

// Opens a new tab through the proxy and a raw client on /devtools/page/ID.
async function rawPage(url) {
  const target = await h.getJSON(`${env.endpoint}/json/new?${url}`, { method: 'PUT' });
  const raw = await h.RawCDP.connect(target.webSocketDebuggerUrl);
  raw.all = [];
  raw.ws.on('message', (d) => raw.all.push(JSON.parse(d.toString())));
  raw.targetId = target.id;
  return raw;
}

async function ownSession(targetId) {
  const stats = await h.getJSON(`${env.endpoint}/proxy/stats`);
  return stats.sessions.find((s) => s.targetId === targetId && s.sessionId === '');
}

const inj = {};
test('injected domains are added and removed by a switch; a client\'s own enable stays', { ...ALL, skip: SKIP }, async () => {
  assert.ok(env, 'setup done');
  const plain = await rawPage('about:blank');      // never enables Network
  let own;
  try {
    own = await h.waitFor(() => ownSession(plain.targetId), { what: 'the page connection\'s session' });
    assert.deepEqual(own.enabled, {}, 'passthrough: nothing enabled on a fresh page connection');
    inj.plainConn = own.conn;

    inj.forceGen = await switchTo('force-network');
    own = await h.waitFor(async () => { const x = await ownSession(plain.targetId); return has(x.enabled, 'Network') && x; },
      { what: 'Network injected into the live page connection' });
    assert.deepEqual(own.proxy_enabled, { Network: {} }, 'proxy_enabled has Network');
    assert.deepEqual(own.client_enabled, {}, 'the client enabled nothing');
    await plain.call('Page.navigate', { url: `${env.server.url}?injected` });
    await h.waitFor(() => plain.events.find((e) => e.method === 'Network.requestWillBeSent' &&
      e.params.request.url === `${env.server.url}?injected`), { what: 'Network.requestWillBeSent at the raw client' });

    // A second client that enables Network itself while it is injected.
    const self = await rawPage('about:blank');
    try {
      await self.call('Network.enable', {});
      const selfOwn = await h.waitFor(async () => { const x = await ownSession(self.targetId); return x && has(x.client_enabled, 'Network') && x; },
        { what: 'the second client\'s Network.enable' });
      inj.selfConn = selfOwn.conn;

      inj.passGen = await switchTo('passthrough');
      own = await h.waitFor(async () => { const x = await ownSession(plain.targetId); return !has(x.enabled, 'Network') && x; },
        { what: 'the injected Network removed again' });
      assert.deepEqual(own.proxy_enabled, {}, 'proxy_enabled is empty again');
      const n = plain.events.filter((e) => e.method === 'Network.requestWillBeSent').length;
      await plain.call('Page.navigate', { url: `${env.server.url}?not-injected` });
      await h.waitFor(async () => (await plain.call('Runtime.evaluate', {
        expression: "location.search + ' ' + document.readyState" })).result.value === '?not-injected complete',
      { what: 'the navigation to finish' });
      await h.sleep(200);
      assert.equal(plain.events.filter((e) => e.method === 'Network.requestWillBeSent').length, n,
        'no Network events once the injection is gone');

      const selfNow = await ownSession(self.targetId);
      assert.deepEqual(selfNow.enabled.Network, {}, `the client's own Network.enable survives the switch: ${JSON.stringify(selfNow)}`);
      for (const c of [plain, self]) {
        assert.ok(c.all.every((m) => m.id === undefined || m.id < PROXY_ID_BASE), 'no answer to the proxy\'s commands reached a client');
      }
    } finally {
      await self.close();
      await h.httpRequest(`${env.endpoint}/json/close/${self.targetId}`);
    }
  } finally {
    await plain.close();
    await h.httpRequest(`${env.endpoint}/json/close/${plain.targetId}`);
  }
});

test('PUT with a bad policy: 400 with the reason, the running policy stays', { ...ALL, skip: SKIP }, async () => {
  assert.ok(env, 'setup done');
  const before = await h.getJSON(`${env.endpoint}/proxy/policy`);
  const cases = [
    [{ name: 'bad', rules: [{ method: 'Net[', action: 'stub' }] }, /^PUT \/proxy\/policy: \$\.rules\[0\]\.method: bad glob 'Net\['/],
    [{ rules: [{ method: 'Network.enable', action: 'explode' }] }, /\$\.rules\[0\]\.action: unknown action 'explode'/],
    [{ rules: [{ method: 'Network.enable', action: 'delay', ms: '100' }] }, /\$\.rules\[0\]\.ms: delay needs milliseconds/],
    ['{"rules": [', /not JSON/],
    [{ name: 'no-such-policy' }, /no-such-policy\.json/],
    [{ name: '../policies/passthrough' }, /not a policy name/],
  ];
  for (const [body, re] of cases) {
    const r = await putPolicy(body);
    assert.equal(r.status, 400, `PUT ${JSON.stringify(body)}: 400 (${r.body})`);
    assert.equal(typeof r.json.error, 'string', 'the answer is {"error"}');
    assert.match(r.json.error, re, 'the error says why');
  }
  const after = await h.getJSON(`${env.endpoint}/proxy/policy`);
  assert.equal(after.name, before.name, 'the policy is unchanged');
  assert.equal(after.gen, before.gen, 'the generation is unchanged');
  assert.equal(after.since_us, before.since_us, 'since_us is unchanged');
});

test('the log shows the switches, the proxy\'s disable and replays, split by generation', { ...ALL, skip: SKIP }, async () => {
  assert.ok(env && pw.sid, 'the Playwright scenario ran');
  const result = await env.stopProxy();
  const records = h.checkProxyExit(assert, result, env.proxy.logPath);

  // Generations only go up, one switch record each.
  let g = 0;
  for (const r of records) {
    assert.ok(Number.isInteger(r.gen) && r.gen >= g, `gen never goes back: ${JSON.stringify(r).slice(0, 200)}`);
    g = r.gen;
  }
  const switches = records.filter((r) => r.kind === 'policy');
  assert.deepEqual(switches.map((r) => [r.name, r.gen, r.via]), [
    ['passthrough', 1, 'start'], ['no-network', 2, 'PUT'], ['passthrough', 3, 'PUT'],
    ['network-postdata-cap', 4, 'PUT'], ['passthrough', 5, 'PUT'],
    ['force-network', inj.forceGen, 'PUT'], ['passthrough', inj.passGen, 'PUT'],
  ], 'one record per switch, in order');

  const onPage = (r) => r.conn === pw.conn && r.session === pw.sid;
  const proxyCmds = (gen) => records.filter((r) => r.gen === gen && onPage(r) && r.dir === 'up' && r.by === 'proxy');
  const answered = (cmd) => {
    const resp = records.filter((r) => r.dir === 'down' && r.kind === 'response' && r.conn === cmd.conn && r.id === cmd.id);
    return resp.length === 1 && resp[0].by === 'proxy' && resp[0].error === undefined && resp[0].method === cmd.method;
  };
  const sent = (cmd) => cmd.body;   // a whole body is logged as JSON

  let cmds = proxyCmds(2);
  assert.deepEqual(cmds.map((r) => r.method), ['Network.disable'], 'gen 2 (no-network): the proxy sent Network.disable up');
  assert.ok(cmds[0].id >= PROXY_ID_BASE && answered(cmds[0]), `from its own id space, answered, not forwarded: ${JSON.stringify(cmds[0])}`);
  cmds = proxyCmds(3);
  assert.deepEqual(cmds.map((r) => r.method), ['Network.enable'], 'gen 3 (passthrough): the proxy replayed Network.enable');
  assert.deepEqual(sent(cmds[0]).params, {}, 'with the client\'s params');
  assert.ok(cmds[0].id >= PROXY_ID_BASE && answered(cmds[0]), 'answered and consumed');
  cmds = proxyCmds(4);
  assert.deepEqual(cmds.map((r) => r.method), ['Network.enable'], 'gen 4 (cap): Network.enable again');
  assert.deepEqual(sent(cmds[0]).params, { maxPostDataSize: 65536 }, 'the client\'s params rewritten by the new policy');
  cmds = proxyCmds(5);
  assert.deepEqual(cmds.map((r) => r.method), ['Network.enable'], 'gen 5 (passthrough): Network.enable again');
  assert.deepEqual(sent(cmds[0]).params, {}, 'without the cap');

  // Network events on the page session by generation: none while no-network was active.
  const netEvents = (gen) => records.filter((r) => r.gen === gen && onPage(r) && r.kind === 'event' && r.method === 'Network.requestWillBeSent');
  assert.ok(netEvents(1).length > 0, 'gen 1: Network events');
  const disableAnswer = records.find((r) => r.gen === 2 && onPage(r) && r.dir === 'down' && r.method === 'Network.disable');
  assert.deepEqual(netEvents(2).filter((r) => r.t > disableAnswer.t).map((r) => r.method), [],
    'gen 2: no Network events after the proxy\'s Network.disable was answered');
  assert.ok(netEvents(3).length > 0 && netEvents(5).length > 0, 'gens 3 and 5: Network events again');
  assert.equal(records.filter((r) => onPage(r) && r.dir === 'up' && r.by !== 'proxy' && /^Network\.(en|dis)able$/.test(r.method)).length, 1,
    'the client itself sent Network.enable once, at the start');

  // The injected domain on the raw page connection.
  const plain = records.filter((r) => r.conn === inj.plainConn && r.dir === 'up' && r.by === 'proxy');
  assert.deepEqual(plain.map((r) => [r.gen, r.method]), [[inj.forceGen, 'Network.enable'], [inj.passGen, 'Network.disable']],
    'the page connection got Network.enable on force-network and Network.disable on passthrough');
  const self = records.filter((r) => r.conn === inj.selfConn && r.dir === 'up' && /^Network\./.test(r.method));
  assert.deepEqual(self.map((r) => [r.by || 'client', r.method]), [['proxy', 'Network.enable'], ['client', 'Network.enable']],
    'the self-enabling client got the injection at connect and no Network.disable on the switch back');
});

test('stop everything', { ...ALL, skip: SKIP }, async () => {
  if (env) await env.teardown();
});

// --- SIGHUP --------------------------------------------------------------------

test('SIGHUP reloads the --policy file; a bad file keeps the running policy', { ...ALL, skip: SKIP }, async () => {
  const dir = h.tmpdir('cdpproxy-sighup-');
  const file = path.join(dir.dir, 'rig.json');
  fs.writeFileSync(file, JSON.stringify({ name: 'rig-a', rules: [] }));
  const hup = await h.setup({ server: false, proxyArgs: ['--policy', file] });
  try {
    const policy = () => h.getJSON(`${hup.endpoint}/proxy/policy`);
    let p = await policy();
    assert.deepEqual([p.name, p.gen, p.policy.source], ['rig-a', 1, file], 'started with the file');

    const version = await h.getJSON(`${hup.endpoint}/json/version`);
    const raw = await h.RawCDP.connect(version.webSocketDebuggerUrl);
    const { targetId } = await raw.call('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await raw.call('Target.attachToTarget', { targetId, flatten: true });
    await raw.call('Network.enable', { maxTotalBufferSize: 1000000 }, sessionId);
    const session = async () => (await h.getJSON(`${hup.endpoint}/proxy/stats`)).sessions.find((s) => s.sessionId === sessionId);
    assert.deepEqual((await session()).enabled.Network, { maxTotalBufferSize: 1000000 }, 'Network enabled under rig-a');

    // Change the file, SIGHUP: the new policy applies to the live session too.
    fs.writeFileSync(file, JSON.stringify({ name: 'rig-b', rules: [{ method: 'Network.enable', kind: 'command', action: 'stub', mapper: false }] }));
    process.kill(hup.proxy.pid, 'SIGHUP');
    p = await h.waitFor(async () => { const x = await policy(); return x.gen === 2 && x; }, { what: 'generation 2 after SIGHUP' });
    assert.equal(p.name, 'rig-b', 'GET /proxy/policy: the reloaded policy');
    assert.match(hup.proxy.stderr(), /policy rig-b \(generation 2\)/, 'stderr reports the reload');
    await h.waitFor(async () => !has((await session()).enabled, 'Network'), { what: 'Network disabled by the reload' });
    assert.deepEqual((await session()).client_enabled.Network, { maxTotalBufferSize: 1000000 }, 'client_enabled kept');

    // A bad file: the proxy says why and keeps rig-b.
    fs.writeFileSync(file, JSON.stringify({ name: 'rig-c', rules: [{ method: 'Network.enable', action: 'explode' }] }));
    process.kill(hup.proxy.pid, 'SIGHUP');
    await h.waitFor(() => /SIGHUP: .*rig\.json: \$\.rules\[0\]\.action: unknown action 'explode'.*keeping policy rig-b/.test(hup.proxy.stderr()),
      { what: 'the SIGHUP error on stderr' });
    p = await policy();
    assert.deepEqual([p.name, p.gen], ['rig-b', 2], 'the running policy and its generation are unchanged');
    fs.writeFileSync(file, '{"name": "rig-d", ');
    process.kill(hup.proxy.pid, 'SIGHUP');
    await h.waitFor(() => /SIGHUP: .*rig\.json: line 1 .*keeping policy rig-b/.test(hup.proxy.stderr()), { what: 'the SIGHUP JSON error' });
    p = await policy();
    assert.deepEqual([p.name, p.gen], ['rig-b', 2], 'invalid JSON: unchanged too');
    assert.ok(!has((await session()).enabled, 'Network'), 'and rig-b still applies');

    // Fixed again: the next generation is 3 (failed reloads use none), and Network is replayed.
    fs.writeFileSync(file, JSON.stringify({ name: 'rig-e', rules: [] }));
    process.kill(hup.proxy.pid, 'SIGHUP');
    p = await h.waitFor(async () => { const x = await policy(); return x.gen === 3 && x; }, { what: 'generation 3' });
    assert.equal(p.name, 'rig-e');
    const s = await h.waitFor(async () => { const x = await session(); return has(x.enabled, 'Network') && x; }, { what: 'Network replayed' });
    assert.deepEqual(s.enabled.Network, { maxTotalBufferSize: 1000000 }, 'replayed with the client\'s original params');
    await raw.close();

    const result = await hup.stopProxy();
    const records = h.checkProxyExit(assert, result, hup.proxy.logPath);
    assert.deepEqual(records.filter((r) => r.kind === 'policy').map((r) => [r.name, r.gen, r.via]),
      [['rig-a', 1, 'start'], ['rig-b', 2, 'SIGHUP'], ['rig-e', 3, 'SIGHUP']], 'one record per successful reload');
    const byGen = {};
    for (const r of records) byGen[r.gen] = (byGen[r.gen] || 0) + 1;
    assert.deepEqual(Object.keys(byGen).sort(), ['1', '2', '3'], `records split into generations 1-3: ${JSON.stringify(byGen)}`);
    const proxyCmds = records.filter((r) => r.dir === 'up' && r.by === 'proxy' && r.session === sessionId);
    assert.deepEqual(proxyCmds.map((r) => [r.gen, r.method]), [[2, 'Network.disable'], [3, 'Network.enable']],
      'the proxy disabled Network on reload to rig-b and replayed it on reload to rig-e');
  } finally {
    await hup.teardown();
    dir.remove();
  }
});
