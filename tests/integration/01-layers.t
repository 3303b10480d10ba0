#!/bin/sh
# Tier 0: the layers stay layers. The message core (core, route, msg) and the
# pure modules include no libwebsockets header and no leg's header: checked
# with the preprocessor's own list of every header each file pulls in.
cd "$(dirname "$0")/../.." || exit 1
core="core route msg control tail"
pure="scan sessions policy stats table redact access discovery estimate util"
legs="conn.h proxy.h wsframe.h pipeleg.h wrapper.h"
cflags="-std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Iproxy $(pkg-config --cflags jansson 2>/dev/null)"
set -- $core $pure
echo "1..$#"
n=0 failed=0
for m in "$@"; do
    n=$((n + 1))
    # shellcheck disable=SC2086
    deps=$(${CC:-cc} $cflags -M "proxy/$m.c" 2>&1) || { echo "not ok $n - $m.c: the preprocessor failed"; printf '%s\n' "$deps" | sed 's/^/# /'; failed=1; continue; }
    bad=$(printf '%s\n' "$deps" | tr ' \\' '\n\n' | grep -E '(^|/)libwebsockets(\.h|/)' | head -n 3)
    for h in $legs; do
        hit=$(printf '%s\n' "$deps" | tr ' \\' '\n\n' | grep -E "(^|/)proxy/$h\$" | head -n 1)
        bad="$bad${hit:+ $hit}"
    done
    if [ -z "$(echo "$bad" | tr -d ' ')" ]; then
        echo "ok $n - $m.c includes no lws or leg header"
    else
        echo "not ok $n - $m.c includes: $(echo $bad)"
        failed=1
    fi
done
exit $failed
