// A small WebdriverIO suite as users write them (mocha), run by the real
// test runner (`wdio run`), ChromeDriver launching the browser through
// cdpproxy's wrapper: the two lines that matter are goog:chromeOptions.binary
// (the wrapper: CDPPROXY_BROWSER, as cdpbench audit sets it, else the build
// tree's) and wdio:chromedriverOptions.binary (Debian's ChromeDriver; with
// both set WebdriverIO downloads nothing). Its sessions are WebDriver BiDi,
// WebdriverIO's default; RIG_CLASSIC=1 asks for classic WebDriver
// (wdio:enforceWebDriverClassic). tests/integration/94-wrapper-wdio.t runs
// it, and cdpbench audit can (tools/bidi-bench/README.md). Its server is
// RIG_URL, or one of its own (tests/rigs/server.js).
'use strict';
const path = require('node:path');
const { start } = require('../server');

let server = null;

exports.config = {
  runner: 'local',
  specs: [path.join(__dirname, 'specs/*.spec.js')],
  // One spec file, one session: ChromeDriver and a browser per file.
  maxInstances: 1,
  capabilities: [{
    browserName: 'chrome',
    'goog:chromeOptions': {
      binary: process.env.CDPPROXY_BROWSER || path.join(__dirname, '../../../build/cdpproxy-chromium'),
      // --no-sandbox: Chromium as root; nothing else about the browser is set here.
      args: ['--headless', '--no-sandbox'],
    },
    'wdio:chromedriverOptions': { binary: process.env.CHROMEDRIVER_PATH || '/usr/bin/chromedriver' },
    ...(process.env.RIG_CLASSIC === '1' ? { 'wdio:enforceWebDriverClassic': true } : {}),
  }],
  logLevel: 'warn',
  // Headless: no virtual display to look for.
  autoXvfb: false,
  framework: 'mocha',
  reporters: ['spec'],
  mochaOpts: { timeout: 120000 },
  // Runs in the launcher before the workers start: they inherit RIG_URL.
  onPrepare: async () => {
    if (process.env.RIG_URL) return;
    server = await start();
    process.env.RIG_URL = server.url;
  },
  onComplete: async () => {
    if (server) await server.close();
  },
};
