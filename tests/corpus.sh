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

# ---- 1993 programs whose crt0 calls uselib itself (oldlinux/) ----
# An old system's tree as a user would have it: /lib with the libraries
# and their links (old_libs).
old=$corpus/oldlinux
if [ -d "$old" ]; then
	R=$W/oldroot
	mkdir -p "$R/bin"
	old_libs "$old" "$R"
	F=$W/F
	printf 'hello world\nfoo bar\nhello\n' >"$F"
	chmod -R a+rX "$W"
	for p in cat sed gawk tcsh ls gzip xclock xeyes; do
		convert "oldlinux/$p converts with --sysroot, its libraries embedded" \
			"$R/bin/$p" --sysroot "$R" "$old/$p"
	done
	# old_expect DESC NEED_ADDR STATUS STDOUT PROG ARG...
	old_expect() {
		local desc=$1 need=$2 want_st=$3 want_out=$4
		shift 4
		if ! can_map "$need"; then
			skip "$desc (needs CAP_SYS_RAWIO or vm.mmap_min_addr <= $need)"
			return
		fi
		run "$@"
		expect "$desc" "$want_st" "$want_out"
	}
	old_expect "oldlinux/cat prints F" 0 0 $'hello world\nfoo bar\nhello\n' "$R/bin/cat" "$F"
	old_expect "oldlinux/sed s/hello/bye/ F" 0 0 $'bye world\nfoo bar\nbye\n' \
		"$R/bin/sed" s/hello/bye/ "$F"
	old_expect "oldlinux/gawk (libm and libc, libm naming libc by another name)" 0 0 \
		$'world 3 0.841471\nbar 6 0.841471\n 9 0.841471\n' \
		"$R/bin/gawk" '{print $2, NR*3, sin(1)}' "$F"
	old_expect "oldlinux/tcsh -f -c echo" 0 0 \
		$'hi /bin/tcsh\ntcsh 6.04.00 (Cornell) 93/07/03 (i386-linux) options 8b,dl,al\n' \
		"$R/bin/tcsh" -f -c 'echo hi $shell; echo $version'
	if can_map 0; then
		run "$R/bin/ls" -l "$F"
		check "oldlinux/ls -l F prints one long line" sh -c "test $st = 0 && grep -q '^-rw.* $F\$' '$OUT' && test \$(wc -l <'$OUT') = 1"
		run sh -c "'$R/bin/gzip' -c '$F' | '$R/bin/gzip' -dc"
		check "oldlinux/gzip -c F | gzip -dc gives F back" cmp -s "$OUT" "$F"
	else
		skip "oldlinux/ls and gzip (need CAP_SYS_RAWIO or vm.mmap_min_addr = 0)"
	fi

	# Embedded means embedded: in a root that holds the program and F
	# alone, no library file anywhere, and no library file opened.
	if is_root && command -v chroot >/dev/null && can_map 0; then
		E=$W/empty
		mkdir -p "$E"
		cp "$R/bin/gawk" "$F" "$E/"
		run chroot "$E" /gawk '{print $2}' /F
		expect "oldlinux/gawk runs in a root with no a.out library" 0 $'world\nbar\n\n'
	else
		skip "oldlinux/gawk in an empty root (needs root, chroot, address 0)"
	fi
	if command -v strace >/dev/null && can_map 0; then
		run strace -f -qq -e trace=open,openat,uselib -o "$W/gawk.strace" \
			"$R/bin/gawk" '{print $2}' "$F"
		check "oldlinux/gawk opens no library file (strace)" \
			sh -c "test $st = 0 && ! grep -E ' open(at)?\(.*lib(c|m)\.so' '$W/gawk.strace'"
	else
		skip "oldlinux/gawk under strace (needs strace, address 0)"
	fi

	# the whole tree in one run: programs converted, libraries skipped
	mkdir -p "$W/sys/bin" "$W/sys/usr/bin"
	cp -R "$R/lib" "$W/sys/"
	cp "$old/cat" "$old/ls" "$W/sys/bin/"
	cp "$old/gawk" "$W/sys/usr/bin/"
	chmod -R u+w "$W/sys"
	run "$AOUT2ELF" -q --sysroot "$W/sys" -r -O "$W/sys-elf" --report "$W/sys.json" "$W/sys"
	check "--sysroot OLD -r -O NEW OLD: every program converted, exit 0" \
		sh -c "test $st = 0 && test -x '$W/sys-elf/bin/cat' && test -x '$W/sys-elf/bin/ls' && test -x '$W/sys-elf/usr/bin/gawk'"
	check "... the libraries skipped, not converted" \
		sh -c "test ! -e '$W/sys-elf/lib/libc.so.4.4.1' && grep -q '\"status\": \"skipped\"' '$W/sys.json'"
	old_expect "... and the converted gawk runs" 0 0 $'world\nbar\n\n' \
		"$W/sys-elf/usr/bin/gawk" '{print $2}' "$F"

	# zipinfo names the 1992 /lib/libc.so.4.0, which nobody has: its crt0
	# says so with its own words, as under the a.out loader
	convert "oldlinux/zipinfo converts with --no-embed-libs" "$W/zipinfo" \
		-q --no-embed-libs "$old/zipinfo"
	if can_map 0; then
		run "$W/zipinfo" "$F"
		check "oldlinux/zipinfo: can't load library '/lib/libc.so.4.0', No such library., exit 128" \
			sh -c "test $st = 128 && grep -qF \"can't load library '/lib/libc.so.4.0'\" '$ERR' && grep -qxF \"\$(printf '\\tNo such library.')\" '$ERR'"
	else
		skip "oldlinux/zipinfo (needs CAP_SYS_RAWIO or vm.mmap_min_addr = 0)"
	fi

	# X11R5 clients of 1993 on today's X server: their windows appear
	xvfb=
	if command -v Xvfb >/dev/null && command -v xwininfo >/dev/null && can_map 0; then
		dpy=:$((90 + $$ % 100))
		Xvfb "$dpy" -screen 0 640x480x24 -nolisten tcp >"$W/xvfb.log" 2>&1 &
		xvfb=$!
		up=
		for _ in $(seq 100); do
			DISPLAY=$dpy xwininfo -root >/dev/null 2>&1 && up=yes && break
			sleep 0.1
		done
	fi
	if [ -z "${xvfb:-}" ]; then
		skip "oldlinux/xclock and xeyes (need Xvfb, xwininfo and address 0)"
	elif [ -n "$up" ] && [ ! -S "/tmp/.X11-unix/X${dpy#:}" ]; then
		# the 1993 Xlib knows only that socket (and TCP), not the abstract one
		skip "oldlinux/xclock and xeyes (Xvfb has no socket in /tmp/.X11-unix here)"
		kill "$xvfb" 2>/dev/null
		wait "$xvfb" 2>/dev/null
	elif [ -z "$up" ]; then
		skip "oldlinux/xclock and xeyes (Xvfb did not start: $(grep -m1 EE "$W/xvfb.log"))"
		kill "$xvfb" 2>/dev/null
		wait "$xvfb" 2>/dev/null
	else
		DISPLAY=$dpy "$R/bin/xclock" >"$W/xclock.log" 2>&1 &
		xc=$!
		DISPLAY=$dpy "$R/bin/xeyes" -geometry 200x150+300+10 >"$W/xeyes.log" 2>&1 &
		xe=$!
		for _ in $(seq 100); do
			DISPLAY=$dpy xwininfo -root -tree >"$W/xtree" 2>&1
			grep -q '"xclock"' "$W/xtree" && grep -q '"xeyes"' "$W/xtree" && break
			sleep 0.1
		done
		check "oldlinux/xclock opens its window on Xvfb" grep -q '"xclock": ("xclock" "XClock")' "$W/xtree"
		check "oldlinux/xeyes opens its window on Xvfb" grep -q '"xeyes": ("xeyes" "XEyes")' "$W/xtree"
		grep -q '"xclock": ' "$W/xtree" || show "$W/xclock.log" xclock
		grep -q '"xeyes": ' "$W/xtree" || show "$W/xeyes.log" xeyes
		kill "$xc" "$xe" 2>/dev/null
		wait "$xc" "$xe" 2>/dev/null
		kill "$xvfb" 2>/dev/null
		wait "$xvfb" 2>/dev/null
	fi
fi

finish
