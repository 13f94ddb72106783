#!/bin/bash
# End-to-end test of aout2elf --gdb: gdb on a converted program, stopped
# at its a.out entry point, where breakpoints on the a.out code can be set.
#
# For hello (static) and dyn (dynamic, with libtiny.so.1 embedded), as
# QMAGIC and ZMAGIC, it gives gdb on its standard input: a breakpoint on
# fixture_main, continue, bt, info symbol $pc, continue; and checks that
# the breakpoint is hit, that bt and info symbol name the a.out symbols,
# that the program prints what it prints without gdb and exits normally,
# and that the temporary conversion is gone afterwards.  It does so once
# from the a.out (converted on the way) and once from a converted file.
# Skipped without gdb, and where a kind cannot run here (see why_not_run).
#
# Run from the top build directory, as "make check" does.  Environment:
#   AOUT2ELF          the converter (default ./src/aout2elf)
#   AOUT2ELF_TESTDATA the fixtures (default ./testdata)
#   AOUT2ELF_TIMEOUT  seconds each gdb session may take (default 30)
#
# Prints "ok N - ...", "not ok N - ..." or "ok N # skip ..." per check and
# ends with "N passed, N failed, N skipped".
# Exit status: 1 if anything failed, 77 if everything was skipped, else 0.

set -u

. "${srcdir:-.}/tests/lib.sh"

if ! command -v gdb >/dev/null 2>&1; then
	skip "gdb is not installed"
	finish
fi
need_i386 "$@"

e2e_setup gdb
TMPDIR=$W/tmp
export TMPDIR
mkdir "$TMPDIR"

CMDS=$W/commands
cat >"$CMDS" <<'EOF'
break fixture_main
continue
bt
info symbol $pc
continue
EOF

# session DESC FILE PROGRAM_OUTPUT [AOUT2ELF_OPTION]...: aout2elf --gdb
# FILE with the commands above; FILE's breakpoint, backtrace, symbol and
# output checked
session() {
	local desc=$1 file=$2 want=$3
	shift 3
	OUT=$W/session.out ERR=$W/session.err
	st=0
	"${TIMEOUT[@]}" "$AOUT2ELF" "$@" --gdb "$file" <"$CMDS" >"$OUT" 2>"$ERR" || st=$?
	local missing=() s
	for s in "Breakpoint 1, 0x" "in fixture_main ()" "#1  0x" "in _start ()" \
		"fixture_main + " "in section .text of" "$want" "exited normally]"; do
		grep -qF -- "$s" "$OUT" || missing+=("$s")
	done
	if [ "$st" = 0 ] && [ ${#missing[@]} = 0 ]; then
		ok "$desc"
	else
		not_ok "$desc" "exit status $st; gdb did not print: ${missing[*]}"
		show "$OUT" stdout
		show "$ERR" stderr
	fi
}

for M in qmagic zmagic; do
	if why=$(why_not_run $M); then
		skip "$M: $why"
		continue
	fi
	session "hello.$M: a breakpoint by name, bt, info symbol, its output" \
		"$TESTDATA/hello.$M.aout" "hello from a.out"
	session "dyn.$M (dynamic): the same, its library loaded" \
		"$TESTDATA/dyn.$M.aout" "dyn: hello from libtiny" -L "$TESTDATA"
	check "$M: the temporary conversions are removed" \
		test -z "$(ls -A "$TMPDIR")"

	run "$AOUT2ELF" -L "$TESTDATA" "$TESTDATA/dyn.$M.aout" "$B/dyn.$M"
	session "dyn.$M, converted before: the same" \
		"$B/dyn.$M" "dyn: hello from libtiny"
done

# arguments reach the program
printf 'continue\n' >"$CMDS"
if why=$(why_not_run qmagic); then
	skip "qmagic: $why"
else
	OUT=$W/args.out
	"${TIMEOUT[@]}" "$AOUT2ELF" --gdb "$TESTDATA/hello.qmagic.aout" 'two words' \
		<"$CMDS" >"$OUT" 2>&1
	check "the program gets the arguments after FILE" \
		grep -qx 'two words' "$OUT"
fi

for args in "--gdb" "-O d --gdb x" "--info --gdb x" "x --gdb y" "--gd"; do
	# shellcheck disable=SC2086
	run "$AOUT2ELF" $args
	check "usage error '$args': exit 2, naming --gdb and --help" \
		eval '[ "$st" = 2 ] && [ ! -s "$OUT" ] && has_all "$ERR" --gdb --help'
done

echo 'not a program' >"$W/text"
run "$AOUT2ELF" --gdb "$W/text"
expect_fail_line "--gdb on a file that is neither an a.out nor converted: one line" 1 \
	"$W/text"
check "nothing left behind by a failed conversion" test -z "$(ls -A "$TMPDIR")"

finish
