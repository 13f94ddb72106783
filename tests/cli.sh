#!/bin/bash
# The command line: GNU conventions, batch mode with its report, --exec,
# the make fragment, and the man page against --help.
. "${srcdir:-.}/tests/lib.sh"
need_i386 "$@"

# In the VM of tools/run-in-vm, /tmp is the host's over 9p, which has no
# FIFOs: the VM's own tmpfs has.
if [ -n "${AOUT2ELF_IN_VM:-}" ] && [ -w /dev/shm ]; then
	e2e_setup cli /dev/shm
else
	e2e_setup cli
fi
hello=$TESTDATA/hello.qmagic.aout

# --- conventions ---
run_capture "$W/help" "$AOUT2ELF" --help
check "--help exits 0, on stdout, quiet on stderr" sh -c "test \$(cat '$W/help.rc') = 0 && grep -q '^Usage: ' '$W/help.out' && test ! -s '$W/help.err'"
run_capture "$W/ver" "$AOUT2ELF" --version
check "--version prints 'aout2elf VERSION'" grep -qE '^aout2elf [0-9]+\.[0-9]+' "$W/ver.out"
# standard output that cannot be written: one line, exit 1 (not 0, not silence)
if [ -w /dev/full ]; then
	for args in "--version" "--info $hello" "-v -f $hello $W/v.elf"; do
		# shellcheck disable=SC2086 # the words of args are the arguments
		"$AOUT2ELF" $args >/dev/full 2>"$W/full.err"
		echo $? >"$W/full.rc"
		check "'aout2elf $args' with stdout on /dev/full: exit 1, one line saying so" sh -c "test \$(cat '$W/full.rc') = 1 && test \"\$(cat '$W/full.err')\" = 'aout2elf: standard output: No space left on device'"
	done
else
	skip "no /dev/full: a standard output that cannot be written"
fi
for args in "" "a b c" "--bogus" "-j 0 -O d x" "-r x y" "--info" "--exec" \
	"--report r x y" "--info -O d x" "-O d" "-O d --exec x" "--info --exec x" \
	"x --exec y" "-j 2 --exec x" "--report r --exec x" "-r --exec x" "--json x" \
	"--json -O d x"; do
	# shellcheck disable=SC2086
	run_capture "$W/u" "$AOUT2ELF" $args
	check "usage error '$args' exits 2 and points at --help" sh -c "test \$(cat '$W/u.rc') = 2 && grep -q -- '--help' '$W/u.err' && test ! -s '$W/u.out'"
done
run_capture "$W/u" "$AOUT2ELF" -L "$W/no-such-folder" "$hello" "$W/l.elf"
check "-L with a missing folder exits 2 with one line naming it, and writes nothing" sh -c "test \$(cat '$W/u.rc') = 2 && test \$(wc -l < '$W/u.err') = 1 && grep -q '^aout2elf: $W/no-such-folder: ' '$W/u.err' && test ! -e '$W/l.elf'"
check "... and names -L" test "$(cat "$W/u.err")" = "aout2elf: $W/no-such-folder: -L: No such file or directory"

# --- messages that give the command that fixes what they say ---
mkdir -p "$W/fix/bin" "$W/fix/lib" "$W/fix/out dir"
cp "$hello" "$W/fix/bin/hello"
cp "$TESTDATA/dyn.qmagic.aout" "$W/fix/bin/dyn"
cp "$TESTDATA/libtiny.so.1" "$W/fix/lib/"
# INPUT alone: INPUT.elf beside it, never over anything without -f
run_capture "$W/fix1" "$AOUT2ELF" "$W/fix/bin/hello"
check "INPUT alone writes INPUT.elf beside it" sh -c "test \$(cat '$W/fix1.rc') = 0 && test ! -s '$W/fix1.err' && test \"\$('$W/fix/bin/hello.elf')\" = 'hello from a.out' && cmp -s '$hello' '$W/fix/bin/hello'"
run_capture "$W/fix2" "$AOUT2ELF" -s "$W/fix/bin/hello"
check "INPUT.elf exists: exit 1, one line with the command that replaces it" sh -c "test \$(cat '$W/fix2.rc') = 1 && test \"\$(cat '$W/fix2.err')\" = 'aout2elf: $W/fix/bin/hello.elf: already exists; to replace it: aout2elf -f -s $W/fix/bin/hello'"
# OUTPUT a directory: -O
run_capture "$W/fix3" "$AOUT2ELF" -s "$W/fix/bin/hello" "$W/fix/out dir"
check "OUTPUT a directory: exit 1, the -O command, the name quoted" sh -c "test \$(cat '$W/fix3.rc') = 1 && test \"\$(cat '$W/fix3.err')\" = \"aout2elf: $W/fix/out dir: is a directory; to convert into it: aout2elf -s -O '$W/fix/out dir' $W/fix/bin/hello\""
# a library not found, in ../lib beside the program: the -L that finds it
run_capture "$W/fix4" "$AOUT2ELF" "$W/fix/bin/dyn" "$W/fix/dyn.elf"
check "a library not found but near: exit 1, one line ending in the command with -L" sh -c "test \$(cat '$W/fix4.rc') = 1 && test \$(wc -l < '$W/fix4.err') = 1 && grep -q '^aout2elf: $W/fix/bin/dyn: needs the a.out library libtiny.so.1, not found in .*: aout2elf -L $W/fix/bin/../lib $W/fix/bin/dyn $W/fix/dyn.elf\$' '$W/fix4.err' && test ! -e '$W/fix/dyn.elf'"
run_capture "$W/fix5" sh -c "eval \"\$(sed 's/.*: aout2elf /\"\$0\" /' '$W/fix4.err')\"" "$AOUT2ELF"
check "... and that command converts it" sh -c "test \$(cat '$W/fix5.rc') = 0 && readelf -p .comment '$W/fix/dyn.elf' | grep -qF 'embeds $W/fix/lib/libtiny.so.1 (libtiny.so.1, '"
mv "$W/fix/lib/libtiny.so.1" "$W/fix/libtiny.so.x"
run_capture "$W/fix6" "$AOUT2ELF" "$W/fix/bin/dyn" "$W/fix/dyn2.elf"
check "a library nowhere near: the command with -L DIR" sh -c "test \$(cat '$W/fix6.rc') = 1 && grep -q ': aout2elf -L DIR $W/fix/bin/dyn $W/fix/dyn2.elf\$' '$W/fix6.err'"
# options after --exec FILE belong before it
run_capture "$W/fix7" "$AOUT2ELF" -q --exec --no-randomize -L "$W/fix/lib" "$W/fix/bin/hello" a "b c"
check "options after --exec: exit 2, one line with the command meant" sh -c "test \$(cat '$W/fix7.rc') = 2 && test \"\$(cat '$W/fix7.err')\" = \"aout2elf: --no-randomize: options go before --exec FILE: aout2elf -q --no-randomize -L $W/fix/lib --exec $W/fix/bin/hello a 'b c'\" && test ! -s '$W/fix7.out'"
run_capture "$W/fix8" "$AOUT2ELF" --exec --bogus "$W/fix/bin/hello"
check "... but not for an option aout2elf does not know" sh -c "test \$(cat '$W/fix8.rc') = 1 && test \"\$(cat '$W/fix8.err')\" = 'aout2elf: --bogus: No such file or directory'"
# batch mode: -r and -L for the whole batch (a rerun of what is up to date
# only reads headers), -f for the one file (the whole batch with -f would
# replace every file aout2elf did not write)
mkdir -p "$W/fixb/bin" "$W/fixb/lib" "$W/fixb/out" "$W/fixb/tree"
cp "$hello" "$W/fixb/tree/hello"
cp "$TESTDATA/dyn.qmagic.aout" "$W/fixb/bin/dyn"
cp "$TESTDATA/libtiny.so.1" "$W/fixb/lib/"
printf 'mine' >"$W/fixb/out/hello"
# the command of a message, run as it is printed
fix_run() {
	run_capture "$1" sh -c "eval \"\$(sed -n '1s/.*: aout2elf /\"\$0\" /p' '$2')\"" "$AOUT2ELF"
}
run_capture "$W/fixb1" "$AOUT2ELF" -s -O "$W/fixb/out" --report "$W/fixb1.json" "$W/fixb/tree/hello"
check "-O, a file aout2elf did not write at OUTPUT: exit 1, one line with the one conversion that replaces it" sh -c "test \$(cat '$W/fixb1.rc') = 1 && grep -qxF \"aout2elf: $W/fixb/out/hello: exists, and is neither aout2elf's output nor a copy of the input; to replace it: aout2elf --strip -f $W/fixb/tree/hello $W/fixb/out/hello\" '$W/fixb1.err' && test \"\$(cat '$W/fixb/out/hello')\" = mine"
check "... the report's reason says the same" grep -qF "\"reason\": \"exists, and is neither aout2elf's output nor a copy of the input; to replace it: aout2elf --strip -f $W/fixb/tree/hello $W/fixb/out/hello\"}" "$W/fixb1.json"
fix_run "$W/fixb2" "$W/fixb1.err"
run_capture "$W/fixb3" "$AOUT2ELF" -s -O "$W/fixb/out" --report "$W/fixb3.json" "$W/fixb/tree/hello"
check "... that command replaces it, and the batch then finds it up to date" sh -c "test \$(cat '$W/fixb2.rc') = 0 && test \"\$('$W/fixb/out/hello')\" = 'hello from a.out' && test \$(cat '$W/fixb3.rc') = 0 && grep -q '\"status\": \"up-to-date\"' '$W/fixb3.json'"
run_capture "$W/fixb4" "$AOUT2ELF" -O "$W/fixb/o4" "$W/fixb/tree"
check "-O, a directory without -r: exit 1, the batch again with -r" sh -c "test \$(cat '$W/fixb4.rc') = 1 && grep -qxF 'aout2elf: $W/fixb/tree: is a directory; to convert its tree: aout2elf -r -O $W/fixb/o4 $W/fixb/tree' '$W/fixb4.err'"
fix_run "$W/fixb5" "$W/fixb4.err"
check "... and that command converts the tree" sh -c "test \$(cat '$W/fixb5.rc') = 0 && test \"\$('$W/fixb/o4/hello')\" = 'hello from a.out'"
run_capture "$W/fixb6" "$AOUT2ELF" -O "$W/fixb/o6" "$W/fixb/bin/dyn"
check "-O, a library not found but near: exit 1, the batch again with -L" sh -c "test \$(cat '$W/fixb6.rc') = 1 && grep -q '^aout2elf: $W/fixb/bin/dyn: needs the a.out library libtiny.so.1, not found in .*: aout2elf -L $W/fixb/bin/../lib -O $W/fixb/o6 $W/fixb/bin/dyn\$' '$W/fixb6.err'"
fix_run "$W/fixb7" "$W/fixb6.err"
check "... and that command converts it" sh -c "test \$(cat '$W/fixb7.rc') = 0 && readelf -p .comment '$W/fixb/o6/dyn' | grep -qF 'embeds $W/fixb/lib/libtiny.so.1 (libtiny.so.1, '"

# --- --info of a converted program, --info --json ---
run_capture "$W/inf1" "$AOUT2ELF" --info "$W/fix/dyn.elf"
sha=$(sha256sum <"$TESTDATA/dyn.qmagic.aout" | cut -d' ' -f1)
size=$(wc -c <"$TESTDATA/dyn.qmagic.aout")
check "--info of a converted program: by what, from what, with which library" sh -c "test \$(cat '$W/inf1.rc') = 0 && grep -qxE '  Converted by: +aout2elf [0-9.]+' '$W/inf1.out' && grep -qxE '  Options: +-L $W/fix/lib' '$W/inf1.out' && grep -qxE '  Converted from: +QMAGIC a.out, $size bytes, sha256 $sha' '$W/inf1.out' && grep -qE '^  Embeds: +libtiny.so.1, from $W/fix/lib/libtiny.so.1 \\([0-9]+ bytes, modified [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}\\.[0-9]{9}Z\\)\$' '$W/inf1.out'"
run_capture "$W/inf2" "$AOUT2ELF" --info --json "$TESTDATA/dyn.qmagic.aout" "$W/fix/dyn.elf" "$W/fix/libtiny.so.x"
check "--info --json: one object a line, the a.out's sha256 in both" sh -c "test \$(cat '$W/inf2.rc') = 0 && test \$(wc -l < '$W/inf2.out') = 3 && test \$(grep -c '\"sha256\": \"$sha\"' '$W/inf2.out') = 2 && grep -q '^{\"file\": \"$W/fix/dyn.elf\", \"kind\": \"converted\", \"format\": \"QMAGIC\", \"size\": $size, ' '$W/inf2.out' && grep -q '\"kind\": \"library\"' '$W/inf2.out'"
if command -v python3 >/dev/null; then
	check "--info --json prints JSON" python3 -c "import json,sys; [json.loads(l) for l in open(sys.argv[1])]" "$W/inf2.out"
else
	skip "no python3: --info --json read as JSON"
fi
# getopt's own messages name the tool as ours do, however it was started
run_capture "$W/bogus" "$(cd "$(dirname "$AOUT2ELF")" && pwd)/$(basename "$AOUT2ELF")" --bogus
check "an unknown option: 'aout2elf: unrecognized option', however the tool was started" sh -c "test \$(cat '$W/bogus.rc') = 2 && test \"\$(head -1 '$W/bogus.err')\" = \"aout2elf: unrecognized option '--bogus'\""
run_capture "$W/sr1" "$AOUT2ELF" --sysroot "$W/no-such-root" "$hello" "$W/sr1.elf"
check "--sysroot with a missing directory exits 2 with one line naming it, and writes nothing" sh -c "test \$(cat '$W/sr1.rc') = 2 && test \$(wc -l < '$W/sr1.err') = 1 && grep -q '^aout2elf: $W/no-such-root: ' '$W/sr1.err' && test ! -e '$W/sr1.elf'"
run_capture "$W/sr2" "$AOUT2ELF" --sysroot "$hello" "$hello" "$W/sr2.elf"
check "--sysroot with a file exits 2 saying it takes a directory" sh -c "test \$(cat '$W/sr2.rc') = 2 && test \"\$(cat '$W/sr2.err')\" = 'aout2elf: $hello: --sysroot takes a directory, the old system'\\''s root' && test ! -e '$W/sr2.elf'"

# -L folders that the converted program could not keep: a usage error
ldirs=()
for i in 1 2 3 4 5; do
	mkdir -p "$W/ld/$i$(printf 'y%.0s' $(seq 1 240))"
	ldirs+=(-L "$W/ld/$i$(printf 'y%.0s' $(seq 1 240))")
done
run_capture "$W/ldlong" "$AOUT2ELF" "${ldirs[@]}" "$hello" "$W/ldlong.elf"
check "-L folders longer than 1024 bytes in all: exit 2, one line, nothing written" sh -c "test \$(cat '$W/ldlong.rc') = 2 && test \$(wc -l < '$W/ldlong.err') = 1 && grep -q 'longer than 1024 bytes in all' '$W/ldlong.err' && test ! -e '$W/ldlong.elf'"
# an a.out shared library where a program is expected: named as one
lib_err="aout2elf: $TESTDATA/libtiny.so.1: an a.out shared library, not a program (use it with -L)"
mkdir -p "$W/c:d"
run_capture "$W/colon" "$AOUT2ELF" -L "$W/c:d" "$hello" "$W/colon.elf"
check "-L with ':' in the directory's name: exit 2, one line saying so, nothing written" sh -c "test \$(cat '$W/colon.rc') = 2 && test \"\$(cat '$W/colon.err')\" = \"aout2elf: $W/c:d: a -L directory cannot have ':' in its name\" && test ! -e '$W/colon.elf'"
run_capture "$W/lib" "$AOUT2ELF" "$TESTDATA/libtiny.so.1" "$W/lib.elf"
check "a shared library as INPUT: exit 1, one line saying what it is, no output" sh -c "test \$(cat '$W/lib.rc') = 1 && test \"\$(cat '$W/lib.err')\" = '$lib_err' && test ! -e '$W/lib.elf'"
run_capture "$W/libx" "$AOUT2ELF" --exec "$TESTDATA/libtiny.so.1"
check "a shared library given to --exec: exit 1, the same line" sh -c "test \$(cat '$W/libx.rc') = 1 && test \"\$(cat '$W/libx.err')\" = '$lib_err'"
run_capture "$W/q" "$AOUT2ELF" "$hello" "$W/quiet.elf"
check "a conversion is silent" sh -c "test \$(cat '$W/q.rc') = 0 && test ! -s '$W/q.out' && test ! -s '$W/q.err'"
# -s: a damaged string table is no reason to refuse a program that ran
# a name with a newline (or a tab) cannot split a diagnostic into two
# lines or forge a second one: it is shown as bash's $'...' reads it back
run_capture "$W/nl" "$AOUT2ELF" "$W/$(printf 'no\nsuch')" "$W/nl.elf"
printf "aout2elf: \$'%s/no\\\\nsuch': No such file or directory\n" "$W" >"$W/nl.want"
check "a missing INPUT named with a newline: exit 1, one line, the name as \$'...\\n...'" sh -c "test \$(cat '$W/nl.rc') = 1 && cmp -s '$W/nl.want' '$W/nl.err'"
mkdir -p "$W/nlout"
cp "$hello" "$W/$(printf "it's\ta")"
printf 'keep me' >"$W/nlout/$(printf "it's\ta")"
run_capture "$W/nlb" "$AOUT2ELF" -O "$W/nlout" "$W/$(printf "it's\ta")"
printf "aout2elf: \$'%s/nlout/it\\\\'s\\\\ta': exists, and is neither aout2elf's output nor a copy of the input; to replace it: aout2elf -f \$'%s/it\\\\'s\\\\ta' \$'%s/nlout/it\\\\'s\\\\ta'\n" "$W" "$W" "$W" >"$W/nlb.want"
check "-O, an output named with a tab and a quote in the way: one line, \$'...\\'...\\t...'" sh -c "test \$(cat '$W/nlb.rc') = 1 && head -1 '$W/nlb.err' | cmp -s '$W/nlb.want' -"
head -c -1 "$hello" >"$W/cut.aout"
run_capture "$W/cut" "$AOUT2ELF" "$W/cut.aout" "$W/cut.elf"
check "a string table one byte short: exit 1, one line, no output" sh -c "test \$(cat '$W/cut.rc') = 1 && test \$(wc -l < '$W/cut.err') = 1 && grep -q '^aout2elf: $W/cut.aout: truncated: the string table claims' '$W/cut.err' && test ! -e '$W/cut.elf'"
for opt in -s --strip; do
	run_capture "$W/cut$opt" "$AOUT2ELF" "$opt" "$W/cut.aout" "$W/cut$opt.elf"
	check "$opt converts it, silently, with no symbol table" sh -c "test \$(cat '$W/cut$opt.rc') = 0 && test ! -s '$W/cut$opt.err' && readelf -SW '$W/cut$opt.elf' >'$W/cut$opt.sec' && grep -q '\.text' '$W/cut$opt.sec' && ! grep -qE '\.symtab|\.stab' '$W/cut$opt.sec'"
done
run_capture "$W/cutrun" "$W/cut-s.elf"
check "... and the output runs" sh -c "test \$(cat '$W/cutrun.rc') = 0 && test \"\$(cat '$W/cutrun.out')\" = 'hello from a.out' && test ! -s '$W/cutrun.err'"
run_capture "$W/cutinfo" "$AOUT2ELF" --info -s "$W/cut.aout"
check "--info -s: the symbols are left out, unread" sh -c "test \$(cat '$W/cutinfo.rc') = 0 && grep -q 'Symbols: *left out (-s), [0-9]* bytes unread' '$W/cutinfo.out'"
# mode: the input's, x wherever r is, never setuid or setgid, less umask
cp "$hello" "$W/modes.aout"
chmod 6664 "$W/modes.aout"
(umask 027 && "$AOUT2ELF" "$W/modes.aout" "$W/modes.elf")
check "the output's mode: 6664 in, umask 027: 750 out" test "$(stat -c %a "$W/modes.elf")" = 750
run_capture "$W/v" "$AOUT2ELF" -v "$hello" "$W/verbose.elf"
check "-v says what was converted, on stdout" grep -q "^'.*' -> '.*verbose.elf' (QMAGIC, static)$" "$W/v.out"
# names from an archive are quoted as the shell reads them back: a newline
# or an escape sequence in one reaches neither the line nor the terminal
mkdir -p "$W/odd"
cp "$hello" "$W/odd/a
b"
cp "$hello" "$W/odd/it's"
cp "$hello" "$W/odd/$(printf 'x\033[31my')"
run_capture "$W/vodd" "$AOUT2ELF" -v -r -j 1 -O "$W/oddout" "$W/odd"
check "-v: a name with a newline is one \$'...' line, a quote is '\\''" sh -c "test \$(cat '$W/vodd.rc') = 0 && test \$(wc -l <'$W/vodd.out') = 3 && grep -qF \"\$'$W/odd/a\\nb' -> \$'$W/oddout/a\\nb' (QMAGIC, static)\" '$W/vodd.out' && grep -qF \"'$W/odd/it'\\''s' -> \" '$W/vodd.out' && ! grep -q \"\$(printf '\\033')\" '$W/vodd.out'"
run_capture "$W/iodd" "$AOUT2ELF" --info "$W/odd/a
b"
check "--info: the file name with a newline on one line" sh -c "test \$(cat '$W/iodd.rc') = 0 && head -1 '$W/iodd.out' | grep -qxF \"\$'$W/odd/a\\nb':\""

# warnings: each its own line, prefixed, ending in a newline, long paths too
run_capture "$W/w2" "$AOUT2ELF" --no-embed-libs "$TESTDATA/dynmissing.qmagic.aout" "$W/w2.elf"
check "two libraries not found: two warning lines, each prefixed" sh -c "test \$(cat '$W/w2.rc') = 0 && test \$(grep -c 'not found here' '$W/w2.err') = 2 && ! grep -qv '^aout2elf: warning: ' '$W/w2.err'"
longtop=$W/$(printf 'd%.0s' $(seq 120))
long=$longtop/$(printf 'e%.0s' $(seq 120))/$(printf 'f%.0s' $(seq 120))
mkdir -p "$long"
run_capture "$W/w3" "$AOUT2ELF" --no-embed-libs "$TESTDATA/dynmissing.qmagic.aout" "$long/$(printf 'g%.0s' $(seq 120))"
check "warnings about a long OUTPUT path: whole lines, prefixed, the last one ended" sh -c "test \$(cat '$W/w3.rc') = 0 && test -s '$W/w3.err' && ! grep -qv '^aout2elf: warning: ' '$W/w3.err' && test \"\$(tail -c 1 '$W/w3.err' | od -An -c | tr -d ' ')\" = '\\n'"
rm -rf "$longtop"

# --- man page and --help name the same long options ---
man_page=${srcdir:-.}/man/aout2elf.1
help_opts=$(grep -o -- '--[a-z][a-z-]*' "$W/help.out" | sort -u)
man_opts=$( { grep -o 'Fl -[a-z][a-z-]*' "$man_page" | sed 's/^Fl -/--/'; } | sort -u)
# files, not <(...): the VM's /dev may have no /dev/fd, and a comm that
# cannot read its input must fail the check, not pass it empty
echo "$help_opts" >"$W/help.opts"
echo "$man_opts" >"$W/man.opts"
check "--help names long options at all" test "$(wc -l <"$W/help.opts")" -ge 10
check "every long option of --help is in the man page" sh -c "comm -23 '$W/help.opts' '$W/man.opts' >'$W/help-only' && test ! -s '$W/help-only'"
check "every long option of the man page is in --help" sh -c "comm -13 '$W/help.opts' '$W/man.opts' >'$W/man-only' && test ! -s '$W/man-only'"

# --- batch mode ---
mkdir -p "$W/arch/bin" "$W/arch/lib"
cp "$TESTDATA/hello.qmagic.aout" "$W/arch/bin/hello"
cp "$TESTDATA/startup.qmagic.aout" "$W/arch/bin/startup"
cp "$TESTDATA/hello.omagic.aout" "$W/arch/hello-o"
echo "not a program" > "$W/arch/README.txt"
printf '\007\001\144\000short' > "$W/arch/bin/broken"
# a link to an a.out outside the tree: followed, it would be converted
mkdir -p "$W/elsewhere"
cp "$TESTDATA/hello.qmagic.aout" "$W/elsewhere/prog"
ln -s ../../elsewhere/prog "$W/arch/bin/outside"
# an archive holds the libraries beside the programs, maybe a FIFO
cp "$TESTDATA/libtiny.so.1" "$W/arch/lib/libtiny.so.1"
# (not over 9p, as in the VM of tools/run-in-vm)
nfifo=0
mkfifo "$W/arch/lib/fifo" 2>/dev/null && nfifo=1
run_capture "$W/b1" "$AOUT2ELF" -q -r -j 2 -O "$W/out" --report "$W/r1.json" "$W/arch"
check "batch with a broken a.out exits 1" test "$(cat "$W/b1.rc")" = 1
check "batch reports the broken file in one line" test "$(grep -c "broken: truncated a.out header" "$W/b1.err")" = 1
check "batch -q prints nothing else" test "$(wc -l < "$W/b1.err")" = 1
check "the tree is mirrored under -O" test -x "$W/out/bin/hello" -a -x "$W/out/hello-o" -a -x "$W/out/bin/startup"
check "non-a.out files are not copied" test ! -e "$W/out/README.txt"
check "symlinks are not followed" test -f "$W/arch/bin/outside" -a ! -e "$W/out/bin/outside" -a ! -L "$W/out/bin/outside"
check "a converted file runs" test "$("$W/out/bin/hello")" = "hello from a.out"
check "report: converted entry" grep -qF "{\"input\": \"$W/arch/bin/hello\", \"output\": \"$W/out/bin/hello\", \"status\": \"converted\", \"format\": \"QMAGIC\", \"dynamic\": false, \"libraries\": [], \"reason\": null}" "$W/r1.json"
check "report: skipped text file" grep -qF "\"input\": \"$W/arch/README.txt\", \"output\": \"$W/out/README.txt\", \"status\": \"skipped\", \"format\": null, \"dynamic\": null, \"libraries\": [], \"reason\": \"not an a.out executable\"}" "$W/r1.json"
check "report: skipped symlink" grep -qF "\"status\": \"skipped\", \"format\": null, \"dynamic\": null, \"libraries\": [], \"reason\": \"symbolic link, not followed\"}" "$W/r1.json"
check "report: failed entry with its reason" grep -qF "\"status\": \"failed\", \"format\": \"OMAGIC\", \"dynamic\": null, \"libraries\": [], \"reason\": \"truncated a.out header (9 of 32 bytes)\"}" "$W/r1.json"
check "report: an a.out shared library is skipped, with a hint" grep -qF "{\"input\": \"$W/arch/lib/libtiny.so.1\", \"output\": \"$W/out/lib/libtiny.so.1\", \"status\": \"skipped\", \"format\": \"QMAGIC\", \"dynamic\": null, \"libraries\": [], \"reason\": \"an a.out shared library, not a program (use it with -L)\"}" "$W/r1.json"
if [ "$nfifo" = 0 ]; then
	skip "report: a FIFO is skipped, not opened (mkfifo is not possible here)"
else
	check "report: a FIFO is skipped, not opened" grep -qF "{\"input\": \"$W/arch/lib/fifo\", \"output\": \"$W/out/lib/fifo\", \"status\": \"skipped\", \"format\": null, \"dynamic\": null, \"libraries\": [], \"reason\": \"not a regular file\"}" "$W/r1.json"
fi
check "neither is written under -O" test ! -e "$W/out/lib/libtiny.so.1" -a ! -e "$W/out/lib/fifo"
check "report: one object per file" test "$(grep -c '"input"' "$W/r1.json")" = $((7 + nfifo))
check "report: a JSON array" sh -c "head -1 '$W/r1.json' | grep -qx '\[' && tail -1 '$W/r1.json' | grep -qx '\]'"
# large files are judged by their header first: a 3 GiB disk image is
# skipped (it was a failure, "too large"), a padded a.out still converts
mkdir -p "$W/bigarch"
truncate -s 3G "$W/bigarch/disk.img"
cp "$hello" "$W/bigarch/padded"
truncate -s 300K "$W/bigarch/padded"
run_capture "$W/bigb" "$AOUT2ELF" -r -O "$W/bigout" --report "$W/bigr.json" "$W/bigarch"
check "a 3 GiB file that is no a.out: skipped, exit 0" sh -c "test \$(cat '$W/bigb.rc') = 0 && grep -qF '\"input\": \"$W/bigarch/disk.img\", \"output\": \"$W/bigout/disk.img\", \"status\": \"skipped\"' '$W/bigr.json'"
check "a padded a.out above the peek size: converted" sh -c "grep -qF '\"input\": \"$W/bigarch/padded\", \"output\": \"$W/bigout/padded\", \"status\": \"converted\"' '$W/bigr.json' && test -x '$W/bigout/padded'"
rm -rf "$W/bigarch" "$W/bigout"
rm "$W/arch/bin/broken"
run_capture "$W/b2" "$AOUT2ELF" -r -O "$W/out" --report "$W/r2.json" "$W/arch"
check "a rerun over converted files exits 0" test "$(cat "$W/b2.rc")" = 0
check "a rerun finds them up-to-date" test "$(grep -c '"status": "up-to-date"' "$W/r2.json")" = 3
check "the summary line counts them" grep -qE "^aout2elf: 0 converted, 3 up-to-date, $((3 + nfifo)) skipped, 0 failed, in [0-9.]+s\$" "$W/b2.err"
touch "$W/arch/bin/hello"
run_capture "$W/b3" "$AOUT2ELF" -q -r -O "$W/out" --report "$W/r3.json" "$W/arch"
check "a newer input is converted again" test "$(grep -c '"status": "converted"' "$W/r3.json")" = 1
run_capture "$W/b4" "$AOUT2ELF" -q -f -r -j 1 -O "$W/out" --report "$W/r4.json" "$W/arch"
check "-f converts everything again" test "$(grep -c '"status": "converted"' "$W/r4.json")" = 3
# a rerun with options that change the outputs converts again; -j, -q
# and --report change nothing in them
run_capture "$W/b6" "$AOUT2ELF" -q -s -r -j 2 -O "$W/out" --report "$W/r6.json" "$W/arch"
check "a rerun with -s converts everything again, stripped" sh -c "test \$(grep -c '\"status\": \"converted\"' '$W/r6.json') = 3 && readelf -p .comment '$W/out/bin/hello' | grep -q 'aout2elf .* (--strip)' && ! readelf -S '$W/out/bin/hello' | grep -q symtab"
run_capture "$W/b7" "$AOUT2ELF" -s -r -j 1 -O "$W/out" "$W/arch"
check "... and once more with -s, at -j1: all up-to-date" sh -c "test \$(cat '$W/b7.rc') = 0 && tail -1 '$W/b7.err' | grep -q '^aout2elf: 0 converted, 3 up-to-date, '"
run_capture "$W/b8" "$AOUT2ELF" -q -r -O "$W/out" --report "$W/r8.json" "$W/arch"
check "... then without -s: converted again, with symbols" sh -c "test \$(grep -c '\"status\": \"converted\"' '$W/r8.json') = 3 && readelf -S '$W/out/bin/hello' | grep -q symtab"
# an output depends on the libraries it carries, as on its input
mkdir -p "$W/darch" "$W/dlib"
cp "$TESTDATA/dyn.qmagic.aout" "$W/darch/dyn"
cp "$TESTDATA/libtiny.so.1" "$W/dlib/"
touch -d '2 hours ago' "$W/darch/dyn" "$W/dlib/libtiny.so.1"
run_capture "$W/d1" "$AOUT2ELF" -q -r -L "$W/dlib" -O "$W/dout" "$W/darch"
check "a dynamic program's output names the library it carries" sh -c "test \$(cat '$W/d1.rc') = 0 && readelf -p .comment '$W/dout/dyn' | grep -qF 'embeds $W/dlib/libtiny.so.1'"
run_capture "$W/d2" "$AOUT2ELF" -r -L "$W/dlib" -O "$W/dout" --report "$W/d2.json" "$W/darch"
check "... a rerun finds it up-to-date" grep -q '"status": "up-to-date"' "$W/d2.json"
touch "$W/dlib/libtiny.so.1"
run_capture "$W/d3" "$AOUT2ELF" -r -L "$W/dlib" -O "$W/dout" --report "$W/d3.json" "$W/darch"
check "... a newer library: converted again" grep -q '"status": "converted"' "$W/d3.json"
run_capture "$W/d4" "$AOUT2ELF" -r -L "$W/dlib" -O "$W/dout" --report "$W/d4.json" "$W/darch"
check "... and then up-to-date" grep -q '"status": "up-to-date"' "$W/d4.json"
# an older copy over it (cp -p keeps the older date): changed all the same
cp "$W/dlib/libtiny.so.1" "$W/libtiny.copy"
touch -d '3 hours ago' "$W/libtiny.copy"
cp -p "$W/libtiny.copy" "$W/dlib/libtiny.so.1"
run_capture "$W/d4b" "$AOUT2ELF" -r -L "$W/dlib" -O "$W/dout" --report "$W/d4b.json" "$W/darch"
check "... an older copy put over it (cp -p): converted again" grep -q '"status": "converted"' "$W/d4b.json"
mv "$W/dlib/libtiny.so.1" "$W/dlib/moved"
cp "$W/dout/dyn" "$W/dyn.kept"
run_capture "$W/d5" "$AOUT2ELF" -r -L "$W/dlib" -O "$W/dout" --report "$W/d5.json" "$W/darch"
check "... the library gone: failed, saying so, and the output kept" sh -c "test \$(cat '$W/d5.rc') = 1 && grep -q '\"status\": \"failed\".*libtiny.so.1' '$W/d5.json' && cmp -s '$W/dyn.kept' '$W/dout/dyn'"
# a library put where the search looks first shadows the embedded one
mkdir -p "$W/sarch" "$W/sfirst" "$W/ssecond"
cp "$TESTDATA/dyn.qmagic.aout" "$W/sarch/dyn"
cp "$TESTDATA/libtiny.so.1" "$W/ssecond/"
run_capture "$W/s1" "$AOUT2ELF" -q -r -L "$W/sfirst" -L "$W/ssecond" -O "$W/sout" "$W/sarch"
mkdir "$W/sfirst/libtiny.so.1"
run_capture "$W/s2" "$AOUT2ELF" -r -L "$W/sfirst" -L "$W/ssecond" -O "$W/sout" --report "$W/s2.json" "$W/sarch"
check "a folder by the library's name earlier in the search: still up-to-date" sh -c "test \$(cat '$W/s1.rc') = 0 && grep -q '\"status\": \"up-to-date\"' '$W/s2.json'"
rmdir "$W/sfirst/libtiny.so.1"
cp -p "$TESTDATA/libtiny.so.1" "$W/sfirst/"
run_capture "$W/s3" "$AOUT2ELF" -r -L "$W/sfirst" -L "$W/ssecond" -O "$W/sout" --report "$W/s3.json" "$W/sarch"
check "... the library itself there: converted again, carrying that one" sh -c "grep -q '\"status\": \"converted\"' '$W/s3.json' && readelf -p .comment '$W/sout/dyn' | grep -qF 'embeds $W/sfirst/libtiny.so.1 (libtiny.so.1, '"
run_capture "$W/s4" "$AOUT2ELF" -r -L "$W/sfirst" -L "$W/ssecond" -O "$W/sout" --report "$W/s4.json" "$W/sarch"
check "... and then up-to-date" grep -q '"status": "up-to-date"' "$W/s4.json"
run_capture "$W/b5" "$AOUT2ELF" -O "$W/out5" "$W/arch"
check "a folder without -r is a failure, with a hint" sh -c "test \$(cat '$W/b5.rc') = 1 && grep -qxF 'aout2elf: $W/arch: is a directory; to convert its tree: aout2elf -r -O $W/out5 $W/arch' '$W/b5.err'"
# two INPUTs of one name into one -O DIR: the first is converted, the
# second fails rather than replace it; one INPUT twice, under other
# spellings of its name too, is converted once
mkdir -p "$W/twice/a" "$W/twice/b"
cp "$hello" "$W/twice/a/prog"
cp "$TESTDATA/startup.qmagic.aout" "$W/twice/b/prog"
run_capture "$W/tw" "$AOUT2ELF" -q -j 2 -O "$W/twout" "$W/twice/a/prog" "$W/twice/b/prog" "$W/twice/a/prog" "$W/twice/./a//prog"
check "two INPUTs of one name: exit 1, the second fails, naming the first" sh -c "test \$(cat '$W/tw.rc') = 1 && test \"\$(cat '$W/tw.err')\" = 'aout2elf: $W/twice/b/prog: would overwrite $W/twout/prog, the output of $W/twice/a/prog (convert them apart, or their directories with -r)'"
check "two INPUTs of one name: the output is the first's" test "$("$W/twout/prog")" = "hello from a.out"
run_capture "$W/tw2" "$AOUT2ELF" -O "$W/twout" "$W/twice/a/prog" "$W/twice/b/prog" "$W/twice/a/prog" "$W/twice/./a//prog"
check "a rerun: the first is up-to-date, the second still fails, the repeats are skipped" sh -c "test \$(cat '$W/tw2.rc') = 1 && tail -1 '$W/tw2.err' | grep -q '^aout2elf: 0 converted, 1 up-to-date, 2 skipped, 1 failed, '"
# two names of one output file (here a folder linked into -O DIR; a file
# system that ignores case does the same to "Prog" and "prog"): the file
# written first stays, the other entry fails, at -j1 and -j2, and on a
# rerun, when the file is already there, too
for j in 1 2; do
	mkdir -p "$W/lk$j/out/b"
	ln -s b "$W/lk$j/out/a"
	run_capture "$W/lk$j" "$AOUT2ELF" -q -j $j -r -O "$W/lk$j/out" "$W/twice"
	check "-j$j, two names of one output: exit 1, one line, the file that stays is one entry's" sh -c "test \$(cat '$W/lk$j.rc') = 1 && test \$(wc -l < '$W/lk$j.err') = 1 && grep -q '^aout2elf: $W/twice/[ab]/prog: would overwrite $W/lk$j/out/[ab]/prog, just written for $W/twice/[ab]/prog under another name of the same file (a linked directory, or a file system that ignores case)$' '$W/lk$j.err'"
done
check "-j1, two names of one output: the file is the first entry's" test "$("$W/lk1/out/b/prog")" = "hello from a.out"
run_capture "$W/lk1b" "$AOUT2ELF" -j 1 -r -O "$W/lk1/out" "$W/twice"
check "... a rerun: the first is up-to-date, the other still fails" sh -c "test \$(cat '$W/lk1b.rc') = 1 && grep -qx 'aout2elf: $W/twice/b/prog: would overwrite $W/lk1/out/b/prog, which is also $W/lk1/out/a/prog, the output of $W/twice/a/prog (a linked directory, or a file system that ignores case)' '$W/lk1b.err' && tail -1 '$W/lk1b.err' | grep -q '^aout2elf: 0 converted, 1 up-to-date, 0 skipped, 1 failed, '"
check "... and the file is still the first entry's" test "$("$W/lk1/out/b/prog")" = "hello from a.out"
# "--report prog1 prog2": the report must not replace the a.out prog1
cp "$hello" "$W/twice/keep"
run_capture "$W/rep" "$AOUT2ELF" -O "$W/repout" --report "$W/twice/keep" "$W/twice/b/prog"
check "--report naming an a.out: exit 2, one line, the file intact, nothing converted" sh -c "test \$(cat '$W/rep.rc') = 2 && test \"\$(cat '$W/rep.err')\" = 'aout2elf: $W/twice/keep: exists and is not a report; refusing to overwrite it' && cmp -s '$hello' '$W/twice/keep' && test ! -e '$W/repout'"
# "cp -a archive converted" first: the copies, as new as their a.out, are
# not up-to-date conversions
cp -a "$W/twice/a" "$W/cpa"
run_capture "$W/cparun" "$AOUT2ELF" -q -r -O "$W/cpa" "$W/twice/a"
check "an a.out copied to OUTPUT with its date is converted, not up-to-date" sh -c "test \$(cat '$W/cparun.rc') = 0 && test \"\$('$W/cpa/prog')\" = 'hello from a.out' && head -c 4 '$W/cpa/prog' | grep -q ELF"
# -O naming the input's own folder: OUTPUT is INPUT, which is no conversion
mkdir "$W/same" && cp "$hello" "$W/same/prog"
run_capture "$W/samerun" "$AOUT2ELF" -O "$W/same" "$W/same/prog"
check "-O into the input's own folder: a failure, not up-to-date, input intact" sh -c "test \$(cat '$W/samerun.rc') = 1 && grep -qx 'aout2elf: $W/same/prog: is the input file; refusing to overwrite it' '$W/samerun.err' && cmp -s '$hello' '$W/same/prog' && test \$(ls -A '$W/same' | wc -l) = 1"
# -O DIR among the inputs' folders: an input of the run is never replaced,
# not even with -f, whatever order the workers take the entries in
mkdir -p "$W/ov/a" "$W/ov/d"
cp "$hello" "$W/ov/a/prog"
cp "$TESTDATA/startup.qmagic.aout" "$W/ov/d/prog"
for j in 1 2; do
	run_capture "$W/ov$j" "$AOUT2ELF" -q -f -j $j -O "$W/ov/d" "$W/ov/a/prog" "$W/ov/d/prog"
	check "-O DIR holding another INPUT (-j $j, -f): exit 1, that input intact" sh -c "test \$(cat '$W/ov$j.rc') = 1 && cmp -s '$TESTDATA/startup.qmagic.aout' '$W/ov/d/prog' && cmp -s '$hello' '$W/ov/a/prog'"
done
check "-O DIR holding another INPUT: the reason names it as an input" grep -qxF "aout2elf: $W/ov/d/prog: is an input of this batch; refusing to overwrite it" "$W/ov1.err"
# -r with -O DIR inside the tree: DIR is not walked; a different a.out
# there by an output's name stays, unless -f
mkdir -p "$W/ovr/sub"
cp "$hello" "$W/ovr/prog"
cp "$TESTDATA/startup.qmagic.aout" "$W/ovr/sub/prog"
run_capture "$W/ovr1" "$AOUT2ELF" -r -O "$W/ovr/sub" --report "$W/ovr1.json" "$W/ovr"
check "-r, -O DIR inside the tree: DIR is not walked" sh -c "grep -qF '\"input\": \"$W/ovr/prog\"' '$W/ovr1.json' && ! grep -qF '\"input\": \"$W/ovr/sub/' '$W/ovr1.json'"
check "-r, -O DIR inside the tree: the a.out in DIR stays, exit 1, one line" sh -c "test \$(cat '$W/ovr1.rc') = 1 && cmp -s '$TESTDATA/startup.qmagic.aout' '$W/ovr/sub/prog' && grep -qxF \"aout2elf: $W/ovr/sub/prog: exists, and is neither aout2elf's output nor a copy of the input; to replace it: aout2elf -f $W/ovr/prog $W/ovr/sub/prog\" '$W/ovr1.err'"
run_capture "$W/ovr2" "$AOUT2ELF" -q -f -r -O "$W/ovr/sub" "$W/ovr"
check "-r, -O DIR inside the tree, -f: replaced" sh -c "test \$(cat '$W/ovr2.rc') = 0 && head -c 4 '$W/ovr/sub/prog' | grep -q ELF"
run_capture "$W/ovr3" "$AOUT2ELF" -r -O "$W/ovr/sub" --report "$W/ovr3.json" "$W/ovr"
check "-r, -O DIR inside the tree, a rerun: up-to-date, DIR still not walked" sh -c "test \$(cat '$W/ovr3.rc') = 0 && test \$(grep -c '\"input\"' '$W/ovr3.json') = 1 && grep -qF '\"status\": \"up-to-date\"' '$W/ovr3.json'"
# out of processes (ulimit -u): the batch goes on with the workers it could
# start, or with none, and still converts everything
if can_drop_privileges; then
	mkdir -p "$W/np/in" && chmod 777 "$W/np"
	for k in 1 2 3 4 5 6; do cp "$hello" "$W/np/in/p$k"; done
	chmod -R a+rX "$W/np/in"
	# LeakSanitizer's exit check starts a thread, which ulimit -u 1 refuses
	# (a fatal error of the sanitizer's, not of the converter's)
	for u in 1 2; do
		run_capture "$W/np$u" as_nobody env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" bash -c "ulimit -u $u && exec \"\$0\" -j 4 -r -O '$W/np/out$u' '$W/np/in'" "$AOUT2ELF"
		check "-j 4 with room for $((u - 1)) worker process(es): all 6 converted, exit 0" sh -c "test \$(cat '$W/np$u.rc') = 0 && test \$(ls '$W/np/out$u' | wc -l) = 6 && tail -1 '$W/np$u.err' | grep -q '^aout2elf: 6 converted, 0 up-to-date, 0 skipped, 0 failed, '"
	done
else
	skip "out of processes: needs root and setpriv (to be an ordinary user)"
	skip "out of processes, one worker: needs root and setpriv"
fi
# a symbolic link named as INPUT is followed, one found by -r is not
ln -s "$(cd "$TESTDATA" && pwd)/hello.qmagic.aout" "$W/ov/link"
run_capture "$W/lnk" "$AOUT2ELF" -q -O "$W/lnk.d" "$W/ov/link"
check "-O with a symbolic link as INPUT: followed, converted under the link's name" sh -c "test \$(cat '$W/lnk.rc') = 0 && test \"\$('$W/lnk.d/link')\" = 'hello from a.out'"
# --report naming one of the outputs: the converted program stays
run_capture "$W/repo" "$AOUT2ELF" -q -O "$W/repo.d" --report "$W/repo.d/prog" "$W/ov/a/prog"
check "--report naming an output: exit 1, the report not written, the program intact" sh -c "test \$(cat '$W/repo.rc') = 1 && grep -qxF 'aout2elf: $W/repo.d/prog: exists and is not a report; refusing to overwrite it' '$W/repo.err' && head -c 4 '$W/repo.d/prog' | grep -q ELF"

# --- what is in OUTPUT's or the report's place, and is not a file ---
mkdir -p "$W/nf/in" "$W/nf/out"
cp "$hello" "$W/nf/in/fifo"
cp "$hello" "$W/nf/in/link"
echo keep >"$W/nf/keep.txt"
ln -s ../keep.txt "$W/nf/out/link"
run_capture "$W/rdir" "$AOUT2ELF" -q -O "$W/nf/rout" --report "$W/nf" "$W/nf/in/link"
check "--report naming a folder: exit 2, one line, nothing converted" sh -c "test \$(cat '$W/rdir.rc') = 2 && test \"\$(cat '$W/rdir.err')\" = 'aout2elf: $W/nf: is a directory' && test ! -e '$W/nf/rout'"
printf '[section]\nkey=1\n' >"$W/nf/settings.ini"
run_capture "$W/rini" "$AOUT2ELF" -q -O "$W/nf/rout" --report "$W/nf/settings.ini" "$W/nf/in/link"
check "--report naming a file that begins with '[' but is no report: exit 2, kept" sh -c "test \$(cat '$W/rini.rc') = 2 && grep -qx 'key=1' '$W/nf/settings.ini'"
run_capture "$W/nflink" "$AOUT2ELF" -O "$W/nf/out" "$W/nf/in/link"
check "-O: a symbolic link at OUTPUT is kept without -f, and says so" sh -c "test \$(cat '$W/nflink.rc') = 1 && grep -qxF 'aout2elf: $W/nf/out/link: exists, and is a symbolic link; to replace the link: aout2elf -f $W/nf/in/link $W/nf/out/link' '$W/nflink.err' && test -L '$W/nf/out/link' && test \"\$(cat '$W/nf/keep.txt')\" = keep"
if mkfifo "$W/nf/out/fifo" "$W/nf/single" "$W/nf/report" 2>/dev/null; then
	run_capture "$W/nfs" "$AOUT2ELF" -f "$hello" "$W/nf/single"
	check "a FIFO as OUTPUT, even with -f: exit 1, one line, the FIFO stays" sh -c "test \$(cat '$W/nfs.rc') = 1 && test \"\$(cat '$W/nfs.err')\" = 'aout2elf: $W/nf/single: is not a regular file; refusing to replace it' && test -p '$W/nf/single'"
	run_capture "$W/nff" "$AOUT2ELF" -f -O "$W/nf/out" "$W/nf/in/fifo"
	check "-O -f: a FIFO at OUTPUT is not replaced either" sh -c "test \$(cat '$W/nff.rc') = 1 && grep -qxF 'aout2elf: $W/nf/out/fifo: is not a regular file; refusing to replace it' '$W/nff.err' && test -p '$W/nf/out/fifo'"
	# the reader gives up after 60 s: a FIFO replaced by a file has no writer
	timeout 60 cat "$W/nf/report" >"$W/nf/report.got" &
	reader=$!
	run_capture "$W/nfr" "$AOUT2ELF" -q -f -O "$W/nf/out" --report "$W/nf/report" "$W/nf/in/link"
	wait "$reader"
	check "--report into a FIFO: written into it (as into /dev/stdout), the FIFO stays" sh -c "test \$(cat '$W/nfr.rc') = 0 && head -1 '$W/nf/report.got' | grep -qx '\[' && grep -qF '\"status\": \"converted\"' '$W/nf/report.got' && test -p '$W/nf/report'"
	check "-O -f: the symbolic link at OUTPUT is replaced, not what it points to" sh -c "test ! -L '$W/nf/out/link' && head -c 4 '$W/nf/out/link' | grep -q ELF && test \"\$(cat '$W/nf/keep.txt')\" = keep"
else
	for what in "a FIFO as OUTPUT" "-O -f: a FIFO at OUTPUT" "--report into a FIFO" "-O -f: the link at OUTPUT"; do
		skip "$what (mkfifo is not possible here)"
	done
fi
cp "$W/r1.json" "$W/nf/real.json"
ln -s real.json "$W/nf/replink"
run_capture "$W/nfl" "$AOUT2ELF" -q -f -O "$W/nf/out" --report "$W/nf/replink" "$W/nf/in/link"
check "--report through a symbolic link: written into its report, the link stays" sh -c "test \$(cat '$W/nfl.rc') = 0 && test -L '$W/nf/replink' && test \$(grep -c '\"input\"' '$W/nf/real.json') = 1"
long=$(printf 'n%.0s' $(seq 1 250))
run_capture "$W/long1" "$AOUT2ELF" "$hello" "$W/nf/$long"
run_capture "$W/long2" "$AOUT2ELF" -f "$hello" "$W/nf/$long"
check "an OUTPUT of 250 bytes is written, and replaced with -f" sh -c "test \$(cat '$W/long1.rc') = 0 && test \$(cat '$W/long2.rc') = 0 && test ! -s '$W/long2.err'"
echo plain >"$W/nf/plain"
run_capture "$W/onotdir" "$AOUT2ELF" -O "$W/nf/plain" "$hello" "$TESTDATA/hello.zmagic.aout"
check "-O naming a file, not a folder: exit 1, one line for it, not one per input" sh -c "test \$(cat '$W/onotdir.rc') = 1 && test \"\$(cat '$W/onotdir.err')\" = 'aout2elf: $W/nf/plain: Not a directory' && test \"\$(cat '$W/nf/plain')\" = plain"
ln -s made.json "$W/nf/dangling.json"
run_capture "$W/dang" "$AOUT2ELF" -q -f -O "$W/nf/out" --report "$W/nf/dangling.json" "$W/nf/in/link"
check "--report through a link to no file yet: makes that file, the link stays" sh -c "test \$(cat '$W/dang.rc') = 0 && test -L '$W/nf/dangling.json' && test \$(grep -c '\"input\"' '$W/nf/made.json') = 1"
run_capture "$W/bv" "$AOUT2ELF" -v -f -O "$W/nf/out" "$W/nf/in/link"
check "-O -v says what was converted, as without -O" grep -q "^'.*' -> '.*/nf/out/link' (QMAGIC, static)$" "$W/bv.out"
# an image larger than the staging area: the input's fault, said of it
printf '\314\000\144\000\000\000\000\061\000\020\000\000\000\000\000\000\000\000\000\000\040\020\000\000\000\000\000\000\000\000\000\000' >"$W/nf/vast"
truncate -s $((0x31001000)) "$W/nf/vast"
run_capture "$W/vast" "$AOUT2ELF" "$W/nf/vast" "$W/nf/vast.elf"
check "a text of 784 MiB: too large to stage, said of INPUT, nothing written" sh -c "test \$(cat '$W/vast.rc') = 1 && grep -qx 'aout2elf: $W/nf/vast: the a.out image is too large to stage (.*)' '$W/vast.err' && test ! -e '$W/nf/vast.elf'"
rm -f "$W/nf/vast"
truncate -s 1G "$W/nf/huge"
run_capture "$W/huge" "$AOUT2ELF" "$W/nf/huge" "$W/nf/huge.elf"
check "a 1 GiB file of zeros: refused by its first bytes, one line, exit 1" sh -c "test \$(cat '$W/huge.rc') = 1 && test \"\$(cat '$W/huge.err')\" = 'aout2elf: $W/nf/huge: not an a.out executable (unknown magic 00)' && test ! -e '$W/nf/huge.elf'"
rm -f "$W/nf/huge"

# --- --exec ---
# from an empty folder, the input alone in its own, TMPDIR empty too:
# any file --exec wrote would show in one of the three
mkdir -p "$W/e1.cwd" "$W/e1.in" "$W/e1.tmp"
cp "$TESTDATA/hello.qmagic.aout" "$W/e1.in/prog"
run_capture "$W/e1" sh -c "cd '$W/e1.cwd' && TMPDIR='$W/e1.tmp' exec '$AOUT2ELF' --exec '$W/e1.in/prog' 'second line'"
check "--exec runs the program with its arguments" test "$(cat "$W/e1.out")" = "hello from a.out
second line"
check "--exec writes no file (working folder, input's folder, TMPDIR)" sh -c "test \"\$(ls -A '$W/e1.cwd' '$W/e1.tmp' | grep -c .)\" = 2 && test \"\$(ls -A '$W/e1.in')\" = prog"
mkdir "$W/abbr"
run_capture "$W/e1b" sh -c "cd '$W/abbr' && exec '$AOUT2ELF' --exe '$(cd "$TESTDATA" && pwd)/hello.qmagic.aout' out"
check "--exe (an abbreviation) runs the program too, and writes no file" sh -c "test \"\$(cat '$W/e1b.out')\" = 'hello from a.out
out' && test -z \"\$(ls -A '$W/abbr')\""
run_capture "$W/e2" "$AOUT2ELF" --exec "$TESTDATA/sigsegv.qmagic.aout"
check "--exec passes the exit status through" test "$(cat "$W/e2.rc")" = 42
run_capture "$W/e3" "$AOUT2ELF" --exec "$W/arch/README.txt"
check "--exec of a non-a.out fails with one line, exit 1" sh -c "test \$(cat '$W/e3.rc') = 1 && test \$(wc -l < '$W/e3.err') = 1"
run_capture "$W/e4" "$AOUT2ELF" --exec "$TESTDATA/startup.qmagic.aout" args "b b" ""
check "--exec gives the program an a.out start-up" sh -c "grep -q '^startup: ok' '$W/e4.out' || AOUT_TEST=yes '$AOUT2ELF' --exec '$TESTDATA/startup.qmagic.aout' args 'b b' '' | grep -q '^startup: ok'"
# --no-randomize with --exec: exec of the memfd is the one without
# randomisation (the stub cannot exec a closed memfd again), and the
# program finds the personality it was started with
run_capture "$W/e5" "$AOUT2ELF" --no-randomize --exec "$TESTDATA/startup.qmagic.aout" layout
run_capture "$W/e5p" "$AOUT2ELF" --exec "$TESTDATA/startup.qmagic.aout" layout
check "--exec --no-randomize: stack top 0xffffe000, personality as without the option" sh -c "test \$(cat '$W/e5.rc') = 0 && test \"\$(sed -n 1p '$W/e5.out')\" = 'stack top: 0xffffe000' && grep '^personality: ' '$W/e5p.out' >'$W/e5p.per' && grep -qxFf '$W/e5p.per' '$W/e5.out'"
# vm.memfd_noexec belongs to the PID namespace (Linux 6.3): set in a new
# one, it changes nothing outside
memfd_ns() {
	unshare -p -f --mount-proc sh -c "echo $1 >/proc/sys/vm/memfd_noexec && exec '$AOUT2ELF' --exec '$TESTDATA/hello.qmagic.aout'"
}
if ! is_root || ! [ -f /proc/sys/vm/memfd_noexec ] || ! command -v unshare >/dev/null ||
	! unshare -p -f --mount-proc true 2>/dev/null; then
	skip "--exec under vm.memfd_noexec: needs root, unshare and Linux 6.3"
else
	run_capture "$W/mfd1" memfd_ns 1
	check "--exec runs under vm.memfd_noexec=1 (its memfd is made MFD_EXEC)" test "$(cat "$W/mfd1.out")" = "hello from a.out"
	run_capture "$W/mfd2" memfd_ns 2
	check "--exec under vm.memfd_noexec=2: exit 1, one line saying why and what to do" sh -c "test \$(cat '$W/mfd2.rc') = 1 && test \$(wc -l < '$W/mfd2.err') = 1 && grep -q 'vm.memfd_noexec=2 forbids' '$W/mfd2.err' && grep -q 'aout2elf PROG PROG.elf' '$W/mfd2.err'"
fi

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
	mkdir -p "$W/bm/bin"
	ln -s "$(cd "$(dirname "$AOUT2ELF")" && pwd)/$(basename "$AOUT2ELF")" "$W/bm/bin/aout2elf"
	# the README's wrapper and registrations, with the wrapper in $W
	grep -e "^    printf '#!/bin/sh" -e "^    chmod 755 /usr/local/bin/aout2elf-run" \
		-e "^    echo ':aout-" "$readme" |
		sed "s|/usr/local/bin/aout2elf-run|$W/bm/aout2elf-run|g" >"$W/bm/recipe"
	(cd "$bm" && PATH=$W/bm/bin:$PATH sh -e "$W/bm/recipe") >"$W/bm/recipe.out" 2>&1
	check "binfmt_misc: the README registers the four a.out kinds" test \
		-e "$bm/aout-qmagic" -a -e "$bm/aout-zmagic" -a -e "$bm/aout-nmagic" -a -e "$bm/aout-omagic"
	for m in qmagic zmagic nmagic omagic; do
		cp "$TESTDATA/hello.$m.aout" "$W/bm/hello.$m" && chmod 755 "$W/bm/hello.$m"
		check "binfmt_misc: a $m a.out file runs directly" test \
			"$(PATH=$W/bm/bin:$PATH "$W/bm/hello.$m" world 2>&1)" = "hello from a.out
world"
		echo -1 >"$bm/aout-$m" 2>/dev/null
	done
fi

# --- progress: an updating line on a terminal, nothing otherwise ---
if command -v script >/dev/null 2>&1; then
	script -qec "'$AOUT2ELF' -f -r -O '$W/outp' '$W/arch'" /dev/null >"$W/tty.out" 2>&1 </dev/null
	check "on a terminal, a progress line that updates in place" grep -q $'\r.*aout2elf: [0-9]*/[0-9]* done, 0 failed' "$W/tty.out"
else
	skip "script(1) not installed"
fi
run_capture "$W/notty" "$AOUT2ELF" -f -r -O "$W/outp" "$W/arch"
check "not on a terminal: no progress line, a summary at the end" bash -c "! grep -q \$'\\r' '$W/notty.err' && tail -1 '$W/notty.err' | grep -q '^aout2elf: 3 converted, '"

# --- output safety: a full file system ---
if is_root && mkdir -p "$W/full" && mount -t tmpfs -o size=64k tmpfs "$W/full" 2>/dev/null; then
	./tests/malformed/gen --big 1 "$W/big.aout"
	run_capture "$W/nospc" "$AOUT2ELF" "$W/big.aout" "$W/full/big.elf"
	check "no space left: exit 1 and the reason" sh -c "test \$(cat '$W/nospc.rc') = 1 && grep -qx 'aout2elf: $W/full/big.elf: write error: No space left on device' '$W/nospc.err'"
	check "no space left: nothing left behind" test -z "$(ls -A "$W/full")"
	# a batch report that no longer fits: the last one stays as it was
	printf '[]\n' >"$W/full/report.json"
	cp "$W/full/report.json" "$W/last-report.json"
	dd if=/dev/zero of="$W/full/filler" bs=4k 2>/dev/null
	mkdir "$W/many"
	for i in $(seq 10 49); do cp "$hello" "$W/many/program-$i"; done
	run_capture "$W/repfull" "$AOUT2ELF" -q -j 1 -O "$W/manyout" --report "$W/full/report.json" "$W/many"/program-*
	check "a report on a full disk: exit 1 and the reason" sh -c "test \$(cat '$W/repfull.rc') = 1 && grep -qx 'aout2elf: $W/full/report.json: write error: No space left on device' '$W/repfull.err'"
	check "a report on a full disk: the last report intact, no temporary file" sh -c "cmp -s '$W/full/report.json' '$W/last-report.json' && test \"\$(ls -A '$W/full' | tr '\n' ' ')\" = 'filler report.json '"
	check "a report on a full disk: the programs converted all the same" test "$(ls "$W/manyout" | wc -l)" = 40
	umount "$W/full"
else
	skip "needs root to mount a small tmpfs"
fi

# --- output safety: an append-only folder (chattr +a) ---
# a temporary file there could be neither renamed nor removed again
mkdir -p "$W/ap"
echo keep >"$W/ap/old.elf"
if is_root && chattr +a "$W/ap" 2>/dev/null; then
	run_capture "$W/apf" "$AOUT2ELF" -f "$hello" "$W/ap/old.elf"
	run_capture "$W/apn" "$AOUT2ELF" "$hello" "$W/ap/new.elf"
	chattr -a "$W/ap"
	check "append-only directory: replacing is refused in one line, nothing left behind" sh -c "test \$(cat '$W/apf.rc') = 1 && test \"\$(cat '$W/apf.err')\" = 'aout2elf: $W/ap/old.elf: its directory is append-only: it cannot be replaced' && test \"\$(cat '$W/ap/old.elf')\" = keep && test \"\$(ls -A '$W/ap' | grep -v '^new.elf\$')\" = old.elf"
	if [ "$(cat "$W/apn.rc")" = 0 ]; then
		check "append-only folder: a new OUTPUT is written (O_TMPFILE) and runs" test "$("$W/ap/new.elf")" = "hello from a.out"
	else
		check "append-only folder without O_TMPFILE: a new OUTPUT refused in one line" grep -q "append-only" "$W/apn.err"
	fi
else
	skip "append-only folder: needs root and a file system with chattr +a"
fi

# --- output safety: signals ---
# A signal that ends the tool while it writes over an existing OUTPUT
# (the named temporary file) takes the temporary file away with it; one
# ignored when it started stays ignored.  strace stops it right in its write
# (LeakSanitizer cannot work under ptrace: an ASan build checks no leaks here).
mkdir -p "$W/sig"
if command -v strace >/dev/null 2>&1 && strace -o /dev/null true 2>/dev/null; then
	for sig in INT TERM HUP USR1 USR2 ALRM PIPE; do
		echo keep >"$W/sig/out.elf"
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -o /dev/null -e trace=pwritev \
			-e inject=pwritev:signal=$sig \
			"$AOUT2ELF" -f "$hello" "$W/sig/out.elf" 2>/dev/null
		echo $? >"$W/sig.rc"
		check "SIG$sig while writing over OUTPUT: killed by it, OUTPUT kept, no temporary file" sh -c "test \$(cat '$W/sig.rc') -gt 128 && test \"\$(cat '$W/sig/out.elf')\" = keep && test \"\$(ls -A '$W/sig')\" = out.elf"
	done
	(trap '' HUP; ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -o /dev/null -e trace=pwritev \
		-e inject=pwritev:signal=HUP "$AOUT2ELF" -f "$hello" "$W/sig/out.elf")
	echo $? >"$W/sig.rc"
	check "SIGHUP ignored when it started (nohup): the conversion goes on" sh -c "test \$(cat '$W/sig.rc') = 0 && test \"\$('$W/sig/out.elf')\" = 'hello from a.out'"
else
	skip "signals while writing: needs strace that can trace here"
fi

# --- output safety: a disk that fails (EIO), through an LD_PRELOAD shim ---
if [ -f ./tests/helpers/eio.so ] && ! ldd "$(command -v "$AOUT2ELF")" 2>/dev/null | grep -q libasan; then
	echo keep > "$W/eio-keep"
	run_capture "$W/eio" env LD_PRELOAD=./tests/helpers/eio.so "$AOUT2ELF" -f "$hello" "$W/eio-keep"
	check "EIO while writing: exit 1 and the reason" sh -c "test \$(cat '$W/eio.rc') = 1 && grep -qx 'aout2elf: $W/eio-keep: write error: Input/output error' '$W/eio.err'"
	check "EIO while writing: the existing output is intact" test "$(cat "$W/eio-keep")" = keep
	check "EIO while writing: no temporary file left" test -z "$(find "$W" -maxdepth 1 -name '.*.aout2elf-*')"
	# a new OUTPUT is written without a name (O_TMPFILE) and linked at the end
	mkdir "$W/new"
	run_capture "$W/eio2" env LD_PRELOAD=./tests/helpers/eio.so "$AOUT2ELF" "$hello" "$W/new/out"
	check "EIO while writing a new OUTPUT: exit 1, the reason, nothing in its folder" sh -c "test \$(cat '$W/eio2.rc') = 1 && grep -qx 'aout2elf: $W/new/out: write error: Input/output error' '$W/eio2.err' && test -z \"\$(ls -A '$W/new')\""
	# killed in the middle, even by SIGKILL: nothing left behind
	env LD_PRELOAD=./tests/helpers/eio.so EIO_SHIM=stall "$AOUT2ELF" "$hello" "$W/new/out" 2>/dev/null &
	killme=$!
	sleep 1
	alive=no
	kill -KILL "$killme" 2>/dev/null && alive=yes # still in its stalled write
	wait "$killme" 2>/dev/null
	check "killed with SIGKILL while writing a new OUTPUT: nothing in its folder" \
		test "$alive" = yes -a -z "$(ls -A "$W/new")"
	# a batch whose workers are killed: it says so for each entry
	mkdir "$W/wk" "$W/wkout"
	cp "$hello" "$W/wk/a"
	cp "$hello" "$W/wk/b"
	env LD_PRELOAD=./tests/helpers/eio.so EIO_SHIM=stall "$AOUT2ELF" -j 2 -O "$W/wkout" "$W/wk/a" "$W/wk/b" 2>"$W/wk.err" &
	batch=$!
	sleep 1
	pkill -KILL -P "$batch"
	wait "$batch"
	echo $? >"$W/wk.rc"
	check "a batch whose workers die: exit 1, each entry said not to finish, nothing written" sh -c "test \$(cat '$W/wk.rc') = 1 && test \$(grep -c 'did not finish (worker process died)' '$W/wk.err') = 2 && grep -qx 'aout2elf: a worker process failed' '$W/wk.err' && grep -q '^aout2elf: 0 converted, 0 up-to-date, 0 skipped, 2 failed' '$W/wk.err' && test -z \"\$(ls -A '$W/wkout')\""
	# where the file system has no O_TMPFILE: the named temporary file
	run_capture "$W/eio3" env LD_PRELOAD=./tests/helpers/eio.so EIO_SHIM=no-tmpfile "$AOUT2ELF" "$hello" "$W/new/out"
	check "no O_TMPFILE: converted through a named temporary file, none left" sh -c "test \$(cat '$W/eio3.rc') = 0 && test \"\$(ls -A '$W/new')\" = out && cmp -s '$W/new/out' '$W/quiet.elf'"
	rm -f "$W/new/out"
	run_capture "$W/eio4" env LD_PRELOAD=./tests/helpers/eio.so EIO_SHIM=no-tmpfile,eio "$AOUT2ELF" "$hello" "$W/new/out"
	check "no O_TMPFILE, EIO: exit 1, nothing in its folder" sh -c "test \$(cat '$W/eio4.rc') = 1 && test -z \"\$(ls -A '$W/new')\""
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
bash -c "source '$comp'; COMP_WORDS=(aout2elf --); COMP_CWORD=1; _aout2elf; printf '%s\n' \"\${COMPREPLY[@]}\"" 2>&1 | sort -u >"$W/comp.opts"
check "bash completion offers every long option of --help" sh -c "test -s '$W/help.opts' && comm -23 '$W/help.opts' '$W/comp.opts' >'$W/comp-missing' && test ! -s '$W/comp-missing'"

# --- the make fragment ---
mkdir -p "$W/sdk"
cp "$TESTDATA/hello.qmagic.aout" "$W/sdk/hello-a.out"
cat > "$W/sdk/Makefile" <<MK
include $(pwd)/data/aout2elf.mk
AOUT2ELF_PROGRAMS = hello
all: aout2elf-all
MK
check "the make fragment converts NAME-a.out into NAME.elf" make -s -C "$W/sdk" AOUT2ELF="$AOUT2ELF"
check "NAME.elf runs" test "$("$W/sdk/hello.elf")" = "hello from a.out"
check "the fragment does not redo an up-to-date program" sh -c "make -q -C '$W/sdk' AOUT2ELF='$AOUT2ELF' hello.elf"

finish
