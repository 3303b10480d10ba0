#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 8: the browser wrapper under Puppeteer's own launch(). The `puppeteer`
// package finds the wrapper through PUPPETEER_EXECUTABLE_PATH alone (port
// mode: --remote-debugging-port=0 and the "DevTools listening" line), and
// with pipe: true (fds 3 and 4). Each mode: a page works, a 32 MiB
// Runtime.evaluate result (twice the 16 MiB queue bound, as 20's, 22's and
// 23's) arrives intact, browser.close() leaves no process and no temporary
// directory; port mode's log has the traffic.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./lib/harness');
const wr = require('./lib/wrapper');

const ALL = { timeout: 120000 };
const BIG = 32 << 20;

// The puppeteer package reads PUPPETEER_EXECUTABLE_PATH when loaded.
process.env.PUPPETEER_EXECUTABLE_PATH = h.WRAPPER_BIN;

async function scenario(t, { pipe }) {
  const logs = h.tmpdir('cdpproxy-wrap-pptr-');
  process.env.CDPPROXY_LOG = logs.dir;
  const server = await h.startServer();
  const puppeteer = h.client('puppeteer');
  // --no-sandbox: Chromium as root; nothing else is about the wrapper.
  const browser = await puppeteer.launch({ pipe, args: ['--no-sandbox'], protocolTimeout: 60000 });
  const wrapper = browser.process().pid;
  let closed = false;
  try {
    assert.equal(h.cmdline(wrapper)[0], h.WRAPPER_BIN, 'puppeteer started the wrapper');
    const chrome = await h.waitFor(() => wr.chromiumOf(wrapper), { what: 'the wrapper\'s chromium' });
    const tree = [wrapper, chrome, ...h.descendants(chrome)];
    assert.equal(wr.tmpdirsOf(wrapper).length, 1, 'the wrapper made one TMPDIR for Chromium');
    if (!pipe) {
      const port = Number(new URL(browser.wsEndpoint()).port);
      const own = h.cmdline(chrome).find((a) => a.startsWith('--remote-debugging-port='));
      assert.equal(own, '--remote-debugging-port=0', 'Chromium has a port of its own');
      const stats = await h.getJSON(`http://127.0.0.1:${port}/proxy/stats`);
      assert.ok(stats.connections, `puppeteer's endpoint (port ${port}) is the proxy: /proxy/stats answers`);
    }
    const page = await browser.newPage();
    await page.goto(server.url);
    assert.equal(await page.title(), 'cdpproxy test page', 'a page loads');
    const cdp = await page.createCDPSession();
    const t0 = Date.now();
    const res = await cdp.send('Runtime.evaluate', { expression: `'cdpproxy'.repeat(${BIG / 8})`, returnByValue: true });
    const big = res.result.value;
    t.diagnostic(`${pipe ? 'pipe' : 'port'}: 32 MiB result in ${Date.now() - t0} ms`);
    assert.equal(big.length, BIG, '32 MiB result: its length');
    assert.ok(big === 'cdpproxy'.repeat(BIG / 8), '32 MiB result: every byte');

    await browser.close();
    closed = true;
    assert.deepEqual(await wr.goneWithin(tree, 5000), [], 'browser.close(): no process left');
    assert.deepEqual(wr.tmpdirsOf(wrapper), [], 'browser.close(): no temporary directory left');
    const exit = browser.process().exitCode;
    assert.equal(exit, 0, `the wrapper exits 0 after browser.close() (${exit}, ${browser.process().signalCode})`);

    const files = wr.readLogs(logs.dir);
    assert.deepEqual(Object.keys(files), [`cdpproxy-chromium-${wrapper}.jsonl`],
      'CDPPROXY_LOG names a directory: one log file, named for the wrapper');
    const log = Object.values(files)[0];
    if (!pipe) {
      assert.ok(log.some((r) => r.kind === 'command' && r.method === 'Runtime.evaluate' && r.session),
        'port mode: the log has the Runtime.evaluate command, with its session');
      assert.ok(log.some((r) => r.kind === 'response' && r.bytes > BIG), 'port mode: and its 32 MiB answer');
      assert.ok(log.some((r) => r.kind === 'command' && r.method === 'Network.enable'),
        'port mode: and puppeteer\'s Network.enable');
    }
  } finally {
    if (!closed) await browser.close().catch(() => {});
    await server.close();
    logs.remove();
    delete process.env.CDPPROXY_LOG;
  }
}

test('puppeteer.launch() through PUPPETEER_EXECUTABLE_PATH (port mode)', ALL, (t) => scenario(t, { pipe: false }));
test('puppeteer.launch({pipe: true}) through the wrapper (pipe mode)', ALL, (t) => scenario(t, { pipe: true }));
