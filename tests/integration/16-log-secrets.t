#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 1: no secret reaches the log with --log-bodies (issue 14.5). Real
// Chromium traffic with cookies and credentials, driven through cdpproxy by
// chrome-remote-interface: Set-Cookie from a server with odd spacing and a
// bare \r, blocked cookies (SameSite=None on http, a foreign Domain, a bad
// character, an oversized one), an Audits issue with a rawCookieLine,
// document.cookie, Network.setCookie(s) and getCookies, fetch with an
// Authorization header, setExtraHTTPHeaders, Fetch.continueRequest with
// Cookie headers, Fetch.fulfillRequest with binaryResponseHeaders, HTTP
// Basic auth through Fetch.continueWithAuth, a WebSocket handshake with
// cookies. Then the shapes of issue 27 #6: a form POST with a password
// field (postData, postDataEntries, Network.getRequestPostData), a
// multipart one, a page loaded from a URL with user:password@ and a fetch()
// of one (refused, with the URL in the error), X-Api-Key and X-*-Token
// headers, Fetch.continueRequest postData and Fetch.fulfillRequest bodies
// (base64), a token in a JSON response read with Network.getResponseBody.
// Then those of issue 46 #1, as Fetch.continueRequest postData: JSON in a
// JSON string and after a BOM, multipart with a preamble, with LF line ends
// and a leading newline, and with a part named name*=UTF-8''password, a
// form split by ';' and one with a NUL (each must reach the server).
// Every secret string must be in the traffic the client saw and nowhere in
// the log file (nor in any base64 string of it), whose records stay JSON.
// REDACT_CAPTURE=DIR logs secrets instead (--log-secrets) and writes the
// bodies that hold them to DIR, one file each: the fuzz corpus of
// tests/fuzz/corpus/redact/ came from such a run.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const h = require('./lib/harness');

const ALL = { timeout: 60000 };
const CAPTURE = process.env.REDACT_CAPTURE || '';
const b64 = (s) => Buffer.from(s, 'latin1').toString('base64');
const b64utf8 = (s) => Buffer.from(s, 'utf8').toString('base64');
// Every secret, as it would appear in a log line (JSON text).
const SECRETS = {
  srv1: 'SECRETsrv1', srv2: 'SECRETsrv2', srv3: 'SECRETsrv3', cr: 'SECRETcr',
  none: 'SECRETnone', dom: 'SECRETdom', bad: 'SECRETbad', big: 'SECRETbig', na: 'SECRETna',
  js: 'SECRETjs', cdp: 'SECRETcdp', cdps: 'SECRETcdps', auth: 'SECRETauth', extra: 'SECRETextra',
  cont: 'SECRETcont', contauth: 'SECRETcontauth', bin: 'SECRETbin', pass: 'SECRETpass', ws: 'SECRETws',
  formpw: 'SECRETformpw', multipw: 'SECRETmultipw', urlpw: 'SECRETurlpw', fetchpw: 'SECRETfetchpw',
  apikey: 'SECRETapikey', xtoken: 'SECRETxtoken', contpost: 'SECRETcontpost', fulfilled: 'SECRETfulfilled',
  resptoken: 'SECRETresptoken',
  nested: 'SECRETnested', bom: 'SECRETbom', preamble: 'SECRETpreamble', lf: 'SECRETlf', semi: 'SECRETsemi',
  extname: 'SECRETextname', nul: 'SECRETnul',
};
// The secrets of issue 27 #6 (the second page).
const NEW = ['formpw', 'multipw', 'urlpw', 'fetchpw', 'apikey', 'xtoken', 'contpost', 'fulfilled', 'resptoken'];
// Issue 46 #1: request bodies shaped otherwise than a browser shapes them,
// as a client sends them with Fetch.continueRequest (the third page).
const SHAPES = {
  nested: `{"data":"{\\"password\\":\\"${SECRETS.nested}\\"}"}`,
  bom: `\ufeff{"password":"${SECRETS.bom}"}`,
  preamble: `preamble\r\n--B\r\nContent-Disposition: form-data; name="password"\r\n\r\n${SECRETS.preamble}\r\n--B--\r\n`,
  lf: `\n--B\nContent-Disposition: form-data; name="password"\n\n${SECRETS.lf}\n--B--\n`,
  semi: `a=1;password=${SECRETS.semi}`,
  extname: `--B\r\nContent-Disposition: form-data; name*=UTF-8''password\r\n\r\n${SECRETS.extname}\r\n--B--\r\n`,
  nul: `a=1&password=${SECRETS.nul}\0&b=2`,
};
const BASIC = b64(`user:${SECRETS.pass}`);
// text and, after it, what each base64-looking run in it decodes to.
const withB64 = (text) => [text, ...(text.match(/[A-Za-z0-9+/]{8,}={0,2}/g) || [])
  .map((m) => Buffer.from(m, 'base64').toString('latin1'))].join('\n');
let env;
let server;
let seen = ''; // every message the client received, as JSON text

// The page's server, on raw sockets so its headers can be as odd as real
// servers make them. GET / sets cookies; /data answers; /basic wants HTTP
// Basic auth; /ws upgrades to a WebSocket and sets a cookie on the way.
function rawServer() {
  const bigValue = `${SECRETS.big}${'x'.repeat(5000)}`;
  const srv = net.createServer((sock) => {
    let buf = '';
    sock.on('error', () => {});
    sock.on('data', (d) => {
      buf += d.toString('latin1');
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const req = buf.slice(0, end);
      const len = Number((/\r\ncontent-length: *(\d+)/i.exec(req) || [])[1] || 0);
      if (buf.length < end + 4 + len) return; // the body too, so a test can see what came
      srv.emit('request-body', buf.slice(end + 4, end + 4 + len));
      buf = '';
      const url = req.split(' ')[1] || '/';
      const p = url.split('?')[0];
      if (p === '/ws') {
        const key = (/sec-websocket-key: *(\S+)/i.exec(req) || [])[1] || '';
        const accept = crypto.createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
        sock.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
          `Sec-WebSocket-Accept: ${accept}\r\nSet-Cookie: wsc=${SECRETS.ws}\r\n\r\n`);
        return;
      }
      let head = 'HTTP/1.1 200 OK\r\n';
      let body = '{"ok":1}';
      if (p === '/') {
        head += `Set-Cookie: srv1=${SECRETS.srv1}; Path=/\r\n` +
          `set-cookie:srv2=${SECRETS.srv2}\r\n` +
          `SET-COOKIE  :  srv3=${SECRETS.srv3} ; Path=/\r\n` +
          `Set-Cookie: a=1\rSet-Cookie: cr=${SECRETS.cr}\r\n` +
          `Set-Cookie: none=${SECRETS.none}; SameSite=None\r\n` +
          `Set-Cookie: dom=${SECRETS.dom}; Domain=example.com\r\n` +
          `Set-Cookie: bad\x01=${SECRETS.bad}\r\n` +
          `Set-Cookie: big=${bigValue}\r\n` +
          `Set-Cookie: na=${SECRETS.na}; Domain=\xf1.example\r\n`;
        body = `<html><body>cookies<script>document.cookie = "js=${SECRETS.js}";</script></body></html>`;
      } else if (p === '/form') {
        body = '<html><body><form id="f" method="POST" action="/login"><input name="user" value="ann">' +
          '<input type="password" name="password"></form><form id="m" method="POST" action="/login" ' +
          'enctype="multipart/form-data"><input name="user" value="ann"><input type="password" name="pass"></form></body></html>';
      } else if (p === '/token') {
        body = `{"access_token":"${SECRETS.resptoken}","expires_in":3600}`;
      } else if (p === '/basic' && !req.includes(`Basic ${BASIC}`)) {
        head = 'HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm="cdpproxy"\r\n';
        body = 'who are you';
      }
      sock.end(`${head}Content-Type: text/html\r\nConnection: close\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    });
  });
  return new Promise((resolve) => srv.listen(0, '127.0.0.1', () => resolve(srv)));
}

test('start chromium, the cookie server and cdpproxy --log-bodies', ALL, async () => {
  server = await rawServer();
  env = await h.setup({
    server: false,
    proxyArgs: ['--log-bodies=1048576', ...(CAPTURE ? ['--log-secrets'] : [])],
  });
});

test('drive a page that sets, sends and is refused cookies and credentials', ALL, async (t) => {
  if (!env) return t.skip('setup failed');
  const CDP = h.client('chrome-remote-interface');
  const origin = `http://127.0.0.1:${server.address().port}`;
  const opts = { host: '127.0.0.1', port: env.port };
  const target = await CDP.New({ ...opts, url: 'about:blank' });
  const client = await CDP({ ...opts, target });
  client.on('event', (m) => { seen += `${JSON.stringify(m)}\n`; });
  const call = async (method, params) => {
    seen += `${JSON.stringify({ method, params })}\n`;
    const r = await client.send(method, params).catch((e) => { throw new Error(`${method}: ${e.message}`); });
    seen += `${JSON.stringify(r)}\n`;
    return r;
  };
  const evaluate = (expression) => call('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true });
  try {
    await call('Network.enable');
    await call('Audits.enable');
    await call('Page.enable');
    const loaded = client.Page.loadEventFired();
    await call('Page.navigate', { url: `${origin}/` });
    await loaded;
    await call('Network.setCookie', { name: 'cdp', value: SECRETS.cdp, url: origin });
    await call('Network.setCookies', { cookies: [{ name: 'cdps', value: SECRETS.cdps, url: origin }] });
    // The page makes the secret: a client's own script text is not redacted.
    const split = (s) => `'${s.slice(0, 6)}' + '${s.slice(6)}'`;
    await evaluate(`fetch('/data?auth', { headers: { Authorization: 'Bearer ' + ${split(SECRETS.auth)} } }).then((r) => r.text())`);
    await call('Network.setExtraHTTPHeaders', { headers: { Authorization: `Bearer ${SECRETS.extra}` } });
    await evaluate("fetch('/data?extra').then((r) => r.text())");
    await call('Network.setExtraHTTPHeaders', { headers: {} });
    await call('Network.getCookies', { urls: [origin] });

    // Fetch: rewrite one request's headers, answer another, and log in.
    client.Fetch.requestPaused(async ({ requestId, request }) => {
      try {
        if (request.url.includes('/fulfilled')) {
          await call('Fetch.fulfillRequest', {
            requestId, responseCode: 200, body: b64('{"ok":2}'),
            binaryResponseHeaders: b64(`Set-Cookie: bin=${SECRETS.bin}\0Content-Type: application/json`),
          });
        } else if (request.url.includes('/continued')) {
          await call('Fetch.continueRequest', {
            requestId,
            headers: [{ name: 'Cookie', value: `c=${SECRETS.cont}` }, { name: 'Authorization', value: SECRETS.contauth }],
          });
        } else {
          await call('Fetch.continueRequest', { requestId });
        }
      } catch { /* the page went on */ }
    });
    client.Fetch.authRequired(async ({ requestId }) => {
      await call('Fetch.continueWithAuth', {
        requestId, authChallengeResponse: { response: 'ProvideCredentials', username: 'user', password: SECRETS.pass },
      }).catch(() => {});
    });
    await call('Fetch.enable', { patterns: [{ urlPattern: '*' }], handleAuthRequests: true });
    await evaluate("fetch('/fulfilled').then((r) => r.text())");
    await evaluate("fetch('/continued').then((r) => r.text())");
    const basic = await evaluate("fetch('/basic').then((r) => r.status)");
    assert.equal(basic.result.value, 200, 'HTTP Basic auth through Fetch.continueWithAuth');
    await call('Fetch.disable');
    await evaluate(`new Promise((resolve) => { const w = new WebSocket('ws://127.0.0.1:${server.address().port}/ws');
      w.onopen = () => { w.close(); resolve('open'); }; w.onerror = () => resolve('error'); })`);
    await h.sleep(300); // the last ExtraInfo and Audits events
    await call('Network.getCookies', { urls: [origin] });
  } finally {
    await client.close();
  }
  await CDP.Close({ ...opts, id: target.id });
  for (const [name, secret] of Object.entries(SECRETS)) {
    if (!NEW.includes(name) && !(name in SHAPES)) assert.ok(seen.includes(secret), `the traffic carried secret ${name}`);
  }
  assert.ok(seen.includes(BASIC), 'the traffic carried the Basic credentials');
});

test('drive a login form, credentials in URLs, API key headers and Fetch bodies', ALL, async (t) => {
  if (!env) return t.skip('setup failed');
  const CDP = h.client('chrome-remote-interface');
  const port = server.address().port;
  const origin = `http://127.0.0.1:${port}`;
  const opts = { host: '127.0.0.1', port: env.port };
  const target = await CDP.New({ ...opts, url: 'about:blank' });
  const client = await CDP({ ...opts, target });
  const posts = [];
  client.on('event', (m) => {
    seen += `${JSON.stringify(m)}\n`;
    if (m.method === 'Network.requestWillBeSent' && m.params.request.method === 'POST') posts.push(m.params.requestId);
  });
  const call = async (method, params) => {
    seen += `${JSON.stringify({ method, params })}\n`;
    const r = await client.send(method, params).catch((e) => { throw new Error(`${method}: ${e.message}`); });
    seen += `${JSON.stringify(r)}\n`;
    return r;
  };
  const evaluate = (expression) => call('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true });
  const navigated = async (action) => {
    const loaded = client.Page.loadEventFired();
    await action();
    await loaded;
  };
  try {
    await call('Network.enable');
    await call('Page.enable');
    // A page loaded from a URL with a password in it: request.url,
    // documentURL, Page.frameNavigated, Target.targetInfoChanged...
    await navigated(() => call('Page.navigate', { url: `http://ann:${SECRETS.urlpw}@127.0.0.1:${port}/form` }));
    const split = (s) => `'${s.slice(0, 6)}' + '${s.slice(6)}'`;
    await navigated(() => evaluate(`document.forms.f.password.value = ${split(SECRETS.formpw)}; document.forms.f.submit(); 1`));
    assert.equal(posts.length, 1, 'the form was posted');
    await call('Network.getRequestPostData', { requestId: posts[0] });   // before the next page forgets it
    await navigated(() => call('Page.navigate', { url: `${origin}/form` }));
    await navigated(() => evaluate(`document.forms.m.pass.value = ${split(SECRETS.multipw)}; document.forms.m.submit(); 1`));
    assert.equal(posts.length, 2, 'the multipart form was posted');
    await call('Network.getRequestPostData', { requestId: posts[1] });
    // fetch() refuses a URL with credentials, and says which.
    await evaluate(`fetch('http://ann:${SECRETS.fetchpw}@127.0.0.1:${port}/data').catch((e) => String(e))`);
    // Headers named like credentials.
    await evaluate(`fetch('/data?key', { headers: { 'X-Api-Key': ${split(SECRETS.apikey)}, 'X-Custom-Token': ${split(SECRETS.xtoken)} } }).then((r) => r.text())`);
    // A token in a response body, read back.
    const rid = new Promise((resolve) => client.Network.loadingFinished(({ requestId }) => resolve(requestId)));
    await evaluate("fetch('/token').then((r) => r.text()).then((s) => s.length)");
    await call('Network.getResponseBody', { requestId: await rid });
    // Fetch bodies: a request's new postData and a made-up response body.
    client.Fetch.requestPaused(async ({ requestId, request }) => {
      try {
        if (request.url.includes('/made')) {
          await call('Fetch.fulfillRequest', { requestId, responseCode: 200, body: b64(`{"token":"${SECRETS.fulfilled}"}`) });
        } else {
          await call('Fetch.continueRequest', { requestId, postData: b64(`user=ann&password=${SECRETS.contpost}`) });
        }
      } catch { /* the page went on */ }
    });
    await call('Fetch.enable', { patterns: [{ urlPattern: '*/made*' }, { urlPattern: '*/login2*' }] });
    await evaluate("fetch('/made').then((r) => r.text()).then((s) => s.length)");
    await evaluate("fetch('/login2', { method: 'POST', body: 'user=ann' }).then((r) => r.text())");
    await call('Fetch.disable');
  } finally {
    await client.close();
  }
  await CDP.Close({ ...opts, id: target.id });
  const all = withB64(seen);
  for (const name of NEW) assert.ok(all.includes(SECRETS[name]), `the traffic carried secret ${name}`);
});

test('send bodies shaped otherwise: JSON in a JSON string or after a BOM, multipart with a preamble or LF, forms split by ; or with a NUL', ALL, async (t) => {
  if (!env) return t.skip('setup failed');
  const CDP = h.client('chrome-remote-interface');
  const origin = `http://127.0.0.1:${server.address().port}`;
  const opts = { host: '127.0.0.1', port: env.port };
  const target = await CDP.New({ ...opts, url: 'about:blank' });
  const client = await CDP({ ...opts, target });
  client.on('event', (m) => { seen += `${JSON.stringify(m)}\n`; });
  const call = async (method, params) => {
    seen += `${JSON.stringify({ method, params })}\n`;
    const r = await client.send(method, params).catch((e) => { throw new Error(`${method}: ${e.message}`); });
    seen += `${JSON.stringify(r)}\n`;
    return r;
  };
  const received = [];
  const onBody = (body) => received.push(body);
  server.on('request-body', onBody);
  try {
    await call('Network.enable');
    await call('Page.enable');
    const loaded = client.Page.loadEventFired();
    await call('Page.navigate', { url: `${origin}/form` });
    await loaded;
    client.Fetch.requestPaused(async ({ requestId, request }) => {
      const name = request.url.split('?')[1];
      await call('Fetch.continueRequest', { requestId, postData: b64utf8(SHAPES[name]) }).catch(() => {});
    });
    await call('Fetch.enable', { patterns: [{ urlPattern: '*/shape?*' }] });
    for (const name of Object.keys(SHAPES)) {
      await call('Runtime.evaluate', {
        expression: `fetch('/shape?${name}', { method: 'POST', body: 'x=1' }).then((r) => r.status)`,
        awaitPromise: true, returnByValue: true,
      });
    }
    await call('Fetch.disable');
  } finally {
    server.off('request-body', onBody);
    await client.close();
  }
  await CDP.Close({ ...opts, id: target.id });
  const all = withB64(seen);
  for (const name of Object.keys(SHAPES)) {
    assert.ok(all.includes(SECRETS[name]), `the traffic carried secret ${name}`);
    assert.ok(received.some((r) => r.includes(SECRETS[name])), `the server received secret ${name}`);
  }
});

test('no secret in the log; every record JSON; redacted records say so', { ...ALL, skip: h.DIRECT && 'CDPPROXY_DIRECT=1' }, async (t) => {
  if (!env) return t.skip('setup failed');
  const result = await env.stopProxy();
  const records = h.checkProxyExit(assert, result, env.proxy.logPath);
  const text = fs.readFileSync(env.proxy.logPath, 'latin1');
  // A whole body is logged as the JSON it is; a cut one as text.
  const bodies = records.filter((r) => r.body !== undefined);
  const bodyText = (r) => (typeof r.body === 'string' ? r.body : JSON.stringify(r.body));
  if (CAPTURE) {
    fs.mkdirSync(CAPTURE, { recursive: true });
    let n = 0;
    for (const r of bodies) {
      if (!/SECRET|binaryResponseHeaders|Basic /.test(withB64(bodyText(r)))) continue;
      const name = `${(r.method || r.kind).replace(/[^A-Za-z.]/g, '')}-${r.dir}-${String(++n).padStart(2, '0')}.json`;
      // The oversized cookie, shortened to keep inputs under the fuzzer's max_len.
      fs.writeFileSync(path.join(CAPTURE, name), bodyText(r).replace(/x{5000}/g, 'x'.repeat(40)));
    }
    t.diagnostic(`${n} bodies written to ${CAPTURE}`);
    return;
  }
  // Base64 strings of the log (Fetch bodies, postDataEntries) decoded too.
  const leakedB64 = Object.keys(SECRETS).filter((name) => withB64(text).slice(text.length).includes(SECRETS[name]));
  assert.deepEqual(leakedB64, [], 'secrets in base64 strings of the log');
  const leaked = Object.keys(SECRETS).filter((name) => text.includes(SECRETS[name]));
  const first = leaked.length ? text.indexOf(SECRETS[leaked[0]]) : 0;
  assert.deepEqual(leaked, [], `secrets in the log; the first: ${text.slice(Math.max(0, first - 300), first + 100)}`);
  assert.equal(text.indexOf(BASIC), -1, 'the Basic credentials are not in the log');
  for (const r of bodies) {
    if (r.truncated) continue;
    assert.equal(typeof r.body, 'object', `a whole body is logged as JSON, not text: ${bodyText(r).slice(0, 200)}`);
    // Redacted only where something was replaced (in base64 strings too).
    if (r.redacted) assert.match(withB64(bodyText(r)), /<redacted/, `a redacted record holds a replacement: ${bodyText(r).slice(0, 300)}`);
  }
  // The shapes were there to redact: each must have come through the log.
  for (const shape of ['associatedCookies', 'blockedCookies', 'cookieLine', 'rawCookieLine', 'headersText', 'requestHeadersText',
    'binaryResponseHeaders', 'authChallengeResponse', 'Network.setCookies', 'webSocketHandshakeResponseReceived',
    'postDataEntries', 'multipart/form-data', 'X-Api-Key', 'X-Custom-Token', 'Page.frameNavigated', 'Fetch.fulfillRequest',
    'Fetch.continueRequest', 'base64Encoded']) {
    assert.ok(bodies.some((r) => r.redacted && bodyText(r).includes(shape)), `a redacted record holds ${shape}`);
  }
});

test('stop everything', ALL, async (t) => {
  if (!env) return t.skip('setup failed');
  await env.teardown();
  await new Promise((resolve) => server.close(resolve));
});
