// Integration harness: starts Debian's Chromium, cdpproxy and a local HTTP
// server on free loopback ports, stops every process it started by PID, and
// gives the tests small HTTP, WebSocket and log helpers.
//
// CDPPROXY_DIRECT=1 skips the proxy: clients talk to Chromium straight, and
// proxy-only assertions are skipped (for checking the client code paths).
// CDPPROXY_BIN overrides build/cdpproxy; CHROMIUM overrides /usr/bin/chromium.
'use strict';
const { spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { createRequire } = require('node:module');

const ROOT = path.resolve(__dirname, '../../..');
// Absolute, so that a test that runs it from another directory finds it too.
const PROXY_BIN = path.resolve(ROOT, process.env.CDPPROXY_BIN || 'build/cdpproxy');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
// The browser wrapper a client launches as if it were Chromium, built beside the proxy.
const WRAPPER_BIN = path.resolve(path.dirname(PROXY_BIN), 'cdpproxy-chromium');
const DIRECT = process.env.CDPPROXY_DIRECT === '1';
const CHROME_FLAGS = require('../../../tools/common/chromium-flags.js');
const clientRequire = createRequire(path.join(ROOT, 'tests/clients/package.json'));

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Emergency cleanup: every started process and temp dir is registered here and
// killed/removed synchronously on exit, whatever way the test ends.
const cleanups = new Set();
function cleanupAllSync() {
  for (const fn of [...cleanups].reverse()) {
    try { fn(); } catch { /* best effort on the way out */ }
    cleanups.delete(fn);
  }
}
process.on('exit', cleanupAllSync);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => { cleanupAllSync(); process.exit(128 + os.constants.signals[sig]); });
}

// A client package from tests/clients (installed by `npm ci` there).
function client(name) {
  try {
    return clientRequire(name);
  } catch (e) {
    throw new Error(`cannot load ${name} from tests/clients: run \`npm ci\` in tests/clients (${e.message})`);
  }
}

function tmpdir(prefix) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const rm = () => fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  cleanups.add(rm);
  return { dir, remove: () => { cleanups.delete(rm); rm(); } };
}

// Polls fn until it returns a truthy value (returned) or timeout (throws);
// what (a string, or a function called at the timeout) says what for.
async function waitFor(fn, { timeout = 5000, interval = 50, what = 'condition' } = {}) {
  const deadline = Date.now() + timeout;
  let lastErr;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) { lastErr = e; }
    if (Date.now() > deadline) {
      const why = typeof what === 'function' ? what() : what;
      throw new Error(`timed out after ${timeout} ms waiting for ${why}${lastErr ? `: ${lastErr.message}` : ''}`);
    }
    await sleep(interval);
  }
}

// Resolves what promise resolves, or null if ms pass first. Its timer is
// cleared either way: a race with sleep(ms) leaves one pending, and a
// pending timer keeps a test file's process alive after its last test
// (88-wrapper-ends ended 20 s after its last test on such a sleep).
function within(promise, ms) {
  let timer;
  const late = new Promise((resolve) => { timer = setTimeout(() => resolve(null), ms); });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

// --- /proc helpers -----------------------------------------------------------

// ticks: CPU time (user + system) so far, in 1/100 s.
function procStat(pid) {
  try {
    const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return { pid, state: rest[0], ppid: Number(rest[1]), pgid: Number(rest[2]),
      ticks: Number(rest[11]) + Number(rest[12]) };
  } catch { return null; }
}

function rssKiB(pid) {
  return Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
}

// True if pid exists and is not a zombie (zombies hold no resources but a slot).
function alive(pid) {
  const st = procStat(pid);
  return !!st && st.state !== 'Z' && st.state !== 'X';
}

function allPids() {
  return fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number);
}

function cmdline(pid) {
  try { return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean); } catch { return []; }
}

// The environment pid was started with, as NAME=VALUE strings ([] if gone).
function environ(pid) {
  try { return fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean); } catch { return []; }
}

// Live descendants of pid (children, grandchildren, ...).
function descendants(pid) {
  const stats = allPids().map(procStat).filter(Boolean);
  const out = [];
  let frontier = [pid];
  while (frontier.length) {
    const next = stats.filter((s) => frontier.includes(s.ppid) && s.state !== 'Z').map((s) => s.pid);
    out.push(...next);
    frontier = next;
  }
  return out;
}

// Live members of process group pgid.
function groupMembers(pgid) {
  return allPids().map(procStat).filter((s) => s && s.pgid === pgid && s.state !== 'Z').map((s) => s.pid);
}

function killQuiet(pid, sig) {
  try { process.kill(pid, sig); return true; } catch { return false; }
}

// Waits for a ChildProcess to exit; resolves {code, signal} or null on timeout.
function waitExit(child, timeout) {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve) => {
    const timer = setTimeout(() => { child.off('exit', onExit); resolve(null); }, timeout);
    function onExit(code, signal) { clearTimeout(timer); resolve({ code, signal }); }
    child.once('exit', onExit);
  });
}

// Keeps the last `max` bytes of a stream as text.
function tail(stream, max = 64 * 1024) {
  let buf = '';
  stream.setEncoding('utf8');
  stream.on('data', (d) => { buf += d; if (buf.length > 2 * max) buf = buf.slice(-max); });
  return () => buf.slice(-max);
}

// SIGKILLs pid's descendants (in whatever group) and the group pid leads.
function killTree(pid) {
  for (const p of descendants(pid)) killQuiet(p, 'SIGKILL');
  killQuiet(-pid, 'SIGKILL');
}

// spawn() for a test's own helper process (cdp-echo, cdpbench, a proxy run
// to completion): in a group of its own and registered for the emergency
// cleanup, so that it and what it started go if the test ends first.
function spawnTracked(cmd, args, opts = {}) {
  const child = spawn(cmd, args, { ...opts, detached: true });
  const kill = () => killTree(child.pid);
  cleanups.add(kill);
  // Once it has exited, what it started in its group is still killed at the end.
  child.once('exit', () => { cleanups.delete(kill); cleanups.add(() => killQuiet(-child.pid, 'SIGKILL')); });
  return child;
}

// A fresh cdp-echo on a free port: { echo, port }.
async function startEcho() {
  const echo = spawnTracked(path.join(path.dirname(PROXY_BIN), 'cdp-echo'), ['--listen', '127.0.0.1:0'],
    { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  echo.stdout.on('data', (d) => { out += d; });
  echo.stderr.on('data', (d) => { out += d; });
  const port = await waitFor(() => Number((/listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out) || [])[1]),
    { what: 'cdp-echo to listen' });
  return { echo, port };
}

// --- Chromium ----------------------------------------------------------------

// Starts headless Chromium on --remote-debugging-port=0 in its own process
// group and reads the port from <profile>/DevToolsActivePort.
async function startChrome({ args = [], timeout = 20000 } = {}) {
  const profile = tmpdir('cdpproxy-chrome-');
  const child = spawn(CHROMIUM, [
    ...CHROME_FLAGS, `--user-data-dir=${profile.dir}`, '--remote-debugging-port=0', ...args,
  ], {
    detached: true, stdio: ['ignore', 'ignore', 'pipe'],
    // Its singleton socket's directory goes in TMPDIR and stays: keep it in the profile.
    env: { ...process.env, TMPDIR: profile.dir },
  });
  const pgid = child.pid;
  const killGroup = () => { killQuiet(-pgid, 'SIGKILL'); };
  cleanups.add(killGroup);
  const stderr = tail(child.stderr);
  let exited = null;
  child.once('exit', (code, signal) => { exited = { code, signal }; });

  const portFile = path.join(profile.dir, 'DevToolsActivePort');
  let port, browserPath;
  try {
    await waitFor(() => {
      if (exited) throw new Error(`chromium exited early (${JSON.stringify(exited)}): ${stderr()}`);
      const lines = fs.readFileSync(portFile, 'utf8').split('\n');
      if (!/^\d+$/.test(lines[0]) || !lines[1]) return false;
      [port, browserPath] = [Number(lines[0]), lines[1]];
      return true;
    }, { timeout, what: `${portFile}` });
  } catch (e) {
    killGroup();
    throw e;
  }

  // SIGTERM the group, SIGKILL it after `grace`, then remove the profile.
  async function stop({ grace = 5000 } = {}) {
    killQuiet(-pgid, 'SIGTERM');
    const res = await waitExit(child, grace);
    if (!res) killQuiet(-pgid, 'SIGKILL');
    await waitExit(child, 5000);
    // Helpers of a dead browser exit by themselves; make sure.
    try {
      await waitFor(() => groupMembers(pgid).length === 0, { timeout: 3000, what: 'chromium group to exit' });
    } catch { killQuiet(-pgid, 'SIGKILL'); }
    cleanups.delete(killGroup);
    profile.remove();
    return res;
  }

  return {
    pid: child.pid, pgid, port, profile: profile.dir, child,
    httpURL: `http://127.0.0.1:${port}`,
    wsURL: `ws://127.0.0.1:${port}${browserPath}`,
    stderr, stop,
    exited: () => exited,
  };
}

// --- cdpproxy ----------------------------------------------------------------

// Starts build/cdpproxy on 127.0.0.1:0 with a JSON-lines log and waits for its
// "listening on http://127.0.0.1:PORT" line on stderr. Either upstreamPort
// (an already running Chromium) or launch: true (the proxy starts Chromium;
// a string is the Chromium to start: --launch=PATH).
async function startProxy({ upstreamPort, launch = false, args = [], timeout = 20000 } = {}) {
  if (!fs.existsSync(PROXY_BIN)) {
    throw new Error(`${PROXY_BIN} not found: build it (make) or set CDPPROXY_DIRECT=1 to test clients against Chromium only`);
  }
  const dir = tmpdir('cdpproxy-test-');
  const logPath = path.join(dir.dir, 'log.jsonl');
  const argv = ['--listen', '127.0.0.1:0'];
  if (launch) argv.unshift(typeof launch === 'string' ? `--launch=${launch}` : '--launch');
  else argv.push('--upstream', `127.0.0.1:${upstreamPort}`);
  argv.push('--log', logPath, ...args);

  // CDPPROXY_WRAP runs the proxy under a tool (make valgrind).
  const wrap = (process.env.CDPPROXY_WRAP || '').split(' ').filter(Boolean);
  const child = wrap.length
    ? spawn(wrap[0], [...wrap.slice(1), PROXY_BIN, ...argv], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(PROXY_BIN, argv, { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const pgid = child.pid;
  let stderrAll = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d) => { stderrAll += d; if (stderrAll.length > 4 << 20) stderrAll = stderrAll.slice(-(1 << 20)); });
  const stdout = tail(child.stdout);
  let exited = null;
  child.once('exit', (code, signal) => { exited = { code, signal }; });
  const killAll = () => killTree(pgid);
  cleanups.add(killAll);

  let port;
  try {
    port = await waitFor(() => {
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(stderrAll);
      if (m) return Number(m[1]);
      if (exited) throw new Error(`cdpproxy exited early (${JSON.stringify(exited)}): ${stderrAll}`);
      return false;
    }, { timeout, what: 'cdpproxy "listening on" line' });
  } catch (e) {
    killAll();
    throw e;
  }

  // SIGTERM the proxy itself (not its group: it must stop what it started)
  // and wait. Returns {code, signal, stderr, leftover: pids of descendants
  // still alive after it exited (which are then killed)}.
  async function stop({ grace = 10000 } = {}) {
    const before = descendants(child.pid);
    killQuiet(child.pid, 'SIGTERM');
    let res = await waitExit(child, grace);
    const timedOut = !res;
    if (timedOut) {
      killQuiet(child.pid, 'SIGKILL');
      res = await waitExit(child, 5000);
    }
    let leftover = [];
    try {
      await waitFor(() => before.every((p) => !alive(p)), { timeout: 5000, what: 'proxy children to exit' });
    } catch {
      leftover = before.filter(alive).map((p) => ({ pid: p, cmd: cmdline(p).slice(0, 3).join(' ') }));
    }
    killAll();
    cleanups.delete(killAll);
    return { ...res, timedOut, stderr: stderrAll, stdout: stdout(), leftover };
  }

  return {
    pid: child.pid, port, logPath, dir: dir.dir, child,
    httpURL: `http://127.0.0.1:${port}`,
    stderr: () => stderrAll, stop, removeDir: dir.remove,
    exited: () => exited,
  };
}

// --- local HTTP server -------------------------------------------------------

const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>cdpproxy test page</title></head>
<body><h1 id="greeting">hello from the test server</h1>
<script>window.pageMarker = 'cdpproxy-' + (6 * 7);</script></body></html>
`;

// Serves GET / (PAGE), GET /data.json ({"source":"server"}) and POST /echo
// (answers {bytes, sha256, header}); records every request it sees.
function startServer() {
  const requests = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const url = new URL(req.url, 'http://x');
      requests.push({ method: req.method, path: url.pathname, headers: req.headers, bytes: body.length });
      if (req.method === 'GET' && url.pathname === '/') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(PAGE);
      } else if (req.method === 'GET' && url.pathname === '/data.json') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ source: 'server' }));
      } else if (req.method === 'POST' && url.pathname === '/echo') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({
          bytes: body.length,
          sha256: crypto.createHash('sha256').update(body).digest('hex'),
          header: req.headers['x-cdpproxy-test'] || null,
        }));
      } else {
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('not found');
      }
    });
  });
  server.keepAliveTimeout = 1000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      const close = () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); });
      resolve({ port, url: `http://127.0.0.1:${port}/`, requests, server, close });
    });
  });
}

// --- HTTP, log and WebSocket helpers -----------------------------------------

// One HTTP request; resolves {status, headers, body (string)}.
function httpRequest(url, { method = 'GET', headers = {}, body, timeout = 10000 } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent: false, timeout }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${url}: timed out after ${timeout} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

// GET (or opts.method) url and parse JSON; throws unless status 200.
async function getJSON(url, opts) {
  const res = await httpRequest(url, opts);
  if (res.status !== 200) throw new Error(`${(opts && opts.method) || 'GET'} ${url}: status ${res.status}: ${res.body.slice(0, 200)}`);
  try {
    return JSON.parse(res.body);
  } catch (e) {
    throw new Error(`${url}: invalid JSON (${e.message}): ${res.body.slice(0, 200)}`);
  }
}

// The log's JSON lines as objects (a partial last line is ignored: the proxy
// may be mid-write).
function readLog(file) {
  const text = fs.readFileSync(file, 'utf8');
  const lines = text.split('\n');
  const last = lines.pop();
  const out = lines.filter((l) => l.trim() !== '').map((l, i) => {
    try { return JSON.parse(l); } catch (e) { throw new Error(`${file}:${i + 1}: ${e.message}: ${l.slice(0, 200)}`); }
  });
  if (last.trim() !== '') {
    try { out.push(JSON.parse(last)); } catch { /* incomplete */ }
  }
  return out;
}

// The records of the log at file once pred(records) holds (the proxy writes
// each loop round's records before it forwards them); waitFor's error after `timeout`.
function waitForLog(file, pred, what, timeout = 5000) {
  return waitFor(() => { const l = readLog(file); return pred(l) && l; }, { what, timeout });
}

// Opens a raw WebSocket; resolves once open. opts go to `ws`.
function wsConnect(url, opts = {}) {
  const WebSocket = client('ws');
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: 512 << 20, ...opts });
    ws.once('open', () => { ws.off('error', reject); resolve(ws); });
    ws.once('error', reject);
  });
}

// Minimal CDP client over a raw `ws` socket: send() resolves with the whole
// response (result or error), closed resolves {code, reason, at}.
class RawCDP {
  static async connect(url, opts) {
    return new RawCDP(await wsConnect(url, opts));
  }

  constructor(ws) {
    this.ws = ws;
    this.nextId = 1;
    this.pending = new Map();
    this.events = [];
    this.closeInfo = null;
    this.closed = new Promise((resolve) => {
      ws.once('close', (code, reason) => {
        const info = { code, reason: reason.toString(), at: Date.now() };
        this.closeInfo = info;
        for (const p of this.pending.values()) p.reject(Object.assign(new Error(`connection closed (${code} ${info.reason})`), { close: info }));
        this.pending.clear();
        resolve(info);
      });
    });
    ws.on('error', () => { /* surfaced through close */ });
    ws.on('message', (data) => {
      const msg = JSON.parse(data.toString());
      if (msg.id !== undefined && this.pending.has(msg.id)) {
        const p = this.pending.get(msg.id);
        this.pending.delete(msg.id);
        p.resolve(msg);
      } else if (msg.method) {
        this.events.push(msg);
      }
    });
  }

  // Resolves the full response message; rejects if the connection closes.
  send(method, params = {}, sessionId) {
    const id = this.nextId++;
    const msg = { id, method, params };
    if (sessionId) msg.sessionId = sessionId;
    return new Promise((resolve, reject) => {
      if (this.ws.readyState !== this.ws.OPEN) {
        reject(Object.assign(new Error(`${method}: connection not open (readyState ${this.ws.readyState}, ` +
          `close ${this.closeInfo ? `${this.closeInfo.code} ${this.closeInfo.reason}` : 'pending'})`), { close: this.closeInfo }));
        return;
      }
      this.pending.set(id, { resolve, reject });
      this.ws.send(JSON.stringify(msg), (err) => { if (err) { this.pending.delete(id); reject(err); } });
    });
  }

  // Like send() but returns result, throwing on a CDP error.
  async call(method, params, sessionId) {
    const r = await this.send(method, params, sessionId);
    if (r.error) throw new Error(`${method}: CDP error ${JSON.stringify(r.error)}`);
    return r.result;
  }

  close() {
    this.ws.close();
    return this.closed;
  }
}

// The environment most tests want: Chromium, the proxy in front of it (unless
// CDPPROXY_DIRECT=1) and the local server. `endpoint` is the http://host:port
// clients should use. teardown() stops the proxy (returning its result) and
// everything else.
async function setup({ proxyArgs = [], server = true } = {}) {
  const env = { direct: DIRECT };
  try {
    env.chrome = await startChrome();
    if (server) env.server = await startServer();
    if (!DIRECT) env.proxy = await startProxy({ upstreamPort: env.chrome.port, args: proxyArgs });
  } catch (e) {
    await teardownEnv(env);
    throw e;
  }
  env.endpoint = DIRECT ? env.chrome.httpURL : env.proxy.httpURL;
  env.port = DIRECT ? env.chrome.port : env.proxy.port;
  env.stopProxy = async () => {
    if (!env.proxy || env.proxyResult) return env.proxyResult;
    env.proxyResult = await env.proxy.stop();
    return env.proxyResult;
  };
  env.teardown = () => teardownEnv(env);
  return env;
}

async function teardownEnv(env) {
  if (env.proxy && !env.proxyResult) env.proxyResult = await env.proxy.stop();
  if (env.proxy) env.proxy.removeDir();
  if (env.server) await env.server.close();
  if (env.chrome) await env.chrome.stop();
  return env.proxyResult;
}

// Assertions common to every test after the proxy is stopped: exit 0 on
// SIGTERM, nothing it started left running, and a 0600 log of valid records.
const MESSAGE_KINDS = ['command', 'response', 'event', 'other', 'binary', 'invalid'];
function checkProxyExit(assert, result, logPath, { expectRecords = true } = {}) {
  assert.ok(result, 'proxy was started');
  assert.strictEqual(result.timedOut, false, `proxy exited within the grace period after SIGTERM; stderr:\n${result.stderr}`);
  assert.strictEqual(result.code, 0, `proxy exit code 0 after SIGTERM (signal ${result.signal}); stderr:\n${result.stderr}`);
  assert.deepStrictEqual(result.leftover, [], 'no process started by the proxy outlives it');
  const mode = fs.statSync(logPath).mode & 0o777;
  assert.strictEqual(mode.toString(8), '600', 'log file mode is 0600');
  const records = readLog(logPath);
  if (expectRecords) assert.ok(records.length > 0, 'log has records');
  for (const r of records) {
    const s = JSON.stringify(r).slice(0, 300);
    assert.strictEqual(typeof r.t, 'number', `record has numeric t: ${s}`);
    assert.strictEqual(typeof r.conn, 'number', `record has numeric conn: ${s}`);
    if (r.dir !== undefined) {
      assert.ok(r.dir === 'up' || r.dir === 'down', `dir is up|down: ${s}`);
      assert.ok(MESSAGE_KINDS.includes(r.kind), `message kind is one of ${MESSAGE_KINDS}: ${s}`);
      assert.strictEqual(typeof r.bytes, 'number', `message record has bytes: ${s}`);
    } else if (r.kind === 'open') {
      assert.strictEqual(typeof r.path, 'string', `open record has a path: ${s}`);
    } else if (r.kind === 'close') {
      assert.strictEqual(typeof r.code, 'number', `close record has a code: ${s}`);
      assert.ok(['client', 'upstream', 'proxy'].includes(r.by), `close record's by is client|upstream|proxy: ${s}`);
    }
  }
  return records;
}

// The close records of one connection (the proxy may log one per side).
function closesOf(records, conn) {
  return records.filter((r) => r.kind === 'close' && r.conn === conn);
}

function sha256(data) {
  return crypto.createHash('sha256').update(data).digest('hex');
}

// PUT /proxy/policy with body (an object, or text as it is): the reply with
// its JSON parsed.
async function putPolicy(endpoint, body) {
  const r = await httpRequest(`${endpoint}/proxy/policy`, {
    method: 'PUT', headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { ...r, json: JSON.parse(r.body) };
}

// Raw WebSocket pieces for floods a client library would not send.
// A client's frame, FIN set and masked as a client's must be: opcode (1
// text, 9 ping...) and payload (a Buffer or a string) of under 64 KiB.
function wsClientFrame(opcode, payload) {
  const mask = crypto.randomBytes(4);
  const body = Buffer.from(payload);
  const head = body.length < 126 ? Buffer.from([0x80 | opcode, 0x80 | body.length])
    : Buffer.from([0x80 | opcode, 0x80 | 126, body.length >> 8, body.length & 255]);
  for (let i = 0; i < body.length; i++) body[i] ^= mask[i & 3];
  return Buffer.concat([head, mask, body]);
}

// A WebSocket to port's wsPath on a raw socket: resolves the socket after
// the 101. paused: nothing is read after it (the client that never reads).
function rawUpgrade(port, wsPath, { paused = false } = {}) {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1');
    let head = '';
    s.on('error', reject);
    s.on('connect', () => s.write(`GET ${wsPath} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
      'Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n' +
      `Sec-WebSocket-Key: ${crypto.randomBytes(16).toString('base64')}\r\n\r\n`));
    const onData = (d) => {
      head += d.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      s.off('data', onData);
      if (paused) s.pause();
      if (!head.startsWith('HTTP/1.1 101')) reject(new Error(`upgrade refused: ${head.split('\r\n')[0]}`));
      else resolve(s);
    };
    s.on('data', onData);
  });
}

// Frames off a raw socket (from rawUpgrade), unmasked (the proxy's frames to a client are not
// masked): resolves [{opcode, payload}] once `count` data frames are in. A
// large payload's chunks are kept as they come and joined once.
function readFrames(sock, count) {
  const frames = [];
  let head = Buffer.alloc(0), parts = [], need = -1, opcode = 0;
  return new Promise((resolve, reject) => {
    sock.on('error', reject);
    sock.on('close', () => reject(new Error(`closed after ${frames.length} frames`)));
    sock.on('data', (d) => {
      while (d.length) {
        if (need < 0) {   // a header, so far in head
          head = head.length ? Buffer.concat([head, d]) : d;
          if (head.length < 2) return;
          let len = head[1] & 127, off = 2;
          if (len === 126) { if (head.length < 4) return; len = head.readUInt16BE(2); off = 4; }
          else if (len === 127) { if (head.length < 10) return; len = Number(head.readBigUInt64BE(2)); off = 10; }
          opcode = head[0] & 15;
          need = len;
          d = head.subarray(off);
          head = Buffer.alloc(0);
        }
        const take = Math.min(need, d.length);
        parts.push(d.subarray(0, take));
        need -= take;
        d = d.subarray(take);
        if (need === 0) {
          frames.push({ opcode, payload: Buffer.concat(parts) });
          parts = [];
          need = -1;
          if (frames.length === count) return resolve(frames);
        }
      }
    });
    sock.resume();
  });
}

// Sends count commands {"id": firstId + i, "method": methodAt(i)} over sock
// (from rawUpgrade), in batches of 500 with at most 4000 unanswered (the
// peer, cdp-echo through the proxy, answers each with one unmasked frame);
// resolves when every one is answered.
function floodCommands(sock, count, methodAt, firstId = 1) {
  const WINDOW = 4000, BATCH = 500;
  let sent = 0, answered = 0, buf = Buffer.alloc(0);
  return new Promise((resolve, reject) => {
    const more = () => {
      while (sent < count && sent - answered < WINDOW) {
        const frames = [];
        for (let i = 0; i < BATCH && sent < count; i++, sent++) {
          frames.push(wsClientFrame(0x1, `{"id":${firstId + sent},"method":"${methodAt(sent)}"}`));
        }
        sock.write(Buffer.concat(frames));
      }
    };
    const onData = (d) => {
      buf = buf.length ? Buffer.concat([buf, d]) : d;
      let off = 0;
      for (;;) {
        if (buf.length - off < 2) break;
        let len = buf[off + 1] & 127, headLen = 2;
        if (len === 126) { if (buf.length - off < 4) break; len = buf.readUInt16BE(off + 2); headLen = 4; }
        else if (len === 127) { if (buf.length - off < 10) break; len = Number(buf.readBigUInt64BE(off + 2)); headLen = 10; }
        if (buf.length - off < headLen + len) break;
        off += headLen + len;
        answered++;
      }
      buf = buf.subarray(off);
      if (answered < count) { more(); return; }
      sock.off('data', onData);
      sock.off('close', onClose);
      sock.off('error', reject);
      resolve();
    };
    const onClose = () => reject(new Error(`closed after ${answered} answers`));
    sock.on('data', onData);
    sock.on('close', onClose);
    sock.on('error', reject);
    more();
  });
}

module.exports = {
  ROOT, PROXY_BIN, WRAPPER_BIN, CHROMIUM, CHROME_FLAGS, DIRECT,
  client, tmpdir, sleep, within, waitFor,
  procStat, rssKiB, alive, descendants, cmdline, environ, allPids,
  startChrome, startProxy, startServer, setup, spawnTracked, startEcho,
  httpRequest, getJSON, putPolicy, readLog, waitForLog, wsConnect, RawCDP,
  checkProxyExit, closesOf, sha256, wsClientFrame, rawUpgrade, readFrames, floodCommands,
};
