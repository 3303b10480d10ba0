#!/bin/sh
# capture-replay: records the CDP commands a real client (Playwright or
# Puppeteer, from tests/clients) sends to a new page, through cdpproxy --log
# --log-bodies, and writes them as a cdpbench replay file.
#
# usage: tools/capture-replay.sh playwright|puppeteer[-route] [OUT]
#   CLIENT-route: the same with one route that matches everything and
#   continues it (page.route; setRequestInterception), as a suite that mocks
#   one API call sends.
#   OUT defaults to tools/cdpbench/scenario/replays/CLIENT.jsonl; B=DIR picks the build
#   directory (default build). Needs `make` and `npm ci` in tests/clients.
set -eu
cd "$(dirname "$0")/.."
client=${1:?usage: tools/capture-replay.sh playwright\|puppeteer[-route] [OUT]}
out=${2:-tools/cdpbench/scenario/replays/$client.jsonl}
B=${B:-build}
what=
case $client in *-route) what=" with one route matching every request (continued)" ;; esac
case $client in
    playwright|playwright-route) pkg=playwright-core ;;
    puppeteer|puppeteer-route) pkg=puppeteer-core ;;
    *) echo "capture-replay: the client is playwright or puppeteer (-route), not '$client'" >&2; exit 2 ;;
esac
for bin in "$B/cdpproxy" "$B/cdpbench"; do
    [ -x "$bin" ] || { echo "capture-replay: $bin is missing: run make" >&2; exit 1; }
done

tmp=$(mktemp -d /tmp/capture-replay-XXXXXX)
proxy_pid=
cleanup() {
    # (set -e: a non-zero wait must not end the trap before the rm)
    if [ -n "$proxy_pid" ] && kill -TERM "$proxy_pid" 2>/dev/null; then
        wait "$proxy_pid" 2>/dev/null || true
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# cdpproxy starts its own headless Chromium (fresh profile) and logs every
# message with its body.
"$B/cdpproxy" --launch --listen 127.0.0.1:0 --log "$tmp/log.jsonl" --log-bodies 2>"$tmp/proxy.err" &
proxy_pid=$!
port=
for _ in $(seq 200); do
    port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9]*\).*|\1|p' "$tmp/proxy.err" | head -n1)
    [ -n "$port" ] && break
    kill -0 "$proxy_pid" 2>/dev/null || { cat "$tmp/proxy.err" >&2; exit 1; }
    sleep 0.1
done
[ -n "$port" ] || { echo "capture-replay: cdpproxy did not start" >&2; cat "$tmp/proxy.err" >&2; exit 1; }

# What a rig does first: connect, open a page, close it. Only the new page's
# session commands end up in the replay.
NODE_PATH=tests/clients/node_modules node -e '
const [client, url] = process.argv.slice(1);
(async () => {
  if (client.startsWith("playwright")) {
    const { chromium } = require("playwright-core");
    const browser = await chromium.connectOverCDP(url);
    const page = await browser.contexts()[0].newPage();
    if (client.endsWith("-route"))
      await page.route("**/*", (route) => route.continue());
    await page.close();
    await browser.close();
  } else {
    const puppeteer = require("puppeteer-core");
    const browser = await puppeteer.connect({ browserURL: url });
    const page = await browser.newPage();
    if (client.endsWith("-route")) {
      await page.setRequestInterception(true);
      page.on("request", (request) => request.continue());
    }
    await page.close();
    await browser.disconnect();
  }
})().catch((e) => { console.error(e); process.exit(1); });
' "$client" "http://127.0.0.1:$port"

kill -TERM "$proxy_pid"
wait "$proxy_pid" || true
proxy_pid=
version=$(NODE_PATH=tests/clients/node_modules node -p "require('$pkg/package.json').version")
{
    echo "# $pkg $version: the commands it sent to a new page's session$what, captured"
    echo "# through cdpproxy --log --log-bodies by tools/capture-replay.sh on $(date -u +%Y-%m-%d)."
    echo '# "$TARGET_ID" stands for the page'"'"'s target id (its main frame id), filled in at replay.'
    "$B/cdpbench" --print-replay "$tmp/log.jsonl"
} >"$out.tmp"
mv "$out.tmp" "$out"
echo "capture-replay: wrote $out ($(grep -vc '^#' "$out") commands)" >&2
