#!/bin/bash
# A conversion is the same whatever machine made it.  The converter built
# for aarch64 ($AOUT2ELF_AARCH64, made by make check from the same sources
# and this build's stub image) runs under qemu-aarch64 beside this build's
# over every fixture a.out: one by one, plain and with --sysroot (links
# absolute and relative, as an old system's ldconfig made them); in batch
# mode (one qemu start for all) with each option set below; and --info.
# Each output must be the same byte for byte, and so must the exit status,
# stdout and stderr: aarch64 differs from x86-64 in char signedness,
# alignment and the system calls qemu-user answers (no openat2 in qemu 7.2).
#
# Skipped, naming the Debian packages, where configure found no
# aarch64-linux-gnu-gcc, no libelf for arm64 or no qemu-aarch64
# (tools/debian-packages lists them; libelf-dev:arm64 needs
# `dpkg --add-architecture arm64` first).  Runs no i386 program.
#
# Run from the top build directory, as "make check" does.
set -u

. "${srcdir:-.}/tests/lib.sh"

if [ -n "${AOUT2ELF_AARCH64_MISSING:-}" ]; then
	skip "the converter for aarch64 (configure found no cross tools: install the Debian packages $AOUT2ELF_AARCH64_MISSING)"
	finish
fi
if [ -z "${AOUT2ELF_AARCH64:-}" ] || [ -z "${QEMU_AARCH64:-}" ]; then
	skip "the converter for aarch64 (AOUT2ELF_AARCH64 and QEMU_AARCH64 unset: run through make check)"
	finish
fi
# without the arm64 loader in the host's tree (multiarch libc6:arm64),
# the cross toolchain's own (libc6-arm64-cross)
if [ ! -e /lib/ld-linux-aarch64.so.1 ] && [ -z "${QEMU_LD_PREFIX:-}" ]; then
	export QEMU_LD_PREFIX=/usr/aarch64-linux-gnu
fi

e2e_setup cross-aarch64
td=$(cd "$TESTDATA" && pwd)
native=$(cd "$(dirname "$AOUT2ELF")" && pwd)/$(basename "$AOUT2ELF")

# the old system of --sysroot: the fixture libraries under their full
# version names, linked to absolutely and relatively
R=$W/root
mkdir -p "$R/lib"
cp "$td/libtiny.so.1" "$R/lib/libtiny.so.1.2.3"
cp "$td/libtwo.so.1" "$R/lib/libtwo.so.1.0.0"
ln -s /lib/libtiny.so.1.2.3 "$R/lib/libtiny.so.1"
ln -s libtwo.so.1.0.0 "$R/lib/libtwo.so.1"

# conv MACHINE ARG...: that machine's converter (native or aarch64)
# shellcheck disable=SC2317 # called through both
conv() {
	local m=$1
	shift
	if [ "$m" = native ]; then
		"$native" "$@"
	else
		"$QEMU_AARCH64" "$AOUT2ELF_AARCH64" "$@"
	fi
}

if ! conv aarch64 --version >"$W/version" 2>&1; then
	not_ok "the aarch64 converter runs under $QEMU_AARCH64"
	show "$W/version" output
	finish
fi
ok "the aarch64 converter runs under qemu-aarch64: $(head -1 "$W/version")"

# each MACHINE OPTION...: every fixture converted into out/, each one's
# messages and exit status on stdout
# shellcheck disable=SC2317 # called through both
each() {
	local m=$1 f
	shift
	for f in "${aouts[@]}"; do
		conv "$m" -q -f "$@" "$f" "out/${f##*/}" 2>&1
		echo "${f##*/}: $?"
	done
}

# both DESC FUNC ARG...: FUNC MACHINE ARG... for each machine, in a folder
# of its own (so that the messages name the same paths); then the exit
# status, stdout, stderr and every file written under out/ must be alike
compared=0
both() {
	local desc=$1 m f why=() lines
	shift
	for m in native aarch64; do
		rm -rf "${W:?}/$m" && mkdir -p "$W/$m/out"
		(cd "$W/$m" && "$1" "$m" "${@:2}" >stdout 2>stderr; echo $? >status)
	done
	for f in status stdout stderr; do
		if ! diff -u "$W/native/$f" "$W/aarch64/$f" >"$W/diff"; then
			mapfile -t lines < <(sed -n '3,10p' "$W/diff")
			why+=("$f differs (-native +aarch64):" "${lines[@]}")
		fi
	done
	if ! diff -r "$W/native/out" "$W/aarch64/out" >"$W/diff" 2>&1; then
		mapfile -t lines < <(head -5 "$W/diff")
		why+=("the files written differ:" "${lines[@]}")
	fi
	compared=$((compared + $(find "$W/native/out" -type f | wc -l)))
	if [ ${#why[@]} -eq 0 ]; then
		ok "$desc"
	else
		not_ok "$desc" "${why[@]}"
	fi
}

aouts=("$td"/*.aout)
if [ ${#aouts[@]} -lt 80 ]; then
	not_ok "the fixtures are there (make check builds them)" "${#aouts[@]} in $td"
	finish
fi
# one run of the converter per fixture, as from a makefile, and the
# other option sets in batch mode (one qemu start for all the fixtures)
both "every fixture (${#aouts[@]}) converted alike" each -L "$td"
both "every fixture converted alike with --sysroot" each --sysroot "$R"
for opts in "-s" "--no-embed-libs" "--direct --noexecstack --no-randomize" \
	"--sysroot $R --no-embed-libs -s" "--shared-libs --report out/report.json"; do
	# shellcheck disable=SC2086 # the options, a word each
	both "a batch of every fixture alike with ${opts//$R/ROOT}" \
		conv -q -O out/batch -j1 -L "$td" $opts "${aouts[@]}"
done
both "--info alike on every fixture" conv --info -L "$td" "${aouts[@]}"
both "--info alike on every fixture with --sysroot" conv --info --sysroot "$R" "${aouts[@]}"

echo "# $compared files compared"
finish
