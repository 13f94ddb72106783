#!/bin/bash
# End-to-end test of aout2elf on dynamically linked a.out programs.
#
# The fixtures (testdata/fixtures.mk, testdata/tiny.h) are built from
# source: testdata/libtiny.so.1, a QMAGIC a.out shared library ("jump
# table" library) at 0x61000000, the same as ZMAGIC in testdata/zmagic/,
# an older one (1.1.0) in testdata/old/, one of another major version in
# testdata/major2/, testdata/libclash.so.1 at an address overlapping
# libtiny; and testdata/dyn.M.aout (all four a.out kinds), whose crt0 calls
# uselib("/usr/lib/libtiny.so.1") itself, finds libtiny's version in its
# jump table, calls it through the jump table and prints
# "dyn: hello from libtiny"; dynclash.qmagic.aout needs libtiny and
# libclash, dynmissing.qmagic.aout libtiny and libmissing.so.1.
#
# It converts them with the libraries embedded (the default) and with
# --no-embed-libs, runs them with and without the folders the libraries
# came from and with AOUT_LIBRARY_PATH, reads --info, and checks that every
# conversion error (library not found, not a library, too old, other
# major version, overlapping) is one line, exit status 1 and no output
# file.  An embedded library answers any path that ends in its name, and
# no library file is opened (strace; a chroot holding only the program,
# as root); one found nowhere fails uselib() with ENOENT for dyn to say,
# and AOUT_LIBRARY_DEBUG=1 lists where the stub looked.  Converted QMAGIC programs run only where vm.mmap_min_addr <= 4096
# (or with CAP_SYS_RAWIO), the others only with CAP_SYS_RAWIO (root) or
# vm.mmap_min_addr = 0; checks that cannot run here are skipped.  As root,
# with setpriv, it also runs them as the unprivileged uid 65534.
#
# Run from the top build directory, as "make check" does.  Environment:
#   AOUT2ELF          the converter (default ./src/aout2elf)
#   AOUT2ELF_TESTDATA the fixtures (default ./testdata)
#   AOUT2ELF_MAGICS   the kinds of dyn to test (default "omagic nmagic zmagic qmagic")
#   AOUT2ELF_TIMEOUT  seconds each program may run (default 30)
#
# Prints "ok N - ...", "not ok N - ..." (with "#" lines saying why) or
# "ok N # skip ..." per check and ends with "N passed, N failed, N skipped".
# Exit status: 1 if anything failed, 77 if everything was skipped, else 0.

set -u

. "${srcdir:-.}/tests/lib.sh"
need_i386 "$@"

# everything the unprivileged user runs or loads is under $W, readable
e2e_setup e2e-dynamic
MAGICS=${AOUT2ELF_MAGICS:-omagic nmagic zmagic qmagic}
CUSTOMARY=/usr/i486-linuxaout/lib:/usr/i486-linux/lib:/lib:/usr/lib
HELLO=$'dyn: hello from libtiny\n'

# the converter names -L folders by their real path
TD=$(cd "$TESTDATA" 2>/dev/null && pwd -P) || {
	not_ok "the fixtures folder $TESTDATA exists"
	finish
}
missing=
for f in dyn.qmagic.aout dynclash.qmagic.aout dynmissing.qmagic.aout dynbig.qmagic.aout \
	hello.omagic.aout libtiny.so.1 libclash.so.1 old/libtiny.so.1 \
	major2/libtiny.so.1 zmagic/libtiny.so.1; do
	[ -f "$TD/$f" ] || missing="$missing $f"
done
if [ -n "$missing" ]; then
	not_ok "the fixtures are built" "missing in $TD:$missing (make check builds them)"
	finish
fi

# the library folders of the tests, all copies
mkdir "$W/lib" "$W/rt" "$W/txt" "$W/omagic" "$W/empty"
cp "$TD/libtiny.so.1" "$W/lib/"
cp "$TD/libtiny.so.1" "$W/rt/"
echo "this is not an a.out library" >"$W/txt/libtiny.so.1"
chmod a+x "$W/txt/libtiny.so.1" # uselib() passes over files it may not execute
cp "$TD/hello.omagic.aout" "$W/omagic/libtiny.so.1"
# what uselib() refused with EACCES: a folder of the library's name, and
# the library without execute permission (even for root)
mkdir -p "$W/folder/libtiny.so.1" "$W/noexec"
cp "$TD/libtiny.so.1" "$W/noexec/"
chmod -R a+rX "$W"
chmod a-x "$W/noexec/libtiny.so.1"

# can_run DESCRIPTION M PROGRAM: whether PROGRAM (converted, of kind M)
# can be run for the check DESCRIPTION; if not, the check is skipped (M
# programs cannot run here) or failed (PROGRAM was not converted)
can_run() {
	local reason
	if reason=$(why_not_run "$2"); then
		skip "$1 ($reason)"
	elif [ ! -x "$3" ]; then
		not_ok "$1" "$3 was not converted"
	else
		return 0
	fi
	return 1
}

# runs DESCRIPTION M PROGRAM STATUS STDOUT [env VAR=...]: runs PROGRAM
# (converted, of kind M) and expects STATUS and STDOUT; skipped when M
# programs cannot run here, failed when PROGRAM was not converted
runs() {
	local desc=$1 m=$2 prog=$3 want_st=$4 want_out=$5
	shift 5
	can_run "$desc" "$m" "$prog" || return 0
	run "$@" "$prog"
	expect "$desc" "$want_st" "$want_out"
}

# runs_err DESCRIPTION PROGRAM STATUS STDOUT STDERR: runs the QMAGIC
# PROGRAM in the environment of $RUN_ENV (a list of VAR=VALUE) and expects
# STATUS, STDOUT and exactly the lines STDERR
runs_err() {
	local desc=$1 prog=$2 want_st=$3 want_out=$4 want_err=$5
	can_run "$desc" qmagic "$prog" || return 0
	run env -u AOUT_LIBRARY_PATH "${RUN_ENV[@]}" "$prog"
	if [ "$st" = "$want_st" ] && printf '%s' "$want_out" | cmp -s - "$OUT" &&
		printf '%s\n' "$want_err" | cmp -s - "$ERR"; then
		ok "$desc"
	else
		not_ok "$desc" "expected exit status $want_st, stdout $(printf '%q' "$want_out")," \
			"stderr $(printf '%q' "$want_err")"
		report_run
	fi
}

# places NAME FOLDER...: "FOLDER/NAME, ..." for each FOLDER, and for each
# customary folder, as AOUT_LIBRARY_DEBUG lists the places
places() {
	local name=$1 d list= IFS=:
	shift
	for d in "$@" $CUSTOMARY; do
		list="$list, $d/$name"
	done
	printf '%s' "${list#, }"
}

# runs_fail DESCRIPTION M PROGRAM STATUS STRING... : like runs, but the
# program must fail with STATUS, no stdout and one stderr line with every
# STRING; the environment comes from $RUN_ENV (a list of VAR=VALUE)
RUN_ENV=()
runs_fail() {
	local desc=$1 m=$2 prog=$3 want_st=$4
	shift 4
	can_run "$desc" "$m" "$prog" || return 0
	run env -u AOUT_LIBRARY_PATH "${RUN_ENV[@]}" "$prog"
	expect_fail_line "$desc" "$want_st" "$@"
}

# why checks hold only natively (tests/lib.sh, native_only): under
# qemu-user nothing is trapped, so brk is qemu's own and dynbig's uselib,
# made through a call site the converter leaves alone, fails with ENOSYS
QEMU_BRK="brk is qemu's own, not N_BSSADDR + a_bss"
QEMU_DYNBIG="dynbig's uselib is answered only by the stub's trap"
QEMU_STRACE="strace would trace the program natively, not under qemu"
QEMU_DENY="tests/helpers/deny filters the program's own i386 system calls"

# ---- every kind: converted with -L testdata, run ----
for M in $MAGICS; do
	convert "$M: aout2elf -L testdata converts dyn.$M.aout" "$B/dyn.$M" \
		-L "$TESTDATA" "$TD/dyn.$M.aout"
	runs "$M: run dyn (libtiny.so.1 embedded)" "$M" "$B/dyn.$M" 0 "$HELLO" \
		env -u AOUT_LIBRARY_PATH
	# trapped from the library's pages: below 64 KiB, past it and back
	native_only "$M: dyn: brk moved by the library's code ($QEMU_BRK)" &&
		runs "$M: dyn: brk moved by the library's code stays exact" "$M" "$B/dyn.$M" 0 \
			"$HELLO" env -u AOUT_LIBRARY_PATH DYN_LIB_BRK=1
done
if env --block-signal=SYS true 2>/dev/null; then
	runs "qmagic: run dyn started with SIGSYS blocked (its uselib is trapped)" \
		qmagic "$B/dyn.qmagic" 0 "$HELLO" env -u AOUT_LIBRARY_PATH \
		--block-signal=SYS
else
	skip "qmagic: run dyn started with SIGSYS blocked (env has no --block-signal)"
fi
# brk above 64 KiB, exact: the filter traps uselib, not each handler call
convert "qmagic: aout2elf -L testdata converts dynbig.qmagic.aout (64 KiB of data)" \
	"$B/dynbig" -L "$TESTDATA" "$TD/dynbig.qmagic.aout"
if native_only "qmagic: dynbig ($QEMU_DYNBIG)"; then
	runs "qmagic: run dynbig (brk exact, uselib trapped)" qmagic "$B/dynbig" 0 "$HELLO" \
		env -u AOUT_LIBRARY_PATH
	runs "qmagic: dynbig: brk moved by the library's code stays exact" qmagic "$B/dynbig" 0 \
		"$HELLO" env -u AOUT_LIBRARY_PATH DYN_LIB_BRK=1
	if env --block-signal=SYS true 2>/dev/null; then
		runs "qmagic: run dynbig started with SIGSYS blocked" qmagic "$B/dynbig" 0 \
			"$HELLO" env -u AOUT_LIBRARY_PATH --block-signal=SYS
	fi
fi
# runs_args DESCRIPTION PROGRAM STATUS STDOUT VAR=VALUE... -- ARG...: runs
# the QMAGIC PROGRAM with ARGs in the environment with the VARs
runs_args() {
	local desc=$1 prog=$2 want_st=$3 want_out=$4 vars=()
	shift 4
	while [ "$1" != -- ]; do
		vars+=("$1")
		shift
	done
	shift
	if [ "${prog##*/}" = dynbig ]; then
		native_only "$desc ($QEMU_DYNBIG)" || return 0
	fi
	can_run "$desc" qmagic "$prog" || return 0
	run env -u AOUT_LIBRARY_PATH "${vars[@]}" "$prog" "$@"
	expect "$desc" "$want_st" "$want_out"
}
# exec with every signal blocked: where brk is exact the program's masks
# are its own, so nothing may trap that execve (a trap finding SIGSYS
# blocked kills); where brk is trapped, so are the masks
for p in dyn.qmagic dynbig; do
	runs_args "qmagic: run $p, then exec echo with every signal blocked" \
		"$B/$p" 0 "${HELLO}exec"$'\n' DYN_EXEC_BLOCKED=1 -- /bin/echo exec
done
# SIGSYS set to SIG_IGN: the program it execs starts with SIGSYS ignored
for p in dyn.qmagic dynbig; do
	runs_args "qmagic: run $p, SIGSYS ignored, then exec: the new program ignores it" \
		"$B/$p" 0 "${HELLO}ignored"$'\n' DYN_SIGSYS_IGN=1 -- /bin/sh -c \
		'grep -qE "^SigIgn:[[:space:]]*[0-9a-f]{8}[4-7c-f]" /proc/self/status && echo ignored'
done
# started with SIGSYS ignored (exec keeps SIG_IGN): so is what it execs
if env --ignore-signal=SYS true 2>/dev/null; then
	for p in dyn.qmagic dynbig; do
		runs_args "qmagic: $p started with SIGSYS ignored: the program it execs ignores it" \
			"$B/$p" 0 "${HELLO}ignored"$'\n' --ignore-signal=SYS -- /bin/sh -c \
			'grep -qE "^SigIgn:[[:space:]]*[0-9a-f]{8}[4-7c-f]" /proc/self/status && echo ignored'
	done
else
	skip "qmagic: started with SIGSYS ignored (env has no --ignore-signal)"
fi

# ---- --info ----
run "$AOUT2ELF" --info -L "$TESTDATA" "$TD/dyn.qmagic.aout"
desc="--info -L testdata lists libtiny.so.1 (1.2.0 or later) => $TD/libtiny.so.1 (1.2.3) at 0x61000000-0x61006000"
if [ "$st" = 0 ] && [ ! -s "$ERR" ] &&
	grep -F "libtiny.so.1 (1.2.0 or later" "$OUT" |
	grep -qF "=> $TD/libtiny.so.1 (1.2.3) at 0x61000000-0x61006000"; then
	ok "$desc"
else
	not_ok "$desc"
	grep -F "libtiny" "$OUT" >"$W/info-lines"
	report_run
	show "$W/info-lines" "libtiny lines"
fi
check "--info's load map has libtiny.so.1 embedded at 0x61000000" \
	grep -Eq '^ *0x61000000 +0x61006000 .*libtiny\.so\.1, at uselib\(\), embedded' "$OUT"

run "$AOUT2ELF" --info -L "$TESTDATA/zmagic" "$TD/dyn.qmagic.aout"
desc="--info -L testdata/zmagic finds the ZMAGIC libtiny.so.1 (1.2.3) at 0x61000000"
if [ "$st" = 0 ] && grep -qF "=> $TD/zmagic/libtiny.so.1 (1.2.3) at 0x61000000-0x61006000" "$OUT"; then
	ok "$desc"
else
	not_ok "$desc"
	report_run
fi

run "$AOUT2ELF" --info "$TD/dyn.qmagic.aout"
desc="--info without -L says libtiny.so.1 is not found (exit 0)"
if [ -e "/usr/lib/libtiny.so.1" ] || [ -e "/lib/libtiny.so.1" ]; then
	skip "$desc (this machine has a libtiny.so.1)"
elif [ "$st" = 0 ] && grep -Eq 'libtiny\.so\.1 .*=> not found' "$OUT"; then
	ok "$desc"
else
	not_ok "$desc"
	report_run
fi

run "$AOUT2ELF" --info --no-embed-libs -L "$TESTDATA" "$TD/dyn.qmagic.aout"
check "--info --no-embed-libs: libtiny.so.1 found at run time" \
	grep -q 'libtiny\.so\.1, at uselib(), found at run time' "$OUT"

# ---- embedded: the library folder is not needed any more ----
convert "aout2elf -L LIBDIR converts dyn.qmagic.aout (libtiny embedded)" \
	"$B/dyn-emb" -L "$W/lib" "$TD/dyn.qmagic.aout"
mv "$W/lib" "$W/lib.moved"
runs "embedded: runs with LIBDIR renamed" qmagic "$B/dyn-emb" 0 "$HELLO" \
	env -u AOUT_LIBRARY_PATH
rm -rf "$W/lib.moved"
runs "embedded: runs with LIBDIR deleted" qmagic "$B/dyn-emb" 0 "$HELLO" \
	env -u AOUT_LIBRARY_PATH
runs "embedded: AOUT_LIBRARY_PATH (an older libtiny) does not replace it" \
	qmagic "$B/dyn-emb" 0 "$HELLO" env AOUT_LIBRARY_PATH="$TD/old"

convert "aout2elf -L testdata/zmagic converts dyn.qmagic.aout (ZMAGIC libtiny embedded)" \
	"$B/dyn-embz" -L "$TESTDATA/zmagic" "$TD/dyn.qmagic.aout"
runs "embedded ZMAGIC library: runs" qmagic "$B/dyn-embz" 0 "$HELLO" \
	env -u AOUT_LIBRARY_PATH
native_only "embedded ZMAGIC library: brk moved by its code ($QEMU_BRK)" &&
	runs "embedded ZMAGIC library: brk moved by its code stays exact" qmagic \
		"$B/dyn-embz" 0 "$HELLO" env -u AOUT_LIBRARY_PATH DYN_LIB_BRK=1
runs "embedded: uselib() again maps the library afresh (data, bss)" qmagic \
	"$B/dyn-emb" 0 "$HELLO" env -u AOUT_LIBRARY_PATH DYN_USELIB_TWICE=1
runs "embedded ZMAGIC library: uselib() again maps it afresh" qmagic \
	"$B/dyn-embz" 0 "$HELLO" env -u AOUT_LIBRARY_PATH DYN_USELIB_TWICE=1
runs "embedded: uselib() of a pointer it cannot read fails with EFAULT" qmagic \
	"$B/dyn-emb" 0 "$HELLO" env -u AOUT_LIBRARY_PATH DYN_USELIB_FAULT=1
runs "embedded: the embedded library, whatever the path given to uselib()" \
	qmagic "$B/dyn-emb" 0 "$HELLO" env AOUT_LIBRARY_PATH="$TD/old" DYN_LIBDIR="$TD/old"
# the paths crt0s and ld.so built: a folder that is not there, /NAME,
# //NAME (Slackware's crt0 with an absolute name), include/NAME (ld.so
# 1.5.3 reading glibc's ld.so.conf)
while IFS='|' read -r dir path; do
	runs "embedded: uselib(\"$path\") maps the embedded library" qmagic \
		"$B/dyn-emb" 0 "$HELLO" env -u AOUT_LIBRARY_PATH DYN_LIBDIR="$dir"
done <<EOF
/nonexistent/dir|/nonexistent/dir/libtiny.so.1
|/libtiny.so.1
/|//libtiny.so.1
include|include/libtiny.so.1
EOF
RUN_ENV=(AOUT_LIBRARY_DEBUG=1 DYN_LIBDIR=/nonexistent/dir)
runs_err "embedded: AOUT_LIBRARY_DEBUG=1 says uselib took the embedded copy" \
	"$B/dyn-emb" 0 "$HELLO" \
	"$B/dyn-emb: uselib /nonexistent/dir/libtiny.so.1: looked in the embedded libtiny.so.1: loaded"
RUN_ENV=()

# one library under two names: dynclash with libclash.so.1 renamed
# libtinyx.so.1 (and its jump table libtiny's), found as a link to
# libtiny.so.1: embedded once, mapped once, a second uselib() refreshes
mkdir "$W/two"
ln -s libtiny.so.1 "$W/two/libtinyx.so.1"
cp "$TD/libtiny.so.1" "$W/two/"
if perl -0777 -pe '
	$n = s/libclash\.so\.1\0/libtinyx.so.1\0/g;
	$j = s/\x20\x40\x00\x61/\x20\x00\x00\x61/g;
	$n == 1 && $j == 1 or die "dynclash is not as expected\n";
' "$TD/dynclash.qmagic.aout" >"$W/dyntwo.aout" 2>"$W/perl.err"; then
	convert "aout2elf converts a program naming libtiny.so.1 also libtinyx.so.1" \
		"$B/dyn-two" -L "$W/two" "$W/dyntwo.aout"
	if command -v readelf >/dev/null 2>&1; then
		check "... and carries the library once" sh -c \
			"readelf -SW '$B/dyn-two' | grep -c '\.lib\.' | grep -qx 1"
	else
		skip "... and carries the library once (no readelf)"
	fi
	RUN_ENV=(AOUT_LIBRARY_DEBUG=1)
	runs_err "embedded: both names map the one embedded copy" "$B/dyn-two" 0 "$HELLO" \
		"$B/dyn-two: uselib /usr/lib/libtiny.so.1: looked in the embedded libtiny.so.1: loaded
$B/dyn-two: uselib /usr/lib/libtinyx.so.1: looked in the embedded libtiny.so.1: loaded"
	RUN_ENV=()
	runs "embedded under two names: uselib() again maps it afresh" qmagic \
		"$B/dyn-two" 0 "$HELLO" env -u AOUT_LIBRARY_PATH DYN_USELIB_TWICE=1
else
	not_ok "a program naming libtiny.so.1 also libtinyx.so.1 is made" "$(cat "$W/perl.err")"
fi

# ---- embedded means embedded: no library file is opened ----
desc="embedded: strace shows no open of libtiny.so.1 (nor for an unreadable path)"
if ! command -v strace >/dev/null 2>&1; then
	skip "$desc (no strace)"
elif native_only "$desc ($QEMU_STRACE)" && can_run "$desc" qmagic "$B/dyn-two"; then
	run strace -f -qq -o "$W/strace" -e trace=open,openat,openat2,process_vm_readv \
		env -u AOUT_LIBRARY_PATH DYN_USELIB_FAULT=1 "$B/dyn-two"
	if [ "$st" = 0 ] && grep -q '^[0-9]* *process_vm_readv(' "$W/strace" &&
		! grep -E 'open(at2?)?\(.*libtiny' "$W/strace" >"$W/strace.opens"; then
		ok "$desc"
	else
		not_ok "$desc"
		report_run
		show "$W/strace.opens" "opened"
	fi
fi
desc="embedded: runs in a chroot holding only the converted program"
if ! is_root; then
	skip "$desc (needs root)"
elif native_only "$desc (the chroot holds no qemu-i386)" &&
	can_run "$desc" qmagic "$B/dyn-two"; then
	mkdir "$W/root"
	cp "$B/dyn-two" "$W/root/dyn"
	run chroot "$W/root" /dyn
	expect "$desc" 0 "$HELLO"
fi
# a sandbox that refuses process_vm_readv: the path is checked by opening it
desc="embedded, process_vm_readv refused: EFAULT still, and the embedded copy"
if [ ! -x ./tests/helpers/deny ]; then
	skip "$desc (tests/helpers/deny not built)"
elif native_only "$desc ($QEMU_DENY)"; then
	runs "$desc" qmagic "$B/dyn-emb" 0 "$HELLO" ./tests/helpers/deny 347 \
		"$(command -v env)" -u AOUT_LIBRARY_PATH DYN_USELIB_FAULT=1 \
		DYN_LIBDIR=/nonexistent/dir
fi

# ---- uselib with no trap: dyn's own call rewritten into a call of the stub ----
# dyn makes uselib with ld.so's instructions (testdata/uselib_call.h);
# dynbig through a generic helper, which only the stub's trap answers
if command -v strace >/dev/null 2>&1 && strace -o /dev/null true 2>/dev/null; then
	for p in dyn-emb:0 dynbig:1; do
		prog=${p%%:*} want=${p#*:}
		desc="$prog: uselib reaches the kernel (and its trap) $want times (strace)"
		if native_only "$desc ($QEMU_STRACE)" && can_run "$desc" qmagic "$B/$prog"; then
			run strace -f -qq -e trace=uselib -o "$W/$prog.strace" \
				env -u AOUT_LIBRARY_PATH "$B/$prog"
			check "$desc" sh -c "test $st = 0 && test \$(grep -c 'uselib(' '$W/$prog.strace') = $want"
		fi
	done
else
	skip "dyn-emb and dynbig under strace (no usable strace)"
fi
desc="a sandbox that refuses uselib (EPERM): dyn runs, its uselib never made"
if [ ! -x ./tests/helpers/deny ]; then
	skip "$desc (tests/helpers/deny not built)"
elif native_only "$desc ($QEMU_DENY)"; then
	runs "$desc" qmagic "$B/dyn-emb" 0 "$HELLO" ./tests/helpers/deny 86 \
		"$(command -v env)" -u AOUT_LIBRARY_PATH
fi
# ---- --no-embed-libs: found when the program runs ----
convert "aout2elf --no-embed-libs -L RTDIR converts dyn.qmagic.aout" \
	"$B/dyn-rt" --no-embed-libs -L "$W/rt" "$TD/dyn.qmagic.aout"
check "--no-embed-libs: the conversion prints nothing (the library was found)" \
	test ! -s "$ERR"
if [ -f "$B/dyn-emb" ] && [ -f "$B/dyn-rt" ]; then
	emb=$(wc -c <"$B/dyn-emb") rt=$(wc -c <"$B/dyn-rt")
	# libtiny's text and data: 8192 bytes
	desc="--no-embed-libs: output $rt bytes, at least 8192 smaller than embedded ($emb)"
	if [ $((emb - rt)) -ge 8192 ]; then ok "$desc"; else not_ok "$desc"; fi
else
	not_ok "--no-embed-libs: output smaller than embedded" "a conversion failed"
fi
if command -v readelf >/dev/null 2>&1 && [ -f "$B/dyn-emb" ] && [ -f "$B/dyn-rt" ]; then
	check "embedded output has a .lib.libtiny.so.1 section" \
		sh -c "readelf -SW '$B/dyn-emb' | grep -qF .lib.libtiny.so.1"
	check "--no-embed-libs output has none" \
		sh -c "readelf -SW '$B/dyn-rt' >'$W/dyn-rt.sections' && grep -qF .text '$W/dyn-rt.sections' && ! grep -qF .lib.libtiny.so.1 '$W/dyn-rt.sections'"
else
	skip "embedded output has a .lib.libtiny.so.1 section (no readelf or no output)"
	skip "--no-embed-libs output has none (no readelf or no output)"
fi

runs "--no-embed-libs: runs with the -L folder there" qmagic "$B/dyn-rt" 0 \
	"$HELLO" env -u AOUT_LIBRARY_PATH
# dyn itself finds the old version there and says so, as ld.so did
RUN_ENV=(AOUT_LIBRARY_PATH="$TD/old")
runs_fail "--no-embed-libs: AOUT_LIBRARY_PATH is searched before the -L folder" \
	qmagic "$B/dyn-rt" 127 "dyn: /usr/lib/libtiny.so.1 is version 1.1.0, needs 1.2.0"
runs "--no-embed-libs: ZMAGIC library from AOUT_LIBRARY_PATH" qmagic \
	"$B/dyn-rt" 0 "$HELLO" env AOUT_LIBRARY_PATH="$TD/zmagic"
RUN_ENV=(AOUT_LIBRARY_PATH="$W/txt")
runs_fail "--no-embed-libs: a text file as libtiny.so.1: uselib() fails (ENOEXEC), dyn exits 127" \
	qmagic "$B/dyn-rt" 127 "dyn: can't load library '/usr/lib/libtiny.so.1'" "error 8"

mv "$W/rt" "$W/rt.copy"
# DESCRIPTION|AOUT_LIBRARY_PATH
while IFS='|' read -r desc path; do
	runs "--no-embed-libs: $desc" qmagic "$B/dyn-rt" 0 "$HELLO" \
		env AOUT_LIBRARY_PATH="$path"
done <<EOF
-L folder gone, runs with AOUT_LIBRARY_PATH=copy|$W/rt.copy
AOUT_LIBRARY_PATH with several folders|/nonexistent::$W/empty:$W/rt.copy
AOUT_LIBRARY_PATH: a folder named libtiny.so.1 is passed over|$W/folder:$W/rt.copy
AOUT_LIBRARY_PATH: a libtiny.so.1 without x is passed over|$W/noexec:$W/rt.copy
EOF
# FOLDER|what it is, where the path given to uselib() is FOLDER/libtiny.so.1
while IFS='|' read -r dir what; do
	RUN_ENV=(DYN_LIBDIR="$W/$dir")
	runs_fail "--no-embed-libs: the path given $what: uselib() fails with EACCES (13)" \
		qmagic "$B/dyn-rt" 127 "dyn: can't load library '$W/$dir/libtiny.so.1'" "error 13"
done <<EOF
noexec|has no x
folder|is a folder
EOF
RUN_ENV=()
# the path the program gives uselib() (ld.so's search, LD_LIBRARY_PATH)
runs "--no-embed-libs: -L folder gone, found at the path given to uselib()" \
	qmagic "$B/dyn-rt" 0 "$HELLO" env -u AOUT_LIBRARY_PATH DYN_LIBDIR="$W/rt.copy"
# ld.so 1.x walks LD_LIBRARY_PATH itself, a uselib() per folder, on past
# ENOENT: a path in one of those folders is answered for itself alone, as
# the kernel did, and the stub searches no LD_LIBRARY_PATH of its own
RUN_ENV=(DYN_LIBDIR="$W/empty" LD_LIBRARY_PATH="$W/empty/:$W/rt.copy" AOUT_LIBRARY_DEBUG=1)
runs_err "--no-embed-libs: a path in an LD_LIBRARY_PATH folder: that path only, ENOENT" \
	"$B/dyn-rt" 127 "" \
	"$B/dyn-rt: uselib $W/empty/libtiny.so.1: looked in $W/empty/libtiny.so.1: error 2
dyn: can't load library '$W/empty/libtiny.so.1': uselib failed with error 2"
RUN_ENV=(LD_LIBRARY_PATH="$W/rt.copy")
runs_fail "--no-embed-libs: the stub searches no LD_LIBRARY_PATH (ld.so walks it): ENOENT" \
	qmagic "$B/dyn-rt" 127 "dyn: can't load library '/usr/lib/libtiny.so.1'" "error 2"
RUN_ENV=(AOUT_LIBRARY_PATH="$W/empty" LD_LIBRARY_PATH="$W/empty" AOUT_LIBRARY_DEBUG=1)
runs_err "--no-embed-libs: AOUT_LIBRARY_DEBUG=1 lists the places, then dyn's own line" \
	"$B/dyn-rt" 127 "" \
	"$B/dyn-rt: uselib /usr/lib/libtiny.so.1: looked in $(places libtiny.so.1 "$W/empty" /usr/lib "$W/rt"): error 2
dyn: can't load library '/usr/lib/libtiny.so.1': uselib failed with error 2"
RUN_ENV=(AOUT_LIBRARY_DEBUG=0)
runs_fail "--no-embed-libs: AOUT_LIBRARY_DEBUG=0 lists nothing" \
	qmagic "$B/dyn-rt" 127 "dyn: can't load library '/usr/lib/libtiny.so.1'" "error 2"
RUN_ENV=()
RUN_ENV=(AOUT_LIBRARY_PATH="$TD/old" DYN_LIBDIR="$W/rt.copy")
runs_fail "--no-embed-libs: AOUT_LIBRARY_PATH is searched before the given path" \
	qmagic "$B/dyn-rt" 127 "dyn: $W/rt.copy/libtiny.so.1 is version 1.1.0, needs 1.2.0"
# out of file descriptors: uselib() fails as the kernel's did, with EMFILE
RUN_ENV=(AOUT_LIBRARY_PATH="$W/rt.copy" sh -c 'ulimit -n 3 && exec "$0"')
desc="--no-embed-libs: no file descriptor left: uselib() fails with EMFILE (24)"
native_only "$desc (qemu-i386 itself cannot start with 3 file descriptors)" &&
	runs_fail "$desc" \
		qmagic "$B/dyn-rt" 127 "dyn: can't load library '/usr/lib/libtiny.so.1'" "error 24"
runs "--no-embed-libs: uselib() again maps the library afresh (data, bss)" \
	qmagic "$B/dyn-rt" 0 "$HELLO" env AOUT_LIBRARY_PATH="$W/rt.copy" DYN_USELIB_TWICE=1
runs "--no-embed-libs: uselib() of a pointer it cannot read fails with EFAULT" \
	qmagic "$B/dyn-rt" 0 "$HELLO" env AOUT_LIBRARY_PATH="$W/rt.copy" DYN_USELIB_FAULT=1
native_only "--no-embed-libs: brk moved by the library's code ($QEMU_BRK)" &&
	runs "--no-embed-libs: brk moved by the library's code stays exact" \
		qmagic "$B/dyn-rt" 0 "$HELLO" env AOUT_LIBRARY_PATH="$W/rt.copy" DYN_LIB_BRK=1
RUN_ENV=()
runs_fail "--no-embed-libs: neither: uselib() fails with ENOENT, dyn says so (127)" \
	qmagic "$B/dyn-rt" 127 "dyn: can't load library '/usr/lib/libtiny.so.1'" "error 2"
RUN_ENV=(AOUT_LIBRARY_PATH="$W/empty")
runs_fail "--no-embed-libs: not in AOUT_LIBRARY_PATH either: ENOENT" \
	qmagic "$B/dyn-rt" 127 "dyn: can't load library '/usr/lib/libtiny.so.1'" "error 2"
# the kernel's error for the path given, where the library is nowhere
RUN_ENV=(DYN_LIBDIR="$TD/dyn.qmagic.aout")
runs_fail "--no-embed-libs: nowhere, and the path given goes through a file: ENOTDIR (20)" \
	qmagic "$B/dyn-rt" 127 "dyn: can't load library '$TD/dyn.qmagic.aout/libtiny.so.1'" \
	"error 20"
RUN_ENV=()
mv "$W/rt.copy" "$W/rt"

# a relative -L folder is remembered as an absolute one
desc="--no-embed-libs -L with a relative folder, run from another folder"
run sh -c "cd '$W' && '$(cd "$(dirname "$AOUT2ELF")" && pwd)/$(basename "$AOUT2ELF")' --no-embed-libs -L rt '$TD/dyn.qmagic.aout' '$B/dyn-rel'"
if [ "$st" != 0 ]; then
	not_ok "$desc"
	report_run
else
	chmod 755 "$B/dyn-rel"
	runs "$desc" qmagic "$B/dyn-rel" 0 "$HELLO" env -u AOUT_LIBRARY_PATH -C /
fi

convert "--no-embed-libs: dynmissing.qmagic.aout converts (libmissing.so.1 is not found)" \
	"$B/dynmissing" --no-embed-libs -L "$TESTDATA" "$TD/dynmissing.qmagic.aout"
check "... with a warning naming libmissing.so.1" \
	grep -q '^aout2elf: warning: .*libmissing\.so\.1' "$ERR"
runs_fail "dynmissing: uselib() fails with ENOENT, dyn's own line, exit 127" \
	qmagic "$B/dynmissing" 127 \
	"dyn: can't load library '/usr/lib/libmissing.so.1': uselib failed with error 2"
RUN_ENV=(AOUT_LIBRARY_DEBUG=1)
runs_err "dynmissing: AOUT_LIBRARY_DEBUG=1: a line per uselib() saying where it looked" \
	"$B/dynmissing" 127 "" \
	"$B/dynmissing: uselib /usr/lib/libtiny.so.1: looked in /usr/lib/libtiny.so.1, $TD/libtiny.so.1: loaded
$B/dynmissing: uselib /usr/lib/libmissing.so.1: looked in $(places libmissing.so.1 /usr/lib "$TD"): error 2
dyn: can't load library '/usr/lib/libmissing.so.1': uselib failed with error 2"
RUN_ENV=()

# ---- conversion errors: exit 1, one line, no output file ----
# conv_error DESCRIPTION INPUT STRING... -- ARG...: aout2elf ARG... INPUT
# OUT into an empty folder must exit 1 with one stderr line
# "aout2elf: INPUT: ..." holding every STRING, and leave the folder empty
# (no OUT, no .OUT.aout2elf-* temporary)
conv_n=0
conv_error() {
	local desc=$1 input=$2 strings=() d left
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		strings+=("$1")
		shift
	done
	shift
	conv_n=$((conv_n + 1))
	d=$W/out$conv_n
	mkdir "$d"
	run "$AOUT2ELF" "$@" "$input" "$d/prog"
	left=$(ls -A "$d")
	if [ "$st" = 1 ] && [ ! -s "$OUT" ] && one_line "$ERR" &&
		grep -qF "aout2elf: $input: " "$ERR" && has_all "$ERR" "${strings[@]}" &&
		[ -z "$left" ]; then
		ok "$desc"
	else
		not_ok "$desc" "expected exit status 1, one line 'aout2elf: $input: ...' containing:" \
			"${strings[@]}"
		[ -n "$left" ] && diag "left in the output folder: $left"
		report_run
	fi
}

conv_error "error: libtiny 1.1.0 is older than the 1.2.0 dyn needs" \
	"$TD/dyn.qmagic.aout" "$TD/old/libtiny.so.1" "version 1.1.0" "older" "1.2.0" \
	-- -L "$TESTDATA/old"
conv_error "error: older, with --no-embed-libs too" \
	"$TD/dyn.qmagic.aout" "$TD/old/libtiny.so.1" "older" \
	-- --no-embed-libs -L "$TESTDATA/old"
conv_error "error: the first -L folder wins (old before testdata)" \
	"$TD/dyn.qmagic.aout" "$TD/old/libtiny.so.1" "older" \
	-- -L "$TESTDATA/old" -L "$TESTDATA"
convert "the first -L folder wins (testdata before old)" "$B/dyn-first" \
	-L "$TESTDATA" -L "$TESTDATA/old" "$TD/dyn.qmagic.aout"
conv_error "error: libtiny 2.0.0 is of another major version" \
	"$TD/dyn.qmagic.aout" "$TD/major2/libtiny.so.1" "version 2.0.0" "major version 1" \
	-- -L "$TESTDATA/major2"
conv_error "error: libclash.so.1 overlaps libtiny.so.1" \
	"$TD/dynclash.qmagic.aout" "overlaps" "libclash.so.1" "libtiny.so.1" \
	-- -L "$TESTDATA"
conv_error "error: a text file named libtiny.so.1 is not an a.out shared library" \
	"$TD/dyn.qmagic.aout" "$W/txt/libtiny.so.1: not an a.out shared library" \
	-- -L "$W/txt"
conv_error "error: an OMAGIC program named libtiny.so.1 is not an a.out shared library" \
	"$TD/dyn.qmagic.aout" "$W/omagic/libtiny.so.1: not an a.out shared library" "OMAGIC" \
	-- -L "$W/omagic"
conv_error "error: libmissing.so.1 not found, naming the folders searched" \
	"$TD/dynmissing.qmagic.aout" "libmissing.so.1" "not found" "$TD:$CUSTOMARY" \
	-- -L "$TESTDATA"
if [ -e "/usr/lib/libtiny.so.1" ] || [ -e "/lib/libtiny.so.1" ]; then
	skip "error: without -L libtiny.so.1 is not found (this machine has one)"
else
	conv_error "error: without -L libtiny.so.1 is not found in the customary folders" \
		"$TD/dyn.qmagic.aout" "libtiny.so.1" "not found in $CUSTOMARY" --
fi

# a failed conversion with -f leaves an existing OUTPUT as it was
mkdir "$W/keep"
echo "old contents" >"$W/keep/prog"
run "$AOUT2ELF" -f -L "$TESTDATA/old" "$TD/dyn.qmagic.aout" "$W/keep/prog"
desc="error with -f: the existing output is left alone, no temporary left"
if [ "$st" = 1 ] && [ "$(cat "$W/keep/prog")" = "old contents" ] &&
	[ "$(ls -A "$W/keep")" = prog ]; then
	ok "$desc"
else
	not_ok "$desc" "left in the folder: $(ls -A "$W/keep" | tr '\n' ' ')"
	report_run
fi

# ---- as an unprivileged user ----
# the refusal is the host kernel's: qemu-i386 maps the guest's low
# addresses elsewhere, so there the program runs
QEMU_MIN_ADDR="qemu-i386 is not bound by vm.mmap_min_addr"
desc_q="qmagic: dyn (embedded) runs as uid $NOBODY_UID"
desc_rt="qmagic: dyn (--no-embed-libs, AOUT_LIBRARY_PATH) runs as uid $NOBODY_UID"
desc_o="omagic: dyn as uid $NOBODY_UID"
if [ "$min_addr" -le 0 ]; then
	desc_o="$desc_o runs (vm.mmap_min_addr 0)"
else
	desc_o="$desc_o exits 127 with one line about vm.mmap_min_addr ($min_addr > 0)"
fi
if ! can_drop_privileges; then
	skip "$desc_q (needs root and setpriv)"
	skip "$desc_rt (needs root and setpriv)"
	skip "$desc_o (needs root and setpriv)"
elif run "${NOBODY[@]}" true && [ "$st" != 0 ]; then
	skip "$desc_q (setpriv cannot switch to uid $NOBODY_UID)"
	skip "$desc_rt (setpriv cannot switch to uid $NOBODY_UID)"
	skip "$desc_o (setpriv cannot switch to uid $NOBODY_UID)"
else
	for p in "$desc_q|$B/dyn.qmagic|" "$desc_rt|$B/dyn-rt|$W/rt"; do
		d=${p%%|*} rest=${p#*|}
		prog=${rest%%|*} lp=${rest#*|}
		if [ "$min_addr" -gt 4096 ]; then
			d="${d/ runs as/ as} exits 127 with one line about vm.mmap_min_addr ($min_addr > 4096)"
		fi
		if [ "$prog" = "$B/dyn.qmagic" ] && [ "${MAGICS/qmagic/}" = "$MAGICS" ]; then
			skip "$d (qmagic not tested)"
			continue
		elif [ ! -x "$prog" ]; then
			not_ok "$d" "$prog was not converted"
			continue
		elif [ "$min_addr" -gt 4096 ] && ! native_only "$d ($QEMU_MIN_ADDR)"; then
			continue
		fi
		if [ -n "$lp" ]; then
			run "${NOBODY[@]}" env AOUT_LIBRARY_PATH="$lp" "$prog"
		else
			run "${NOBODY[@]}" env -u AOUT_LIBRARY_PATH "$prog"
		fi
		if [ "$min_addr" -le 4096 ]; then
			expect "$d" 0 "$HELLO"
		else
			expect_refusal "$d"
		fi
	done
	case " $MAGICS " in
	*" omagic "*)
		if [ ! -x "$B/dyn.omagic" ]; then
			not_ok "$desc_o" "dyn.omagic was not converted"
		elif [ "$min_addr" -le 0 ] || native_only "$desc_o ($QEMU_MIN_ADDR)"; then
			run "${NOBODY[@]}" "$B/dyn.omagic"
			if [ "$min_addr" -le 0 ]; then
				expect "$desc_o" 0 "$HELLO"
			else
				expect_refusal "$desc_o"
			fi
		fi
		;;
	*) skip "$desc_o (omagic not tested)" ;;
	esac
fi

# ---- setuid: whoever runs it does not choose its libraries ----
# A setuid-root copy of dyn-rt run as uid 65534 (AT_SECURE): with either
# variable naming the folder of the old libtiny, it still maps the one of
# its -L folder, where it would say "is version 1.1.0" if it took it.
desc_s="--no-embed-libs, setuid root, as uid $NOBODY_UID:"
if ! can_drop_privileges; then
	skip "$desc_s the library path variables are ignored (needs root and setpriv)"
elif ! native_only "$desc_s the library path variables are ignored (qemu-i386 runs a setuid program as its caller)"; then
	:
elif [ "$min_addr" -gt 4096 ] || [ ! -x "$B/dyn-rt" ]; then
	skip "$desc_s the library path variables are ignored (it cannot run here)"
else
	mkdir "$W/suid"
	cp "$B/dyn-rt" "$W/suid/dyn"
	cp "$(command -v id)" "$W/suid/id"
	chmod 4755 "$W/suid/dyn" "$W/suid/id"
	chmod 755 "$W/suid"
	run "${NOBODY[@]}" "$W/suid/id" -u
	if [ "$st" != 0 ] || [ "$(cat "$OUT")" != 0 ]; then
		skip "$desc_s the library path variables are ignored (setuid has no effect in $W)"
	else
		for var in AOUT_LIBRARY_PATH LD_LIBRARY_PATH; do
			run "${NOBODY[@]}" env -u AOUT_LIBRARY_PATH "$var=$TD/old" "$W/suid/dyn"
			expect "$desc_s $var is ignored" 0 "$HELLO"
		done
		# nor learns where it looks for them
		run "${NOBODY[@]}" env -u AOUT_LIBRARY_PATH AOUT_LIBRARY_DEBUG=1 "$W/suid/dyn"
		expect "$desc_s AOUT_LIBRARY_DEBUG is ignored" 0 "$HELLO"
	fi
fi

finish
