#!/bin/sh
# fresh-debian: checks that `make deps` is honest. Builds a minimal Debian 12
# chroot with debootstrap, clones this repository's HEAD into it and runs
# there what a user of a fresh machine would: `apt-get install make`, then
# `make test` (and, with --report, `make report`). Needs root and the Debian
# mirror; takes about 10 minutes on 2 cores. The chroot is removed at the end
# unless --keep is given.
#
#   tools/fresh-debian.sh [--report] [--keep] [--dir DIR] [--mirror URL]
#
# The machine's extra CA certificates (/usr/local/share/ca-certificates) are
# copied in, so npm works behind the same TLS-inspecting proxy as the host.
set -eu
cd "$(dirname "$0")/.."

dir=/tmp/cdpproxy-fresh-debian keep=0 report=0 mirror=http://deb.debian.org/debian
while [ $# -gt 0 ]; do
    case "$1" in
    --report) report=1 ;;
    --keep) keep=1 ;;
    --dir|--mirror)
        [ $# -ge 2 ] || { echo "fresh-debian: $1 needs a value" >&2; exit 2; }
        if [ "$1" = --dir ]; then dir=$2; else mirror=$2; fi
        shift ;;
    -h|--help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "fresh-debian: unknown option $1 (try --help)" >&2; exit 2 ;;
    esac
    shift
done
[ "$(id -u)" -eq 0 ] || { echo "fresh-debian: needs root (chroot, mounts)" >&2; exit 2; }
[ ! -e "$dir" ] || { echo "fresh-debian: $dir exists; remove it or give --dir" >&2; exit 2; }

cleanup() {
    for m in dev/shm dev/pts sys proc; do umount -l "$dir/$m" 2>/dev/null || true; done
    # --one-file-system: never into a mount that failed to go
    [ "$keep" = 1 ] || rm -rf --one-file-system "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

tools/debian-base.sh --create "$dir" --mirror "$mirror"
# debootstrap's own /dev nodes; a fresh devpts and /dev/shm for Chromium.
mount -t proc proc "$dir/proc"
mount -t sysfs sysfs "$dir/sys"   # its own, not a bind: unmounting it leaves the host's alone
mount -t devpts devpts "$dir/dev/pts" -o newinstance,ptmxmode=0666
mkdir -p "$dir/dev/shm" && mount -t tmpfs tmpfs "$dir/dev/shm" -o mode=1777
git clone -q "$(pwd)" "$dir/root/cdpproxy"

targets="test"
[ "$report" = 0 ] || targets="test report"
cat >"$dir/root/run.sh" <<EOF
#!/bin/sh
set -e
export HOME=/root DEBIAN_FRONTEND=noninteractive CI=true \
    NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
apt-get update -qq
apt-get install -y -qq make >/dev/null
cd /root/cdpproxy
for t in $targets; do
    echo "fresh-debian: make \$t" >&2
    make \$t
done
EOF
chmod +x "$dir/root/run.sh"
if chroot "$dir" /root/run.sh; then
    echo "fresh-debian: PASS: make $targets on a fresh Debian 12 ($(git rev-parse --short HEAD))"
else
    echo "fresh-debian: FAIL: make $targets on a fresh Debian 12 ($(git rev-parse --short HEAD))" >&2
    exit 1
fi
