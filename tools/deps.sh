#!/bin/sh
# Installs what building and testing cdpproxy needs, and only what is missing:
# Debian packages with apt-get (as root; otherwise prints the command and
# stops) and the npm client packages from tests/clients' lock file.
# --bench: also what only `make bench-proxy` uses (perf, for syscall counts).
set -eu
cd "$(dirname "$0")/.."

PKGS="build-essential pkg-config libwebsockets-dev libjansson-dev libevent-dev libhttp-parser-dev libxml2-dev
      chromium perl jq curl ca-certificates procps clang libclang-rt-14-dev llvm valgrind nginx-light
      chromium-driver python3 python3-selenium python3-websockets python3-websocket
      mandoc man-db groff-base python3-jsonschema prometheus prometheus-pushgateway \
      dpkg-dev debootstrap ccache"
[ "${1:-}" = --bench ] && PKGS="$PKGS linux-perf"
command -v node >/dev/null 2>&1 || PKGS="$PKGS nodejs"
command -v npm >/dev/null 2>&1 || PKGS="$PKGS npm"

missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
        missing="$missing $p"
done
if [ -n "$missing" ]; then
    cmd="apt-get update && apt-get install -y --no-install-recommends$missing"
    if [ "$(id -u)" -ne 0 ]; then
        echo "deps: missing Debian packages:$missing" >&2
        echo "deps: run as root: $cmd" >&2
        exit 1
    fi
    echo "deps: installing$missing" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >&2
    # Prometheus and its Pushgateway start as system services on install
    # (under systemd): the tests start their own on loopback, by PID, and a
    # daemon left on :9090 and :9091 is nobody's. Only ones we just installed.
    for svc in prometheus prometheus-pushgateway; do
        case " $missing " in *" $svc "*) ;; *) continue ;; esac
        if [ -d /run/systemd/system ]; then
            systemctl disable --now "$svc" >/dev/null 2>&1 || true
        elif [ -x "/etc/init.d/$svc" ]; then
            "/etc/init.d/$svc" stop >/dev/null 2>&1 || true
        fi
    done
fi

# npm ci only when the installed tree is older than the lock file or
# package.json (its overrides are read by npm ci, not kept in the lock).
lock=tests/clients/package-lock.json
stamp=tests/clients/node_modules/.package-lock.json
if [ -f "$lock" ] && { [ ! -f "$stamp" ] || [ "$lock" -nt "$stamp" ] ||
                       [ tests/clients/package.json -nt "$stamp" ]; }; then
    echo "deps: npm ci in tests/clients" >&2
    # The puppeteer package downloads a Chrome when installed: not here, the
    # tests use Debian's (tests/clients/.puppeteerrc.cjs says so too).
    (cd tests/clients && PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error) >&2
fi
exit 0
