#!/bin/bash
# End-to-end test of aout2elf on dynamically linked a.out programs of
# 1993, from before ld.so, whose own crt0 loads their libraries.
#
# The fixtures (testdata/fixtures.mk, testdata/olddyn.c) are built from
# source.  Their crt0 is one of the two kinds of that year
# (testdata/oldcrt0.h): SLS's (crt0_sls.h) gives uselib() the full path
# its libentry holds ("/lib/libtiny.so.1"), takes a CLASSIC version only
# exactly and an older minor not at all; Slackware's (crt0_slack.h) gives
# it a bare name in LD_LIBRARY_PATH's folders, /usr/lib/, /lib/ and /,
# going on only past ENOENT, and only warns of an older minor.  Either
# ends a program whose library it cannot load with its own words
# ("ARGV0: can't load library 'PATH'", a tab and the reason) and exit
# status 128.  The programs: slsdyn and slackdyn (libtiny.so.1 and
# libtwo.so.1, whose own libentries name libtiny "/libtiny.so.1"), all
# four kinds; slsexact (libtiny exactly 1.2.3: testdata/classic/),
# slslow (and liblow.so.1 at 0x10000000, where /lib/libemu lay, entry
# outside any program's text), slsmissing and slackmissing (and
# libmissing.so.1, which nobody has), QMAGIC and ZMAGIC.
#
# It converts them with -L and --sysroot,
# checks what the conversion says of older, other and missing versions,
# and runs them: embedded with no library file left anywhere, and with
# --no-embed-libs against other libraries at run time.
#
# Run from the top build directory, as "make check" does.  Environment:
#   AOUT2ELF          the converter (default ./src/aout2elf)
#   AOUT2ELF_TESTDATA the fixtures (default ./testdata)
#   AOUT2ELF_MAGICS   the kinds to test (default "omagic nmagic zmagic qmagic";
#                     qmagic is always added)
#   AOUT2ELF_TIMEOUT  seconds each program may run (default 30)
#
# Prints "ok N - ...", "not ok N - ..." (with "#" lines saying why) or
# "ok N # skip ..." per check and ends with "N passed, N failed, N skipped".
# Exit status: 1 if anything failed, 77 if everything was skipped, else 0.

set -u

. "${srcdir:-.}/tests/lib.sh"
need_i386 "$@"

e2e_setup e2e-oldlibs
MAGICS=${AOUT2ELF_MAGICS:-omagic nmagic zmagic qmagic}
# the checks of one kind are QMAGIC's: it is always among them
case " $MAGICS " in
*" qmagic "*) ;;
*) MAGICS="$MAGICS qmagic" ;;
esac
# the kinds the QMAGIC-and-ZMAGIC programs are built in, of those tested
MAGICS_QZ=$(for m in $MAGICS; do case $m in qmagic | zmagic) echo "$m" ;; esac; done)

# what each program prints when its libraries work
out_of() { printf '%s: hello from libtiny\n%s: hello from libtwo\n' "$1" "$1"; }
SLS_OUT=$(out_of slsdyn)$'\n' SLACK_OUT=$(out_of slackdyn)$'\n'
EXACT_OUT=$'slsexact: hello from libtiny\n'
LOW_OUT=$'slslow: hello from libtiny\nslslow: liblow.so.1 at 0x10000000: hello from libtiny\n'
# what the crt0s print: Slackware's warning of an older minor, and the
# fatal line of both
minor_warning() {
	echo "Warning: $1: libtiny.so.1: incompatible minor version numbers (DLL Jump 1.2pl0)."
}
cant_load() { printf "%s: can't load library '%s'\n\t%s\n" "$1" "$2" "$3"; }

# the converter names -L folders by their real path, and so the work folder
TD=$(cd "$TESTDATA" 2>/dev/null && pwd -P) || {
	not_ok "the fixtures folder $TESTDATA exists"
	finish
}
WR=$(cd "$W" && pwd -P)
missing=
for f in libtiny.so.1 libtwo.so.1 liblow.so.1 zmagic/liblow.so.1 old/libtiny.so.1 \
	major2/libtiny.so.1 classic/libtiny.so.1; do
	[ -f "$TD/$f" ] || missing="$missing $f"
done
for m in $MAGICS; do
	for p in slsdyn slackdyn; do
		[ -f "$TD/$p.$m.aout" ] || missing="$missing $p.$m.aout"
	done
done
for m in $MAGICS_QZ; do
	for p in slsexact slslow slsmissing slackmissing; do
		[ -f "$TD/$p.$m.aout" ] || missing="$missing $p.$m.aout"
	done
done
if [ -n "$missing" ]; then
	not_ok "the fixtures are built" "missing in $TD:$missing (make check builds them)"
	finish
fi
for f in /lib/libtiny.so.1 /usr/lib/libtiny.so.1 /lib/libtwo.so.1 /usr/lib/libtwo.so.1 \
	/lib/libmissing.so.1 /usr/lib/libmissing.so.1 /libmissing.so.1; do
	if [ -e "$f" ]; then
		skip "this machine has $f, which the programs would find"
		finish
	fi
done

# the library folders: copies, removed once the programs are converted
mkdir "$W/lib" "$W/zlib" "$W/classic" "$W/old" "$W/rt" "$W/txt" "$W/empty" "$W/noexec"
cp "$TD/libtiny.so.1" "$TD/libtwo.so.1" "$TD/liblow.so.1" "$W/lib/"
cp "$TD/zmagic/liblow.so.1" "$W/zlib/"
cp "$TD/classic/libtiny.so.1" "$W/classic/"
cp "$TD/old/libtiny.so.1" "$W/old/"
cp "$TD/libtiny.so.1" "$TD/libtwo.so.1" "$W/rt/"
cp "$TD/libtiny.so.1" "$W/noexec/"
echo "this is not an a.out library" >"$W/txt/libtiny.so.1"
chmod -R a+rX "$W"
chmod a+x "$W/txt/libtiny.so.1"
chmod a-x "$W/noexec/libtiny.so.1" # uselib() refused it: EACCES

# ---- helpers ----

# quiet: the last conversion printed no warning but vm.mmap_min_addr's
quiet() { ! grep -v 'vm\.mmap_min_addr' "$ERR" | grep -q .; }

# expect_io DESCRIPTION STATUS STDOUT STDERR: the last run exited STATUS
# and printed exactly STDOUT and STDERR
expect_io() {
	if [ "$st" = "$2" ] && printf '%s' "$3" | cmp -s - "$OUT" &&
		printf '%s' "$4" | cmp -s - "$ERR"; then
		ok "$1"
	else
		not_ok "$1" "expected exit status $2, stdout $(printf '%q' "$3"), stderr $(printf '%q' "$4")"
		report_run
	fi
}

# runs_as DESCRIPTION M PROGRAM STATUS STDOUT STDERR
# [COMMAND PREFIX...]: runs PROGRAM (converted, of kind M) and expects all
# three; skipped when M programs cannot run here
runs_as() {
	local desc=$1 m=$2 prog=$3 want_st=$4 want_out=$5 want_err=$6 reason
	shift 6
	if reason=$(why_not_run "$m"); then
		skip "$desc ($reason)"
	elif [ ! -x "$prog" ]; then
		not_ok "$desc" "$prog was not converted"
	else
		run env -u AOUT_LIBRARY_PATH -u LD_LIBRARY_PATH "$@" "$prog"
		expect_io "$desc" "$want_st" "$want_out" "$want_err"
	fi
}

# refused DESCRIPTION INPUT STRING... -- ARG...: "aout2elf ARG... INPUT
# OUT" must fail with exit status 1, one line "aout2elf: INPUT: ..." with
# every STRING, and write no OUT
refused_n=0
refused() {
	local desc=$1 input=$2 strings=()
	shift 2
	while [ "$1" != -- ]; do
		strings+=("$1")
		shift
	done
	shift
	refused_n=$((refused_n + 1))
	run "$AOUT2ELF" "$@" "$input" "$W/refused$refused_n"
	if [ "$st" = 1 ] && [ ! -s "$OUT" ] && one_line "$ERR" &&
		has_all "$ERR" "aout2elf: $input: " "${strings[@]}" &&
		[ ! -e "$W/refused$refused_n" ]; then
		ok "$desc"
	else
		not_ok "$desc" "expected exit status 1, one line 'aout2elf: $input: ...' with:" \
			"${strings[@]}"
		report_run
	fi
}

# warned DESCRIPTION STRING...: the last conversion warned, on one line,
# with every STRING
warned() {
	local desc=$1 s lines
	shift
	lines=$(grep '^aout2elf: warning: ' "$ERR")
	for s in "$@"; do
		lines=$(printf '%s\n' "$lines" | grep -F -- "$s")
	done
	if [ "$st" = 0 ] && [ -n "$lines" ]; then
		ok "$desc"
	else
		not_ok "$desc" "expected a warning line with:" "$@"
		report_run
	fi
}

# info_has DESCRIPTION LINE ARG...: "aout2elf --info ARG..." succeeds and
# prints LINE (after its indentation)
info_has() {
	local desc=$1 line=$2
	shift 2
	run "$AOUT2ELF" --info "$@"
	if [ "$st" = 0 ] && sed 's/^ *//' "$OUT" | grep -qxF -- "$line"; then
		ok "$desc"
	else
		not_ok "$desc" "expected the line: $line"
		report_run
	fi
}

# ---- conversions: found by the name the program gives ----
for M in $MAGICS; do
	convert "$M: slsdyn converts: /lib/libtiny.so.1 and /lib/libtwo.so.1 found in -L by file name" \
		"$B/slsdyn.$M" -L "$W/lib" "$TD/slsdyn.$M.aout"
	check "$M: ... without a warning (libtwo's /libtiny.so.1 is the same libtiny)" quiet
	convert "$M: slackdyn converts: libtiny.so.1 and libtwo.so.1 found in -L" \
		"$B/slackdyn.$M" -L "$W/lib" "$TD/slackdyn.$M.aout"
	check "$M: ... without a warning" quiet
done
info_has "--info: slsdyn's /lib/libtiny.so.1, the file found and its version" \
	"/lib/libtiny.so.1 (1.2.0 or later, for the program) => $TD/libtiny.so.1 (1.2.3) at 0x61000000-0x61006000" \
	-L "$TESTDATA" "$TD/slsdyn.qmagic.aout"
info_has "--info: slsdyn's /lib/libtwo.so.1 at its own address" \
	"/lib/libtwo.so.1 (1.0.0 or later, for the program) => $TD/libtwo.so.1 (1.0.0) at 0x62000000-0x62002000" \
	-L "$TESTDATA" "$TD/slsdyn.qmagic.aout"
info_has "--info: slackdyn's bare libtiny.so.1" \
	"libtiny.so.1 (1.2.0 or later, for the program) => $TD/libtiny.so.1 (1.2.3) at 0x61000000-0x61006000" \
	-L "$TESTDATA" "$TD/slackdyn.qmagic.aout"
info_has "--info: embedded, uselib() is answered from the copies" \
	"At run time:      uselib() answered from the copies inside the program, by file name" \
	-L "$TESTDATA" "$TD/slsdyn.qmagic.aout"
info_has "--info --no-embed-libs: where uselib() looks at run time, in order" \
	"At run time:      uselib() looks in \$AOUT_LIBRARY_PATH, the path given, $TD:/usr/i486-linuxaout/lib:/usr/i486-linux/lib:/lib:/usr/lib (AOUT_LIBRARY_DEBUG=1 shows it)" \
	--no-embed-libs -L "$TESTDATA" "$TD/slsdyn.qmagic.aout"
info_has "--info of libtwo.so.1: it names libtiny /libtiny.so.1" \
	"Needs:            /libtiny.so.1 (1.2.0 or later)" "$TD/libtwo.so.1"
refused "without -L: /lib/libtiny.so.1 is not found, the message names it" \
	"$TD/slsdyn.qmagic.aout" "needs the a.out library /lib/libtiny.so.1, not found in" --

# ---- an older minor version: as each crt0 judged it ----
refused "SLS crt0, libtiny 1.1.0 for 1.2.0: refused with both versions and its crt0's words" \
	"$TD/slsdyn.qmagic.aout" "$TD/old/libtiny.so.1 is version 1.1.0, older than the 1.2.0" \
	'its crt0 refuses it ("Incompatible version.")' -- -L "$TESTDATA/old" -L "$TESTDATA"
refused "SLS crt0, libtiny 1.1.0: refused with --no-embed-libs too" \
	"$TD/slsdyn.qmagic.aout" "$TD/old/libtiny.so.1 is version 1.1.0" "Incompatible version." \
	-- --no-embed-libs -L "$TESTDATA/old" -L "$TESTDATA"
for M in $MAGICS_QZ; do
	# (short paths: the converter cuts what it warns at 512 bytes)
	convert "$M: Slackware crt0, libtiny 1.1.0 for 1.2.0: converts" "$B/slackold.$M" \
		-L "$W/old" -L "$W/lib" "$TD/slackdyn.$M.aout"
	warned "$M: ... warning with both versions and the crt0's own warning" \
		"$WR/old/libtiny.so.1 is version 1.1.0, older than the 1.2.0" \
		"Warning: <program>: libtiny.so.1: incompatible minor version numbers (DLL Jump 1.2pl0)."
done
info_has "--info: libtwo was built against /libtiny.so.1 1.2.0, which 1.1.0 is not" \
	"warning: $TD/libtwo.so.1 was built against /libtiny.so.1 1.2.0 or later, and $TD/old/libtiny.so.1 is version 1.1.0" \
	-L "$TESTDATA/old" -L "$TESTDATA" "$TD/slackdyn.qmagic.aout"

# ---- another major version: fatal to both ----
refused "Slackware crt0, libtiny 2.0.0 for 1.x: refused, its crt0's words" \
	"$TD/slackdyn.qmagic.aout" "$TD/major2/libtiny.so.1 is version 2.0.0" "major version 1" \
	'its crt0 refuses it ("Incompatible version.")' -- -L "$TESTDATA/major2" -L "$TESTDATA"
refused "SLS crt0, libtiny 2.0.0 for 1.x: refused" \
	"$TD/slsdyn.qmagic.aout" "$TD/major2/libtiny.so.1 is version 2.0.0" "Incompatible version." \
	-- -L "$TESTDATA/major2" -L "$TESTDATA"

# ---- CLASSIC: this very version ----
for M in $MAGICS_QZ; do
	convert "$M: slsexact converts with the 1.2.3 CLASSIC libtiny" "$B/slsexact.$M" \
		-L "$W/classic" "$TD/slsexact.$M.aout"
done
info_has "--info: slsexact wants 1.2.3 exactly" \
	"/lib/libtiny.so.1 (1.2.3 exactly, for the program) => $TD/classic/libtiny.so.1 (1.2.3) at 0x61000000-0x61006000" \
	-L "$TESTDATA/classic" "$TD/slsexact.qmagic.aout"
refused "slsexact with 1.2.3 without the CLASSIC bit: refused, both words and its crt0's" \
	"$TD/slsexact.qmagic.aout" "$TD/libtiny.so.1 is version 1.2.3 (0x000100cb)" \
	"exactly 1.2.3 (0x100100cb)" "Incompatible version." -- -L "$TESTDATA"

# ---- a library far below where libraries were put ----
for M in $MAGICS_QZ; do
	convert "$M: slslow converts with liblow.so.1 at 0x10000000 (QMAGIC)" "$B/slslow.$M" \
		-L "$W/lib" "$TD/slslow.$M.aout"
	convert "$M: slslow converts with liblow.so.1 at 0x10000000 (ZMAGIC, entry 0x10000000)" \
		"$B/slslowz.$M" -L "$W/zlib" -L "$W/lib" "$TD/slslow.$M.aout"
done
info_has "--info: liblow.so.1 (ZMAGIC) is mapped at its entry 0x10000000" \
	"/lib/liblow.so.1 (1.2.0 or later, for the program) => $TD/zmagic/liblow.so.1 (1.2.3) at 0x10000000-0x10006000" \
	-L "$TESTDATA/zmagic" -L "$TESTDATA" "$TD/slslow.qmagic.aout"

# ---- a library nobody has ----
for p in slsmissing:/lib/libmissing.so.1 slackmissing:libmissing.so.1; do
	prog=${p%%:*} name=${p#*:}
	refused "$prog: $name is not found: refused with the libraries embedded" \
		"$TD/$prog.qmagic.aout" "needs the a.out library $name, not found in" -- -L "$TESTDATA"
	for M in $MAGICS_QZ; do
		convert "$M: $prog converts with --no-embed-libs" "$B/$prog.$M" --no-embed-libs \
			-L "$W/rt" "$TD/$prog.$M.aout"
		warned "$M: ... warning that $name is not found" "$name"
	done
done

# --no-embed-libs: found at run time
for M in $MAGICS_QZ; do
	convert "$M: slsdyn converts with --no-embed-libs" "$B/slsdyn-rt.$M" --no-embed-libs \
		-L "$W/rt" "$TD/slsdyn.$M.aout"
	convert "$M: slackdyn converts with --no-embed-libs" "$B/slackdyn-rt.$M" --no-embed-libs \
		-L "$W/rt" "$TD/slackdyn.$M.aout"
done
convert "slsexact converts with --no-embed-libs" "$B/slsexact-rt" --no-embed-libs \
	-L "$TESTDATA/classic" "$TD/slsexact.qmagic.aout"

# ---- embedded: run with no library file left ----
rm -rf "${W:?}/lib" "$W/zlib" "$W/classic"

# the SLS programs ask for /lib/NAME, the Slackware ones /usr/lib/NAME first
for M in $MAGICS; do
	runs_as "$M: slsdyn runs, /lib/libtiny.so.1 and /lib/libtwo.so.1 embedded" \
		"$M" "$B/slsdyn.$M" 0 "$SLS_OUT" ""
	runs_as "$M: slackdyn runs, libtiny.so.1 and libtwo.so.1 embedded" \
		"$M" "$B/slackdyn.$M" 0 "$SLACK_OUT" ""
done
for M in $MAGICS_QZ; do
	runs_as "$M: slackdyn with libtiny 1.1.0 runs after its crt0's warning" \
		"$M" "$B/slackold.$M" 0 "$SLACK_OUT" "$(minor_warning "$B/slackold.$M")"$'\n'
	runs_as "$M: slsexact runs, the CLASSIC libtiny embedded" \
		"$M" "$B/slsexact.$M" 0 "$EXACT_OUT" ""
	runs_as "$M: slslow runs, liblow.so.1 (QMAGIC) embedded at 0x10000000" \
		"$M" "$B/slslow.$M" 0 "$LOW_OUT" ""
	runs_as "$M: slslow runs, liblow.so.1 (ZMAGIC) embedded at 0x10000000" \
		"$M" "$B/slslowz.$M" 0 "$LOW_OUT" ""
done
# crt0 tries LD_LIBRARY_PATH first: the embedded library answers
runs_as "slackdyn: an LD_LIBRARY_PATH holding a broken libtiny.so.1 changes nothing" \
	qmagic "$B/slackdyn.qmagic" 0 "$SLACK_OUT" "" env LD_LIBRARY_PATH="$W/txt"
runs_as "slsdyn: AOUT_LIBRARY_PATH with an older libtiny changes nothing" \
	qmagic "$B/slsdyn.qmagic" 0 "$SLS_OUT" "" env AOUT_LIBRARY_PATH="$TD/old"

# strace: no library file is opened (a failed open of the path given is
# no file)
for p in slsdyn slackdyn; do
	desc="$p: strace shows no library file opened"
	prog=$B/$p.qmagic
	if ! command -v strace >/dev/null 2>&1; then
		skip "$desc (no strace)"
		continue
	elif reason=$(why_not_run qmagic); then
		skip "$desc ($reason)"
		continue
	elif ! native_only "$desc (strace would trace the program natively, not under qemu)"; then
		continue
	fi
	run strace -f -e trace=%file -o "$W/$p.strace" env -u AOUT_LIBRARY_PATH "$prog"
	if [ ! -s "$W/$p.strace" ] || ! grep -q 'uselib' "$W/$p.strace"; then
		skip "$desc (strace cannot trace it here)"
	elif [ "$st" = 0 ] && ! grep -E 'open.*lib(tiny|two)\.so.*= [0-9]' "$W/$p.strace" >"$W/opened"; then
		ok "$desc"
	else
		not_ok "$desc"
		report_run
		show "$W/opened" opened
	fi
done

# ---- --no-embed-libs: what each crt0 makes of what it finds ----
for M in $MAGICS_QZ; do
	runs_as "$M: slsdyn --no-embed-libs runs, the -L folder there" \
		"$M" "$B/slsdyn-rt.$M" 0 "$SLS_OUT" ""
	runs_as "$M: slackdyn --no-embed-libs runs, the -L folder there" \
		"$M" "$B/slackdyn-rt.$M" 0 "$SLACK_OUT" ""
	p=$B/slsdyn-rt.$M
	runs_as "$M: SLS crt0, libtiny 1.1.0 at run time: its words, exit 128" \
		"$M" "$p" 128 "" "$(cant_load "$p" /lib/libtiny.so.1 "Incompatible version.")"$'\n' \
		env AOUT_LIBRARY_PATH="$TD/old"
	p=$B/slackdyn-rt.$M
	runs_as "$M: Slackware crt0, libtiny 1.1.0 at run time: its warning, then it runs" \
		"$M" "$p" 0 "$SLACK_OUT" "$(minor_warning "$p")"$'\n' env AOUT_LIBRARY_PATH="$TD/old"
	runs_as "$M: Slackware crt0, libtiny 2.0.0 at run time: its words for /usr/lib/, exit 128" \
		"$M" "$p" 128 "" "$(cant_load "$p" /usr/lib/libtiny.so.1 "Incompatible version.")"$'\n' \
		env AOUT_LIBRARY_PATH="$TD/major2"
	for q in slsmissing:/lib/libmissing.so.1 slackmissing:/libmissing.so.1; do
		p=$B/${q%%:*}.$M
		# uselib() fails with ENOENT, the crt0 says so
		runs_as "$M: ${q%%:*}: its crt0's 'No such library.' for ${q#*:}, exit 128" \
			"$M" "$p" 128 "" "$(cant_load "$p" "${q#*:}" "No such library.")"$'\n'
	done
done
p=$B/slsexact-rt
runs_as "slsexact: 1.2.3 CLASSIC found at run time: runs" qmagic "$p" 0 "$EXACT_OUT" ""
runs_as "slsexact: 1.2.3 without the CLASSIC bit at run time: its words, exit 128" \
	qmagic "$p" 128 "" "$(cant_load "$p" /lib/libtiny.so.1 "Incompatible version.")"$'\n' \
	env AOUT_LIBRARY_PATH="$TD"
# Slackware's search: LD_LIBRARY_PATH first, on only past ENOENT
p=$B/slackdyn-rt.qmagic
runs_as "Slackware crt0: a broken libtiny.so.1 in LD_LIBRARY_PATH: 'Exec format error.', 128" \
	qmagic "$p" 128 "" "$(cant_load "$p" "$W/txt/libtiny.so.1" "Exec format error.")"$'\n' \
	env LD_LIBRARY_PATH="$W/txt:$W/rt"
runs_as "Slackware crt0: libtiny.so.1 without x in LD_LIBRARY_PATH: 'Permission denied.', 128" \
	qmagic "$p" 128 "" "$(cant_load "$p" "$W/noexec/libtiny.so.1" "Permission denied.")"$'\n' \
	env LD_LIBRARY_PATH="$W/noexec:$W/rt"
runs_as "Slackware crt0: past an LD_LIBRARY_PATH folder without it, to the next" \
	qmagic "$p" 0 "$SLACK_OUT" "" env LD_LIBRARY_PATH="$W/empty:$W/rt"
# the kernel said ENOENT for empty/libtiny.so.1 (the -L folder, which has
# it, is not searched for a path of the crt0's own walk), then ENOEXEC
runs_as "Slackware crt0: past a folder without it, a broken one in the next: that one named" \
	qmagic "$p" 128 "" "$(cant_load "$p" "$W/txt/libtiny.so.1" "Exec format error.")"$'\n' \
	env LD_LIBRARY_PATH="$W/empty:$W/txt"
runs_as "Slackware crt0: LD_LIBRARY_PATH folders without it, then the -L folder" \
	qmagic "$p" 0 "$SLACK_OUT" "" env LD_LIBRARY_PATH="$W/empty:$W/empty/"

# argc 0, as ldd ran a program: crt0 lists its libentries
desc="slackdyn with an empty argv (as ldd ran it) lists its libraries"
if reason=$(why_not_run qmagic); then
	skip "$desc ($reason)"
elif native_only "$desc (qemu-i386 gives the program an argv[0])"; then
	run ./tests/helpers/execv0 "$B/slackdyn.qmagic"
	if [ "$st" = 0 ] && printf '%s' "$SLACK_OUT" | cmp -s - "$OUT"; then
		skip "$desc (this kernel gives an empty argv an argv[0], Linux 5.18+)"
	else
		expect_io "$desc" 0 $'\tlibtiny.so.1 (DLL Jump 1.2pl0)\n\tlibtwo.so.1 (DLL Jump 1.2pl0)\n' ""
	fi
fi

# ---- --sysroot: an old system's tree, its links resolved inside it ----
R=$W/root
mkdir -p "$R/lib" "$R/usr/lib"
cp "$TD/libtiny.so.1" "$R/lib/libtiny.so.1.2.3"
cp "$TD/libtwo.so.1" "$R/lib/libtwo.so.1.0.0"
ln -s /lib/libtiny.so.1.2.3 "$R/lib/libtiny.so.1" # absolute: inside the root
ln -s libtwo.so.1.0.0 "$R/lib/libtwo.so.1"
chmod -R a+rX "$R"
for p in slsdyn:/lib/ slackdyn:; do
	prog=${p%%:*} dir=${p#*:}
	info_has "--sysroot: $prog's ${dir}libtiny.so.1 is ROOT/lib/libtiny.so.1 -> /lib/libtiny.so.1.2.3 in ROOT" \
		"${dir}libtiny.so.1 (1.2.0 or later, for the program) => $WR/root/lib/libtiny.so.1.2.3 (1.2.3) at 0x61000000-0x61006000" \
		--sysroot "$R" "$TD/$prog.qmagic.aout"
	info_has "--sysroot: $prog's ${dir}libtwo.so.1 through a relative link" \
		"${dir}libtwo.so.1 (1.0.0 or later, for the program) => $WR/root/lib/libtwo.so.1.0.0 (1.0.0) at 0x62000000-0x62002000" \
		--sysroot "$R" "$TD/$prog.qmagic.aout"
	convert "--sysroot: $prog converts, libraries from the root" "$B/$prog-root" \
		--sysroot "$R" "$TD/$prog.qmagic.aout"
	check "... without a warning" quiet
done
refused "--sysroot: a library not in the root: the message names it" \
	"$TD/slsmissing.qmagic.aout" "needs the a.out library /lib/libmissing.so.1, not found in" \
	"$R" -- --sysroot "$R"
mv "$R" "$W/root.moved"
runs_as "--sysroot: slsdyn runs, the root gone" qmagic "$B/slsdyn-root" 0 "$SLS_OUT" ""
runs_as "--sysroot: slackdyn runs, the root gone" qmagic "$B/slackdyn-root" 0 "$SLACK_OUT" ""

# ---- the crt0's uselib rewritten into a call of the stub (syscall_sites.h) ----
# rewritten PROGRAM LOAD: objdump shows LOAD, two NOPs and a call into the stub
rewritten() {
	objdump -d "$1" | awk -F '\t' -v load="$2" '
		{ insn[NR] = $3 }
		END {
			for (i = 1; i + 3 <= NR; i++)
				if (insn[i] == load && insn[i + 1] ~ /^nop/ &&
				    insn[i + 2] ~ /^nop/ && insn[i + 3] ~ /^call +8000[0-9a-f]+ /)
					exit 0
			exit 1
		}'
}
if command -v objdump >/dev/null 2>&1; then
	check "slsdyn: SLS's crt0 uselib calls the stub, its loads kept (objdump)" \
		rewritten "$B/slsdyn-root" 'mov    (%edi),%ebx'
	check "slackdyn: Slackware's crt0 uselib calls the stub, its load kept (objdump)" \
		rewritten "$B/slackdyn-root" 'mov    0x8(%esp),%ebx'
else
	skip "the rewritten uselib sites (no objdump)"
fi
run "$AOUT2ELF" --info -L "$TD" "$TD/slsdyn.qmagic.aout"
check "--info counts the rewritten uselib sites" \
	grep -q '^  Calls the stub:   1 uselib() in the program, 0 in embedded libraries' "$OUT"

finish
