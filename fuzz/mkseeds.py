#!/usr/bin/env python3
"""Writes the hand-made edge seeds of the fuzz corpus (fuzz/corpus/*/edge-*).

    python3 fuzz/mkseeds.py fuzz/corpus/convert fuzz/corpus/info

Each seed is a small Linux i386 a.out image (or an almost-one) aimed at one
edge of src/aout.c, src/plan.c, src/libs.c or src/elfwrite.c.  The other
seeds (fixture copies, ../shared/corpus/hello-syms and pwd.exe) are plain
copies; see fuzz/README.
"""
import os
import struct
import sys

OMAGIC, NMAGIC, ZMAGIC, QMAGIC = 0o407, 0o410, 0o413, 0o314
M_386 = 100
N_UNDF, N_EXT, N_ABS, N_TEXT, N_DATA, N_BSS = 0, 1, 2, 4, 6, 8
N_INDR, N_WARNING, N_FN, N_SO = 0x0a, 0x1e, 0x1f, 0x64


def header(magic, text, data=0, bss=0, syms=0, entry=0, trsize=0, drsize=0,
           machine=M_386, flags=0):
    info = magic | machine << 16 | flags << 24
    return struct.pack("<8I", info, text, data, bss, syms, entry, trsize, drsize)


def symtab(syms):
    """syms: (name or None, type, value) -> (nlist bytes, string table)"""
    strings = b""
    nl = b""
    for name, typ, value in syms:
        if name is None:
            strx = 0
        else:
            strx = 4 + len(strings)
            strings += name + b"\0"
        nl += struct.pack("<IBBhI", strx, typ, 0, 0, value)
    return nl, struct.pack("<I", 4 + len(strings)) + strings


def image(magic, text, data=b"", bss=0, entry=None, syms=None, **kw):
    """text excludes the header for QMAGIC; returns the whole file"""
    nl, strtab = symtab(syms) if syms else (b"", b"")
    if magic == QMAGIC:
        a_text = 32 + len(text)
        if entry is None:
            entry = 0x1020
    else:
        a_text = len(text)
        if entry is None:
            entry = 0
    h = header(magic, a_text, len(data), bss, len(nl), entry, **kw)
    if magic == ZMAGIC:
        h = h.ljust(1024, b"\0")
    return h + text + data + nl + strtab


def libentry_data(base, name=b"libc.so.4", tools=b"DLL Jump 4.5pl26",
                  jump=0x60000000, version=(4 << 16) | 702, extra=b""):
    """data holding one struct libentry and its strings, at address base"""
    name_at = base + 16
    tools_at = name_at + len(name) + 1
    ent = struct.pack("<4I", name_at, tools_at, jump, version)
    return ent + name + b"\0" + tools + b"\0" + extra


SEEDS = {}

# the smallest executable of each kind
SEEDS["edge-omagic-min"] = image(OMAGIC, b"\xcc\xcc\xcc\xcc")
SEEDS["edge-nmagic-min"] = image(NMAGIC, b"\x90" * 8, b"DATA")
SEEDS["edge-qmagic-header-only"] = image(QMAGIC, b"", entry=0x1000)
SEEDS["edge-zmagic-min"] = image(ZMAGIC, b"\x90" * 4, b"dd")
# machine 0 (M_OLD), flags set
SEEDS["edge-omagic-mold-flags"] = image(OMAGIC, b"\x90" * 4, machine=0,
                                        flags=0x80)
# bss: inside the last data page, across pages, right up to IMAGE_LIMIT
SEEDS["edge-omagic-bss-in-page"] = image(OMAGIC, b"\x90" * 4, b"x" * 9, bss=100)
SEEDS["edge-nmagic-bss-pages"] = image(NMAGIC, b"\x90" * 4, b"y" * 5,
                                       bss=3 * 4096 + 7)
SEEDS["edge-qmagic-bss-limit"] = image(QMAGIC, b"\x90" * 4, b"z" * 4,
                                       bss=0x80000000 - 0x2004)
SEEDS["edge-qmagic-bss-over"] = image(QMAGIC, b"\x90" * 4, b"z" * 4,
                                      bss=0x80000000 - 0x2003)
SEEDS["edge-zmagic-entry-last"] = image(ZMAGIC, b"\x90" * 6, entry=5)
# symbols: every type the writer maps, stabs, N_FN, names at the edges
SEEDS["edge-omagic-syms"] = image(
    OMAGIC, b"\x90" * 8, b"dddd", bss=8,
    syms=[(b"_start", N_TEXT | N_EXT, 0), (b"local", N_TEXT, 4),
          (b"d", N_DATA, 8), (b"b", N_BSS | N_EXT, 12),
          (b"abs", N_ABS | N_EXT, 0x1234), (b"undef", N_UNDF | N_EXT, 0),
          (b"comm", N_UNDF | N_EXT, 16), (b"ind", N_INDR | N_EXT, 0),
          (b"warn", N_WARNING, 0), (b"file.o", N_FN, 0),
          (None, N_TEXT, 0), (b"", N_DATA, 0),
          (b"x.c", N_SO, 0), (b"stab2", 0x24, 4)])
SEEDS["edge-qmagic-stabs"] = image(
    QMAGIC, b"\x90" * 4, syms=[(b"a.c", N_SO, 0x1020), (None, 0x44, 3)])
# a string table that is only its size word, and symbols without names
nl = struct.pack("<IBBhI", 0, N_TEXT, 0, 0, 0) * 2
SEEDS["edge-omagic-strtab-empty"] = (header(OMAGIC, 4, 0, 0, len(nl), 0) +
                                     b"\x90" * 4 + nl + struct.pack("<I", 4))
# dynamically linked: a libentry in data, "/lib/ld.so" for libs_wants_ldso
text = b"\x90" * 12 + b"/lib/ld.so\0\0"
SEEDS["edge-omagic-libentry"] = image(
    OMAGIC, text, libentry_data(len(text)))
qtext = b"\x90" * (4096 - 32)
SEEDS["edge-qmagic-libentry"] = image(
    QMAGIC, qtext,
    libentry_data(0x2000, extra=b"/lib/ld.so\0"), bss=64)
two = libentry_data(0x2000 + 0, name=b"libm.so.4", jump=0x600df000,
                    version=(4 << 16) | 627)
two = two.ljust((len(two) + 3) & ~3, b"\0")
two += libentry_data(0x2000 + len(two))
SEEDS["edge-qmagic-two-libs"] = image(QMAGIC, qtext, two)
# a library: QMAGIC, entry at the library's page, jump table version word
lib_text = struct.pack("<I", (4 << 16) | 702).ljust(64, b"\xc3")
SEEDS["edge-qmagic-library"] = image(QMAGIC, lib_text, b"libdata",
                                     entry=0x60000000, bss=4096)
SEEDS["edge-zmagic-library"] = image(ZMAGIC, lib_text, b"libdata",
                                     entry=0x5ffff000)
# refusals: each a different reason
SEEDS["edge-truncated-header"] = header(OMAGIC, 4)[:20]
SEEDS["edge-truncated-text"] = header(NMAGIC, 64) + b"\x90" * 10
SEEDS["edge-reloc"] = image(OMAGIC, b"\x90" * 4, trsize=8)
SEEDS["edge-machine"] = image(OMAGIC, b"\x90" * 4, machine=7)
SEEDS["edge-entry-outside"] = image(OMAGIC, b"\x90" * 4, entry=4)
SEEDS["edge-syms-odd"] = header(OMAGIC, 4, 0, 0, 13, 0) + b"\x90" * 4 + b"\0" * 17
SEEDS["edge-strx-outside"] = (header(OMAGIC, 4, 0, 0, 12, 0) + b"\x90" * 4 +
                              struct.pack("<IBBhI", 9, N_TEXT, 0, 0, 0) +
                              struct.pack("<I", 8) + b"abcd")
SEEDS["edge-elf"] = b"\x7fELF\x01\x01\x01" + b"\0" * 9


def main():
    dirs = sys.argv[1:] or ["fuzz/corpus/convert", "fuzz/corpus/info"]
    for d in dirs:
        os.makedirs(d, exist_ok=True)
        for name, data in SEEDS.items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
    print(f"{len(SEEDS)} seeds into {' '.join(dirs)}")


if __name__ == "__main__":
    main()
