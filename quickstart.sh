#!/bin/sh
# One command for a fresh Debian machine: install what aout2elf needs,
# build it, and convert and run the bundled example a.out program.
set -e
cd "$(dirname "$0")"

packages=$(grep -v '^#' tools/debian-packages)
if [ "${AOUT2ELF_SKIP_APT:-}" != 1 ]; then
	# shellcheck disable=SC2086
	tools/apt-install $packages
fi

# where this kernel cannot execute i386 programs, a QEMU VM that can; and
# a VM with an i386 kernel, for make check's tests/e2e-i386.sh
tools/setup-vm --if-needed
tools/setup-vm --i386 ||
	echo "quickstart: no i386-kernel VM (see above); make check will skip tests/e2e-i386.sh" >&2

[ -x configure ] || autoreconf -fi
[ -f Makefile ] || ./configure
make -j"$(nproc)"

# The example: testdata/hello.c, built from source as a QMAGIC a.out.
make testdata/hello.qmagic.aout >/dev/null
./src/aout2elf -f testdata/hello.qmagic.aout hello.elf
echo "converted testdata/hello.qmagic.aout -> hello.elf; running it:"
tools/run-in-vm ./hello.elf
