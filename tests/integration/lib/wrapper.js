// Helpers for the browser wrapper's tests (8x-wrapper-*.t): the processes a
// wrapper started, what it leaves in /tmp, and waiting for them to go.
'use strict';
const fs = require('node:fs');
const { spawn } = require('node:child_process');
const h = require('./harness');

// The real browser the wrapper `pid` started (its child, not a helper), or null.
function chromiumOf(pid) {
  return h.descendants(pid).find((p) => h.procStat(p) && h.procStat(p).ppid === pid &&
    !h.cmdline(p).some((a) => a.startsWith('--type='))) || null;
}

// The wrapper's own temporary directories: Chromium's TMPDIR, named for it.
function tmpdirsOf(pid) {
  return fs.readdirSync('/tmp').filter((d) => d.startsWith(`cdpproxy-chromium-${pid}-`)).map((d) => `/tmp/${d}`);
}

// Resolves the pids of `pids` still alive after `ms` (empty when all went).
async function goneWithin(pids, ms) {
  const until = Date.now() + ms;
  let left = pids.filter(h.alive);
  while (left.length && Date.now() < until) {
    await h.sleep(50);
    left = left.filter(h.alive);
  }
  return left.map((p) => `${p} ${h.cmdline(p).slice(0, 2).join(' ')}`);
}

// The JSON lines of every log file in dir (one per wrapper process).
function readLogs(dir) {
  const out = {};
  for (const f of fs.readdirSync(dir)) out[f] = h.readLog(`${dir}/${f}`);
  return out;
}

// The env a test gives a wrapped launch: the wrapper's config only.
function wrapperEnv(extra = {}) {
  const env = { ...process.env, ...extra };
  for (const k of Object.keys(env)) if (k.startsWith('CDPPROXY_') && !(k in extra)) delete env[k];
  return env;
}

// The wrapper on fds 3 and 4 of ours, as a pipe client starts it: its
// messages so far, a write that waits for the pipe, and onMessage(fn) to be
// told of each message as it is read (at once, not at the next poll).
function spawnPipeWrapper(profile, env) {
  const child = spawn(h.WRAPPER_BIN, [...h.CHROME_FLAGS, `--user-data-dir=${profile}`, '--remote-debugging-pipe', 'about:blank'], {
    stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'], env: wrapperEnv(env), detached: true,
  });
  let stderr = '';
  child.stdio[2].setEncoding('utf8').on('data', (d) => { stderr += d; });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  // The chunks of the message being read: each chunk is searched for its
  // NUL once and copied once (a 1 MiB answer comes in 16 of them).
  let chunks = [];
  const messages = [];
  const listeners = [];
  child.stdio[4].on('data', (d) => {
    let i;
    while ((i = d.indexOf(0)) >= 0) {
      chunks.push(d.subarray(0, i));
      const m = JSON.parse(Buffer.concat(chunks).toString());
      chunks = [];
      messages.push(m);
      d = d.subarray(i + 1);
      listeners.forEach((fn) => fn(m));
    }
    if (d.length) chunks.push(d);
  });
  const write = (data) => new Promise((resolve) => { if (child.stdio[3].write(data)) resolve(); else child.stdio[3].once('drain', resolve); });
  return { child, exited, messages, write, stderr: () => stderr, onMessage: (fn) => listeners.push(fn) };
}

module.exports = { chromiumOf, tmpdirsOf, goneWithin, readLogs, wrapperEnv, spawnPipeWrapper };
