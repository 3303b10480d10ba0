#!/bin/sh
':' //; exec node --test-reporter="$(cd "$(dirname "$0")" && pwd)/lib/tap-reporter.js" "$0" "$@"
// (The line above lets sh start node:test with a prove-friendly TAP reporter.)
// Tier 1: every command README.md shows runs, in the README's order. Its
// fenced blocks are read (sh, js, python, yaml); each line of a sh block
// must match one of the rules below, or the test fails: a new command needs
// a rule. Placeholders are replaced: /usr/local/bin/ by a directory of
// links to build/'s programs (what `make install` puts there), the ports
// 9222 and 9223 by the ports the Chromium and the proxy took (started with
// port 0; the proxy gets --listen 127.0.0.1:0), rig.jsonl and
// /tmp/cdp-profile by files of the test's own. What cannot run here is
// checked another way, said where: make by `make -n` (make report and make
// test take minutes and make install writes to /usr/local), apt-get by
// --simulate, the CI job by parsing it and running its suite steps.
// What another step already runs is not run twice: the connect lines run
// in one node process, each in its own block; the first config line's suite
// run is the CI job's plain run when the two configs give Playwright the
// same `use` (CDPPROXY_BROWSER unset), else its own; cdpbench audit runs
// one round of two arms. Two blocks are run by the file that tests what they
// show, more fully, and checked here against it: `PUPPETEER_EXECUTABLE_PATH=
// ... npm test` by 81-wrapper-puppeteer.t (puppeteer.launch() through the
// wrapper by that variable), the Selenium snippets by 86-wrapper-selenium.t
// (each of their lines is one of 86's script's). WebdriverIO's capabilities
// open a BiDi session through the wrapper here (93 runs the rig with them).
// DOCS_PREMERGE=1: a make target another part of the change adds (install,
// deb) is a TODO instead of a failure.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const h = require('./lib/harness');

const ALL = { timeout: 900000 };
const B = path.resolve(path.dirname(h.PROXY_BIN));
const PREMERGE = process.env.DOCS_PREMERGE === '1';
const PENDING_TARGETS = ['install', 'deb'];
const README = process.env.README || path.join(h.ROOT, 'README.md');
const CLIENTS = path.join(h.ROOT, 'tests/clients');
const AUDIT_ONCE = '--rounds 1 --warmup-rounds 0 --policies direct,passthrough';

// The README's fenced blocks, in order: {lang, text, line}.
function blocks(text) {
  const out = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^```(\w*)\s*$/.exec(lines[i]);
    if (!m) continue;
    const start = i;
    const body = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]); i++) body.push(lines[i]);
    out.push({ lang: m[1], text: body.join('\n'), line: start + 1 });
  }
  return out;
}

// A sh block's commands: continuation lines joined, trailing comments off.
function commands(text) {
  return text.replace(/\\\n\s*/g, ' ').split('\n')
    .map((l) => l.replace(/\s{2,}#.*$/, '').trim()).filter((l) => l && !l.startsWith('#'));
}

// pending: a config line whose suite run waits for the next config line;
// deferred: one whose run is the CI job's plain run.
const st = { subst: [], bin: null, tmp: null, chrome: null, proxy: null, project: null, config: null, pending: null, deferred: null, ran: [], todo: [] };

function sub(s) {
  for (const [a, b] of st.subst) s = s.split(a).join(b);
  return s;
}

function sh(cmd, { cwd = h.ROOT, env = {}, timeout = 240000 } = {}) {
  const all = { ...process.env, PATH: `${st.bin}:${path.join(CLIENTS, 'node_modules/.bin')}:${process.env.PATH}`, ...env };
  for (const k of Object.keys(all)) if (all[k] === null) delete all[k];
  const r = spawnSync('sh', ['-c', cmd], { cwd, encoding: 'utf8', timeout, maxBuffer: 64 << 20, env: all });
  st.ran.push(cmd);
  return r;
}

function readLogDir(dir) {
  if (!fs.existsSync(dir)) return [];
  const files = fs.statSync(dir).isDirectory() ? fs.readdirSync(dir).map((f) => path.join(dir, f)) : [dir];
  return files.flatMap((f) => h.readLog(f));
}

async function stopProxy() {
  if (!st.proxy) return;
  st.proxy.kill('SIGTERM');
  await new Promise((res) => (st.proxy.exitCode !== null ? res() : st.proxy.once('exit', res)));
  st.proxy = null;
}

// A server command of the README, in the background until the next one or the end.
async function startChromium(cmd) {
  const line = sub(cmd).replace(/\s*&$/, '').replace(/--remote-debugging-port=\d+/, '--remote-debugging-port=0');
  const child = h.spawnTracked('sh', ['-c', `exec ${line}`], { stdio: ['ignore', 'ignore', 'ignore'], env: { ...process.env, PATH: `${st.bin}:${process.env.PATH}` } });
  st.chrome = child;
  const file = path.join(st.tmp, 'profile', 'DevToolsActivePort');
  await h.waitFor(() => fs.existsSync(file) && fs.readFileSync(file, 'utf8').includes('\n'), { timeout: 30000, what: 'DevToolsActivePort' });
  const port = fs.readFileSync(file, 'utf8').split('\n')[0];
  st.subst.push(['127.0.0.1:9222', `127.0.0.1:${port}`], ['port=9222', `port=${port}`]);
  await h.getJSON(`http://127.0.0.1:${port}/json/version`);
}

async function startProxy(cmd) {
  await stopProxy();
  st.subst = st.subst.filter(([a]) => !a.includes('9223'));
  const line = sub(cmd).replace(/^cdpproxy /, 'cdpproxy --listen 127.0.0.1:0 ');
  const child = h.spawnTracked('sh', ['-c', `exec ${line}`], { cwd: h.ROOT, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, PATH: `${st.bin}:${process.env.PATH}` } });
  let err = '';
  child.stderr.on('data', (d) => { err += d; });
  const exited = new Promise((res) => child.once('exit', (code) => res(code)));
  const port = await Promise.race([
    h.waitFor(() => (/listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(err) || [])[1], { timeout: 30000, what: `${line}: listening` }),
    exited.then((code) => { throw new Error(`${line}: exited ${code}: ${err}`); }),
  ]);
  st.proxy = child;
  st.subst.push(['127.0.0.1:9223', `127.0.0.1:${port}`], ['port: 9223', `port: ${port}`]);
}

// The Playwright project a README config line is tried in: one spec, the
// client packages linked in, the config from the README's lines.
function project(configLines) {
  const dir = path.join(st.tmp, 'project');
  if (!fs.existsSync(dir)) {
    fs.mkdirSync(path.join(dir, 'tests'), { recursive: true });
    fs.symlinkSync(path.join(CLIENTS, 'node_modules'), path.join(dir, 'node_modules'));
    fs.writeFileSync(path.join(dir, 'tests/one.spec.js'), `const { test, expect } = require('@playwright/test');
test('a page', async ({ page }) => {
  await page.goto('data:text/html,<title>ok</title>');
  await expect(page).toHaveTitle('ok');
});
`);
  }
  const pre = configLines.filter((l) => !l.startsWith('use:'));
  const use = configLines.filter((l) => l.startsWith('use:'));
  fs.writeFileSync(path.join(dir, 'playwright.config.js'),
    `${pre.join('\n')}\nmodule.exports = { testDir: 'tests', workers: 1, reporter: 'line', outputDir: ${JSON.stringify(path.join(st.tmp, 'pw-out'))},\n  ${use.join('\n  ')}\n};\n`);
  return dir;
}

function runSuite(cmd, env = {}) {
  const logs = path.join(st.tmp, `pwlog-${st.ran.length}`);
  fs.mkdirSync(logs);
  const r = sh(sub(cmd), { cwd: st.project, env: { CDPPROXY_LOG: logs, ...env } });
  return { r, records: readLogDir(logs) };
}

// The `use` two config lines give Playwright, CDPPROXY_BROWSER unset: equal?
function sameUse(a, b) {
  const files = [a, b].map((lines, i) => {
    const f = path.join(st.tmp, `use-${i}.config.js`);
    fs.writeFileSync(f, `module.exports = { ${lines.join('\n')} };\n`);
    return f;
  });
  const env = { ...process.env };
  delete env.CDPPROXY_BROWSER;
  const r = spawnSync('node', ['-e', 'for (const f of process.argv.slice(1)) console.log(JSON.stringify(require(f).use))', ...files],
    { encoding: 'utf8', env });
  const out = r.stdout.trim().split('\n');
  return r.status === 0 && out.length === 2 && out[0] === out[1];
}

// A config line's suite run not left to the CI job's: now, in its own project.
function runPending() {
  if (!st.pending) return;
  const lines = st.pending;
  st.pending = null;
  const keep = st.config;
  st.project = project(lines);
  const { r, records } = runSuite('npx playwright test');
  st.project = project(keep);
  assert.equal(r.status, 0, `npx playwright test with ${lines}: ${r.stdout}${r.stderr}`);
  assert.ok(records.some((x) => x.method === 'Page.navigate'), 'the suite went through the wrapper: its log has Page.navigate');
}

const jsRules = [
  // Connect snippets: each line on its own, through the running proxy; the
  // proxy's log must show the client by name.
  // One node process runs the lines one after the other, each in a block of
  // its own; each line's connection must be logged after the one before it.
  { re: /connectOverCDP|puppeteer\.connect|await CDP\(/, run: async (lines) => {
    const libs = lines.map((raw) => (/connectOverCDP/.test(raw) ? 'playwright' : /puppeteer/.test(raw) ? 'puppeteer' : 'chrome-remote-interface'));
    const after = { playwright: 'assert.ok(browser.contexts().length >= 0); await browser.close();',
      puppeteer: 'await browser.version(); await browser.disconnect();',
      'chrome-remote-interface': 'await client.Browser.getVersion(); await client.close();' };
    const need = { playwright: "const { chromium } = r('playwright-core');", puppeteer: "const puppeteer = r('puppeteer-core');",
      'chrome-remote-interface': "const CDP = r('chrome-remote-interface');" };
    const script = path.join(st.tmp, 'connect.js');
    fs.writeFileSync(script, `const assert = require('assert');
const r = require('module').createRequire(${JSON.stringify(path.join(CLIENTS, 'package.json'))});
${[...new Set(libs)].map((l) => need[l]).join('\n')}
(async () => {
${lines.map((raw, i) => `  console.log('line ${i}');\n  { ${sub(raw)}\n${after[libs[i]]} }`).join('\n')}
  console.log('line ${lines.length}');
})().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
`);
    const before = h.readLog(path.join(st.tmp, 'rig.jsonl')).length;
    const res = sh(`node ${script}`, { timeout: 60000 * lines.length });
    const reached = Math.max(0, ...[...res.stdout.matchAll(/^line (\d+)$/gm)].map((m) => Number(m[1])));
    assert.equal(res.status, 0, `${lines[Math.min(reached, lines.length - 1)]}: ${res.stderr}`);
    const opened = h.readLog(path.join(st.tmp, 'rig.jsonl')).slice(before).filter((x) => x.kind === 'open');
    let at = 0;
    lines.forEach((raw, i) => {
      const k = opened.findIndex((x, j) => j >= at && x.client && x.client.library === libs[i]);
      assert.ok(k >= 0, `${raw}: the proxy logged a ${libs[i]} connection: ${JSON.stringify(opened.slice(at).map((x) => x.client))}`);
      at = k + 1;
    });
  } },
  // The wrapper line for @playwright/test: the suite passes, through the wrapper.
  // A config that reads CDPPROXY_BROWSER is run by the CI job's steps:
  // plainly (unset: the fallback) and by cdpbench audit (set).
  // A config line that does not read CDPPROXY_BROWSER waits for the one
  // that does: if both give Playwright the same `use` with it unset, the CI
  // job's plain run tries both; otherwise it runs the suite itself then.
  { re: /^use: /, run: async (raw) => {
    const lines = raw.map(sub);
    st.config = lines;
    st.project = project(lines);
    if (!lines.some((l) => l.includes('CDPPROXY_BROWSER'))) {
      st.pending = lines;
      return;
    }
    if (st.pending && sameUse(st.pending, lines)) {
      console.log(`# ${st.pending.join(' ')}: the same use as the next config line with CDPPROXY_BROWSER unset, tried by the CI job's plain run`);
      st.deferred = st.pending;
      st.pending = null;
    }
    runPending();
  } },
  // Playwright's own Chromium: the wrapper is given executablePath(); with the
  // download present the suite passes, without it the wrapper names that path.
  { re: /^process\.env\.CDPPROXY_CHROMIUM/, run: async (lines) => {
    st.project = project([...lines.map(sub), ...st.config]);
    const want = spawnSync('node', ['-p', "require('@playwright/test').chromium.executablePath()"], { cwd: st.project, encoding: 'utf8' }).stdout.trim();
    assert.match(want, /ms-playwright/, `Playwright's own Chromium: ${want}`);
    const { r, records } = runSuite('npx playwright test', { CDPPROXY_CHROMIUM: null });
    if (fs.existsSync(want)) {
      assert.equal(r.status, 0, r.stdout + r.stderr);
      assert.ok(records.length > 0, 'through the wrapper');
    } else {
      assert.ok((r.stdout + r.stderr).includes(`cdpproxy-chromium: cannot run ${want}: No such file or directory (set CDPPROXY_CHROMIUM)`),
        `not downloaded here: the wrapper was given ${want}: ${r.stdout}${r.stderr}`);
    }
    st.project = project(st.config);
  } },
  // WebdriverIO's capabilities: a session of them (BiDi, its default) opens
  // a page through the wrapper, whose log has ChromeDriver starting the
  // BiDi mapper (Target.exposeDevToolsProtocol). 94-wrapper-wdio.t runs the
  // rig's suite with the same two keys.
  { re: /'wdio:chromedriverOptions'/, run: async (lines) => {
    const script = path.join(st.tmp, 'wdio.js');
    const logs = path.join(st.tmp, 'wdio-logs');
    fs.mkdirSync(logs);
    fs.writeFileSync(script, `const { remote } = require('module').createRequire(${JSON.stringify(path.join(CLIENTS, 'package.json'))})('webdriverio');
const config = {
${lines.map(sub).join('\n')}
};
(async () => {
  const browser = await remote({ logLevel: 'error', capabilities: config.capabilities[0] });
  try {
    await browser.url('data:text/html,<title>ok</title>');
    if (await browser.getTitle() !== 'ok' || !browser.isBidi) throw new Error('not a BiDi session on the page');
  } finally {
    await browser.deleteSession();
  }
})().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
`);
    const r = sh(`node ${script}`, { env: { CDPPROXY_LOG: logs }, timeout: 120000 });
    assert.equal(r.status, 0, `WebdriverIO with the README's capabilities: ${r.stdout}${r.stderr}`);
    assert.ok(readLogDir(logs).some((x) => x.method === 'Target.exposeDevToolsProtocol'),
      'the BiDi session went through the wrapper: its log has Target.exposeDevToolsProtocol');
  } },
];

const shRules = [
  { re: /^chromium .*&$/, run: startChromium },
  { re: /^cdpproxy /, run: startProxy },
  { re: /^(jq|cdplog) /, run: async (cmd) => {
    const r = sh(sub(cmd));
    assert.equal(r.status, 0, `${cmd}: ${r.stderr}`);
  } },
  // curl with --fail, so an HTTP error is one.
  { re: /^curl /, run: async (cmd) => {
    const r = sh(sub(cmd).replace(/^curl /, 'curl --fail '));
    assert.equal(r.status, 0, `${cmd}: ${r.stdout}${r.stderr}`);
  } },
  // "npm test" stands for the user's suite, launched by the puppeteer
  // package, which reads PUPPETEER_EXECUTABLE_PATH: 81-wrapper-puppeteer.t
  // runs that (puppeteer.launch() through the wrapper, port and pipe modes,
  // its log read), so it is not run twice: here the variable must name the
  // installed wrapper, and 81 must set the same variable to the wrapper.
  { re: /^PUPPETEER_EXECUTABLE_PATH=\S+ npm test$/, run: async (cmd) => {
    const value = /^PUPPETEER_EXECUTABLE_PATH=(\S+)/.exec(sub(cmd))[1];
    assert.ok(fs.existsSync(value) && fs.realpathSync(value) === fs.realpathSync(h.WRAPPER_BIN),
      `${cmd}: ${value} is the wrapper, cdpproxy-chromium`);
    const t81 = fs.readFileSync(path.join(h.ROOT, 'tests/integration/81-wrapper-puppeteer.t'), 'utf8');
    assert.match(t81, /^process\.env\.PUPPETEER_EXECUTABLE_PATH = h\.WRAPPER_BIN;$/m,
      '81-wrapper-puppeteer.t sets PUPPETEER_EXECUTABLE_PATH to the wrapper');
    assert.match(t81, /h\.client\('puppeteer'\)[\s\S]*puppeteer\.launch\(/, 'and launches with the puppeteer package');
  } },
  { re: /^apt-get install /, run: async (cmd) => {
    const r = sh(cmd.replace(/^apt-get install/, 'apt-get --simulate install'));
    assert.equal(r.status, 0, `${cmd} (simulated): ${r.stderr}`);
  } },
  { re: /^make( |$)/, run: async (cmd) => {
    const target = cmd.split(/\s+/)[1] || 'all';
    const r = sh(cmd.replace(/^make/, 'make -n'));
    if (r.status !== 0 && PREMERGE && PENDING_TARGETS.includes(target)) return st.todo.push(`make ${target}`);
    assert.equal(r.status, 0, `${cmd} (make -n): ${r.stderr}`);
  } },
  // cdpbench audit on the project: one round, no warm-up, instead of --rounds
  // N, and two arms: direct (CDPPROXY_BROWSER the real Chromium) and
  // passthrough (the wrapper), which are what the config must take;
  // 84-audit.t runs the policy arm.
  { re: /^cdpbench audit /, run: async (cmd) => {
    const { r } = runSuite(cmd.replace(/--rounds \d+/, AUDIT_ONCE));
    assert.equal(r.status, 0, `${cmd}: ${r.stdout}${r.stderr}`);
    const out = /--out (\S+)/.exec(cmd)[1];
    assert.ok(fs.existsSync(path.join(st.project, out, 'audit.html')), 'audit.html written');
    const json = JSON.parse(fs.readFileSync(path.join(st.project, out, 'audit.json'), 'utf8'));
    assert.ok(!/No rig analysis/.test(r.stdout), `the proxied arms logged (CDPPROXY_BROWSER read): ${r.stdout}`);
    assert.ok(json.arms.every((a) => a.runs_failed === 0 && a.runs_ok > 0), `every run passed: ${JSON.stringify(json.arms.map((a) => [a.name, a.runs_ok, a.runs_failed]))}`);
    assert.ok(json.rig, 'the rig analysed from a proxied run\'s logs');
  } },
];

test('the README\'s commands, in order', ALL, async () => {
  st.tmp = h.tmpdir('cdpproxy-readme-').dir;
  st.bin = path.join(st.tmp, 'bin');
  fs.mkdirSync(st.bin);
  fs.mkdirSync(path.join(st.tmp, 'profile'));
  for (const p of ['cdpproxy', 'cdpproxy-chromium', 'cdpbench', 'cdplog']) fs.symlinkSync(path.join(B, p), path.join(st.bin, p));
  st.subst.push(['/usr/local/bin/', `${st.bin}/`], ['rig.jsonl', path.join(st.tmp, 'rig.jsonl')], ['/tmp/cdp-profile', path.join(st.tmp, 'profile')]);
  const all = blocks(fs.readFileSync(README, 'utf8'));
  let yaml = null;
  try {
    for (const b of all) {
      const where = `README.md:${b.line}`;
      if (b.lang === 'sh') {
        for (const cmd of commands(b.text)) {
          const rule = shRules.find((r) => r.re.test(cmd));
          assert.ok(rule, `${where}: no rule in 19-readme.t runs \`${cmd}\``);
          const t0 = Date.now();
          await rule.run(cmd);
          console.log(`# ${where}: ${cmd} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
        }
      } else if (b.lang === 'js') {
        const lines = b.text.split('\n').filter((l) => l.trim());
        const rule = jsRules.find((r) => lines.some((l) => r.re.test(l)));
        assert.ok(rule, `${where}: no rule in 19-readme.t runs this js block`);
        const t0 = Date.now();
        await rule.run(lines);
        console.log(`# ${where}: js ${lines[0].slice(0, 60)} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
      } else if (b.lang === 'python') {
        // 86-wrapper-selenium.t runs this snippet (ChromeDriver launching the
        // wrapper; in pipe and BiDi modes too; the log read against
        // ChromeDriver's own), so it is not run twice: each line here must be
        // one of 86's script, the wrapper's path its `binary` (the wrapper it
        // is given), ChromeDriver's Service without 86's log arguments.
        const t86 = fs.readFileSync(path.join(h.ROOT, 'tests/integration/86-wrapper-selenium.t'), 'utf8');
        const script = (/^const SELENIUM = `([\s\S]*?)`;$/m.exec(t86) || [])[1] || '';
        // Its lines with their indented continuations joined, and each line
        // as it is (the BiDi capability is set inside an if).
        const said = [...script.replace(/, service_args=\[[^\]]*\]/g, '').replace(/\s*\n\s+/g, ' ').split('\n'),
          ...script.split('\n')].map((l) => l.trim());
        assert.match(t86, /python\(SELENIUM, \[h\.WRAPPER_BIN, /, '86 gives its script the wrapper');
        for (const raw of b.text.split('\n').filter((l) => l.trim())) {
          const m = /^o\.binary_location = "([^"]+)"$/.exec(sub(raw));
          if (m) assert.ok(fs.existsSync(m[1]) && fs.realpathSync(m[1]) === fs.realpathSync(h.WRAPPER_BIN), `${where}: ${raw}: the wrapper`);
          const line = m ? 'o.binary_location = binary' : raw.trim();
          assert.ok(said.includes(line), `${where}: \`${raw}\` is not a line of 86-wrapper-selenium.t's script`);
        }
        console.log(`# ${where}: python (Selenium through the wrapper): run by 86-wrapper-selenium.t`);
      } else if (b.lang === 'yaml') {
        yaml = b;
      } else {
        assert.fail(`${where}: a fenced block of language '${b.lang}': give it one this test knows (sh, js, python, yaml)`);
      }
    }
    runPending();
    // The CI job: valid YAML, actions pinned to a major version, its suite
    // steps run in the project (the same commands as above, so the paths it
    // uploads are those they write); its install steps are the ones above.
    assert.ok(yaml, 'the README has a CI job');
    const job = h.client('js-yaml').load(yaml.text);
    const steps = Object.values(job.jobs)[0].steps;
    for (const s of steps.filter((x) => x.uses)) assert.match(s.uses, /^actions\/[a-z-]+@v\d+$/, s.uses);
    for (const s of steps.filter((x) => x.run)) {
      if (/npx playwright test/.test(s.run)) {
        console.log(`# CI: ${s.run}`);
        if (st.ran.some((c) => c.startsWith(s.run.replace(/--rounds \d+/, AUDIT_ONCE)))) console.log('#   the same command as the README\'s, run above in the same project');
        else if (/^cdpbench audit /.test(s.run)) await shRules.find((r) => r.re.test(s.run)).run(s.run);
        else {
          const r = sh(s.run, { cwd: st.project, env: { CDPPROXY_BROWSER: null } });
          assert.equal(r.status, 0, `${s.run}: ${r.stdout}${r.stderr}`);
          const logs = /CDPPROXY_LOG=\$PWD\/(\S+)/.exec(s.run);
          if (logs && st.deferred) {
            assert.ok(readLogDir(path.join(st.project, logs[1])).some((x) => x.method === 'Page.navigate'),
              `${s.run}, for ${st.deferred.join(' ')} too: the suite went through the wrapper (its log has Page.navigate)`);
            st.deferred = null;
          }
        }
      } else {
        console.log(`# CI, not run here (installs; its parts ran above): ${s.run}`);
        assert.match(s.run, /^(apt-get update && apt-get install -y [a-z -]+|make -C cdpproxy deps all install|npm ci)$/, `a CI step this test knows: ${s.run}`);
      }
    }
    // A config line left to a CI run that did not come: its own run now.
    if (st.deferred) {
      st.pending = st.deferred;
      st.deferred = null;
      runPending();
    }
    const upload = steps.find((x) => /upload-artifact/.test(x.uses || ''));
    for (const p of upload.with.path.split('\n').filter(Boolean)) {
      assert.ok(fs.existsSync(path.join(st.project, p)), `the CI job uploads ${p}, which the steps wrote`);
    }
    assert.ok(readLogDir(path.join(st.project, 'cdp-logs')).length > 0, 'cdp-logs/ has the plain run\'s logs');
  } finally {
    await stopProxy();
    if (st.chrome) st.chrome.kill('SIGTERM');
  }
  if (st.todo.length) console.log(`# TODO from other parts of the change: ${st.todo.join(', ')}`);
  console.log(`# ${st.ran.length} commands run`);
});
