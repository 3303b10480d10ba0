#!/bin/sh
# fuzz: builds the libFuzzer drivers of tests/fuzz/ with clang (ASan, UBSan)
# and runs each for a while (`make fuzz`), or briefly (--smoke, `make test`).
#
#   tools/fuzz.sh [--smoke] [--seconds N] [--build DIR] [SECONDS] [DIR] [DRIVER...]
#
# DRIVER is scan, policy, discovery, wsleg, access, redact, log, switches, pipe, pipecut,
# logrec, junit, bidi or channel (default: all, one after the other). A bare number is SECONDS (default 60; 2 with --smoke), any other
# argument that is not a driver is the build DIR (default build/fuzz). --smoke
# first runs each driver over its committed corpus, then fuzzes from a fresh
# scratch corpus; otherwise new inputs accumulate in DIR/corpus/NAME across
# runs (the committed corpus in tests/fuzz/corpus/NAME is only read).
# Prints one summary line per driver (executions, exec/s, coverage, findings)
# and, for a finding, the input that triggers it and how to reproduce it.
# Exits 1 if anything was found (crash, leak, oracle disagreement, timeout),
# 2 if the drivers do not build. FUZZ_CC (default clang) and FUZZ_FLAGS (extra
# libFuzzer flags, e.g. -seed=1) can be set in the environment.
set -eu
cd "$(dirname "$0")/.."

ALL="scan policy discovery wsleg access redact log switches pipe pipecut logrec junit bidi channel"
smoke=0 seconds="" build=build/fuzz drivers=""
while [ $# -gt 0 ]; do
    case "$1" in
    --smoke) smoke=1 ;;
    --seconds|--build)
        [ $# -ge 2 ] || { echo "fuzz: $1 needs a value" >&2; exit 2; }
        if [ "$1" = --seconds ]; then seconds=$2; else build=$2; fi
        shift ;;
    -h|--help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    scan|policy|discovery|wsleg|access|redact|log|switches|pipe|pipecut|logrec|junit|bidi|channel) drivers="$drivers $1" ;;
    -*) echo "fuzz: unknown option $1 (try --help)" >&2; exit 2 ;;
    *[!0-9]*|'') build=$1 ;;
    *) seconds=$1 ;;
    esac
    shift
done
[ -n "$drivers" ] || drivers=$ALL
[ -n "$seconds" ] || { [ $smoke = 1 ] && seconds=2 || seconds=60; }
# libFuzzer stops once more than -max_total_time whole seconds have passed
# since it started: 2 fuzzed for 3 s. So one less (0 would be no limit).
max_total=$((seconds > 1 ? seconds - 1 : 1))

CC=${FUZZ_CC:-clang}
if ! command -v "$CC" >/dev/null 2>&1; then
    echo "fuzz: $CC not found (Debian packages: clang libclang-rt-14-dev)" >&2
    exit 2
fi
CFLAGS="-g -O1 -fno-omit-frame-pointer -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
        -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Wvla -Werror
        $(for d in proxy/*/; do printf -- "-I%s " "${d%/}"; done) $(pkg-config --cflags jansson libwebsockets)
        -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all"
LIBS="$(pkg-config --libs jansson libwebsockets) -pthread"

# Each driver is its .c file plus the proxy modules it tests, nothing else.
sources() {
    case "$1" in
    scan) echo proxy/cdp/scan.c ;;
    policy) echo proxy/policy/policy.c proxy/policy/policy_check.c proxy/policy/policy_mapper.c proxy/policy/glob.c proxy/cdp/protocol.c proxy/base/util.c ;;
    discovery) echo proxy/access/discovery.c proxy/base/util.c ;;
    # conn.c is included by the driver itself (its statics); lws is only
    # its headers: the driver stands in for the few lws calls the legs make.
    wsleg) echo proxy/ws/wsleg.c proxy/ws/flush.c proxy/core/leg.c proxy/core/core.c proxy/core/route.c proxy/core/emit.c proxy/core/channel.c proxy/core/record.c proxy/core/bidilog.c proxy/cdp/bidi.c proxy/core/selfdomain.c proxy/obs/tail.c \
        proxy/core/msg.c proxy/core/queue.c proxy/cdp/sessions.c proxy/cdp/scan.c proxy/policy/policy.c proxy/policy/policy_check.c proxy/policy/policy_mapper.c proxy/policy/glob.c proxy/obs/stats.c \
        proxy/obs/hist.c proxy/cdp/protocol.c proxy/base/table.c proxy/base/util.c proxy/base/side.c proxy/ws/wsframe.c \
        proxy/obs/log.c proxy/obs/log_fmt.c proxy/redact/redact.c proxy/redact/jsoncut.c proxy/redact/redact_body.c proxy/redact/redact_text.c proxy/access/client.c proxy/obs/metrics.c proxy/obs/procstat.c ;;
    access) echo proxy/access/access.c ;;
    redact) echo proxy/redact/redact.c proxy/redact/jsoncut.c proxy/redact/redact_body.c proxy/redact/redact_text.c proxy/base/util.c ;;
    log) echo proxy/obs/log_fmt.c proxy/cdp/scan.c proxy/base/util.c ;;
    switches) echo proxy/chromium/switches.c proxy/wrapper/wrapper_args.c proxy/access/access.c proxy/base/util.c ;;
    pipe) echo proxy/pipe/pipeleg.c proxy/core/msg.c proxy/core/queue.c proxy/base/util.c ;;
    pipecut) echo proxy/pipe/pipeleg.c proxy/core/leg.c proxy/core/core.c proxy/core/route.c proxy/core/emit.c proxy/core/channel.c proxy/core/record.c proxy/core/bidilog.c proxy/cdp/bidi.c proxy/core/selfdomain.c proxy/obs/tail.c \
        proxy/core/msg.c proxy/core/queue.c proxy/cdp/sessions.c proxy/cdp/scan.c proxy/policy/policy.c proxy/policy/policy_check.c proxy/policy/policy_mapper.c proxy/policy/glob.c proxy/obs/stats.c \
        proxy/obs/hist.c proxy/cdp/protocol.c proxy/base/table.c proxy/base/util.c proxy/base/side.c \
        proxy/obs/log.c proxy/obs/log_fmt.c proxy/redact/redact.c proxy/redact/jsoncut.c proxy/redact/redact_body.c proxy/redact/redact_text.c proxy/access/client.c proxy/obs/metrics.c proxy/obs/procstat.c ;;
    logrec) echo tools/common/logrec.c tools/common/logagg.c tools/cdplog/summary.c tools/cdplog/pairs.c \
        tools/cdplog/timeline.c tools/cdplog/har.c tools/cdplog/har_entry.c tools/cdplog/har_out.c tools/cdplog/har_page.c tools/cdplog/har_body.c tools/cdplog/har_req.c proxy/cdp/sessions.c proxy/cdp/scan.c proxy/redact/redact.c proxy/redact/jsoncut.c proxy/redact/redact_body.c proxy/redact/redact_text.c proxy/obs/stats.c \
        proxy/cdp/bidi.c proxy/obs/hist.c proxy/cdp/protocol.c proxy/base/table.c proxy/base/util.c ;;
    junit) echo tools/cdpbench/audit/audit_junit.c proxy/base/util.c ;;
    bidi) echo proxy/cdp/bidi.c proxy/cdp/scan.c proxy/base/table.c proxy/base/util.c ;;
    # channel.c's core part links the core; the driver runs its framing.
    channel) echo proxy/core/channel.c proxy/core/emit.c proxy/core/core.c proxy/core/msg.c proxy/core/queue.c proxy/cdp/scan.c \
        proxy/cdp/sessions.c proxy/policy/policy.c proxy/policy/policy_check.c proxy/policy/policy_mapper.c proxy/policy/glob.c proxy/cdp/protocol.c proxy/obs/stats.c proxy/obs/hist.c \
        proxy/obs/log.c proxy/obs/log_fmt.c proxy/obs/tail.c proxy/obs/metrics.c proxy/obs/procstat.c proxy/redact/redact.c proxy/redact/jsoncut.c \
        proxy/redact/redact_body.c proxy/redact/redact_text.c proxy/access/client.c proxy/cdp/bidi.c proxy/base/table.c proxy/base/util.c proxy/base/side.c ;;
    esac
}
# What a tool's driver needs beyond the proxy's headers and libraries.
extra_flags() {
    case "$1" in
    logrec) echo -Itools/common -Itools/cdplog -DCDPPROXY_VERSION='"fuzz"' ;;
    junit) echo -Itools/cdpbench/audit -Itools/cdpbench/base -Itools/common "$(pkg-config --cflags libxml-2.0)" ;;
    esac
}
extra_libs() {
    case "$1" in junit) pkg-config --libs libxml-2.0 ;; logrec) echo -lm ;; esac
}
# 16 KiB reaches jansson's nesting limit (2048) with room to spare (and a
# Network.responseReceivedExtraInfo with a dozen Set-Cookies is about 4 KiB);
# 2 KiB is past every length the access checks look at (256-byte names).
max_len() {
    case "$1" in scan|wsleg|redact|pipe|pipecut|junit|bidi|channel) echo 16384 ;; access|switches) echo 2048 ;; *) echo 8192 ;; esac
}

# Each source is compiled once into $build/obj (a proxy module the drivers
# share, once for all of them), again only when it or a header it includes
# (clang -MMD) is newer than its object, or when the compiler or its flags
# changed ($build/obj/flags); each driver is linked from its objects. The
# compiles go through ccache when it is there (tools/deps.sh installs it), as
# `make deb`'s do: a source compiled before with the same flags, in any clone
# (CCACHE_BASEDIR, and -ffile-prefix-map, which leaves the clone's path out
# of the debug info: stack traces name proxy/..., relative to the tree), is
# not compiled again; what ccache returns is what clang gave for that input.
# A proxy module sees only the common flags; a driver and a tool's sources
# also get that driver's extra_flags.
CCACHE=$(command -v ccache || true)
CCACHE_BASEDIR=$(pwd)
export CCACHE_BASEDIR
CFLAGS="$CFLAGS -ffile-prefix-map=$CCACHE_BASEDIR=."
objdir=$build/obj
mkdir -p "$build/logs" "$objdir"
stamp="$($CC --version | head -n 1) $CFLAGS"
if [ "$(cat "$objdir/flags" 2>/dev/null)" != "$stamp" ]; then
    rm -rf "$objdir" && mkdir -p "$objdir" && printf '%s\n' "$stamp" >"$objdir/flags"
fi
# fresh OBJ: OBJ exists and nothing it was built from (OBJ.d, and this
# script, whose lists and flags say how) is newer.
fresh() {
    [ -f "$1" ] && [ -f "$1.d" ] && [ ! tools/fuzz.sh -nt "$1" ] || return 1
    for f in $(sed -e 's/^[^:]*://' -e 's/\\$//' "$1.d"); do
        [ "$f" -nt "$1" ] && return 1
    done
    return 0
}
# compile DRIVER SOURCE: prints the object's path; 1 if it does not build.
compile() {
    o=$objdir/${2%.c}.o
    case "$2" in proxy/*) flags="" ;; *) flags=$(extra_flags "$1") ;; esac
    if ! fresh "$o"; then
        mkdir -p "${o%/*}"
        # shellcheck disable=SC2086 # word splitting is wanted
        $CCACHE $CC $CFLAGS $flags -MMD -MF "$o.d" -c -o "$o.tmp" "$2" >>"$build/logs/$1.build.log" 2>&1 || return 1
        mv "$o.tmp" "$o"
    fi
    echo "$o"
}
for d in $drivers; do
    : >"$build/logs/$d.build.log"
    objs="" built=1
    for src in "tests/fuzz/fuzz_$d.c" $(sources "$d"); do
        o=$(compile "$d" "$src") || { built=0; break; }
        objs="$objs $o"
    done
    # shellcheck disable=SC2046,SC2086
    if [ $built = 1 ]; then
        relink=0
        for o in $objs; do [ "$o" -nt "$build/fuzz_$d" ] && relink=1; done
        [ -f "$build/fuzz_$d" ] || relink=1
        [ $relink = 0 ] || $CC $CFLAGS -o "$build/fuzz_$d" $objs $LIBS $(extra_libs "$d") \
            >>"$build/logs/$d.build.log" 2>&1 || built=0
    fi
    if [ $built = 0 ]; then
        cat "$build/logs/$d.build.log" >&2
        echo "fuzz $d: does not build with $CC (needs libFuzzer: Debian libclang-rt-14-dev)" >&2
        exit 2
    fi
done

# The value of a libFuzzer final stat (-print_final_stats=1), or "?".
stat() {
    v=$(sed -n "s/^stat::$1: *//p" "$2" | tail -n 1)
    echo "${v:-?}"
}

found=0
for d in $drivers; do
    bin=$build/fuzz_$d log=$build/logs/$d.log committed=tests/fuzz/corpus/$d
    artifacts=$build/artifacts/$d/
    mkdir -p "$artifacts"
    : >"$log"
    corpus_note=""
    inputs=$(find "$committed" -type f 2>/dev/null | wc -l)
    corpora=$committed
    [ -d "$committed" ] || corpora=""
    if [ $smoke = 1 ]; then
        # Every committed input once, on its own: a regression shows by name.
        # (With no input, libFuzzer would fuzz on without a time limit.)
        failed=0
        # shellcheck disable=SC2046
        if [ "$inputs" -gt 0 ] && ! "$bin" -timeout=10 -rss_limit_mb=2048 \
                -artifact_prefix="$artifacts" $(find "$committed" -type f | sort) >>"$log" 2>&1; then
            failed=1
        fi
        corpus_note=", committed corpus $inputs inputs ok"
        scratch=$build/smoke/$d
        rm -rf "$scratch"
    else
        failed=0
        scratch=$build/corpus/$d
    fi
    mkdir -p "$scratch"
    if [ $failed = 0 ]; then
        before=$(find "$scratch" -type f | wc -l)
        # shellcheck disable=SC2086 # FUZZ_FLAGS is a list of flags
        "$bin" -max_total_time="$max_total" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
            -max_len="$(max_len "$d")" -dict="tests/fuzz/$d.dict" -artifact_prefix="$artifacts" \
            ${FUZZ_FLAGS:-} "$scratch" $corpora >>"$log" 2>&1 || failed=1
    fi
    if [ $failed = 0 ] && ! grep -q "Test unit written to" "$log"; then
        # "#123 DONE cov: 456 ft: 789 corp: 12/3456b ..." is the last status line.
        last=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -n 1)
        cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
        ft=$(echo "$last" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
        corp=$(echo "$last" | sed -n 's/.*corp: \([0-9]*\).*/\1/p')
        took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -n 1)
        execs=$(stat number_of_executed_units "$log")
        rate=$(stat average_exec_per_sec "$log")
        rss=$(stat peak_rss_mb "$log")
        new=$(( $(find "$scratch" -type f | wc -l) - before ))
        echo "fuzz $d: $execs executions in ${took:-?} s ($rate/s), cov $cov ft $ft," \
             "corpus ${corp:-?} ($new new), peak rss ${rss} MB$corpus_note: nothing found"
        continue
    fi
    found=1
    input=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
    # A committed input that fails is not written again: it is the last one run.
    [ -n "$input" ] || input=$(sed -n 's/^Running: //p' "$log" | tail -n 1)
    what=$(grep -m 1 -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|^fuzz_[a-z]*: ' "$log" ||
           true)
    echo "fuzz $d: FOUND: ${what:-the driver failed, see the log}"
    grep -E '^fuzz_[a-z]*: |^  (scanner|jansson):|runtime error:|^SUMMARY:' "$log" |
        grep -v -F -x -e "${what:-no such line}" | head -n 8 | sed 's/^/  /'
    if [ -n "$input" ]; then
        echo "  input: $input"
        echo "  reproduce: $bin $input"
    fi
    echo "  log: $log"
done
exit $found
