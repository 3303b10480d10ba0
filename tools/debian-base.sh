#!/bin/sh
# debian-base: a minimal Debian 12 root (debootstrap --variant=minbase, the
# mirror, the host's CA certificates), for checks that need a machine with
# nothing of ours on it.
#
#   tools/debian-base.sh --create DIR [--with "PKG ..."] [--mirror URL]
#       debootstraps into DIR (which must not exist) and apt-get installs PKG
#   tools/debian-base.sh --cached [--with "PKG ..."] [--max-age DAYS]
#                        [--cache DIR] [--mirror URL]
#       prints the path of a cached root with PKG installed, building it
#       first when there is none or it is older than DAYS (default 7). It
#       lives in DIR (default /var/cache/cdpproxy: outside build/, so `make
#       clean` keeps it) as root.N, `current` naming the newest; a new one is
#       built beside it and swapped in with a rename, so a user of the old one
#       (mounted as an overlay's lower layer) is never changed under it. Old
#       roots are removed only when no user holds DIR/NAME.use (flock -s).
#       Use a root read-only (an overlay) and hold its .use lock while you do.
#
# Needs root and the Debian mirror; a build takes a few minutes.
set -eu
cd "$(dirname "$0")/.."

mode="" dir="" with="" max_age=7 cache=/var/cache/cdpproxy mirror=http://deb.debian.org/debian
while [ $# -gt 0 ]; do
    case "$1" in
    --create|--with|--max-age|--cache|--mirror)
        [ $# -ge 2 ] || { echo "debian-base: $1 needs a value" >&2; exit 2; }
        case "$1" in
        --create) mode=create dir=$2 ;;
        --with) with=$2 ;;
        --max-age) max_age=$2 ;;
        --cache) cache=$2 ;;
        --mirror) mirror=$2 ;;
        esac
        shift ;;
    --cached) mode=cached ;;
    -h|--help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "debian-base: unknown option $1 (try --help)" >&2; exit 2 ;;
    esac
    shift
done
[ -n "$mode" ] || { echo "debian-base: --create DIR or --cached (try --help)" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "debian-base: needs root (debootstrap, chroot)" >&2; exit 2; }

# debootstrap into $1, then $with; on failure nothing of $1 is left.
create() {
    root=$1
    [ ! -e "$root" ] || { echo "debian-base: $root exists" >&2; return 1; }
    command -v debootstrap >/dev/null 2>&1 || apt-get install -y -qq debootstrap >&2
    mkdir -p "$(dirname "$root")"
    trap 'umount "$root/proc" 2>/dev/null || true; rm -rf --one-file-system "$root" "$root.log"' EXIT
    trap 'exit 130' INT TERM
    echo "debian-base: debootstrap bookworm into $root" >&2
    debootstrap --variant=minbase --include=gpgv,ca-certificates bookworm "$root" "$mirror" >"$root.log" 2>&1 ||
        { cat "$root.log" >&2; return 1; }
    cat >"$root/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
EOF
    cp /etc/resolv.conf "$root/etc/resolv.conf"
    cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/" 2>/dev/null || true
    chroot "$root" update-ca-certificates >/dev/null 2>&1 || true
    if [ -n "$with" ]; then
        mount -t proc proc "$root/proc"
        # shellcheck disable=SC2086
        chroot "$root" /usr/bin/env DEBIAN_FRONTEND=noninteractive PATH=/usr/sbin:/usr/bin:/sbin:/bin \
            sh -c "apt-get update -qq && apt-get install -y -qq --no-install-recommends $with && apt-get clean && apt-cache gencaches" \
            >"$root.log" 2>&1 || { cat "$root.log" >&2; return 1; }
        umount "$root/proc"
    fi
    rm -f "$root.log"
    trap - EXIT INT TERM
}

if [ "$mode" = create ]; then
    create "$dir"
    exit 0
fi

name=bookworm$(printf '%s' "$with" | tr -cs 'a-z0-9' '-' | sed 's/^-*/-/; s/-*$//; s/^-$//')
base=$cache/$name
mkdir -p "$base"
exec 8>"$base.update"
flock 8    # one builder at a time; the others wait, then use its root
cur=$(readlink "$base/current" 2>/dev/null || true)
if [ -z "$cur" ] || [ ! -d "$base/$cur" ] ||
   [ -n "$(find "$base/$cur" -maxdepth 0 -mtime +"$max_age")" ]; then
    new=root.$(date +%s)
    (create "$base/$new")
    ln -sfn "$new" "$base/current.new" && mv -T "$base/current.new" "$base/current"
    cur=$new
fi
# The roots no longer current, when nobody uses any root.
exec 9>"$base.use"
if flock -n -x 9; then
    for r in "$base"/root.*; do
        [ -d "$r" ] && [ "${r##*/}" != "$cur" ] || continue
        grep -q " $r[/ ]" /proc/self/mounts || rm -rf --one-file-system "$r"
    done
fi
exec 9>&-
echo "$base/$cur"
