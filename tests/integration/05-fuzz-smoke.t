#!/bin/sh
# Tier 0: a short libFuzzer smoke of each parser (tools/fuzz.sh --smoke): every
# committed input of tests/fuzz/corpus/NAME once, then ~2 s of fuzzing under
# ASan and UBSan, from that corpus: a smoke that the driver and its oracle
# run and that a fault the corpus or a few mutations reach is found; `make
# fuzz` is the long run. The objects come from ccache when a clone compiled
# them before. FUZZ_BUILD overrides the build dir (build/fuzz), FUZZ_SECONDS
# the 2 s.
cd "$(dirname "$0")/../.." || exit 1
if ! command -v "${FUZZ_CC:-clang}" >/dev/null 2>&1; then
    echo "1..0 # SKIP ${FUZZ_CC:-clang} not installed (Debian: clang libclang-rt-14-dev, see tools/deps.sh)"
    exit 0
fi
drivers="scan policy discovery wsleg access redact log switches pipe pipecut logrec junit bidi channel"
echo "1..14"
n=0 failed=0
for d in $drivers; do
    n=$((n + 1))
    out=$(tools/fuzz.sh --smoke --build "${FUZZ_BUILD:-build/fuzz}" ${FUZZ_SECONDS:+--seconds "$FUZZ_SECONDS"} "$d" 2>&1)
    rc=$?
    summary=$(printf '%s\n' "$out" | grep -m 1 "^fuzz $d: ")
    summary=${summary#fuzz }
    if [ $rc -eq 0 ]; then
        echo "ok $n - $summary"
    else
        failed=1
        echo "not ok $n - ${summary:-$d: tools/fuzz.sh --smoke exited $rc}"
        printf '%s\n' "$out" | sed 's/^/# /'
    fi
done
exit $failed
