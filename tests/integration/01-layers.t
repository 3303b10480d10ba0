#!/bin/sh
# Tier 0: the layers stay layers. The message core (proxy/core/) and the pure
# modules below it (proxy/base, redact, cdp, policy, access, obs) include no
# libwebsockets header and no header of the loop, the legs or the wrapper:
# checked with the
# preprocessor's own list of every header each file pulls in, given only the
# include paths of the pure layers. Then every layer's .c files preprocess
# with only the include paths the Makefile gives that layer (SEES_*, by `make
# print-sees-LAYER`), each file alone, whatever the build's order.
# Each file is preprocessed once: one cc -M per layer, with that layer's
# include paths, lists every file's headers (a rule each, the .c first). A
# pure layer's paths are some of the pure layers' (base, base redact, ...)
# and the first directory that has a header wins, so a file that preprocesses
# with them pulls in the very headers it would with all of them (no two
# folders of proxy/ hold a header of the same name); a file that
# does not, or one of a layer that sees beyond the pure ones, is preprocessed
# again, alone, with the pure layers' paths. A layer whose run fails is run
# again file by file, so the failure is pinned to its files.
# Last, above the loop (each leg, legs/, wrapper/, app/) no file includes
# core/route.h or core/selfdomain.h: a leg reaches the core through the leg
# contract (core/leg.h), the rest through the loop (02-calls.t checks the
# calls themselves with nm). And no file of tests/ includes a .c file: a
# test reaches a module through its header and links the library it is in
# (fuzz_wsleg.c, which needs the statics of ws/conn.c, is the one left).
cd "$(dirname "$0")/../.." || exit 1
# Run from a recipe (make check), the outer make's flags are not for these.
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory "$@"; }
layers=$(mk print-layers) || { echo "Bail out! make print-layers failed"; exit 1; }
legs=$(mk print-legs) || { echo "Bail out! make print-legs failed"; exit 1; }
above="$legs legs wrapper app"
# Every layer's include paths from one make run, a line each, in order.
# shellcheck disable=SC2046
sees=$(mk $(for l in $layers; do printf 'print-sees-%s ' "$l"; done)) ||
    { echo "Bail out! make print-sees-LAYER failed"; exit 1; }
# shellcheck disable=SC2086
[ "$(printf '%s\n' "$sees" | wc -l)" -eq "$(echo $layers | wc -w)" ] ||
    { echo "Bail out! make print-sees-LAYER did not print a line per layer"; exit 1; }
pure="base redact cdp policy access obs core"
inc=""
for l in $pure; do inc="$inc -Iproxy/$l"; done
std="-std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE"
cflags="$std $inc $(pkg-config --cflags jansson 2>/dev/null)"
# A "FILE HEADER" line whose header is banned from the pure layers.
banned='^[^ ]+ ([^ ]*/)?(libwebsockets(\.h|/)|proxy/(loop|ws|pipe|http|wrapper|chromium|app)/)'
set --
for l in $pure; do set -- "$@" proxy/$l/*.c; done
npure=$#
all=0
for l in $layers; do for f in proxy/"$l"/*.c; do [ -e "$f" ] && all=$((all + 1)); done; done
# shellcheck disable=SC2086
echo "1..$((npure + all + $(echo $above | wc -w) + 1))"
tmp=$(mktemp -d /tmp/cdpproxy-layers-XXXXXX) || { echo "Bail out! mktemp"; exit 1; }
trap 'rm -rf "$tmp"' EXIT
# cc -M's rules as "FILE HEADER" lines (FILE: a rule's first prerequisite).
pairs() {
    sed -e ':a' -e '/\\$/N; s/\\\n/ /; ta' | awk '{ for (i = 3; i <= NF; i++) print $2, $i }'
}
# Per layer, its paths in $tmp/L.inc; when the whole layer preprocesses,
# and it sees only pure layers, the banned headers its files pull in, as
# "FILE HEADER" lines, in $tmp/L.bad; $tmp/L.failed when it does not.
i=0
for l in $layers; do
    i=$((i + 1))
    l_inc=$(printf '%s\n' "$sees" | sed -n "${i}p")
    printf '%s\n' "$l_inc" >"$tmp/$l.inc"
    files=""
    for f in proxy/"$l"/*.c; do [ -e "$f" ] && files="$files $f"; done
    [ -n "$files" ] || continue
    # shellcheck disable=SC2086
    if ${CC:-cc} $std $l_inc -M $files 2>/dev/null >"$tmp/$l.M"; then
        reuse=1
        for p in $l_inc; do case " $inc " in *" $p "*) ;; *) reuse=0 ;; esac; done
        [ $reuse = 0 ] || pairs <"$tmp/$l.M" | grep -E "$banned" >"$tmp/$l.bad"
    else
        : >"$tmp/$l.failed"
    fi
done
n=0 failed=0
for f in "$@"; do
    n=$((n + 1))
    l=${f#proxy/}; l=${l%%/*}
    if [ -f "$tmp/$l.bad" ]; then
        bad=""
        [ ! -s "$tmp/$l.bad" ] || bad=$(awk -v f="$f" '$1 == f { print $2 }' "$tmp/$l.bad" | head -n 3)
    else
        # shellcheck disable=SC2086
        deps=$(${CC:-cc} $cflags -M "$f" 2>&1) || { echo "not ok $n - $f: the preprocessor failed"; printf '%s\n' "$deps" | sed 's/^/# /'; failed=1; continue; }
        bad=$(printf '%s\n' "$deps" | pairs | grep -E "$banned" | awk '{ print $2 }' | head -n 3)
    fi
    if [ -z "$bad" ]; then
        echo "ok $n - $f includes no lws, loop, leg or wrapper header"
    else
        echo "not ok $n - $f includes: $(echo $bad)"
        failed=1
    fi
done
for l in $layers; do
    l_inc=$(cat "$tmp/$l.inc")
    shown=$(echo " $l_inc" | sed 's/ -Iproxy\// /g')
    for f in proxy/"$l"/*.c; do
        [ -e "$f" ] || continue
        n=$((n + 1))
        # shellcheck disable=SC2086
        if [ ! -f "$tmp/$l.failed" ] || out=$(${CC:-cc} $std $l_inc -M "$f" 2>&1 >/dev/null); then
            echo "ok $n - $f preprocesses with $l's include paths only:$shown"
        else
            echo "not ok $n - $f does not preprocess with $l's include paths only:$shown"
            printf '%s\n' "$out" | head -n 5 | sed 's/^/# /'
            failed=1
        fi
    done
done
for l in $above; do
    n=$((n + 1))
    if [ ! -f "$tmp/$l.M" ] && [ ! -f "$tmp/$l.failed" ]; then
        echo "ok $n - proxy/$l/: no .c file"
        continue
    fi
    if [ -f "$tmp/$l.failed" ]; then
        echo "not ok $n - proxy/$l/: its files do not preprocess (above)"
        failed=1
        continue
    fi
    bad=$(pairs <"$tmp/$l.M" | grep -E ' ([^ ]*/)?proxy/core/(route|selfdomain)\.h$' | head -n 3)
    if [ -z "$bad" ]; then
        echo "ok $n - proxy/$l/: no file includes core/route.h or core/selfdomain.h"
    else
        echo "not ok $n - proxy/$l/ includes the core's insides:"
        printf '%s\n' "$bad" | sed 's/^/# /'
        failed=1
    fi
done
n=$((n + 1))
bad=$(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"][^>"]*\.c[>"]' tests --include='*.c' --include='*.h' |
    grep -v '^tests/fuzz/fuzz_wsleg\.c:' | head -n 5)
if [ -z "$bad" ]; then
    echo "ok $n - no file of tests/ includes a .c file (but fuzz_wsleg.c's ws/conn.c)"
else
    echo "not ok $n - files of tests/ include .c files:"
    printf '%s\n' "$bad" | sed 's/^/# /'
    failed=1
fi
exit $failed
