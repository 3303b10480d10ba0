#!/usr/bin/env bash
# bench-instr: instructions per message of cdpproxy alone, by module, under
# callgrind: a figure that does not depend on the host's load. The proxy runs
# in front of cdp-echo twice per variant, for COUNT and for 3 x COUNT commands
# per connection (8 connections x 64 in flight, 150-byte commands and
# results, or 1 KiB event floods); the difference of the two runs' counts,
# divided by the difference in messages, leaves out start-up and shut-down.
# A message is an answer (a command up and its result down), or a flood's
# event. Exits 1 if a load run fails.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${B:-$ROOT/build}
. "$ROOT/tools/bench-lib.sh"
COUNT=2000 JSON=""

usage() {
	cat <<EOF
usage: tools/bench-instr.sh [--count N] [--json FILE]
  --count N    commands per connection in the shorter run (default 2000)
  --json FILE  where the results go (default \$B/bench-instr.json)
Environment: B (build directory, default build).
EOF
}
while [ $# -gt 0 ]; do
	case $1 in
	--count) COUNT=$2; shift ;;
	--json) JSON=$2; shift ;;
	-h|--help) usage; exit 0 ;;
	*) echo "bench-instr: unknown option $1" >&2; usage >&2; exit 2 ;;
	esac
	shift
done
JSON=${JSON:-$B/bench-instr.json}
bench_check bench-instr valgrind callgrind_annotate jq

TMP=$(mktemp -d /tmp/bench-instr.XXXXXX)
BENCH_WHO=bench-instr
STOP_GRACE_TENTHS=600   # callgrind writes its file at exit: let it
trap cleanup EXIT
[ -n "${BENCH_INSTR_KEEP:-}" ] && trap "echo kept $TMP" EXIT
trap 'exit 130' INT TERM

# Which module a function's file (or its object) is counted under.
MODULES='
	if (f ~ /proxy\/([a-z]+\/)?scan\.c/) return "scan"
	if (f ~ /proxy\/([a-z]+\/)?(sessions|table)\.c/) return "sessions"
	if (f ~ /proxy\/([a-z]+\/)?(log|log_fmt|redact|redact_body|redact_text)\.c/) return "log"
	if (f ~ /proxy\/([a-z]+\/)?(wsleg|wsframe|downstream|upstream)\.c/) return "framing"
	if (f ~ /proxy\/([a-z]+\/)?(conn|flush|ws|leg|core|route|selfdomain|msg|queue)\.c/) return "queues/core"
	if (f ~ /proxy\/([a-z]+\/)?(stats|hist|policy)\.c/) return "stats/policy"
	if (f ~ /proxy\/([a-z]+\/)?(util|side)\.c/) return "util"
	if (f ~ /libwebsockets|lws/) return "lws"
	if (f ~ /jansson/) return "jansson"
	if (f ~ /libc[.-]|glibc|string\/|sysdeps|stdlib\/|malloc/) return "libc"
	return "other"'

# Each of the proxy's functions and its module, from the objects' symbols:
# code inlined from a header (SSE2 intrinsics, static inlines) is reported
# under the header's name and the function it was inlined into.
: >"$TMP/funcs"
# From the sources, not a glob of $B/obj: an object whose source was renamed
# away stays there until `make clean`, and would be counted twice.
for src in "$ROOT"/proxy/*/*.c; do
	src=proxy/${src#"$ROOT"/proxy/}
	o=$B/obj/${src#proxy/}; o=${o%.c}.o
	[ -e "$o" ] || continue   # not built (yet)
	nm --defined-only "$o" 2>/dev/null | awk -v f="$src" "function module(f) { $MODULES }"'
		$2 ~ /^[tT]$/ { print $3, module(f) }' >>"$TMP/funcs"
done

# measure NAME ARGS...: per-module instructions of COUNT and 3 x COUNT runs.
measure() {
	local name=$1 n k; shift
	local proxy_args=() load_args=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do proxy_args+=("$1"); shift; done
	shift
	load_args=("$@")
	for k in 1 3; do
		n=$((COUNT * k))
		start proxy valgrind --tool=callgrind --callgrind-out-file="$TMP/$name.$k.out" \
			"$B/cdpproxy" --listen 127.0.0.1:0 --upstream "127.0.0.1:$ECHO_PORT" "${proxy_args[@]}"
		wait_listening proxy
		"$B/cdp-load" --quiet --timeout 120 --count "$n" --json "$TMP/$name.$k.json" "${load_args[@]}" \
			"ws://127.0.0.1:${PORT[proxy]}/devtools/page/instr" 2>"$TMP/load.err" ||
			{ echo "bench-instr: $name: the load run failed:" >&2; cat "$TMP/load.err" >&2; exit 1; }
		stop proxy
		callgrind_annotate --auto=no --inclusive=no --threshold=100 "$TMP/$name.$k.out" 2>/dev/null |
			awk -v run="$k" -v w="$name" "function module(f) { $MODULES }"'
				FNR == NR { of[$1] = $2; next }
				/^ *[0-9,]+ .*:/ {
					ir = $1; gsub(",", "", ir)
					rest = $0; sub(/^ *[0-9,]+ +(\([^)]*\) +)?/, "", rest)
					fn = rest; sub(/ \[.*$/, "", fn); sub(/^.*:/, "", fn)
					m[fn in of ? of[fn] : module(rest)] += ir; total += ir
				}
				END { for (k in m) printf "{\"workload\":\"%s\",\"run\":%s,\"module\":\"%s\",\"ir\":%d}\n", w, run, k, m[k]
				      printf "{\"workload\":\"%s\",\"run\":%s,\"module\":\"total\",\"ir\":%d}\n", w, run, total }' \
			"$TMP/funcs" - >>"$TMP/ir.jsonl"
		jq -c --arg w "$name" --argjson run "$k" \
			'{workload: $w, run: $run, messages: (if .events > 0 then .events else .answers end)}' \
			"$TMP/$name.$k.json" >>"$TMP/msgs.jsonl"
	done
	printf '.' >&2
}

: >"$TMP/ir.jsonl"
: >"$TMP/msgs.jsonl"
start echo "$B/cdp-echo" --listen 127.0.0.1:0
wait_listening echo
ECHO_PORT=${PORT[echo]}
printf 'bench-instr: callgrind, %d and %d commands a connection ' "$COUNT" "$((3 * COUNT))" >&2
SMALL=(--connections 8 --in-flight 64 --cmd-size 150 --result-size 150)
measure small -- "${SMALL[@]}"
measure small-log --log "$TMP/proxy.jsonl" -- "${SMALL[@]}"
measure flood-log --log "$TMP/proxy.jsonl" -- --connections 1 --in-flight 8 --flood 20 --event-size 1KiB
echo >&2
stop echo

jq -n --slurpfile ir "$TMP/ir.jsonl" --slurpfile msgs "$TMP/msgs.jsonl" \
	--arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" --arg commit "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo -)" '
	def ir($w; $r; $mod): [$ir[] | select(.workload == $w and .run == $r and .module == $mod) | .ir] | add // 0;
	def msgs($w; $r): [$msgs[] | select(.workload == $w and .run == $r) | .messages] | add;
	{tool: "bench-instr", date: $date, commit: $commit,
	 per_message: ([$ir[] | .workload] | unique | map(. as $w
	   | (msgs($w; 3) - msgs($w; 1)) as $dm
	   | {key: $w, value: ([$ir[] | select(.workload == $w) | .module] | unique
	       | map({key: ., value: (((ir($w; 3; .) - ir($w; 1; .)) / $dm | round) + 0)}) | from_entries)})
	   | from_entries)}' >"$TMP/summary.json"
mkdir -p "$(dirname "$JSON")"
mv "$TMP/summary.json" "$JSON"
jq -r '
	def lpad(n): tostring | (" " * (n - length)) + .;
	(.per_message | keys_unsorted) as $ws
	| "bench-instr (\(.commit)): instructions a message in cdpproxy, callgrind (\(.date))",
	  ("module" + ($ws | map(lpad(14)) | add)),
	  ((["scan", "sessions", "log", "framing", "queues/core", "stats/policy", "util", "lws", "libc", "jansson", "other", "total"][]) as $m
	   | ($m + " " * (12 - ($m | length))) + ($ws | map(. as $w | $ARGS.named.j.per_message[$w][$m] // 0 | lpad(14)) | add)),
	  "(message: an answer, a command up and its result down; or a flood event. small: 8 x 64 in flight, 150 B; flood-log: 1 KiB events, 20 a command)"
' --argjson j "$(cat "$JSON")" "$JSON"
