#!/usr/bin/env node
// A Puppeteer script as users write them, configured only through the
// environment: the `puppeteer` package launches PUPPETEER_EXECUTABLE_PATH
// (cdpbench audit points it at the wrapper, or at Chromium for `direct`).
// It uploads in-memory bodies with fetch(), routes requests with request
// interception, and renders a page; it exits 1 if anything fails.
'use strict';
const puppeteer = require('puppeteer');
const { start } = require('../server');

const MIB = Number(process.env.RIG_UPLOAD_MIB || 8);

async function main() {
  const server = await start();
  // --no-sandbox: Chromium as root; nothing else about the browser is set here.
  const browser = await puppeteer.launch({ args: ['--no-sandbox'], protocolTimeout: 120000 });
  try {
    const page = await browser.newPage();
    await page.goto(server.url);
    const bytes = await page.evaluate(async (mib) => {
      const u8 = new Uint8Array(mib << 20);
      for (let i = 0; i < u8.length; i += 4096) u8[i] = i & 255;
      const out = [];
      for (let n = 0; n < 3; n++) out.push((await (await fetch('/upload', { method: 'POST', body: u8 })).json()).bytes);
      return out;
    }, MIB);
    if (bytes.some((b) => b !== MIB << 20)) throw new Error(`uploads arrived short: ${bytes}`);

    const routed = await browser.newPage();
    await routed.setRequestInterception(true);
    routed.on('request', (req) => (req.url().endsWith('/data.json')
      ? req.respond({ contentType: 'application/json', body: '{"source":"route"}' })
      : req.continue()));
    await routed.goto(server.url);
    const data = await routed.evaluate(() => fetch('/data.json').then((r) => r.json()));
    if (data.source !== 'route') throw new Error(`not routed: ${JSON.stringify(data)}`);

    await routed.evaluate(() => {
      const ul = document.getElementById('list');
      for (let i = 0; i < 500; i++) ul.insertAdjacentHTML('beforeend', `<li>item ${i}</li>`);
    });
    const shot = await routed.screenshot({ fullPage: true });
    if (shot.length < 1000) throw new Error('empty screenshot');
    console.log(`ok: ${bytes.length} uploads of ${MIB} MiB, a routed request, a ${shot.length}-byte screenshot`);
  } finally {
    await browser.close();
    await server.close();
  }
}

main().catch((e) => {
  console.error(`rig failed: ${e && e.stack ? e.stack : e}`);
  process.exit(1);
});
