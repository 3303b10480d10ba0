#!/usr/bin/env node
// bench-pipe: the browser wrapper's pipe path against a direct pipe to
// Chromium, as Playwright drives it (--remote-debugging-pipe, fds 3 and 4),
// and against the WebSocket proxy (build/cdpproxy in front of Chromium's
// port): Runtime.evaluate('1+1') one at a time (round trip), 64 in flight
// (answers/s), and paced at --rate a second for --paced seconds, the proxy's
// (or wrapper's) CPU per answer from /proc; direct, through
// build/cdpproxy-chromium, through it with CDPPROXY_LOG, and through
// cdpproxy; interleaved rounds (the order turns each round), the first
// discarded, medians printed with ratios to direct. Part of make bench-proxy.
//   node tools/bench-pipe.js [--rounds N] [--seconds S] [--rate N] [--paced S] [--json FILE]
'use strict';
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const B = process.env.B || path.join(ROOT, 'build');
const WRAPPER = path.join(B, 'cdpproxy-chromium');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const FLAGS = require('./common/chromium-flags.js');
const args = process.argv.slice(2);
const opt = (name, def) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : def; };
const ROUNDS = Number(opt('--rounds', 5));
const SECONDS = Number(opt('--seconds', 2));
const JSON_OUT = opt('--json', null);
const RATE = Number(opt('--rate', 2000));
const PACED = Number(opt('--paced', 5));   // 10,000 answers: a 10 ms CPU tick is 1 us of one
const PROXY = path.join(B, 'cdpproxy');
const TICK_US = 1e6 / 100;   // USER_HZ

// A process's CPU so far (us of user and system time), from /proc.
const cpuUs = (pid) => {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * TICK_US;
};

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
  return { send, close, pid: exe === CHROMIUM ? 0 : child.pid };
}

// WebSocket frames of text, masked (the client's) or not.
function frame(text, masked) {
  const body = Buffer.from(text);
  const len = body.length, ext = len < 126 ? 0 : len < 65536 ? 2 : 8;
  const h = Buffer.alloc(2 + ext + (masked ? 4 : 0));
  h[0] = 0x81;
  h[1] = (masked ? 0x80 : 0) | (ext === 0 ? len : ext === 2 ? 126 : 127);
  if (ext === 2) h.writeUInt16BE(len, 2);
  if (ext === 8) h.writeBigUInt64BE(BigInt(len), 2);
  if (masked) {
    const m = require('node:crypto').randomBytes(4);
    m.copy(h, 2 + ext);
    for (let i = 0; i < len; i++) body[i] ^= m[i & 3];
  }
  return Buffer.concat([h, body]);
}

// Chromium on a port with cdpproxy in front: the same send() over a WebSocket.
async function openWs() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-pipe-'));
  const chrome = spawn(CHROMIUM, [...FLAGS, `--user-data-dir=${dir}`, '--remote-debugging-port=0', 'about:blank'],
    { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  const wsPath = await new Promise((resolve, reject) => {
    let err = '';
    chrome.stderr.on('data', (d) => { err += d; const m = /DevTools listening on ws:\/\/[^/]+:(\d+)(\/\S+)/.exec(err); if (m) resolve({ port: m[1], path: m[2] }); });
    chrome.once('exit', () => reject(new Error(`chromium exited: ${err}`)));
  });
  const px = spawn(PROXY, ['--listen', '127.0.0.1:0', '--upstream', `127.0.0.1:${wsPath.port}`], { stdio: ['ignore', 'ignore', 'pipe'] });
  const pport = await new Promise((resolve, reject) => {
    let err = '';
    px.stderr.on('data', (d) => { err += d; const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(err); if (m) resolve(Number(m[1])); });
    px.once('exit', () => reject(new Error(`cdpproxy exited: ${err}`)));
  });
  const sock = require('node:net').connect(pport, '127.0.0.1');
  sock.setNoDelay(true);
  const waiting = new Map();
  let next = 1, buf = Buffer.alloc(0), open = false;
  await new Promise((resolve) => {
    sock.on('connect', () => sock.write(`GET ${wsPath.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n` +
      'Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n'));
    sock.on('data', (d) => {
      buf = buf.length ? Buffer.concat([buf, d]) : d;
      if (!open) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        buf = buf.subarray(end + 4);
        open = true;
        resolve();
      }
      for (;;) {
        if (buf.length < 2) return;
        let len = buf[1] & 127, off = 2;
        if (len === 126) { if (buf.length < 4) return; len = buf.readUInt16BE(2); off = 4; }
        else if (len === 127) { if (buf.length < 10) return; len = Number(buf.readBigUInt64BE(2)); off = 10; }
        if (buf.length < off + len) return;
        const m = JSON.parse(buf.subarray(off, off + len).toString());
        buf = buf.subarray(off + len);
        if (m.id !== undefined && waiting.has(m.id)) { waiting.get(m.id)(m); waiting.delete(m.id); }
      }
    });
  });
  const send = (method, params = {}, sessionId) => new Promise((resolve) => {
    const id = next++;
    waiting.set(id, resolve);
    sock.write(frame(JSON.stringify(sessionId ? { id, method, params, sessionId } : { id, method, params }), true));
  });
  const close = async () => {
    sock.destroy();
    px.kill('SIGTERM');
    await new Promise((r) => { if (chrome.exitCode !== null) r(); else chrome.once('exit', r); setTimeout(r, 3000);
      try { process.kill(-chrome.pid, 'SIGKILL'); } catch { /* gone */ } });   // with its helpers
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  };
  return { send, close, pid: px.pid };
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

// Median round trip (us) of n evaluates one at a time, answers/s with 64 in
// flight, and the proxy's CPU per answer paced at RATE a second.
async function measure(variant) {
  const b = variant.ws ? await openWs() : open(variant.exe, variant.env);
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
    const ops = done / ((Date.now() - t0) / 1000);
    // Paced: RATE a second in 1 ms ticks, for PACED seconds.
    const cpu0 = b.pid ? cpuUs(b.pid) : 0, n = Math.round(RATE * PACED), sent = [];
    const p0 = Date.now();
    for (let i = 0; i < n;) {
      const due = Math.min(n, Math.floor((Date.now() - p0) * RATE / 1000) + 1);
      for (; i < due; i++) sent.push(eval1());
      await new Promise((r) => setTimeout(r, 1));
    }
    await Promise.all(sent);
    const cpu = b.pid ? (cpuUs(b.pid) - cpu0) / n : NaN;
    return { rtt_us: median(rtts), ops, cpu_us: cpu };
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
    { name: 'ws proxy', ws: true },
  ];
  const got = Object.fromEntries(variants.map((v) => [v.name, []]));
  for (let round = 0; round <= ROUNDS; round++) {
    const order = round % 2 ? [...variants].reverse() : variants;
    for (const v of order) {
      const m = await measure(v);
      process.stderr.write(`bench-pipe: round ${round}${round ? '' : ' (warm-up)'} ${v.name}: ` +
        `${m.rtt_us.toFixed(0)} us, ${m.ops.toFixed(0)} answers/s, ${m.cpu_us.toFixed(1)} us CPU an answer\n`);
      if (round) got[v.name].push(m);
    }
  }
  fs.rmSync(logdir, { recursive: true, force: true });
  const d = { rtt: median(got.direct.map((m) => m.rtt_us)), ops: median(got.direct.map((m) => m.ops)) };
  const load = fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
  console.log(`\nChromium over a pipe, Runtime.evaluate('1+1'): medians of ${ROUNDS} interleaved rounds (load ${load})`);
  console.log(`variant          round trip (us)  added (us)  64 in flight (answers/s)  vs direct  CPU/answer at ${RATE}/s (us)`);
  const out = {};
  for (const v of variants) {
    const rtt = median(got[v.name].map((m) => m.rtt_us)), ops = median(got[v.name].map((m) => m.ops));
    const cpu = median(got[v.name].map((m) => m.cpu_us));
    out[v.name] = { rtt_us: rtt, ops, added_us: rtt - d.rtt, ratio: ops / d.ops, cpu_us: cpu };
    console.log(`${v.name.padEnd(16)} ${rtt.toFixed(0).padStart(15)}  ${(rtt - d.rtt).toFixed(0).padStart(10)}  ` +
      `${ops.toFixed(0).padStart(24)}  ${(ops / d.ops).toFixed(2).padStart(9)}  ${Number.isNaN(cpu) ? '-'.padStart(26) : cpu.toFixed(1).padStart(26)}`);
  }
  const ws = out['ws proxy'], w = out.wrapper;
  if (ws && w) console.log(`pipe (wrapper) against the WebSocket proxy: CPU/answer ${(w.cpu_us / ws.cpu_us).toFixed(2)}x, round trip ${(w.rtt_us / ws.rtt_us).toFixed(2)}x`);
  if (JSON_OUT) fs.writeFileSync(JSON_OUT, JSON.stringify({ rounds: ROUNDS, seconds: SECONDS, rate: RATE, paced: PACED, load, variants: out }, null, 2));
})().catch((e) => { console.error(`bench-pipe: ${e.stack || e}`); process.exit(1); });
