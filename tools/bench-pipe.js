#!/usr/bin/env node
// bench-pipe: the browser wrapper's pipe path against a direct pipe to
// Chromium, as Playwright drives it (--remote-debugging-pipe, fds 3 and 4):
// Runtime.evaluate('1+1') one at a time (round trip) and 64 in flight
// (answers/s), direct, through build/cdpproxy-chromium, and through it with
// CDPPROXY_LOG; interleaved rounds (the order turns each round), the first
// discarded, medians printed with ratios to direct. Part of make bench-proxy.
//   node tools/bench-pipe.js [--rounds N] [--seconds S] [--json FILE]
'use strict';
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const B = process.env.B || path.join(ROOT, 'build');
const WRAPPER = path.join(B, 'cdpproxy-chromium');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const args = process.argv.slice(2);
const opt = (name, def) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : def; };
const ROUNDS = Number(opt('--rounds', 5));
const SECONDS = Number(opt('--seconds', 2));
const JSON_OUT = opt('--json', null);

const median = (a) => { const s = [...a].sort((x, y) => x - y); return s.length ? s[Math.floor((s.length - 1) / 2)] : NaN; };

// One browser over a pipe pair: send(method, params, session) resolves the answer.
function open(exe, env) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-pipe-'));
  const child = spawn(exe, [...FLAGS, `--user-data-dir=${dir}`, '--remote-debugging-pipe', 'about:blank'],
    { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  const waiting = new Map();
  let next = 1, buf = Buffer.alloc(0);
  child.stdio[4].on('data', (d) => {
    buf = Buffer.concat([buf, d]);
    let i;
    while ((i = buf.indexOf(0)) >= 0) {
      const m = JSON.parse(buf.subarray(0, i).toString());
      buf = buf.subarray(i + 1);
      if (m.id !== undefined && waiting.has(m.id)) { waiting.get(m.id)(m); waiting.delete(m.id); }
    }
  });
  const send = (method, params = {}, sessionId) => new Promise((resolve) => {
    const id = next++;
    waiting.set(id, resolve);
    child.stdio[3].write(JSON.stringify(sessionId ? { id, method, params, sessionId } : { id, method, params }) + '\0');
  });
  const close = async () => {
    await Promise.race([send('Browser.close'), new Promise((r) => setTimeout(r, 2000))]);
    await new Promise((r) => { if (child.exitCode !== null) r(); else child.once('exit', r); setTimeout(r, 3000); });
    try { child.kill('SIGKILL'); } catch { /* gone */ }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  return { send, close };
}

async function page(b) {
  for (let i = 0; i < 100; i++) {
    const { result } = await b.send('Target.getTargets');
    const t = result && result.targetInfos.find((x) => x.type === 'page');
    if (t) return (await b.send('Target.attachToTarget', { targetId: t.targetId, flatten: true })).result.sessionId;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('no page target');
}

// Median round trip (us) of n evaluates one at a time, and answers/s with 64 in flight.
async function measure(variant) {
  const b = open(variant.exe, variant.env);
  try {
    const sid = await page(b);
    const eval1 = () => b.send('Runtime.evaluate', { expression: '1+1' }, sid);
    for (let i = 0; i < 50; i++) await eval1();
    const rtts = [];
    for (let i = 0; i < 300; i++) {
      const t0 = process.hrtime.bigint();
      await eval1();
      rtts.push(Number(process.hrtime.bigint() - t0) / 1000);
    }
    let done = 0;
    const until = Date.now() + SECONDS * 1000;
    const worker = async () => { while (Date.now() < until) { await eval1(); done++; } };
    const t0 = Date.now();
    await Promise.all(Array.from({ length: 64 }, worker));
    return { rtt_us: median(rtts), ops: done / ((Date.now() - t0) / 1000) };
  } finally {
    await b.close();
  }
}

(async () => {
  const logdir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-pipe-log-'));
  const variants = [
    { name: 'direct', exe: CHROMIUM, env: {} },
    { name: 'wrapper', exe: WRAPPER, env: { CDPPROXY_LOG: '' } },
    { name: 'wrapper --log', exe: WRAPPER, env: { CDPPROXY_LOG: logdir } },
  ];
  const got = Object.fromEntries(variants.map((v) => [v.name, []]));
  for (let round = 0; round <= ROUNDS; round++) {
    const order = round % 2 ? [...variants].reverse() : variants;
    for (const v of order) {
      const m = await measure(v);
      process.stderr.write(`bench-pipe: round ${round}${round ? '' : ' (warm-up)'} ${v.name}: ` +
        `${m.rtt_us.toFixed(0)} us, ${m.ops.toFixed(0)} answers/s\n`);
      if (round) got[v.name].push(m);
    }
  }
  fs.rmSync(logdir, { recursive: true, force: true });
  const d = { rtt: median(got.direct.map((m) => m.rtt_us)), ops: median(got.direct.map((m) => m.ops)) };
  console.log(`\nChromium over a pipe, Runtime.evaluate('1+1'): medians of ${ROUNDS} interleaved rounds`);
  console.log('variant          round trip (us)  added (us)  64 in flight (answers/s)  vs direct');
  const out = {};
  for (const v of variants) {
    const rtt = median(got[v.name].map((m) => m.rtt_us)), ops = median(got[v.name].map((m) => m.ops));
    out[v.name] = { rtt_us: rtt, ops, added_us: rtt - d.rtt, ratio: ops / d.ops };
    console.log(`${v.name.padEnd(16)} ${rtt.toFixed(0).padStart(15)}  ${(rtt - d.rtt).toFixed(0).padStart(10)}  ` +
      `${ops.toFixed(0).padStart(24)}  ${(ops / d.ops).toFixed(2).padStart(9)}`);
  }
  if (JSON_OUT) fs.writeFileSync(JSON_OUT, JSON.stringify({ rounds: ROUNDS, seconds: SECONDS, variants: out }, null, 2));
})().catch((e) => { console.error(`bench-pipe: ${e.stack || e}`); process.exit(1); });
