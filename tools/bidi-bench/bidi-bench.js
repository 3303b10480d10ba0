#!/usr/bin/env node
// bidi-bench: a fetch() upload of a Uint8Array in classic WebDriver sessions
// against WebDriver BiDi ones, Selenium and WebdriverIO, each with Chromium
// direct and through cdpproxy-chromium; rounds of one fresh session per arm,
// the arms shuffled in each round; medians and per-round ratios. README.md
// beside this file says how to run it and what it measured.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { parseArgs } = require('node:util');

const ROOT = path.join(__dirname, '../..');
const FLAGS = require('../common/chromium-flags.js');

const USAGE = `usage: tools/bidi-bench/bidi-bench.js [options]
  --rounds N         rounds, each one fresh session per arm (default 4)
  --uploads N        uploads per session, the first not counted (default 3)
  --mib N            the body in MiB (default 4)
  --arms A,B,...     arms (default all): ${'${client}-${mode}-${browser}'}, client selenium or
                     wdio, mode classic, bidi or mock (wdio only), browser direct or wrapper
  --policy FILE      CDPPROXY_POLICY for the wrapper arms (default none: passthrough)
  --out FILE         each trial as a JSON line (default bidi-bench-<time>.jsonl here)
  --summary FILE     print the summary of a finished run's --out, run nothing
  --trial-timeout S  a session's bound in seconds (default 600)`;

const CLIENTS = {
  selenium: (mode) => ['/usr/bin/python3', [path.join(__dirname, 'trial-selenium.py'), ...(mode === 'bidi' ? ['--bidi'] : [])]],
  wdio: (mode) => [process.execPath, [path.join(__dirname, 'trial-wdio.js'), ...(mode === 'classic' ? ['--classic'] : []),
    ...(mode === 'mock' ? ['--mock'] : [])]],
};
const BROWSERS = { direct: '/usr/bin/chromium', wrapper: path.join(ROOT, 'build/cdpproxy-chromium') };
const ALL_ARMS = ['selenium-classic', 'selenium-bidi', 'wdio-classic', 'wdio-bidi', 'wdio-mock']
  .flatMap((a) => ['direct', 'wrapper'].map((b) => `${a}-${b}`));

const median = (xs) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!s.length) return NaN;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const shuffle = (xs) => {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
};

// Starts build/uploadsink on a free port; resolves {url, stop}.
function startSink() {
  const bin = path.join(ROOT, 'build/uploadsink');
  if (!fs.existsSync(bin)) throw new Error(`${bin} missing: run make first`);
  const child = spawn(bin, ['--listen', '127.0.0.1:0', '--quiet'], { stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (d) => {
      err += d;
      const m = /listening on (http:\/\/\S+?)\/?$/m.exec(err);
      if (m) resolve({ url: m[1], stop: () => child.kill('SIGTERM') });
    });
    child.once('exit', (code) => reject(new Error(`uploadsink exited ${code}: ${err}`)));
  });
}

// One session of arm: resolves its trial record (the trial script's JSON,
// or {error}).
function runTrial(arm, round, o, sinkUrl) {
  const [client, mode, browser] = arm.split('-');
  const [cmd, args] = CLIENTS[client](mode);
  const trial = `${arm}.${round}`;
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('CDPPROXY_')) delete env[k];
  if (browser === 'wrapper' && o.policy) env.CDPPROXY_POLICY = path.resolve(o.policy);
  const child = spawn(cmd, [...args, '--binary', BROWSERS[browser], '--url', `${sinkUrl}/`, '--bytes', String(o.mib << 20),
    '--uploads', String(o.uploads), '--trial', trial, '--flags', JSON.stringify(FLAGS)],
  { stdio: ['ignore', 'pipe', 'pipe'], env, detached: true });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d) => { out += d; });
  child.stderr.setEncoding('utf8').on('data', (d) => { err += d; });
  const started = Date.now();
  // Its group: the client, ChromeDriver and the browser.
  const timer = setTimeout(() => { try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ } }, o.timeout * 1000);
  return new Promise((resolve) => child.once('exit', (code, signal) => {
    clearTimeout(timer);
    try { process.kill(-child.pid, 'SIGKILL'); } catch { /* nothing left */ }
    const rec = { arm, round, trial, wall_s: (Date.now() - started) / 1000, policy: browser === 'wrapper' ? o.policy || null : null };
    try {
      if (code !== 0) throw new Error(`exit ${code === null ? signal : code}`);
      Object.assign(rec, JSON.parse(out.trim().split('\n').pop()));
      const short = rec.uploads.filter((u) => u.bytes !== o.mib << 20);
      if (short.length) throw new Error(`the sink counted ${short.map((u) => u.bytes)} bytes`);
    } catch (e) {
      rec.error = `${e.message}: ${err.trim().split('\n').slice(-3).join(' | ')}`;
    }
    resolve(rec);
  }));
}

// A trial's figures: the median of its counted uploads (all but the first).
function figures(rec) {
  const counted = (rec.uploads || []).slice(1);
  return { page: median(counted.map((u) => u.ms)), client: median(counted.map((u) => u.client_ms)), bytes: counted.length ? counted[0].bytes : NaN };
}

// The summary of records: per arm the medians over rounds, and the paired
// per-round ratios of speed (baseline's time / the arm's) against its
// client's classic session on the same browser, and the wrapper against direct.
function summarize(recs) {
  const byArm = new Map();
  for (const r of recs) {
    if (!byArm.has(r.arm)) byArm.set(r.arm, new Map());
    if (!r.error) byArm.get(r.arm).set(r.round, figures(r));
  }
  const ratio = (arm, base, key) => {
    const a = byArm.get(arm);
    const b = byArm.get(base);
    if (!a || !b) return NaN;
    return median([...a].filter(([round]) => b.has(round)).map(([round, f]) => b.get(round)[key] / f[key]));
  };
  const fmt = (x, d = 2) => (Number.isFinite(x) ? (x >= 100 ? x.toFixed(0) : x.toFixed(d)) : '-');
  const lines = ['| arm | sessions | upload ms in the page | Mbps | ms as the client waited | vs classic (page) | vs classic (client) | wrapper vs direct (client) |',
    '|---|---|---|---|---|---|---|---|'];
  for (const arm of ALL_ARMS.filter((a) => byArm.has(a))) {
    const f = [...byArm.get(arm).values()];
    const errors = recs.filter((r) => r.arm === arm && r.error).length;
    const [client, mode, browser] = arm.split('-');
    const base = `${client}-classic-${browser}`;
    const page = median(f.map((x) => x.page));
    const bytes = median(f.map((x) => x.bytes));
    lines.push(`| ${arm} | ${f.length}${errors ? ` (+${errors} failed)` : ''} | ${fmt(page, 1)} | ${fmt(bytes * 8 / page / 1000, 1)} | ` +
      `${fmt(median(f.map((x) => x.client)), 1)} | ${mode === 'classic' ? '1' : fmt(ratio(arm, base, 'page'), 3)} | ` +
      `${mode === 'classic' ? '1' : fmt(ratio(arm, base, 'client'), 3)} | ` +
      `${browser === 'wrapper' ? fmt(ratio(arm, `${client}-${mode}-direct`, 'client'), 2) : ''} |`);
  }
  return lines.join('\n');
}

async function main() {
  const { values: v } = parseArgs({
    options: {
      rounds: { type: 'string', default: '4' }, uploads: { type: 'string', default: '3' }, mib: { type: 'string', default: '4' },
      arms: { type: 'string', default: ALL_ARMS.join(',') }, policy: { type: 'string' }, out: { type: 'string' },
      summary: { type: 'string' }, 'trial-timeout': { type: 'string', default: '600' }, help: { type: 'boolean', short: 'h' },
    },
  });
  if (v.help) { console.log(USAGE); return; }
  if (v.summary) {
    const recs = fs.readFileSync(v.summary, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    console.log(summarize(recs));
    return;
  }
  const o = { rounds: Number(v.rounds), uploads: Number(v.uploads), mib: Number(v.mib), policy: v.policy, timeout: Number(v['trial-timeout']) };
  const arms = v.arms.split(',');
  const bad = arms.filter((a) => !ALL_ARMS.includes(a));
  if (bad.length || !(o.rounds > 0) || !(o.uploads > 1) || !(o.mib > 0)) throw new Error(`bad arguments (${bad.join(',') || 'a count'})\n${USAGE}`);
  if (!fs.existsSync(BROWSERS.wrapper)) throw new Error(`${BROWSERS.wrapper} missing: run make first`);
  const out = v.out || `bidi-bench-${new Date().toISOString().replace(/[:.]/g, '-')}.jsonl`;
  const sink = await startSink();
  const recs = [];
  try {
    for (let round = 0; round < o.rounds; round++) {
      for (const arm of shuffle(arms)) {
        const rec = await runTrial(arm, round, o, sink.url);
        recs.push(rec);
        fs.appendFileSync(out, `${JSON.stringify(rec)}\n`);
        const f = figures(rec);
        console.error(`round ${round + 1}/${o.rounds} ${arm}: ${rec.error ? `FAILED ${rec.error}` :
          `page ${f.page.toFixed(1)} ms, client ${f.client.toFixed(1)} ms`} (${rec.wall_s.toFixed(1)} s)`);
      }
    }
  } finally {
    sink.stop();
  }
  console.log(`${o.mib} MiB Uint8Array, ${o.rounds} rounds, ${o.uploads - 1} counted uploads a session; trials in ${out}\n`);
  console.log(summarize(recs));
}

main().catch((e) => { console.error(`bidi-bench: ${e.message}`); process.exit(1); });
