#!/bin/bash
# Converted programs under stress, as under the a.out loader: an empty
# argv, 10000 arguments, 1 MiB of environment, a 256 KiB stack limit, and
# under gdb and strace (also a program whose brk is trapped).
. "${srcdir:-.}/tests/lib.sh"
need_i386 "$@"

e2e_setup stress

if reason=$(why_not_run qmagic); then
	skip "QMAGIC programs cannot run here: $reason"
	finish
fi
"$AOUT2ELF" "$TESTDATA/startup.qmagic.aout" "$W/startup" || exit 1
"$AOUT2ELF" --direct "$TESTDATA/startup.qmagic.aout" "$W/startup-direct" || exit 1
"$AOUT2ELF" "$TESTDATA/traps.qmagic.aout" "$W/traps" || exit 1
# Where the kernel has no syscall user dispatch (before 5.11), the filter
# traps brk from the start: the modes of traps that need dispatch are
# left out, and the others told (testdata/traps.c).
traps_modes="budget fork registers" gdb_mode=budget
if [ "$("$W/traps" probe 2>&1)" = "brk: trapped, filter" ]; then
	export TRAPS_NO_DISPATCH=1
	traps_modes="fork registers" gdb_mode=registers
fi

run_capture "$W/argv0" ./tests/helpers/execv0 "$W/startup"
# (since Linux 5.18 the kernel makes an empty argv {""}, argc 1: what
# this checks is the start-up state of such an exec, not argc 0)
check "execve with an empty argv: the start-up state holds" grep -qx 'startup: ok' "$W/argv0.out"

seq 1 10000 >"$W/many.args"
mapfile -t many <"$W/many.args"
check "10000 arguments: made" test "${#many[@]}" = 10000
run_capture "$W/many" "$W/startup" "${many[@]}"
check "10000 arguments" grep -qx 'startup: ok' "$W/many.out"

chunk=$(head -c 65536 /dev/zero | tr '\0' x)
big=()
for i in $(seq 1 16); do big+=("BIG$i=$chunk"); done
run_capture "$W/env" env "${big[@]}" "$W/startup"
check "1 MiB of environment" grep -qx 'startup: ok' "$W/env.out"

run_capture "$W/stack" bash -c "ulimit -s 256 && exec '$W/startup' a b c"
check "a 256 KiB stack limit" grep -qx 'startup: ok' "$W/stack.out"

if command -v strace >/dev/null 2>&1; then
	run_capture "$W/strace" strace -f -o "$W/strace.log" "$W/startup"
	check "under strace: runs unchanged" grep -qx 'startup: ok' "$W/strace.out"
	check "under strace: the stub's mremap is visible" grep -q 'mremap(0x800' "$W/strace.log"
	# brk trapped by dispatch, then the filter; a child across the switch
	for t in $traps_modes; do
		run_capture "$W/strace-$t" strace -f -o "$W/strace-$t.log" "$W/traps" "$t"
		check "under strace: traps $t runs unchanged" grep -qx 'traps: ok' "$W/strace-$t.out"
	done
	# the stub returns from a trap it answered by registers alone itself
	check "under strace: trapped calls, and no rt_sigreturn after them" \
		sh -c "grep -q 'SIGSYS.*__NR_brk' '$W/strace-registers.log' &&
		       ! grep -q rt_sigreturn '$W/strace-registers.log'"
else
	skip "strace not installed"
fi

if command -v gdb >/dev/null 2>&1; then
	gdb -nx -batch -ex 'break fixture_main' -ex run -ex 'info symbol $pc' \
		-ex kill "$W/startup-direct" >"$W/gdb1.out" 2>&1 </dev/null
	check "gdb (--direct): a breakpoint set before run stops on the a.out symbol" \
		grep -qE '^fixture_main( \+ [0-9]+)? in section \.text' "$W/gdb1.out"
	gdb -nx -batch -ex starti -ex 'hbreak fixture_main' -ex continue \
		-ex 'info symbol $pc' -ex kill "$W/startup" >"$W/gdb2.out" 2>&1 </dev/null
	if grep -q 'No hardware breakpoint support' "$W/gdb2.out"; then
		skip "gdb: no hardware breakpoints on this machine"
	else
		check "gdb: starti, then hbreak on an a.out symbol stops there" \
			grep -qE '^fixture_main( \+ [0-9]+)? in section \.text' "$W/gdb2.out"
	fi
	gdb -nx -batch -ex 'handle SIGSYS nostop noprint pass' -ex run \
		--args "$W/traps" "$gdb_mode" >"$W/gdb3.out" 2>&1 </dev/null
	check "gdb: a program whose calls are trapped runs to the end (traps $gdb_mode, handle SIGSYS nostop)" \
		sh -c "grep -qx 'traps: ok' '$W/gdb3.out' && grep -q 'exited normally' '$W/gdb3.out'"
	# a breakpoint on a trapped call, stepped over in place: the call stays
	# trapped (docs/design.md: displaced stepping runs it in the stub's range,
	# untrapped).  gdb stops once with a SIGTRAP in the stub's handler.
	if ! grep -q 'No hardware breakpoint support' "$W/gdb2.out"; then
		printf '%s\n' 'set displaced-stepping off' \
			'handle SIGSYS nostop noprint pass' starti \
			'hbreak *trapped_call' commands silent continue end \
			continue continue continue continue >"$W/gdb4.cmd"
		gdb -nx -batch -x "$W/gdb4.cmd" --args "$W/traps" registers \
			>"$W/gdb4.out" 2>&1 </dev/null
		check "gdb: over a breakpoint on a trapped call, the call keeps the program's state" \
			sh -c "grep -qx 'traps: ok' '$W/gdb4.out' &&
			       grep -q 'exited normally' '$W/gdb4.out'"
	fi
else
	skip "gdb not installed"
fi

finish
