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
