# Shared by the shell tests: numbered checks and the closing summary line
# "N passed, N failed, N skipped" that the CI reads.  Source it, call
# check/skip, end with finish.
#
# Also here: failure reports (diag, show), running a program with a time
# limit and checking what it did (run, expect, expect_fail_line,
# expect_refusal, convert), what this machine lets a converted program map
# (min_addr, rawio, can_map, need_addr, why_not_run), the start of a script
# that converts the fixtures (e2e_setup), and the unprivileged user
# (is_root, as_nobody, NOBODY, can_drop_privileges); and need_i386, which
# moves a script into a VM where this kernel cannot run i386 programs.

: "${AOUT2ELF:=./src/aout2elf}"
n_pass=0 n_fail=0 n_skip=0 n_total=0

# ---- checks and the summary ----

ok() { n_total=$((n_total + 1)); n_pass=$((n_pass + 1)); echo "ok $n_total - $*"; }
skip() { n_total=$((n_total + 1)); n_skip=$((n_skip + 1)); echo "ok $n_total # skip $*"; }

# not_ok DESCRIPTION [REASON...]: a failed check; each REASON becomes a
# line "#   REASON" below it
not_ok() {
	n_total=$((n_total + 1)) n_fail=$((n_fail + 1))
	echo "not ok $n_total - ${1-}"
	shift $(($# > 0))
	diag "$@"
}

# diag LINE...: more lines saying why the last check failed
diag() {
	local line
	for line in "$@"; do
		printf '#   %s\n' "$line"
	done
}

# show FILE LABEL: the first lines of FILE, for a failure report
show() {
	if [ -s "$1" ]; then
		head -c 2000 "$1" | head -n 8 | sed "s/^/#     $2: /"
	else
		echo "#     $2: (empty)"
	fi
}

# check DESCRIPTION COMMAND...: passes when the command succeeds
check() {
	desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}

# run_capture OUTBASE CMD...: stdout, stderr and status into OUTBASE.{out,err,rc}
run_capture() {
	base=$1
	shift
	"$@" >"$base.out" 2>"$base.err" </dev/null
	echo $? >"$base.rc"
}

# finish: the summary line; exit 1 if anything failed, 77 if nothing passed
finish() {
	echo "$n_pass passed, $n_fail failed, $n_skip skipped"
	[ "$n_fail" -eq 0 ] || exit 1
	[ "$n_pass" -gt 0 ] || exit 77
	exit 0
}

# ---- running programs ----

# make_workdir NAME [FOLDER]: W, a new folder FOLDER/NAME.XXXXXX (FOLDER:
# $TMPDIR, or /tmp) that everyone may read, removed on exit (a failed
# check, and the end, if it cannot be made)
make_workdir() {
	W=$(mktemp -d "${2:-${TMPDIR:-/tmp}}/$1.XXXXXX") || {
		not_ok "mktemp -d"
		finish
	}
	chmod 755 "$W"
	trap 'rm -rf "$W"' EXIT
}

# set_timeout SECONDS: what run runs may take SECONDS (then TERM, and KILL
# 5 seconds later); TIMEOUT is the command prefix, empty without timeout(1).
# The default is AOUT2ELF_TIMEOUT, or 30.
set_timeout() {
	RUN_TIMEOUT=$1
	if command -v timeout >/dev/null 2>&1; then
		TIMEOUT=(timeout -k 5 "$RUN_TIMEOUT")
	else
		TIMEOUT=()
	fi
}
set_timeout "${AOUT2ELF_TIMEOUT:-30}"

# RUN_UNDER: AOUT2ELF_RUN_UNDER as words, the emulator (say qemu-i386)
# under which run runs converted programs; empty: they run natively
read -ra RUN_UNDER <<<"${AOUT2ELF_RUN_UNDER:-}"

# native_only REASON: returns 0 natively; under AOUT2ELF_RUN_UNDER skips a
# check, saying REASON, and returns 1, for "native_only WHY && run ..."
native_only() {
	[ ${#RUN_UNDER[@]} -eq 0 ] && return 0
	skip "under $AOUT2ELF_RUN_UNDER: $*"
	return 1
}

# is_i386_elf FILE: FILE (or the command of that name) is an i386 ELF
# file: ELF32 with e_machine 3
is_i386_elf() {
	local f=$1 h
	case $f in
	*/*) ;;
	*) f=$(command -v -- "$f") || return 1 ;;
	esac
	[ -f "$f" ] && [ -r "$f" ] || return 1
	h=$(od -An -tx1 -N20 -- "$f" 2>/dev/null | tr -d ' \n')
	[ "${h:0:10}" = 7f454c4601 ] && [ "${h:36:4}" = 0300 ]
}

# under_prefix COMMAND...: RUN_CMD, COMMAND with RUN_UNDER put before the
# program it runs where that is an i386 ELF file: COMMAND's first word, or
# the command env(1) or setpriv(1) run after their options and NAME=VALUEs
under_prefix() {
	RUN_CMD=("$@")
	[ ${#RUN_UNDER[@]} -gt 0 ] || return 0
	local i=0
	while [ "$i" -lt $# ]; do
		case ${RUN_CMD[i]##*/} in
		env | setpriv) i=$((i + 1)) ;;
		*) break ;;
		esac
		while [ "$i" -lt $# ]; do
			case ${RUN_CMD[i]} in
			-u | -C) i=$((i + 2)) ;;
			--) i=$((i + 1)) && break ;;
			-* | *=*) i=$((i + 1)) ;;
			*) break ;;
			esac
		done
	done
	[ "$i" -lt $# ] && is_i386_elf "${RUN_CMD[i]}" || return 0
	RUN_CMD=("${RUN_CMD[@]:0:i}" "${RUN_UNDER[@]}" "${RUN_CMD[@]:i}")
}

# run COMMAND...: runs COMMAND under TIMEOUT with stdin from /dev/null; sets
# st to its exit status, and OUT and ERR to new files in the script's work
# folder $W that hold its stdout and stderr.  Under AOUT2ELF_RUN_UNDER, an
# i386 program (under_prefix) runs under it; the converter never does.
run_n=0
run() {
	run_n=$((run_n + 1))
	OUT=$W/run$run_n.out ERR=$W/run$run_n.err
	st=0
	under_prefix "$@"
	"${TIMEOUT[@]}" "${RUN_CMD[@]}" >"$OUT" 2>"$ERR" </dev/null || st=$?
}

# run_status: "exit status N" of the last run, saying so if it timed out
run_status() {
	local s="exit status $st"
	[ "$st" = 124 ] && [ ${#TIMEOUT[@]} -gt 0 ] && s="$s (timed out after ${RUN_TIMEOUT}s)"
	echo "$s"
}

# show_output: the stdout and stderr of the last run, for a failure report
show_output() {
	show "$OUT" stdout
	show "$ERR" stderr
}

# report_run: the status, stdout and stderr of the last run
report_run() {
	diag "$(run_status)"
	show_output
}

# expect DESCRIPTION STATUS STDOUT: the last run exited STATUS, printed
# exactly STDOUT and nothing on stderr
expect() {
	local desc=$1 want_st=$2 want_out=$3
	if [ "$st" = "$want_st" ] && printf '%s' "$want_out" | cmp -s - "$OUT" && [ ! -s "$ERR" ]; then
		ok "$desc"
	else
		not_ok "$desc" "expected exit status $want_st, stdout $(printf '%q' "$want_out"), empty stderr"
		report_run
	fi
}

# one_line FILE: FILE holds exactly one line, ending in a newline
one_line() {
	[ "$(grep -c '' "$1")" = 1 ] && [ "$(wc -l <"$1")" = 1 ]
}

# has_all FILE STRING...: FILE contains every STRING
has_all() {
	local f=$1 s
	shift
	for s in "$@"; do
		grep -qF -- "$s" "$f" || return 1
	done
}

# expect_fail_line DESCRIPTION STATUS STRING...: the last run exited
# STATUS, printed nothing on stdout and one line on stderr with every STRING
expect_fail_line() {
	local desc=$1 want_st=$2
	shift 2
	if [ "$st" = "$want_st" ] && [ ! -s "$OUT" ] && one_line "$ERR" && has_all "$ERR" "$@"; then
		ok "$desc"
	else
		not_ok "$desc" "expected exit status $want_st, empty stdout, one stderr line containing:" "$@"
		report_run
	fi
}

# expect_refusal DESCRIPTION: the last run was a converted program that
# refused to start: exit 127, one line about vm.mmap_min_addr
expect_refusal() {
	expect_fail_line "$1" 127 vm.mmap_min_addr
}

# convert DESCRIPTION OUTPUT ARG...: "aout2elf ARG... OUTPUT" must succeed
# quietly (nothing on stdout, on stderr at most "aout2elf: warning:" lines,
# which it prints when vm.mmap_min_addr keeps users from running OUTPUT)
# and write an executable OUTPUT, which is then made mode 755; OUTPUT is
# removed when the check fails
convert() {
	local desc=$1 dst=$2
	shift 2
	run "$AOUT2ELF" "$@" "$dst"
	if [ "$st" = 0 ] && [ -f "$dst" ] && [ -x "$dst" ] && [ ! -s "$OUT" ] &&
		! grep -qv '^aout2elf: warning: ' "$ERR"; then
		chmod 755 "$dst"
		ok "$desc"
	else
		not_ok "$desc"
		if [ ! -f "$dst" ]; then
			diag "no output file"
		elif [ ! -x "$dst" ]; then
			diag "output not executable"
		fi
		if [ -s "$OUT" ] || grep -qv '^aout2elf: warning: ' "$ERR"; then
			diag "printed more than warnings"
		fi
		report_run
		rm -f "$dst"
	fi
}

# ---- what this machine lets a converted program map ----

# min_addr: vm.mmap_min_addr (65536 when it cannot be read); rawio: yes
# when this process has CAP_SYS_RAWIO, which may map below it
min_addr=$(cat /proc/sys/vm/mmap_min_addr 2>/dev/null) || min_addr=
case $min_addr in
'' | *[!0-9]*) min_addr=65536 ;;
esac
rawio=no
capeff=$(awk '/^CapEff:/ { print $2 }' /proc/self/status 2>/dev/null)
if [ -n "$capeff" ] && (((16#$capeff >> 17) & 1)); then
	rawio=yes
fi

# can_map ADDRESS: this process may map memory at ADDRESS
can_map() { [ "$rawio" = yes ] || [ "$min_addr" -le "$1" ]; }

# need_addr M: the lowest address a converted program of kind M needs
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
	can_map "$need" && return 1
	echo "needs root (CAP_SYS_RAWIO) or vm.mmap_min_addr <= $need, which is $min_addr"
}

# ---- the start of a script that converts the fixtures ----

# e2e_setup NAME [FOLDER]: TESTDATA, the fixtures (AOUT2ELF_TESTDATA, or
# ./testdata), and LAYOUTS, the layouts of startup among them; the work
# folder W (make_workdir NAME [FOLDER]) and in it B for the converted
# programs, both readable by the unprivileged user; a "#" line saying
# what is tested where; and the end, with a failed check, when there is
# no converter
e2e_setup() {
	TESTDATA=${AOUT2ELF_TESTDATA:-./testdata}
	# testdata/fixtures.mk's FIXTURE_LAYOUTS: brk on a page below 64 KiB,
	# 4 bytes below it, at it, 4 bytes above it; data and text reaching
	# past it
	LAYOUTS="brk-f000 brk-fffc brk-10000 brk-10004 data-10100 text-10100"
	make_workdir "$1" "${2:-}"
	B=$W/bin
	mkdir "$B" && chmod 755 "$B"
	echo "# aout2elf: $AOUT2ELF, fixtures: $TESTDATA, work folder: $W, uid $(id -u), CAP_SYS_RAWIO: $rawio, vm.mmap_min_addr: $min_addr"
	if [ ! -x "$AOUT2ELF" ]; then
		not_ok "the converter $AOUT2ELF exists (build it first, or set AOUT2ELF)"
		finish
	fi
}

# ---- the unprivileged user ----

is_root() { [ "$(id -u)" -eq 0 ]; }

# NOBODY: the command prefix that runs a command as uid NOBODY_UID (needs
# root and setpriv), for run; as_nobody CMD... does the same directly
NOBODY_UID=65534
NOBODY=(setpriv "--reuid=$NOBODY_UID" "--regid=$NOBODY_UID" --clear-groups)
as_nobody() { "${NOBODY[@]}" "$@"; }
can_drop_privileges() { is_root && command -v setpriv >/dev/null 2>&1; }

# ---- where i386 programs run ----

# need_i386 ARG...: a script that runs converted programs calls this first,
# with its own arguments.  Where this kernel cannot execute i386 programs
# (tools/run-in-vm --probe), the whole script runs again in the i386 VM of
# tools/run-in-vm, whose output and exit status become this run's; where
# that VM is not set up either (tools/setup-vm), every check is skipped,
# saying why.  Under AOUT2ELF_RUN_UNDER the script stays here.
need_i386() {
	local vm=${srcdir:-.}/tools/run-in-vm why
	# the emulator of AOUT2ELF_RUN_UNDER runs them, whatever this kernel can
	[ ${#RUN_UNDER[@]} -gt 0 ] && return 0
	"$vm" --probe && return 0
	if why=$("$vm" --check); then
		echo "# this kernel cannot execute i386 programs: $0 runs in the VM of tools/run-in-vm"
		exec "$vm" "$BASH" "$0" "$@"
	fi
	skip "this kernel cannot execute i386 programs, and $why"
	finish
}

# old_libs CORPUS_OLDLINUX DIR: DIR/lib as the 1993 system had it: the
# libraries, and their links made real and absolute (the corpus keeps each
# link as a small file that holds its target)
old_libs() {
	local f b
	mkdir -p "$2/lib"
	for f in "$1"/lib/*; do
		b=${f##*/}
		if [ "$(wc -c <"$f")" -lt 64 ]; then
			ln -s "/lib/$(cat "$f")" "$2/lib/$b"
		else
			cp "$f" "$2/lib/$b"
		fi
	done
}
