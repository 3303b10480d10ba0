#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 8: how a wrapper's session ends (issue 33.1). Killed: chrome-launcher
// (Lighthouse) ends the browser with SIGKILL to its process group, and
// ChromeDriver's default quit kills it too: whatever the wrapper forwarded
// must be in CDPPROXY_LOG by then. A known sequence of commands, the last
// six sent at once; on the last answer, at once (in the handler that reads
// it), SIGKILL to the wrapper's process group; then every command and every
// answer is in the log, and every line of it, the last included, is a whole
// record. Port mode and pipe mode. Closed: ChromeDriver with --user-data-dir
// sends Browser.close and then reads nothing until the browser's process is
// gone; the wrapper must not wait for it to answer the close frame it is
// sent (it waited a second, so the quit took 1.2 s longer than direct).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { test } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./lib/harness');
const wr = require('./lib/wrapper');

const ALL = { timeout: 90000 };
const LAST = 6;   // sent together at the end, as ChromeDriver's last six

// Every line of the log at file parsed; a line that does not parse, or a last
// line without its '\n', fails the test.
function wholeRecords(file) {
  const text = fs.readFileSync(file, 'utf8');
  assert.ok(text.endsWith('\n'), `the log ends with a whole line: ...${JSON.stringify(text.slice(-120))}`);
  return text.slice(0, -1).split('\n').map((l, i) => {
    try { return JSON.parse(l); } catch (e) { assert.fail(`line ${i + 1} is not a whole record (${e.message}): ${l.slice(0, 200)}`); }
  });
}

// Runs the sequence over a connection { send(obj), onMessage(fn) } to the
// wrapper `pid` and kills its group with SIGKILL from within the handler of
// the last answer. Resolves the commands sent and the wrapper's Chromium
// processes as they were before the kill.
async function driveAndKill(conn, pid) {
  const sent = [];
  const waiting = new Map();
  let killAfter = 0;
  conn.onMessage((m) => {
    if (m.id === undefined || !waiting.has(m.id)) return;
    const done = waiting.get(m.id);
    waiting.delete(m.id);
    if (killAfter && --killAfter === 0) process.kill(-pid, 'SIGKILL');
    done(m);
  });
  const call = (method, params = {}, sessionId) => {
    const msg = { id: sent.length + 1, method, params, ...(sessionId ? { sessionId } : {}) };
    sent.push(msg);
    return new Promise((resolve) => { waiting.set(msg.id, resolve); conn.send(msg); });
  };
  await call('Browser.getVersion');
  await call('Target.getTargets');
  const { result: { targetId } } = await call('Target.createTarget', { url: 'about:blank' });
  const { result: { sessionId } } = await call('Target.attachToTarget', { targetId, flatten: true });
  await call('Runtime.enable', {}, sessionId);
  const chrome = wr.chromiumOf(pid);
  const tree = [chrome, ...h.descendants(chrome)];
  killAfter = LAST;
  const last = [];
  for (let i = 0; i < LAST; i++) last.push(call('Runtime.evaluate', { expression: `${i} + 1` }, sessionId));
  const answers = await h.within(Promise.all(last), 20000);
  assert.ok(answers, 'the last commands were answered');
  return { sent, tree };
}

// The log's records of the connection that carried `sent`: each command up
// and each answer down, once, in the log.
function checkLogged(t, records, sent) {
  const mine = records.filter((r) => r.dir && sent.some((m) => m.id === r.id));
  const missing = sent.filter((m) => !records.some((r) => r.dir === 'up' && r.kind === 'command' && r.id === m.id && r.method === m.method));
  const unanswered = sent.filter((m) => !records.some((r) => r.dir === 'down' && r.kind === 'response' && r.id === m.id));
  t.diagnostic(`${records.length} records; ${sent.length - missing.length} of ${sent.length} commands and ` +
    `${sent.length - unanswered.length} answers logged`);
  assert.deepEqual(missing.map((m) => `${m.id} ${m.method}`), [], 'every command forwarded is in the log');
  assert.deepEqual(unanswered.map((m) => `${m.id} ${m.method}`), [], 'and every answer forwarded');
  assert.ok(mine.length >= 2 * sent.length, 'each as a message record');
}

// After the kill: the wrapper ended by SIGKILL and nothing of it left.
async function afterKill(child, exited, tree) {
  const end = await h.within(exited, 5000);
  assert.deepEqual(end && end.signal, 'SIGKILL', 'the wrapper was killed');
  assert.deepEqual(await wr.goneWithin(tree, 2000), [], 'nothing of Chromium left');
  // What a SIGKILLed wrapper cannot remove (the next start would).
  for (const d of wr.tmpdirsOf(child.pid)) fs.rmSync(d, { recursive: true, force: true });
}

test('port mode: SIGKILL to the group on the last answer: every command and answer in the log, whole lines', ALL, async (t) => {
  const dir = h.tmpdir('cdpproxy-wrap-kill-');
  const log = path.join(dir.dir, 'log.jsonl');
  const child = spawn(h.WRAPPER_BIN, [...h.CHROME_FLAGS, `--user-data-dir=${path.join(dir.dir, 'profile')}`, '--remote-debugging-port=0'], {
    stdio: ['ignore', 'ignore', 'pipe'], detached: true, env: wr.wrapperEnv({ CDPPROXY_LOG: log }),
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d; });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  try {
    const m = await h.waitFor(() => /^DevTools listening on (ws:\/\/\S+)$/m.exec(stderr), { timeout: 20000, what: 'the DevTools line' });
    const ws = await h.wsConnect(m[1]);
    ws.on('error', () => {});
    const { sent, tree } = await driveAndKill({
      send: (msg) => ws.send(JSON.stringify(msg)),
      onMessage: (fn) => ws.on('message', (d) => fn(JSON.parse(d.toString()))),
    }, child.pid);
    await afterKill(child, exited, tree);
    checkLogged(t, wholeRecords(log), sent);
  } finally {
    h.descendants(child.pid).forEach((p) => { try { process.kill(p, 'SIGKILL'); } catch { /* gone */ } });
    try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ }
    dir.remove();
  }
});

test('pipe mode: SIGKILL to the group on the last answer: every command and answer in the log, whole lines', ALL, async (t) => {
  const dir = h.tmpdir('cdpproxy-wrap-kill-');
  const log = path.join(dir.dir, 'log.jsonl');
  fs.mkdirSync(path.join(dir.dir, 'profile'));
  const w = wr.spawnPipeWrapper(path.join(dir.dir, 'profile'), { CDPPROXY_LOG: log });
  try {
    const { sent, tree } = await driveAndKill({
      send: (msg) => { w.write(`${JSON.stringify(msg)}\0`); },
      onMessage: w.onMessage,
    }, w.child.pid);
    await afterKill(w.child, w.exited, tree);
    checkLogged(t, wholeRecords(log), sent);
  } finally {
    h.descendants(w.child.pid).forEach((p) => { try { process.kill(p, 'SIGKILL'); } catch { /* gone */ } });
    try { process.kill(-w.child.pid, 'SIGKILL'); } catch { /* gone */ }
    dir.remove();
  }
});

test('port mode: Browser.close from a client that then reads nothing: the wrapper ends with Chromium, not a second later', ALL, async (t) => {
  const dir = h.tmpdir('cdpproxy-wrap-close-');
  const log = path.join(dir.dir, 'log.jsonl');
  const child = spawn(h.WRAPPER_BIN, [...h.CHROME_FLAGS, `--user-data-dir=${path.join(dir.dir, 'profile')}`, '--remote-debugging-port=0'], {
    stdio: ['ignore', 'ignore', 'pipe'], detached: true, env: wr.wrapperEnv({ CDPPROXY_LOG: log }),
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d; });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })));
  try {
    const m = await h.waitFor(() => /^DevTools listening on (ws:\/\/\S+)$/m.exec(stderr), { timeout: 20000, what: 'the DevTools line' });
    const cdp = await h.RawCDP.connect(m[1]);
    await cdp.call('Target.getTargets');
    const chrome = wr.chromiumOf(child.pid);
    await cdp.call('Browser.close');
    cdp.ws._socket.pause();   // as ChromeDriver: nothing read from now on
    let chromeGone = null;
    while (!chromeGone) {
      if (!h.alive(chrome)) chromeGone = Date.now();
      else await h.sleep(10);
    }
    const end = await h.within(exited, 10000);
    assert.ok(end, 'the wrapper exited');
    t.diagnostic(`the wrapper exited ${end.at - chromeGone} ms after Chromium (${JSON.stringify(end)})`);
    // It waited STOP_GRACE_US (1 s) for an answer that could not come.
    assert.ok(end.at - chromeGone < 700, `the wrapper ended within 700 ms of Chromium: ${end.at - chromeGone} ms`);
    const closes = h.readLog(log).filter((r) => r.kind === 'close');
    assert.deepEqual(closes.map((r) => r.side).sort(), ['client', 'upstream'], 'both sides\' closes are logged');
    cdp.ws._socket.resume();
  } finally {
    h.descendants(child.pid).forEach((p) => { try { process.kill(p, 'SIGKILL'); } catch { /* gone */ } });
    try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ }
    dir.remove();
  }
});
