#!/bin/bash
# End-to-end test of --shared-libs: a tree of dynamically linked a.out
# programs converted in one run (-r -O), each library written once into
# NEW/.aout2elf-libs/HASH/ and found by the programs relative to their own
# place, so that the tree still runs when moved.
#
# The fixtures: dyn (ld.so's bare names), slsdyn and slackdyn (1993 crt0s,
# libtiny.so.1 and libtwo.so.1; see tests/e2e-oldlibs.sh), QMAGIC.  With
# ../shared/corpus (AOUT2ELF_CORPUS), the oldlinux tree too: gawk runs.
#
# Run from the top build directory, as "make check" does.  Environment:
#   AOUT2ELF          the converter (default ./src/aout2elf)
#   AOUT2ELF_TESTDATA the fixtures (default ./testdata)
#   AOUT2ELF_CORPUS   the corpus (default $srcdir/../shared/corpus)
#
# Prints "ok N - ...", "not ok N - ..." or "ok N # skip ..." per check and
# ends with "N passed, N failed, N skipped".

set -u

. "${srcdir:-.}/tests/lib.sh"
need_i386 "$@"

e2e_setup e2e-sharedlibs
TD=$TESTDATA
missing=
for f in libtiny.so.1 libtwo.so.1 dyn.qmagic.aout slsdyn.qmagic.aout slackdyn.qmagic.aout; do
	[ -f "$TD/$f" ] || missing="$missing $f"
done
if [ -n "$missing" ]; then
	not_ok "the fixtures are built" "missing in $TD:$missing (make check builds them)"
	finish
fi
for f in /lib/libtiny.so.1 /usr/lib/libtiny.so.1 /lib/libtwo.so.1 /usr/lib/libtwo.so.1; do
	if [ -e "$f" ]; then
		skip "this machine has $f, which the programs would find"
		finish
	fi
done

run "$AOUT2ELF" --shared-libs "$TD/dyn.qmagic.aout" "$W/dyn"
check "--shared-libs without -O is a usage error (exit 2)" \
	sh -c "test $st = 2 && grep -q -- '--shared-libs goes with -O' '$ERR' && test ! -e '$W/dyn'"

# the old tree, and its libraries in a folder removed once it is converted
O=$W/old L=$W/lib N=$W/new
mkdir -p "$O/bin" "$O/usr/bin" "$L"
cp "$TD/dyn.qmagic.aout" "$O/bin/dyn"
cp "$TD/slsdyn.qmagic.aout" "$O/usr/bin/slsdyn"
cp "$TD/slackdyn.qmagic.aout" "$O/slackdyn"
cp "$TD/libtiny.so.1" "$TD/libtwo.so.1" "$L/"
chmod -R a+rX "$W"

run "$AOUT2ELF" -q -L "$L" --shared-libs -r -O "$N" "$O"
check "--shared-libs -r -O NEW OLD converts the three programs" \
	sh -c "test $st = 0 && test -x '$N/bin/dyn' && test -x '$N/usr/bin/slsdyn' && test -x '$N/slackdyn'"
libs=$(cd "$N" 2>/dev/null && find .aout2elf-libs -type f | sort)
count() { printf '%s\n' "$libs" | grep -c "/$1\$"; }
check "one copy of each library in NEW/.aout2elf-libs" \
	test "$(count libtiny.so.1):$(count libtwo.so.1):$(printf '%s\n' "$libs" | wc -l)" = 1:1:2
check "... the same bytes, executable (uselib needs x)" \
	sh -c "cmp -s '$N/'.aout2elf-libs/*/libtiny.so.1 '$L/libtiny.so.1' && test -x '$N/'.aout2elf-libs/*/libtwo.so.1"
# smaller than the same program carrying them by at least one of them
# (not by a fixed size, which the stub's own growth would cross)
"$AOUT2ELF" -q -L "$L" "$O/usr/bin/slsdyn" "$W/slsdyn-embedded"
check "... and no library inside the programs" \
	test "$(($(stat -c %s "$N/usr/bin/slsdyn") + $(stat -c %s "$L/libtiny.so.1")))" -le "$(stat -c %s "$W/slsdyn-embedded")"
run "$AOUT2ELF" -L "$L" --shared-libs -r -O "$N" "$O"
check "a rerun is up to date" grep -q ' 0 converted, 3 up-to-date' "$ERR"
rm -f "$N"/.aout2elf-libs/*/libtwo.so.1
run "$AOUT2ELF" -L "$L" --shared-libs -r -O "$N" "$O"
check "a rerun after a copy was removed converts again and writes it back" \
	sh -c "! grep -q ' 0 converted' '$ERR' && test -x '$N'/.aout2elf-libs/*/libtwo.so.1"
run "$AOUT2ELF" -L "$L" -r -O "$W/again" "$O"
run "$AOUT2ELF" -L "$L" --shared-libs -r -O "$W/again" "$O"
check "a rerun with --shared-libs over embedded programs converts them again" \
	grep -q ' 3 converted, 0 up-to-date' "$ERR"
rm -rf "$L"

out_of() { printf '%s: hello from libtiny\n%s: hello from libtwo\n' "$1" "$1"; }
# runs_tree DESC ROOT: the three programs of ROOT print what they should
runs_tree() {
	local reason
	if reason=$(why_not_run qmagic); then
		skip "$1 ($reason)"
		return
	fi
	run env -u AOUT_LIBRARY_PATH -u LD_LIBRARY_PATH "$2/bin/dyn"
	expect "$1: dyn" 0 $'dyn: hello from libtiny\n'
	run env -u AOUT_LIBRARY_PATH -u LD_LIBRARY_PATH "$2/usr/bin/slsdyn"
	expect "$1: slsdyn" 0 "$(out_of slsdyn)"$'\n'
	run sh -c "cd '$2/usr' && exec env -u AOUT_LIBRARY_PATH -u LD_LIBRARY_PATH ../slackdyn"
	expect "$1: slackdyn, started by a relative name" 0 "$(out_of slackdyn)"$'\n'
}
runs_tree "the programs run, their libraries from NEW/.aout2elf-libs" "$N"


M=$W/elsewhere/deeper
mkdir -p "$W/elsewhere"
mv "$N" "$M"
runs_tree "the tree moved elsewhere (mv) still runs" "$M"

if [ -d /proc/self ] && command -v unshare >/dev/null && is_root &&
	! why_not_run qmagic >/dev/null; then
	run unshare -m sh -c "mount -t tmpfs none /proc && exec '$M/usr/bin/slsdyn'"
	if grep -q 'mount' "$ERR"; then
		skip "without /proc (cannot mount over it here)"
	else
		expect "without /proc, found by the name exec was given" 0 "$(out_of slsdyn)"$'\n'
	fi
else
	skip "without /proc (needs root and unshare)"
fi

# ---- the 1993 tree of the corpus ----
corpus=${AOUT2ELF_CORPUS:-${srcdir:-.}/../shared/corpus}
old=$corpus/oldlinux
if [ ! -d "$old" ]; then
	skip "oldlinux with --shared-libs (no corpus at $corpus)"
	finish
fi
R=$W/sys
mkdir -p "$R/bin" "$R/usr/bin"
old_libs "$old" "$R"
cp "$old/cat" "$old/ls" "$R/bin/"
cp "$old/gawk" "$R/usr/bin/"
chmod -R u+w,a+rX "$R"
run "$AOUT2ELF" -q --sysroot "$R" --shared-libs -r -O "$W/sys-elf" "$R"
check "oldlinux: --sysroot R --shared-libs -r -O converts the programs" \
	sh -c "test $st = 0 && test -x '$W/sys-elf/usr/bin/gawk' && test -x '$W/sys-elf/bin/cat'"
check "... libc once in .aout2elf-libs, libm once" \
	test "$(cd "$W/sys-elf" && find .aout2elf-libs -type f -name 'libc.so.4*' | wc -l):$(cd "$W/sys-elf" && find .aout2elf-libs -type f -name 'libm.so.4*' | wc -l)" = 1:1
F=$W/F
printf 'hello world\nfoo bar\nhello\n' >"$F"
chmod a+r "$F"
if can_map 0; then
	run env -u AOUT_LIBRARY_PATH -u LD_LIBRARY_PATH "$W/sys-elf/usr/bin/gawk" '{print $2, NR*3, sin(1)}' "$F"
	expect "oldlinux/gawk runs (libm and libc from .aout2elf-libs)" 0 \
		$'world 3 0.841471\nbar 6 0.841471\n 9 0.841471\n'
else
	skip "oldlinux/gawk (needs CAP_SYS_RAWIO or vm.mmap_min_addr = 0)"
fi
finish
