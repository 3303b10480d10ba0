#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 3: a launched Chromium dies with its owner (issue 14, item 8).
// `kill -9` of `cdpproxy --launch` or of cdpbench: within 2 s no process it
// started remains (PR_SET_PDEATHSIG), and the next launch removes the
// profile the dead owner left in /tmp (its PID is in the profile's name).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./lib/harness');

const ALL = { timeout: 60000 };
const GONE_WITHIN_MS = 2000;
const CDPBENCH = process.env.CDPBENCH_BIN || path.join(path.dirname(h.PROXY_BIN), 'cdpbench');

function profileOf(pid) {
  const a = h.cmdline(pid).find((x) => x.startsWith('--user-data-dir='));
  return a ? a.slice('--user-data-dir='.length) : null;
}

// A chromium browser process (not a helper) among owner's descendants, with
// its cdpproxy profile.
function launchedChromium(owner) {
  for (const p of h.descendants(owner)) {
    const prof = profileOf(p);
    if (prof && prof.includes('/cdpproxy-chromium-') && !h.cmdline(p).some((a) => a.startsWith('--type=')))
      return { pid: p, profile: prof };
  }
  return null;
}

// SIGKILLs owner and checks that every process it had started (and every
// process naming the profile) is gone within GONE_WITHIN_MS.
async function killAndCheck(t, owner, profile) {
  const tree = h.descendants(owner);
  assert.ok(tree.length > 0, 'the owner has children before the kill');
  const killedAt = Date.now();
  process.kill(owner, 'SIGKILL');
  const usesProfile = () => h.allPids().filter((p) => h.alive(p) && h.cmdline(p).some((a) => a.includes(profile)));
  let left = [];
  while (Date.now() - killedAt < GONE_WITHIN_MS) {
    left = [...new Set([...tree.filter(h.alive), ...usesProfile()])];
    if (!left.length) break;
    await h.sleep(50);
  }
  t.diagnostic(`${tree.length} processes, all gone ${Date.now() - killedAt} ms after the kill`);
  assert.deepEqual(left.map((p) => `${p} ${h.cmdline(p).slice(0, 2).join(' ')}`), [],
    `nothing the owner started survives it by ${GONE_WITHIN_MS} ms`);
  assert.ok(fs.existsSync(profile), `the killed owner left its profile ${profile} (the next start sweeps it)`);
}

test('kill -9 cdpproxy --launch: its Chromium goes within 2 s, the next start removes the profile', ALL, async (t) => {
  const first = await h.startProxy({ launch: true });
  const chrome = await h.waitFor(() => launchedChromium(first.pid), { timeout: 20000, what: 'the proxy\'s chromium' });
  assert.match(path.basename(chrome.profile), new RegExp(`^cdpproxy-chromium-${first.pid}-`), 'the profile is named for its owner');
  await killAndCheck(t, first.pid, chrome.profile);
  first.removeDir();

  const second = await h.startProxy({ launch: true });
  try {
    await h.waitFor(() => launchedChromium(second.pid), { timeout: 20000, what: 'the second proxy\'s chromium' });
    assert.equal(fs.existsSync(chrome.profile), false, `stale profile ${chrome.profile} removed by the next start`);
  } finally {
    await second.stop();
    second.removeDir();
  }
});

test('kill -9 cdpbench: its browsers and helpers go within 2 s', ALL, async (t) => {
  assert.ok(fs.existsSync(CDPBENCH), `${CDPBENCH} exists (make)`);
  const out = h.tmpdir('cdpproxy-owner-bench-');
  const bench = h.spawnTracked(CDPBENCH, ['--quick', '--out', out.dir], { cwd: h.ROOT, stdio: ['ignore', 'ignore', 'ignore'] });
  const chrome = await h.waitFor(() => launchedChromium(bench.pid), { timeout: 30000, what: 'cdpbench\'s chromium' });
  await killAndCheck(t, bench.pid, chrome.profile);
  // The sweep of a later launch (cdpproxy's) takes the bench's stale profile too.
  const next = await h.startProxy({ launch: true });
  try {
    await h.waitFor(() => launchedChromium(next.pid), { timeout: 20000, what: 'a later proxy\'s chromium' });
    assert.equal(fs.existsSync(chrome.profile), false, `cdpbench's stale profile ${chrome.profile} removed`);
  } finally {
    await next.stop();
    next.removeDir();
    out.remove();
  }
});
