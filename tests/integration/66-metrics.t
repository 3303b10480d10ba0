#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// GET /proxy/metrics as Prometheus reads it, and the wrapper's push to a
// Pushgateway at exit: Debian's real prometheus scrapes the proxy while a
// Playwright session runs through it, and its HTTP API gives the same
// Network.enable count and bytes by domain as /proxy/stats; promtool
// passes the output; 10,000 distinct method names (40 times the 256 the
// stats name before they pool the rest; 74-floods sends a million to
// /proxy/stats) leave the endpoint as long as before and fast; a wrapper under Playwright's launch pushes its
// totals to Debian's prometheus-pushgateway, and a dead gateway costs one
// stderr line and a log record, never the exit status. Every server here
// is ours, on a free loopback port, stopped by PID.
'use strict';
const { test, after } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const h = require('./lib/harness');
const wr = require('./lib/wrapper');

const ALL = { timeout: 180000, skip: h.DIRECT && 'CDPPROXY_DIRECT=1' };
const PROMETHEUS = '/usr/bin/prometheus';
const PUSHGATEWAY = '/usr/bin/prometheus-pushgateway';
const PROMTOOL = '/usr/bin/promtool';

// A loopback port nobody listens on now.
function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

// Starts a Prometheus server binary (argv gets --web.listen-address) on a
// free port and waits for /-/ready: {url, stop}. stop() SIGTERMs it by PID,
// SIGKILLs it after 10 s, and removes its directory.
async function startServerBinary(bin, argv, dir) {
  const port = await freePort();
  const child = h.spawnTracked(bin, [...argv, `--web.listen-address=127.0.0.1:${port}`],
    { cwd: dir.dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const stderr = [];
  child.stderr.setEncoding('utf8').on('data', (d) => { stderr.push(d); });
  let exited = null;
  child.once('exit', (code, signal) => { exited = { code, signal }; });
  const url = `http://127.0.0.1:${port}`;
  await h.waitFor(async () => {
    if (exited) throw new Error(`${bin} exited ${JSON.stringify(exited)}: ${stderr.join('').slice(-2000)}`);
    return (await h.httpRequest(`${url}/-/ready`, { timeout: 1000 })).status === 200;
  }, { timeout: 30000, what: `${path.basename(bin)} ready` });
  return {
    url, pid: child.pid,
    async stop() {
      try { process.kill(child.pid, 'SIGTERM'); } catch { /* gone */ }
      if (!exited && !(await waitExit(child, 10000))) {
        try { process.kill(child.pid, 'SIGKILL'); } catch { /* gone */ }
        await waitExit(child, 5000);
      }
      dir.remove();
      return exited;
    },
  };
}

function waitExit(child, ms) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return h.within(new Promise((r) => child.once('exit', () => r(true))), ms).then((exited) => exited === true);
}

async function startPrometheus(target) {
  const dir = h.tmpdir('cdpproxy-prometheus-');
  const cfg = path.join(dir.dir, 'prometheus.yml');
  fs.writeFileSync(cfg, ['global:', '  scrape_interval: 1s', '  scrape_timeout: 1s', 'scrape_configs:',
    '  - job_name: cdpproxy', '    metrics_path: /proxy/metrics',
    `    static_configs: [{targets: ['${target}']}]`, ''].join('\n'));
  return startServerBinary(PROMETHEUS, [`--config.file=${cfg}`, `--storage.tsdb.path=${path.join(dir.dir, 'data')}`,
    '--log.level=warn'], dir);
}

// One Pushgateway for the tests that push to a live one (each its own
// instance label), started by the first, stopped after the last test.
let gateway;
function startPushgateway() {
  // No persistence file: nothing written outside the test's directory.
  gateway = gateway || startServerBinary(PUSHGATEWAY, ['--persistence.file=', '--log.level=warn'], h.tmpdir('cdpproxy-pushgateway-'));
  return gateway;
}
after(async () => { if (gateway) await (await gateway).stop(); });

// An instant query: the result vector, [{metric, value: [t, "v"]}].
async function query(prom, q) {
  const body = await h.getJSON(`${prom.url}/api/v1/query?query=${encodeURIComponent(q)}`);
  assert.equal(body.status, 'success', `query ${q}: ${JSON.stringify(body)}`);
  return body.data.result;
}

// The text's samples as {name, labels: {..}, value}, for lines not # comments.
function samples(text) {
  const out = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(m, `a sample line: ${line}`);
    const labels = {};
    for (const l of (m[2] || '').matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    out.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}

test('Prometheus scrapes /proxy/metrics during a Playwright session: Network.enable and bytes by domain match /proxy/stats; promtool passes', ALL, async (t) => {
  const env = await h.setup();
  let prom;
  try {
    prom = await startPrometheus(`127.0.0.1:${env.proxy.port}`);
    const { chromium } = h.client('playwright-core');
    const browser = await chromium.connectOverCDP(env.endpoint, { timeout: 15000 });
    try {
      const context = browser.contexts()[0];
      for (let i = 0; i < 3; i++) {
        const page = await context.newPage();
        await page.goto(env.server.url);
        assert.equal(await page.textContent('#greeting'), 'hello from the test server');
        await page.evaluate(async () => (await fetch('/data.json')).json());
        await page.close();
      }
    } finally {
      await browser.close();
    }
    // The session is over: the counts stand still; Prometheus catches up.
    await h.sleep(300);   // the last events of the closed pages
    const stats = await h.getJSON(`${env.endpoint}/proxy/stats`);
    const statsAt = Date.now() / 1000;
    await h.waitFor(async () => {
      const r = await query(prom, 'timestamp(cdpproxy_connections_total)');
      return r.length === 1 && Number(r[0].value[1]) > statsAt;
    }, { timeout: 20000, interval: 250, what: 'a scrape after /proxy/stats was read' });
    const enables = stats.methods['Network.enable'].messages[0];
    assert.ok(enables >= 3, `Playwright enabled Network on each page: ${enables}`);
    const got = await h.waitFor(async () => {
      const r = await query(prom, 'cdpproxy_commands_total{method="Network.enable"}');
      return r.length === 1 && Number(r[0].value[1]) === enables && r;
    }, { timeout: 20000, interval: 250, what: `Prometheus to hold ${enables} Network.enable commands` });
    t.diagnostic(`Prometheus: cdpproxy_commands_total{method="Network.enable"} ${got[0].value[1]} (/proxy/stats: ${enables})`);
    assert.equal(got[0].metric.job, 'cdpproxy', 'scraped by the job of the scrape config');

    const bytes = await query(prom, 'cdpproxy_message_bytes_total');
    const byLabel = {};
    for (const r of bytes) byLabel[`${r.metric.domain} ${r.metric.direction}`] = Number(r.value[1]);
    let total = 0, matched = 0;
    for (const [domain, c] of Object.entries(stats.domains)) {
      total += c.bytes[0] + c.bytes[1];
      if (`${domain} up` in byLabel) {
        assert.equal(byLabel[`${domain} up`], c.bytes[0], `${domain}: bytes up as /proxy/stats`);
        assert.equal(byLabel[`${domain} down`], c.bytes[1], `${domain}: bytes down as /proxy/stats`);
        matched++;
      }
    }
    const again = await h.getJSON(`${env.endpoint}/proxy/stats`);
    assert.deepEqual(again.domains, stats.domains, 'the counts stood still meanwhile');
    const promTotal = Object.values(byLabel).reduce((a, b) => a + b, 0);
    assert.equal(promTotal, total, 'all bytes, whatever the domain label');
    assert.ok(matched >= 4 && 'Network up' in byLabel && 'Page up' in byLabel,
      `the domains are labelled as /proxy/stats names them: ${Object.keys(byLabel).join(', ')}`);
    t.diagnostic(`${matched} domains' bytes match; ${promTotal} bytes in all`);

    const hist = await query(prom, 'cdpproxy_command_round_trip_seconds_count{domain="Network"}');
    assert.ok(hist.length === 1 && Number(hist[0].value[1]) > 0, 'Network\'s round trips are a histogram Prometheus read');
    const p99 = await query(prom, 'histogram_quantile(0.99, cdpproxy_command_round_trip_seconds_bucket{domain="Page"})');
    assert.ok(p99.length === 1 && Number(p99[0].value[1]) > 0, `histogram_quantile works on it: ${JSON.stringify(p99)}`);
    const up = await query(prom, 'up{job="cdpproxy"}');
    assert.equal(up[0].value[1], '1', 'the target is up');

    const res = await h.httpRequest(`${env.endpoint}/proxy/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.headers['content-type'], /^text\/plain; version=0\.0\.4/, 'the exposition format\'s content type');
    assert.equal(res.headers['x-frame-options'], 'DENY', 'and the /proxy/ headers');
    t.diagnostic(`/proxy/metrics after the session: ${res.body.length} bytes, ${res.body.split('\n').length} lines`);
    const check = spawnSync(PROMTOOL, ['check', 'metrics'], { input: res.body, encoding: 'utf8' });
    assert.equal(check.status, 0, `promtool check metrics: ${check.stdout}${check.stderr}`);
    const all = samples(res.body);
    for (const name of ['process_resident_memory_bytes', 'process_cpu_seconds_total', 'process_open_fds',
      'process_start_time_seconds', 'cdpproxy_connections_total', 'cdpproxy_log_records_lost_total']) {
      assert.ok(all.some((s) => s.name === name), `${name} is there`);
    }
    const start = all.find((s) => s.name === 'process_start_time_seconds').value;
    // (from the moment /proxy/stats was read: a loaded machine may take
    // seconds to get here)
    assert.ok(Math.abs(start - (statsAt - stats.uptime_us / 1e6)) < 5,
      `process_start_time_seconds is when the proxy started: ${start}`);
    const forged = await h.httpRequest(`${env.endpoint}/proxy/metrics`, { headers: { origin: 'http://evil.example' } });
    assert.equal(forged.status, 403, 'an Origin of another site is refused, as for /proxy/stats');
  } finally {
    if (prom) await prom.stop();
    try {
      h.checkProxyExit(assert, await env.stopProxy(), env.proxy.logPath);
    } finally {
      await env.teardown();
    }
  }
});

// GET /proxy/metrics n times: {body, median ms, times}.
async function timedMetrics(url, n, headers) {
  const times = [];
  let body;
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    const r = await h.httpRequest(url, { headers, timeout: 30000 });
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    assert.equal(r.status, 200, `GET /proxy/metrics: ${r.status} ${r.body.slice(0, 200)}`);
    body = r.body;
  }
  const sorted = [...times].sort((a, b) => a - b);
  return { body, median: sorted[Math.floor(n / 2)], times };
}

test('10,000 distinct method names: /proxy/metrics keeps its length, answers in under 100 ms; --token guards it', ALL, async (t) => {
  const N = Number(process.env.CDPPROXY_FLOOD_NAMES || 10000), FIRST = 1000;
  const TOKEN = crypto.randomBytes(12).toString('hex');
  const auth = { authorization: `Bearer ${TOKEN}` };
  const { echo, port } = await h.startEcho();
  const proxy = await h.startProxy({ upstreamPort: port, args: ['--token', TOKEN, '--log', '/dev/null'] });
  try {
    const url = `${proxy.httpURL}/proxy/metrics`;
    assert.equal((await h.httpRequest(url)).status, 401, 'without the token: 401, as /proxy/stats');
    assert.equal((await h.httpRequest(`${url}?token=${TOKEN}`)).status, 200, '?token= does');
    const sock = await h.rawUpgrade(proxy.port, `/devtools/browser/names?token=${TOKEN}`);
    const salt = crypto.randomBytes(6).toString('hex');
    const names = (from, to) => Array.from({ length: to - from },
      (_, i) => `D${(from + i) % 97}${salt}.m${crypto.createHash('md5').update(`${salt}${from + i}`).digest('hex')}`);
    const first = ['Network.enable', 'Page.navigate', ...names(0, FIRST)];
    await h.floodCommands(sock, first.length, (i) => first[i], 1);
    const before = await timedMetrics(url, 7, auth);
    const t0 = Date.now();
    const rest = names(FIRST, N);
    await h.floodCommands(sock, rest.length, (i) => rest[i], FIRST + 3);
    t.diagnostic(`${N - FIRST} more distinct names answered through the proxy in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const after = await timedMetrics(url, 7, auth);
    const lines = (s) => s.split('\n').length;
    t.diagnostic(`GET /proxy/metrics after ${FIRST} distinct names: ${before.body.length} bytes, ${lines(before.body)} lines, ` +
      `median ${before.median.toFixed(2)} ms`);
    t.diagnostic(`GET /proxy/metrics after ${N}: ${after.body.length} bytes, ${lines(after.body)} lines, ` +
      `median ${after.median.toFixed(2)} ms of 7 (${after.times.map((x) => x.toFixed(1)).join(', ')})`);
    assert.ok(Math.abs(lines(after.body) - lines(before.body)) <= 3,
      `as many lines, within a few: ${lines(before.body)} then ${lines(after.body)}`);
    assert.ok(Math.abs(after.body.length - before.body.length) < 400,
      `as many bytes but for bigger numbers: ${before.body.length} then ${after.body.length}`);
    const s = samples(after.body);
    const other = s.find((x) => x.name === 'cdpproxy_commands_total' && x.labels.method === '(other methods)');
    assert.equal(other && other.value, N, 'every name outside the protocol counted under method="(other methods)"');
    assert.ok(!after.body.includes(salt), 'no name a client made up is a label');
    const ne = s.find((x) => x.name === 'cdpproxy_commands_total' && x.labels.method === 'Network.enable');
    assert.equal(ne && ne.value, 1, 'a protocol method has its own label');
    if (!process.env.CDPPROXY_SANITIZED) {
      assert.ok(after.median < 100, `GET /proxy/metrics median ${after.median.toFixed(2)} ms < 100 ms`);
    }
    sock.destroy();
  } finally {
    await proxy.stop();
    proxy.removeDir();
    echo.kill('SIGKILL');
  }
});

// The Pushgateway's groups: [{labels, metric name: {metrics: [{labels, value}]}}].
async function groups(gw) {
  const body = await h.getJSON(`${gw.url}/api/v1/metrics`);
  return body.data;
}

function gaugeOf(group, name, labels = {}) {
  const fam = group[name];
  if (!fam) return undefined;
  const m = fam.metrics.find((x) => Object.entries(labels).every(([k, v]) => x.labels[k] === v));
  return m ? Number(m.value) : undefined;
}

test('a wrapper under Playwright\'s launch with CDPPROXY_PUSHGATEWAY: its totals are in the gateway after the browser closes', ALL, async (t) => {
  const gw = await startPushgateway();
  const server = await h.startServer();
  const dir = h.tmpdir('cdpproxy-push-');
  const log = path.join(dir.dir, 'log.jsonl');
  const instance = `ci-runner/worker ${process.pid}`;   // a '/' and a space: sent base64
  try {
    const { chromium } = h.client('playwright-core');
    const browser = await chromium.launch({
      executablePath: h.WRAPPER_BIN, args: ['--no-sandbox'],
      env: wr.wrapperEnv({ CDPPROXY_PUSHGATEWAY: gw.url, CDPPROXY_PUSHGATEWAY_JOB: 'cdpproxy-test',
        CDPPROXY_PUSHGATEWAY_INSTANCE: instance, CDPPROXY_LOG: log }),
    });
    const wrapperPid = h.allPids().find((p) => h.cmdline(p)[0] === h.WRAPPER_BIN && h.environ(p).includes(`CDPPROXY_LOG=${log}`));
    for (let i = 0; i < 2; i++) {
      const page = await browser.newPage();
      await page.goto(server.url);
      await page.close();
    }
    const closedAt = Date.now();
    await browser.close();
    t.diagnostic(`browser.close() returned in ${Date.now() - closedAt} ms`);
    assert.ok(!wrapperPid || !h.alive(wrapperPid), 'the wrapper has exited');
    const g = (await groups(gw)).find((x) => x.labels.instance === instance);
    assert.ok(g, `a group for job cdpproxy-test, instance ${instance}`);
    assert.equal(g.labels.job, 'cdpproxy-test', 'the job CDPPROXY_PUSHGATEWAY_JOB names');
    const records = h.readLog(log);
    const enables = records.filter((r) => r.kind === 'command' && r.method === 'Network.enable').length;
    const pushed = gaugeOf(g, 'cdpproxy_commands_total', { method: 'Network.enable' });
    t.diagnostic(`pushed: Network.enable ${pushed}, logged ${enables}; ` +
      `messages up ${gaugeOf(g, 'cdpproxy_messages_total', { domain: 'Page', direction: 'up' })} (Page)`);
    assert.ok(enables >= 2, `the log holds Network.enable commands: ${enables}`);
    assert.equal(pushed, enables, 'the pushed Network.enable count is the wrapper\'s total');
    const loggedBytes = records.filter((r) => r.dir === 'up' && typeof r.method === 'string' && r.method.startsWith('Page.') &&
      r.kind === 'command').reduce((a, r) => a + r.bytes, 0);
    assert.ok(loggedBytes > 0 && gaugeOf(g, 'cdpproxy_message_bytes_total', { domain: 'Page', direction: 'up' }) >= loggedBytes,
      'the Page domain\'s bytes up are pushed');
    assert.equal(gaugeOf(g, 'cdpproxy_connections_total'), 1, 'the pipe, its one connection');
    assert.ok(gaugeOf(g, 'process_resident_memory_bytes') > 0, 'and the wrapper\'s process metrics');
    assert.ok(!records.some((r) => r.kind === 'pushgateway'), 'no failure record');
  } finally {
    await server.close();
    dir.remove();
  }
});

test('a dead gateway: one stderr line and a log record; the wrapper exits 0', ALL, async (t) => {
  const dir = h.tmpdir('cdpproxy-push-dead-');
  const log = path.join(dir.dir, 'log.jsonl');
  const dead = `http://127.0.0.1:${await freePort()}`;
  const w = wr.spawnPipeWrapper(path.join(dir.dir, 'profile'),
    { CDPPROXY_PUSHGATEWAY: dead, CDPPROXY_LOG: log, CDPPROXY_CONTROL: '127.0.0.1:0' });
  try {
    await w.write('{"id":1,"method":"Browser.getVersion"}\0');
    await h.waitFor(() => w.messages.some((m) => m.id === 1), { timeout: 20000, what: 'the first answer' });
    const control = Number(/control on http:\/\/127\.0\.0\.1:(\d+)/.exec(w.stderr())[1]);
    const live = await h.httpRequest(`http://127.0.0.1:${control}/proxy/metrics`);
    assert.equal(live.status, 200, 'CDPPROXY_CONTROL serves /proxy/metrics');
    assert.match(live.body, /^cdpproxy_commands_total\{method="Browser\.getVersion"\} 1$/m, 'with the pipe\'s command');
    const t0 = Date.now();
    await w.write('{"id":2,"method":"Browser.close"}\0');
    const end = await h.within(w.exited, 15000);
    t.diagnostic(`exited ${JSON.stringify(end)} ${Date.now() - t0} ms after Browser.close; stderr: ${JSON.stringify(w.stderr())}`);
    assert.deepEqual(end, { code: 0, signal: null }, 'the wrapper exits as the browser did: 0');
    const lines = w.stderr().split('\n').filter(Boolean);
    const push = lines.filter((l) => l.includes('CDPPROXY_PUSHGATEWAY'));
    assert.equal(push.length, 1, `one line says the push failed: ${JSON.stringify(lines)}`);
    assert.match(push[0], new RegExp(`^cdpproxy-chromium: CDPPROXY_PUSHGATEWAY: cannot push to ${dead}: `));
    assert.ok(!lines.some((l) => l.includes('lws:')), 'and no lws lines beside it');
    const rec = h.readLog(log).find((r) => r.kind === 'pushgateway');
    assert.ok(rec && rec.url === dead && rec.job === 'cdpproxy' && typeof rec.error === 'string' &&
      /-\d+$/.test(rec.instance), `a pushgateway record, instance HOST-PID by default: ${JSON.stringify(rec)}`);
  } finally {
    try { process.kill(-w.child.pid, 'SIGKILL'); } catch { /* gone */ }
    dir.remove();
  }
});

test('a gateway that accepts and never answers: given up after 2 s, the wrapper exits 0', ALL, async (t) => {
  const dir = h.tmpdir('cdpproxy-push-hang-');
  const held = [];
  const silent = net.createServer((c) => { held.push(c); c.on('error', () => {}); });
  await new Promise((r) => silent.listen(0, '127.0.0.1', r));
  const w = wr.spawnPipeWrapper(path.join(dir.dir, 'profile'), { CDPPROXY_PUSHGATEWAY: `http://127.0.0.1:${silent.address().port}` });
  try {
    await w.write('{"id":1,"method":"Browser.close"}\0');
    const end = await h.within(w.exited, 20000);
    const accepted = held.length;
    const line = w.stderr().split('\n').find((l) => l.includes('CDPPROXY_PUSHGATEWAY'));
    t.diagnostic(`exited ${JSON.stringify(end)}; ${line}`);
    assert.deepEqual(end, { code: 0, signal: null }, 'the wrapper exits as the browser did');
    assert.equal(accepted, 1, 'it did connect');
    assert.match(line || '', /cannot push to .*: no answer within 2000 ms$/, 'and gave up after 2 s');
  } finally {
    held.forEach((c) => c.destroy());
    silent.close();
    try { process.kill(-w.child.pid, 'SIGKILL'); } catch { /* gone */ }
    dir.remove();
  }
});

// Fake gateways (a real one cannot be made to misbehave): each accepted
// connection goes to serve(sock, request so far). The redirects point at a
// second server that records whatever reaches it.
async function listenRaw(serve) {
  const socks = [];
  const server = net.createServer((c) => {
    socks.push(c);
    c.on('error', () => {});
    let got = '';
    c.on('data', (d) => { got += d; serve(c, got); });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { port: server.address().port, socks, close: () => { socks.forEach((c) => c.destroy()); server.close(); } };
}

test('SIGTERM against a hanging, trickling or redirecting gateway: the wrapper exits within 2.5 s; no redirect is followed', ALL, async (t) => {
  const elsewhere = [];
  const other = await listenRaw((c, got) => { elsewhere.push(got); });
  const redirect = (to) => (c, got) => {
    if (c.answered || !/\r\n\r\n/.test(got)) return;
    c.answered = true;
    c.write(`HTTP/1.1 307 Temporary Redirect\r\nLocation: ${to}\r\nContent-Length: 0\r\n\r\n`);
  };
  const gateways = {
    hanging: () => {},
    // The status line, a byte each 100 ms, never ended.
    trickling: (c) => {
      if (c.timer) return;
      const line = 'HTTP/1.1 200 OK\r\nX-Slow: ' + 'a'.repeat(200);
      let i = 0;
      c.timer = setInterval(() => { if (i < line.length && !c.destroyed) c.write(line[i++]); }, 100);
      c.on('close', () => clearInterval(c.timer));
    },
    'redirecting to another port': redirect(`http://127.0.0.1:${other.port}/metrics/job/stolen`),
    'redirecting to file:///etc/passwd': redirect('file:///etc/passwd'),
  };
  const results = [];
  try {
    for (const [name, serve] of Object.entries(gateways)) {
      const gw = await listenRaw(serve);
      const dir = h.tmpdir('cdpproxy-push-slow-');
      const w = wr.spawnPipeWrapper(path.join(dir.dir, 'profile'), { CDPPROXY_PUSHGATEWAY: `http://127.0.0.1:${gw.port}` });
      try {
        await w.write('{"id":1,"method":"Browser.getVersion"}\0');
        await h.waitFor(() => w.messages.some((m) => m.id === 1), { timeout: 20000, what: 'the first answer' });
        const t0 = Date.now();
        process.kill(w.child.pid, 'SIGTERM');
        const end = await h.within(w.exited, 20000);
        const ms = Date.now() - t0;
        const line = w.stderr().split('\n').find((l) => l.includes('CDPPROXY_PUSHGATEWAY'));
        t.diagnostic(`${name}: exited ${JSON.stringify(end)} ${ms} ms after SIGTERM; ${line}`);
        results.push({ name, exited: !!end, fast: ms < 2500, connections: gw.socks.length, said: /cannot push to /.test(line || '') });
      } finally {
        gw.close();
        try { process.kill(-w.child.pid, 'SIGKILL'); } catch { /* gone */ }
        dir.remove();
      }
    }
    assert.deepEqual(results.filter((r) => !(r.exited && r.fast && r.connections === 1 && r.said)), [],
      'each exited within 2.5 s of SIGTERM, having connected once and said the push failed');
    assert.deepEqual(elsewhere, [], 'nothing reached the redirect\'s target');
  } finally {
    other.close();
  }
});

test('CDPPROXY_PUSHGATEWAY_JOB=.. and an instance "." are sent encoded, not as dot segments', ALL, async () => {
  const gw = await startPushgateway();
  const dir = h.tmpdir('cdpproxy-push-dots-');
  const w = wr.spawnPipeWrapper(path.join(dir.dir, 'profile'),
    { CDPPROXY_PUSHGATEWAY: gw.url, CDPPROXY_PUSHGATEWAY_JOB: '..', CDPPROXY_PUSHGATEWAY_INSTANCE: '.' });
  try {
    await w.write('{"id":1,"method":"Browser.close"}\0');
    assert.deepEqual(await h.within(w.exited, 20000), { code: 0, signal: null }, 'the wrapper exits 0');
    const failed = w.stderr().split('\n').filter((l) => l.includes('CDPPROXY_PUSHGATEWAY'));
    assert.deepEqual(failed, [], 'no push failure');
    const g = (await groups(gw)).find((x) => x.labels.job === '..');
    assert.ok(g, `a group with job "..": ${JSON.stringify((await groups(gw)).map((x) => x.labels))}`);
    assert.equal(g.labels.instance, '.', 'and instance "."');
  } finally {
    try { process.kill(-w.child.pid, 'SIGKILL'); } catch { /* gone */ }
    dir.remove();
  }
});

test('port mode (Puppeteer\'s launch): the wrapper pushes at exit too', ALL, async () => {
  const gw = await startPushgateway();
  const server = await h.startServer();
  try {
    const puppeteer = h.client('puppeteer-core');
    const browser = await puppeteer.launch({
      executablePath: h.WRAPPER_BIN, args: ['--no-sandbox'],
      env: wr.wrapperEnv({ CDPPROXY_PUSHGATEWAY: gw.url, CDPPROXY_PUSHGATEWAY_INSTANCE: `port-${process.pid}` }),
    });
    const page = await browser.newPage();
    await page.goto(server.url);
    await browser.close();
    const g = await h.waitFor(async () => (await groups(gw)).find((x) => x.labels.instance === `port-${process.pid}`),
      { timeout: 5000, what: 'the pushed group' });
    assert.equal(g.labels.job, 'cdpproxy', 'job cdpproxy by default');
    assert.ok(gaugeOf(g, 'cdpproxy_commands_total', { method: 'Page.navigate' }) >= 1, 'Puppeteer\'s Page.navigate is counted');
    assert.ok(gaugeOf(g, 'cdpproxy_connections_total') >= 1, 'its connections');
  } finally {
    await server.close();
  }
});

test('CDPPROXY_PUSHGATEWAY that is not a URL: refused at start, nothing started', ALL, () => {
  const r = spawnSync(h.WRAPPER_BIN, ['--headless', '--remote-debugging-pipe'], {
    env: wr.wrapperEnv({ CDPPROXY_PUSHGATEWAY: 'gateway:9091' }), encoding: 'utf8', timeout: 10000,
  });
  assert.equal(r.status, 1, 'exit 1');
  assert.match(r.stderr, /^cdpproxy-chromium: CDPPROXY_PUSHGATEWAY: 'gateway:9091' is not an http:\/\/ or https:\/\/ URL/);
});
