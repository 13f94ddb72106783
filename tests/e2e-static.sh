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

. "${srcdir:-.}/tests/lib.sh"
need_i386 "$@"

e2e_setup e2e-static
MAGICS=${AOUT2ELF_MAGICS:-omagic nmagic zmagic qmagic}

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
	run "$B/$name" "$@"
	expect "$desc" "$want_st" "$want_out"
}

GREP=$(command -v grep)

# judge_run DESC TEST...: ok if the command TEST says the last run was
# right, else not_ok with its status, stdout and stderr
judge_run() {
	local desc=$1
	shift
	if "$@"; then
		ok "$desc"
	else
		not_ok "$desc" "$(run_status)"
		show "$OUT" output
		show "$ERR" stderr
	fi
}

# the last run printed the hello line, or (ZMAGIC, NMAGIC, OMAGIC) said in
# one line that MMAP_PAGE_ZERO took page 0
# shellcheck disable=SC2317 # called by judge_run
hello_or_page_zero() {
	{ [ "$st" = 0 ] && [ "$(cat "$OUT")" = "${hello%$'\n'}" ]; } ||
		{ [ "$M" != qmagic ] && [ "$st" = 127 ] && one_line "$ERR" &&
			grep -q 'MMAP_PAGE_ZERO, setarch -Z' "$ERR"; }
}

# the last run exited 0 and reported a stack top
# shellcheck disable=SC2317 # called by judge_run
ran_with_stack_top() {
	[ "$st" = 0 ] && grep -q '^stack top: 0x' "$OUT"
}

# norandom_under_setarch M FLAG MASK WANT DESC: startup-norandom.M layout
# under "setarch FLAG": the stack top fixed, and of the personality bits
# in MASK exactly WANT set
norandom_under_setarch() {
	local M=$1 flag=$2 mask=$3 want=$4 desc=$5 per
	if ! command -v setarch >/dev/null 2>&1; then
		skip "$desc (no setarch here)"
		return
	fi
	if [ ! -f "$B/startup-norandom.$M" ]; then
		not_ok "$desc" "startup-norandom.$M was not converted"
		return
	fi
	run setarch "$(uname -m)" "$flag" "$B/startup-norandom.$M" layout
	per=$(sed -n 's/^personality: \(0x[0-9a-f]*\)$/\1/p' "$OUT")
	if [ "$st" = 0 ] && [ "$(sed -n 1p "$OUT")" = "stack top: 0xffffe000" ] &&
		[ -n "$per" ] && [ $((per & mask)) = $((want)) ]; then
		ok "$desc"
	else
		not_ok "$desc" "exit $st"
		show "$OUT" output
	fi
}

# traps exec-ignoring and exec-blocking of kind $1 ($2: said after the
# mode): an ignored or blocked SIGSYS survives exec (bit 30 of the masks)
exec_keeps_sigsys() {
	local t mask desc
	for t in ignoring:SigIgn blocking:SigBlk; do
		desc="$1: run traps exec-${t%%:*} grep$2: the new program starts with SIGSYS in ${t#*:}"
		run "$B/traps.$1" "exec-${t%%:*}" "$GREP" "^${t#*:}:" /proc/self/status
		mask=$(sed -n "s/^${t#*:}:[[:space:]]*//p" "$OUT")
		if [ "$st" = 0 ] && [ -n "$mask" ] && [ $((0x$mask & 0x40000000)) != 0 ] &&
			[ ! -s "$ERR" ]; then
			ok "$desc"
		else
			not_ok "$desc" "expected exit 0 and bit 0x40000000 in ${t#*:}"
			report_run
		fi
	done
}

# traps MODE... of kind $1 started with SIGSYS blocked ($2: the modes, $3:
# said after them)
started_blocked() {
	local t desc
	for t in $2; do
		desc="$1: run traps blocked: $t started with SIGSYS blocked (env --block-signal)$3"
		if env --block-signal=SYS true 2>/dev/null; then
			run env --block-signal=SYS "$B/traps.$1" "$t"
			expect "$desc" 0 $'traps: ok\n'
		else
			skip "$desc (env has no --block-signal)"
		fi
	done
}

# 0 if this kernel is older than Linux $1.$2
kernel_before() {
	local v major minor
	v=$(uname -r)
	major=${v%%.*} minor=${v#*.}
	minor=${minor%%[!0-9]*}
	[ "$major" -lt "$1" ] || { [ "$major" -eq "$1" ] && [ "${minor:-0}" -lt "$2" ]; }
}
# syscall user dispatch (x86): Linux 5.11 and later
kernel_has_dispatch=yes
kernel_before 5 11 && kernel_has_dispatch=no
# MREMAP_DONTUNMAP for a file mapping: Linux 5.13 and later; before, the
# stub's moves unmap the staging
staging_kept=yes
kernel_before 5 13 && staging_kept=no

# startup in the LAYOUTS (tests/lib.sh)
layout_names=
for L in $LAYOUTS; do
	layout_names="$layout_names startup-$L startup-$L-direct"
done

for M in $MAGICS; do
	# ---- convert ----
	for f in hello hello.stripped startup startup-direct startup-norandom sigsegv \
		forkexec traps traps-norandom runcode runcode-nx $layout_names; do
		opt=()
		case $f in
		hello.stripped) src=$TESTDATA/hello.$M.stripped.aout ;;
		startup-direct) src=$TESTDATA/startup.$M.aout opt=(--direct) ;;
		startup-norandom) src=$TESTDATA/startup.$M.aout opt=(--no-randomize) ;;
		traps-norandom) src=$TESTDATA/traps.$M.aout opt=(--no-randomize) ;;
		startup-*-direct) src=$TESTDATA/${f%-direct}.$M.aout opt=(--direct) ;;
		runcode-nx) src=$TESTDATA/runcode.$M.aout opt=(--noexecstack) ;;
		*) src=$TESTDATA/$f.$M.aout ;;
		esac
		desc="$M: aout2elf ${opt[*]:+${opt[*]} }converts $(basename "$src")"
		if [ ! -f "$src" ]; then
			not_ok "$desc" "fixture $src is missing (make check builds it)"
			continue
		fi
		convert "$desc" "$B/$f.$M" "${opt[@]}" "$src"
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

	# --noexecstack: a PT_GNU_STACK without x; without it none, so that
	# the kernel gives the program READ_IMPLIES_EXEC, as a.out had
	for f in runcode runcode-nx; do
		case $f in
		runcode) desc="$M: readelf -l shows no GNU_STACK by default" want= ;;
		*) desc="$M: readelf -l shows GNU_STACK RW with --noexecstack" want=RW ;;
		esac
		if [ "$have_readelf" = no ]; then
			skip "$desc (no readelf)"
			continue
		elif [ ! -f "$B/$f.$M" ]; then
			not_ok "$desc" "$f.$M was not converted"
			continue
		fi
		readelf -lW "$B/$f.$M" >"$W/readelf-l.$f.$M" 2>&1
		got=$(awk '$1 == "GNU_STACK" { print $(NF - 1) }' "$W/readelf-l.$f.$M")
		# (no program headers at all would read as no GNU_STACK)
		if grep -q '^ *LOAD ' "$W/readelf-l.$f.$M" && [ "$got" = "$want" ]; then
			ok "$desc"
		else
			not_ok "$desc" "GNU_STACK flags: '${got:-none}', expected '${want:-none}'"
			show "$W/readelf-l.$f.$M" readelf
		fi
	done

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
		# nm of a file it cannot read prints nothing on stdout too
		nm "$B/hello.stripped.$M" >"$W/nm-stripped.$M" 2>"$W/nm-stripped.$M.err"
		if [ ! -s "$W/nm-stripped.$M" ] && grep -q 'no symbols' "$W/nm-stripped.$M.err"; then
			ok "$desc"
		else
			not_ok "$desc"
			show "$W/nm-stripped.$M" nm
			show "$W/nm-stripped.$M.err" "nm's stderr"
		fi
	fi

	# ---- run ----
	if reason=$(why_not_run "$M"); then
		# what it must do instead: refuse, with one line saying why
		desc="$M: hello exits 127 with one line about vm.mmap_min_addr here ($reason)"
		if [ -f "$B/hello.$M" ]; then
			run "$B/hello.$M"
			expect_refusal "$desc"
		else
			not_ok "$desc" "hello.$M.aout was not converted"
		fi
		for d in "hello" "hello world" "hello.stripped" "startup" "startup args" \
			"startup (--direct)" \
			"startup with no environment" "startup stacktop under setarch -R" \
			"startup-direct stacktop under setarch -R" \
			"startup (--no-randomize)" "startup (--no-randomize) args" \
			"startup (--no-randomize) with no environment" \
			"startup (--no-randomize) layout" \
			"startup (--no-randomize) layout under setarch -R" \
			"startup (--no-randomize) layout under ulimit -s 8192" \
			"sigsegv" "forkexec child32" \
			"forkexec child64" "forkexec hello" "forkexec sigsegv" \
			"forkexec startup-brk-10004" \
			"traps budget" "traps refused" "traps fork" "traps nested" \
			"traps nested (--no-randomize)" "traps mask" \
			"traps blockall" \
			"traps exec" "traps sigsys" "traps sigsys-default" \
			"traps blocked" "runcode" "runcode --noexecstack"; do
			skip "$M: run $d ($reason)"
		done
		for L in $LAYOUTS; do
			skip "$M: run startup-$L, converted with and without --direct ($reason)"
		done
		skip "$M: run startup-* privs ($reason)"
		continue
	fi

	hello=$'hello from a.out\n'
	runcheck "$M: run hello" hello 0 "$hello"
	runcheck "$M: run hello world" hello 0 "${hello}world"$'\n' world
	runcheck "$M: run hello.stripped" hello.stripped 0 "$hello"
	# setarch -Z: exec maps page 0 (for good, since Linux 6.x); the a.out
	# loader reset the personality first.  Runs, or one line saying why.
	desc="$M: run hello under setarch -Z (MMAP_PAGE_ZERO): runs, or one line naming it"
	if ! command -v setarch >/dev/null 2>&1; then
		skip "$desc (no setarch here)"
	elif [ -f "$B/hello.$M" ]; then
		run setarch "$(uname -m)" -Z "$B/hello.$M"
		judge_run "$desc" hello_or_page_zero
	else
		not_ok "$desc" "hello.$M was not converted"
	fi
	runcheck "$M: run startup" startup 0 $'startup: ok\n'
	runcheck "$M: run startup, converted with --direct (the kernel maps the a.out at exec)" \
		startup-direct 0 $'startup: ok\n'

	desc="$M: run startup args \"b b\" \"\" with AOUT_TEST=yes"
	if [ -f "$B/startup.$M" ]; then
		run env AOUT_TEST=yes "$B/startup.$M" args "b b" ""
		expect "$desc" 0 $'startup: ok\n'
	else
		not_ok "$desc" "startup.$M was not converted"
	fi

	desc="$M: run startup with no environment"
	if [ -f "$B/startup.$M" ]; then
		run env -i "$B/startup.$M"
		expect "$desc" 0 $'startup: ok\n'
	else
		not_ok "$desc" "startup.$M was not converted"
	fi

	# the stack: the a.out loader put its top at 0xFFFFE000 less at most
	# 8 KiB (arch_align_stack), an ELF's is randomised over 8 MiB below
	# it; without randomisation (setarch -R) both are 0xFFFFE000
	for f in startup startup-direct; do
		desc="$M: run $f stacktop under setarch -R: the a.out loader's stack top"
		if ! command -v setarch >/dev/null 2>&1; then
			skip "$desc (no setarch here)"
		elif [ -f "$B/$f.$M" ]; then
			run setarch "$(uname -m)" -R "$B/$f.$M" stacktop
			expect "$desc" 0 $'stack top: 0xffffe000\n'
		else
			not_ok "$desc" "$f.$M was not converted"
		fi
	done

	# --no-randomize: the stub execs itself once more under
	# ADDR_NO_RANDOMIZE, as the a.out loader (no PF_RANDOMIZE) fixed the
	# stack top and mmap's base; the program must not see that exec
	runcheck "$M: run startup (--no-randomize)" startup-norandom 0 $'startup: ok\n'
	desc="$M: run startup (--no-randomize) args \"b b\" \"\" with AOUT_TEST=yes"
	if [ -f "$B/startup-norandom.$M" ]; then
		run env AOUT_TEST=yes "$B/startup-norandom.$M" args "b b" ""
		expect "$desc" 0 $'startup: ok\n'
		run env -i "$B/startup-norandom.$M"
		expect "$M: run startup (--no-randomize) with no environment" 0 $'startup: ok\n'
	else
		not_ok "$desc" "startup-norandom.$M was not converted"
	fi
	desc="$M: run startup (--no-randomize) layout: stack top 0xffffe000, mmap fixed, personality as without"
	if [ -f "$B/startup-norandom.$M" ] && [ -f "$B/startup.$M" ]; then
		run "$B/startup.$M" layout
		plain_per=$(grep '^personality: ' "$OUT")
		run "$B/startup-norandom.$M" layout
		cp "$OUT" "$W/layout1"
		first_st=$st
		run "$B/startup-norandom.$M" layout
		if [ "$first_st" = 0 ] && [ "$st" = 0 ] &&
			[ "$(sed -n 1p "$OUT")" = "stack top: 0xffffe000" ] &&
			[ -n "$plain_per" ] && [ "$(sed -n 2p "$OUT")" = "$plain_per" ] &&
			grep -q '^mmap: 0x' "$OUT" && cmp -s "$OUT" "$W/layout1"; then
			ok "$desc"
		else
			not_ok "$desc" "exit $first_st then $st; without --no-randomize: '$plain_per'"
			show "$W/layout1" "first run"
			show "$OUT" "second run"
		fi
	else
		not_ok "$desc" "startup.$M or startup-norandom.$M was not converted"
	fi
	# the a.out loader mapped no vDSO: its first mmap went right below
	# mmap's base, 0xF7FFE000 on an x86-64 kernel with a stack limit up to
	# 128 MiB (tests/aout-kernel.sh compares with the loader itself)
	desc="$M: run startup (--no-randomize) layout under ulimit -s 8192: mmap gives 0xf7ffd000, as the a.out loader did"
	if [ -f "$B/startup-norandom.$M" ]; then
		run bash -c 'ulimit -s 8192 && exec "$0" layout' "$B/startup-norandom.$M"
		if [ "$st" = 0 ] && grep -qx 'mmap: 0xf7ffd000' "$OUT"; then
			ok "$desc"
		else
			not_ok "$desc"
			report_run
		fi
	else
		not_ok "$desc" "startup-norandom.$M was not converted"
	fi
	# already without randomisation: no second exec, and the bit stays;
	# ADDR_NO_RANDOMIZE (0x40000) kept, the stub's mark (0x10000000) gone
	norandom_under_setarch "$M" -R 0x10040000 0x40000 \
		"$M: run startup (--no-randomize) layout under setarch -R: the bit is kept"
	# setarch -S sets WHOLE_SECONDS (0x2000000), which the stub once took
	# for its mark: unrandomised all the same, and -S kept
	norandom_under_setarch "$M" -S 0x12040000 0x2000000 \
		"$M: run startup (--no-randomize) layout under setarch -S: unrandomised, -S kept"
	# a sandbox that refuses personality(): once, randomised, not exec for ever
	desc="$M: run startup (--no-randomize) layout where personality() is refused: runs, randomised"
	if [ ! -x ./tests/helpers/deny ]; then
		skip "$desc (tests/helpers/deny not built)"
	elif [ -f "$B/startup-norandom.$M" ]; then
		run ./tests/helpers/deny 136 "$B/startup-norandom.$M" layout
		judge_run "$desc" ran_with_stack_top
	else
		not_ok "$desc" "startup-norandom.$M was not converted"
	fi

	# the stub's choices (hybrid brk, brk by prctl, what lies below 64 KiB)
	# change at these boundaries; the a.out loader made no difference
	for L in $LAYOUTS; do
		runcheck "$M: run startup-$L" startup-$L 0 $'startup: ok\n'
		runcheck "$M: run startup-$L, converted with --direct" startup-$L-direct \
			0 $'startup: ok\n'
	done
	# brk at or above 64 KiB is set by prctl: nothing trapped, no filter,
	# no no_new_privs, past the calls dispatch would take
	for L in brk-10000 brk-10004 data-10100 text-10100; do
		runcheck "$M: run startup-$L privs (brk by prctl: no filter, no no_new_privs)" \
			startup-$L 0 $'NoNewPrivs:\t0\nSeccomp:\t0\n' privs
	done

	runcheck "$M: run sigsegv" sigsegv 42 $'caught SIGSEGV\n'

	# which memory runs code: all of it by default; with --noexecstack
	# only the text, and the data OMAGIC, NMAGIC and ZMAGIC keep in its pages
	for where in stack data bss heap heap-high; do
		runcheck "$M: run runcode $where (code runs there by default)" \
			runcode 42 "" "$where"
		want_st=139 how="dies of SIGSEGV"
		if [ "$where" = data ] && [ "$M" != qmagic ]; then
			want_st=42 how="runs: the data shares the text's pages"
		fi
		runcheck "$M: run runcode $where, converted with --noexecstack ($how)" \
			runcode-nx "$want_st" "" "$where"
	done

	for c in child32 child64; do
		desc="$M: run forkexec $c (glibc program)"
		if [ "$c" = child32 ] && [ "${AOUT2ELF_M32_LIBC:-yes}" = no ]; then
			skip "$desc (configure found no 32-bit glibc: Debian package gcc-multilib)"
		elif [ ! -x "$td_abs/$c" ]; then
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
	# the child's brk is set by prctl, so it traps nothing itself; the
	# parent's filter, inherited, traps by address, where its code lies too
	desc="$M: run forkexec startup-brk-10004 (a child that traps nothing, under the parent's filter)"
	if [ ! -f "$B/startup-brk-10004.$M" ]; then
		not_ok "$desc" "startup-brk-10004.$M was not converted"
	else
		runcheck "$desc" forkexec 0 $'startup: ok\n' "$B/startup-brk-10004.$M"
	fi

	# brk below 64 KiB is trapped: by syscall user dispatch first, then by
	# a seccomp filter (see "trapping brk cheaply" in src/stub/trap.c) -
	# unless the kernel took the exact brk by prctl (no 64 KiB floor)
	runcheck "$M: run traps sigsys-default (kill(SIGSYS) at SIG_DFL: killed by SIGSYS)" \
		traps 159 "" sigsys-default
	probe=$("$B/traps.$M" probe 2>&1)
	trapped_tests="fork mask blockall refused budget nested sigsys exec exec-ignoring exec-blocking blocked"
	if [ "$probe" = "brk: exact" ]; then
		for t in $trapped_tests; do
			skip "$M: run traps $t (brk is exact here: the kernel took it by prctl, nothing is trapped)"
		done
		continue
	elif [ "${probe%%,*}" != "brk: trapped" ]; then
		not_ok "$M: traps probe says whether brk is trapped" "it printed: $probe"
		continue
	fi
	runcheck "$M: run traps fork (the filter takes over, brk stays exact)" \
		traps 0 $'traps: ok\n' fork
	runcheck "$M: run traps mask (a mask set by a trapped call stays)" \
		traps 0 $'traps: ok\n' mask
	runcheck "$M: run traps blockall (every signal blocked: brk works, SIGSYS waits)" \
		traps 0 $'traps: ok\n' blockall
	if [ "$probe" = "brk: trapped, dispatch" ]; then
		# the a.out loader's sys_brk left brk alone when it refused a
		# grow; only dispatch traps a grow past 64 KiB (see docs/design.md)
		desc="$M: run traps refused (a grow past 64 KiB refused under ulimit -d 1024: brk stays; pages given back come back zero)"
		run bash -c 'ulimit -d 1024 && exec "$0" refused' "$B/traps.$M"
		expect "$desc" 0 $'traps: ok\n'
		runcheck "$M: run traps budget (dispatch first, the filter after 8 calls)" \
			traps 0 $'traps: ok\n' budget
		runcheck "$M: run traps brkonly (brk calls past 64 KiB use up dispatch's budget too)" \
			traps 0 $'traps: ok\n' brkonly
		runcheck "$M: run traps nested (a signal handler's brk inside a dispatched read)" \
			traps 0 $'traps: ok\n' nested
		# --no-randomize moves the vDSO out of mmap's way; a handler with
		# no restorer of its own returns through the kernel's, in it
		runcheck "$M: run traps nested, converted with --no-randomize (the vDSO moved)" \
			traps-norandom 0 $'traps: ok\n' nested
		runcheck "$M: run traps registers (a trapped call keeps every register, eflags, x87 and SSE state)" \
			traps 0 $'traps: ok\n' registers
		runcheck "$M: run traps sigsys (its own SIGSYS handler, under dispatch and the filter)" \
			traps 0 $'traps: ok\n' sigsys
		# the legacy mmap layout puts the vDSO below 0x80000000, in the
		# range dispatch traps: the stub then calls with its own int $0x80
		desc="$M: run traps budget under ulimit -s unlimited (vDSO below 0x80000000): dispatch still"
		run bash -c 'ulimit -s unlimited && exec "$0" budget' "$B/traps.$M"
		expect "$desc" 0 $'traps: ok\n'
		runcheck "$M: run traps exec grep (an exec before the filter leaves no filter)" \
			traps 0 $'NoNewPrivs:\t0\nSeccomp:\t0\n' exec "$GREP" -E \
			'^(NoNewPrivs|Seccomp):' /proc/self/status
		exec_keeps_sigsys "$M" ""
		started_blocked "$M" "budget inherited" ""
	elif [ "$kernel_has_dispatch" = yes ]; then
		not_ok "$M: the stub traps with syscall user dispatch first on Linux $(uname -r)" \
			"traps probe says: $probe"
	else
		# the filter from the start: what does not depend on dispatch
		for t in refused budget brkonly; do
			skip "$M: run traps $t (Linux $(uname -r) has no syscall user dispatch, 5.11+)"
		done
		for t in registers nested sigsys; do
			run env TRAPS_NO_DISPATCH=1 "$B/traps.$M" "$t"
			expect "$M: run traps $t, under the filter from the start" 0 $'traps: ok\n'
		done
		run env TRAPS_NO_DISPATCH=1 "$B/traps-norandom.$M" nested
		expect "$M: run traps nested, converted with --no-randomize (the vDSO moved), under the filter" \
			0 $'traps: ok\n'
		# the filter and no_new_privs are inherited, as docs/security.md says
		run env TRAPS_NO_DISPATCH=1 "$B/traps.$M" exec "$GREP" -E \
			'^(NoNewPrivs|Seccomp):' /proc/self/status
		expect "$M: run traps exec grep (the new program has the filter from the start)" \
			0 $'NoNewPrivs:\t1\nSeccomp:\t2\n'
		exec_keeps_sigsys "$M" ", under the filter from the start"
		started_blocked "$M" inherited ", under the filter"
	fi
done

# ---- the data size limit (RLIMIT_DATA) ----
# load_aout_binary refused a program whose data and bss exceed
# RLIMIT_DATA; a converted one says so in one line (a_data + a_bss, read
# from the a.out header).  Below 64 KiB the stub maps zero pages up to 64 KiB
# with bss; where the limit forbids them it maps bss alone and traps brk.
# The limit that lets exec map the writable PT_LOADs, but not bss:
writable_kib() {
	local kib=0 memsz
	for memsz in $(readelf -lW "$1" | awk '$1 == "LOAD" && $7 ~ /W/ { print $6 }'); do
		kib=$((kib + (memsz + 4095) / 4096 * 4))
	done
	echo "$kib"
}
desc="qmagic: traps with a data size limit below its bss says so"
if [ -f "$B/traps.qmagic" ] && command -v readelf >/dev/null 2>&1; then
	limit=$(($(writable_kib "$B/traps.qmagic") + 2))
	data_bss=$(od -An -tu4 -j8 -N8 "$TESTDATA/traps.qmagic.aout" | awk '{ print $1 + $2 }')
	run bash -c 'ulimit -d "$1" && exec "$0" budget' "$B/traps.qmagic" "$limit"
	expect_fail_line "$desc (ulimit -d $limit)" 127 \
		"traps.qmagic: its data and bss ($data_bss bytes)" \
		"exceed the data size limit (ulimit -d: $((limit * 1024)) bytes)"
	# budget: dispatch, then the filter; fork where there is only the filter
	t=budget
	[ "$kernel_has_dispatch" = yes ] || t=fork
	run bash -c 'ulimit -d 48 && exec "$0" "$1"' "$B/traps.qmagic" "$t"
	expect "qmagic: run traps $t with ulimit -d 48 (brk trapped without the zero pages to 64 KiB)" \
		0 $'traps: ok\n'
else
	skip "$desc (traps.qmagic not converted, or no readelf)"
fi
# The moves leave the staging mapped (MREMAP_DONTUNMAP), where the staged
# data counts against the limit a second time: a program that fits
# without it runs.  From the least limit it fits in up to one that also
# holds that second count, the stub meets both ways out: the move
# refused (then made plainly) and bss refused after it (then the staging
# is given back).
for M in qmagic zmagic omagic; do
	desc="$M: traps probe starts with any data size limit its writable PT_LOADs and bss fit in"
	if [ ! -f "$B/traps.$M" ] || ! command -v readelf >/dev/null 2>&1; then
		skip "$desc (traps.$M not converted, or no readelf)"
		continue
	fi
	bss=$(od -An -tu4 -j12 -N4 "$TESTDATA/traps.$M.aout" | tr -d ' ')
	writable=$(writable_kib "$B/traps.$M")
	least=$((writable + (bss + 4095) / 4096 * 4))
	failed=""
	for limit in $(seq "$least" 4 $((least + writable))); do
		run bash -c 'ulimit -d "$1" && exec "$0" probe' "$B/traps.$M" "$limit"
		# brk is exact, or trapped where the zero pages up to 64 KiB did not fit
		grep -q '^brk: ' "$OUT" && [ "$st" = 0 ] ||
			failed="$failed $limit ($(run_status): $(head -c 200 "$ERR"))"
	done
	if [ -z "$failed" ]; then
		ok "$desc ($least to $((least + writable)) KiB)"
	else
		not_ok "$desc" "fails at ulimit -d$failed"
	fi
done

# ---- --info names the stub's real extent ----
# (its code's PT_LOAD also carries the text staged behind it, which the
# stub moves away: the stub's own extent is its section's)
for part in "code 0x80000000 .aout2elf.stub" "variables 0xb0000000 .aout2elf.bss"; do
	read -r what at section <<<"$part"
	desc="--info: the runtime stub's $what line ends where its section does"
	if [ ! -f "$B/traps.qmagic" ] || ! command -v readelf >/dev/null 2>&1; then
		skip "$desc (traps.qmagic not converted, or no readelf)"
		continue
	fi
	info_end=$("$AOUT2ELF" --info "$TESTDATA/traps.qmagic.aout" |
		awk -v w="aout2elf runtime stub, $what" 'index($0, w) { print $2 }')
	# "[ 5] .aout2elf.stub PROGBITS 80000000 001000 003860 ...": the fields
	# after the name (the index may be one field or two)
	size=$(readelf -SW "$B/traps.qmagic" |
		awk -v s="$section" -v at="${at#0x}" '{
			for (i = 1; i < NF; i++)
				if ($i == s && $(i + 2) == at) print $(i + 4) }')
	if [ -z "$info_end" ] || [ -z "$size" ]; then
		not_ok "$desc" "no stub line in --info ('$info_end') or no $section at $at ('$size')"
		continue
	fi
	want_end=$(printf '0x%08x' $(( (at + 0x$size + 4095) & ~4095 )))
	if [ "$info_end" = "$want_end" ]; then
		ok "$desc"
	else
		not_ok "$desc" "--info says $info_end, $section (0x$size bytes) ends at $want_end"
	fi
done

# ---- --info's load map is what the running program has ----
# Every mapping of the program's own (all below the stack and the vDSO)
# lies within lines of --info, and every line of --info within a
# mapping: the a.out segments, bss, the zero pages up to 64 KiB (which
# are not there where the kernel takes the exact brk), the stub, the
# staging its moves leave (not before Linux 5.13), its variables.
for M in qmagic zmagic; do
	desc="$M: --info's load map matches /proc/PID/maps of traps"
	if [ ! -f "$B/traps.$M" ]; then
		skip "$desc (traps.$M not converted)"
		continue
	fi
	run "$B/traps.$M" maps
	info=$("$AOUT2ELF" --info "$TESTDATA/traps.$M.aout" |
		awk -v kept="$staging_kept" '$1 ~ /^0x/ && $2 ~ /^0x/ {
			print $1, $2, ($0 ~ /unless brk is exact/ ||
				       (kept == "no" && $0 ~ /unmapped before Linux 5.13/)) }')
	maps=$(awk -F'[- ]' '/^[0-9a-f]+-[0-9a-f]+ / { print "0x" $1, "0x" $2 }' "$OUT" |
		while read -r s e; do [ $((s)) -lt $((0xc0000000)) ] && echo "$s $e"; done)
	why=$(
		while read -r s e maybe; do
			[ "$maybe" = 1 ] && continue
			found=""
			while read -r ms me; do
				[ $((s)) -ge $((ms)) ] && [ $((e)) -le $((me)) ] && found=1
			done <<<"$maps"
			[ -n "$found" ] || echo "--info's $s-$e is not mapped"
		done <<<"$info"
		# a mapping may span several lines (the kernel merges them)
		while read -r s e; do
			inside=0
			while read -r is ie maybe; do
				[ $((is)) -ge $((s)) ] && [ $((ie)) -le $((e)) ] &&
					inside=$((inside + ie - is))
			done <<<"$info"
			[ "$inside" = $((e - s)) ] || echo "mapping $s-$e is not all in --info"
		done <<<"$maps"
	)
	if [ "$st" = 0 ] && [ -n "$info" ] && [ -n "$maps" ] && [ -z "$why" ]; then
		ok "$desc"
	else
		not_ok "$desc" "$(run_status); ${why:-no lines}; maps: $(tr '\n' ' ' <"$OUT" | head -c 600)"
	fi
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
	if ! can_drop_privileges; then
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
	run "${NOBODY[@]}" true
	if [ "$st" != 0 ]; then
		skip "$desc (setpriv cannot switch to uid $NOBODY_UID)"
		return
	fi
	run "${NOBODY[@]}" "$B/hello.$M"
	if [ "$min_addr" -le "$need" ]; then
		expect "$desc" 0 $'hello from a.out\n'
	else
		expect_refusal "$desc"
	fi
}

unprivileged_check zmagic
unprivileged_check qmagic

# QMAGIC's layouts as uid 65534 too: brk is then set without privileges
desc="qmagic: startup in every layout runs as uid $NOBODY_UID"
if ! can_drop_privileges; then
	skip "$desc (needs root and setpriv)"
elif [ "$min_addr" -gt "$(need_addr qmagic)" ]; then
	skip "$desc (vm.mmap_min_addr $min_addr: QMAGIC needs $(need_addr qmagic))"
else
	case " $MAGICS " in
	*" qmagic "*)
		for L in $LAYOUTS; do
			for f in startup-$L startup-$L-direct; do
				if [ ! -f "$B/$f.qmagic" ]; then
					not_ok "qmagic: $f runs as uid $NOBODY_UID" \
						"$f.qmagic was not converted"
					continue
				fi
				run "${NOBODY[@]}" "$B/$f.qmagic"
				expect "qmagic: $f runs as uid $NOBODY_UID" 0 $'startup: ok\n'
			done
		done
		;;
	*) skip "$desc (qmagic not tested)" ;;
	esac
fi

finish
