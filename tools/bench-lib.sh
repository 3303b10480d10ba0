# bench-lib: what bench-proxy.sh and bench-instr.sh share, sourced once B is set.

# bench_check WHO CMD...: exits 2 unless cdp-echo, cdp-load and cdpproxy are
# built in $B and each CMD is on PATH (WHO names the script in the message).
bench_check() {
	local who=$1 bin; shift
	for bin in cdp-echo cdp-load cdpproxy; do
		[ -x "$B/$bin" ] || { echo "$who: $B/$bin missing: run make first" >&2; exit 2; }
	done
	for bin; do
		command -v "$bin" >/dev/null || { echo "$who: $bin is needed (make deps)" >&2; exit 2; }
	done
}

# listening_port FILE: PORT of the first "listening on http://127.0.0.1:PORT" in FILE.
listening_port() { sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9]*\).*|\1|p' "$1" | head -1; }

# --- processes: every one started here is stopped by its PID ----------------
# Set TMP (stderr files go there) and BENCH_WHO (messages) before starting.
declare -A PID PORT
STARTED=()              # names, in the order started
STOP_GRACE_TENTHS=50    # SIGTERM, then SIGKILL after this many tenths of a second

stop() {  # NAME: SIGTERM, then SIGKILL after the grace; a process group is emptied too
	local name=$1 pid=${PID[$1]:-} i
	[ -n "$pid" ] || return 0
	kill -TERM "$pid" 2>/dev/null || true
	for i in $(seq "$STOP_GRACE_TENTHS"); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	if [ "$name" = chromium ]; then  # its helpers are in the group it leads
		kill -KILL -- "-$pid" 2>/dev/null || true
	fi
	unset "PID[$name]"
}

cleanup() {
	local i
	for ((i = ${#STARTED[@]} - 1; i >= 0; i--)); do stop "${STARTED[i]}"; done
	rm -rf "$TMP"
}

alive() { [ -n "${PID[$1]:-}" ] && kill -0 "${PID[$1]}" 2>/dev/null; }

# start NAME CMD...: runs CMD in the background, stderr in $TMP/NAME.err.
start() {
	local name=$1; shift
	: >"$TMP/$name.err"  # before the job starts: wait_listening reads it at once
	"$@" 2>>"$TMP/$name.err" &
	PID[$name]=$!
	STARTED+=("$name")
}

# Waits for "listening on http://127.0.0.1:PORT" in NAME's stderr.
wait_listening() {
	local name=$1 i port
	for i in $(seq 600); do   # 30 s: a proxy under callgrind starts slowly
		port=$(listening_port "$TMP/$name.err" || true)
		if [ -n "$port" ]; then PORT[$name]=$port; return 0; fi
		alive "$name" || break
		sleep 0.05
	done
	echo "$BENCH_WHO: $name did not start:" >&2
	cat "$TMP/$name.err" >&2
	exit 1
}
