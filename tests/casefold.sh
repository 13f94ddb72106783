#!/bin/bash
# Batch mode into a file system that ignores case: "Prog" and "prog" are
# one file there.  The first conversion must stay and the other input
# fail, naming it, at -j1 and -j2 and on a rerun (when both names already
# exist); and one conversion must never take "PROG" for a file other
# than its input "prog".  The file system is exFAT through FUSE (exfat-fuse), which also
# gives each spelling of a name its own inode number, so that only the
# folder's listing tells that two names are one file.
#
# Needs root, a loop device, /dev/fuse, mkfs.exfat and mount.exfat-fuse;
# without any of them every check is skipped, and the script says why.
# Runs no i386 program: nothing here needs the VM.
#
# Run from the top build directory, as "make check" does.

. "${srcdir:-.}/tests/lib.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/aout2elf-casefold.XXXXXX") || exit 1
mnt=$tmp/mnt
loop=
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	if mountpoint -q "$mnt" 2>/dev/null; then
		umount "$mnt" 2>/dev/null || fusermount3 -u "$mnt" 2>/dev/null
	fi
	[ -n "$loop" ] && losetup -d "$loop" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

td=${AOUT2ELF_TESTDATA:-./testdata}
first=$td/hello.qmagic.aout
second=$td/startup.qmagic.aout

why=
if ! is_root; then
	why="not root: no loop device or mount"
elif ! command -v mkfs.exfat >/dev/null || ! command -v mount.exfat-fuse >/dev/null; then
	why="no mkfs.exfat or mount.exfat-fuse (Debian: exfatprogs, exfat-fuse)"
elif [ ! -c /dev/fuse ]; then
	why="no /dev/fuse"
elif [ ! -f "$first" ] || [ ! -f "$second" ]; then
	why="no fixtures in $td (make check builds them)"
else
	mkdir -p "$mnt"
	truncate -s 32M "$tmp/exfat.img"
	if ! mkfs.exfat "$tmp/exfat.img" >/dev/null 2>&1; then
		why="mkfs.exfat failed"
	elif ! loop=$(losetup -f --show "$tmp/exfat.img" 2>/dev/null); then
		loop=''
		why="no loop device"
	elif ! mount.exfat-fuse "$loop" "$mnt" >/dev/null 2>&1; then
		why="mount.exfat-fuse failed"
	elif ! touch "$mnt/Case" || [ ! -e "$mnt/case" ]; then
		why="the exFAT mount tells case apart"
	fi
fi
if [ -n "$why" ]; then
	skip "a file system that ignores case: $why"
	finish
fi

mkdir -p "$tmp/in"
cp "$first" "$tmp/in/Prog"
cp "$second" "$tmp/in/prog"
# exFAT keeps whole seconds: an output made in the second the inputs were
# must not look older than them on the rerun
touch -d '1 hour ago' "$tmp/in/Prog" "$tmp/in/prog"
# what each input becomes, converted alone on this side
"$AOUT2ELF" -q "$tmp/in/Prog" "$tmp/Prog.elf"
"$AOUT2ELF" -q "$tmp/in/prog" "$tmp/prog.elf"

reason="under another name of the same file (a linked directory, or a file system that ignores case)"
for j in 1 2; do
	out=$mnt/out$j
	run_capture "$tmp/j$j" "$AOUT2ELF" -q -j $j -r -O "$out" "$tmp/in"
	check "-j$j, Prog and prog into one case-blind folder: exit 1, one line" sh -c "test \$(cat '$tmp/j$j.rc') = 1 && test \$(wc -l < '$tmp/j$j.err') = 1"
	if grep -qx "aout2elf: $tmp/in/prog: would overwrite $out/prog, just written for $tmp/in/Prog $reason" "$tmp/j$j.err"; then
		kept=Prog
	elif grep -qx "aout2elf: $tmp/in/Prog: would overwrite $out/Prog, just written for $tmp/in/prog $reason" "$tmp/j$j.err"; then
		kept=prog
	else
		kept=
	fi
	check "-j$j: the line names the input whose conversion stays" test -n "$kept"
	check "-j$j: the folder holds one file, that conversion" sh -c "test \"\$(ls '$out')\" = '$kept' && cmp -s '$tmp/$kept.elf' '$out/prog'"
done
check "-j1: the first input in name order is the one converted" cmp -s "$tmp/Prog.elf" "$mnt/out1/Prog"
# the rerun: both spellings exist now, each with its own inode number
run_capture "$tmp/re" "$AOUT2ELF" -j 2 -r -O "$mnt/out1" "$tmp/in"
check "a rerun: Prog up-to-date, prog still fails, naming it" sh -c "test \$(cat '$tmp/re.rc') = 1 && grep -qx 'aout2elf: $tmp/in/prog: would overwrite $mnt/out1/prog, which is also $mnt/out1/Prog, the output of $tmp/in/Prog (a linked directory, or a file system that ignores case)' '$tmp/re.err' && tail -1 '$tmp/re.err' | grep -q '^aout2elf: 0 converted, 1 up-to-date, 0 skipped, 1 failed, '"
check "... and the file is still Prog's" cmp -s "$tmp/Prog.elf" "$mnt/out1/Prog"
# one conversion whose OUTPUT is its INPUT spelt otherwise: refused, -f
# or not, whichever spelling the file was made with
cp "$first" "$mnt/prog"
for spellings in "prog PROG" "PROG prog" "Prog PROG"; do
	# shellcheck disable=SC2086 # the two words are the two names
	set -- $spellings
	run_capture "$tmp/sp" "$AOUT2ELF" -f "$mnt/$1" "$mnt/$2"
	check "aout2elf -f $1 $2, one file: exit 1, one line, the input intact" sh -c "test \$(cat '$tmp/sp.rc') = 1 && test \"\$(cat '$tmp/sp.err')\" = 'aout2elf: $mnt/$2: is the input file; refusing to overwrite it' && cmp -s '$first' '$mnt/prog' && test \"\$(ls '$mnt' | grep -ci '^prog\$')\" = 1"
done
# -O naming the input folder spelt otherwise: its files are the inputs
mkdir -p "$mnt/arch/sub"
cp "$first" "$mnt/arch/sub/prog"
run_capture "$tmp/fo" "$AOUT2ELF" -r -O "$mnt/ARCH" "$mnt/arch"
check "-r -O ARCH arch, one folder: exit 1, the input refused as output, intact" sh -c "test \$(cat '$tmp/fo.rc') = 1 && grep -qx 'aout2elf: $mnt/ARCH/sub/prog: is the input file; refusing to overwrite it' '$tmp/fo.err' && cmp -s '$first' '$mnt/arch/sub/prog'"
run_capture "$tmp/fo2" "$AOUT2ELF" -f "$mnt/arch/sub/prog" "$mnt/Arch/../ARCH/SUB/Prog"
check "aout2elf -f arch/sub/prog Arch/../ARCH/SUB/Prog: refused, intact" sh -c "test \$(cat '$tmp/fo2.rc') = 1 && cmp -s '$first' '$mnt/arch/sub/prog'"
finish
