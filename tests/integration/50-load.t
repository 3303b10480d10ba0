#!/usr/bin/env bash
# Tier 5: load through cdpproxy. cdp-load's own checks (every answer arrives
# once, in order, byte for byte) over 8 connections x 100k commands of mixed
# sizes up to 1 MiB each way, without and with --log; then the benchmark's
# quick mode end to end and, beside it, bench-instr's callgrind counts (their
# numbers are printed, not asserted).
# B overrides the build directory (default build/). LOAD_COUNT overrides the
# 100k; NO_BROWSER=1 (make check) leaves bench-proxy's real-Chromium workloads out.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$ROOT/build}
TMP=$(mktemp -d /tmp/cdpproxy-50-load.XXXXXX)
COUNT=${LOAD_COUNT:-100000}
# Sizes on both sides of the message blocks' size classes (256, 1 KiB, 4 KiB).
MIX=100:7000,256:500,257:500,1KiB:1400,1025:400,4KiB:90,4097:90,16KiB:180,256KiB:15,1MiB:5
declare -A PID PORT
n=0 failed=0

ok() {  # CONDITION-STATUS NAME
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}
diag() { sed 's/^/# /'; }

STATUS=0
stop() {  # NAME: SIGTERM, SIGKILL after 10 s; its exit status in STATUS
	local pid=${PID[$1]:-} i
	STATUS=255
	[ -n "$pid" ] || return 0
	kill -TERM "$pid" 2>/dev/null
	for i in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$pid" 2>/dev/null
	STATUS=0
	wait "$pid" 2>/dev/null || STATUS=$?
	unset "PID[$1]"
}
cleanup() {
	local name
	for name in "${!PID[@]}"; do stop "$name"; done
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start() {  # NAME CMD...: waits for "listening on http://127.0.0.1:PORT"
	local name=$1 i; shift
	: >"$TMP/$name.err"
	"$@" 2>>"$TMP/$name.err" &
	PID[$name]=$!
	for i in $(seq 200); do
		PORT[$name]=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9]*\).*|\1|p' "$TMP/$name.err" | head -1)
		[ -n "${PORT[$name]}" ] && return 0
		kill -0 "${PID[$name]}" 2>/dev/null || break
		sleep 0.05
	done
	diag <"$TMP/$name.err"
	return 1
}

load() {  # PORT SEED [ARGS]: the 8 x COUNT mixed-size run, its report as comments
	local port=$1 seed=$2 rc=0; shift 2
	"$B/cdp-load" --connections 8 --in-flight 8 --count "$COUNT" --cmd-size "$MIX" \
		--result-size "$MIX" --seed "$seed" --timeout 120 --quiet "$@" \
		"ws://127.0.0.1:$port/devtools/page/load" 2>"$TMP/load.err" || rc=$?
	diag <"$TMP/load.err"
	return $rc
}

echo "1..19"
for bin in cdp-echo cdp-load cdpproxy; do
	[ -x "$B/$bin" ] || { echo "Bail out! $B/$bin missing: run make first"; exit 1; }
done

start echo "$B/cdp-echo" --listen 127.0.0.1:0
ok $? "cdp-echo starts on a free port"

start proxy "$B/cdpproxy" --listen 127.0.0.1:0 --upstream "127.0.0.1:${PORT[echo]}"
ok $? "cdpproxy starts in front of it"
load "${PORT[proxy]}" 1
ok $? "8 connections x $COUNT commands, mixed sizes up to 1 MiB, through cdpproxy: all answered once, in order, intact"
# Paired round trips (bench-proxy's ping-pong): the two connections take turns.
"$B/cdp-load" --count 2000 --quiet --json "$TMP/pair.json" \
	--baseline "ws://127.0.0.1:${PORT[echo]}/devtools/page/load" \
	"ws://127.0.0.1:${PORT[proxy]}/devtools/page/load" 2>"$TMP/pair.err"
rc=$?
diag <"$TMP/pair.err"
[ "$rc" -eq 0 ] && jq -e '.ok and .answers == 4000 and .rtt_us.n == 2000 and
	.baseline_rtt_us.n == 2000 and .added_us.pairs == 3999 and
	(.added_us.p50 | type) == "number"' "$TMP/pair.json" >/dev/null
ok $? "cdp-load --baseline: 2000 commands through cdpproxy and 2000 direct, in turn, 3999 pairs"
"$B/cdp-load" --count 10 --in-flight 2 --baseline "ws://127.0.0.1:${PORT[echo]}/x" \
	"ws://127.0.0.1:${PORT[proxy]}/x" 2>"$TMP/pair.err"
rc=$?
[ "$rc" -eq 2 ] && grep -q -- "--baseline needs --connections 1 --in-flight 1" "$TMP/pair.err"
ok $? "cdp-load --baseline with 2 in flight is refused (exit $rc)"
"$B/cdp-load" --count 1 --cmd-size 2GiB "ws://127.0.0.1:${PORT[proxy]}/x" 2>"$TMP/size.err"
rc=$?
[ "$rc" -eq 2 ] && grep -q "at most 1073741312 bytes" "$TMP/size.err"
ok $? "cdp-load --cmd-size 2GiB is refused with the limit (exit $rc), not an abort"
# Paced (--rate): a rate the proxy easily keeps is met and reported; one that
# a single command in flight cannot reach (each round trip takes tens of us)
# fails loudly instead of passing as a slower run. The windows are wide:
# on a machine busy with other suites, answers can lag by 100 ms and more,
# and a full window holds sending back (the check that a lagging proxy fails).
# Unpaced, the same connections would make 10-100 times as many answers.
"$B/cdp-load" --connections 4 --in-flight 2048 --rate 4000 --duration 1 --quiet \
	--json "$TMP/paced.json" "ws://127.0.0.1:${PORT[proxy]}/devtools/page/load" 2>"$TMP/paced.err"
rc=$?
diag <"$TMP/paced.err"
[ "$rc" -eq 0 ] && jq -e '.rate == 4000 and .rate_achieved >= 3880 and .rate_achieved <= 4200
	and .answers >= 2000 and .answers <= 4200' "$TMP/paced.json" >/dev/null
ok $? "cdp-load --rate 4000 for 1 s: at most 4,000 answers, the achieved rate reported (exit $rc)"
"$B/cdp-load" --connections 1 --in-flight 1 --rate 500000 --duration 0.5 --quiet \
	"ws://127.0.0.1:${PORT[proxy]}/devtools/page/load" 2>"$TMP/unpaced.err"
rc=$?
diag <"$TMP/unpaced.err"
[ "$rc" -eq 1 ] && grep -q "paced at 500000/s but achieved" "$TMP/unpaced.err"
ok $? "cdp-load --rate 500000 with 1 in flight falls short and fails (exit $rc)"
"$B/cdp-load" --connections 1 --in-flight 512 --flood 10 --rate 5000 --duration 1 --quiet \
	--json "$TMP/paced-flood.json" "ws://127.0.0.1:${PORT[proxy]}/devtools/page/load" 2>"$TMP/paced.err"
rc=$?
diag <"$TMP/paced.err"
[ "$rc" -eq 0 ] && jq -e '.events >= 2500 and .events <= 5200 and .answers * 10 == .events' \
	"$TMP/paced-flood.json" >/dev/null
ok $? "cdp-load --rate 5000 --flood 10: the rate counts events, 500 floods a second (exit $rc)"
stop proxy
ok "$STATUS" "cdpproxy exits 0 on SIGTERM (status $STATUS)"

# Both ways full at once, with a small queue bound: cdp-echo stops reading
# while its own writes are blocked, so the proxy must go on reading it while
# the proxy's writes to it wait (lws 4.1.6 would not, and both sides waited
# on each other for ever, at once: cf83284). 32 commands a connection, all
# in flight together, fill both ways (9.6 MB up, 64 MiB down each).
start smallq "$B/cdpproxy" --listen 127.0.0.1:0 --upstream "127.0.0.1:${PORT[echo]}" \
	--queue-bytes 64KiB
ok $? "cdpproxy --queue-bytes 64KiB starts"
"$B/cdp-load" --connections 4 --in-flight 32 --count 32 --cmd-size 300KiB --result-size 2MiB \
	--timeout 20 --quiet "ws://127.0.0.1:${PORT[smallq]}/devtools/page/load" 2>"$TMP/smallq.err"
rc=$?
diag <"$TMP/smallq.err"
ok $rc "4 x 32 in flight, 300 KiB commands and 2 MiB results through a 64 KiB queue bound: all answered"
stop smallq

# A full socket may take none of a large frame: with send() made to say so
# now and then (an LD_PRELOAD shim), 100 KiB commands still reach cdp-echo
# intact (each was masked again on its next try, and garbled).
cc -shared -fPIC -o "$TMP/send-eagain.so" "$ROOT/tests/integration/lib/send-eagain.c" -ldl
start eagain env LD_PRELOAD="$TMP/send-eagain.so" "$B/cdpproxy" --listen 127.0.0.1:0 \
	--upstream "127.0.0.1:${PORT[echo]}" && "$B/cdp-load" --in-flight 4 --count 200 \
	--cmd-size 100KiB --timeout 20 --quiet "ws://127.0.0.1:${PORT[eagain]}/devtools/page/load" \
	2>"$TMP/eagain.err"
rc=$?
diag <"$TMP/eagain.err"
ok $rc "100 KiB commands through a proxy whose sends now and then take nothing: all answered intact"
stop eagain

start logproxy "$B/cdpproxy" --listen 127.0.0.1:0 --upstream "127.0.0.1:${PORT[echo]}" \
	--log "$TMP/proxy.jsonl"
ok $? "cdpproxy --log starts"
load "${PORT[logproxy]}" 2 --session 5A17C0FFEE5A17C0FFEE5A17C0FFEE00
ok $? "the same through cdpproxy --log, with a sessionId on every message"
stop logproxy
ok "$STATUS" "cdpproxy --log exits 0 on SIGTERM (status $STATUS)"
commands=$(grep -c '"dir":"up","kind":"command"' "$TMP/proxy.jsonl")
responses=$(grep -c '"dir":"down","kind":"response"' "$TMP/proxy.jsonl")
want=$((8 * COUNT))
[ "$commands" -eq "$want" ] && [ "$responses" -eq "$want" ]
ok $? "the log has a record for each of the $want commands ($commands) and answers ($responses)"
rm -f "$TMP/proxy.jsonl"
stop echo

# The instruction counts (callgrind), briefly: every module's figure is
# there. They run beside bench-proxy's quick run: neither asserts a time
# (instructions, with wide margins; bench-proxy's paced runs are at
# 2,000/s, which a core keeps).
B=$B "$ROOT/tools/bench-instr.sh" --count 40 --json "$TMP/instr.json" >"$TMP/instr.out" 2>&1 &
PID[instr]=$!
rc=0
nochromium=""
[ "${NO_BROWSER:-0}" = 1 ] && nochromium=--no-chromium
# shellcheck disable=SC2086
B=$B "$ROOT/tools/bench-proxy.sh" --quick $nochromium --json "$TMP/bench.json" >"$TMP/bench.out" 2>&1 || rc=$?
diag <"$TMP/bench.out"
[ "$rc" -eq 0 ] && jq -e '.medians.pipelined.cdpproxy.answers_per_s > 0' "$TMP/bench.json" >/dev/null
ok $? "tools/bench-proxy.sh --quick runs end to end (exit $rc)"
rc=0
wait "${PID[instr]}" || rc=$?
unset "PID[instr]"
diag <"$TMP/instr.out"
[ "$rc" -eq 0 ] && jq -e '.per_message.small.total > 1000 and .per_message.small.scan > 0
	and .per_message["small-log"].log > 0 and .per_message.small.log == 0' "$TMP/instr.json" >/dev/null
ok $? "tools/bench-instr.sh runs: instructions a message by module, the log's only with --log (exit $rc)"
exit $failed
