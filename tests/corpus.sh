#!/bin/bash
# Real a.out programs from ../shared/corpus (see its README): converted,
# they must behave as they did under the a.out loader.  Skips cleanly when
# the corpus is not there (a clone outside the workplace).
. "${srcdir:-.}/tests/lib.sh"

corpus=${AOUT2ELF_CORPUS:-${srcdir:-.}/../shared/corpus}
if [ ! -d "$corpus" ]; then
	echo "no corpus at $corpus"
	skip "corpus not present"
	echo "0 passed, 0 failed, 1 skipped"
	exit 77
fi
corpus=$(cd "$corpus" && pwd)
tmp=$(mktemp -d)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT

# --- aln: QMAGIC, static, stripped (Atari Jaguar linker) ---
check "aln converts quietly" sh -c "'$AOUT2ELF' '$corpus/aln' '$tmp/aln' 2>'$tmp/conv.err' && ! test -s '$tmp/conv.err'"
run_capture "$tmp/aln" "$tmp/aln"
check "aln with no arguments exits 1" test "$(cat "$tmp/aln.rc")" = 1
check "aln prints its banner" grep -qxF '*   ATARI LINKER (Mar 17 1995)    *' "$tmp/aln.out"
check "aln says there is nothing to link" grep -qxF '* No object files to link.' "$tmp/aln.out"
check "aln ends with the prompt, no newline" test "$(tail -c 36 "$tmp/aln.out" | od -An -c | tr -s ' ')" = "$(printf 'Press the <return> key to continue: ' | od -An -c | tr -s ' ')"
check "aln's banner is 7 lines of stars and text" test "$(head -7 "$tmp/aln.out" | grep -c '^\*.*\*$')" = 7
check "aln prints nothing on stderr" test ! -s "$tmp/aln.err"
run_capture "$tmp/alnq" "$tmp/aln" '-?'
check "aln -? prints its usage" sh -c "head -1 '$tmp/alnq.out' | grep -q '^Usage: .*aln \[-options\]'"
check "aln -? lists the options" grep -q '^v: set verbose mode' "$tmp/alnq.out"

# --- hello-syms: QMAGIC, static, with a symbol table ---
check "hello-syms converts" "$AOUT2ELF" "$corpus/hello-syms" "$tmp/hello"
run_capture "$tmp/hello" "$tmp/hello"
check "hello-syms prints its line" test "$(cat "$tmp/hello.out")" = "Hello, brave new world!"
check "hello-syms exits 0" test "$(cat "$tmp/hello.rc")" = 0
nm "$tmp/hello" >"$tmp/hello.nm" 2>&1
for sym in "T _start" "d msg" "T __etext" "t nextchar"; do
	check "nm lists '$sym' of hello-syms" grep -q " $sym\$" "$tmp/hello.nm"
done
check "nm gives _start the a.out value 0x1020" grep -q '^00001020 T _start$' "$tmp/hello.nm"

if can_drop_privileges && [ "$(cat /proc/sys/vm/mmap_min_addr)" -le 4096 ]; then
	run_capture "$tmp/hello-nobody" as_nobody "$tmp/hello"
	check "hello-syms runs as an unprivileged user" test "$(cat "$tmp/hello-nobody.out")" = "Hello, brave new world!"
else
	skip "needs root, setpriv and vm.mmap_min_addr <= 4096"
fi

finish
