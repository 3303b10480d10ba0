# bench-lib: what tools/bench-proxy.sh and tools/bench-instr.sh share; sourced
# after B is set. WHO names the script in messages.

# bench_check WHO CMD...: exits 2 unless cdp-echo, cdp-load and cdpproxy are
# built in $B and each CMD is on PATH.
bench_check() {
	local who=$1 bin; shift
	for bin in cdp-echo cdp-load cdpproxy; do
		[ -x "$B/$bin" ] || { echo "$who: $B/$bin missing: run make first" >&2; exit 2; }
	done
	for bin in "$@"; do
		command -v "$bin" >/dev/null || { echo "$who: $bin is needed (make deps)" >&2; exit 2; }
	done
}

# listening_port FILE: the port of the first "listening on
# http://127.0.0.1:PORT" in FILE (a server's stderr), or nothing.
listening_port() {
	sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9]*\).*|\1|p' "$1" | head -1
}
