#!/bin/bash
# The file capability: an ordinary user runs a converted program whose
# image lies below vm.mmap_min_addr once the program has cap_sys_rawio+ep
# (aout2elf --setcap, or setcap), and the a.out code then runs with no
# capability left (CapPrm, CapEff, CapInh, CapAmb all 0), dumpable and
# open to its user's ptrace, and without the library variables of the
# environment (AT_SECURE); with --keep-rawio it keeps CAP_SYS_RAWIO alone.
# Without the capability it fails with one line naming both remedies.
#
# Stock distributions set vm.mmap_min_addr to 65536; this machine's value
# is never changed.  The script runs itself again in a VM of
# tools/run-in-vm that boots an x86-64 kernel over this machine's files
# (the default one, or one that tools/setup-vm --suite SUITE or
# --aout-kernel set up under AOUT2ELF_VM_DIR; not the i386 VM, which has
# busybox but neither setcap nor setpriv), sets 65536 there, and keeps
# the programs given capabilities on a tmpfs of its own: the shared root
# is 9p, which keeps no security.capability.  Without such a VM, the
# checks run here, for the kinds whose address lies below this machine's
# value.  Needs root, setcap and setpriv; skips, saying why, without.
#
# Environment as for e2e-static.sh (AOUT2ELF, AOUT2ELF_TESTDATA).
set -u

. "${srcdir:-.}/tests/lib.sh"

# ---- where: a VM whose vm.mmap_min_addr this script may set ----
if [ -z "${AOUT2ELF_IN_VM:-}" ]; then
	vmbase=${AOUT2ELF_VM_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/aout2elf-vm}
	# Debian's kernels first; the a.out kernel's tmpfs may keep no xattrs
	vms=("$vmbase")
	for d in "$vmbase"/*/; do
		case $d in "$vmbase/i386/" | "$vmbase/aout/") ;; *) vms+=("${d%/}") ;; esac
	done
	vms+=("$vmbase/aout")
	for d in "${vms[@]}"; do
		if [ -r "$d/vmlinuz" ] && [ -r "$d/initrd.cpio" ]; then
			echo "# vm.mmap_min_addr is set to 65536 in the VM of $d"
			exec env AOUT2ELF_VM_DIR="$d" AOUT2ELF_VM_ALWAYS=1 \
				"${srcdir:-.}/tools/run-in-vm" "$BASH" "$0" "$@"
		fi
	done
	echo "# no x86-64 VM (tools/setup-vm): vm.mmap_min_addr stays as it is here"
fi

if ! is_root; then
	skip "needs root, to give programs capabilities and run them as uid $NOBODY_UID"
	finish
fi
for t in setcap getcap setpriv; do
	if ! command -v "$t" >/dev/null 2>&1; then
		skip "needs $t (Debian: libcap2-bin, util-linux)"
		finish
	fi
done

if [ -n "${AOUT2ELF_IN_VM:-}" ]; then
	if ! echo 65536 >/proc/sys/vm/mmap_min_addr; then
		skip "cannot set vm.mmap_min_addr in the VM"
		finish
	fi
	min_addr=65536
fi
e2e_setup e2e-caps
C=$B
if [ -n "${AOUT2ELF_IN_VM:-}" ]; then
	# the files given capabilities: on a tmpfs, not the shared 9p root
	C=$W/fs
	if ! mkdir "$C" || ! mount -t tmpfs -o mode=755 aout2elf-caps "$C"; then
		not_ok "mount a tmpfs at $C in the VM"
		finish
	fi
	trap 'umount "$C"; rm -rf "$W"' EXIT
fi
echo "# vm.mmap_min_addr: $min_addr, programs given capabilities in $C ($(stat -f -c %T "$C"))"

printf 'x' >"$C/probe"
if ! why=$(setcap cap_sys_rawio+ep "$C/probe" 2>&1); then
	skip "the file system of $C keeps no file capabilities: $why"
	finish
fi
rm -f "$C/probe"

# the two lowest addresses there are: 0 (ZMAGIC; OMAGIC and NMAGIC start
# there too) and 4096 (QMAGIC)
KINDS=
for M in zmagic qmagic; do
	if [ "$(need_addr "$M")" -lt "$min_addr" ]; then
		KINDS="$KINDS $M"
	else
		skip "$M: needs address $(need_addr "$M"), not below vm.mmap_min_addr ($min_addr) here"
	fi
done

hello=$'hello from a.out\n'

# caps_are FILE WANT: FILE's CapInh CapPrm CapEff CapAmb, in that order,
# are WANT (four hex words, as /proc/PID/status has them)
caps_are() {
	[ "$(awk '/^Cap(Inh|Prm|Eff|Amb):/ { printf "%s%s", sep, $2; sep = " " }' "$1")" = "$2" ]
}
NONE="0000000000000000 0000000000000000 0000000000000000 0000000000000000"
RAWIO="0000000000000000 0000000000020000 0000000000020000 0000000000000000"

# ioperm_is FILE ERR: selfstatus's "ioperm: ERR" line, or ENOSYS (-38)
# where the kernel has no ioperm (CONFIG_X86_IOPL_IOPERM off)
ioperm_is() {
	grep -qx -e "ioperm: $2" -e "ioperm: -38" "$1"
}

# running PROG: runs "PROG wait" as uid 65534 (in the background, pid
# PID, output $W/running.out, input a FIFO) until it has printed its status; 1 if it
# did not within 10 s.  stopped ends it.
running() {
	rm -f "$C/in" "$W/running.out"
	mkfifo -m 644 "$C/in" # not on 9p, which makes none
	"${NOBODY[@]}" "$@" wait <"$C/in" >"$W/running.out" 2>&1 &
	PID=$!
	exec 3>"$C/in"
	for _ in $(seq 100); do
		grep -q '^CapAmb:' "$W/running.out" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
stopped() {
	exec 3>&-
	wait "$PID"
}

# nobody_reads_environ: uid 65534 may read /proc/PID/environ, which needs
# what ptrace needs: dumpable, and no capability its reader lacks
nobody_reads_environ() { as_nobody cat "/proc/$PID/environ" >/dev/null 2>&1; }

for M in $KINDS; do
	need=$(need_addr "$M")
	convert "$M: aout2elf converts selfstatus" "$C/selfstatus.$M" -q "$TESTDATA/selfstatus.$M.aout"

	desc="$M: without the capability, uid $NOBODY_UID is refused in one line naming both remedies"
	run "${NOBODY[@]}" "$C/selfstatus.$M"
	expect_fail_line "$desc" 127 "vm.mmap_min_addr ($min_addr)" \
		"setcap cap_sys_rawio+ep $C/selfstatus.$M" "sysctl -w vm.mmap_min_addr=$need"

	desc="$M: aout2elf warns at conversion, naming both remedies"
	run "$AOUT2ELF" "$TESTDATA/hello.$M.aout" "$C/hello.$M"
	if [ "$st" = 0 ] && [ ! -s "$OUT" ] && one_line "$ERR" &&
		has_all "$ERR" "aout2elf: warning: $C/hello.$M: needs address" "($min_addr)" \
			"for it, 'setcap cap_sys_rawio+ep $C/hello.$M' (or --setcap)" \
			"'sysctl -w vm.mmap_min_addr=$need'"; then
		ok "$desc"
	else
		not_ok "$desc"
		report_run
	fi

	convert "$M: aout2elf --setcap converts hello" "$C/hello-cap.$M" -q --setcap \
		"$TESTDATA/hello.$M.aout"
	check "$M: --setcap gave hello cap_sys_rawio=ep" \
		grep -q 'cap_sys_rawio=ep$' <(getcap "$C/hello-cap.$M")
	run "${NOBODY[@]}" "$C/hello-cap.$M" world
	expect "$M: uid $NOBODY_UID runs hello given the capability, output unchanged" 0 \
		"${hello}world"$'\n'
	# as in a container started without --cap-add SYS_RAWIO (the man page)
	desc="$M: without CAP_SYS_RAWIO in the bounding set, exec of hello given the capability fails with EPERM"
	run "${NOBODY[@]}" --bounding-set=-sys_rawio "$C/hello-cap.$M"
	if [ "$st" != 0 ] && [ ! -s "$OUT" ] && grep -q 'Operation not permitted' "$ERR"; then
		ok "$desc"
	else
		not_ok "$desc"
		report_run
	fi

	convert "$M: aout2elf --setcap converts selfstatus" "$C/selfstatus-cap.$M" -q --setcap \
		"$TESTDATA/selfstatus.$M.aout"
	desc="$M: the a.out code runs with no capability: CapInh CapPrm CapEff CapAmb all 0, ioperm refused"
	run "${NOBODY[@]}" "$C/selfstatus-cap.$M" ioperm
	echo "# $M --setcap: $(grep -E '^Cap(Prm|Eff)|^ioperm' "$OUT" | tr '\t\n' '  ')"
	if [ "$st" = 0 ] && caps_are "$OUT" "$NONE" && ioperm_is "$OUT" -1; then
		ok "$desc"
	else
		not_ok "$desc"
		diag "$(run_status)" "$(grep -E '^Cap|^ioperm' "$OUT" | tr '\t\n' '  ')"
		show "$ERR" stderr
	fi

	desc="$M: once running, it is dumpable and open to uid $NOBODY_UID (/proc/PID/environ, /proc/PID owned by it)"
	if running "$C/selfstatus-cap.$M"; then
		owner=$(stat -c %u "/proc/$PID")
		if nobody_reads_environ && [ "$owner" = "$NOBODY_UID" ] && caps_are "/proc/$PID/status" "$NONE"; then
			ok "$desc"
		else
			not_ok "$desc" "/proc/$PID owned by uid $owner; $(grep -E '^Cap' "/proc/$PID/status" | tr '\t\n' '  ')"
		fi
	else
		not_ok "$desc" "it printed no status within 10 s"
		show "$W/running.out" output
	fi
	stopped

	convert "$M: aout2elf --setcap --keep-rawio converts selfstatus" "$C/selfstatus-keep.$M" \
		-q --setcap --keep-rawio "$TESTDATA/selfstatus.$M.aout"
	desc="$M: --keep-rawio: CapPrm and CapEff keep CAP_SYS_RAWIO (0x20000) alone, ioperm allowed"
	run "${NOBODY[@]}" "$C/selfstatus-keep.$M" ioperm
	echo "# $M --setcap --keep-rawio: $(grep -E '^Cap(Prm|Eff)|^ioperm' "$OUT" | tr '\t\n' '  ')"
	if [ "$st" = 0 ] && caps_are "$OUT" "$RAWIO" && ioperm_is "$OUT" 0; then
		ok "$desc"
	else
		not_ok "$desc"
		diag "$(run_status)" "$(grep -E '^Cap|^ioperm' "$OUT" | tr '\t\n' '  ')"
		show "$ERR" stderr
	fi
	desc="$M: --keep-rawio: uid $NOBODY_UID without the capability cannot look into it"
	if running "$C/selfstatus-keep.$M"; then
		if ! nobody_reads_environ; then
			ok "$desc"
		else
			not_ok "$desc" "uid $NOBODY_UID read /proc/$PID/environ"
		fi
	else
		not_ok "$desc" "it printed no status within 10 s"
		show "$W/running.out" output
	fi
	stopped

	# setcap(8) itself, and an embedded library loaded by the stub's
	# uselib after the drop; AOUT_LIBRARY_DEBUG is not heeded (AT_SECURE)
	convert "$M: aout2elf converts dyn" "$C/dyn.$M" -q -L "$TESTDATA" "$TESTDATA/dyn.$M.aout"
	check "$M: setcap cap_sys_rawio+ep dyn" setcap cap_sys_rawio+ep "$C/dyn.$M"
	run "${NOBODY[@]}" env AOUT_LIBRARY_DEBUG=1 "$C/dyn.$M"
	expect "$M: uid $NOBODY_UID runs dyn given the capability, AOUT_LIBRARY_DEBUG unheeded" 0 \
		$'dyn: hello from libtiny\n'
done

# ---- the converter's refusals ----

# refused_leaving_nothing DESC DIR WHY: the last run was aout2elf --setcap
# writing DIR/hello, refused with one line "aout2elf: DIR/hello: cannot
# give it CAP_SYS_RAWIO (--setcap): WHY", exit 1, and DIR is empty
refused_leaving_nothing() {
	local desc="$1: one line, exit 1, no file left" dir=$2
	if [ "$st" = 1 ] && [ ! -s "$OUT" ] && one_line "$ERR" &&
		has_all "$ERR" "aout2elf: $dir/hello: cannot give it CAP_SYS_RAWIO (--setcap): $3" &&
		[ -z "$(ls -A "$dir")" ]; then
		ok "$desc"
	else
		not_ok "$desc" "left in $dir: $(ls -A "$dir")"
		report_run
	fi
}
M=${KINDS##* }
if [ -n "$M" ]; then
	mkdir -m 777 "$C/open"
	run "${NOBODY[@]}" "$AOUT2ELF" --setcap "$TESTDATA/hello.$M.aout" "$C/open/hello"
	refused_leaving_nothing "aout2elf --setcap as uid $NOBODY_UID" "$C/open" \
		"Operation not permitted; only root (CAP_SETFCAP) can"
	desc="aout2elf --setcap onto 9p (no file capabilities there)"
	if [ "$C" = "$B" ]; then
		skip "$desc (not in the VM)"
	else
		mkdir "$B/nine"
		run "$AOUT2ELF" --setcap "$TESTDATA/hello.$M.aout" "$B/nine/hello"
		refused_leaving_nothing "$desc" "$B/nine" "its file system keeps no file capabilities"
	fi
	desc="aout2elf --setcap -O DIR: the batch's outputs get the capability"
	run "$AOUT2ELF" -q --setcap -O "$C/batch" "$TESTDATA/hello.$M.aout"
	if [ "$st" = 0 ] && getcap "$C/batch/hello.$M.aout" | grep -q 'cap_sys_rawio=ep$'; then
		ok "$desc"
	else
		not_ok "$desc" "$(getcap "$C/batch/hello.$M.aout" 2>&1)"
		report_run
	fi
	desc="aout2elf --setcap --exec is a usage error"
	run "$AOUT2ELF" --setcap --exec "$TESTDATA/hello.$M.aout"
	if [ "$st" = 2 ] && [ ! -s "$OUT" ] &&
		grep -qx "aout2elf: --setcap goes with an OUTPUT file, not --exec or --info" "$ERR"; then
		ok "$desc"
	else
		not_ok "$desc"
		report_run
	fi
fi

finish
