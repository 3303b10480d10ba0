#!/usr/bin/env bash
# bench-proxy: what cdpproxy costs. The same cdp-load workloads, interleaved
# (A B C D E, repeated, warm-up round discarded), against cdp-echo direct,
# through cdpproxy without and with --log, through nginx as a WebSocket tunnel
# and through Node's http-proxy; then real Chromium the same ways. Prints one
# table of medians with ratios to direct and to nginx and each proxy's peak
# RSS, and writes it all as JSON. Exits 1 if any load run failed its checks.
# First, the efficiency table: each proxy's own CPU per message at fixed,
# paced rates (cdp-load --rate), which every variant sustains, so that all
# see the same arrival pattern; plus, outside the timed rounds, syscalls and
# context switches per message (perf stat software counters). Last, the
# latency of large messages (tools/bench-large.js).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${B:-$ROOT/build}
. "$ROOT/tools/bench-lib.sh"
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
ROUNDS=5 SECONDS_PER_RUN=2 WARMUP=1 QUICK=0 CHROME=1 JSON="" ONLY_EFFICIENCY=0 BEFORE="" SKIP=""

usage() {
	cat <<EOF
usage: tools/bench-proxy.sh [--quick] [--rounds N] [--seconds S] [--no-chromium] [--efficiency-only] [--json FILE]
  --quick        one short round, no warm-up: checks it all runs (make test)
  --efficiency-only  only the paced runs (CPU, syscalls per message)
  --before BIN   also another cdpproxy binary (say, a build of the last
                 commit), as variants before and before-log, interleaved
                 with the rest: an A/B of a change in one run
  --skip LIST    leave these variants out (comma-separated: http-proxy,...)
  --rounds N     measured rounds after the warm-up (default 5)
  --seconds S    length of each run (default 2)
  --no-chromium  skip the real-Chromium workloads
  --json FILE    where the results go (default \$B/bench-proxy.json)
Environment: B (build directory, default build), CHROMIUM (default /usr/bin/chromium).
EOF
}

while [ $# -gt 0 ]; do
	case $1 in
	--quick) QUICK=1 ROUNDS=1 SECONDS_PER_RUN=0.25 WARMUP=0 ;;
	--rounds) ROUNDS=$2; shift ;;
	--seconds) SECONDS_PER_RUN=$2; shift ;;
	--no-chromium) CHROME=0 ;;
	--efficiency-only) ONLY_EFFICIENCY=1 CHROME=0 ;;
	--before) BEFORE=$2; shift ;;
	--skip) SKIP=,$2,; shift ;;
	--json) JSON=$2; shift ;;
	-h|--help) usage; exit 0 ;;
	*) echo "bench-proxy: unknown option $1" >&2; usage >&2; exit 2 ;;
	esac
	shift
done
JSON=${JSON:-$B/bench-proxy.json}
bench_check bench-proxy jq
BENCH_WHO=bench-proxy

TMP=$(mktemp -d /tmp/bench-proxy.XXXXXX)
trap cleanup EXIT
trap 'exit 130' INT TERM
FAILED=0
CLK_TCK=$(getconf CLK_TCK)

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

child_of() {  # the first child of pid $1, from /proc (no procps needed)
	local f line fields
	for f in /proc/[0-9]*/stat; do
		read -r line 2>/dev/null <"$f" || continue
		read -ra fields <<<"${line##*) }"  # state ppid ...
		[ "${fields[1]}" = "$1" ] && { f=${f#/proc/}; echo "${f%/stat}"; return 0; }
	done
	return 0  # none (yet)
}

# nginx as a plain WebSocket tunnel (the recipe from nginx's documentation),
# one worker like cdpproxy's one thread, on a free port found by trying.
start_nginx() {
	local upstream=$1 try port dir=$TMP/nginx i
	mkdir -p "$dir"
	for try in 1 2 3 4 5 6 7 8; do
		port=$((20000 + RANDOM % 40000))
		port_open "$port" && continue
		cat >"$dir/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $dir/body;
    proxy_temp_path $dir/proxy;
    fastcgi_temp_path $dir/fastcgi;
    uwsgi_temp_path $dir/uwsgi;
    scgi_temp_path $dir/scgi;
    server {
        listen 127.0.0.1:$port;
        location / {
            proxy_pass http://127.0.0.1:$upstream;
            proxy_http_version 1.1;
            proxy_set_header Upgrade \$http_upgrade;
            proxy_set_header Connection "upgrade";
            proxy_set_header Host \$http_host;
            proxy_read_timeout 1h;
            proxy_send_timeout 1h;
        }
    }
}
EOF
		start nginx nginx -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log"
		for i in $(seq 100); do
			alive nginx || break
			NGINX_WORKER=$(child_of "${PID[nginx]}")
			if [ -n "$NGINX_WORKER" ] && port_open "$port"; then PORT[nginx]=$port; return 0; fi
			sleep 0.05
		done
		stop nginx  # most likely the port was taken meanwhile: try another
	done
	echo "bench-proxy: nginx did not start:" >&2
	cat "$TMP/nginx.err" "$dir/error.log" >&2 2>/dev/null || true
	exit 1
}

have_http_proxy() {
	command -v node >/dev/null && [ -d "$ROOT/tests/clients/node_modules/http-proxy" ]
}

# The process doing a variant's work (nginx: its worker).
work_pid() {
	case $1 in
	direct) echo "" ;;
	nginx) echo "$NGINX_WORKER" ;;
	*) echo "${PID[$1]}" ;;
	esac
}

# On-CPU time of all of a pid's threads in ns (the scheduler's own sum, in
# /proc/PID/task/*/schedstat: the rusage user + system time, without its
# 10 ms ticks). A variant's log writer thread is counted too.
cpu_ns() {
	[ -n "$1" ] && [ -d "/proc/$1/task" ] || { echo 0; return; }
	cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.0f", s }'
}

cpu_ticks() {  # utime + stime of a pid
	[ -n "$1" ] && [ -r "/proc/$1/stat" ] || { echo 0; return; }
	sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'
}

peak_rss_kib() {
	[ -n "$1" ] && [ -r "/proc/$1/status" ] || { echo null; return; }
	awk '/^VmHWM:/ { print $2; found = 1 } END { if (!found) print "null" }' "/proc/$1/status"
}

# Starts the proxies in front of upstream port $1; fills VARIANTS.
start_proxies() {
	local up=$1
	local v
	VARIANTS=(direct cdpproxy cdpproxy-log)
	PORT[direct]=$up
	start cdpproxy "$B/cdpproxy" --listen 127.0.0.1:0 --upstream "127.0.0.1:$up"
	start cdpproxy-log "$B/cdpproxy" --listen 127.0.0.1:0 --upstream "127.0.0.1:$up" \
		--log "$TMP/cdpproxy.jsonl"
	if [ -n "$BEFORE" ]; then
		start before "$BEFORE" --listen 127.0.0.1:0 --upstream "127.0.0.1:$up"
		start before-log "$BEFORE" --listen 127.0.0.1:0 --upstream "127.0.0.1:$up" \
			--log "$TMP/before.jsonl"
		VARIANTS+=(before before-log)
	fi
	for v in "${VARIANTS[@]:1}"; do wait_listening "$v"; done
	VARIANTS+=(nginx)
	start_nginx "$up"
	if have_http_proxy && [[ $SKIP != *,http-proxy,* ]]; then
		start http-proxy node "$ROOT/tools/bench-http-proxy.js" "$up"
		wait_listening http-proxy
		VARIANTS+=(http-proxy)
	fi
}

stop_proxies() {
	local v
	for v in http-proxy nginx before-log before cdpproxy-log cdpproxy; do stop "$v"; done
}

# --- runs ----------------------------------------------------------------------

# run WORKLOAD ROUND VARIANT PATH ARGS...: one cdp-load run, one JSON line.
# A proxy's ping-pong is paired with direct (cdp-load --baseline): commands
# take turns between the two, so drift in the peer's speed, which is large
# (Chromium's round trip moves by hundreds of us from second to second),
# cancels out of the added latency.
run() {
	local workload=$1 round=$2 variant=$3 path=$4; shift 4
	local wpid t0 t1 c0 c1 n0 n1 out=$TMP/run.json rc=0 pair=()
	[[ $workload == *ping-pong && $variant != direct ]] &&
		pair=(--baseline "ws://127.0.0.1:${PORT[direct]}$path")
	wpid=$(work_pid "$variant")
	: >"$TMP/cdpproxy.jsonl"  # keep the disk bounded
	: >"$TMP/before.jsonl"
	c0=$(cpu_ticks "$wpid")
	n0=$(cpu_ns "$wpid")
	t0=$(date +%s.%N)
	"$B/cdp-load" --quiet --timeout 30 --duration "$SECONDS_PER_RUN" --json "$out" "$@" \
		"${pair[@]}" "ws://127.0.0.1:${PORT[$variant]}$path" 2>"$TMP/run.err" || rc=$?
	t1=$(date +%s.%N)
	n1=$(cpu_ns "$wpid")
	c1=$(cpu_ticks "$wpid")
	if [ "$rc" -ne 0 ] || [ ! -s "$out" ]; then
		FAILED=1
		echo "bench-proxy: $workload via $variant FAILED:" >&2
		sed 's/^/  /' "$TMP/run.err" >&2
		[ -s "$out" ] || echo '{"ok":false}' >"$out"
	fi
	jq -c --arg w "$workload" --arg v "$variant" --argjson r "$round" \
		--argjson cpu "$(awk -v a="$c0" -v b="$c1" -v t="$CLK_TCK" -v s="$t0" -v e="$t1" \
			'BEGIN { printf "%.1f", (b - a) / t / (e - s) * 100 }')" \
		--argjson ns "$((n1 - n0))" \
		'{workload: $w, variant: $v, round: $r, proxy_cpu_pct: (if $v == "direct" then null else $cpu end),
		  proxy_cpu_ns: (if $v == "direct" then null else $ns end)} + .' \
		"$out" >>"$TMP/runs.jsonl"
	printf '.' >&2
}

# Each workload: rounds of all variants, the order rotated every round.
# Paced workloads leave direct out: there is no proxy to measure.
run_workloads() {
	local path=$1; shift
	local spec name args r i vs=("${VARIANTS[@]}") n
	[[ $1 == paced-* ]] && vs=("${VARIANTS[@]:1}")
	n=${#vs[@]}
	for spec in "$@"; do
		name=${spec%%|*}
		args=${spec#*|}
		printf 'bench-proxy: %-18s ' "$name" >&2
		for ((r = 1 - WARMUP; r <= ROUNDS; r++)); do
			for ((i = 0; i < n; i++)); do
				# shellcheck disable=SC2086 # args are words by design
				run "$name" "$r" "${vs[(i + r + n) % n]}" "$path" $args
			done
		done
		echo >&2
	done
}

record_rss() {  # PHASE: each proxy's peak RSS now
	local v
	for v in "${VARIANTS[@]}"; do
		[ "$v" = direct ] && continue
		echo "{\"phase\":\"$1\",\"variant\":\"$v\",\"kib\":$(peak_rss_kib "$(work_pid "$v")")}" \
			>>"$TMP/rss.jsonl"
	done
}

# Paced: messages/s that every variant sustains on this 2-core machine when
# it is not busy with other work (a round that falls more than 3% short is
# left out of the medians, and counted). A flood's message is an event
# (1 KiB, 20 per command).
EFFICIENCY_WORKLOADS=(
	"paced-20k|--connections 8 --in-flight 256 --rate 20000 --cmd-size 150 --result-size 150"
	"paced-100k|--connections 8 --in-flight 256 --rate 100000 --cmd-size 150 --result-size 150"
	"paced-150k|--connections 8 --in-flight 256 --rate 150000 --cmd-size 150 --result-size 150"
	"paced-flood-20k|--connections 1 --in-flight 64 --rate 20000 --flood 20 --event-size 1KiB"
	"paced-flood-100k|--connections 1 --in-flight 64 --rate 100000 --flood 20 --event-size 1KiB"
)

# Syscalls and context switches per message, once per variant and paced
# workload, outside the timed rounds (perf stat software counters on the
# proxy's threads; nginx: its worker). Skipped without perf.
count_syscalls() {
	local path=$1 spec name args v wpid out=$TMP/perf.txt
	command -v perf >/dev/null && perf stat -e raw_syscalls:sys_enter -- true >/dev/null 2>&1 ||
		{ echo "bench-proxy: no usable perf: syscall counts skipped" >&2; return 0; }
	shift
	printf 'bench-proxy: %-18s ' "syscalls" >&2
	for spec in "$@"; do
		name=${spec%%|*}
		args=${spec#*|}
		for v in "${VARIANTS[@]}"; do
			[ "$v" = direct ] && continue
			wpid=$(work_pid "$v")
			: >"$TMP/cdpproxy.jsonl"
			: >"$TMP/before.jsonl"
			perf stat -x, -e raw_syscalls:sys_enter,context-switches -p "$wpid" -o "$out" &
			local perf_pid=$!
			sleep 0.2  # perf attaches
			# shellcheck disable=SC2086 # args are words by design
			"$B/cdp-load" --quiet --timeout 30 --duration 1 --json "$TMP/sys.json" $args \
				"ws://127.0.0.1:${PORT[$v]}$path" 2>/dev/null || true
			kill -INT "$perf_pid" 2>/dev/null || true
			wait "$perf_pid" 2>/dev/null || true
			jq -c --arg w "$name" --arg v "$v" \
				--argjson sys "$(awk -F, '$3 == "raw_syscalls:sys_enter" { print $1 + 0 }' "$out")" \
				--argjson cs "$(awk -F, '$3 == "context-switches" { print $1 + 0 }' "$out")" \
				'{workload: $w, variant: $v, syscalls: $sys, context_switches: $cs,
				  messages: (if .events > 0 then .events else .answers end)}' \
				"$TMP/sys.json" >>"$TMP/sys.jsonl" 2>/dev/null || true
			printf '.' >&2
		done
	done
	echo >&2
}

FLOOD=10000
[ "$QUICK" = 1 ] && FLOOD=2000
ECHO_WORKLOADS=(
	"ping-pong|--connections 1 --in-flight 1 --cmd-size 150 --result-size 150"
	"pipelined|--connections 8 --in-flight 64 --cmd-size 150 --result-size 150"
	"large|--connections 1 --in-flight 2 --cmd-size 150 --result-size 8MiB"
	"flood|--connections 1 --in-flight 2 --flood $FLOOD --event-size 1KiB"
)
EVAL='--method Runtime.evaluate --params {"expression":"1+1"}'
CHROME_WORKLOADS=(
	"chromium-ping-pong|--connections 1 --in-flight 1 $EVAL"
	"chromium-pipelined|--connections 1 --in-flight 64 $EVAL"
)

: >"$TMP/runs.jsonl"
: >"$TMP/rss.jsonl"
: >"$TMP/sys.jsonl"
LOAD_START=$(cut -d' ' -f1 /proc/loadavg)
echo "bench-proxy: $ROUNDS round(s) of ${SECONDS_PER_RUN} s$([ "$WARMUP" = 1 ] && echo " after a warm-up round"), load average $LOAD_START" >&2

start cdp-echo "$B/cdp-echo" --listen 127.0.0.1:0
wait_listening cdp-echo
start_proxies "${PORT[cdp-echo]}"
if [ "$QUICK" = 1 ]; then  # a slow paced run of each kind, to see that they work
	run_workloads /devtools/page/bench \
		"paced-2k|--connections 8 --in-flight 256 --rate 2000 --cmd-size 150 --result-size 150" \
		"paced-flood-2k|--connections 1 --in-flight 64 --rate 2000 --flood 20 --event-size 1KiB"
else
	run_workloads /devtools/page/bench "${EFFICIENCY_WORKLOADS[@]}"
	count_syscalls /devtools/page/bench "${EFFICIENCY_WORKLOADS[@]}"
fi
[ "$ONLY_EFFICIENCY" = 1 ] || run_workloads /devtools/page/bench "${ECHO_WORKLOADS[@]}"
record_rss echo
stop_proxies
stop cdp-echo

if [ "$CHROME" = 1 ] && [ -x "$CHROMIUM" ]; then
	profile=$TMP/chromium-profile
	mkdir -p "$profile"
	# TMPDIR in the profile: Chromium leaves its singleton socket's directory there.
	mapfile -t flags < <(node -p "require('$ROOT/tools/common/chromium-flags.js').join('\\n')")
	start chromium env TMPDIR="$profile" setsid "$CHROMIUM" "${flags[@]}" \
		--user-data-dir="$profile" --remote-debugging-port=0 about:blank
	for i in $(seq 300); do
		[ -s "$profile/DevToolsActivePort" ] && break
		alive chromium || break
		sleep 0.05
	done
	cport=$(head -1 "$profile/DevToolsActivePort" 2>/dev/null || true)
	[ -n "$cport" ] || { echo "bench-proxy: chromium did not start:" >&2; tail "$TMP/chromium.err" >&2; exit 1; }
	page=$(curl -sf "http://127.0.0.1:$cport/json/list" | jq -r '[.[] | select(.type == "page")][0].id // empty')
	[ -n "$page" ] || page=$(curl -sf -X PUT "http://127.0.0.1:$cport/json/new?about:blank" | jq -r .id)
	start_proxies "$cport"
	run_workloads "/devtools/page/$page" "${CHROME_WORKLOADS[@]}"
	record_rss chromium
	stop_proxies
	stop chromium
elif [ "$CHROME" = 1 ]; then
	echo "bench-proxy: no $CHROMIUM: Chromium workloads skipped" >&2
fi
LOAD_END=$(cut -d' ' -f1 /proc/loadavg)

# --- medians, ratios, the table and the JSON ----------------------------------------

jq -n --slurpfile runs "$TMP/runs.jsonl" --slurpfile rss "$TMP/rss.jsonl" --slurpfile sys "$TMP/sys.jsonl" \
	--arg mode "$([ "$QUICK" = 1 ] && echo quick || echo full)" --argjson rounds "$ROUNDS" \
	--argjson seconds "$SECONDS_PER_RUN" --arg load0 "$LOAD_START" --arg load1 "$LOAD_END" \
	--arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" --arg kernel "$(uname -r)" \
	--argjson nproc "$(nproc)" --arg flood "$FLOOD" \
	-f "$ROOT/tools/bench-proxy.jq" >"$TMP/summary.json"
mkdir -p "$(dirname "$JSON")"
mv "$TMP/summary.json" "$JSON"
jq -r --arg out table --arg json "$JSON" -f "$ROOT/tools/bench-proxy.jq" "$JSON"
# Large messages: what the proxy adds to an 8 MiB and a 117 MiB message
# (last byte in -> last byte out), against --before when given (not in --quick).
if [ "$QUICK" = 0 ]; then
	B="$B" node "$ROOT/tools/bench-large.js" --proxy "$B/cdpproxy" ${BEFORE:+--before "$BEFORE"} \
		--repeats "$((ROUNDS + 2))" --json "$(dirname "$JSON")/bench-large.json" || FAILED=1
fi
# The browser wrapper's pipe path against a direct pipe (not in --quick).
if [ "$CHROME" = 1 ] && [ "$QUICK" = 0 ]; then
	B="$B" node "$ROOT/tools/bench-pipe.js" --rounds "$ROUNDS" --seconds "$SECONDS_PER_RUN" \
		--json "$(dirname "$JSON")/bench-pipe.json" || FAILED=1
fi
[ "$FAILED" = 0 ] || { echo "bench-proxy: some runs FAILED their checks (above)" >&2; exit 1; }
