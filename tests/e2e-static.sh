#!/bin/bash
# End-to-end test of aout2elf on static a.out programs.
#
# For each a.out kind (OMAGIC, NMAGIC, ZMAGIC, QMAGIC) it converts the
# fixtures that testdata/fixtures.mk builds (testdata/NAME.M.aout) into a
# temporary directory, looks at the ELF files with readelf and nm, runs
# them and checks their exit status and output.  Converted programs that
# need address 0 (OMAGIC, NMAGIC, ZMAGIC) can only run with CAP_SYS_RAWIO
# (root) or vm.mmap_min_addr = 0, QMAGIC ones with vm.mmap_min_addr <= 4096;
# checks that cannot run here are reported as skipped.  As root, with
# setpriv, it also runs converted programs as the unprivileged uid 65534,
# where they must refuse with one line about vm.mmap_min_addr and exit 127
# (or run, where vm.mmap_min_addr allows it).
#
# Run from the top build directory, as "make check" does.  Environment:
#   AOUT2ELF          the converter (default ./src/aout2elf)
#   AOUT2ELF_TESTDATA the fixtures (default ./testdata)
#   AOUT2ELF_MAGICS   the kinds to test (default "omagic nmagic zmagic qmagic")
#   AOUT2ELF_TIMEOUT  seconds each program may run (default 30)
#
# Prints "ok N - ...", "not ok N - ..." (with "#" lines saying why) or
# "ok N # skip ..." per check and ends with "N passed, N failed, N skipped".
# Exit status: 1 if anything failed, 77 if everything was skipped, else 0.

set -u

AOUT2ELF=${AOUT2ELF:-./src/aout2elf}
TESTDATA=${AOUT2ELF_TESTDATA:-./testdata}
MAGICS=${AOUT2ELF_MAGICS:-omagic nmagic zmagic qmagic}
RUN_TIMEOUT=${AOUT2ELF_TIMEOUT:-30}
NOBODY_UID=65534

n=0 passed=0 failed=0 skipped=0

ok() {
	n=$((n + 1)) passed=$((passed + 1))
	echo "ok $n - $1"
}

# not_ok DESCRIPTION [REASON...]
not_ok() {
	n=$((n + 1)) failed=$((failed + 1))
	echo "not ok $n - $1"
	shift
	local line
	for line in "$@"; do
		printf '#   %s\n' "$line"
	done
}

skip() {
	n=$((n + 1)) skipped=$((skipped + 1))
	echo "ok $n # skip $1"
}

summary() {
	echo "$passed passed, $failed failed, $skipped skipped"
	if [ "$failed" -gt 0 ]; then
		exit 1
	elif [ "$passed" -eq 0 ] && [ "$skipped" -gt 0 ]; then
		exit 77
	fi
	exit 0
}

# show FILE LABEL: the first lines of FILE, for a failure report
show() {
	if [ -s "$1" ]; then
		head -c 2000 "$1" | head -n 8 | sed "s/^/#     $2: /"
	else
		echo "#     $2: (empty)"
	fi
}

W=$(mktemp -d "${TMPDIR:-/tmp}/e2e-static.XXXXXX") || {
	echo "not ok 1 - mktemp -d"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
}
trap 'rm -rf "$W"' EXIT
# converted programs go to $B, which the unprivileged user can read
B=$W/bin
mkdir "$B" && chmod 755 "$W" "$B"

if command -v timeout >/dev/null 2>&1; then
	TIMEOUT=(timeout -k 5 "$RUN_TIMEOUT")
else
	TIMEOUT=()
fi

# run TAG COMMAND...: runs COMMAND with stdin from /dev/null; sets st, and
# OUT and ERR to the files that hold its stdout and stderr
run() {
	local tag=$1
	shift
	OUT=$W/$tag.out ERR=$W/$tag.err
	st=0
	"${TIMEOUT[@]}" "$@" >"$OUT" 2>"$ERR" </dev/null || st=$?
}

# expect DESCRIPTION STATUS STDOUT: checks what run left: exit status
# STATUS, stdout exactly STDOUT, nothing on stderr
expect() {
	local desc=$1 want_st=$2 want_out=$3
	printf '%s' "$want_out" >"$W/expected"
	if [ "$st" = "$want_st" ] && cmp -s "$W/expected" "$OUT" && [ ! -s "$ERR" ]; then
		ok "$desc"
	else
		local why="exit status $st, expected $want_st"
		[ "$st" = 124 ] && [ ${#TIMEOUT[@]} -gt 0 ] && why="$why (timed out after ${RUN_TIMEOUT}s)"
		not_ok "$desc" "$why" "expected stdout: $(printf '%q' "$want_out")"
		show "$OUT" stdout
		show "$ERR" stderr
	fi
}

# expect_refusal DESCRIPTION: the converted program must have printed
# nothing on stdout and one line mentioning vm.mmap_min_addr on stderr,
# and exited 127
expect_refusal() {
	local desc=$1 lines
	lines=$(grep -c '' "$ERR")
	if [ "$st" = 127 ] && [ ! -s "$OUT" ] && [ "$lines" = 1 ] &&
		grep -q 'vm\.mmap_min_addr' "$ERR"; then
		ok "$desc"
	else
		not_ok "$desc" "exit status $st (expected 127), $lines stderr lines (expected 1 mentioning vm.mmap_min_addr)"
		show "$OUT" stdout
		show "$ERR" stderr
	fi
}

# ---- what this machine allows ----
min_addr=$(cat /proc/sys/vm/mmap_min_addr 2>/dev/null) || min_addr=
case $min_addr in
'' | *[!0-9]*) min_addr=65536 ;;
esac
rawio=no
capeff=$(awk '/^CapEff:/ { print $2 }' /proc/self/status 2>/dev/null)
if [ -n "$capeff" ] && (((16#$capeff >> 17) & 1)); then
	rawio=yes # CAP_SYS_RAWIO: may map below vm.mmap_min_addr
fi
echo "# aout2elf: $AOUT2ELF, fixtures: $TESTDATA, uid $(id -u), CAP_SYS_RAWIO: $rawio, vm.mmap_min_addr: $min_addr"

# lowest address a converted program of kind M needs
need_addr() {
	case $1 in
	qmagic) echo 4096 ;;
	*) echo 0 ;;
	esac
}

# why_not_run M: prints why converted M programs cannot run here; fails
# (prints nothing) when they can
why_not_run() {
	local need
	need=$(need_addr "$1")
	[ "$rawio" = yes ] && return 1
	[ "$min_addr" -le "$need" ] && return 1
	echo "needs root (CAP_SYS_RAWIO) or vm.mmap_min_addr <= $need, which is $min_addr"
}

if [ ! -x "$AOUT2ELF" ]; then
	not_ok "the converter $AOUT2ELF exists (build it first, or set AOUT2ELF)"
	summary
fi

td_abs=$(cd "$TESTDATA" 2>/dev/null && pwd) || td_abs=$TESTDATA
have_readelf=no have_nm=no
command -v readelf >/dev/null 2>&1 && have_readelf=yes
command -v nm >/dev/null 2>&1 && have_nm=yes

# nm_value FILE SYMBOL: the value nm gives SYMBOL in FILE, as a decimal number
nm_value() {
	local v
	v=$(nm "$1" 2>/dev/null | awk -v s="$2" '$NF == s && NF == 3 { print $1; exit }')
	[ -n "$v" ] && echo $((16#$v))
}

# runcheck DESCRIPTION PROGRAM STATUS STDOUT [ARG...]: runs the converted
# PROGRAM (a name in $B, for the kind $M), or fails when it was not converted
runcheck() {
	local desc=$1 name=$2.$M want_st=$3 want_out=$4
	shift 4
	if [ ! -f "$B/$name" ]; then
		not_ok "$desc" "$name was not converted"
		return
	fi
	run "run-$name" "$B/$name" "$@"
	expect "$desc" "$want_st" "$want_out"
}

for M in $MAGICS; do
	# ---- convert ----
	for f in hello hello.stripped startup sigsegv forkexec; do
		case $f in
		hello.stripped) src=$TESTDATA/hello.$M.stripped.aout ;;
		*) src=$TESTDATA/$f.$M.aout ;;
		esac
		dst=$B/$f.$M
		desc="$M: aout2elf converts $(basename "$src")"
		if [ ! -f "$src" ]; then
			not_ok "$desc" "fixture $src is missing (make check builds it)"
			continue
		fi
		run "conv-$f.$M" "$AOUT2ELF" "$src" "$dst"
		# quiet: nothing on stdout; on stderr at most "aout2elf: warning:"
		# lines (it warns when vm.mmap_min_addr keeps users from running it)
		noisy=no
		{ [ -s "$OUT" ] || grep -qv '^aout2elf: warning: ' "$ERR"; } && noisy=yes
		if [ "$st" = 0 ] && [ -f "$dst" ] && [ -x "$dst" ] && [ "$noisy" = no ]; then
			chmod 755 "$dst"
			ok "$desc"
		else
			why="exit status $st"
			[ -f "$dst" ] || why="$why, no output file"
			[ -f "$dst" ] && [ ! -x "$dst" ] && why="$why, output not executable"
			[ "$noisy" = yes ] && why="$why, printed more than warnings"
			not_ok "$desc" "$why"
			show "$OUT" stdout
			show "$ERR" stderr
			rm -f "$dst"
		fi
	done

	# ---- look at the ELF ----
	desc="$M: readelf -h says ELF32 and EXEC for converted hello"
	if [ "$have_readelf" = no ]; then
		skip "$desc (no readelf)"
	elif [ ! -f "$B/hello.$M" ]; then
		not_ok "$desc" "hello.$M.aout was not converted"
	else
		readelf -h "$B/hello.$M" >"$W/readelf.$M" 2>&1
		if grep -Eq '^[[:space:]]*Class:[[:space:]]+ELF32' "$W/readelf.$M" &&
			grep -Eq '^[[:space:]]*Type:[[:space:]]+EXEC' "$W/readelf.$M"; then
			ok "$desc"
		else
			not_ok "$desc"
			show "$W/readelf.$M" readelf
		fi
	fi

	desc="$M: nm lists fixture_main in converted hello at its address in hello.$M.elf"
	if [ "$have_nm" = no ]; then
		skip "$desc (no nm)"
	elif [ ! -f "$B/hello.$M" ]; then
		not_ok "$desc" "hello.$M.aout was not converted"
	else
		want=$(nm_value "$TESTDATA/hello.$M.elf" fixture_main)
		got=$(nm_value "$B/hello.$M" fixture_main)
		if [ -z "$want" ]; then
			not_ok "$desc" "no fixture_main in $TESTDATA/hello.$M.elf"
		elif [ "$got" = "$want" ]; then
			ok "$desc"
		else
			if [ -n "$got" ]; then
				got=$(printf '0x%x' "$got")
			else
				got="no fixture_main"
			fi
			not_ok "$desc" "nm gives $got, expected $(printf '0x%x' "$want")"
			nm "$B/hello.$M" >"$W/nm.$M" 2>&1
			show "$W/nm.$M" nm
		fi
	fi

	desc="$M: nm lists no symbols in converted hello.$M.stripped.aout"
	if [ "$have_nm" = no ]; then
		skip "$desc (no nm)"
	elif [ ! -f "$B/hello.stripped.$M" ]; then
		not_ok "$desc" "hello.$M.stripped.aout was not converted"
	else
		nm "$B/hello.stripped.$M" >"$W/nm-stripped.$M" 2>/dev/null
		if [ ! -s "$W/nm-stripped.$M" ]; then
			ok "$desc"
		else
			not_ok "$desc"
			show "$W/nm-stripped.$M" nm
		fi
	fi

	# ---- run ----
	if reason=$(why_not_run "$M"); then
		# what it must do instead: refuse, with one line saying why
		desc="$M: hello exits 127 with one line about vm.mmap_min_addr here ($reason)"
		if [ -f "$B/hello.$M" ]; then
			run "refuse-hello.$M" "$B/hello.$M"
			expect_refusal "$desc"
		else
			not_ok "$desc" "hello.$M.aout was not converted"
		fi
		for d in "hello" "hello world" "hello.stripped" "startup" "startup args" \
			"startup with no environment" "sigsegv" "forkexec child32" \
			"forkexec child64" "forkexec hello" "forkexec sigsegv"; do
			skip "$M: run $d ($reason)"
		done
		continue
	fi

	hello=$'hello from a.out\n'
	runcheck "$M: run hello" hello 0 "$hello"
	runcheck "$M: run hello world" hello 0 "${hello}world"$'\n' world
	runcheck "$M: run hello.stripped" hello.stripped 0 "$hello"
	runcheck "$M: run startup" startup 0 $'startup: ok\n'

	desc="$M: run startup args \"b b\" \"\" with AOUT_TEST=yes"
	if [ -f "$B/startup.$M" ]; then
		run "run-startup-args.$M" env AOUT_TEST=yes "$B/startup.$M" args "b b" ""
		expect "$desc" 0 $'startup: ok\n'
	else
		not_ok "$desc" "startup.$M was not converted"
	fi

	desc="$M: run startup with no environment"
	if [ -f "$B/startup.$M" ]; then
		run "run-startup-noenv.$M" env -i "$B/startup.$M"
		expect "$desc" 0 $'startup: ok\n'
	else
		not_ok "$desc" "startup.$M was not converted"
	fi

	runcheck "$M: run sigsegv" sigsegv 42 $'caught SIGSEGV\n'

	for c in child32 child64; do
		desc="$M: run forkexec $c (glibc program)"
		if [ ! -x "$td_abs/$c" ]; then
			not_ok "$desc" "$td_abs/$c is missing (make check builds it)"
		else
			runcheck "$desc" forkexec 0 "$c ok"$'\n' "$td_abs/$c"
		fi
	done
	for c in hello sigsegv; do
		desc="$M: run forkexec $c (converted $c.$M)"
		case $c in
		hello) want_st=0 want_out="${hello}child"$'\n' ;;
		sigsegv) want_st=42 want_out=$'caught SIGSEGV\n' ;;
		esac
		if [ ! -f "$B/$c.$M" ]; then
			not_ok "$desc" "$c.$M was not converted"
		else
			runcheck "$desc" forkexec "$want_st" "$want_out" "$B/$c.$M"
		fi
	done
done

# ---- as an unprivileged user ----
# unprivileged_check M: converted hello of kind M, run as uid 65534
unprivileged_check() {
	local M=$1 need desc
	need=$(need_addr "$M")
	if [ "$min_addr" -le "$need" ]; then
		desc="$M: hello runs as uid $NOBODY_UID (vm.mmap_min_addr $min_addr <= $need)"
	else
		desc="$M: hello as uid $NOBODY_UID exits 127 with one line about vm.mmap_min_addr ($min_addr > $need)"
	fi
	if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null 2>&1; then
		skip "$desc (needs root and setpriv)"
		return
	fi
	case " $MAGICS " in
	*" $M "*) ;;
	*)
		skip "$desc ($M not tested)"
		return
		;;
	esac
	if [ ! -f "$B/hello.$M" ]; then
		not_ok "$desc" "hello.$M.aout was not converted"
		return
	fi
	run "nobody-probe" setpriv --reuid=$NOBODY_UID --regid=$NOBODY_UID --clear-groups true
	if [ "$st" != 0 ]; then
		skip "$desc (setpriv cannot switch to uid $NOBODY_UID)"
		return
	fi
	run "nobody-hello.$M" setpriv --reuid=$NOBODY_UID --regid=$NOBODY_UID --clear-groups "$B/hello.$M"
	if [ "$min_addr" -le "$need" ]; then
		expect "$desc" 0 $'hello from a.out\n'
	else
		expect_refusal "$desc"
	fi
}

unprivileged_check zmagic
unprivileged_check qmagic

summary
