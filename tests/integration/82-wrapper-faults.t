#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 8: the browser wrapper when things go wrong. Chromium SIGKILLed under
// a Puppeteer session (port and pipe): the client sees the browser go, the
// wrapper ends as Chromium did. The client SIGKILLed with its process group
// (Playwright and Puppeteer): no Chromium and no temporary directory left
// within 2 s. The wrapper SIGKILLed: its Chromium goes too, and the next
// start on its profile sweeps its directory; that next wrapper then serves
// CDPPROXY_CONTROL, a 96 MiB message with no NUL on the pipe (refused at its
// CDPPROXY_MAX_MESSAGE of 16 MiB with a log record, memory bounded, the
// next message still served) and a client that does not read while
// Chromium answers 120 MiB (the wrapper stops reading Chromium, bounded
// memory, and every answer arrives once the client reads).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./lib/harness');
const wr = require('./lib/wrapper');

const ALL = { timeout: 90000 };
const WITHIN_MS = 2000;
const CLIENTS = path.join(h.ROOT, 'tests/clients');

for (const pipe of [false, true]) {
  test(`Chromium SIGKILLed mid-session (${pipe ? 'pipe' : 'port'} mode): the client sees it, the wrapper ends as it did`, ALL, async (t) => {
    const puppeteer = h.client('puppeteer-core');
    const browser = await puppeteer.launch({ executablePath: h.WRAPPER_BIN, pipe, args: ['--no-sandbox'] });
    const proc = browser.process();
    const exited = new Promise((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })));
    try {
      const page = await browser.newPage();
      assert.equal(await page.evaluate(() => 1 + 1), 2, 'a session works');
      const chrome = await h.waitFor(() => wr.chromiumOf(proc.pid), { what: 'the wrapper\'s chromium' });
      const tree = [chrome, ...h.descendants(chrome)];
      const disconnected = new Promise((resolve) => browser.once('disconnected', () => resolve(Date.now())));
      const inflight = page.evaluate(() => new Promise(() => {})).catch((e) => e);
      await h.sleep(100);
      const killedAt = Date.now();
      process.kill(chrome, 'SIGKILL');
      const seen = await h.within(disconnected, WITHIN_MS + 3000);
      assert.ok(seen && seen - killedAt <= WITHIN_MS, `the client saw the browser go within ${WITHIN_MS} ms (${seen && seen - killedAt} ms)`);
      assert.ok((await inflight) instanceof Error, 'the command in flight failed');
      const end = await h.within(exited, 5000);
      t.diagnostic(`wrapper ended ${JSON.stringify(end)} ${end && end.at - killedAt} ms after the kill`);
      assert.ok(end, 'the wrapper exited');
      assert.equal(end.signal, 'SIGKILL', 'the wrapper ends as Chromium did: SIGKILL (so non-zero to a shell, 137)');
      assert.deepEqual(await wr.goneWithin(tree, WITHIN_MS), [], 'nothing of Chromium left');
      assert.deepEqual(wr.tmpdirsOf(proc.pid), [], 'no temporary directory left');
    } finally {
      await browser.close().catch(() => {});
    }
  });
}

// A client in a process of its own: launches through the wrapper, says
// READY, and waits to be killed.
const CLIENT_SCRIPTS = {
  'playwright (pipe)': `const { chromium } = require('playwright-core');
    chromium.launch({ executablePath: process.env.WRAPPER }).then(async (b) => {
      const p = await b.newPage(); await p.evaluate(() => 1); console.log('READY'); });`,
  'puppeteer (port)': `const p = require('puppeteer-core');
    p.launch({ executablePath: process.env.WRAPPER, args: ['--no-sandbox'] }).then(async (b) => {
      const pg = await b.newPage(); await pg.evaluate(() => 1); console.log('READY'); });`,
};

for (const [name, script] of Object.entries(CLIENT_SCRIPTS)) {
  test(`client SIGKILLed with its process group, ${name}: no Chromium and no temporary directory within 2 s`, ALL, async (t) => {
    const client = h.spawnTracked(process.execPath, ['-e', script], {
      cwd: CLIENTS, stdio: ['ignore', 'pipe', 'inherit'], env: wr.wrapperEnv({ WRAPPER: h.WRAPPER_BIN }),
    });
    let out = '';
    client.stdout.setEncoding('utf8').on('data', (d) => { out += d; });
    await h.waitFor(() => out.includes('READY'), { timeout: 30000, what: 'the client to be ready' });
    const wrapper = h.descendants(client.pid).find((p) => h.cmdline(p)[0] === h.WRAPPER_BIN);
    assert.ok(wrapper, 'the client started the wrapper');
    const chrome = wr.chromiumOf(wrapper);
    assert.ok(chrome, 'the wrapper started Chromium');
    const tree = [wrapper, chrome, ...h.descendants(chrome)];
    const killedAt = Date.now();
    process.kill(-client.pid, 'SIGKILL');
    const left = await wr.goneWithin(tree, WITHIN_MS);
    t.diagnostic(`${tree.length} processes; ${left.length ? `left: ${left}` : `all gone after ${Date.now() - killedAt} ms`}`);
    assert.deepEqual(left, [], `no process of the wrapper's left ${WITHIN_MS} ms after the client's SIGKILL`);
    assert.deepEqual(wr.tmpdirsOf(wrapper), [], 'no temporary directory left');
  });
}

// The pipe-mode tests below share two wrappers (a Chromium each): the one
// SIGKILLed, then the next start on its profile, which serves the others in
// turn (its CDPPROXY_CONTROL, a message over its CDPPROXY_MAX_MESSAGE, a
// client that does not read) and ends last.
const MAX_MIB = 16;    // the next wrapper's CDPPROXY_MAX_MESSAGE
const OVER_MIB = 96;   // the message with no NUL: 6 times that
// Its peak RSS: one message up to the maximum, its 16 MiB queue, pipes and
// a read buffer, in MAX_MIB + 64 MiB (less than either flood it is sent).
const PEAK_MIB = MAX_MIB + 64;
let profile, logs, w;

// Resolves, with the bytes pid read since the call, once it has read
// `least` more (/proc/PID/io rchar: Chromium is answering) and then less
// than 1 MiB in `quiet` ms: a wrapper that stopped reading Chromium.
async function readingStops(pid, least, quiet = 3000, timeout = 30000) {
  const rchar = () => Number(/rchar:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/io`, 'utf8'))[1]);
  const deadline = Date.now() + timeout;
  const base = rchar();
  let now = base, still = base, since = Date.now();
  while (now - base < least || Date.now() - since < quiet) {
    if (Date.now() > deadline) throw new Error(`wrapper ${pid}: ${now - base} bytes read, not yet still, after ${timeout} ms`);
    await h.sleep(100);
    now = rchar();
    if (now - still >= 1 << 20) { still = now; since = Date.now(); }
  }
  return now - base;
}

function peakKiB(pid) {
  return Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
}

test('the wrapper SIGKILLed: its Chromium goes within 2 s, the next start sweeps its directory', ALL, async () => {
  profile = h.tmpdir('cdpproxy-wrap-prof-');
  logs = h.tmpdir('cdpproxy-wrap-log-');
  const first = wr.spawnPipeWrapper(profile.dir, {});
  try {
    await first.write('{"id":1,"method":"Browser.getVersion"}\0');
    await h.waitFor(() => first.messages.some((m) => m.id === 1), { timeout: 20000, what: 'the first answer' });
    const chrome = wr.chromiumOf(first.child.pid);
    const tree = [chrome, ...h.descendants(chrome)];
    const dirs = wr.tmpdirsOf(first.child.pid);
    assert.equal(dirs.length, 1, 'the wrapper has its TMPDIR for Chromium');
    process.kill(first.child.pid, 'SIGKILL');
    assert.deepEqual(await wr.goneWithin(tree, WITHIN_MS), [], 'Chromium and its helpers went with the wrapper');
    w = wr.spawnPipeWrapper(profile.dir, { CDPPROXY_CONTROL: '127.0.0.1:0',
      CDPPROXY_LOG: path.join(logs.dir, 'log-%p.jsonl'), CDPPROXY_MAX_MESSAGE: `${MAX_MIB}MiB` });
    await w.write('{"id":1,"method":"Browser.getVersion"}\0');
    await h.waitFor(() => w.messages.some((m) => m.id === 1), { timeout: 20000, what: 'the next wrapper\'s answer' });
    assert.equal(fs.existsSync(dirs[0]), false, `the next start removed ${dirs[0]}`);
  } finally {
    try { process.kill(first.child.pid, 'SIGKILL'); } catch { /* gone */ }
  }
});

test('pipe mode: CDPPROXY_CONTROL serves /proxy/ and switches the policy mid-run; the message core acts on the pipe', { timeout: 120000 }, async (t) => {
  if (!w) return t.skip('no wrapper');
  const port = Number((await h.waitFor(() => /control on http:\/\/127\.0\.0\.1:(\d+)/.exec(w.stderr()),
    { timeout: 20000, what: 'the control line' }))[1]);
  const stats = await h.getJSON(`http://127.0.0.1:${port}/proxy/stats`);
  assert.equal(stats.connections.open, 1, 'the pipe is the one connection');
  assert.deepEqual(stats.methods['Browser.getVersion'].messages, [1, 1], 'its command and answer are counted');
  const put = await h.putPolicy(`http://127.0.0.1:${port}`, { name: 'no-network' });
  assert.equal(put.status, 200, `the policy switched through CDPPROXY_CONTROL: ${put.body}`);
  await w.write('{"id":2,"method":"Network.enable","params":{}}\0{"id":3,"method":"CDPProxy.getPolicy"}\0');
  const stub = await h.waitFor(() => w.messages.find((m) => m.id === 2), { timeout: 10000, what: 'the stub' });
  assert.deepEqual(stub.result, {}, `Network.enable is stubbed by the new policy: ${JSON.stringify(stub)}`);
  const inBand = await h.waitFor(() => w.messages.find((m) => m.id === 3), { timeout: 10000, what: 'CDPProxy.getPolicy' });
  assert.equal(inBand.result.name, 'no-network', 'and the CDPProxy domain answers on the pipe too');
});

test(`${OVER_MIB} MiB with no NUL on the pipe: refused at CDPPROXY_MAX_MESSAGE (${MAX_MIB} MiB), memory bounded, the next message served`, { timeout: 120000 }, async (t) => {
  if (!w) return t.skip('no wrapper');
  const chunk = Buffer.alloc(1 << 20, 'a');
  for (let i = 0; i < OVER_MIB; i++) await w.write(chunk);
  await w.write('\0{"id":4,"method":"Browser.getVersion"}\0');
  const answer = await h.waitFor(() => w.messages.find((m) => m.id === 4), { timeout: 30000, what: 'the answer after the refused message' });
  assert.match(answer.result.product, /Chrom/, 'the next message is served');
  const peak = peakKiB(w.child.pid);
  t.diagnostic(`wrapper peak RSS ${(peak / 1024).toFixed(0)} MiB`);
  // Under a sanitizer freed memory is held back on purpose.
  if (!process.env.CDPPROXY_SANITIZED)
    assert.ok(peak < PEAK_MIB * 1024, `peak RSS ${peak} KiB under max-message (${MAX_MIB} MiB) + 64 MiB`);
  assert.match(w.stderr(), new RegExp(`refused a message from the client of ${OVER_MIB << 20} bytes`), 'one stderr line says so');
  assert.ok(!w.messages.some((m) => m.error && m.id === undefined), 'Chromium saw no part of it');
});

test('a client that does not read: the wrapper\'s memory stays bounded, every answer arrives later', { timeout: 120000 }, async (t) => {
  if (!w) return t.skip('no wrapper');
  await w.write('{"id":5,"method":"Target.createTarget","params":{"url":"about:blank"}}\0');
  const target = (await h.waitFor(() => w.messages.find((m) => m.id === 5))).result.targetId;
  await w.write(`{"id":6,"method":"Target.attachToTarget","params":{"targetId":"${target}","flatten":true}}\0`);
  const session = (await h.waitFor(() => w.messages.find((m) => m.id === 6))).result.sessionId;
  w.child.stdio[4].pause();   // from now on nothing is read from fd 4
  // 1 MiB answers, more than the bound's MiB: held whole, they would break it.
  const N = PEAK_MIB + 40;
  // It stops once a cut-through answer queued behind whole ones is 1 MiB
  // ahead of its writer (READ_AHEAD): 8 to 10 MiB read here, by how many
  // answers came whole before one came in parts; two would do, so the
  // least asked is only more than the client's 1 MiB pipe holds. (It asked
  // 8 MiB, the least seen here, until CI failed this test under ASan with
  // its message lost: stopping under 8 MiB is the likely cause.)
  const reading = readingStops(w.child.pid, 2 << 20);
  reading.catch(() => {});   // (awaited below)
  for (let i = 0; i < N; i++)
    await w.write(`{"id":${100 + i},"sessionId":"${session}","method":"Runtime.evaluate","params":{"expression":"'x'.repeat(1<<20)","returnByValue":true}}\0`);
  const read = await reading;   // Chromium answered what the wrapper would read
  const peak = peakKiB(w.child.pid);
  t.diagnostic(`wrapper read ${(read / 1048576).toFixed(1)} MiB, then stopped; peak RSS ${(peak / 1024).toFixed(0)} MiB with ${N} MiB of answers unread`);
  if (!process.env.CDPPROXY_SANITIZED)
    assert.ok(peak < PEAK_MIB * 1024, `peak RSS ${peak} KiB: under ${PEAK_MIB} MiB (16 MiB queue, pipes, a read buffer)`);
  w.child.stdio[4].resume();
  await h.waitFor(() => w.messages.filter((m) => m.id >= 100).length === N, { timeout: 60000, what: `all ${N} answers` });
  assert.ok(w.messages.filter((m) => m.id >= 100).every((m) => m.result.result.value.length === 1 << 20), 'each answer whole');
});

test('closing fd 3 ends Chromium and the wrapper with 0; its log has the refusal', ALL, async (t) => {
  if (!w) return t.skip('no wrapper');
  try {
    w.child.stdio[3].end();
    const end = await h.within(w.exited, 10000);
    assert.deepEqual(end, { code: 0, signal: null }, 'closing fd 3 ends Chromium, and the wrapper with its status 0');
    const log = Object.values(wr.readLogs(logs.dir))[0] || [];
    const refused = log.filter((r) => r.kind === 'too_large');
    assert.deepEqual(refused.map((r) => [r.from, r.bytes_at_least]), [['client', OVER_MIB << 20]],
      'the log has the refusal, as a too_large record like the WebSocket proxy\'s');
    assert.deepEqual(wr.tmpdirsOf(w.child.pid), [], 'no temporary directory left');
  } finally {
    h.descendants(w.child.pid).forEach((p) => { try { process.kill(p, 'SIGKILL'); } catch { /* gone */ } });
    try { process.kill(w.child.pid, 'SIGKILL'); } catch { /* gone */ }
    profile.remove();
    logs.remove();
  }
});
