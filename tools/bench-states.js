#!/usr/bin/env node
// bench-states: what a CDP client state costs one transfer, paired in one browser.
// Usage: NODE_PATH=tests/clients/node_modules tools/bench-states.js, with
// MIB (6), PAIRS (12), BODY (u8, blob or download) and STATES (a list of: off,
// capped, capped-nobuf, buffer-cap, fetch-api; the first is the baseline) in the
// environment. One headless Chromium, one page; before each transfer the state is
// set by CDP (Network.enable/disable, Fetch.enable/disable), the states alternate
// in turn (A B C, C B A, ...), and it prints per state the median transfer time
// and the median and quartiles of the per-round speed ratio to the first state.
'use strict';
const http = require('node:http');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const CDP = require('chrome-remote-interface');

const MIB = Number(process.env.MIB || 6);
const PAIRS = Number(process.env.PAIRS || 12);
const BODY = process.env.BODY || 'u8';
const STATES = (process.env.STATES || 'off,capped,capped-nobuf').split(',');
const FLAGS = require('./common/chromium-flags.js');

const srv = http.createServer((req, res) => {
  if (req.url.startsWith('/download')) {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'cache-control': 'no-store' });
    res.end(Buffer.alloc(MIB * 1048576, 7));
    return;
  }
  req.on('data', () => {});
  req.on('end', () => { res.writeHead(200, { 'content-type': 'text/html' }); res.end('<!doctype html><title>alt</title>'); });
});

const APPLY = {
  off: [['Network.disable', {}], ['Fetch.disable', {}]],
  capped: [['Fetch.disable', {}], ['Network.enable', { maxPostDataSize: 65536 }]],
  'capped-nobuf': [['Fetch.disable', {}], ['Network.enable', { maxPostDataSize: 65536, maxTotalBufferSize: 1, maxResourceBufferSize: 1 }]],
  'buffer-cap': [['Fetch.disable', {}], ['Network.enable', { maxPostDataSize: 65536, maxResourceBufferSize: 1048576, maxTotalBufferSize: 16777216 }]],
  'fetch-api': [['Network.enable', { maxPostDataSize: 65536 }], ['Fetch.enable', { patterns: [{ urlPattern: '*/api/*', requestStage: 'Request' }] }]],
};

const med = (a) => { const b = [...a].sort((x, y) => x - y); return b.length % 2 ? b[b.length >> 1] : (b[b.length / 2 - 1] + b[b.length / 2]) / 2; };

(async () => {
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${srv.address().port}/`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'alt-'));
  const c = spawn('/usr/bin/chromium', [...FLAGS, `--user-data-dir=${dir}`, '--remote-debugging-port=0', 'about:blank'], { detached: true, stdio: 'ignore' });
  try {
    const pf = path.join(dir, 'DevToolsActivePort');
    for (let i = 0; i < 400 && !fs.existsSync(pf); i++) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 200));
    const port = Number(fs.readFileSync(pf, 'utf8').split('\n')[0]);
    const targets = await CDP.List({ port });
    const client = await CDP({ port, target: targets.find((t) => t.type === 'page') });
    client.on('Fetch.requestPaused', (p) => client.send('Fetch.continueRequest', { requestId: p.requestId }).catch(() => {}));
    await client.send('Page.enable');
    await client.send('Page.navigate', { url });
    await new Promise((r) => client.once('Page.loadEventFired', r));
    await client.send('Runtime.evaluate', { expression: `window.B = new Uint8Array(${MIB} * 1048576); for (let i = 0; i < B.length; i += 4096) B[i] = i & 255; if ('${BODY}' === 'blob') window.B = new Blob([B]); 1` });
    const expr = BODY === 'download'
      ? `(async () => { const t0 = performance.now(); await (await fetch('/download?r=' + Math.random())).arrayBuffer(); return performance.now() - t0; })()`
      : `(async () => { const t0 = performance.now(); await (await fetch('/upload', { method: 'POST', body: B })).text(); return performance.now() - t0; })()`;
    const times = Object.fromEntries(STATES.map((s) => [s, []]));
    for (let k = -1; k < PAIRS; k++) {
      const order = k % 2 ? STATES : [...STATES].reverse();
      for (const s of order) {
        for (const [m, p] of APPLY[s]) await client.send(m, p);
        const { result } = await client.send('Runtime.evaluate', { expression: expr, awaitPromise: true, returnByValue: true });
        if (k >= 0) times[s].push(result.value);
      }
    }
    const base = times[STATES[0]];
    console.log(`${MIB} MiB ${BODY}, ${PAIRS} rounds, one browser, states alternating; load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
    for (const s of STATES) {
      const ratios = times[s].map((t, i) => base[i] / t);
      const sorted = [...ratios].sort((a, b) => a - b);
      console.log(`${s.padEnd(13)} median ${med(times[s]).toFixed(1).padStart(7)} ms  speed vs ${STATES[0]}: ${med(ratios).toFixed(2)} (ratios ${sorted[Math.floor(sorted.length * 0.25)].toFixed(2)}..${sorted[Math.floor(sorted.length * 0.75)].toFixed(2)} IQR)`);
    }
    await client.close();
  } finally {
    try { process.kill(-c.pid, 'SIGKILL'); } catch {}
    await new Promise((r) => (c.exitCode !== null || c.signalCode !== null) ? r() : c.once('exit', r));
    fs.rmSync(dir, { recursive: true, force: true });
    srv.close();
  }
})().catch((e) => { console.error(e); process.exit(1); });
