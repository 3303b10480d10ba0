#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 8: the wrapper against what a stranger passes it (issues 27 and 33).
// Switches read as Chromium reads them (-x, last one wins): no port of
// Chromium's own beside the proxy, Chromium bound to loopback whatever
// address the client gives. A message size past 4GiB refused at start. The
// stale-directory sweep: another user's directory is left alone, a symlink
// inside a stale one is removed as itself (its target's files survive), and
// no path-based remover (nftw, remove, rmdir) is in the programs. Records
// lost to CDPPROXY_LOG (/dev/full): said on stderr, exit 1 as cdpproxy does;
// a CDPPROXY_LOG that is a FIFO or a symlink is refused at start.
// A browser that is missing, not executable or not a program: exactly one
// stderr line with the reason, 127 or 126, in every mode; no lws banner.
// ChromeDriver's default quit (it SIGKILLs the wrapper) and a plain SIGKILL:
// the wrapper's temporary directory is gone within 2 s, with no next start.
'use strict';
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { spawn, spawnSync, execFileSync } = require('node:child_process');
const { test } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./lib/harness');
const wr = require('./lib/wrapper');

const ALL = { timeout: 60000 };

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

// The TCP listening addresses ("127.0.0.1:9222") of process pid, from the kernel.
function listeningOf(pid) {
  const out = execFileSync('ss', ['-ltnpH'], { encoding: 'utf8' });
  return out.split('\n').filter((l) => l.includes(`pid=${pid},`)).map((l) => l.trim().split(/\s+/)[3]);
}

// Starts the wrapper in port mode with args; resolves its DevTools line's port.
async function startPort(args, env = {}) {
  const child = spawn(h.WRAPPER_BIN, args, { stdio: ['ignore', 'ignore', 'pipe'], detached: true, env: wr.wrapperEnv(env) });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d; });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const stop = async () => {
    try { process.kill(child.pid, 'SIGTERM'); } catch { /* gone */ }
    await h.within(exited, 5000);
    h.descendants(child.pid).forEach((p) => { try { process.kill(p, 'SIGKILL'); } catch { /* gone */ } });
    try { process.kill(child.pid, 'SIGKILL'); } catch { /* gone */ }
  };
  const m = await h.waitFor(() => /^DevTools listening on ws:\/\/([\d.]+):(\d+)\//m.exec(stderr),
    { timeout: 20000, what: 'the DevTools line' }).catch(async (e) => { await stop(); throw e; });
  return { child, exited, stop, port: Number(m[2]), host: m[1], stderr: () => stderr };
}

test('issue 27 #1: -remote-debugging-port beside the pipe is refused like --remote-debugging-port', ALL, () => {
  for (const args of [['--remote-debugging-pipe', '-remote-debugging-port=9333'], ['-remote-debugging-pipe', '--remote-debugging-port=9333']]) {
    const r = spawnSync(h.WRAPPER_BIN, args, { env: wr.wrapperEnv(), encoding: 'utf8', timeout: 10000, stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'] });
    assert.equal(r.status, 1, `${args}: exit 1 (${r.status}, ${r.stderr})`);
    assert.match(r.stderr, /^cdpproxy-chromium: both --remote-debugging-pipe and --remote-debugging-port: .+\n$/, `${args}: one line`);
  }
});

test('issue 27 #1: -remote-debugging-port=N and --remote-debugging-address=0.0.0.0: the proxy on N, Chromium on loopback only', ALL, async (t) => {
  const profile = h.tmpdir('cdpproxy-wrap-hard-');
  const want = await freePort();
  const w = await startPort([...h.CHROME_FLAGS, `--user-data-dir=${profile.dir}`, `-remote-debugging-port=${want}`,
    '--remote-debugging-address=0.0.0.0']);
  try {
    assert.equal(w.port, want, 'the DevTools line names the port the client asked for');
    const chrome = wr.chromiumOf(w.child.pid);
    assert.ok(chrome, 'the wrapper started Chromium (it did not exec it)');
    const argv = h.cmdline(chrome);
    assert.ok(!argv.some((a) => a.includes(`remote-debugging-port=${want}`)), `Chromium did not get the client's port: ${argv.join(' ')}`);
    assert.ok(argv.includes('--remote-debugging-address=127.0.0.1') && !argv.some((a) => a.includes('0.0.0.0')),
      'Chromium\'s address is the wrapper\'s (loopback)');
    const bound = listeningOf(chrome);
    t.diagnostic(`Chromium listens on ${bound.join(', ')}; the proxy on ${listeningOf(w.child.pid).join(', ')}`);
    assert.ok(bound.length > 0 && bound.every((a) => a.startsWith('127.0.0.1:')), `Chromium bound to loopback only: ${bound}`);
    assert.ok(!bound.includes(`127.0.0.1:${want}`), 'and not on the client\'s port');
    assert.deepEqual(listeningOf(w.child.pid), [`127.0.0.1:${want}`], 'the proxy is what listens on it (loopback)');
    const version = await h.getJSON(`http://127.0.0.1:${want}/json/version`);
    assert.equal(new URL(version.webSocketDebuggerUrl).port, String(want), 'discovery through the proxy names the proxy');
  } finally {
    await w.stop();
    profile.remove();
  }
});

test('issue 27 #9: a message size past 4GiB is refused at start, by the wrapper and by cdpproxy', ALL, () => {
  const huge = '18446744073709551615';
  const r = spawnSync(h.WRAPPER_BIN, [...h.CHROME_FLAGS, '--remote-debugging-pipe'], {
    env: wr.wrapperEnv({ CDPPROXY_MAX_MESSAGE: huge }), encoding: 'utf8', timeout: 5000, stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'],
  });
  assert.equal(r.status, 1, `the wrapper: exit 1 (${r.status} ${r.signal}, ${r.stderr})`);
  assert.match(r.stderr, new RegExp(`^cdpproxy-chromium: CDPPROXY_MAX_MESSAGE: '${huge}' is above 4GiB[^\\n]*\\n$`), 'one line with the reason');
  const p = spawnSync(h.PROXY_BIN, ['--listen', '127.0.0.1:0', '--max-message', huge], { encoding: 'utf8', timeout: 5000 });
  assert.notEqual(p.status, 0, `cdpproxy: refused (${p.status} ${p.signal})`);
  assert.match(p.stderr, new RegExp(`--max-message: '${huge}' is above 4GiB`), `cdpproxy says why: ${p.stderr}`);
  assert.ok(!/not reachable/.test(p.stderr), 'before looking for Chrome');
});

// The wrapper in pipe mode on fds 3 and 4 of ours; resolves once it answered.
async function startPipe(env = {}) {
  const profile = h.tmpdir('cdpproxy-wrap-hard-');
  const child = spawn(h.WRAPPER_BIN, [...h.CHROME_FLAGS, `--user-data-dir=${profile.dir}`, '--remote-debugging-pipe'], {
    stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'], env: wr.wrapperEnv(env), detached: true,
  });
  let stderr = '', out = '';
  child.stdio[2].setEncoding('utf8').on('data', (d) => { stderr += d; });
  child.stdio[4].setEncoding('utf8').on('data', (d) => { out += d; });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const stop = async () => {
    child.stdio[3].end();
    const end = await h.within(exited, 10000);
    h.descendants(child.pid).forEach((p) => { try { process.kill(p, 'SIGKILL'); } catch { /* gone */ } });
    try { process.kill(child.pid, 'SIGKILL'); } catch { /* gone */ }
    profile.remove();
    return end;
  };
  child.stdio[3].write('{"id":1,"method":"Browser.getVersion"}\0');
  await h.waitFor(() => out.includes('"id":1'), { timeout: 20000, what: 'the first answer' }).catch(async (e) => { await stop(); throw new Error(`${e.message}; stderr: ${stderr}`); });
  return { child, exited, stop, stderr: () => stderr };
}

test('issue 27 #3: the sweep leaves another user\'s directory, follows no symlink, removes no path', ALL, async () => {
  const dead = spawnSync('true').pid;   // a PID that has ended
  const theirs = `/tmp/cdpproxy-chromium-${dead}-theirs`;
  const links = `/tmp/cdpproxy-chromium-${dead}-links`;
  const victim = h.tmpdir('cdpproxy-victim-');
  fs.writeFileSync(path.join(victim.dir, 'keep'), 'x');
  fs.mkdirSync(path.join(victim.dir, 'sub'));
  fs.writeFileSync(path.join(victim.dir, 'sub', 'keep'), 'x');
  try {
    fs.mkdirSync(theirs);
    fs.writeFileSync(path.join(theirs, 'file'), 'x');
    fs.chownSync(path.join(theirs, 'file'), 65534, 65534);
    fs.chownSync(theirs, 65534, 65534);   // nobody's
    fs.mkdirSync(path.join(links, 'sub'), { recursive: true });
    fs.symlinkSync(victim.dir, path.join(links, 'victim'));
    fs.symlinkSync(victim.dir, path.join(links, 'sub', 'victim'));
    fs.symlinkSync(path.join(victim.dir, 'keep'), path.join(links, 'keep'));
    const w = await startPipe();
    try {
      const mine = wr.tmpdirsOf(w.child.pid);
      assert.equal(mine.length, 1, 'the wrapper made its directory');
      const st = fs.lstatSync(mine[0]);
      assert.ok(st.isDirectory() && (st.mode & 0o7777) === 0o700 && st.uid === process.getuid(), `it is ours and 0700 (${(st.mode & 0o7777).toString(8)})`);
    } finally {
      await w.stop();
    }
    assert.ok(fs.existsSync(path.join(theirs, 'file')), 'another user\'s stale-looking directory is left alone');
    assert.equal(fs.existsSync(links), false, 'our own stale directory is removed');
    assert.ok(fs.existsSync(path.join(victim.dir, 'keep')) && fs.existsSync(path.join(victim.dir, 'sub', 'keep')),
      'the symlinks\' targets keep their files');
    for (const bin of [h.WRAPPER_BIN, h.PROXY_BIN]) {
      const syms = execFileSync('nm', ['-D', '--undefined-only', bin], { encoding: 'utf8' });
      const pathRemovers = syms.split('\n').map((l) => l.trim().split(/\s+/).pop().replace(/@.*/, ''))
        .filter((n) => ['nftw', 'nftw64', 'remove', 'rmdir'].includes(n));
      assert.deepEqual(pathRemovers, [], `${path.basename(bin)} removes nothing by path (it walks with openat/unlinkat)`);
    }
  } finally {
    fs.rmSync(theirs, { recursive: true, force: true });
    fs.rmSync(links, { recursive: true, force: true });
    victim.remove();
  }
});

test('issue 27 #4: records lost to CDPPROXY_LOG=/dev/full: said on stderr, exit 1 where Chromium exited 0', ALL, async () => {
  const w = await startPipe({ CDPPROXY_LOG: '/dev/full' });
  const end = await w.stop();
  assert.deepEqual(end, { code: 1, signal: null }, `exit 1, not Chromium's 0 (${JSON.stringify(end)})`);
  assert.match(w.stderr(), /^cdpproxy-chromium: \d+ log records lost \(CDPPROXY_LOG \/dev\/full\)$/m, `one line says so: ${w.stderr()}`);
});

// A log path that is a FIFO nobody reads, or a symlink to the user's file:
// refused at start with one line naming it (a FIFO open waited forever, a
// symlink's target was appended to and made 0600), in pipe and port mode.
test('issue 46 #4: CDPPROXY_LOG naming a FIFO or a symlink: one line, exit 1, the target untouched', ALL, () => {
  const dir = h.tmpdir('cdpproxy-wrap-logpath-');
  const fifo = path.join(dir.dir, 'fifo.jsonl');
  const target = path.join(dir.dir, 'mine.txt');
  const link = path.join(dir.dir, 'link.jsonl');
  execFileSync('mkfifo', [fifo]);
  fs.writeFileSync(target, 'mine\n', { mode: 0o644 });
  fs.chmodSync(target, 0o644);
  fs.symlinkSync(target, link);
  try {
    for (const [log, why] of [[fifo, /a FIFO/], [link, /symbolic link/]]) {
      for (const mode of ['--remote-debugging-pipe', '--remote-debugging-port=0']) {
        const t0 = Date.now();
        const r = spawnSync(h.WRAPPER_BIN, [...h.CHROME_FLAGS, `--user-data-dir=${path.join(dir.dir, 'profile')}`, mode], {
          stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'], env: wr.wrapperEnv({ CDPPROXY_LOG: log }), encoding: 'utf8', timeout: 15000,
        });
        const what = `${path.basename(log)} ${mode}`;
        assert.equal(r.error, undefined, `${what}: it ended by itself (${Date.now() - t0} ms)`);
        assert.equal(r.status, 1, `${what}: exit 1 (stderr: ${r.stderr})`);
        const lines = r.stderr.split('\n').filter((l) => l.startsWith('cdpproxy-chromium:'));
        assert.equal(lines.length, 1, `${what}: one line: ${JSON.stringify(lines)}`);
        assert.ok(lines[0].includes(log) && why.test(lines[0]), `${what}: naming the path and why: ${lines[0]}`);
      }
    }
    assert.equal(fs.readFileSync(target, 'utf8'), 'mine\n', 'the symlink\'s target is not written');
    assert.equal(fs.statSync(target).mode & 0o777, 0o644, 'nor its mode changed');
  } finally {
    dir.remove();
  }
});

test('issue 33 #2: a missing or unusable browser: one line with the reason, 127/126, in every mode; no lws banner ever', ALL, async () => {
  const dir = h.tmpdir('cdpproxy-wrap-nobrowser-');
  const noexec = path.join(dir.dir, 'noexec');
  const garbage = path.join(dir.dir, 'garbage');
  fs.writeFileSync(noexec, '#!/bin/sh\n', { mode: 0o644 });
  fs.writeFileSync(garbage, 'not a program\n', { mode: 0o755 });
  const cases = [['/nonexistent/chromium', 127, 'No such file or directory'], [noexec, 126, 'Permission denied'],
    [dir.dir, 126, 'Is a directory'], [garbage, 126, 'Exec format error']];
  const modes = { pipe: ['--remote-debugging-pipe'], port: ['--remote-debugging-port=0'], none: ['about:blank'] };
  try {
    for (const [browser, code, why] of cases) {
      for (const [mode, args] of Object.entries(modes)) {
        const r = spawnSync(h.WRAPPER_BIN, [...h.CHROME_FLAGS, ...args], {
          env: wr.wrapperEnv({ CDPPROXY_CHROMIUM: browser }), encoding: 'utf8', timeout: 10000, stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'],
        });
        assert.equal(r.stderr, `cdpproxy-chromium: cannot run ${browser}: ${why} (set CDPPROXY_CHROMIUM)\n`, `${mode}, ${browser}: exactly one line`);
        assert.equal(r.status, code, `${mode}, ${browser}: exit ${code}`);
      }
    }
  } finally {
    dir.remove();
  }
  const w = await startPipe();
  await w.stop();
  assert.doesNotMatch(w.stderr(), /LWS|lws/, `pipe mode: no lws line on the browser's stderr: ${w.stderr()}`);
  const p = await startPort([...h.CHROME_FLAGS, '--remote-debugging-port=0']);
  await p.stop();
  assert.doesNotMatch(p.stderr(), /LWS|lws/, `port mode: no lws line: ${p.stderr()}`);
});

// ChromeDriver (Debian's) through Selenium's Python bindings, default quit:
// the wrapper's pid and directories, and how long they took to go after quit()
// returned (it SIGKILLs the wrapper, measured with strace on 2026-12-04).
const SELENIUM = `
import json, os, sys, time, glob
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
o = Options(); o.binary_location = sys.argv[1]
for f in sys.argv[2:]: o.add_argument(f)
svc = Service('/usr/bin/chromedriver')
d = webdriver.Chrome(service=svc, options=o)
d.get('about:blank')
def ppid(p):
    try: return int(open(f'/proc/{p}/stat').read().rsplit(')', 1)[1].split()[1])
    except OSError: return None
wrapper = [int(p) for p in os.listdir('/proc') if p.isdigit() and ppid(p) == svc.process.pid][0]
dirs = glob.glob(f'/tmp/cdpproxy-chromium-{wrapper}-*')
t0 = time.time()
d.quit()
t1 = time.time()
gone = None
while time.time() - t1 < 5:
    if not any(os.path.exists(x) for x in dirs): gone = time.time() - t1; break
    time.sleep(0.05)
print(json.dumps({'wrapper': wrapper, 'dirs': dirs, 'quit_s': t1 - t0, 'gone_after_s': gone, 'wrapper_alive': os.path.exists(f'/proc/{wrapper}')}))
`;

test('issue 33 #5: ChromeDriver\'s default quit: the wrapper\'s temporary directory is gone within 2 s', { timeout: 90000 }, async (t) => {
  if (!fs.existsSync('/usr/bin/chromedriver')) { t.skip('no /usr/bin/chromedriver (Debian: chromium-driver)'); return; }
  const r = spawnSync('/usr/bin/python3', ['-c', SELENIUM, h.WRAPPER_BIN, ...h.CHROME_FLAGS],
    { env: wr.wrapperEnv(), encoding: 'utf8', timeout: 60000 });
  assert.equal(r.status, 0, `the Selenium script ran: ${r.stderr}`);
  const got = JSON.parse(r.stdout.trim().split('\n').pop());
  t.diagnostic(`ChromeDriver quit: ${JSON.stringify(got)}`);
  assert.equal(got.dirs.length, 1, 'the wrapper had its directory');
  assert.equal(got.wrapper_alive, false, 'the wrapper is gone after quit');
  assert.ok(got.gone_after_s !== null && got.gone_after_s <= 2, `its directory went within 2 s of quit (${got.gone_after_s})`);
});

test('issue 33 #5: the wrapper SIGKILLed: its directory is gone within 2 s with no next start, and its stderr ends', ALL, async (t) => {
  const w = await startPipe();
  const dirs = wr.tmpdirsOf(w.child.pid);
  assert.equal(dirs.length, 1, 'the wrapper has its directory');
  const ended = new Promise((resolve) => w.child.stdio[2].once('close', () => resolve(Date.now())));
  const killedAt = Date.now();
  process.kill(w.child.pid, 'SIGKILL');
  const gone = await h.waitFor(() => !fs.existsSync(dirs[0]) && Date.now(), { timeout: 2000, what: `${dirs[0]} to go` }).catch(() => null);
  t.diagnostic(`directory gone ${gone && gone - killedAt} ms after the SIGKILL`);
  assert.ok(gone, `${dirs[0]} removed within 2 s of the wrapper's SIGKILL`);
  const end = await h.within(ended, 2000);
  assert.ok(end, 'nothing (no cleaner) holds the wrapper\'s stderr open');
  await w.stop();
});
