#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 6: policies against real Chromium. Playwright and Puppeteer open a
// page, navigate, evaluate, route/intercept and close through cdpproxy under
// policies/no-network.json, network-postdata-cap.json and force-network.json,
// and the log and /proxy/stats must show what each policy did. Then every
// action (stub, reject, rewrite, drop, delay, inject) is driven once through
// a raw CDP client, one PUT /proxy/policy per action.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const h = require('./lib/harness');

const ALL = { timeout: 50000 };
const SKIP = h.DIRECT && 'CDPPROXY_DIRECT=1: policies need the proxy';
const POLICY_DIR = path.join(h.ROOT, 'policies');
const PROXY_ID_BASE = 1000000000;  // the proxy's own command ids start here
const SMALL = 1024;                 // under maxPostDataSize 65536: still copied
const LARGE = 200 * 1024;           // over it: no longer copied into events

let chrome, server;

const has = (o, k) => !!o && Object.prototype.hasOwnProperty.call(o, k);

// The body the page POSTs: n bytes, byte i = (i * 31) & 255.
function pattern(n) {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31) & 255;
  return b;
}

const putPolicy = h.putPolicy;

// The client's own session of a page target in /proxy/stats: the one whose
// client enabled Page (a client's extra CDP sessions on the target do not).
async function clientPageSession(endpoint, targetId) {
  const stats = await h.getJSON(`${endpoint}/proxy/stats`);
  const mine = stats.sessions.filter((s) => s.targetId === targetId && s.type === 'page' &&
    has(s.client_enabled, 'Page'));
  assert.equal(mine.length, 1, `one client page session of target ${targetId}: ${JSON.stringify(stats.sessions)}`);
  return { session: mine[0], stats };
}

// What each shipped policy must have done to a page session the client
// (Playwright or Puppeteer, both send Network.enable with no params) drives.
function checkPageSession(pol, s) {
  const js = JSON.stringify(s);
  assert.deepEqual(s.client_enabled.Network, {}, `${pol}: client_enabled has the client's Network.enable {}: ${js}`);
  if (pol === 'no-network') {
    assert.ok(!has(s.enabled, 'Network'), `no-network: Chrome does not have Network enabled: ${js}`);
    assert.ok(!has(s.proxy_enabled, 'Network'), `no-network: the proxy did not enable Network: ${js}`);
    assert.ok(has(s.enabled, 'Page') && has(s.enabled, 'Runtime'), `no-network: other domains still reach Chrome: ${js}`);
  } else if (pol === 'network-postdata-cap') {
    assert.deepEqual(s.enabled.Network, { maxPostDataSize: 65536 },
      `network-postdata-cap: Chrome has Network enabled with maxPostDataSize 65536: ${js}`);
  } else if (pol === 'force-network') {
    assert.deepEqual(s.proxy_enabled.Network, {}, `force-network: proxy_enabled has Network: ${js}`);
    assert.ok(has(s.enabled, 'Network'), `force-network: Chrome has Network enabled: ${js}`);
  }
}

function checkStatsPolicy(pol, stats) {
  assert.equal(stats.policy && stats.policy.name, pol, `/proxy/stats names the active policy: ${JSON.stringify(stats.policy)}`);
  assert.equal(stats.policy.gen, 1, 'generation 1: the policy loaded at start');
  for (const r of stats.policy.policy.rules) {
    assert.ok(Number.isInteger(r.hits), `every rule has hits: ${JSON.stringify(r)}`);
  }
  if (pol !== 'force-network') {
    assert.ok(stats.policy.policy.rules[0].hits >= 1, `${pol}: the Network.enable rule has hits: ${JSON.stringify(stats.policy)}`);
  }
}

async function playwrightScenario(t, pol, proxy) {
  const { chromium } = h.client('playwright-core');
  const browser = await chromium.connectOverCDP(proxy.httpURL, { timeout: 15000 });
  try {
    const context = browser.contexts()[0];
    const page = await context.newPage();
    const requests = [];
    page.on('request', (r) => requests.push(r));

    const gets = server.requests.filter((r) => r.path === '/').length;
    const resp = await page.goto(`${server.url}?pw-${pol}`);
    assert.equal(server.requests.filter((r) => r.path === '/').length, gets + 1, 'the navigation reached the server');
    assert.equal(await page.title(), 'cdpproxy test page', 'goto loaded the page');
    assert.equal(await page.evaluate(() => window.pageMarker), 'cdpproxy-42', 'evaluate in the page');
    if (pol === 'no-network') {
      // Playwright builds its Response from Network events; none arrive.
      assert.equal(resp, null, 'no-network: goto() resolves with null (Playwright sees no Network events)');
      assert.equal(requests.length, 0, 'no-network: page.on("request") never fires');
    } else {
      assert.equal(resp && resp.status(), 200, 'goto: 200');
      assert.ok(requests.some((r) => r.url() === `${server.url}?pw-${pol}`), 'page.on("request") saw the navigation');
    }

    // Routing (Fetch.enable + Fetch.requestPaused).
    let routed = 0;
    const before = server.requests.filter((r) => r.path === '/data.json').length;
    const route = page.route('**/data.json', (route) => {
      routed++;
      return route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ source: `route-${pol}` }) });
    });
    if (pol === 'no-network') {
      // Without Network events Playwright would let routed requests through
      // silently, so no-network refuses Fetch.enable with a clear error.
      await assert.rejects(route, /Protocol error \(Fetch\.enable\): cdpproxy policy no-network: request interception/,
        'no-network: page.route fails at once with the policy\'s reason');
      const data = await page.evaluate(() => fetch('/data.json').then((r) => r.json()));
      assert.deepEqual(data, { source: 'server' }, 'no-network: the page itself keeps working');
      assert.equal(routed, 0, 'no-network: no route handler ran');
    } else {
      await route;
      const data = await page.evaluate(() => fetch('/data.json').then((r) => r.json()));
      const reached = server.requests.filter((r) => r.path === '/data.json').length - before;
      assert.equal(routed, 1, 'the route handler ran once');
      assert.deepEqual(data, { source: `route-${pol}` }, 'route.fulfill answered the fetch');
      assert.equal(reached, 0, 'the fulfilled request never reached the server');
    }
    await page.unroute('**/data.json');

    // POST bodies: what Playwright's request.postData() gets from Network events.
    const posts = [];
    page.on('request', (r) => { if (r.method() === 'POST') posts.push(r); });
    for (const n of [SMALL, LARGE]) {
      const echo = await page.evaluate(async (len) => {
        const body = new Uint8Array(len);
        for (let i = 0; i < len; i++) body[i] = (i * 31) & 255;
        return (await fetch('/echo', { method: 'POST', body })).json();
      }, n);
      assert.deepEqual(echo, { bytes: n, sha256: h.sha256(pattern(n)), header: null }, `POST of ${n} bytes reached the server intact`);
    }
    if (pol === 'no-network') {
      await h.sleep(200);
      assert.equal(posts.length, 0, 'no-network: Playwright sees no POST requests');
    } else {
      await h.waitFor(() => posts.length === 2, { what: 'two POST requests seen by Playwright' });
      assert.ok(posts[0].postDataBuffer() && posts[0].postDataBuffer().equals(pattern(SMALL)),
        `small POST: request.postDataBuffer() is the 1 KiB body (${posts[0].postDataBuffer() && posts[0].postDataBuffer().length} bytes)`);
      if (pol === 'network-postdata-cap') {
        assert.equal(posts[1].postData(), null,
          'network-postdata-cap: the 200 KiB body is over maxPostDataSize: request.postData() is null');
        assert.equal(posts[1].postDataBuffer(), null, 'network-postdata-cap: request.postDataBuffer() is null');
      } else {
        // Control: Network.enable without a cap copies the whole body.
        assert.equal(posts[1].postDataBuffer() && posts[1].postDataBuffer().length, LARGE,
          `${pol}: uncapped Network.enable copies the whole 200 KiB body into the event`);
      }
    }

    const cdp = await context.newCDPSession(page);
    const { targetInfo } = await cdp.send('Target.getTargetInfo');
    await cdp.detach();
    const { session, stats } = await clientPageSession(proxy.httpURL, targetInfo.targetId);
    checkPageSession(pol, session);
    checkStatsPolicy(pol, stats);
    t.diagnostic(`playwright under ${pol}: session ${session.sessionId} enabled ${JSON.stringify(session.enabled)} ` +
      `client_enabled ${JSON.stringify(session.client_enabled)} proxy_enabled ${JSON.stringify(session.proxy_enabled)}`);
    await page.close();
    return { conn: session.conn, sessionId: session.sessionId };
  } finally {
    await browser.close();
  }
}

async function puppeteerScenario(t, pol, proxy) {
  const puppeteer = h.client('puppeteer-core');
  const browser = await puppeteer.connect({ browserURL: proxy.httpURL, protocolTimeout: 15000 });
  try {
    const page = await browser.newPage();
    const resp = await page.goto(`${server.url}?pptr-${pol}`, { waitUntil: 'load', timeout: 15000 });
    if (pol === 'no-network') {
      assert.equal(resp, null, 'no-network: goto() resolves with null (Puppeteer sees no Network events)');
    } else {
      assert.equal(resp && resp.status(), 200, 'goto: 200');
    }
    assert.equal(await page.title(), 'cdpproxy test page', 'goto loaded the page');
    assert.equal(await page.evaluate(() => window.pageMarker), 'cdpproxy-42', 'evaluate in the page');

    if (pol === 'no-network') {
      await assert.rejects(page.setRequestInterception(true),
        /Protocol error \(Fetch\.enable\): cdpproxy policy no-network: request interception/,
        'no-network: request interception fails at once with the policy\'s reason');
    } else {
      const before = server.requests.filter((r) => r.path === '/data.json').length;
      const intercepted = [];
      await page.setRequestInterception(true);
      page.on('request', (req) => {
        if (req.isInterceptResolutionHandled()) return;
        intercepted.push(req.url());
        if (req.url().endsWith('/data.json')) {
          req.respond({ status: 200, contentType: 'application/json', body: JSON.stringify({ source: `intercept-${pol}` }) });
        } else {
          req.continue({ headers: { ...req.headers(), 'x-cdpproxy-test': pol } });
        }
      });
      const data = await page.evaluate(() => fetch('/data.json').then((r) => r.json()));
      assert.deepEqual(data, { source: `intercept-${pol}` }, 'the interception answered the fetch');
      assert.equal(server.requests.filter((r) => r.path === '/data.json').length, before, 'the answered request never reached the server');
      const echo = await page.evaluate(() => fetch('/echo', { method: 'POST', body: 'abc'.repeat(1000) }).then((r) => r.json()));
      assert.equal(echo.bytes, 3000, 'the continued POST reached the server');
      assert.equal(echo.header, pol, 'with the header the interception added');
      assert.ok(intercepted.some((u) => u.endsWith('/echo')), 'the POST was intercepted');
      await page.setRequestInterception(false);
    }

    const cdp = await page.createCDPSession();
    const { targetInfo } = await cdp.send('Target.getTargetInfo');
    await cdp.detach();
    const { session, stats } = await clientPageSession(proxy.httpURL, targetInfo.targetId);
    checkPageSession(pol, session);
    checkStatsPolicy(pol, stats);
    t.diagnostic(`puppeteer under ${pol}: session ${session.sessionId} enabled ${JSON.stringify(session.enabled)} ` +
      `client_enabled ${JSON.stringify(session.client_enabled)} proxy_enabled ${JSON.stringify(session.proxy_enabled)}`);
    await page.close();
    return { conn: session.conn, sessionId: session.sessionId };
  } finally {
    await browser.disconnect();
  }
}

// Opens a new tab through the proxy and a raw client on its page connection
// (/devtools/page/ID); every message the client receives is kept in `all`.
async function rawPage(proxy, url) {
  const target = await h.getJSON(`${proxy.httpURL}/json/new?${url}`, { method: 'PUT' });
  assert.equal(new URL(target.webSocketDebuggerUrl).host, `127.0.0.1:${proxy.port}`, 'target URL points at the proxy');
  const raw = await h.RawCDP.connect(target.webSocketDebuggerUrl);
  raw.all = [];
  raw.ws.on('message', (d) => raw.all.push(JSON.parse(d.toString())));
  raw.targetId = target.id;
  return raw;
}

async function closeRawPage(proxy, raw) {
  await raw.close();
  await h.httpRequest(`${proxy.httpURL}/json/close/${raw.targetId}`);
}

test('start chromium and the local server', { ...ALL, skip: SKIP }, async () => {
  chrome = await h.startChrome();
  server = await h.startServer();
});

for (const pol of ['no-network', 'network-postdata-cap', 'force-network']) {
  const ctx = {};
  test(`${pol}: start cdpproxy --policy policies/${pol}.json`, { ...ALL, skip: SKIP }, async () => {
    assert.ok(chrome && server, 'chromium and server started');
    ctx.proxy = await h.startProxy({
      upstreamPort: chrome.port, args: ['--policy', path.join(POLICY_DIR, `${pol}.json`), '--log-bodies=4096'],
    });
    assert.match(ctx.proxy.stderr(), new RegExp(`policy ${pol}\\b`), 'the listening line names the policy');
    const active = await h.getJSON(`${ctx.proxy.httpURL}/proxy/policy`);
    assert.equal(active.name, pol, 'GET /proxy/policy: name');
    assert.equal(active.gen, 1, 'GET /proxy/policy: generation 1');
    assert.ok(Number.isInteger(active.since_us) && active.since_us > 0, 'GET /proxy/policy: since_us');
  });

  test(`${pol}: Playwright page, goto, evaluate, route, POST bodies, close`, { ...ALL, skip: SKIP }, async (t) => {
    assert.ok(ctx.proxy, 'proxy started');
    ctx.playwright = await playwrightScenario(t, pol, ctx.proxy);
  });

  test(`${pol}: Puppeteer page, goto, evaluate, intercept, close`, { ...ALL, skip: SKIP }, async (t) => {
    assert.ok(ctx.proxy, 'proxy started');
    ctx.puppeteer = await puppeteerScenario(t, pol, ctx.proxy);
  });

  if (pol === 'force-network') {
    test('force-network: a raw page connection that never enables Network gets Network events', { ...ALL, skip: SKIP }, async () => {
      assert.ok(ctx.proxy, 'proxy started');
      const raw = await rawPage(ctx.proxy, server.url);
      try {
        const stats = await h.waitFor(async () => {
          const st = await h.getJSON(`${ctx.proxy.httpURL}/proxy/stats`);
          const own = st.sessions.find((s) => s.targetId === raw.targetId && s.sessionId === '');
          return own && has(own.enabled, 'Network') && st;
        }, { what: 'the page connection\'s session to have Network enabled' });
        const own = stats.sessions.find((s) => s.targetId === raw.targetId && s.sessionId === '');
        assert.deepEqual(own.proxy_enabled, { Network: {} }, `the proxy enabled Network at connect: ${JSON.stringify(own)}`);
        assert.deepEqual(own.client_enabled, {}, 'the client enabled nothing');
        ctx.rawConn = own.conn;
        let pages;
        await h.waitFor(async () => {
          pages = (await h.getJSON(`${ctx.proxy.httpURL}/proxy/stats`)).sessions.filter((x) => x.type === 'page');
          return pages.every((x) => has(x.proxy_enabled, 'Network'));
        }, { what: () => `every page session to have Network in proxy_enabled (${JSON.stringify(pages)})` });

        // /json/new returns before the page's navigation commits: a fetch in the
        // initial about:blank cannot resolve a relative URL (CI saw it once).
        await h.waitFor(async () => {
          const d = await raw.call('Runtime.evaluate', { expression: 'location.href + " " + document.readyState' });
          return d.result.value === `${new URL(server.url).href} complete`;
        }, { what: `the raw page to load ${server.url}` });
        const r = await raw.call('Runtime.evaluate', {
          expression: "fetch('/data.json?raw').then((r) => r.status)", awaitPromise: true,
        });
        assert.equal(r.result.value, 200, `the page fetched /data.json: ${JSON.stringify(r)}`);
        const ev = await h.waitFor(() => raw.events.find((e) => e.method === 'Network.requestWillBeSent' &&
          /\/data\.json\?raw$/.test(e.params.request.url)), { what: 'Network.requestWillBeSent for /data.json at the raw client' });
        assert.equal(ev.params.request.method, 'GET');
        assert.ok(raw.all.every((m) => m.id === undefined || m.id < PROXY_ID_BASE),
          'no response to the proxy\'s own commands reached the client');
      } finally {
        await closeRawPage(ctx.proxy, raw);
      }
    });
  }

  test(`${pol}: the proxy exits cleanly; its log shows what the policy did`, { ...ALL, skip: SKIP }, async () => {
    assert.ok(ctx.proxy, 'proxy started');
    const result = await ctx.proxy.stop();
    const records = h.checkProxyExit(assert, result, ctx.proxy.logPath);
    ctx.proxy.removeDir();
    assert.ok(records.every((r) => r.gen === 1), 'every record was handled under generation 1');
    const start = records.find((r) => r.kind === 'policy');
    assert.ok(start && start.name === pol && start.via === 'start', `a policy record names ${pol}: ${JSON.stringify(start)}`);

    const enables = records.filter((r) => r.dir === 'up' && r.kind === 'command' && r.method === 'Network.enable');
    const clientEnables = enables.filter((r) => r.by !== 'proxy');
    for (const who of ['playwright', 'puppeteer']) {
      const s = ctx[who];
      assert.ok(s, `${who} scenario ran`);
      assert.ok(clientEnables.some((r) => r.conn === s.conn && r.session === s.sessionId),
        `${who}: the client's Network.enable on session ${s.sessionId} is logged`);
    }
    const responseTo = (cmd) => records.filter((r) => r.dir === 'down' && r.kind === 'response' &&
      r.conn === cmd.conn && r.id === cmd.id && r.session === cmd.session);

    if (pol === 'no-network') {
      for (const cmd of clientEnables) {
        const js = JSON.stringify(cmd);
        assert.equal(cmd.action, 'stub', `every client Network.enable is stubbed: ${js}`);
        const resp = responseTo(cmd);
        assert.equal(resp.length, 1, `one answer to ${js}`);
        assert.equal(resp[0].by, 'proxy', `the proxy answered it, Chrome did not: ${JSON.stringify(resp[0])}`);
        assert.equal(resp[0].error, undefined, 'with success');
      }
      assert.equal(enables.length, clientEnables.length, 'the proxy enabled nothing itself');
      const netEvents = records.filter((r) => r.dir === 'down' && r.kind === 'event' && /^Network\./.test(r.method));
      assert.deepEqual(netEvents.map((r) => r.method), [], 'Chrome sent no Network event at all');
      // Both clients' Fetch.enable were refused by the policy, not by Chrome.
      const fetchEnables = records.filter((r) => r.dir === 'up' && r.method === 'Fetch.enable' && r.kind === 'command');
      assert.ok(fetchEnables.length >= 2 && fetchEnables.every((r) => r.action === 'reject'),
        `every Fetch.enable was rejected by the policy: ${JSON.stringify(fetchEnables)}`);
    } else if (pol === 'network-postdata-cap') {
      for (const cmd of clientEnables) {
        const js = JSON.stringify(cmd);
        assert.equal(cmd.action, 'rewrite', `every client Network.enable is rewritten: ${js}`);
        assert.deepEqual(cmd.body.params, { maxPostDataSize: 65536 }, `it went up with maxPostDataSize 65536: ${js}`);
        const resp = responseTo(cmd);
        assert.equal(resp.length, 1, `one answer to ${js}`);
        assert.equal(resp[0].by, undefined, 'Chrome answered it');
      }
      assert.equal(enables.length, clientEnables.length, 'the proxy enabled nothing itself');
    } else if (pol === 'force-network') {
      const own = enables.filter((r) => r.by === 'proxy');
      assert.ok(clientEnables.every((r) => r.action === undefined), 'client Network.enable passes unchanged');
      for (const cmd of own) {
        assert.ok(cmd.id >= PROXY_ID_BASE, `the proxy's own command has an id from its own space: ${JSON.stringify(cmd)}`);
        const resp = responseTo(cmd);
        if (resp.length === 0) {
          // A session the client detached at once (its newCDPSession /
          // createCDPSession) may go before Chrome answers.
          const detached = records.find((r) => r.kind === 'event' && r.method === 'Target.detachedFromTarget' &&
            r.t >= cmd.t && r.body.params.sessionId === cmd.session);
          assert.ok(detached, `an unanswered injected command is on a session that detached: ${JSON.stringify(cmd)}`);
          continue;
        }
        assert.ok(resp.length === 1 && resp[0].by === 'proxy' && resp[0].error === undefined,
          `its successful response is logged as the proxy's: ${JSON.stringify(resp)}`);
      }
      for (const who of ['playwright', 'puppeteer']) {
        const s = ctx[who];
        assert.ok(own.some((r) => r.conn === s.conn && r.session === s.sessionId),
          `${who}: the proxy sent Network.enable on its page session ${s.sessionId}`);
      }
      assert.ok(own.some((r) => r.conn === ctx.rawConn && r.session === undefined),
        `the proxy sent Network.enable on the raw page connection ${ctx.rawConn} itself`);
    }
  });
}

// --- every action once, through a raw client ----------------------------------

const act = {};
test('actions: start cdpproxy (passthrough) and a raw client on a flattened page session', { ...ALL, skip: SKIP }, async () => {
  assert.ok(chrome && server, 'chromium and server started');
  act.proxy = await h.startProxy({ upstreamPort: chrome.port, args: ['--policy-dir', POLICY_DIR] });
  const version = await h.getJSON(`${act.proxy.httpURL}/json/version`);
  act.raw = await h.RawCDP.connect(version.webSocketDebuggerUrl);
  act.raw.all = [];
  act.raw.ws.on('message', (d) => act.raw.all.push(JSON.parse(d.toString())));
  const { targetId } = await act.raw.call('Target.createTarget', { url: server.url });
  const { sessionId } = await act.raw.call('Target.attachToTarget', { targetId, flatten: true });
  Object.assign(act, { targetId, sessionId, gens: {} });
  await act.raw.call('Runtime.enable', {}, sessionId);
  await h.waitFor(async () => (await act.raw.call('Runtime.evaluate', { expression: 'window.pageMarker' }, sessionId))
    .result.value === 'cdpproxy-42', { what: 'the test page to load' });
});

// PUT a policy document; returns its generation.
async function activate(doc) {
  const r = await putPolicy(act.proxy.httpURL, doc);
  assert.equal(r.status, 200, `PUT /proxy/policy: ${r.body}`);
  assert.equal(r.json.name, doc.name, 'the answer is the active policy');
  act.gens[doc.name] = r.json.gen;
  return r.json.gen;
}

test('action stub: a given result, with the command\'s id and sessionId; Chrome never sees it', { ...ALL, skip: SKIP }, async () => {
  assert.ok(act.raw, 'raw client connected');
  const real = await act.raw.call('Browser.getVersion');
  assert.match(real.product, /Chrom/, 'control: Chrome answers Browser.getVersion');
  await activate({ name: 'act-stub', rules: [
    { method: 'Browser.getVersion', action: 'stub', result: { product: 'cdpproxy-stub', protocolVersion: '0.0' } },
    { method: 'Runtime.getIsolateId', kind: 'command', action: 'stub' },
  ] });
  const r = await act.raw.send('Browser.getVersion');
  assert.deepEqual(r.result, { product: 'cdpproxy-stub', protocolVersion: '0.0' }, 'the stub\'s result');
  const s = await act.raw.send('Runtime.getIsolateId', {}, act.sessionId);
  assert.deepEqual(s.result, {}, 'the default stub result is {}');
  assert.equal(s.sessionId, act.sessionId, 'the stub answer carries the sessionId');
  // The method and sessionId written with JSON escapes: matched, answered
  // and logged as what they decode to.
  const esc = (str) => `\\u${str.charCodeAt(0).toString(16).padStart(4, '0')}${str.slice(1)}`;
  act.raw.ws.send(`{"id":9001,"method":"${esc('Runtime.getIsolateId')}",` +
    `"sessionId":"${esc(act.sessionId)}","params":{}}`);
  const e = await h.waitFor(() => act.raw.all.find((m) => m.id === 9001), { what: 'the escaped command\'s answer' });
  assert.deepEqual(e.result, {}, `the escaped method is stubbed too: ${JSON.stringify(e)}`);
  assert.equal(e.sessionId, act.sessionId, 'the answer carries the decoded sessionId');
  const pol = await h.getJSON(`${act.proxy.httpURL}/proxy/policy`);
  assert.deepEqual(pol.policy.rules.map((x) => x.hits), [1, 2], `the stub rules' hits: ${JSON.stringify(pol.policy.rules)}`);
  act.stubIds = [r.id, s.id];
  act.stubStats = (await h.getJSON(`${act.proxy.httpURL}/proxy/stats`)).methods;
});

test('action reject: the client gets the CDP error', { ...ALL, skip: SKIP }, async () => {
  assert.ok(act.raw, 'raw client connected');
  await activate({ name: 'act-reject', rules: [
    { method: 'Runtime.evaluate', action: 'reject', code: -32042, message: 'evaluate is not allowed here' },
  ] });
  const r = await act.raw.send('Runtime.evaluate', { expression: '1+1' }, act.sessionId);
  assert.deepEqual(r.error, { code: -32042, message: 'evaluate is not allowed here' }, `the error: ${JSON.stringify(r)}`);
  assert.equal(r.result, undefined, 'no result');
  assert.equal(r.sessionId, act.sessionId, 'the error carries the sessionId');
  act.rejectId = r.id;
});

test('action rewrite: Runtime.evaluate params merged before Chrome sees them', { ...ALL, skip: SKIP }, async () => {
  assert.ok(act.raw, 'raw client connected');
  const real = await act.raw.call('Browser.getVersion');
  await activate({ name: 'act-rewrite', rules: [
    { method: 'Runtime.evaluate', kind: 'command', action: 'rewrite', params: { expression: '40+2' }, remove: ['returnByValue'] },
    { method: 'Browser.getVersion', kind: 'response', action: 'rewrite', params: { product: 'cdpproxy-rewritten' }, remove: ['jsVersion'] },
  ] });
  const r = await act.raw.call('Runtime.evaluate', { expression: '1+1', returnByValue: true }, act.sessionId);
  assert.deepEqual(r.result, { type: 'number', value: 42, description: '42' }, `Chrome evaluated the rewritten expression: ${JSON.stringify(r)}`);
  const v = await act.raw.call('Browser.getVersion');
  const expected = { ...real, product: 'cdpproxy-rewritten' };
  delete expected.jsVersion;
  assert.deepEqual(v, expected, 'a response rewritten on its way to the client: merged and removed keys');
});

test('action drop: Runtime.consoleAPICalled never reaches the client', { ...ALL, skip: SKIP }, async () => {
  assert.ok(act.raw, 'raw client connected');
  const consoleEvents = (text) => act.raw.events.filter((e) => e.method === 'Runtime.consoleAPICalled' &&
    e.params.args.some((a) => a.value === text));
  await activate({ name: 'act-none', rules: [] });
  await act.raw.call('Runtime.evaluate', { expression: "console.log('cdpproxy-control')" }, act.sessionId);
  await h.waitFor(() => consoleEvents('cdpproxy-control').length === 1, { what: 'control: consoleAPICalled arrives without the rule' });

  await activate({ name: 'act-drop', rules: [{ method: 'Runtime.consoleAPICalled', action: 'drop' }] });
  for (let i = 0; i < 3; i++) {
    await act.raw.call('Runtime.evaluate', { expression: "console.log('cdpproxy-dropped')" }, act.sessionId);
  }
  // A marker after the drops: once its answer is in, the events came and went.
  await act.raw.call('Runtime.evaluate', { expression: '0' }, act.sessionId);
  await h.sleep(200);
  assert.equal(consoleEvents('cdpproxy-dropped').length, 0, 'no dropped event reached the client');
  const pol = await h.getJSON(`${act.proxy.httpURL}/proxy/policy`);
  assert.equal(pol.policy.rules[0].hits, 3, 'the drop rule counted 3 hits');
});

test('action delay: held 300 ms, and the next command waits behind it', { ...ALL, skip: SKIP }, async () => {
  assert.ok(act.raw, 'raw client connected');
  await activate({ name: 'act-delay', rules: [{ method: 'Runtime.evaluate', kind: 'command', action: 'delay', ms: 300 }] });
  const arrived = [];
  const t0 = Date.now();
  const first = act.raw.send('Runtime.evaluate', { expression: "window.order = (window.order || '') + 'a'" }, act.sessionId)
    .then((r) => { arrived.push(['evaluate', Date.now() - t0]); return r; });
  const second = act.raw.send('Runtime.getIsolateId', {}, act.sessionId)
    .then((r) => { arrived.push(['getIsolateId', Date.now() - t0]); return r; });
  const [a, b] = await Promise.all([first, second]);
  assert.equal(a.error, undefined, 'the delayed command succeeded');
  assert.equal(b.error, undefined, 'the command behind it succeeded');
  assert.deepEqual(arrived.map((x) => x[0]), ['evaluate', 'getIsolateId'], `order kept: ${JSON.stringify(arrived)}`);
  assert.ok(arrived[0][1] >= 300, `the delayed response came after >= 300 ms: ${JSON.stringify(arrived)}`);
  assert.ok(arrived[0][1] < 300 + 2000, `... and not seconds later: ${JSON.stringify(arrived)}`);
  assert.ok(arrived[1][1] >= 300, `the command sent after it was held behind it: ${JSON.stringify(arrived)}`);
  act.delayIds = [a.id, b.id];
  await activate({ name: 'act-none-2', rules: [] });
  const t1 = Date.now();
  await act.raw.call('Runtime.evaluate', { expression: '1' }, act.sessionId);
  assert.ok(Date.now() - t1 < 300, 'control: without the rule the answer is prompt');
});

test('action inject: a /devtools/page/ID connection gets Network enabled by the proxy at connect', { ...ALL, skip: SKIP }, async () => {
  assert.ok(act.raw, 'raw client connected');
  await activate({ name: 'act-inject', inject: [
    { target: 'page', commands: [{ method: 'Network.enable', params: { maxPostDataSize: 4096 } }] },
  ] });
  const raw = await rawPage(act.proxy, 'about:blank');
  try {
    const own = await h.waitFor(async () => {
      const st = await h.getJSON(`${act.proxy.httpURL}/proxy/stats`);
      const s = st.sessions.find((x) => x.targetId === raw.targetId && x.sessionId === '');
      return s && has(s.enabled, 'Network') && s;
    }, { what: 'Network enabled on the page connection' });
    assert.deepEqual(own.proxy_enabled, { Network: { maxPostDataSize: 4096 } }, `proxy_enabled: ${JSON.stringify(own)}`);
    assert.deepEqual(own.enabled, { Network: { maxPostDataSize: 4096 } }, 'Chrome has it with the injected params');
    assert.deepEqual(own.client_enabled, {}, 'the client enabled nothing');
    act.injectConn = own.conn;
    await raw.call('Page.navigate', { url: `${server.url}?inject` });
    await h.waitFor(() => raw.events.find((e) => e.method === 'Network.requestWillBeSent' &&
      e.params.request.url === `${server.url}?inject`), { what: 'Network.requestWillBeSent at the client that never enabled Network' });
    assert.ok(raw.all.every((m) => m.id === undefined || m.id < PROXY_ID_BASE), 'the injected command\'s response was not forwarded');
  } finally {
    await closeRawPage(act.proxy, raw);
  }
});

test('rule scoping: target type and target URL glob', { ...ALL, skip: SKIP }, async () => {
  assert.ok(act.raw, 'raw client connected');
  const other = await act.raw.call('Target.createTarget', { url: 'about:blank' });
  const { sessionId: blank } = await act.raw.call('Target.attachToTarget', { targetId: other.targetId, flatten: true });
  act.blankTarget = other.targetId;
  act.blankSession = blank;
  await activate({ name: 'act-scope', rules: [
    { method: 'Runtime.evaluate', target: 'page', url: `${server.url}*`, action: 'reject', code: -32043, message: 'not on this URL' },
  ] });
  const onServer = await act.raw.send('Runtime.evaluate', { expression: '1' }, act.sessionId);
  assert.equal(onServer.error && onServer.error.code, -32043, `a page at ${server.url}: rejected (${JSON.stringify(onServer)})`);
  const onBlank = await act.raw.send('Runtime.evaluate', { expression: '1' }, blank);
  assert.equal(onBlank.error, undefined, `a page at about:blank: passes (${JSON.stringify(onBlank)})`);
  const onBrowser = await act.raw.send('Target.getTargets');
  assert.equal(onBrowser.error, undefined, 'other methods pass');
});

// Target.targetInfoChanged only arrives after Target.setDiscoverTargets (which
// Playwright never sends): the proxy also follows the main frame's
// Page.frameNavigated, so a URL-scoped rule follows a page that navigates.
test('rule scoping: a URL rule follows the page after it navigates', { ...ALL, skip: SKIP }, async () => {
  assert.ok(act.blankSession, 'the about:blank session exists');
  // Page events are how the proxy sees the navigation (every real client enables Page).
  await act.raw.call('Page.enable', {}, act.blankSession);
  await act.raw.call('Page.navigate', { url: `${server.url}?navigated` }, act.blankSession);
  await h.waitFor(async () => {
    const r = await act.raw.send('Runtime.evaluate', { expression: 'location.search' }, act.blankSession);
    return r.error || r.result.result.value === '?navigated';
  }, { what: 'the navigation' });
  const r = await act.raw.send('Runtime.evaluate', { expression: '1' }, act.blankSession);
  assert.equal(r.error && r.error.code, -32043, `the navigated page is now at ${server.url}: rejected (${JSON.stringify(r)})`);
});

// The proxy's own stub/reject answers are logged and counted under the
// command's method, not as "(unmatched)" responses.
test('stub answers are logged and counted under their command\'s method', { ...ALL, skip: SKIP }, async () => {
  assert.ok(act.stubStats, 'stats taken after the stubs');
  assert.equal(act.stubStats['(unmatched)'], undefined, `no "(unmatched)" responses: ${JSON.stringify(act.stubStats['(unmatched)'])}`);
  assert.equal(act.stubStats['Browser.getVersion'].messages[1], 2, 'Browser.getVersion: two answers down (Chrome\'s and the stub\'s)');
  const records = h.readLog(act.proxy.logPath);
  const down = records.filter((r) => r.dir === 'down' && act.stubIds.includes(r.id) && r.by === 'proxy');
  assert.deepEqual(down.map((r) => r.method), ['Browser.getVersion', 'Runtime.getIsolateId'], 'the answers name their methods');
  const escaped = records.filter((r) => r.id === 9001).map((r) => [r.dir, r.method, r.session]);
  assert.deepEqual(escaped, [['up', 'Runtime.getIsolateId', act.sessionId], ['down', 'Runtime.getIsolateId', act.sessionId]],
    'the escaped command and its stub answer are logged decoded');
});

test('actions: the log shows each action under its own generation', { ...ALL, skip: SKIP }, async () => {
  assert.ok(act.raw, 'raw client connected');
  await act.raw.close();
  await h.httpRequest(`${act.proxy.httpURL}/json/close/${act.targetId}`);
  if (act.blankTarget) await h.httpRequest(`${act.proxy.httpURL}/json/close/${act.blankTarget}`);
  const result = await act.proxy.stop();
  const records = h.checkProxyExit(assert, result, act.proxy.logPath);
  act.proxy.removeDir();
  const g = act.gens;
  const inGen = (name) => records.filter((r) => r.gen === g[name]);
  for (const name of Object.keys(g)) {
    const sw = records.filter((r) => r.kind === 'policy' && r.name === name);
    assert.equal(sw.length, 1, `one switch record for ${name}`);
    assert.equal(sw[0].gen, g[name], `the switch to ${name} is generation ${g[name]}`);
    assert.equal(sw[0].via, 'PUT', 'made by PUT');
  }
  const actions = (name) => inGen(name).filter((r) => r.action).map((r) => `${r.dir} ${r.kind} ${r.method} ${r.action}`);

  assert.deepEqual(actions('act-stub'), ['up command Browser.getVersion stub', 'down response Browser.getVersion stub',
    'up command Runtime.getIsolateId stub', 'down response Runtime.getIsolateId stub',
    'up command Runtime.getIsolateId stub', 'down response Runtime.getIsolateId stub'],
  'stub records: the command and the proxy\'s answer (the last pair: the escaped one)');
  for (const id of act.stubIds) {
    const down = inGen('act-stub').filter((r) => r.dir === 'down' && r.id === id);
    assert.equal(down.length, 1, `one answer to stubbed id ${id}: ${JSON.stringify(down)}`);
    assert.equal(down[0].by, 'proxy', 'written by the proxy');
  }
  assert.deepEqual(actions('act-reject'), ['up command Runtime.evaluate reject', 'down response Runtime.evaluate reject'], 'reject records');
  const rej = inGen('act-reject').filter((r) => r.dir === 'down' && r.id === act.rejectId);
  assert.ok(rej.length === 1 && rej[0].by === 'proxy' && rej[0].error === -32042, `the proxy's error answer is logged: ${JSON.stringify(rej)}`);
  assert.deepEqual(actions('act-rewrite'), ['up command Runtime.evaluate rewrite', 'down response Browser.getVersion rewrite'], 'rewrite records');
  assert.deepEqual(actions('act-drop'), Array(3).fill('down event Runtime.consoleAPICalled drop'), 'three drop records');
  assert.equal(inGen('act-none').filter((r) => r.method === 'Runtime.consoleAPICalled' && r.action === undefined).length, 1,
    'the control event passed under act-none');
  assert.deepEqual(actions('act-delay'), ['up command Runtime.evaluate delay'], 'one delay record');
  const [dA, dB] = act.delayIds.map((id) => inGen('act-delay').find((r) => r.dir === 'down' && r.kind === 'response' && r.id === id));
  assert.ok(dA && dB && dB.t >= dA.t, `its follower was answered after it: ${JSON.stringify([dA, dB])}`);
  const inj = inGen('act-inject').filter((r) => r.conn === act.injectConn && r.dir === 'up' && r.method === 'Network.enable');
  assert.ok(inj.length === 1 && inj[0].by === 'proxy' && inj[0].id >= PROXY_ID_BASE && inj[0].session === undefined,
    `the injected Network.enable on the page connection: ${JSON.stringify(inj)}`);
});

test('stop chromium and the server', { ...ALL, skip: SKIP }, async () => {
  if (server) await server.close();
  if (chrome) await chrome.stop();
  assert.notEqual(chrome.exited(), null, 'chromium exited');
});
