#!/bin/sh
# One command for a fresh Debian machine: install what building aout2elf
# and its example need (the build set of tools/debian-packages, and QEMU
# where this kernel cannot execute i386 programs), build it, and convert
# and run the bundled example a.out program.  What the tests need besides:
# tools/setup-tests.
set -e
cd "$(dirname "$0")"

packages=$(awk '/^# set: / { set = $3; next } !/^#/ && set == "build"' tools/debian-packages)
if [ "${AOUT2ELF_SKIP_APT:-}" != 1 ]; then
	# shellcheck disable=SC2086 # one package a word
	echo "quickstart: installing the Debian packages to build aout2elf:" $packages
	# shellcheck disable=SC2086
	tools/apt-install $packages
fi

# where this kernel cannot execute i386 programs, a QEMU VM that can, for
# the example
tools/setup-vm --if-needed

[ -x configure ] || autoreconf -fi
[ -f Makefile ] || ./configure
make -j"$(nproc)"

# The example: testdata/hello.c, built from source as a QMAGIC a.out.
make testdata/hello.qmagic.aout >/dev/null
./src/aout2elf -f testdata/hello.qmagic.aout hello.elf
echo "converted testdata/hello.qmagic.aout -> hello.elf; running it:"
tools/run-in-vm ./hello.elf
