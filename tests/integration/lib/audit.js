// Helpers for the `cdpbench audit` tests (84, 89, 91, 92): running an audit
// from tests/clients, reading its arms and its wrappers, and capturing a
// cdpproxy --log to run `audit --log` on.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const assert = require('node:assert/strict');
const h = require('./harness');
const wr = require('./wrapper');

const ALL = { timeout: 240000 };
const CDPBENCH = path.resolve(path.dirname(h.PROXY_BIN), 'cdpbench');
const CLIENTS = path.join(h.ROOT, 'tests/clients');
const RIGS = path.join(h.ROOT, 'tests/rigs');

// Runs `cdpbench audit ARGS` from tests/clients (the rigs' node_modules);
// resolves {code, stdout, stderr, json (audit.json), out (its directory)}.
async function audit(args, env = {}) {
  const out = h.tmpdir('cdpproxy-audit-');
  const child = h.spawnTracked(CDPBENCH, ['audit', '--out', out.dir, ...args], {
    cwd: CLIENTS,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: wr.wrapperEnv({ NODE_PATH: path.join(CLIENTS, 'node_modules'), ...env }),
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d; });
  child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d; });
  const code = await new Promise((resolve) => child.on('exit', (c, s) => resolve(c === null ? s : c)));
  let json = null;
  try { json = JSON.parse(fs.readFileSync(path.join(out.dir, 'audit.json'), 'utf8')); } catch { /* asserted */ }
  return { code, stdout, stderr, json, out };
}

function arm(json, name) {
  return json.arms.find((a) => a.name === name);
}

// The wrappers of an audit's runs, from their log files' names
// (cdpproxy-chromium-PID.jsonl): none may be alive or leave a TMPDIR.
function wrappersOf(json) {
  const pids = [];
  for (const a of json.arms) {
    for (const run of a.runs) {
      if (!run.logs) continue;
      for (const f of fs.readdirSync(run.logs)) {
        const m = /cdpproxy-chromium-(\d+)\.jsonl$/.exec(f);
        if (m) pids.push(Number(m[1]));
      }
    }
  }
  return pids;
}

// The log of cdpproxy --log --log-bodies in front of chrome (h.startChrome,
// shared by the tests of a file) while drive({endpoint, server}) runs a
// client through it, copied out of the proxy's directory: its path.
async function capture(chrome, drive) {
  const server = await h.startServer();
  const proxy = await h.startProxy({ upstreamPort: chrome.port, args: ['--log-bodies=65536'] });
  try {
    await drive({ endpoint: proxy.httpURL, server });
  } finally {
    await proxy.stop();
    await server.close();
  }
  const copy = path.join(h.tmpdir('cdpproxy-audit-log-').dir, 'rig.jsonl');
  fs.copyFileSync(proxy.logPath, copy);
  proxy.removeDir();
  return copy;
}

// `cdpbench audit --log FILE`: its stdout, once it exited 0.
function auditLog(file) {
  const r = spawnSync(CDPBENCH, ['audit', '--log', file], { encoding: 'utf8', timeout: 30000 });
  assert.equal(r.status, 0, `audit --log exits 0: ${r.stderr}`);
  return r.stdout;
}

module.exports = { ALL, CDPBENCH, CLIENTS, RIGS, audit, arm, wrappersOf, capture, auditLog };
