#!/bin/sh
# Tier 0: no call cycle among .c files. For the proxy (its layers' objects in
# $B/obj, its two main()s) and for each tool (every .c under tools/NAME/, its
# subfolders included, with tools/common), "file A uses a symbol file B
# defines" is an edge A -> B, from nm on one object per file; a strongly
# connected component of more than one file fails, listed with the symbols on
# each of its edges (tests/integration/lib/cycles.pl). The checker itself is
# first shown a planted cycle, and the same files without it.
# Then who calls the core, from nm's undefined symbols: no object of the
# wrapper or the programs' main()s uses a core_, route_, queue_ or msg_
# symbol (the wrapper uses legs and the loop), and no leg's (every folder
# `make print-legs` names) a core_ or route_ one (a leg calls the core
# through the leg contract, proxy/core/leg.h, and the loop); the check is
# first shown an object that breaks it.
# B overrides the build directory (default build/); run `make` first.
cd "$(dirname "$0")/../.." || exit 1
B=${B:-build}
CC=${CC:-cc}
CYCLES=tests/integration/lib/cycles.pl
TMP=$(mktemp -d /tmp/cdpproxy-02-calls.XXXXXX) || exit 1
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM

# Run from a recipe (make check), the outer make's flags are not for these.
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory "$@"; }
layers=$(mk print-layers) || { echo "Bail out! make print-layers failed"; exit 1; }
# Every tool that is a folder; tools/NAME.c is one file and cannot have a cycle.
tools=""
for d in tools/*/; do
    d=${d%/}
    [ "$d" = tools/common ] && continue
    [ -n "$(find "$d" -name '*.c' | head -n 1)" ] && tools="$tools ${d#tools/}"
done
legs=$(mk print-legs) || { echo "Bail out! make print-legs failed"; exit 1; }
echo "1..$((6 + $(echo $tools | wc -w)))"
n=0 failed=0

# ok|not ok, then the checker's output (or a compiler's) as comments.
report() {  # STATUS NAME FILE
    n=$((n + 1))
    if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
    [ -s "$3" ] && sed 's/^/# /' "$3"
    return 0
}

# Compiles each "SRC OBJ CFLAGS..." line of stdin, one per core at a time;
# the compilers' errors in $TMP/cc.err.
compile() {
    : >"$TMP/cc.err"
    # (xargs -L joins a line that ends in a blank to the next one)
    # shellcheck disable=SC2016
    sed 's/[[:space:]]*$//' | xargs -L 1 -P "$(nproc 2>/dev/null || echo 2)" sh -c 'src=$1 obj=$2; shift 2
        mkdir -p "$(dirname "$obj")" &&
        '"$CC"' -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O0 -w "$@" -c -o "$obj" "$src" 2>>"$0"' \
        "$TMP/cc.err"
}

# The checker on files it must judge: a -> b -> c -> a, and d beside them.
mkdir -p "$TMP/self"
cat >"$TMP/self/a.c" <<'EOF'
int b_one(void);
int a_one(void);
int a_one(void) { return b_one(); }
EOF
cat >"$TMP/self/b.c" <<'EOF'
int c_one(void);
int b_one(void);
int b_one(void) { return c_one() + 1; }
EOF
printf '%s\n' 'int a_one(void);' 'int c_one(void);' \
    'int c_one(void) { return BACK; }' >"$TMP/self/c.c"
printf '%s\n' 'int a_one(void);' 'int d_one(void);' 'int d_one(void) { return a_one(); }' >"$TMP/self/d.c"
for f in a b d; do echo "$TMP/self/$f.c $TMP/self/$f.o"; done | compile
echo "$TMP/self/c.c $TMP/self/c.o -DBACK=a_one()" | compile
perl "$CYCLES" --strip "$TMP/self/" "$TMP/self"/*.o >"$TMP/out" 2>&1
rc=$?
grep -qx 'cycle: a.c b.c c.c' "$TMP/out" && grep -qx '  c.c -> a.c: a_one' "$TMP/out" &&
    ! grep -q 'd\.c' "$TMP/out"
report $(( $? + (rc != 1) )) "the checker finds a planted cycle a -> b -> c -> a, with the symbol on each edge (exit $rc)" "$TMP/out"
echo "$TMP/self/c.c $TMP/self/c.o -DBACK=0" | compile
perl "$CYCLES" --strip "$TMP/self/" "$TMP/self"/*.o >"$TMP/out" 2>&1
report $? "and passes the same files without the edge back" "$TMP/out"

# The objects, one per .c file: the library's, the main()s' and the tools'
# (make calls-objs; nothing to do when the build is up to date).
mk B="$B" calls-objs >"$TMP/make.out" 2>&1 ||
    { echo "Bail out! make calls-objs failed"; sed 's/^/# /' "$TMP/make.out"; exit 1; }
objs() {  # SRC...: the object of each in $TMP/objs; each must be newer than its source
    : >"$TMP/objs"
    for c in "$@"; do
        [ -e "$c" ] || continue
        case $c in
            proxy/*) o=$B/obj/${c#proxy/} ;;
            tools/common/*) o=$B/obj/common/${c#tools/common/} ;;
            *) o=$B/obj/$c ;;
        esac
        o=${o%.c}.o
        [ -e "$o" ] && [ ! "$c" -nt "$o" ] || { echo "Bail out! $o is missing or older than $c"; exit 1; }
        echo "$o" >>"$TMP/objs"
    done
}

set --
for l in $layers; do set -- "$@" proxy/"$l"/*.c; done
objs "$@"
# shellcheck disable=SC2046
perl "$CYCLES" --strip "$B/obj/" $(cat "$TMP/objs") >"$TMP/out" 2>&1
report $? "proxy/: no call cycle among the layers' .c files (nodes are paths under proxy/)" "$TMP/out"

# OBJ... using a symbol that starts with one of PREFIXES (a regex
# alternation): "OBJ: symbols" lines in $TMP/out; 1 if there is any.
calls_into() {  # PREFIXES OBJ...
    p=$1; shift
    : >"$TMP/out"
    for o in "$@"; do
        u=$(nm -u "$o" | awk '{ print $NF }' | grep -E "^($p)" | tr '\n' ' ')
        [ -z "$u" ] || echo "${o#"$B"/obj/}: $u" >>"$TMP/out"
    done
    [ ! -s "$TMP/out" ]
}
printf '%s\n' 'void core_shut(int);' 'void planted(void);' 'void planted(void) { core_shut(0); }' >"$TMP/self/e.c"
echo "$TMP/self/e.c $TMP/self/e.o" | compile
! calls_into 'core_|route_|queue_|msg_' "$TMP/self/e.o" && grep -q 'core_shut' "$TMP/out"
report $? "the caller check finds a planted call to core_shut" "$TMP/out"
set --
for l in wrapper app; do set -- "$@" proxy/"$l"/*.c; done
objs "$@"
# shellcheck disable=SC2046
calls_into 'core_|route_|queue_|msg_' $(cat "$TMP/objs")
report $? "proxy/wrapper/, proxy/app/: no object uses a core_, route_, queue_ or msg_ symbol (nm -u)" "$TMP/out"
set --
for l in $legs; do set -- "$@" proxy/"$l"/*.c; done
objs "$@"
# shellcheck disable=SC2046
calls_into 'core_|route_' $(cat "$TMP/objs")
report $? "the legs ($(echo $legs)): no object uses a core_ or route_ symbol, only leg.h's leg_* (nm -u)" "$TMP/out"

for t in $tools; do
    # shellcheck disable=SC2046
    objs $(find "tools/$t" tools/common -name '*.c' | sort)
    # shellcheck disable=SC2046
    perl "$CYCLES" --strip "$B/obj/" $(cat "$TMP/objs") >"$TMP/out" 2>&1
    report $? "tools/$t (with tools/common as common/): no call cycle among its .c files" "$TMP/out"
done
exit $failed
