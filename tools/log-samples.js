#!/usr/bin/env node
// log-samples: one record of each kind cdpproxy's log can hold, from a real
// run (cdpproxy --launch, Debian's Chromium), for the EXAMPLES of
// proxy/obs/cdpproxy-log.5. Prints the lines on stdout.
// usage: CDPPROXY_BIN=build/cdpproxy node tools/log-samples.js
'use strict';
const path = require('node:path');
const fs = require('node:fs');

process.env.CDPPROXY_BIN = path.resolve(process.env.CDPPROXY_BIN || 'build/cdpproxy');
const h = require('../tests/integration/lib/harness');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The first record of each kind that pred accepts, in this order.
const WANT = [
  ['command', (r) => r.method === 'Page.enable'],
  ['response', (r) => 'error' in r],
  ['event', (r) => r.method === 'Target.targetCreated'],
  ['other', (r) => r.dir === 'up'],
  ['invalid'], ['binary'], ['open'],
  ['close', (r) => r.code === 1009 && r.side === 'client'],
  ['too_large'], ['refused'], ['policy'],
  ['session', (r) => r.event === 'attached'],
  ['mark'], ['stats_reset'], ['browser_exit'],
];

(async () => {
  const px = await h.startProxy({ launch: true, args: ['--max-message', '64KiB'] });
  const ver = await h.getJSON(`${px.httpURL}/json/version`);
  const url = `ws://127.0.0.1:${px.port}${new URL(ver.webSocketDebuggerUrl).pathname}`;
  const c = await h.RawCDP.connect(url);
  await c.call('Target.setDiscoverTargets', { discover: true });
  const { targetId } = await c.call('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await c.call('Target.attachToTarget', { targetId, flatten: true });
  await c.call('Page.enable', {}, sessionId);
  await c.call('Page.navigate', { url: 'data:text/html,<title>x</title>hi' }, sessionId);
  await sleep(500);
  await c.send('CDPProxy.mark', { label: 'checkout' });
  c.ws.send('{"hello":"world"}');
  await c.send('Nope.nope', {});
  await h.httpRequest(`${px.httpURL}/proxy/stats/reset`, { method: 'POST' });
  await h.httpRequest(`${px.httpURL}/json/version`, { headers: { Host: 'evil.example' } }).catch(() => {});
  c.ws.send(JSON.stringify({ id: 99, method: 'Runtime.evaluate', params: { expression: 'x'.repeat(70000) } }));
  await c.closed;   // too_large: 1009
  const c2 = await h.RawCDP.connect(url);
  c2.ws.send('not json');
  c2.ws.send(Buffer.from([1, 2, 3]), { binary: true });
  await c2.closed;  // Chrome drops a connection that sent no JSON
  for (const pid of h.descendants(px.pid)) {
    if (/chrom/.test(h.cmdline(pid)[0] || '')) process.kill(pid, 'SIGKILL');
  }
  await sleep(1500);  // browser_exit
  await px.stop();
  const recs = fs.readFileSync(px.logPath, 'utf8').split('\n').filter(Boolean);
  px.removeDir();
  let missing = 0;
  for (const [kind, pred = () => true] of WANT) {
    const line = recs.find((l) => { const r = JSON.parse(l); return r.kind === kind && pred(r); });
    if (line) console.log(line);
    else { console.error(`log-samples: no ${kind} record`); missing++; }
  }
  process.exit(missing ? 1 : 0);
})().catch((e) => { console.error(`log-samples: ${e.stack}`); process.exit(1); });
