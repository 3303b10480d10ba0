#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 9: WebDriver BiDi in the log. Selenium (Debian's python3-selenium
// 4.8.3, which has no BiDi API of its own: a raw WebSocket to the session's
// webSocketUrl, python3-websocket) with ChromeDriver (Debian's
// chromium-driver) launching the wrapper with CDPPROXY_LOG and
// CDPPROXY_CONTROL: session.subscribe, a script.evaluate that logs to the
// console, and two commands that fail on purpose (one BiDi does not know,
// one on a browsing context that does not exist). The BiDi answers come
// back whole (the decode changes nothing it forwards); the log has a
// "bidi" record for each command, answer and event, with its method,
// channel and round trip, and the errors with their codes; /proxy/stats
// and /proxy/metrics, read during the session, count them; `cdplog
// summary`, `pairs` and `timeline` show them.
'use strict';
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { test } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./lib/harness');

const ALL = { timeout: 120000 };
const PYTHON = '/usr/bin/python3';   // Debian's, with its selenium and websocket
const CDPLOG = path.join(h.ROOT, process.env.B || 'build', 'cdplog');

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

// Runs a Python script in a process group of its own (ChromeDriver and the
// browser included), killed after timeout; resolves its stdout. As 86's.
function python(script, args, timeout) {
  return new Promise((resolve, reject) => {
    const child = h.spawnTracked(PYTHON, ['-c', script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    const timer = setTimeout(() => process.kill(-child.pid, 'SIGKILL'), timeout);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`python exited ${code} ${signal || ''}:\n${err.slice(-2000)}`));
    });
  });
}

// argv: the wrapper, the page, the control port, Chromium's flags (JSON).
// Prints {answers: {id: answer}, events: [...], stats, metrics} as JSON.
const SELENIUM = `
import json, sys, urllib.request, websocket
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
binary, url, control, flags = sys.argv[1:5]
o = webdriver.ChromeOptions()
o.binary_location = binary
for a in json.loads(flags):
    o.add_argument(a)
o.set_capability("webSocketUrl", True)
d = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=o)
try:
    d.get(url)
    bidi = websocket.create_connection(d.capabilities["webSocketUrl"])
    answers, events = {}, []
    def send(i, method, params):
        bidi.send(json.dumps({"id": i, "method": method, "params": params}))
        while True:
            m = json.loads(bidi.recv())
            if m.get("id") == i:
                answers[i] = m
                return
            events.append(m)
    ctx = d.current_window_handle
    send(1, "session.subscribe", {"events": ["log.entryAdded"]})
    send(2, "script.evaluate", {"expression": "console.log('cdpproxy \\"bidi\\" \\u00e9'); 6 * 7",
                                "awaitPromise": False, "target": {"context": ctx}})
    send(3, "nosuch.command", {})
    send(4, "browsingContext.navigate", {"context": "no-such-context", "url": url})
    while not events:
        events.append(json.loads(bidi.recv()))
    bidi.close()
    get = lambda p: urllib.request.urlopen("http://127.0.0.1:" + control + p, timeout=10).read().decode()
    print(json.dumps({"answers": answers, "events": events, "stats": json.loads(get("/proxy/stats")),
                      "metrics": get("/proxy/metrics")}))
finally:
    d.quit()
`;

let server;
test('start the local page', ALL, async () => {
  server = await h.startServer();
});

test('a BiDi session through the wrapper: logged, counted, summed up by cdplog', ALL, async (t) => {
  if (!server) return t.skip('no server');
  const dir = h.tmpdir('cdpproxy-bidi-log-');
  const logs = path.join(dir.dir, 'logs');
  fs.mkdirSync(logs);
  const control = await freePort();
  const saved = { log: process.env.CDPPROXY_LOG, control: process.env.CDPPROXY_CONTROL };
  try {
    let out;
    process.env.CDPPROXY_LOG = logs;
    process.env.CDPPROXY_CONTROL = `127.0.0.1:${control}`;
    try {
      out = JSON.parse(await python(SELENIUM, [h.WRAPPER_BIN, server.url, String(control), JSON.stringify(h.CHROME_FLAGS)], 100000));
    } finally {
      for (const [k, v] of [['CDPPROXY_LOG', saved.log], ['CDPPROXY_CONTROL', saved.control]])
        if (v === undefined) delete process.env[k]; else process.env[k] = v;
    }
    // What the client got is whole: the proxy forwarded the carriers as they were.
    const a = out.answers;
    assert.equal(a[1].type, 'success', `session.subscribe: ${JSON.stringify(a[1])}`);
    assert.deepEqual(a[2].result.result, { type: 'number', value: 42 }, 'script.evaluate ran in the page');
    assert.equal(a[3].type, 'error');
    assert.equal(a[3].error, 'unknown command', 'a command BiDi does not know fails');
    assert.equal(a[4].type, 'error');
    assert.equal(a[4].error, 'no such frame', 'a navigation of no context fails');
    const logged = out.events.find((e) => e.method === 'log.entryAdded');
    assert.equal(logged && logged.params.text, 'cdpproxy "bidi" é', 'the console event, escapes and all');

    const files = fs.readdirSync(logs);
    assert.equal(files.length, 1, 'one wrapper, one log');
    const file = path.join(logs, files[0]);
    const log = h.readLog(file);
    const bidi = log.filter((r) => r.kind === 'bidi');
    t.diagnostic(`${bidi.length} bidi records of ${log.length}; types ${JSON.stringify(bidi.reduce((m, r) => ({ ...m, [r.type]: (m[r.type] || 0) + 1 }), {}))}`);
    // ChromeDriver's own session.new, then the client's, on its channel.
    const mine = bidi.filter((r) => r.channel && r.channel !== '/init-bidi-session/bidi');
    const cmd = (m) => mine.find((r) => r.type === 'command' && r.method === m);
    for (const m of ['session.subscribe', 'script.evaluate', 'nosuch.command', 'browsingContext.navigate']) {
      const c = cmd(m);
      assert.ok(c, `the command ${m} is logged`);
      assert.ok(c.session && Number.isInteger(c.cdp_id) && c.bytes > 0, `with its session, its carrier's id, its size: ${JSON.stringify(c)}`);
      const carrier = log.find((r) => r.kind === 'command' && r.id === c.cdp_id && r.session === c.session);
      assert.ok(carrier && carrier.method === 'Runtime.evaluate', 'its carrier, a Runtime.evaluate, is logged before it');
      const ans = mine.find((r) => r.type !== 'command' && r.type !== 'event' && r.id === c.id);
      assert.ok(ans && ans.method === m && ans.rtt_us >= 0 && ans.channel === c.channel,
        `its answer names it, with a round trip, on its channel: ${JSON.stringify(ans)}`);
    }
    const errs = mine.filter((r) => r.type === 'error').map((r) => `${r.method}: ${r.error}`).sort();
    assert.deepEqual(errs, ['browsingContext.navigate: no such frame', 'nosuch.command: unknown command'], 'the two errors, with codes');
    assert.ok(mine.some((r) => r.type === 'event' && r.method === 'log.entryAdded'), 'the event');
    assert.ok(bidi.some((r) => r.type === 'command' && r.method === 'session.new'), 'ChromeDriver\'s own session.new');
    assert.ok(!bidi.some((r) => r.type === 'invalid'), 'nothing that could not be read');

    // Counted while it ran.
    const sb = out.stats.bidi;
    assert.ok(sb && sb.methods['script.evaluate'].messages[0] >= 1 && sb.methods['script.evaluate'].rtt_us.n >= 1,
      `/proxy/stats counts BiDi methods: ${JSON.stringify(sb && sb.methods['script.evaluate'])}`);
    assert.equal(sb.errors['unknown command'], 1, '/proxy/stats: errors by code');
    assert.equal(sb.errors['no such frame'], 1);
    assert.equal(sb.methods['nosuch.command'].errors, 1, '/proxy/stats: errors by method');
    assert.ok(!out.stats.methods['script.evaluate'], 'not among CDP\'s methods');
    assert.match(out.metrics, /^cdpproxy_bidi_commands_total\{method="script\.evaluate"\} 1$/m, '/proxy/metrics counts BiDi commands');
    assert.match(out.metrics, /^cdpproxy_bidi_errors_total\{error="no such frame"\} 1$/m, '/proxy/metrics counts BiDi errors');

    // cdplog, offline.
    const summary = execFileSync(CDPLOG, ['summary', file], { encoding: 'utf8' });
    t.diagnostic(summary.slice(summary.indexOf('WebDriver BiDi'), summary.indexOf('\nSessions')).trim().replace(/\n/g, '\n# '));
    assert.match(summary, /WebDriver BiDi inside CDP: \d+ messages/, 'summary: the BiDi line');
    assert.match(summary, /^script\.evaluate +2 +1 +0 /m, 'summary: script.evaluate, its command and answer');
    assert.match(summary, /^nosuch\.command +2 +1 +0 .* 1$/m, 'summary: nosuch.command with its error');
    assert.match(summary, /^BiDi errors: .*no such frame 1/m, 'summary: errors by code');
    assert.match(summary, /^BiDi errors: .*unknown command 1/m);
    const pairs = execFileSync(CDPLOG, ['pairs', file, '--method', 'browsingContext.*'], { encoding: 'utf8' });
    assert.match(pairs, /BiDi browsingContext\.navigate +\S+ +error no such frame: /, `pairs: the failed navigation: ${pairs}`);
    const timeline = execFileSync(CDPLOG, ['timeline', file], { encoding: 'utf8' });
    assert.match(timeline, /BiDi nosuch\.command #3 failed: unknown command/, 'timeline: the error on the mapper\'s session');
  } finally {
    dir.remove();
  }
});

test('stop the local page', ALL, async () => {
  if (server) await server.close();
});
