#!/bin/sh
# Tier 0: the layers stay layers. The message core (proxy/core/) and the pure
# modules below it (proxy/base, cdp, obs) include no libwebsockets header and
# no header of the loop, the legs or the wrapper: checked with the
# preprocessor's own list of every header each file pulls in, given only the
# include paths of the pure layers.
cd "$(dirname "$0")/../.." || exit 1
pure="base cdp obs core"
inc=""
for l in $pure; do inc="$inc -Iproxy/$l"; done
cflags="-std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $inc $(pkg-config --cflags jansson 2>/dev/null)"
set --
for l in $pure; do set -- "$@" proxy/$l/*.c; done
echo "1..$#"
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
exit $failed
