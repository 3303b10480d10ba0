#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// /proxy/events as Server-Sent Events: entries are pushed as they happen, the
// stream outlives the 10 s idle deadline of plain HTTP, an EventSource that
// reconnects with Last-Event-ID resumes where it was, at most 8 streams are
// open, the token rules hold, and a reader that stalls costs neither memory
// nor forwarding: it loses entries and is told how many. cdp-echo is the
// peer, because the stalled-reader case needs 100k events fast.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const fs = require('node:fs');
const net = require('node:net');
const h = require('./lib/harness');

const ALL = { timeout: 120000, skip: h.DIRECT && 'CDPPROXY_DIRECT=1' };

// Runs fn(proxy) with a proxy (args) in front of a fresh cdp-echo; the proxy
// must then exit 0.
async function withProxy(args, fn) {
  const { echo, port } = await h.startEcho();
  const proxy = await h.startProxy({ upstreamPort: port, args });
  try {
    await fn(proxy);
  } finally {
    const res = await proxy.stop();
    proxy.removeDir();
    echo.kill('SIGTERM');
    assert.equal(res.code, 0, `proxy exits 0: ${res.stderr}`);
  }
}

// An event-stream reader: events[] holds each event's parsed data (with its
// id), comments counts ':' lines; res is the response.
function openStream(port, { headers = {}, query = '' } = {}) {
  return new Promise((resolve, reject) => {
    const st = { events: [], comments: 0, ended: false };
    const req = http.get({ host: '127.0.0.1', port, path: `/proxy/events${query}`,
      headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      st.res = res;
      if (res.statusCode !== 200) { res.resume(); return resolve(st); }
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (d) => {
        buf += d;
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          let id = null;
          let data = '';
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) st.comments++;
            else if (line.startsWith('id: ')) id = Number(line.slice(4));
            else if (line.startsWith('data: ')) data += line.slice(6);
          }
          if (data) st.events.push({ id, ...JSON.parse(data) });
        }
      });
      res.on('end', () => { st.ended = true; });
      resolve(st);
    });
    req.on('error', reject);
    st.req = req;
  });
}

const entries = (st) => st.events.flatMap((e) => e.entries);

// The idle deadline's 11.5 s of quiet are spent while the tests after this
// one run: its proxy, stream and client stay open, untouched, until the last
// test, which checks the stream is still open and still carries entries.
let idle;

test('events are pushed as they happen', ALL, async () => {
  const { echo, port } = await h.startEcho();
  const proxy = await h.startProxy({ upstreamPort: port });
  idle = { echo, proxy };
  const st = idle.st = await openStream(proxy.port);
  assert.equal(st.res.statusCode, 200);
  assert.match(st.res.headers['content-type'], /^text\/event-stream/);
  assert.equal(st.res.headers['cache-control'], 'no-cache');
  const cdp = idle.cdp = await h.RawCDP.connect(`ws://127.0.0.1:${proxy.port}/devtools/page/sse`);
  for (let i = 0; i < 10; i++) await cdp.call('Echo.echo', { size: 100 });
  await h.waitFor(() => entries(st).filter((e) => e.kind === 'response').length === 10,
    { what: '10 responses pushed', timeout: 5000 });
  const seqs = entries(st).map((e) => e.seq);
  assert.deepEqual(seqs, seqs.map((_, i) => seqs[0] + i), 'entries in order, none twice, none missing');
  assert.equal(st.events.at(-1).id, st.events.at(-1).next, 'each event\'s id is the seq to resume from');
  idle.quietFrom = Date.now();
});

test('Last-Event-ID resumes a stream; the ninth stream is refused; --token holds', ALL, () => withProxy(['--token', 'sesame'], async (proxy) => {
  const auth = { authorization: 'Bearer sesame' };
  const none = await openStream(proxy.port);
  assert.equal(none.res.statusCode, 401, 'no token: 401');
  const first = await openStream(proxy.port, { headers: auth });
  assert.equal(first.res.statusCode, 200);
  const cdp = await h.RawCDP.connect(`ws://127.0.0.1:${proxy.port}/devtools/page/sse?token=sesame`);
  for (let i = 0; i < 5; i++) await cdp.call('Echo.echo', { size: 10 });
  await h.waitFor(() => entries(first).filter((e) => e.kind === 'response').length === 5, { what: '5 responses' });
  const all = entries(first);
  const from = all[3].seq;
  // An EventSource reconnecting after the event whose id is `from`.
  const again = await openStream(proxy.port, { headers: { ...auth, 'last-event-id': String(from) } });
  await h.waitFor(() => again.events.length > 0, { what: 'the resumed stream\'s first event' });
  assert.deepEqual(entries(again).map((e) => e.seq), all.filter((e) => e.seq >= from).map((e) => e.seq),
    'the resumed stream starts at Last-Event-ID');
  const more = [];
  for (let i = 0; i < 6; i++) more.push(await openStream(proxy.port, { headers: auth }));
  assert.ok(more.every((s) => s.res.statusCode === 200), 'eight streams open');
  const ninth = await openStream(proxy.port, { headers: auth });
  assert.equal(ninth.res.statusCode, 503, 'the ninth: 503');
  const poll = await h.getJSON(`${proxy.httpURL}/proxy/events`, { headers: auth });
  assert.ok(Array.isArray(poll.entries), 'polling still works');
  for (const s of [first, again, ...more]) s.req.destroy();
  let last;
  await h.waitFor(async () => {
    last = await openStream(proxy.port, { headers: auth });
    return last.res.statusCode === 200;
  }, { what: 'a closed stream\'s slot to free up', timeout: 3000 });
  last.req.destroy();
  cdp.close();
}));

// A raw socket that asks for the stream and then never reads.
async function stalledReader(port) {
  const sock = net.connect(port, '127.0.0.1');
  const st = { sock, got: '' };
  sock.on('data', (d) => { st.got += d.toString('latin1'); });
  sock.on('error', () => {});
  sock.write('GET /proxy/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n');
  await h.waitFor(() => st.got.includes('\r\n\r\n'), { what: 'the stream\'s headers' });
  sock.pause();
  return st;
}

// 100k events of 1 KiB through the proxy; {secs, peakKiB}.
async function flood100k(proxy, cdp) {
  let peak = h.rssKiB(proxy.pid);
  const ticker = setInterval(() => { peak = Math.max(peak, h.rssKiB(proxy.pid)); }, 20);
  const before = cdp.events.length;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < 4; i++) await cdp.call('Echo.flood', { count: 25000, size: 1024 });
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  clearInterval(ticker);
  assert.equal(cdp.events.length - before, 100000, 'every event reached the client');
  cdp.events.length = 0;
  return { secs, peak: Math.max(peak, h.rssKiB(proxy.pid)) };
}

// The proxy's ring of entries (proxy/http/README.md) and the least bytes an
// entry takes in the stream (about 108 measured, with the events' framing).
const RING = 8192;
const ENTRY_MIN_BYTES = 100;

// Entries enough to overrun the ring behind a reader that does not read:
// the ring, what fits in the socket's largest send buffer and its receive
// buffer (Linux's tcp_wmem max and tcp_rmem default), and a ring more.
function overrunCount() {
  const sysctl = (name, i, dflt) => {
    try { return +fs.readFileSync(`/proc/sys/net/ipv4/${name}`, 'utf8').trim().split(/\s+/)[i]; } catch { return dflt; }
  };
  const kernel = sysctl('tcp_wmem', 2, 4 << 20) + sysctl('tcp_rmem', 1, 128 << 10);
  return 2 * RING + Math.ceil(kernel / ENTRY_MIN_BYTES);
}

// Floods past a stalled reader, with none, and past one again: memory is
// asserted (bounded: the stalled floods' peak over the one's with no reader,
// which comes after the first stalled flood, so that the live view's ring a
// reader turns on is in both), throughput only printed (this machine is too
// noisy to assert it).
test('a stalled reader while 100k events pass: bounded memory, then told what it lost', ALL, (t) => withProxy(['--queue-bytes', '1MiB'], async (proxy) => {
  const cdp = await h.RawCDP.connect(`ws://127.0.0.1:${proxy.port}/devtools/page/flood`);
  const base = h.rssKiB(proxy.pid);
  let reader = await stalledReader(proxy.port);
  const stalled = [await flood100k(proxy, cdp)];
  reader.sock.destroy();
  const none = await flood100k(proxy, cdp);
  reader = await stalledReader(proxy.port);
  stalled.push(await flood100k(proxy, cdp));
  const peakStalled = Math.max(...stalled.map((r) => r.peak));
  const sStalled = (stalled[0].secs + stalled[1].secs) / 2;
  t.diagnostic(`100k 1 KiB events: ${(1e5 / none.secs).toFixed(0)} events/s with no reader, ` +
    `${(1e5 / sStalled).toFixed(0)} events/s past a stalled /proxy/events reader (${(none.secs / sStalled).toFixed(2)}x, the mean of 2); ` +
    `proxy RSS ${base} KiB at start, peak ${none.peak} KiB with no reader, ${peakStalled} KiB with the stalled one`);
  if (!process.env.CDPPROXY_SANITIZED)
    assert.ok(peakStalled - none.peak < 4 * 1024, `a stalled reader costs ${peakStalled - none.peak} KiB of peak RSS (< 4 MiB)`);
  // A reader stalled for less than the eviction time that then reads: the
  // events it gets say how many entries it missed. To miss any, the flood
  // must overrun the ring and what the kernel holds for the stalled socket
  // too (CI: 20k entries, 2.1 MB, all fit once the send buffer had grown).
  reader.sock.destroy();
  reader = await stalledReader(proxy.port);
  const t0 = Date.now();
  await cdp.call('Echo.flood', { count: overrunCount(), size: 1024 });
  const stalledMs = Date.now() - t0;
  reader.sock.on('close', () => { reader.closedMs = Date.now() - t0; });
  reader.sock.resume();
  await h.waitFor(() => /"lost":[1-9]/.test(reader.got), {
    what: () => `an event saying entries were lost (the reader stalled ${stalledMs} ms, got ${reader.got.length} bytes, ` +
      `${reader.closedMs === undefined ? 'its stream still open' : `its stream closed at ${reader.closedMs} ms`})`,
    timeout: 10000,
  });
  reader.sock.destroy();
  cdp.close();
}));

// The README's bound: a stream with 64 KiB unsent for 5 s is closed.
const EVICT_MS = 5000;

test('eight readers that never read lose their streams once 64 KiB stay unsent 5 s; a ninth then gets one', ALL, () => withProxy([], async (proxy) => {
  const cdp = await h.RawCDP.connect(`ws://127.0.0.1:${proxy.port}/devtools/page/stall`);
  const readers = [];
  for (let i = 0; i < 8; i++) readers.push(await stalledReader(proxy.port));
  const refused = await openStream(proxy.port);
  assert.equal(refused.res.statusCode, 503, 'eight streams held: the ninth is refused');
  // Entries keep coming, so the streams have bytes to send that nobody takes.
  let flooding = true;
  const flood = (async () => { while (flooding) await cdp.call('Echo.flood', { count: 2000, size: 1024 }); })();
  const t0 = Date.now();
  let ninth;
  try {
    await h.waitFor(async () => {
      ninth = await openStream(proxy.port);
      if (ninth.res.statusCode === 200) return true;
      return false;
    }, { what: 'a stalled stream\'s slot for a ninth reader', timeout: EVICT_MS + 10000, interval: 250 });
  } finally {
    flooding = false;
    await flood;
  }
  const waited = Date.now() - t0;
  console.log(`# a ninth reader got a stream ${waited} ms after the entries began`);
  await cdp.call('Echo.echo', { size: 10 });
  await h.waitFor(() => entries(ninth).some((e) => e.kind === 'response' && e.method === 'Echo.echo'),
    { what: 'the ninth reader\'s stream to carry entries' });
  ninth.req.destroy();
  for (const r of readers) r.sock.destroy();
  cdp.close();
}));

// Plain HTTP connections idle for 10 s are closed; a stream is not.
const QUIET_MS = 11500;

test('the stream outlives the idle deadline: still open after 11.5 s of quiet, and carrying entries', ALL, async (t) => {
  if (!idle) return t.skip('no proxy');
  const { echo, proxy, st, cdp } = idle;
  try {
    // The first test failed: only its proxy is stopped (and must exit 0).
    if (!idle.quietFrom) return t.skip('the first test failed');
    const left = idle.quietFrom + QUIET_MS - Date.now();
    if (left > 0) await h.sleep(left);
    const quiet = Date.now() - idle.quietFrom;
    t.diagnostic(`the stream had no entries for ${quiet} ms (${st.comments} keep-alive comments)`);
    assert.equal(st.ended, false, `the stream is still open after ${quiet} ms with no entries`);
    await cdp.call('Echo.echo', { size: 100 });
    await h.waitFor(() => entries(st).filter((e) => e.kind === 'response').length === 11,
      { what: 'the 11th response on the same stream', timeout: 5000 });
  } finally {
    if (st) st.req.destroy();
    if (cdp) cdp.close();
    const res = await proxy.stop();
    proxy.removeDir();
    echo.kill('SIGTERM');
    assert.equal(res.code, 0, `proxy exits 0: ${res.stderr}`);
  }
});
