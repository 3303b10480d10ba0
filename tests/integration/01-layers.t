#!/bin/sh
# Tier 0: the layers stay layers. The message core (proxy/core/) and the pure
# modules below it (proxy/base, cdp, obs) include no libwebsockets header and
# no header of the loop, the legs or the wrapper: checked with the
# preprocessor's own list of every header each file pulls in, given only the
# include paths of the pure layers. Then every layer's .c files preprocess
# with only the include paths the Makefile gives that layer (SEES_*, by `make
# print-sees-LAYER`), each file alone, whatever the build's order.
cd "$(dirname "$0")/../.." || exit 1
# Run from a recipe (make check), the outer make's flags are not for these.
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory "$@"; }
layers=$(mk print-layers) || { echo "Bail out! make print-layers failed"; exit 1; }
pure="base cdp obs core"
inc=""
for l in $pure; do inc="$inc -Iproxy/$l"; done
cflags="-std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $inc $(pkg-config --cflags jansson 2>/dev/null)"
set --
for l in $pure; do set -- "$@" proxy/$l/*.c; done
all=0
for l in $layers; do for f in proxy/"$l"/*.c; do [ -e "$f" ] && all=$((all + 1)); done; done
echo "1..$(($# + all))"
n=0 failed=0
for f in "$@"; do
    n=$((n + 1))
    # shellcheck disable=SC2086
    deps=$(${CC:-cc} $cflags -M "$f" 2>&1) || { echo "not ok $n - $f: the preprocessor failed"; printf '%s\n' "$deps" | sed 's/^/# /'; failed=1; continue; }
    bad=$(printf '%s\n' "$deps" | tr ' \\' '\n\n' | grep -E '(^|/)libwebsockets(\.h|/)|(^|/)proxy/(loop|ws|pipe|http|wrapper|chromium|app)/' | head -n 3)
    if [ -z "$bad" ]; then
        echo "ok $n - $f includes no lws, loop, leg or wrapper header"
    else
        echo "not ok $n - $f includes: $(echo $bad)"
        failed=1
    fi
done
for l in $layers; do
    inc=$(mk print-sees-"$l") || { echo "Bail out! make print-sees-$l failed"; exit 1; }
    for f in proxy/"$l"/*.c; do
        [ -e "$f" ] || continue
        n=$((n + 1))
        # shellcheck disable=SC2086
        if out=$(${CC:-cc} -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $inc -M "$f" 2>&1 >/dev/null); then
            echo "ok $n - $f preprocesses with $l's include paths only:$(echo " $inc" | sed 's/ -Iproxy\// /g')"
        else
            echo "not ok $n - $f does not preprocess with $l's include paths only:$(echo " $inc" | sed 's/ -Iproxy\// /g')"
            printf '%s\n' "$out" | head -n 5 | sed 's/^/# /'
            failed=1
        fi
    done
done
exit $failed
