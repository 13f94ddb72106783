#!/bin/bash
# Converted programs where users run them besides a native kernel: under
# qemu-user (qemu-i386: arm64 and riscv64 hosts, Docker on Apple Silicon)
# and under valgrind's memcheck.  Each program runs natively first, then
# under the emulator; stdout, stderr and the exit status must be the same.
# What the host cannot give is said beside the case (and in the man page,
# "WHERE IT RUNS"): under qemu-user nothing can be trapped, so brk is the
# host's own (startup checks it only from where it starts), and its pages
# are not executable; /proc/self/environ is qemu's.  Under memcheck, the program's own errors are allowed
# only where the fixture makes them on purpose; none may come from the
# stub's start-up.
#
# --vgdb=no: valgrind's gdb server needs FIFOs in /tmp, which a 9p /tmp
# (the VM of tools/run-in-vm) cannot make.
#
# Run from the top build directory, as "make check" does.  Environment:
#   AOUT2ELF          the converter (default ./src/aout2elf)
#   AOUT2ELF_TESTDATA the fixtures (default ./testdata)
#   AOUT2ELF_CORPUS   the corpus (default $srcdir/../shared/corpus)
#   AOUT2ELF_QEMU     qemu-user for i386 (default qemu-i386)
#   AOUT2ELF_VALGRIND valgrind (default valgrind)
#
# Prints "ok N - ...", "not ok N - ..." or "ok N # skip ..." per check and
# ends with "N passed, N failed, N skipped".

set -u

. "${srcdir:-.}/tests/lib.sh"
need_i386 "$@"

e2e_setup under
TD=$TESTDATA
corpus=${AOUT2ELF_CORPUS:-${srcdir:-.}/../shared/corpus}
QEMU=${AOUT2ELF_QEMU:-qemu-i386}
VALGRIND=${AOUT2ELF_VALGRIND:-valgrind}
MAGICS="qmagic zmagic nmagic omagic"
# In the VM of tools/run-in-vm only the sandboxes, which depend on the
# kernel: the emulators are tried on the host (and would be slow there).
if [ -n "${AOUT2ELF_IN_VM:-}" ]; then
	skip "qemu-user and valgrind: tried on the host, not in the VM"
	QEMU=qemu-i386-not-in-the-vm VALGRIND=valgrind-not-in-the-vm
fi

# ---- the programs, converted once ----

# conv NAME A.OUT [OPTION...]: $B/NAME, converted from A.OUT
conv() {
	local name=$1 src=$2
	shift 2
	if [ ! -f "$src" ]; then
		not_ok "$name: $src is there (make check builds the fixtures)"
		return
	fi
	convert "convert $name" "$B/$name" -q "$@" "$src"
}

for m in $MAGICS; do
	for p in hello startup startup-brk-f000 startup-brk-10004 runcode forkexec \
		dyn slsdyn slackdyn; do
		[ -f "$TD/$p.$m.aout" ] && conv "$p.$m" "$TD/$p.$m.aout" -L "$TD"
	done
done

# ---- one program, natively and under an emulator ----

# native NAME [ARG...]: runs $B/NAME natively (with $ENV), keeps what it did
native() {
	run env "${ENV[@]}" "$B/$@"
	n_st=$st n_out=$OUT n_err=$ERR
}

# same DESC: the last run did what the native one did
same() {
	if [ "$st" = "$n_st" ] && cmp -s "$OUT" "$n_out" && cmp -s "$ERR" "$n_err"; then
		ok "$1"
	else
		not_ok "$1" "natively: exit status $n_st"
		show "$n_out" "native stdout"
		show "$n_err" "native stderr"
		report_run
	fi
}

# under_qemu DESC NAME [ARG...]
under_qemu() {
	local desc=$1
	shift
	native "$@"
	run env "${ENV[@]}" $QEMU "$B/$@"
	same "qemu-user: $desc"
}

# under_memcheck DESC NAME [ARG...]: same output, and memcheck says
# nothing; with OWN_ERRORS=yes, nothing with a frame in the stub (its
# code at 0x80000000): a 1993 program may read what it never set, which
# the a.out loader's zeroed stack hid
OWN_ERRORS=no
under_memcheck() {
	local desc=$1 log=$W/memcheck.$run_n
	shift
	native "$@"
	run env "${ENV[@]}" $VALGRIND -q --vgdb=no --log-file="$log" "$B/$@"
	same "valgrind: $desc"
	if [ "$OWN_ERRORS" = yes ]; then
		if grep -q ' 0x8000[0-9A-F]\{4\}: ' "$log"; then
			not_ok "valgrind: $desc: memcheck reports nothing in the stub"
			show "$log" "memcheck"
		else
			ok "valgrind: $desc: memcheck reports nothing in the stub"
		fi
	elif [ -s "$log" ]; then
		not_ok "valgrind: $desc: memcheck reports nothing"
		show "$log" "memcheck"
	else
		ok "valgrind: $desc: memcheck reports nothing"
	fi
}

# ---- qemu-user ----

if [ -n "${AOUT2ELF_IN_VM:-}" ]; then
	:
elif ! command -v "${QEMU%% *}" >/dev/null 2>&1; then
	skip "qemu-user: no ${QEMU%% *} here (Debian package qemu-user)"
else
	for m in $MAGICS; do
		ENV=()
		under_qemu "$m: hello" "hello.$m"
		under_qemu "$m: hello with arguments" "hello.$m" a "b c"
		# brk from where the host's starts: everything else as the a.out loader
		ENV=(STARTUP_EMULATED=1)
		under_qemu "$m: startup (frame, registers, bss, data, text; brk the host's)" \
			"startup.$m"
		under_qemu "$m: startup args" "startup.$m" args "b b" ""
		for l in brk-f000 brk-10004; do
			under_qemu "$m: startup-$l" "startup-$l.$m"
		done
		ENV=()
		for w in data bss; do
			under_qemu "$m: runcode $w" "runcode.$m" "$w"
		done
		skip "qemu-user: $m: runcode heap (qemu maps brk's pages without PROT_EXEC)"
		under_qemu "$m: forkexec (a converted child)" "forkexec.$m" "$B/hello.$m"
		# uselib answered by the stub, not the kernel (call sites patched)
		for p in dyn slsdyn slackdyn; do
			[ -f "$B/$p.$m" ] && under_qemu "$m: $p (uselib without a trap)" "$p.$m"
		done
	done
fi

# ---- valgrind ----

if [ -n "${AOUT2ELF_IN_VM:-}" ]; then
	:
elif ! command -v "$VALGRIND" >/dev/null 2>&1; then
	skip "valgrind: no $VALGRIND here (Debian package valgrind)"
else
	ENV=()
	for m in $MAGICS; do
		under_memcheck "$m: hello" "hello.$m" a "b c"
	done
	under_memcheck "qmagic: runcode heap" runcode.qmagic heap
	# the old program's own error, named by its a.out symbols: valgrind reads
	# them where the file maps the text at its address (--direct)
	for m in qmagic zmagic; do
		conv "sigsegv-direct.$m" "$TD/sigsegv.$m.aout" --direct
		run $VALGRIND -q --vgdb=no --log-file="$W/sigsegv.$m.log" "$B/sigsegv-direct.$m"
		check "valgrind: $m: sigsegv's bad write is reported in fixture_main (--direct)" \
			grep -q "Invalid write of size 4" "$W/sigsegv.$m.log"
		check "valgrind: $m: ... and named by its a.out symbol" \
			grep -q "at 0x[0-9A-F]*: fixture_main" "$W/sigsegv.$m.log"
	done
	for p in dyn slsdyn; do
		[ -f "$B/$p.qmagic" ] && under_memcheck "qmagic: $p" "$p.qmagic"
	done
fi

# ---- sandboxes ----

# in_sandbox DESC DENY-ARGS NAME [ARG...]: NAME under tests/helpers/deny
in_sandbox() {
	local desc=$1 deny=$2
	shift 2
	native "$@"
	# shellcheck disable=SC2086
	run env "${ENV[@]}" ./tests/helpers/deny $deny "$B/$@"
	same "sandbox: $desc"
}

if [ ! -x ./tests/helpers/deny ]; then
	skip "sandbox: tests/helpers/deny not built"
else
	# i386 system calls: uselib 86, personality 136, prctl 172, seccomp 354
	for m in qmagic zmagic; do
		ENV=()
		in_sandbox "$m: hello, seccomp() refused" 354 "hello.$m"
		in_sandbox "$m: hello, prctl() and seccomp() refused" 172,354 "hello.$m"
		ENV=(STARTUP_EMULATED=1)
		in_sandbox "$m: startup-brk-f000, seccomp() refused (dispatch traps brk)" \
			354 "startup-brk-f000.$m"
		in_sandbox "$m: startup-brk-f000, prctl() and seccomp() refused (brk the kernel's)" \
			172,354 "startup-brk-f000.$m"
		in_sandbox "$m: startup, prctl() and seccomp() refused" 172,354 "startup.$m"
		ENV=()
		for p in dyn slsdyn slackdyn; do
			[ -f "$B/$p.$m" ] || continue
			in_sandbox "$m: $p, seccomp() refused" 354 "$p.$m"
			in_sandbox "$m: $p, uselib() kills (systemd's SystemCallFilter=)" \
				"--kill 86" "$p.$m"
		done
	done
fi

# ---- the corpus ----

if [ ! -d "$corpus" ]; then
	skip "the corpus: no $corpus (AOUT2ELF_CORPUS)"
	finish
fi
conv aln "$corpus/aln"
conv pwd.exe "$corpus/pwd.exe" -L "$corpus/lib"
conv hello-syms "$corpus/hello-syms"
ENV=()
if command -v "${QEMU%% *}" >/dev/null 2>&1; then
	under_qemu "aln (the Jaguar linker's banner)" aln
	under_qemu "aln -?" aln -?
	under_qemu "hello-syms" hello-syms
	if can_map 0; then
		under_qemu "pwd.exe (ld.so, libc.so.4, readdir)" pwd.exe
	else
		skip "qemu-user: pwd.exe (OMAGIC: needs address 0)"
	fi
fi
# 1993 programs, their crt0 making uselib() and their libraries embedded
if [ -d "$corpus/oldlinux" ]; then
	R=$W/root
	old_libs "$corpus/oldlinux" "$R"
	for p in cat sed gawk ls; do
		conv "$p" "$corpus/oldlinux/$p" --sysroot "$R"
	done
	printf 'hello world\nfoo bar\n' >"$W/F"
	if command -v "${QEMU%% *}" >/dev/null 2>&1; then
		under_qemu "oldlinux/cat F" cat "$W/F"
		under_qemu "oldlinux/sed s/hello/bye/ F" sed s/hello/bye/ "$W/F"
		under_qemu "oldlinux/gawk (libm and libc)" gawk '{ print $2 }' "$W/F"
		# readdir(2), which qemu-user lacks, answered by the stub
		if can_map 0; then
			under_qemu "oldlinux/ls -la (readdir)" ls -la "$R/lib"
		else
			skip "qemu-user: oldlinux/ls (ZMAGIC: needs address 0)"
		fi
	fi
	if command -v "$VALGRIND" >/dev/null 2>&1; then
		OWN_ERRORS=yes
		under_memcheck "oldlinux/sed s/hello/bye/ F" sed s/hello/bye/ "$W/F"
		OWN_ERRORS=no
	fi
fi
if command -v "$VALGRIND" >/dev/null 2>&1; then
	under_memcheck "aln -?" aln -?
	under_memcheck "hello-syms" hello-syms
fi

finish
