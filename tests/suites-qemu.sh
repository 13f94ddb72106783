#!/bin/bash
# The suites that run converted dynamic programs, tests/e2e-dynamic.sh and
# tests/e2e-oldlibs.sh, once more with every converted program under
# qemu-user (AOUT2ELF_RUN_UNDER=qemu-i386, see run in tests/lib.sh): what
# users of arm64 and riscv64 hosts and of Docker on Apple Silicon get.
# Their checks that hold only natively (a trap, brk's address, strace,
# seccomp sandboxes) skip there, saying why (native_only).  Each of their
# lines is passed on, named by its suite; a suite that ends badly without
# a failed check (a crash, no summary line) is a failed check here.
# Skipped where there is no qemu-i386, and in the VM of tools/run-in-vm
# (the emulator is tried on the host).
#
# Run from the top build directory, as "make check" does.  Environment:
#   AOUT2ELF_QEMU     qemu-user for i386 (default qemu-i386)
# and what the two suites read (AOUT2ELF, AOUT2ELF_TESTDATA, ...).
#
# Prints "ok N - ...", "not ok N - ..." or "ok N # skip ..." per check and
# ends with "N passed, N failed, N skipped".

set -u

. "${srcdir:-.}/tests/lib.sh"

QEMU=${AOUT2ELF_QEMU:-qemu-i386}
if [ -n "${AOUT2ELF_IN_VM:-}" ]; then
	skip "the suites under qemu-user: tried on the host, not in the VM"
	finish
elif ! command -v "${QEMU%% *}" >/dev/null 2>&1; then
	skip "the suites under qemu-user: no ${QEMU%% *} here (Debian package qemu-user)"
	finish
fi
make_workdir suites-qemu

# pass_on SUITE: the checks of SUITE's output (stdin) as checks of this
# script, each named "SUITE: ..."; its other lines as they are
pass_on() {
	local line
	while IFS= read -r line; do
		case $line in
		'not ok '*) not_ok "$1: ${line#not ok * - }" ;;
		'ok '*' # skip '*) skip "$1: ${line#ok * # skip }" ;;
		'ok '*) ok "$1: ${line#ok * - }" ;;
		'#'*) echo "$line" ;;
		*) echo "# $1: $line" ;;
		esac
	done
}

for suite in e2e-dynamic e2e-oldlibs; do
	AOUT2ELF_RUN_UNDER=$QEMU "$BASH" "${srcdir:-.}/tests/$suite.sh" \
		>"$W/$suite.log" 2>&1 </dev/null
	rc=$?
	fails_before=$n_fail
	pass_on "$suite" <"$W/$suite.log"
	if [ "$rc" != 0 ] && [ "$rc" != 77 ] && [ "$n_fail" = "$fails_before" ]; then
		not_ok "$suite under $QEMU ended well" "exit status $rc with no failed check"
	elif ! tail -n 1 "$W/$suite.log" | grep -Eq '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$'; then
		not_ok "$suite under $QEMU ended with its summary line"
	fi
done

finish
