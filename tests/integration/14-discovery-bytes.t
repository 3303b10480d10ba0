#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Discovery requests reach Chrome byte for byte: the same PUT /json/new?URL
// straight to Chrome and through the proxy gets the same status and opens
// the same URL (%20, '+', ';', %2F %3F %26, an encoded '='), and so does
// chrome-remote-interface's CDP.New; a recording upstream (Chrome does not
// say what bytes it got) shows only token= taken out, the rest as sent.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const net = require('node:net');
const h = require('./lib/harness');

const ALL = { timeout: 60000 };
const PROXY_ONLY = { ...ALL, skip: h.DIRECT && 'CDPPROXY_DIRECT=1' };
let env;

// One request written as it stands (no client library re-encodes it); the
// status and the JSON body. Chrome keeps the connection: read to the length.
function raw(port, method, target) {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () =>
      s.write(`${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`));
    let buf = Buffer.alloc(0);
    const done = () => {
      s.destroy();
      const text = buf.toString('utf8'), at = text.indexOf('\r\n\r\n');
      const status = Number(text.split(' ')[1]);
      let json = null;
      try { json = JSON.parse(text.slice(at + 4)); } catch { /* not JSON */ }
      resolve({ status, json, text });
    };
    s.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      const text = buf.toString('latin1'), at = text.indexOf('\r\n\r\n');
      const len = /content-length: *(\d+)/i.exec(text);
      if (at >= 0 && len && buf.length - at - 4 >= Number(len[1])) done();
    });
    s.on('end', done);
    s.on('error', reject);
    s.setTimeout(10000, () => s.destroy(new Error(`${method} ${target}: no answer`)));
  });
}

const URLS = [
  'data:text/html,hello%20world',
  'https://x.invalid/?q=1&r=2',
  'a%2Fb%3Fc%26d',
  'data:text/html;charset=utf-8,semi%3Bcolon',
  'data:text/html,a+b',
  'https://x.invalid/?a%3Db=c',
  'https://x.invalid/a//b/../c',
  'about:blank#frag',
];

test('start chromium and cdpproxy', ALL, async () => {
  env = await h.setup({ server: false });
});

test('PUT /json/new?URL: the same status and URL as from Chrome itself', PROXY_ONLY, async (t) => {
  if (!env) return t.skip('setup failed');
  for (const u of URLS) {
    const direct = await raw(env.chrome.port, 'PUT', `/json/new?${u}`);
    const proxied = await raw(env.port, 'PUT', `/json/new?${u}`);
    assert.equal(proxied.status, direct.status, `${u}: status ${direct.status} from Chrome`);
    assert.equal(proxied.json && proxied.json.url, direct.json && direct.json.url,
      `${u}: Chrome opened ${direct.json && direct.json.url}`);
    t.diagnostic(`${u} -> ${direct.status} ${direct.json && direct.json.url}`);
    for (const made of [direct.json, proxied.json]) if (made) await raw(env.chrome.port, 'GET', `/json/close/${made.id}`);
  }
});

test('chrome-remote-interface CDP.New({url}) opens the same URL through the proxy', PROXY_ONLY, async () => {
  const CDP = h.client('chrome-remote-interface');
  for (const url of ['data:text/html,hello%20world;x=1', 'https://x.invalid/?q=1&r=2']) {
    const direct = await CDP.New({ host: '127.0.0.1', port: env.chrome.port, url });
    const proxied = await CDP.New({ host: '127.0.0.1', port: env.port, url });
    assert.equal(proxied.url, direct.url, `CDP.New(${url}): ${direct.url}`);
    assert.match(proxied.webSocketDebuggerUrl, new RegExp(`^ws://127\\.0\\.0\\.1:${env.port}/`), 'and its socket is the proxy\'s');
    for (const made of [direct, proxied]) await CDP.Close({ host: '127.0.0.1', port: env.chrome.port, id: made.id });
  }
});

test('a recording upstream gets every byte as sent, token= arguments aside', PROXY_ONLY, async () => {
  const seen = [];
  const up = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.setHeader('content-type', 'application/json');
    res.end('{}');
  });
  await new Promise((r) => up.listen(0, '127.0.0.1', r));
  const p = await h.startProxy({ upstreamPort: up.address().port, args: ['--token', 'T0k'] });
  try {
    for (const [sent, want] of [
      ['/json/new?a%2Fb%3Fc%26d&token=T0k', '/json/new?a%2Fb%3Fc%26d'],
      ['/json/new?https://x.invalid/?q=1&token=T0k&r=2', '/json/new?https://x.invalid/?q=1&r=2'],
      ['/json/new?data:text/html;charset=utf-8,a+b%20c;token=T0k', '/json/new?data:text/html;charset=utf-8,a+b%20c'],
      ['/json/new?%74oken=T0k&x=%3D', '/json/new?x=%3D'],
      ['/json/activate/AB%2FCD?token=T0k', '/json/activate/AB%2FCD'],
    ]) {
      seen.length = 0;
      const r = await raw(p.port, 'PUT', sent);
      assert.equal(r.status, 200, `${sent}: 200 (${r.text.slice(0, 120)})`);
      assert.deepEqual(seen, [`PUT ${want}`], `${sent} reached the upstream as ${want}`);
    }
    // A lone CR (or any control byte) in the target would make a line of
    // the proxy's own in the request to Chrome: refused, nothing sent.
    seen.length = 0;
    const cr = await raw(p.port, 'GET', '/json/version?token=T0k&a\rX-Injected:1');
    assert.equal(cr.status, 400, `a CR in the target: 400 (${cr.text.slice(0, 160)})`);
    assert.match(cr.text, /a control byte in it/, 'refused by the proxy, saying why');
    assert.deepEqual(seen, [], 'nothing reached the upstream');
  } finally {
    await p.stop();
    p.removeDir();
    await new Promise((r) => up.close(r));
  }
});

test('stop everything', ALL, async (t) => {
  if (!env) return t.skip('setup failed');
  await env.teardown();
});
