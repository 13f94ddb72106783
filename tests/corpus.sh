#!/bin/bash
# Real a.out programs from ../shared/corpus (see its README): converted,
# they must behave as they did under the a.out loader.  Skips cleanly when
# the corpus is not there (a clone outside the workplace).
. "${srcdir:-.}/tests/lib.sh"

corpus=${AOUT2ELF_CORPUS:-${srcdir:-.}/../shared/corpus}
if [ ! -d "$corpus" ]; then
	echo "no corpus at $corpus"
	skip "corpus not present"
	finish
fi
need_i386 "$@"
corpus=$(cd "$corpus" && pwd)
e2e_setup corpus

# --- aln: QMAGIC, static, stripped (Atari Jaguar linker) ---
check "aln converts quietly" sh -c "'$AOUT2ELF' '$corpus/aln' '$W/aln' 2>'$W/conv.err' && ! test -s '$W/conv.err'"
run_capture "$W/aln" "$W/aln"
check "aln with no arguments exits 1" test "$(cat "$W/aln.rc")" = 1
check "aln prints its banner" grep -qxF '*   ATARI LINKER (Mar 17 1995)    *' "$W/aln.out"
check "aln says there is nothing to link" grep -qxF '* No object files to link.' "$W/aln.out"
check "aln ends with the prompt, no newline" test "$(tail -c 36 "$W/aln.out" | od -An -c | tr -s ' ')" = "$(printf 'Press the <return> key to continue: ' | od -An -c | tr -s ' ')"
check "aln's banner is 7 lines of stars and text" test "$(head -7 "$W/aln.out" | grep -c '^\*.*\*$')" = 7
check "aln prints nothing on stderr" test ! -s "$W/aln.err"
run_capture "$W/alnq" "$W/aln" '-?'
check "aln -? prints its usage" sh -c "head -1 '$W/alnq.out' | grep -q '^Usage: .*aln \[-options\]'"
check "aln -? lists the options" grep -q '^v: set verbose mode' "$W/alnq.out"

# --- hello-syms: QMAGIC, static, with a symbol table ---
check "hello-syms converts" "$AOUT2ELF" "$corpus/hello-syms" "$W/hello"
run_capture "$W/hello" "$W/hello"
check "hello-syms prints its line" test "$(cat "$W/hello.out")" = "Hello, brave new world!"
check "hello-syms exits 0" test "$(cat "$W/hello.rc")" = 0
nm "$W/hello" >"$W/hello.nm" 2>&1
for sym in "T _start" "d msg" "T __etext" "t nextchar"; do
	check "nm lists '$sym' of hello-syms" grep -q " $sym\$" "$W/hello.nm"
done
check "nm gives _start the a.out value 0x1020" grep -q '^00001020 T _start$' "$W/hello.nm"

if can_drop_privileges && [ "$min_addr" -le 4096 ]; then
	run_capture "$W/hello-nobody" as_nobody "$W/hello"
	check "hello-syms runs as an unprivileged user" test "$(cat "$W/hello-nobody.out")" = "Hello, brave new world!"
else
	skip "needs root, setpriv and vm.mmap_min_addr <= 4096"
fi

# ---- dynamically linked: ld.so 1.x, libc.so.4, libm.so.4 from lib/ ----
# each run may take 60 seconds (AOUT2ELF_TIMEOUT): gforth is not quick
set_timeout "${AOUT2ELF_TIMEOUT:-60}"

mkdir "$W/home"

# gforth_check DESCRIPTION PROGRAM [VAR=VALUE...]: PROGRAM runs the Forth
# line '2 3 + . cr bye' with the nonrelocatable image and prints exactly
# "5 " and a newline, nothing on stderr
gforth_check() {
	local desc=$1 prog=$2
	shift 2
	if ! can_map 4096; then
		skip "$desc (needs CAP_SYS_RAWIO or vm.mmap_min_addr <= 4096)"
		return
	fi
	# HOME: gforth keeps $HOME/.gforth-history
	run env -u AOUT_LIBRARY_PATH HOME="$W/home" "$@" "$prog" \
		-i "$corpus/gforth-0.2.1.fi" -e '2 3 + . cr bye'
	expect "$desc" 0 $'5 \n'
}

check "gforth-0.2.1 converts with -L lib" \
	"$AOUT2ELF" -L "$corpus/lib" "$corpus/gforth-0.2.1" "$W/gforth"
gforth_check "gforth: 2 3 + . prints '5 ' (libraries embedded)" "$W/gforth"

# gforth_says LINE STATUS TEXT: the converted gforth runs the Forth LINE,
# exits with STATUS and prints TEXT (a fixed string) on stdout, nothing on
# stderr.  What the original printed under Linux 5.10's a.out loader
# (tests/aout-kernel.sh compares the two there): errors caught by gforth's
# SIGFPE and SIGSEGV handlers, addresses from malloc and the dictionary,
# which follow from the exact brk, files, floats.
gforth_says() {
	local line=$1 want_st=$2 text=$3 desc="gforth -e '$1' exits $2 and prints '$3'"
	if ! can_map 4096; then
		skip "$desc (needs CAP_SYS_RAWIO or vm.mmap_min_addr <= 4096)"
		return
	fi
	run env -u AOUT_LIBRARY_PATH HOME="$W/home" "$W/gforth" \
		-i "$corpus/gforth-0.2.1.fi" -e "$line"
	if [ "$st" = "$want_st" ] && grep -qF -- "$text" "$OUT" && [ ! -s "$ERR" ]; then
		ok "$desc"
	else
		not_ok "$desc" "$(run_status)"
		report_run
	fi
}
gforth_says '1 0 / . cr bye' 55 'Error: Floating-point unidentified fault'
gforth_says '0 @ . cr bye' 9 'Error: Invalid memory address'
gforth_says 'drop bye' 4 'Error: Stack underflow'
gforth_says ': g 1 + recurse ; 0 g bye' 9 'Error: Invalid memory address'
gforth_says '1000 allocate throw . 100000000 allocate throw . cr bye' 0 '475136 483328 '
gforth_says 'here . sp@ . rp@ . cr bye' 0 '150240 348208 397212 '
ff=$W/home/ff
gforth_says "s\" $ff\" r/w create-file throw dup s\" hello\" rot write-file throw close-file throw s\" $ff\" r/o open-file throw pad 10 rot read-file throw pad swap type cr bye" 0 hello
gforth_says '1e 3e f/ f. cr bye' 0 '.333333333333333 '

run_capture "$W/info" "$AOUT2ELF" --info -L "$corpus/lib" "$corpus/gforth-0.2.1"
check "--info -L lib gforth-0.2.1 exits 0" test "$(cat "$W/info.rc")" = 0
check "--info lists ld.so from lib/" grep -qF "ld.so => $corpus/lib/ld.so" "$W/info.out"
check "--info lists libc.so.4 (4.7.2)" grep -qF "=> $corpus/lib/libc.so.4 (4.7.2)" "$W/info.out"
check "--info lists libm.so.4 (4.6.27)" grep -qF "=> $corpus/lib/libm.so.4 (4.6.27)" "$W/info.out"

# a copy of lib/ used for the conversion, deleted before the run
cp -R "$corpus/lib" "$W/libcopy"
chmod -R u+w "$W/libcopy" # the corpus is read-only; rm must work
check "gforth converts with -L a copy of lib" \
	"$AOUT2ELF" -L "$W/libcopy" "$corpus/gforth-0.2.1" "$W/gforth-copy"
rm -rf "$W/libcopy"
gforth_check "gforth: runs with the copy it was converted from deleted" "$W/gforth-copy"

# --no-embed-libs: found at run time in AOUT_LIBRARY_PATH
cp -R "$corpus/lib" "$W/librt"
chmod -R u+w "$W/librt"
check "gforth converts with --no-embed-libs" \
	"$AOUT2ELF" --no-embed-libs -L "$W/librt" "$corpus/gforth-0.2.1" "$W/gforth-rt"
mv "$W/librt" "$W/librt.moved"
size=$(wc -c <"$W/gforth-rt" 2>/dev/null || echo none)
check "gforth --no-embed-libs is under 128 KiB ($size bytes)" test "${size:-none}" != none -a "$size" -lt 131072
gforth_check "gforth --no-embed-libs: runs with AOUT_LIBRARY_PATH=copy" "$W/gforth-rt" \
	AOUT_LIBRARY_PATH="$W/librt.moved"

# pwd.exe: OMAGIC, needs page 0
check "pwd.exe converts with -L lib" \
	sh -c "'$AOUT2ELF' -q -L '$corpus/lib' '$corpus/pwd.exe' '$W/pwd' && chmod 755 '$W/pwd'"
mkdir -p "$W/some/where"
ln -s some/where "$W/link"
chmod -R a+rX "$W"
if can_map 0; then
	want=$(cd "$W/link" && pwd -P)
	run sh -c "cd '$W/link' && exec '$W/pwd'"
	check "pwd.exe prints the working directory ($want)" \
		test "$st:$(cat "$OUT")" = "0:$want"
	check "pwd.exe prints nothing on stderr" test ! -s "$ERR"
else
	skip "pwd.exe prints the working directory (needs CAP_SYS_RAWIO or vm.mmap_min_addr = 0)"
	skip "pwd.exe prints nothing on stderr (needs CAP_SYS_RAWIO or vm.mmap_min_addr = 0)"
fi
if ! can_drop_privileges; then
	skip "pwd.exe as uid 65534 (needs root and setpriv)"
elif [ "$min_addr" -le 0 ]; then
	run_capture "$W/pwd-nobody" as_nobody sh -c "cd '$W/some' && exec '$W/pwd'"
	check "pwd.exe runs as uid 65534 (vm.mmap_min_addr 0)" \
		test "$(cat "$W/pwd-nobody.out")" = "$(cd "$W/some" && pwd -P)"
else
	run "${NOBODY[@]}" "$W/pwd"
	expect_refusal "pwd.exe as uid 65534 exits 127 with one line about vm.mmap_min_addr"
fi

finish
