#!/usr/bin/env bash
# Tier 9: the package as a user gets it. `make deb`; `make install` and
# `make uninstall` into a DESTDIR put and take the same files the .deb has.
# Then, on a clean Debian 12 root with nothing from the build tree (the
# cached debootstrap of tools/debian-base.sh with Chromium, under an overlay
# thrown away after the run), `apt-get install ./cdpproxy_*.deb` resolves
# its libraries from the mirror and the quick start works as printed:
# `cdpproxy --launch` with Playwright's connectOverCDP (the client runs on the
# host: a chroot shares the host's loopback), the policies found by name in
# /usr/share/cdpproxy (by PUT, by --check-policy and by CDPPROXY_POLICY),
# and `cdpproxy-chromium` as the executablePath under
# `npx playwright test` (the host's node and npm and tests/clients'
# node_modules bind-mounted read-only: the client, not cdpproxy).
# Needs root (chroot, mounts); skips otherwise. Cold (the debootstrap, the
# .deb's build): minutes; warm: under a minute.
cd "$(dirname "$0")/../.." || exit 1
B=${B:-build}
if [ "$(id -u)" -ne 0 ]; then
    echo "1..0 # SKIP needs root: chroot, overlay and bind mounts"
    exit 0
fi
for c in debootstrap chroot flock node dpkg-deb; do
    command -v "$c" >/dev/null 2>&1 || { echo "1..0 # SKIP no $c (make deps installs it)"; exit 0; }
done
clients=$(pwd)/tests/clients/node_modules
[ -d "$clients/@playwright/test" ] || { echo "1..0 # SKIP no tests/clients/node_modules (make deps)"; exit 0; }

n=0 failed=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi; }
note() { sed 's/^/# /'; }
# Run from a recipe (make test), the outer make's flags are not for these.
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory "$@"; }
# Where the time goes, for the last line: "what Ns" each.
times="" t0=$SECONDS
lap() { times="$times $1 $((SECONDS - t0))s,"; t0=$SECONDS; }

run=$(mktemp -d /tmp/cdpproxy-deb-XXXXXX)
root=$run/root
mounts="" pids=""
# Every exit: stop what we started, then whatever still runs inside the
# root (ours: nothing else can enter it), unmount in reverse order, and
# remove the run's folder only when nothing is mounted under it.
cleanup() {
    for p in $pids; do kill -TERM "$p" 2>/dev/null; done
    sleep 0.2
    for p in /proc/[0-9]*; do
        [ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && kill -KILL "${p#/proc/}" 2>/dev/null
    done
    for m in $mounts; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null; done
    if grep -q " $run[/ ]" /proc/self/mounts; then
        echo "# still mounted under $run: left in place" >&2
    else
        rm -rf --one-file-system "$run"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# mount ARGS... TARGET: remembered for cleanup, newest first.
mnt() { mount "$@" && mounts="${*: -1} $mounts"; }

# The package, and install/uninstall beside it.
if [ -n "${CDPPROXY_DEB:-}" ]; then
    deb=$CDPPROXY_DEB
else
    out=$(mk B="$B" deb 2>&1); rc=$?
    deb=$(ls -t "$B"/cdpproxy_*.deb 2>/dev/null | head -n 1)
    ok $((rc == 0 && ${#deb} > 0 ? 0 : 1)) "make deb builds $deb"
    [ $rc = 0 ] || printf '%s\n' "$out" | tail -n 20 | note
fi
[ -f "$deb" ] || { echo "Bail out! no .deb"; exit 1; }
lap "make deb"
dest=$run/dest
mk B="$B/deb" PREFIX=/usr DESTDIR="$dest" install >/dev/null 2>&1
have=$(cd "$dest" && find . -type f | sort)
want=$(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ {print $NF}' | grep -v '^\./usr/share/doc/' | sed 's/\.gz$//' | sort)
[ -n "$have" ] && [ "$have" = "$want" ]; ok $? "make install DESTDIR=... PREFIX=/usr puts the files the .deb has ($(echo "$have" | wc -l))"
[ "$have" = "$want" ] || diff <(echo "$have") <(echo "$want") | head -n 20 | note
mk B="$B/deb" PREFIX=/usr DESTDIR="$dest" uninstall >/dev/null 2>&1
left=$(cd "$dest" && find . -type f -o -type d -path '*cdpproxy*')
[ -z "$left" ]; ok $? "make uninstall takes them all, and its own folders"
[ -z "$left" ] || echo "$left" | head -n 10 | note
lap "install/uninstall"

# The clean root: the cached base under an overlay.
base=$(tools/debian-base.sh --cached --with chromium) || { echo "Bail out! no Debian base"; exit 1; }
exec 9>"$(dirname "$base").use"
flock -s 9    # tools/debian-base.sh removes no root we hold
lap "the Debian base"
mkdir -p "$run/upper" "$run/work" "$root"
mnt -t overlay overlay -o "lowerdir=$base,upperdir=$run/upper,workdir=$run/work" "$root" ||
    { echo "Bail out! overlay mount failed"; exit 1; }
mnt -t proc proc "$root/proc"
mnt -t sysfs sysfs "$root/sys"
mnt -t devpts devpts "$root/dev/pts" -o newinstance,ptmxmode=0666
mkdir -p "$root/dev/shm" && mnt -t tmpfs tmpfs "$root/dev/shm" -o mode=1777
# The .debs the mirror gave an earlier run, kept beside the base.
archives=$(dirname "$(dirname "$base")")/apt-archives
mkdir -p "$archives/partial" && mnt --bind "$archives" "$root/var/cache/apt/archives"
[ ! -e "$root$(pwd)" ] && ! chroot "$root" sh -c 'command -v cdpproxy node' >/dev/null
ok $? "the root has no cdpproxy, no node and no build tree"
in_root() { chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin \
    DEBIAN_FRONTEND=noninteractive "$@"; }

cp "$deb" "$root/tmp/"
before=$(in_root dpkg-query -W -f='${Package}\n' | sort)
apt_install() { in_root apt-get install -y -q --no-install-recommends -o Dpkg::Options::=--force-unsafe-io \
    "/tmp/${deb##*/}" 2>&1; }
# The base's package lists may be older than the mirror: refresh on a miss.
out=$(apt_install) || out=$(in_root apt-get update -q 2>&1 && apt_install)
rc=$?
ok $rc "apt-get install ./${deb##*/} in the clean root"
[ $rc = 0 ] || printf '%s\n' "$out" | tail -n 20 | note
added=$(comm -13 <(echo "$before") <(in_root dpkg-query -W -f='${Package}\n' | sort) | tr '\n' ' ')
echo "# installed from the mirror with it: $added"
missing=$(in_root sh -c 'for f in /usr/bin/cdp* /usr/bin/uploadsink /usr/lib/cdpproxy/*; do ldd "$f" | grep "not found" | sed "s|^|$f: |"; done')
[ $rc = 0 ] && [ -z "$missing" ]; ok $? "every installed program finds its libraries (the Depends are complete)"
[ -z "$missing" ] || echo "$missing" | note
lap "apt-get install"

# cdpbench and uploadsink: their replays, policies and page, installed.
out=$(in_root cdpbench --scenarios playwright,pw-postdata-cap,no-such-scenario 2>&1)
echo "$out" | grep -q "unknown scenario or domain 'no-such-scenario'"
ok $? "cdpbench reads the replays and policies of its built-in scenarios from /usr/share/cdpproxy"
echo "$out" | head -n 3 | note
chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin uploadsink --listen 127.0.0.1:0 --quiet 2>"$run/sink.err" &
pids="$pids $!"
sink=""
for _ in $(seq 50); do
    sink=$(sed -n 's|^uploadsink: listening on \(http://[^ ]*\)/$|\1|p' "$run/sink.err")
    [ -n "$sink" ] && break
    sleep 0.2
done
page=$(NODE_PATH=$clients timeout 20 node -e 'fetch(process.argv[1]).then(async (r) => console.log(r.status, (await r.text()).slice(0, 15)))' "$sink/bench.html" 2>&1)
[ "$page" = "200 <!doctype html>" ]; ok $? "uploadsink serves the installed bench page (${page:-nothing})"
kill -TERM "${pids##* }" 2>/dev/null; wait "${pids##* }" 2>/dev/null; pids=${pids% *}

# A policy by name, as the README gives it, from a folder without one.
out=$(in_root sh -c 'cd /tmp && cdpproxy --check-policy network-postdata-cap && cdpproxy --check-policy network-postdata-cap.json' 2>&1)
[ "$(echo "$out" | grep -c '^/usr/share/cdpproxy/policies/network-postdata-cap.json: policy network-postdata-cap, ')" = 2 ]
ok $? "cdpproxy --check-policy network-postdata-cap (and .json) finds the installed policy"
echo "$out" | note

# cdpproxy --launch, as the quick start prints it, and connectOverCDP.
# (chroot and env exec: $! is cdpproxy's pid)
chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/bin:/bin cdpproxy --launch --log /root/rig.jsonl --listen 127.0.0.1:0 \
    2>"$run/launch.err" &
pids="$pids $!"
url=""
for _ in $(seq 100); do
    url=$(sed -n 's/^cdpproxy: listening on \(http:[^ ]*\) .*/\1/p' "$run/launch.err")
    [ -n "$url" ] && break
    sleep 0.2
done
[ -n "$url" ]; ok $? "cdpproxy --launch listens (${url:-nothing})"
[ -n "$url" ] || note <"$run/launch.err"
cat >"$run/client.js" <<'EOF'
// connectOverCDP through the installed proxy, then its policies by name.
const { chromium } = require('playwright-core');
const url = process.argv[2];
(async () => {
  const browser = await chromium.connectOverCDP(url);
  const page = await browser.contexts()[0].newPage();
  await page.goto('data:text/html,<title>quick start</title><p>ok</p>');
  const title = await page.title();
  await browser.close();
  const list = await (await fetch(url + '/proxy/policies')).json();
  const put = await fetch(url + '/proxy/policy', { method: 'PUT', body: '{"name":"network-postdata-cap"}' });
  console.log(JSON.stringify({ title, dir: list.dir, policies: list.policies.sort(), put: put.status }));
})().catch((e) => { console.error(e); process.exit(1); });
EOF
got=$(NODE_PATH=$clients timeout 60 node "$run/client.js" "$url" 2>&1)
echo "$got" | grep -q '"title":"quick start"'; ok $? "Playwright connectOverCDP through it: a page loads"
echo "$got" | grep -q '"dir":"/usr/share/cdpproxy/policies"' && echo "$got" | grep -q '"network-postdata-cap"'
ok $? "the policies come from /usr/share/cdpproxy/policies"
echo "$got" | grep -q '"put":200'; ok $? "PUT /proxy/policy {\"name\":\"network-postdata-cap\"} finds it there"
echo "$got" | note
pid=${pids##* }
kill -TERM "$pid" 2>/dev/null && wait "$pid"; ok $? "cdpproxy exits 0 on SIGTERM"
grep -q '"method": *"Page.navigate"' "$root/root/rig.jsonl" 2>/dev/null; ok $? "its --log has the client's Page.navigate"
pids=${pids% *}
lap "--launch"

# cdpproxy-chromium under npx playwright test, node from the host.
mkdir -p "$root/usr/local/lib/node_modules/npm" "$root/root/suite/node_modules"
touch "$root/usr/local/bin/node"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
ro() { mnt --bind "$1" "$2" && mount -o remount,bind,ro "$2"; }
ro "$(readlink -f "$(command -v node)")" "$root/usr/local/bin/node" &&
ro "$(dirname "$(readlink -f "$(command -v npx)")")/.." "$root/usr/local/lib/node_modules/npm" &&
ro "$clients" "$root/root/suite/node_modules"
ok $? "node, npm and the client packages bind-mounted read-only"
cat >"$root/root/suite/playwright.config.js" <<'EOF'
// The quick start's one line: the browser Playwright launches is cdpproxy-chromium.
module.exports = { use: { launchOptions: { executablePath: '/usr/bin/cdpproxy-chromium' } } };
EOF
cat >"$root/root/suite/quick.spec.js" <<'EOF'
const { test, expect } = require('@playwright/test');
test('a page through cdpproxy-chromium', async ({ page }) => {
  await page.goto('data:text/html,<title>suite</title><p>ok</p>');
  await expect(page).toHaveTitle('suite');
});
EOF
out=$(timeout 120 chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/bin:/usr/bin:/bin \
    CDPPROXY_LOG=/root/suite/wrapper.jsonl CDPPROXY_POLICY=network-postdata-cap sh -c 'cd /root/suite && npx --no-install playwright test --reporter=line' 2>&1)
rc=$?
ok $rc "npx playwright test with executablePath /usr/bin/cdpproxy-chromium passes"
[ $rc = 0 ] || printf '%s\n' "$out" | tail -n 30 | note
grep -q '"method": *"Page.navigate"' "$root/root/suite/wrapper.jsonl" 2>/dev/null
ok $? "the wrapper's log has the suite's Page.navigate"
grep -q '"kind": *"policy".*"name": *"network-postdata-cap"' "$root/root/suite/wrapper.jsonl" 2>/dev/null
ok $? "CDPPROXY_POLICY=network-postdata-cap: the installed policy, by name"
lap "npx playwright test"
echo "# times:${times%,}"

echo "1..$n"
exit $failed
