#!/bin/bash
# The command line: GNU conventions, batch mode with its report, --exec,
# the make fragment, and the man page against --help.
. "${srcdir:-.}/tests/lib.sh"
need_i386 "$@"

td=${AOUT2ELF_TESTDATA:-./testdata}
# In the VM of tools/run-in-vm, /tmp is the host's over 9p, which has no
# FIFOs: the VM's own tmpfs has.
if [ -n "${AOUT2ELF_IN_VM:-}" ] && [ -w /dev/shm ]; then
	tmp=$(mktemp -d -p /dev/shm)
else
	tmp=$(mktemp -d)
fi
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
hello=$td/hello.qmagic.aout

# --- conventions ---
run_capture "$tmp/help" "$AOUT2ELF" --help
check "--help exits 0, on stdout, quiet on stderr" sh -c "test \$(cat '$tmp/help.rc') = 0 && grep -q '^Usage: ' '$tmp/help.out' && test ! -s '$tmp/help.err'"
run_capture "$tmp/ver" "$AOUT2ELF" --version
check "--version prints 'aout2elf VERSION'" grep -qE '^aout2elf [0-9]+\.[0-9]+' "$tmp/ver.out"
# standard output that cannot be written: one line, exit 1 (not 0, not silence)
if [ -w /dev/full ]; then
	for args in "--version" "--info $hello" "-v -f $hello $tmp/v.elf"; do
		# shellcheck disable=SC2086 # the words of args are the arguments
		"$AOUT2ELF" $args >/dev/full 2>"$tmp/full.err"
		echo $? >"$tmp/full.rc"
		check "'aout2elf $args' with stdout on /dev/full: exit 1, one line saying so" sh -c "test \$(cat '$tmp/full.rc') = 1 && test \"\$(cat '$tmp/full.err')\" = 'aout2elf: standard output: No space left on device'"
	done
else
	skip "no /dev/full: a standard output that cannot be written"
fi
for args in "" "one" "a b c" "--bogus" "-j 0 -O d x" "-r x y" "--info" "--exec" \
	"--report r x y" "--info -O d x" "-O d" "-O d --exec x" "--info --exec x" \
	"x --exec y" "-j 2 --exec x" "--report r --exec x" "-r --exec x"; do
	# shellcheck disable=SC2086
	run_capture "$tmp/u" "$AOUT2ELF" $args
	check "usage error '$args' exits 2 and points at --help" sh -c "test \$(cat '$tmp/u.rc') = 2 && grep -q -- '--help' '$tmp/u.err' && test ! -s '$tmp/u.out'"
done
run_capture "$tmp/u" "$AOUT2ELF" -L "$tmp/no-such-folder" "$hello" "$tmp/l.elf"
check "-L with a missing folder exits 2 with one line naming it, and writes nothing" sh -c "test \$(cat '$tmp/u.rc') = 2 && test \$(wc -l < '$tmp/u.err') = 1 && grep -q '^aout2elf: $tmp/no-such-folder: ' '$tmp/u.err' && test ! -e '$tmp/l.elf'"
# getopt's own messages name the tool as ours do, however it was started
run_capture "$tmp/bogus" "$(cd "$(dirname "$AOUT2ELF")" && pwd)/$(basename "$AOUT2ELF")" --bogus
check "an unknown option: 'aout2elf: unrecognized option', however the tool was started" sh -c "test \$(cat '$tmp/bogus.rc') = 2 && test \"\$(head -1 '$tmp/bogus.err')\" = \"aout2elf: unrecognized option '--bogus'\""
# -L folders that the converted program could not keep: a usage error
ldirs=()
for i in 1 2 3 4 5; do
	mkdir -p "$tmp/ld/$i$(printf 'y%.0s' $(seq 1 240))"
	ldirs+=(-L "$tmp/ld/$i$(printf 'y%.0s' $(seq 1 240))")
done
run_capture "$tmp/ldlong" "$AOUT2ELF" "${ldirs[@]}" "$hello" "$tmp/ldlong.elf"
check "-L folders longer than 1024 bytes in all: exit 2, one line, nothing written" sh -c "test \$(cat '$tmp/ldlong.rc') = 2 && test \$(wc -l < '$tmp/ldlong.err') = 1 && grep -q 'longer than 1024 bytes in all' '$tmp/ldlong.err' && test ! -e '$tmp/ldlong.elf'"
# an a.out shared library where a program is expected: named as one
lib_err="aout2elf: $td/libtiny.so.1: an a.out shared library, not a program (use it with -L)"
mkdir -p "$tmp/c:d"
run_capture "$tmp/colon" "$AOUT2ELF" -L "$tmp/c:d" "$hello" "$tmp/colon.elf"
check "-L with ':' in the folder's name: exit 2, one line saying so, nothing written" sh -c "test \$(cat '$tmp/colon.rc') = 2 && test \"\$(cat '$tmp/colon.err')\" = \"aout2elf: $tmp/c:d: a -L folder cannot have ':' in its name\" && test ! -e '$tmp/colon.elf'"
run_capture "$tmp/lib" "$AOUT2ELF" "$td/libtiny.so.1" "$tmp/lib.elf"
check "a shared library as INPUT: exit 1, one line saying what it is, no output" sh -c "test \$(cat '$tmp/lib.rc') = 1 && test \"\$(cat '$tmp/lib.err')\" = '$lib_err' && test ! -e '$tmp/lib.elf'"
run_capture "$tmp/libx" "$AOUT2ELF" --exec "$td/libtiny.so.1"
check "a shared library given to --exec: exit 1, the same line" sh -c "test \$(cat '$tmp/libx.rc') = 1 && test \"\$(cat '$tmp/libx.err')\" = '$lib_err'"
run_capture "$tmp/q" "$AOUT2ELF" "$hello" "$tmp/quiet.elf"
check "a conversion is silent" sh -c "test \$(cat '$tmp/q.rc') = 0 && test ! -s '$tmp/q.out' && test ! -s '$tmp/q.err'"
# -s: a damaged string table is no reason to refuse a program that ran
# a name with a newline (or a tab) cannot split a diagnostic into two
# lines or forge a second one: it is shown as bash's $'...' reads it back
run_capture "$tmp/nl" "$AOUT2ELF" "$tmp/$(printf 'no\nsuch')" "$tmp/nl.elf"
printf "aout2elf: \$'%s/no\\\\nsuch': No such file or directory\n" "$tmp" >"$tmp/nl.want"
check "a missing INPUT named with a newline: exit 1, one line, the name as \$'...\\n...'" sh -c "test \$(cat '$tmp/nl.rc') = 1 && cmp -s '$tmp/nl.want' '$tmp/nl.err'"
mkdir -p "$tmp/nlout"
cp "$hello" "$tmp/$(printf "it's\ta")"
printf 'keep me' >"$tmp/nlout/$(printf "it's\ta")"
run_capture "$tmp/nlb" "$AOUT2ELF" -O "$tmp/nlout" "$tmp/$(printf "it's\ta")"
printf "aout2elf: \$'%s/nlout/it\\\\'s\\\\ta': exists, and is neither aout2elf's output nor a copy of the input (-f replaces it)\n" "$tmp" >"$tmp/nlb.want"
check "-O, an output named with a tab and a quote in the way: one line, \$'...\\'...\\t...'" sh -c "test \$(cat '$tmp/nlb.rc') = 1 && head -1 '$tmp/nlb.err' | cmp -s '$tmp/nlb.want' -"
head -c -1 "$hello" >"$tmp/cut.aout"
run_capture "$tmp/cut" "$AOUT2ELF" "$tmp/cut.aout" "$tmp/cut.elf"
check "a string table one byte short: exit 1, one line, no output" sh -c "test \$(cat '$tmp/cut.rc') = 1 && test \$(wc -l < '$tmp/cut.err') = 1 && grep -q '^aout2elf: $tmp/cut.aout: truncated: the string table claims' '$tmp/cut.err' && test ! -e '$tmp/cut.elf'"
for opt in -s --strip; do
	run_capture "$tmp/cut$opt" "$AOUT2ELF" "$opt" "$tmp/cut.aout" "$tmp/cut$opt.elf"
	check "$opt converts it, silently, with no symbol table" sh -c "test \$(cat '$tmp/cut$opt.rc') = 0 && test ! -s '$tmp/cut$opt.err' && readelf -SW '$tmp/cut$opt.elf' >'$tmp/cut$opt.sec' && grep -q '\.text' '$tmp/cut$opt.sec' && ! grep -qE '\.symtab|\.stab' '$tmp/cut$opt.sec'"
done
run_capture "$tmp/cutrun" "$tmp/cut-s.elf"
check "... and the output runs" sh -c "test \$(cat '$tmp/cutrun.rc') = 0 && test \"\$(cat '$tmp/cutrun.out')\" = 'hello from a.out' && test ! -s '$tmp/cutrun.err'"
run_capture "$tmp/cutinfo" "$AOUT2ELF" --info -s "$tmp/cut.aout"
check "--info -s: the symbols are left out, unread" sh -c "test \$(cat '$tmp/cutinfo.rc') = 0 && grep -q 'Symbols: *left out (-s), [0-9]* bytes unread' '$tmp/cutinfo.out'"
# mode: the input's, x wherever r is, never setuid or setgid, less umask
cp "$hello" "$tmp/modes.aout"
chmod 6664 "$tmp/modes.aout"
(umask 027 && "$AOUT2ELF" "$tmp/modes.aout" "$tmp/modes.elf")
check "the output's mode: 6664 in, umask 027: 750 out" test "$(stat -c %a "$tmp/modes.elf")" = 750
run_capture "$tmp/v" "$AOUT2ELF" -v "$hello" "$tmp/verbose.elf"
check "-v says what was converted, on stdout" grep -q "^'.*' -> '.*verbose.elf' (QMAGIC, static)$" "$tmp/v.out"
# names from an archive are quoted as the shell reads them back: a newline
# or an escape sequence in one reaches neither the line nor the terminal
mkdir -p "$tmp/odd"
cp "$hello" "$tmp/odd/a
b"
cp "$hello" "$tmp/odd/it's"
cp "$hello" "$tmp/odd/$(printf 'x\033[31my')"
run_capture "$tmp/vodd" "$AOUT2ELF" -v -r -j 1 -O "$tmp/oddout" "$tmp/odd"
check "-v: a name with a newline is one \$'...' line, a quote is '\\''" sh -c "test \$(cat '$tmp/vodd.rc') = 0 && test \$(wc -l <'$tmp/vodd.out') = 3 && grep -qF \"\$'$tmp/odd/a\\nb' -> \$'$tmp/oddout/a\\nb' (QMAGIC, static)\" '$tmp/vodd.out' && grep -qF \"'$tmp/odd/it'\\''s' -> \" '$tmp/vodd.out' && ! grep -q \"\$(printf '\\033')\" '$tmp/vodd.out'"
run_capture "$tmp/iodd" "$AOUT2ELF" --info "$tmp/odd/a
b"
check "--info: the file name with a newline on one line" sh -c "test \$(cat '$tmp/iodd.rc') = 0 && head -1 '$tmp/iodd.out' | grep -qxF \"\$'$tmp/odd/a\\nb':\""

# warnings: each its own line, prefixed, ending in a newline, long paths too
run_capture "$tmp/w2" "$AOUT2ELF" --no-embed-libs "$td/dynmissing.qmagic.aout" "$tmp/w2.elf"
check "two libraries not found: two warning lines, each prefixed" sh -c "test \$(cat '$tmp/w2.rc') = 0 && test \$(grep -c 'not found here' '$tmp/w2.err') = 2 && ! grep -qv '^aout2elf: warning: ' '$tmp/w2.err'"
longtop=$tmp/$(printf 'd%.0s' $(seq 120))
long=$longtop/$(printf 'e%.0s' $(seq 120))/$(printf 'f%.0s' $(seq 120))
mkdir -p "$long"
run_capture "$tmp/w3" "$AOUT2ELF" --no-embed-libs "$td/dynmissing.qmagic.aout" "$long/$(printf 'g%.0s' $(seq 120))"
check "warnings about a long OUTPUT path: whole lines, prefixed, the last one ended" sh -c "test \$(cat '$tmp/w3.rc') = 0 && test -s '$tmp/w3.err' && ! grep -qv '^aout2elf: warning: ' '$tmp/w3.err' && test \"\$(tail -c 1 '$tmp/w3.err' | od -An -c | tr -d ' ')\" = '\\n'"
rm -rf "$longtop"

# --- man page and --help name the same long options ---
man_page=${srcdir:-.}/man/aout2elf.1
help_opts=$(grep -o -- '--[a-z][a-z-]*' "$tmp/help.out" | sort -u)
man_opts=$( { grep -o 'Fl -[a-z][a-z-]*' "$man_page" | sed 's/^Fl -/--/'; } | sort -u)
# files, not <(...): the VM's /dev may have no /dev/fd, and a comm that
# cannot read its input must fail the check, not pass it empty
echo "$help_opts" >"$tmp/help.opts"
echo "$man_opts" >"$tmp/man.opts"
check "--help names long options at all" test "$(wc -l <"$tmp/help.opts")" -ge 10
check "every long option of --help is in the man page" sh -c "comm -23 '$tmp/help.opts' '$tmp/man.opts' >'$tmp/help-only' && test ! -s '$tmp/help-only'"
check "every long option of the man page is in --help" sh -c "comm -13 '$tmp/help.opts' '$tmp/man.opts' >'$tmp/man-only' && test ! -s '$tmp/man-only'"

# --- batch mode ---
mkdir -p "$tmp/arch/bin" "$tmp/arch/lib"
cp "$td/hello.qmagic.aout" "$tmp/arch/bin/hello"
cp "$td/startup.qmagic.aout" "$tmp/arch/bin/startup"
cp "$td/hello.omagic.aout" "$tmp/arch/hello-o"
echo "not a program" > "$tmp/arch/README.txt"
printf '\007\001\144\000short' > "$tmp/arch/bin/broken"
# a link to an a.out outside the tree: followed, it would be converted
mkdir -p "$tmp/elsewhere"
cp "$td/hello.qmagic.aout" "$tmp/elsewhere/prog"
ln -s ../../elsewhere/prog "$tmp/arch/bin/outside"
# an archive holds the libraries beside the programs, maybe a FIFO
cp "$td/libtiny.so.1" "$tmp/arch/lib/libtiny.so.1"
# (not over 9p, as in the VM of tools/run-in-vm)
nfifo=0
mkfifo "$tmp/arch/lib/fifo" 2>/dev/null && nfifo=1
run_capture "$tmp/b1" "$AOUT2ELF" -q -r -j 2 -O "$tmp/out" --report "$tmp/r1.json" "$tmp/arch"
check "batch with a broken a.out exits 1" test "$(cat "$tmp/b1.rc")" = 1
check "batch reports the broken file in one line" test "$(grep -c "broken: truncated a.out header" "$tmp/b1.err")" = 1
check "batch -q prints nothing else" test "$(wc -l < "$tmp/b1.err")" = 1
check "the tree is mirrored under -O" test -x "$tmp/out/bin/hello" -a -x "$tmp/out/hello-o" -a -x "$tmp/out/bin/startup"
check "non-a.out files are not copied" test ! -e "$tmp/out/README.txt"
check "symlinks are not followed" test -f "$tmp/arch/bin/outside" -a ! -e "$tmp/out/bin/outside" -a ! -L "$tmp/out/bin/outside"
check "a converted file runs" test "$("$tmp/out/bin/hello")" = "hello from a.out"
check "report: converted entry" grep -qF "{\"input\": \"$tmp/arch/bin/hello\", \"output\": \"$tmp/out/bin/hello\", \"status\": \"converted\", \"format\": \"QMAGIC\", \"dynamic\": false, \"libraries\": [], \"reason\": null}" "$tmp/r1.json"
check "report: skipped text file" grep -qF "\"input\": \"$tmp/arch/README.txt\", \"output\": \"$tmp/out/README.txt\", \"status\": \"skipped\", \"format\": null, \"dynamic\": null, \"libraries\": [], \"reason\": \"not an a.out executable\"}" "$tmp/r1.json"
check "report: skipped symlink" grep -qF "\"status\": \"skipped\", \"format\": null, \"dynamic\": null, \"libraries\": [], \"reason\": \"symbolic link, not followed\"}" "$tmp/r1.json"
check "report: failed entry with its reason" grep -qF "\"status\": \"failed\", \"format\": \"OMAGIC\", \"dynamic\": null, \"libraries\": [], \"reason\": \"truncated a.out header (9 of 32 bytes)\"}" "$tmp/r1.json"
check "report: an a.out shared library is skipped, with a hint" grep -qF "{\"input\": \"$tmp/arch/lib/libtiny.so.1\", \"output\": \"$tmp/out/lib/libtiny.so.1\", \"status\": \"skipped\", \"format\": \"QMAGIC\", \"dynamic\": null, \"libraries\": [], \"reason\": \"an a.out shared library, not a program (use it with -L)\"}" "$tmp/r1.json"
if [ "$nfifo" = 0 ]; then
	skip "report: a FIFO is skipped, not opened (mkfifo is not possible here)"
else
	check "report: a FIFO is skipped, not opened" grep -qF "{\"input\": \"$tmp/arch/lib/fifo\", \"output\": \"$tmp/out/lib/fifo\", \"status\": \"skipped\", \"format\": null, \"dynamic\": null, \"libraries\": [], \"reason\": \"not a regular file\"}" "$tmp/r1.json"
fi
check "neither is written under -O" test ! -e "$tmp/out/lib/libtiny.so.1" -a ! -e "$tmp/out/lib/fifo"
check "report: one object per file" test "$(grep -c '"input"' "$tmp/r1.json")" = $((7 + nfifo))
check "report: a JSON array" sh -c "head -1 '$tmp/r1.json' | grep -qx '\[' && tail -1 '$tmp/r1.json' | grep -qx '\]'"
# large files are judged by their header first: a 3 GiB disk image is
# skipped (it was a failure, "too large"), a padded a.out still converts
mkdir -p "$tmp/bigarch"
truncate -s 3G "$tmp/bigarch/disk.img"
cp "$hello" "$tmp/bigarch/padded"
truncate -s 300K "$tmp/bigarch/padded"
run_capture "$tmp/bigb" "$AOUT2ELF" -r -O "$tmp/bigout" --report "$tmp/bigr.json" "$tmp/bigarch"
check "a 3 GiB file that is no a.out: skipped, exit 0" sh -c "test \$(cat '$tmp/bigb.rc') = 0 && grep -qF '\"input\": \"$tmp/bigarch/disk.img\", \"output\": \"$tmp/bigout/disk.img\", \"status\": \"skipped\"' '$tmp/bigr.json'"
check "a padded a.out above the peek size: converted" sh -c "grep -qF '\"input\": \"$tmp/bigarch/padded\", \"output\": \"$tmp/bigout/padded\", \"status\": \"converted\"' '$tmp/bigr.json' && test -x '$tmp/bigout/padded'"
rm -rf "$tmp/bigarch" "$tmp/bigout"
rm "$tmp/arch/bin/broken"
run_capture "$tmp/b2" "$AOUT2ELF" -r -O "$tmp/out" --report "$tmp/r2.json" "$tmp/arch"
check "a rerun over converted files exits 0" test "$(cat "$tmp/b2.rc")" = 0
check "a rerun finds them up-to-date" test "$(grep -c '"status": "up-to-date"' "$tmp/r2.json")" = 3
check "the summary line counts them" grep -qE "^aout2elf: 0 converted, 3 up-to-date, $((3 + nfifo)) skipped, 0 failed, in [0-9.]+s\$" "$tmp/b2.err"
touch "$tmp/arch/bin/hello"
run_capture "$tmp/b3" "$AOUT2ELF" -q -r -O "$tmp/out" --report "$tmp/r3.json" "$tmp/arch"
check "a newer input is converted again" test "$(grep -c '"status": "converted"' "$tmp/r3.json")" = 1
run_capture "$tmp/b4" "$AOUT2ELF" -q -f -r -j 1 -O "$tmp/out" --report "$tmp/r4.json" "$tmp/arch"
check "-f converts everything again" test "$(grep -c '"status": "converted"' "$tmp/r4.json")" = 3
# a rerun with options that change the outputs converts again; -j, -q
# and --report change nothing in them
run_capture "$tmp/b6" "$AOUT2ELF" -q -s -r -j 2 -O "$tmp/out" --report "$tmp/r6.json" "$tmp/arch"
check "a rerun with -s converts everything again, stripped" sh -c "test \$(grep -c '\"status\": \"converted\"' '$tmp/r6.json') = 3 && readelf -p .comment '$tmp/out/bin/hello' | grep -q 'aout2elf .* (--strip)' && ! readelf -S '$tmp/out/bin/hello' | grep -q symtab"
run_capture "$tmp/b7" "$AOUT2ELF" -s -r -j 1 -O "$tmp/out" "$tmp/arch"
check "... and once more with -s, at -j1: all up-to-date" sh -c "test \$(cat '$tmp/b7.rc') = 0 && tail -1 '$tmp/b7.err' | grep -q '^aout2elf: 0 converted, 3 up-to-date, '"
run_capture "$tmp/b8" "$AOUT2ELF" -q -r -O "$tmp/out" --report "$tmp/r8.json" "$tmp/arch"
check "... then without -s: converted again, with symbols" sh -c "test \$(grep -c '\"status\": \"converted\"' '$tmp/r8.json') = 3 && readelf -S '$tmp/out/bin/hello' | grep -q symtab"
# an output depends on the libraries it carries, as on its input
mkdir -p "$tmp/darch" "$tmp/dlib"
cp "$td/dyn.qmagic.aout" "$tmp/darch/dyn"
cp "$td/libtiny.so.1" "$tmp/dlib/"
touch -d '2 hours ago' "$tmp/darch/dyn" "$tmp/dlib/libtiny.so.1"
run_capture "$tmp/d1" "$AOUT2ELF" -q -r -L "$tmp/dlib" -O "$tmp/dout" "$tmp/darch"
check "a dynamic program's output names the library it carries" sh -c "test \$(cat '$tmp/d1.rc') = 0 && readelf -p .comment '$tmp/dout/dyn' | grep -qF 'embeds $tmp/dlib/libtiny.so.1'"
run_capture "$tmp/d2" "$AOUT2ELF" -r -L "$tmp/dlib" -O "$tmp/dout" --report "$tmp/d2.json" "$tmp/darch"
check "... a rerun finds it up-to-date" grep -q '"status": "up-to-date"' "$tmp/d2.json"
touch "$tmp/dlib/libtiny.so.1"
run_capture "$tmp/d3" "$AOUT2ELF" -r -L "$tmp/dlib" -O "$tmp/dout" --report "$tmp/d3.json" "$tmp/darch"
check "... a newer library: converted again" grep -q '"status": "converted"' "$tmp/d3.json"
run_capture "$tmp/d4" "$AOUT2ELF" -r -L "$tmp/dlib" -O "$tmp/dout" --report "$tmp/d4.json" "$tmp/darch"
check "... and then up-to-date" grep -q '"status": "up-to-date"' "$tmp/d4.json"
# an older copy over it (cp -p keeps the older date): changed all the same
cp "$tmp/dlib/libtiny.so.1" "$tmp/libtiny.copy"
touch -d '3 hours ago' "$tmp/libtiny.copy"
cp -p "$tmp/libtiny.copy" "$tmp/dlib/libtiny.so.1"
run_capture "$tmp/d4b" "$AOUT2ELF" -r -L "$tmp/dlib" -O "$tmp/dout" --report "$tmp/d4b.json" "$tmp/darch"
check "... an older copy put over it (cp -p): converted again" grep -q '"status": "converted"' "$tmp/d4b.json"
mv "$tmp/dlib/libtiny.so.1" "$tmp/dlib/moved"
cp "$tmp/dout/dyn" "$tmp/dyn.kept"
run_capture "$tmp/d5" "$AOUT2ELF" -r -L "$tmp/dlib" -O "$tmp/dout" --report "$tmp/d5.json" "$tmp/darch"
check "... the library gone: failed, saying so, and the output kept" sh -c "test \$(cat '$tmp/d5.rc') = 1 && grep -q '\"status\": \"failed\".*libtiny.so.1' '$tmp/d5.json' && cmp -s '$tmp/dyn.kept' '$tmp/dout/dyn'"
# a library put where the search looks first shadows the embedded one
mkdir -p "$tmp/sarch" "$tmp/sfirst" "$tmp/ssecond"
cp "$td/dyn.qmagic.aout" "$tmp/sarch/dyn"
cp "$td/libtiny.so.1" "$tmp/ssecond/"
run_capture "$tmp/s1" "$AOUT2ELF" -q -r -L "$tmp/sfirst" -L "$tmp/ssecond" -O "$tmp/sout" "$tmp/sarch"
mkdir "$tmp/sfirst/libtiny.so.1"
run_capture "$tmp/s2" "$AOUT2ELF" -r -L "$tmp/sfirst" -L "$tmp/ssecond" -O "$tmp/sout" --report "$tmp/s2.json" "$tmp/sarch"
check "a folder by the library's name earlier in the search: still up-to-date" sh -c "test \$(cat '$tmp/s1.rc') = 0 && grep -q '\"status\": \"up-to-date\"' '$tmp/s2.json'"
rmdir "$tmp/sfirst/libtiny.so.1"
cp -p "$td/libtiny.so.1" "$tmp/sfirst/"
run_capture "$tmp/s3" "$AOUT2ELF" -r -L "$tmp/sfirst" -L "$tmp/ssecond" -O "$tmp/sout" --report "$tmp/s3.json" "$tmp/sarch"
check "... the library itself there: converted again, carrying that one" sh -c "grep -q '\"status\": \"converted\"' '$tmp/s3.json' && readelf -p .comment '$tmp/sout/dyn' | grep -qF 'embeds $tmp/sfirst/libtiny.so.1 (libtiny.so.1, '"
run_capture "$tmp/s4" "$AOUT2ELF" -r -L "$tmp/sfirst" -L "$tmp/ssecond" -O "$tmp/sout" --report "$tmp/s4.json" "$tmp/sarch"
check "... and then up-to-date" grep -q '"status": "up-to-date"' "$tmp/s4.json"
run_capture "$tmp/b5" "$AOUT2ELF" -O "$tmp/out5" "$tmp/arch"
check "a folder without -r is a failure, with a hint" sh -c "test \$(cat '$tmp/b5.rc') = 1 && grep -q 'is a directory (use -r' '$tmp/b5.err'"
# two INPUTs of one name into one -O DIR: the first is converted, the
# second fails rather than replace it; one INPUT twice, under other
# spellings of its name too, is converted once
mkdir -p "$tmp/twice/a" "$tmp/twice/b"
cp "$hello" "$tmp/twice/a/prog"
cp "$td/startup.qmagic.aout" "$tmp/twice/b/prog"
run_capture "$tmp/tw" "$AOUT2ELF" -q -j 2 -O "$tmp/twout" "$tmp/twice/a/prog" "$tmp/twice/b/prog" "$tmp/twice/a/prog" "$tmp/twice/./a//prog"
check "two INPUTs of one name: exit 1, the second fails, naming the first" sh -c "test \$(cat '$tmp/tw.rc') = 1 && test \"\$(cat '$tmp/tw.err')\" = 'aout2elf: $tmp/twice/b/prog: would overwrite $tmp/twout/prog, the output of $tmp/twice/a/prog (convert them apart, or their folders with -r)'"
check "two INPUTs of one name: the output is the first's" test "$("$tmp/twout/prog")" = "hello from a.out"
run_capture "$tmp/tw2" "$AOUT2ELF" -O "$tmp/twout" "$tmp/twice/a/prog" "$tmp/twice/b/prog" "$tmp/twice/a/prog" "$tmp/twice/./a//prog"
check "a rerun: the first is up-to-date, the second still fails, the repeats are skipped" sh -c "test \$(cat '$tmp/tw2.rc') = 1 && tail -1 '$tmp/tw2.err' | grep -q '^aout2elf: 0 converted, 1 up-to-date, 2 skipped, 1 failed, '"
# two names of one output file (here a folder linked into -O DIR; a file
# system that ignores case does the same to "Prog" and "prog"): the file
# written first stays, the other entry fails, at -j1 and -j2, and on a
# rerun, when the file is already there, too
for j in 1 2; do
	mkdir -p "$tmp/lk$j/out/b"
	ln -s b "$tmp/lk$j/out/a"
	run_capture "$tmp/lk$j" "$AOUT2ELF" -q -j $j -r -O "$tmp/lk$j/out" "$tmp/twice"
	check "-j$j, two names of one output: exit 1, one line, the file that stays is one entry's" sh -c "test \$(cat '$tmp/lk$j.rc') = 1 && test \$(wc -l < '$tmp/lk$j.err') = 1 && grep -q '^aout2elf: $tmp/twice/[ab]/prog: would overwrite $tmp/lk$j/out/[ab]/prog, just written for $tmp/twice/[ab]/prog under another name of the same file (a linked folder, or a file system that ignores case)$' '$tmp/lk$j.err'"
done
check "-j1, two names of one output: the file is the first entry's" test "$("$tmp/lk1/out/b/prog")" = "hello from a.out"
run_capture "$tmp/lk1b" "$AOUT2ELF" -j 1 -r -O "$tmp/lk1/out" "$tmp/twice"
check "... a rerun: the first is up-to-date, the other still fails" sh -c "test \$(cat '$tmp/lk1b.rc') = 1 && grep -qx 'aout2elf: $tmp/twice/b/prog: would overwrite $tmp/lk1/out/b/prog, which is also $tmp/lk1/out/a/prog, the output of $tmp/twice/a/prog (a linked folder, or a file system that ignores case)' '$tmp/lk1b.err' && tail -1 '$tmp/lk1b.err' | grep -q '^aout2elf: 0 converted, 1 up-to-date, 0 skipped, 1 failed, '"
check "... and the file is still the first entry's" test "$("$tmp/lk1/out/b/prog")" = "hello from a.out"
# "--report prog1 prog2": the report must not replace the a.out prog1
cp "$hello" "$tmp/twice/keep"
run_capture "$tmp/rep" "$AOUT2ELF" -O "$tmp/repout" --report "$tmp/twice/keep" "$tmp/twice/b/prog"
check "--report naming an a.out: exit 2, one line, the file intact, nothing converted" sh -c "test \$(cat '$tmp/rep.rc') = 2 && test \"\$(cat '$tmp/rep.err')\" = 'aout2elf: $tmp/twice/keep: exists and is not a report; refusing to overwrite it' && cmp -s '$hello' '$tmp/twice/keep' && test ! -e '$tmp/repout'"
# "cp -a archive converted" first: the copies, as new as their a.out, are
# not up-to-date conversions
cp -a "$tmp/twice/a" "$tmp/cpa"
run_capture "$tmp/cparun" "$AOUT2ELF" -q -r -O "$tmp/cpa" "$tmp/twice/a"
check "an a.out copied to OUTPUT with its date is converted, not up-to-date" sh -c "test \$(cat '$tmp/cparun.rc') = 0 && test \"\$('$tmp/cpa/prog')\" = 'hello from a.out' && head -c 4 '$tmp/cpa/prog' | grep -q ELF"
# -O naming the input's own folder: OUTPUT is INPUT, which is no conversion
mkdir "$tmp/same" && cp "$hello" "$tmp/same/prog"
run_capture "$tmp/samerun" "$AOUT2ELF" -O "$tmp/same" "$tmp/same/prog"
check "-O into the input's own folder: a failure, not up-to-date, input intact" sh -c "test \$(cat '$tmp/samerun.rc') = 1 && grep -qx 'aout2elf: $tmp/same/prog: is the input file; refusing to overwrite it' '$tmp/samerun.err' && cmp -s '$hello' '$tmp/same/prog' && test \$(ls -A '$tmp/same' | wc -l) = 1"
# -O DIR among the inputs' folders: an input of the run is never replaced,
# not even with -f, whatever order the workers take the entries in
mkdir -p "$tmp/ov/a" "$tmp/ov/d"
cp "$hello" "$tmp/ov/a/prog"
cp "$td/startup.qmagic.aout" "$tmp/ov/d/prog"
for j in 1 2; do
	run_capture "$tmp/ov$j" "$AOUT2ELF" -q -f -j $j -O "$tmp/ov/d" "$tmp/ov/a/prog" "$tmp/ov/d/prog"
	check "-O DIR holding another INPUT (-j $j, -f): exit 1, that input intact" sh -c "test \$(cat '$tmp/ov$j.rc') = 1 && cmp -s '$td/startup.qmagic.aout' '$tmp/ov/d/prog' && cmp -s '$hello' '$tmp/ov/a/prog'"
done
check "-O DIR holding another INPUT: the reason names it as an input" grep -qxF "aout2elf: $tmp/ov/d/prog: is an input of this batch; refusing to overwrite it" "$tmp/ov1.err"
# -r with -O DIR inside the tree: DIR is not walked; a different a.out
# there by an output's name stays, unless -f
mkdir -p "$tmp/ovr/sub"
cp "$hello" "$tmp/ovr/prog"
cp "$td/startup.qmagic.aout" "$tmp/ovr/sub/prog"
run_capture "$tmp/ovr1" "$AOUT2ELF" -r -O "$tmp/ovr/sub" --report "$tmp/ovr1.json" "$tmp/ovr"
check "-r, -O DIR inside the tree: DIR is not walked" sh -c "grep -qF '\"input\": \"$tmp/ovr/prog\"' '$tmp/ovr1.json' && ! grep -qF '\"input\": \"$tmp/ovr/sub/' '$tmp/ovr1.json'"
check "-r, -O DIR inside the tree: the a.out in DIR stays, exit 1, one line" sh -c "test \$(cat '$tmp/ovr1.rc') = 1 && cmp -s '$td/startup.qmagic.aout' '$tmp/ovr/sub/prog' && grep -qxF \"aout2elf: $tmp/ovr/sub/prog: exists, and is neither aout2elf's output nor a copy of the input (-f replaces it)\" '$tmp/ovr1.err'"
run_capture "$tmp/ovr2" "$AOUT2ELF" -q -f -r -O "$tmp/ovr/sub" "$tmp/ovr"
check "-r, -O DIR inside the tree, -f: replaced" sh -c "test \$(cat '$tmp/ovr2.rc') = 0 && head -c 4 '$tmp/ovr/sub/prog' | grep -q ELF"
run_capture "$tmp/ovr3" "$AOUT2ELF" -r -O "$tmp/ovr/sub" --report "$tmp/ovr3.json" "$tmp/ovr"
check "-r, -O DIR inside the tree, a rerun: up-to-date, DIR still not walked" sh -c "test \$(cat '$tmp/ovr3.rc') = 0 && test \$(grep -c '\"input\"' '$tmp/ovr3.json') = 1 && grep -qF '\"status\": \"up-to-date\"' '$tmp/ovr3.json'"
# out of processes (ulimit -u): the batch goes on with the workers it could
# start, or with none, and still converts everything
if can_drop_privileges; then
	mkdir -p "$tmp/np/in" && chmod 777 "$tmp/np"
	for k in 1 2 3 4 5 6; do cp "$hello" "$tmp/np/in/p$k"; done
	chmod -R a+rX "$tmp/np/in"
	# LeakSanitizer's exit check starts a thread, which ulimit -u 1 refuses
	# (a fatal error of the sanitizer's, not of the converter's)
	for u in 1 2; do
		run_capture "$tmp/np$u" as_nobody env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" bash -c "ulimit -u $u && exec \"\$0\" -j 4 -r -O '$tmp/np/out$u' '$tmp/np/in'" "$AOUT2ELF"
		check "-j 4 with room for $((u - 1)) worker process(es): all 6 converted, exit 0" sh -c "test \$(cat '$tmp/np$u.rc') = 0 && test \$(ls '$tmp/np/out$u' | wc -l) = 6 && tail -1 '$tmp/np$u.err' | grep -q '^aout2elf: 6 converted, 0 up-to-date, 0 skipped, 0 failed, '"
	done
else
	skip "out of processes: needs root and setpriv (to be an ordinary user)"
	skip "out of processes, one worker: needs root and setpriv"
fi
# a symbolic link named as INPUT is followed, one found by -r is not
ln -s "$(cd "$td" && pwd)/hello.qmagic.aout" "$tmp/ov/link"
run_capture "$tmp/lnk" "$AOUT2ELF" -q -O "$tmp/lnk.d" "$tmp/ov/link"
check "-O with a symbolic link as INPUT: followed, converted under the link's name" sh -c "test \$(cat '$tmp/lnk.rc') = 0 && test \"\$('$tmp/lnk.d/link')\" = 'hello from a.out'"
# --report naming one of the outputs: the converted program stays
run_capture "$tmp/repo" "$AOUT2ELF" -q -O "$tmp/repo.d" --report "$tmp/repo.d/prog" "$tmp/ov/a/prog"
check "--report naming an output: exit 1, the report not written, the program intact" sh -c "test \$(cat '$tmp/repo.rc') = 1 && grep -qxF 'aout2elf: $tmp/repo.d/prog: exists and is not a report; refusing to overwrite it' '$tmp/repo.err' && head -c 4 '$tmp/repo.d/prog' | grep -q ELF"

# --- what is in OUTPUT's or the report's place, and is not a file ---
mkdir -p "$tmp/nf/in" "$tmp/nf/out"
cp "$hello" "$tmp/nf/in/fifo"
cp "$hello" "$tmp/nf/in/link"
echo keep >"$tmp/nf/keep.txt"
ln -s ../keep.txt "$tmp/nf/out/link"
run_capture "$tmp/rdir" "$AOUT2ELF" -q -O "$tmp/nf/rout" --report "$tmp/nf" "$tmp/nf/in/link"
check "--report naming a folder: exit 2, one line, nothing converted" sh -c "test \$(cat '$tmp/rdir.rc') = 2 && test \"\$(cat '$tmp/rdir.err')\" = 'aout2elf: $tmp/nf: is a directory' && test ! -e '$tmp/nf/rout'"
printf '[section]\nkey=1\n' >"$tmp/nf/settings.ini"
run_capture "$tmp/rini" "$AOUT2ELF" -q -O "$tmp/nf/rout" --report "$tmp/nf/settings.ini" "$tmp/nf/in/link"
check "--report naming a file that begins with '[' but is no report: exit 2, kept" sh -c "test \$(cat '$tmp/rini.rc') = 2 && grep -qx 'key=1' '$tmp/nf/settings.ini'"
run_capture "$tmp/nflink" "$AOUT2ELF" -O "$tmp/nf/out" "$tmp/nf/in/link"
check "-O: a symbolic link at OUTPUT is kept without -f, and says so" sh -c "test \$(cat '$tmp/nflink.rc') = 1 && grep -qxF 'aout2elf: $tmp/nf/out/link: exists, and is a symbolic link (-f replaces the link)' '$tmp/nflink.err' && test -L '$tmp/nf/out/link' && test \"\$(cat '$tmp/nf/keep.txt')\" = keep"
if mkfifo "$tmp/nf/out/fifo" "$tmp/nf/single" "$tmp/nf/report" 2>/dev/null; then
	run_capture "$tmp/nfs" "$AOUT2ELF" -f "$hello" "$tmp/nf/single"
	check "a FIFO as OUTPUT, even with -f: exit 1, one line, the FIFO stays" sh -c "test \$(cat '$tmp/nfs.rc') = 1 && test \"\$(cat '$tmp/nfs.err')\" = 'aout2elf: $tmp/nf/single: is not a regular file; refusing to replace it' && test -p '$tmp/nf/single'"
	run_capture "$tmp/nff" "$AOUT2ELF" -f -O "$tmp/nf/out" "$tmp/nf/in/fifo"
	check "-O -f: a FIFO at OUTPUT is not replaced either" sh -c "test \$(cat '$tmp/nff.rc') = 1 && grep -qxF 'aout2elf: $tmp/nf/out/fifo: is not a regular file; refusing to replace it' '$tmp/nff.err' && test -p '$tmp/nf/out/fifo'"
	# the reader gives up after 60 s: a FIFO replaced by a file has no writer
	timeout 60 cat "$tmp/nf/report" >"$tmp/nf/report.got" &
	reader=$!
	run_capture "$tmp/nfr" "$AOUT2ELF" -q -f -O "$tmp/nf/out" --report "$tmp/nf/report" "$tmp/nf/in/link"
	wait "$reader"
	check "--report into a FIFO: written into it (as into /dev/stdout), the FIFO stays" sh -c "test \$(cat '$tmp/nfr.rc') = 0 && head -1 '$tmp/nf/report.got' | grep -qx '\[' && grep -qF '\"status\": \"converted\"' '$tmp/nf/report.got' && test -p '$tmp/nf/report'"
	check "-O -f: the symbolic link at OUTPUT is replaced, not what it points to" sh -c "test ! -L '$tmp/nf/out/link' && head -c 4 '$tmp/nf/out/link' | grep -q ELF && test \"\$(cat '$tmp/nf/keep.txt')\" = keep"
else
	for what in "a FIFO as OUTPUT" "-O -f: a FIFO at OUTPUT" "--report into a FIFO" "-O -f: the link at OUTPUT"; do
		skip "$what (mkfifo is not possible here)"
	done
fi
cp "$tmp/r1.json" "$tmp/nf/real.json"
ln -s real.json "$tmp/nf/replink"
run_capture "$tmp/nfl" "$AOUT2ELF" -q -f -O "$tmp/nf/out" --report "$tmp/nf/replink" "$tmp/nf/in/link"
check "--report through a symbolic link: written into its report, the link stays" sh -c "test \$(cat '$tmp/nfl.rc') = 0 && test -L '$tmp/nf/replink' && test \$(grep -c '\"input\"' '$tmp/nf/real.json') = 1"
long=$(printf 'n%.0s' $(seq 1 250))
run_capture "$tmp/long1" "$AOUT2ELF" "$hello" "$tmp/nf/$long"
run_capture "$tmp/long2" "$AOUT2ELF" -f "$hello" "$tmp/nf/$long"
check "an OUTPUT of 250 bytes is written, and replaced with -f" sh -c "test \$(cat '$tmp/long1.rc') = 0 && test \$(cat '$tmp/long2.rc') = 0 && test ! -s '$tmp/long2.err'"
echo plain >"$tmp/nf/plain"
run_capture "$tmp/onotdir" "$AOUT2ELF" -O "$tmp/nf/plain" "$hello" "$td/hello.zmagic.aout"
check "-O naming a file, not a folder: exit 1, one line for it, not one per input" sh -c "test \$(cat '$tmp/onotdir.rc') = 1 && test \"\$(cat '$tmp/onotdir.err')\" = 'aout2elf: $tmp/nf/plain: Not a directory' && test \"\$(cat '$tmp/nf/plain')\" = plain"
ln -s made.json "$tmp/nf/dangling.json"
run_capture "$tmp/dang" "$AOUT2ELF" -q -f -O "$tmp/nf/out" --report "$tmp/nf/dangling.json" "$tmp/nf/in/link"
check "--report through a link to no file yet: makes that file, the link stays" sh -c "test \$(cat '$tmp/dang.rc') = 0 && test -L '$tmp/nf/dangling.json' && test \$(grep -c '\"input\"' '$tmp/nf/made.json') = 1"
run_capture "$tmp/bv" "$AOUT2ELF" -v -f -O "$tmp/nf/out" "$tmp/nf/in/link"
check "-O -v says what was converted, as without -O" grep -q "^'.*' -> '.*/nf/out/link' (QMAGIC, static)$" "$tmp/bv.out"
# an image larger than the staging area: the input's fault, said of it
printf '\314\000\144\000\000\000\000\061\000\020\000\000\000\000\000\000\000\000\000\000\040\020\000\000\000\000\000\000\000\000\000\000' >"$tmp/nf/vast"
truncate -s $((0x31001000)) "$tmp/nf/vast"
run_capture "$tmp/vast" "$AOUT2ELF" "$tmp/nf/vast" "$tmp/nf/vast.elf"
check "a text of 784 MiB: too large to stage, said of INPUT, nothing written" sh -c "test \$(cat '$tmp/vast.rc') = 1 && grep -qx 'aout2elf: $tmp/nf/vast: the a.out image is too large to stage (.*)' '$tmp/vast.err' && test ! -e '$tmp/nf/vast.elf'"
rm -f "$tmp/nf/vast"
truncate -s 1G "$tmp/nf/huge"
run_capture "$tmp/huge" "$AOUT2ELF" "$tmp/nf/huge" "$tmp/nf/huge.elf"
check "a 1 GiB file of zeros: refused by its first bytes, one line, exit 1" sh -c "test \$(cat '$tmp/huge.rc') = 1 && test \"\$(cat '$tmp/huge.err')\" = 'aout2elf: $tmp/nf/huge: not an a.out executable (unknown magic 00)' && test ! -e '$tmp/nf/huge.elf'"
rm -f "$tmp/nf/huge"

# --- --exec ---
# from an empty folder, the input alone in its own, TMPDIR empty too:
# any file --exec wrote would show in one of the three
mkdir -p "$tmp/e1.cwd" "$tmp/e1.in" "$tmp/e1.tmp"
cp "$td/hello.qmagic.aout" "$tmp/e1.in/prog"
run_capture "$tmp/e1" sh -c "cd '$tmp/e1.cwd' && TMPDIR='$tmp/e1.tmp' exec '$AOUT2ELF' --exec '$tmp/e1.in/prog' 'second line'"
check "--exec runs the program with its arguments" test "$(cat "$tmp/e1.out")" = "hello from a.out
second line"
check "--exec writes no file (working folder, input's folder, TMPDIR)" sh -c "test \"\$(ls -A '$tmp/e1.cwd' '$tmp/e1.tmp' | grep -c .)\" = 2 && test \"\$(ls -A '$tmp/e1.in')\" = prog"
mkdir "$tmp/abbr"
run_capture "$tmp/e1b" sh -c "cd '$tmp/abbr' && exec '$AOUT2ELF' --exe '$(cd "$td" && pwd)/hello.qmagic.aout' out"
check "--exe (an abbreviation) runs the program too, and writes no file" sh -c "test \"\$(cat '$tmp/e1b.out')\" = 'hello from a.out
out' && test -z \"\$(ls -A '$tmp/abbr')\""
run_capture "$tmp/e2" "$AOUT2ELF" --exec "$td/sigsegv.qmagic.aout"
check "--exec passes the exit status through" test "$(cat "$tmp/e2.rc")" = 42
run_capture "$tmp/e3" "$AOUT2ELF" --exec "$tmp/arch/README.txt"
check "--exec of a non-a.out fails with one line, exit 1" sh -c "test \$(cat '$tmp/e3.rc') = 1 && test \$(wc -l < '$tmp/e3.err') = 1"
run_capture "$tmp/e4" "$AOUT2ELF" --exec "$td/startup.qmagic.aout" args "b b" ""
check "--exec gives the program an a.out start-up" sh -c "grep -q '^startup: ok' '$tmp/e4.out' || AOUT_TEST=yes '$AOUT2ELF' --exec '$td/startup.qmagic.aout' args 'b b' '' | grep -q '^startup: ok'"
# --no-randomize with --exec: exec of the memfd is the one without
# randomisation (the stub cannot exec a closed memfd again), and the
# program finds the personality it was started with
run_capture "$tmp/e5" "$AOUT2ELF" --no-randomize --exec "$td/startup.qmagic.aout" layout
run_capture "$tmp/e5p" "$AOUT2ELF" --exec "$td/startup.qmagic.aout" layout
check "--exec --no-randomize: stack top 0xffffe000, personality as without the option" sh -c "test \$(cat '$tmp/e5.rc') = 0 && test \"\$(sed -n 1p '$tmp/e5.out')\" = 'stack top: 0xffffe000' && grep '^personality: ' '$tmp/e5p.out' >'$tmp/e5p.per' && grep -qxFf '$tmp/e5p.per' '$tmp/e5.out'"

# --- binfmt_misc: the README's lines, run as they are written there ---
# Registering changes the whole system, so only in the VM of
# tools/run-in-vm, which is thrown away afterwards.
bm=/proc/sys/fs/binfmt_misc
readme=${srcdir:-.}/README
if [ -z "${AOUT2ELF_IN_VM:-}" ]; then
	skip "binfmt_misc: registering changes the whole system; only in the VM of tools/run-in-vm"
elif ! { [ -w "$bm/register" ] || mount -t binfmt_misc binfmt_misc "$bm" 2>/dev/null; }; then
	skip "binfmt_misc: this kernel has none"
else
	mkdir -p "$tmp/bm/bin"
	ln -s "$(cd "$(dirname "$AOUT2ELF")" && pwd)/$(basename "$AOUT2ELF")" "$tmp/bm/bin/aout2elf"
	# the README's wrapper and registrations, with the wrapper in $tmp
	grep -e "^    printf '#!/bin/sh" -e "^    chmod 755 /usr/local/bin/aout2elf-run" \
		-e "^    echo ':aout-" "$readme" |
		sed "s|/usr/local/bin/aout2elf-run|$tmp/bm/aout2elf-run|g" >"$tmp/bm/recipe"
	(cd "$bm" && PATH=$tmp/bm/bin:$PATH sh -e "$tmp/bm/recipe") >"$tmp/bm/recipe.out" 2>&1
	check "binfmt_misc: the README registers the four a.out kinds" test \
		-e "$bm/aout-qmagic" -a -e "$bm/aout-zmagic" -a -e "$bm/aout-nmagic" -a -e "$bm/aout-omagic"
	for m in qmagic zmagic nmagic omagic; do
		cp "$td/hello.$m.aout" "$tmp/bm/hello.$m" && chmod 755 "$tmp/bm/hello.$m"
		check "binfmt_misc: a $m a.out file runs directly" test \
			"$(PATH=$tmp/bm/bin:$PATH "$tmp/bm/hello.$m" world 2>&1)" = "hello from a.out
world"
		echo -1 >"$bm/aout-$m" 2>/dev/null
	done
fi

# --- progress: an updating line on a terminal, nothing otherwise ---
if command -v script >/dev/null 2>&1; then
	script -qec "'$AOUT2ELF' -f -r -O '$tmp/outp' '$tmp/arch'" /dev/null >"$tmp/tty.out" 2>&1 </dev/null
	check "on a terminal, a progress line that updates in place" grep -q $'\r.*aout2elf: [0-9]*/[0-9]* done, 0 failed' "$tmp/tty.out"
else
	skip "script(1) not installed"
fi
run_capture "$tmp/notty" "$AOUT2ELF" -f -r -O "$tmp/outp" "$tmp/arch"
check "not on a terminal: no progress line, a summary at the end" bash -c "! grep -q \$'\\r' '$tmp/notty.err' && tail -1 '$tmp/notty.err' | grep -q '^aout2elf: 3 converted, '"

# --- output safety: a full file system ---
if is_root && mkdir -p "$tmp/full" && mount -t tmpfs -o size=64k tmpfs "$tmp/full" 2>/dev/null; then
	./tests/malformed/gen --big 1 "$tmp/big.aout"
	run_capture "$tmp/nospc" "$AOUT2ELF" "$tmp/big.aout" "$tmp/full/big.elf"
	check "no space left: exit 1 and the reason" sh -c "test \$(cat '$tmp/nospc.rc') = 1 && grep -qx 'aout2elf: $tmp/full/big.elf: write error: No space left on device' '$tmp/nospc.err'"
	check "no space left: nothing left behind" test -z "$(ls -A "$tmp/full")"
	# a batch report that no longer fits: the last one stays as it was
	printf '[]\n' >"$tmp/full/report.json"
	cp "$tmp/full/report.json" "$tmp/last-report.json"
	dd if=/dev/zero of="$tmp/full/filler" bs=4k 2>/dev/null
	mkdir "$tmp/many"
	for i in $(seq 10 49); do cp "$hello" "$tmp/many/program-$i"; done
	run_capture "$tmp/repfull" "$AOUT2ELF" -q -j 1 -O "$tmp/manyout" --report "$tmp/full/report.json" "$tmp/many"/program-*
	check "a report on a full disk: exit 1 and the reason" sh -c "test \$(cat '$tmp/repfull.rc') = 1 && grep -qx 'aout2elf: $tmp/full/report.json: write error: No space left on device' '$tmp/repfull.err'"
	check "a report on a full disk: the last report intact, no temporary file" sh -c "cmp -s '$tmp/full/report.json' '$tmp/last-report.json' && test \"\$(ls -A '$tmp/full' | tr '\n' ' ')\" = 'filler report.json '"
	check "a report on a full disk: the programs converted all the same" test "$(ls "$tmp/manyout" | wc -l)" = 40
	umount "$tmp/full"
else
	skip "needs root to mount a small tmpfs"
fi

# --- output safety: an append-only folder (chattr +a) ---
# a temporary file there could be neither renamed nor removed again
mkdir -p "$tmp/ap"
echo keep >"$tmp/ap/old.elf"
if is_root && chattr +a "$tmp/ap" 2>/dev/null; then
	run_capture "$tmp/apf" "$AOUT2ELF" -f "$hello" "$tmp/ap/old.elf"
	run_capture "$tmp/apn" "$AOUT2ELF" "$hello" "$tmp/ap/new.elf"
	chattr -a "$tmp/ap"
	check "append-only folder: replacing is refused in one line, nothing left behind" sh -c "test \$(cat '$tmp/apf.rc') = 1 && test \"\$(cat '$tmp/apf.err')\" = 'aout2elf: $tmp/ap/old.elf: its folder is append-only: it cannot be replaced' && test \"\$(cat '$tmp/ap/old.elf')\" = keep && test \"\$(ls -A '$tmp/ap' | grep -v '^new.elf\$')\" = old.elf"
	if [ "$(cat "$tmp/apn.rc")" = 0 ]; then
		check "append-only folder: a new OUTPUT is written (O_TMPFILE) and runs" test "$("$tmp/ap/new.elf")" = "hello from a.out"
	else
		check "append-only folder without O_TMPFILE: a new OUTPUT refused in one line" grep -q "append-only" "$tmp/apn.err"
	fi
else
	skip "append-only folder: needs root and a file system with chattr +a"
fi

# --- output safety: signals ---
# A signal that ends the tool while it writes over an existing OUTPUT
# (the named temporary file) takes the temporary file away with it; one
# ignored when it started stays ignored.  strace stops it right in its write
# (LeakSanitizer cannot work under ptrace: an ASan build checks no leaks here).
mkdir -p "$tmp/sig"
if command -v strace >/dev/null 2>&1 && strace -o /dev/null true 2>/dev/null; then
	for sig in INT TERM HUP USR1 USR2 ALRM PIPE; do
		echo keep >"$tmp/sig/out.elf"
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -o /dev/null -e trace=pwritev \
			-e inject=pwritev:signal=$sig \
			"$AOUT2ELF" -f "$hello" "$tmp/sig/out.elf" 2>/dev/null
		echo $? >"$tmp/sig.rc"
		check "SIG$sig while writing over OUTPUT: killed by it, OUTPUT kept, no temporary file" sh -c "test \$(cat '$tmp/sig.rc') -gt 128 && test \"\$(cat '$tmp/sig/out.elf')\" = keep && test \"\$(ls -A '$tmp/sig')\" = out.elf"
	done
	(trap '' HUP; ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -o /dev/null -e trace=pwritev \
		-e inject=pwritev:signal=HUP "$AOUT2ELF" -f "$hello" "$tmp/sig/out.elf")
	echo $? >"$tmp/sig.rc"
	check "SIGHUP ignored when it started (nohup): the conversion goes on" sh -c "test \$(cat '$tmp/sig.rc') = 0 && test \"\$('$tmp/sig/out.elf')\" = 'hello from a.out'"
else
	skip "signals while writing: needs strace that can trace here"
fi

# --- output safety: a disk that fails (EIO), through an LD_PRELOAD shim ---
if [ -f ./tests/helpers/eio.so ] && ! ldd "$(command -v "$AOUT2ELF")" 2>/dev/null | grep -q libasan; then
	echo keep > "$tmp/eio-keep"
	run_capture "$tmp/eio" env LD_PRELOAD=./tests/helpers/eio.so "$AOUT2ELF" -f "$hello" "$tmp/eio-keep"
	check "EIO while writing: exit 1 and the reason" sh -c "test \$(cat '$tmp/eio.rc') = 1 && grep -qx 'aout2elf: $tmp/eio-keep: write error: Input/output error' '$tmp/eio.err'"
	check "EIO while writing: the existing output is intact" test "$(cat "$tmp/eio-keep")" = keep
	check "EIO while writing: no temporary file left" test -z "$(find "$tmp" -maxdepth 1 -name '.*.aout2elf-*')"
	# a new OUTPUT is written without a name (O_TMPFILE) and linked at the end
	mkdir "$tmp/new"
	run_capture "$tmp/eio2" env LD_PRELOAD=./tests/helpers/eio.so "$AOUT2ELF" "$hello" "$tmp/new/out"
	check "EIO while writing a new OUTPUT: exit 1, the reason, nothing in its folder" sh -c "test \$(cat '$tmp/eio2.rc') = 1 && grep -qx 'aout2elf: $tmp/new/out: write error: Input/output error' '$tmp/eio2.err' && test -z \"\$(ls -A '$tmp/new')\""
	# killed in the middle, even by SIGKILL: nothing left behind
	env LD_PRELOAD=./tests/helpers/eio.so EIO_SHIM=stall "$AOUT2ELF" "$hello" "$tmp/new/out" 2>/dev/null &
	killme=$!
	sleep 1
	alive=no
	kill -KILL "$killme" 2>/dev/null && alive=yes # still in its stalled write
	wait "$killme" 2>/dev/null
	check "killed with SIGKILL while writing a new OUTPUT: nothing in its folder" \
		test "$alive" = yes -a -z "$(ls -A "$tmp/new")"
	# a batch whose workers are killed: it says so for each entry
	mkdir "$tmp/wk" "$tmp/wkout"
	cp "$hello" "$tmp/wk/a"
	cp "$hello" "$tmp/wk/b"
	env LD_PRELOAD=./tests/helpers/eio.so EIO_SHIM=stall "$AOUT2ELF" -j 2 -O "$tmp/wkout" "$tmp/wk/a" "$tmp/wk/b" 2>"$tmp/wk.err" &
	batch=$!
	sleep 1
	pkill -KILL -P "$batch"
	wait "$batch"
	echo $? >"$tmp/wk.rc"
	check "a batch whose workers die: exit 1, each entry said not to finish, nothing written" sh -c "test \$(cat '$tmp/wk.rc') = 1 && test \$(grep -c 'did not finish (worker process died)' '$tmp/wk.err') = 2 && grep -qx 'aout2elf: a worker process failed' '$tmp/wk.err' && grep -q '^aout2elf: 0 converted, 0 up-to-date, 0 skipped, 2 failed' '$tmp/wk.err' && test -z \"\$(ls -A '$tmp/wkout')\""
	# where the file system has no O_TMPFILE: the named temporary file
	run_capture "$tmp/eio3" env LD_PRELOAD=./tests/helpers/eio.so EIO_SHIM=no-tmpfile "$AOUT2ELF" "$hello" "$tmp/new/out"
	check "no O_TMPFILE: converted through a named temporary file, none left" sh -c "test \$(cat '$tmp/eio3.rc') = 0 && test \"\$(ls -A '$tmp/new')\" = out && cmp -s '$tmp/new/out' '$tmp/quiet.elf'"
	rm -f "$tmp/new/out"
	run_capture "$tmp/eio4" env LD_PRELOAD=./tests/helpers/eio.so EIO_SHIM=no-tmpfile,eio "$AOUT2ELF" "$hello" "$tmp/new/out"
	check "no O_TMPFILE, EIO: exit 1, nothing in its folder" sh -c "test \$(cat '$tmp/eio4.rc') = 1 && test -z \"\$(ls -A '$tmp/new')\""
else
	skip "EIO shim: not built, or the converter is built with AddressSanitizer"
fi

# --- the converter itself is hardened ---
bin=$(command -v "$AOUT2ELF")
if readelf -h "$bin" 2>/dev/null | grep -q 'Type:.*DYN'; then
	check "the converter is PIE" true
	check "the converter has full RELRO" sh -c "readelf -lW '$bin' | grep -q GNU_RELRO && readelf -dW '$bin' | grep -q BIND_NOW"
	check "the converter is built with the stack protector" sh -c "nm -D '$bin' | grep -q __stack_chk_fail"
else
	not_ok "the converter is a PIE (readelf -h $bin)"
fi

# --- bash completion ---
comp=${srcdir:-.}/data/bash-completion/aout2elf
check "bash completion completes long options" bash -c "source '$comp'; COMP_WORDS=(aout2elf --no-e); COMP_CWORD=1; _aout2elf; test \"\${COMPREPLY[*]}\" = --no-embed-libs"
# every long option of --help, offered for "--"
bash -c "source '$comp'; COMP_WORDS=(aout2elf --); COMP_CWORD=1; _aout2elf; printf '%s\n' \"\${COMPREPLY[@]}\"" 2>&1 | sort -u >"$tmp/comp.opts"
check "bash completion offers every long option of --help" sh -c "test -s '$tmp/help.opts' && comm -23 '$tmp/help.opts' '$tmp/comp.opts' >'$tmp/comp-missing' && test ! -s '$tmp/comp-missing'"

# --- the make fragment ---
mkdir -p "$tmp/sdk"
cp "$td/hello.qmagic.aout" "$tmp/sdk/hello-a.out"
cat > "$tmp/sdk/Makefile" <<MK
include $(cd "${srcdir:-.}" && pwd)/data/aout2elf.mk
AOUT2ELF_PROGRAMS = hello
all: aout2elf-all
MK
check "the make fragment converts NAME-a.out into NAME.elf" make -s -C "$tmp/sdk" AOUT2ELF="$AOUT2ELF"
check "NAME.elf runs" test "$("$tmp/sdk/hello.elf")" = "hello from a.out"
check "the fragment does not redo an up-to-date program" sh -c "make -q -C '$tmp/sdk' AOUT2ELF='$AOUT2ELF' hello.elf"

finish
