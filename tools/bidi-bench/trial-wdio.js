#!/usr/bin/env node
// bidi-bench: one WebdriverIO session (tests/clients' webdriverio, standalone
// remote(), ChromeDriver launching --binary): BiDi, WebdriverIO's default,
// or classic with --classic (wdio:enforceWebDriverClassic); --mock adds one
// browser.mock of a URL the page never asks for. Opens --url, builds the
// body once (prepare.js), then times --uploads fetch() uploads of it
// (upload.js), each in the page and as the client waited for it. Prints one
// JSON line: {"session_ms", "uploads": [{"bytes", "ms", "client_ms"}]}.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { parseArgs } = require('node:util');

const CLIENTS = path.join(__dirname, '../../tests/clients/node_modules');
const { remote } = require(path.join(CLIENTS, 'webdriverio'));

async function main() {
  const { values: a } = parseArgs({
    options: {
      binary: { type: 'string' }, chromedriver: { type: 'string', default: '/usr/bin/chromedriver' },
      url: { type: 'string' }, classic: { type: 'boolean', default: false }, mock: { type: 'boolean', default: false },
      bytes: { type: 'string', default: String(4 << 20) }, uploads: { type: 'string', default: '4' },
      trial: { type: 'string', default: 'wdio' }, flags: { type: 'string', default: '[]' },
    },
  });
  if (!a.binary || !a.url) throw new Error('usage: trial-wdio.js --binary PATH --url URL [--classic] [--mock] ...');
  const prepare = fs.readFileSync(path.join(__dirname, 'prepare.js'), 'utf8');
  const upload = fs.readFileSync(path.join(__dirname, 'upload.js'), 'utf8');
  const t0 = performance.now();
  const browser = await remote({
    logLevel: 'error',
    capabilities: {
      browserName: 'chrome',
      'goog:chromeOptions': { binary: a.binary, args: JSON.parse(a.flags) },
      'wdio:chromedriverOptions': { binary: a.chromedriver },
      ...(a.classic ? { 'wdio:enforceWebDriverClassic': true } : {}),
    },
  });
  const out = { session_ms: performance.now() - t0, bidi: browser.isBidi, uploads: [] };
  try {
    if (a.mock) await browser.mock('**/bidi-bench-never-requested');
    await browser.url(a.url);
    await browser.execute(prepare, Number(a.bytes));
    for (let i = 0; i < Number(a.uploads); i++) {
      const t = performance.now();
      const r = await browser.execute(upload, `${a.trial}.${i}`);
      out.uploads.push({ ...r, client_ms: performance.now() - t });
    }
  } finally {
    await browser.deleteSession();
  }
  console.log(JSON.stringify(out));
}

main().catch((e) => { console.error(`trial-wdio: ${e.stack || e}`); process.exit(1); });
