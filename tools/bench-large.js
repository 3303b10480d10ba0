#!/usr/bin/env node
// bench-large: the latency a large message gains in cdpproxy. One process
// plays both ends: a fake Chrome (a WebSocket server that, asked by a
// command, sends one event of SIZE bytes) and a client of the proxy in
// front of it. For each message it times, on one monotonic clock:
//   first in  - the fake Chrome starts writing the frame
//   last in   - the fake Chrome's write of its last byte completes (handed
//               to the kernel: the proxy has read all but a socket buffer)
//   first out - the client reads the frame's first bytes
//   last out  - the client reads its last byte
// and reports, medians over the repeats, the variants interleaved (A B A B
// ...): the transfer (last in - first in), first in -> last out (the whole
// message's time as the client sees it), last out - last in (what store
// and forward adds: the message's second transfer), first out - first in.
// Each message is followed by a small one (the command's answer), whose
// order and the big one's bytes are checked.
// Both legs: the WebSocket proxy (cdpproxy), and the pipe (the wrapper
// beside it, cdpproxy-chromium, launching a fake Chrome on fds 3 and 4);
// and, for each leg, the client on the fake Chrome with no proxy (direct).
// "last in" is when the sender's write completed: its last bytes may still
// be in the kernel's buffers, which drain at the pace of everything after
// them, so even direct gets a last in -> last out; what the proxy adds is
// its own less direct's (column "added"), which counts the socket buffers
// the proxy brings (a second connection's) as well as its own time. The
// proxy's own time is timed from its log (every proxy runs with one): the
// message's record carries when the read that brought its last byte
// happened ("t"), so "proxy in -> out" is from that read to the client's
// read of the last byte.
//   node tools/bench-large.js [--proxy BIN] [--before BIN] [--sizes 8MiB,117MiB]
//                             [--repeats N] [--legs ws,pipe] [--json FILE]
'use strict';
const net = require('node:net');
const crypto = require('node:crypto');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const B = process.env.B || path.join(ROOT, 'build');
const opts = { proxy: path.join(B, 'cdpproxy'), before: '', sizes: '8MiB,117MiB', repeats: 7, legs: 'ws,pipe', json: '' };
for (let i = /^--fake-(pipe-)?chrome$/.test(process.argv[2]) ? process.argv.length : 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  const key = a.replace(/^--/, '');
  if (a === '-h' || a === '--help') {
    console.log(fs.readFileSync(__filename, 'utf8').split('\n').slice(1, 21).map((l) => l.replace(/^\/\/ ?/, '')).join('\n'));
    process.exit(0);
  }
  if (!(key in opts) || i + 1 >= process.argv.length) { console.error(`bench-large: bad argument ${a}`); process.exit(2); }
  opts[key] = key === 'repeats' ? Number(process.argv[++i]) : process.argv[++i];
}
const sizeOf = (s) => {
  const m = /^(\d+)(KiB|MiB)?$/.exec(s);
  if (!m) throw new Error(`bad size ${s}`);
  return Number(m[1]) * (m[2] === 'MiB' ? 1 << 20 : m[2] === 'KiB' ? 1024 : 1);
};
const SIZES = opts.sizes.split(',').map((s) => ({ name: s, bytes: sizeOf(s) }));
const now = () => Number(process.hrtime.bigint()) / 1e3; // microseconds
const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

function frameHeader(len, opcode = 1, mask = null) {
  const ext = len < 126 ? 0 : len < 65536 ? 2 : 8;
  const h = Buffer.alloc(2 + ext + (mask ? 4 : 0));
  h[0] = 0x80 | opcode;
  h[1] = (mask ? 0x80 : 0) | (ext === 0 ? len : ext === 2 ? 126 : 127);
  if (ext === 2) h.writeUInt16BE(len, 2);
  if (ext === 8) h.writeBigUInt64BE(BigInt(len), 2);
  if (mask) mask.copy(h, 2 + ext);
  return h;
}

// Reads frames off a socket: onStart(payload length, time) at a frame's
// start, onEnd(payload, time, same) at its end; the payload is kept only
// when keep(len) says so, else compared as it comes with the one the fake
// Chrome sends for that size (same: whether it was that, byte for byte;
// a compare, not a hash: the client must not be what the proxy waits for).
function frameReader(sock, { onStart, onEnd, keep }) {
  let buf = Buffer.alloc(0), need = 0, parts = [], got = 0, keeping = false, masked = null, hash = null, opcode = 0;
  sock.on('data', (d) => {
    const t = now();
    buf = buf.length ? Buffer.concat([buf, d]) : d;
    for (;;) {
      if (!need) {
        if (buf.length < 2) return;
        let len = buf[1] & 127, off = 2;
        if (len === 126) { if (buf.length < 4) return; len = buf.readUInt16BE(2); off = 4; }
        else if (len === 127) { if (buf.length < 10) return; len = Number(buf.readBigUInt64BE(2)); off = 10; }
        masked = buf[1] & 128 ? buf.subarray(off, off + 4) : null;
        if (masked) { if (buf.length < off + 4) return; masked = Buffer.from(masked); off += 4; }
        opcode = buf[0] & 15;
        buf = buf.subarray(off);
        need = len; got = 0; parts = []; keeping = keep(len) || masked || opcode >= 8;
        hash = keeping ? null : matcher(bigEvent(len).payload);
        if (opcode < 8) onStart(len, t);
        if (!len) { if (opcode < 8) onEnd(Buffer.alloc(0), t); continue; }
      }
      const take = Math.min(need, buf.length);
      if (!take) return;
      if (keeping) parts.push(Buffer.from(buf.subarray(0, take)));
      else hash.update(buf.subarray(0, take));
      buf = buf.subarray(take);
      need -= take; got += take;
      if (need) return;
      const payload = keeping ? Buffer.concat(parts) : null;
      if (payload && masked) for (let i = 0; i < payload.length; i++) payload[i] ^= masked[i & 3];
      if (opcode < 8) onEnd(payload, t, hash && hash.same());
    }
  });
}

// The fake Chrome: answers the upgrade, then, for {"id":N,"params":{"size":S}},
// sends one event of S bytes and then the answer {"id":N,"result":{}}.
const bodies = new Map();
// Compares what comes, part by part, with expected.
function matcher(expected) {
  let at = 0, same = true;
  return {
    update(part) {
      if (same) same = expected.subarray(at, at + part.length).equals(part);
      at += part.length;
    },
    same: () => same && at === expected.length,
  };
}
function bigEvent(bytes) {
  if (bodies.has(bytes)) return bodies.get(bytes);
  const head = Buffer.from('{"method":"Bench.large","params":{"pad":"');
  const tail = Buffer.from('"}}');
  const payload = Buffer.alloc(bytes, 'x');
  head.copy(payload, 0);
  tail.copy(payload, bytes - tail.length);
  for (let off = head.length; off + 8 < bytes - tail.length; off += 4096) payload.write((off >>> 12).toString(16).padStart(8, '0'), off, 'latin1');
  const frame = Buffer.concat([frameHeader(bytes), payload]);
  const v = { frame, pipe: Buffer.concat([payload, Buffer.alloc(1)]), payload };
  bodies.set(bytes, v);
  return v;
}

function fakeChrome(marks) {
  const server = net.createServer((sock) => {
    sock.setNoDelay(true);
    let head = '';
    const onHead = (d) => {
      head += d.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      sock.removeListener('data', onHead);
      const key = /sec-websocket-key: *(\S+)/i.exec(head)[1];
      const accept = crypto.createHash('sha1').update(key + GUID).digest('base64');
      sock.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
      frameReader(sock, {
        keep: () => true,
        onStart: () => {},
        onEnd: (p) => {
          let cmd;
          try { cmd = JSON.parse(p.toString()); } catch (e) { console.error(`fake chrome: ${JSON.stringify(p.toString().slice(0, 200))}`); throw e; }
          const big = bigEvent(cmd.params.size);
          const mark = { firstIn: now() };
          sock.write(big.frame, () => { mark.lastIn = now(); marks(mark); });
          sock.write(frameHeader(Buffer.byteLength(`{"id":${cmd.id},"result":{}}`)));
          sock.write(`{"id":${cmd.id},"result":{}}`);
        },
      });
    };
    sock.on('data', onHead);
    sock.on('error', () => {});
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, port: server.address().port })));
}

// When the proxy read the last byte of the message of `bytes` bytes it
// logged last (log: its JSON-lines file), on now()'s clock: the record's
// "t" is the wall clock's, in microseconds.
const wallMinusNow = (performance.timeOrigin + performance.now()) * 1e3 - now();
// The log is written behind the messages: waits for the record a while.
async function proxyIn(log, bytes, seen) {
  for (let tries = 0; tries < 100; tries++) {
    const lines = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter((l) => l) : [];
    for (let i = lines.length - 1; i >= seen.n; i--) {
      const r = JSON.parse(lines[i]);
      if (r.bytes === bytes) { seen.n = i + 1; return r.t - wallMinusNow; }
    }
    await new Promise((res) => setTimeout(res, 10));
  }
  return NaN;
}

function startProxy(bin, upstream, log) {
  const child = spawn(bin, ['--listen', '127.0.0.1:0', '--upstream', `127.0.0.1:${upstream}`, '--log', log], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (d) => {
      err += d;
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(err);
      if (m) resolve({ child, port: Number(m[1]) });
    });
    child.once('exit', (code) => reject(new Error(`${bin} exited ${code}: ${err}`)));
  });
}

// A client of the proxy: connect, upgrade; then ask(size) resolves the
// message's times once the big event and the answer after it are in.
function client(port) {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    sock.setNoDelay(true);
    let upgraded = false, head = '', waiting = null, cur = null;
    sock.on('error', reject);
    sock.on('connect', () => sock.write(`GET /devtools/page/bench HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\n` +
      `Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${crypto.randomBytes(16).toString('base64')}\r\n\r\n`));
    const onHead = (d) => {
      head += d.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      if (!/^HTTP\/1.1 101/.test(head)) return reject(new Error(`no upgrade: ${head}`));
      sock.removeListener('data', onHead);
      upgraded = true;
      const rest = Buffer.from(head.slice(end + 4), 'latin1');
      frameReader(sock, {
        keep: (len) => len < 65536,
        onStart: (len, t) => { if (cur && !cur.firstOut) { cur.firstOut = t; cur.len = len; } },
        onEnd: (p, t, same) => {
          if (!cur) return;
          if (!cur.lastOut) { cur.lastOut = t; cur.same = p ? p.equals(bigEvent(p.length).payload) : same; return; }
          cur.answer = JSON.parse(p.toString());
          const w = waiting; waiting = null;
          w(cur);
        },
      });
      if (rest.length) sock.emit('data', rest);
      let id = 0;
      resolve({
        ask(size) {
          cur = { id: ++id };
          const body = Buffer.from(JSON.stringify({ id: cur.id, method: 'Bench.large', params: { size } }));
          const mask = crypto.randomBytes(4);
          for (let i = 0; i < body.length; i++) body[i] ^= mask[i & 3];
          sock.write(Buffer.concat([frameHeader(body.length, 1, mask), body]));
          return new Promise((r) => { waiting = r; });
        },
        close() { sock.destroy(); },
      });
    };
    sock.on('data', onHead);
    void upgraded;
  });
}

// The fake Chrome of the pipe leg, launched by the wrapper (CDPPROXY_CHROMIUM):
// commands on fd 3, for each one event of params.size bytes on fd 4, then the
// answer, which carries the event's marks (first in, last in: the monotonic
// clock is the machine's, the same in every process).
function fakePipeChrome() {
  const out = new net.Socket({ fd: 4, readable: false, writable: true });
  const inp = fs.createReadStream(null, { fd: 3 });
  let buf = Buffer.alloc(0);
  inp.on('data', (d) => {
    buf = Buffer.concat([buf, d]);
    let i;
    while ((i = buf.indexOf(0)) >= 0) {
      const cmd = JSON.parse(buf.subarray(0, i).toString());
      buf = buf.subarray(i + 1);
      const big = bigEvent(cmd.params.size);
      const mark = { firstIn: now() };
      out.write(big.pipe, () => {
        mark.lastIn = now();
        out.write(`{"id":${cmd.id},"result":${JSON.stringify(mark)}}\0`);
      });
    }
  });
  inp.on('end', () => process.exit(0));
}

// A pipe client of the wrapper (bin: cdpproxy-chromium) launching the fake
// Chrome: ask(size) resolves the message's times as client() does.
// bin null: the client launches the fake Chrome itself (direct).
function pipeClient(bin, dir, log) {
  const fake = path.join(dir, 'fake-chrome');
  fs.writeFileSync(fake, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(__filename)} --fake-pipe-chrome "$@"\n`, { mode: 0o755 });
  const child = spawn(bin || fake, ['--remote-debugging-pipe'], { stdio: ['ignore', 'ignore', 'inherit', 'pipe', 'pipe'],
    env: { ...process.env, CDPPROXY_CHROMIUM: fake, CDPPROXY_LOG: log || '' } });
  let cur = null, waiting = null, hash = null, id = 0, small = [];
  child.stdio[4].on('data', (d) => {
    const t = now();
    while (d.length) {
      if (cur && !cur.lastOut) {   // the big event
        if (!cur.firstOut) { cur.firstOut = t; cur.len = 0; hash = matcher(bigEvent(cur.size).payload); }
        const i = d.indexOf(0);
        const part = i < 0 ? d : d.subarray(0, i);
        hash.update(part);
        cur.len += part.length;
        if (i < 0) return;
        cur.lastOut = t;
        cur.same = hash.same();
        d = d.subarray(i + 1);
        continue;
      }
      const i = d.indexOf(0);   // the answer, with the marks
      small.push(i < 0 ? d : d.subarray(0, i));
      if (i < 0) return;
      d = d.subarray(i + 1);
      const answer = JSON.parse(Buffer.concat(small).toString());
      small = [];
      if (!cur) continue;
      cur.answer = answer;
      cur.mark = answer.result;
      const w = waiting; waiting = null; w(cur);
    }
  });
  return {
    ask(size) {
      cur = { id: ++id, size };
      child.stdio[3].write(JSON.stringify({ id: cur.id, method: 'Bench.large', params: { size } }) + '\0');
      return new Promise((r) => { waiting = r; });
    },
    close() { child.stdio[3].end(); setTimeout(() => { try { child.kill('SIGKILL'); } catch { /* gone */ } }, 2000).unref(); },
  };
}

const median = (a) => { const s = [...a].sort((x, y) => x - y); return s.length ? s[(s.length - 1) >> 1] : NaN; };

// The fake Chrome runs in a child process (a process of its own, as
// Chrome's is): its marks come over IPC, on the same monotonic clock.
if (process.argv[2] === '--fake-pipe-chrome') {
  fakePipeChrome();
  return;
}
if (process.argv[2] === '--fake-chrome') {
  fakeChrome((m) => process.send(m)).then((c) => process.send({ port: c.port }));
  process.on('disconnect', () => process.exit(0));
  return;
}

function startChrome() {
  const child = require('node:child_process').fork(__filename, ['--fake-chrome'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const marks = [];
  let waiter = null;
  return new Promise((resolve) => {
    child.on('message', (m) => {
      if (m.port) return resolve({ port: m.port, child, nextMark: () => (marks.length ? Promise.resolve(marks.shift()) : new Promise((r) => { waiter = r; })) });
      if (waiter) { const w = waiter; waiter = null; w(m); } else marks.push(m);
    });
  });
}

(async () => {
  const chrome = await startChrome();
  const legs = opts.legs.split(',');
  const bins = [{ name: 'after', bin: opts.proxy }];
  if (opts.before) bins.unshift({ name: 'before', bin: opts.before });
  bins.unshift({ name: 'direct', bin: null });
  const variants = [];
  const dir = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'bench-large-'));
  for (const leg of legs) {
    for (const b of bins) {
      const v = { name: `${b.name} ${leg}`, leg, runs: {}, seen: { n: 0 } };
      if (leg === 'ws') {
        if (b.bin) v.log = path.join(dir, `${v.name.replace(' ', '-')}.jsonl`);
        if (b.bin) v.px = await startProxy(b.bin, chrome.port, v.log);
        v.cl = await client(v.px ? v.px.port : chrome.port);
      } else {
        if (b.bin) v.log = path.join(dir, `${v.name.replace(' ', '-')}.jsonl`);
        v.cl = pipeClient(b.bin && path.join(path.dirname(b.bin), 'cdpproxy-chromium'), dir, v.log);
      }
      variants.push(v);
    }
  }
  let failed = 0;
  for (let r = 0; r <= opts.repeats; r++) {   // round 0: warm-up, not counted
    for (const s of SIZES) {
      for (const v of (r & 1 ? [...variants].reverse() : variants)) {
        const got = await v.cl.ask(s.bytes);
        const mark = v.leg === 'ws' ? await chrome.nextMark() : got.mark;
        const ok = got.len === s.bytes && got.same && got.answer.id === got.id;
        if (!ok) { failed++; console.error(`bench-large: ${v.name} ${s.name}: wrong bytes or order`); }
        const inProxy = v.log ? await proxyIn(v.log, s.bytes, v.seen) : NaN;
        if (!r) continue;
        (v.runs[s.name] ||= []).push({
          transfer: mark.lastIn - mark.firstIn,
          last: got.lastOut - mark.lastIn,
          first: got.firstOut - mark.firstIn,
          own: got.lastOut - inProxy,
          whole: got.lastOut - mark.firstIn,
        });
      }
    }
  }
  const out = { date: new Date().toISOString(), repeats: opts.repeats, load: fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0], results: [] };
  const ms = (us) => (us / 1000).toFixed(us < 10000 ? 2 : 1);
  console.log(`large messages through cdpproxy: medians of ${opts.repeats} interleaved repeats (ms; load ${out.load})`);
  console.log('variant      size     transfer  first in->last out  last in->last out  added  added/transfer  first in->first out  proxy in->out  /transfer');
  for (const s of SIZES) {
    const direct = {};
    for (const v of variants) {
      const runs = v.runs[s.name] || [];
      const row = { variant: v.name, size: s.name, bytes: s.bytes,
        transfer_us: median(runs.map((x) => x.transfer)), last_us: median(runs.map((x) => x.last)),
        first_us: median(runs.map((x) => x.first)), proxy_us: median(runs.map((x) => x.own)),
        whole_us: median(runs.map((x) => x.whole)) };
      if (v.name.startsWith('direct')) direct[v.leg] = row.last_us;
      else row.added_us = row.last_us - direct[v.leg];
      out.results.push(row);
      const added = row.added_us === undefined ? '' : ms(row.added_us);
      const share = row.added_us === undefined ? '' : `${(100 * row.added_us / row.transfer_us).toFixed(1)}%`;
      console.log(`${v.name.padEnd(12)} ${s.name.padEnd(8)} ${ms(row.transfer_us).padStart(8)}  ${ms(row.whole_us).padStart(18)}  ${ms(row.last_us).padStart(17)}  ` +
        `${added.padStart(5)}  ${share.padStart(14)}  ${ms(row.first_us).padStart(19)}` +
        (Number.isNaN(row.proxy_us) ? '' : `  ${ms(row.proxy_us).padStart(13)}  ${(100 * row.proxy_us / row.transfer_us).toFixed(1).padStart(8)}%`));
    }
  }
  if (opts.json) fs.writeFileSync(opts.json, JSON.stringify(out, null, 2) + '\n');
  for (const v of variants) { v.cl.close(); if (v.px) v.px.child.kill('SIGTERM'); }
  setTimeout(() => fs.rmSync(dir, { recursive: true, force: true }), 300).unref();
  chrome.child.disconnect();
  process.exitCode = failed ? 1 : 0;
  setTimeout(() => process.exit(process.exitCode), 500).unref();
})().catch((e) => { console.error(`bench-large: ${e.stack || e}`); process.exit(1); });
