// Helpers for the cdpbench tests (40, 41): running cdpbench with a time
// limit, reading its report.json, and checking that a cell is whole.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const assert = require('node:assert/strict');
const h = require('./harness');

const CDPBENCH = process.env.CDPBENCH_BIN || path.join(path.dirname(h.PROXY_BIN), 'cdpbench');

// Runs cdpbench; resolves {code, signal, stdout, stderr}. On timeout it gets
// SIGINT (it then stops what it started and reports), then SIGKILL.
function cdpbench(args, timeout) {
  return new Promise((resolve, reject) => {
    if (!fs.existsSync(CDPBENCH)) {
      reject(new Error(`${CDPBENCH} not found: run make (or set CDPBENCH_BIN)`));
      return;
    }
    const child = h.spawnTracked(CDPBENCH, args, { cwd: h.ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => {
      child.kill('SIGINT');
      setTimeout(() => child.kill('SIGKILL'), 15000).unref();
    }, timeout);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

function readReport(dir) {
  const file = path.join(dir, 'report.json');
  assert.ok(fs.existsSync(file), `${file} exists`);
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

// Every sample of a cell is usable and the sink counted exactly what the page sent.
function checkCell(rep, c) {
  const what = `${c.scenario}/${c.body}`;
  const errors = c.samples.filter((s) => !s.ok).map((s) => `round ${s.round}: ${s.error}`);
  assert.equal(c.failed, 0, `${what}: no failed trial (${errors.join('; ')})`);
  assert.equal(c.n, rep.config.rounds, `${what}: a sample in every measured round`);
  assert.ok(c.median_mbps > 0, `${what}: a median (${c.median_mbps})`);
  for (const s of c.samples) {
    const measured = s.detail.transfers.filter((x) => !x.warmup).length;
    if (c.scenario !== 'native') {
      assert.ok(measured >= rep.config.transfers && measured <= rep.config.max_transfers,
        `${what} round ${s.round}: ${measured} measured transfers, from ${rep.config.transfers} to ${rep.config.max_transfers}`);
    }
    // Warm-up: the fewest, then more until warmup_ms of them (none more without it).
    const warm = s.detail.transfers.filter((x) => x.warmup).length;
    if (c.scenario !== 'native') {
      assert.ok(rep.config.warmup_ms > 0 ? warm >= rep.config.warmup_transfers : warm === rep.config.warmup_transfers,
        `${what} round ${s.round}: ${warm} warm-up transfers (${rep.config.warmup_transfers}, ${rep.config.warmup_ms} ms)`);
    }
    const perTrial = rep.config.bytes * (warm + measured);
    assert.equal(s.page_bytes, perTrial, `${what} round ${s.round}: the page moved every byte`);
    assert.equal(s.sink_bytes, s.page_bytes, `${what} round ${s.round}: sink bytes == bytes sent`);
    assert.ok(s.page_mbps > 0, `${what} round ${s.round}: timed in the page`);
  }
  if (c.scenario !== 'none' && !c.scenario.startsWith('none#')) {
    assert.equal(typeof c.ratio_to_none, 'number', `${what}: a ratio to none`);
  }
  // One CI schema in report.json and audit.json: {point, lo, hi, n}.
  for (const k of ['ci', 'sink_ci', 'ratio_ci', 'aa_ci']) {
    assert.deepEqual(Object.keys(c[k]), ['point', 'lo', 'hi', 'n'], `${what}: ${k} is {point, lo, hi, n}`);
  }
  assert.equal(c.ci.point, c.median_mbps, `${what}: ci.point is the median`);
  assert.equal(c.ratio_ci.point, c.ratio_to_none, `${what}: ratio_ci.point is the ratio`);
}

module.exports = { CDPBENCH, cdpbench, readReport, checkCell };
