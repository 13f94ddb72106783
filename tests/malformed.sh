#!/bin/bash
# The malformed-file suite.  tests/malformed/gen writes the crafted a.out
# files into a temporary folder; tests/malformed/expected.txt says, for
# each, the exact line aout2elf must print (or OK for a legal edge value).
# For every case "aout2elf [-L NAME.lib] INPUT OUTPUT" must exit 1 with
# exactly that one line on stderr, nothing on stdout, no OUTPUT and no
# temporary ".OUTPUT.aout2elf-XXXXXX" left, and INPUT (and its library)
# unchanged; "--info INPUT" and "--exec INPUT" must fail with the same
# line.  OK cases must convert (exit 0, only warnings on stderr) and
# --info must describe them.
#
# Then the cases that need the file system rather than bytes: a folder, a
# FIFO (must not block), a character device, a missing file, a file that
# is too large, one that shrinks while it is read (deterministically with a
# sysfs attribute, whose size says 4096 and whose content is shorter, and
# as a race against a background loop that truncates the file), out of
# memory (ulimit -v), unreadable input and unwritable output folder (as
# uid 65534, when root), an existing OUTPUT with and without -f, OUTPUT
# being INPUT (same name, hard link, symlink), OUTPUT a folder or in a
# missing folder, a write error (ulimit -f), over-long -L folders, and
# usage errors (exit 2, pointing at --help).
#
# Run from the top build directory, as "make check" does:
#   AOUT2ELF       the converter (default ./src/aout2elf)
#   MALFORMED_GEN  the generator (default ./tests/malformed/gen)
#   srcdir         where tests/lib.sh and tests/malformed/expected.txt are
# Prints "ok N - ..." / "not ok N - ..." (with "#" lines saying why) and
# ends with "N passed, N failed, N skipped".
. "${srcdir:-.}/tests/lib.sh"

GEN=${MALFORMED_GEN:-./tests/malformed/gen}
TABLE=${srcdir:-.}/tests/malformed/expected.txt

tmp=$(mktemp -d "${TMPDIR:-/tmp}/malformed.XXXXXX") || exit 99
tmp=$(cd "$tmp" && pwd -P)
chmod 755 "$tmp"
W=$tmp # where run keeps what the programs print
bg_pid=
cleanup() {
	[ -n "$bg_pid" ] && kill "$bg_pid" 2>/dev/null && wait "$bg_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

set_timeout 30

in=$tmp/in       # the crafted files (gen writes them)
orig=$tmp/orig   # copies, to check that nothing changed them
out=$tmp/out     # outputs
mkdir "$out" && chmod 755 "$out"

# ---- helpers ----

# run CMD... (tests/lib.sh): stdout in $OUT, stderr in $ERR, status in $st

# Each check collects what is wrong in why[]; conclude turns it into one
# ok or not ok line.
why=()
want_status() {
	[ "$st" = "$1" ] && return
	why+=("$(run_status), expected $1")
}
want_err() { # the exact single line LINE on stderr
	printf '%s\n' "$1" >"$tmp/want.err"
	cmp -s "$tmp/want.err" "$ERR" || why+=("expected stderr: $1")
}
want_err_match() { # one line matching the ERE
	[ "$(grep -c '' "$ERR")" = 1 ] && grep -qE -- "$1" "$ERR" ||
		why+=("expected one line on stderr matching: $1")
}
want_err_help() {
	grep -q -- '--help' "$ERR" || why+=("stderr does not point at --help")
}
want_err_only_warnings() {
	! grep -qv '^aout2elf: warning: ' "$ERR" ||
		why+=("stderr has more than warnings")
}
want_no_stdout() { [ ! -s "$OUT" ] || why+=("stdout is not empty"); }
want_absent() { [ ! -e "$1" ] && [ ! -L "$1" ] || why+=("$1 was created"); }
want_elf() {
	[ -f "$1" ] && [ -x "$1" ] && [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '177ELF' ] ||
		why+=("$1 is not an executable ELF file")
}
want_no_temp() { # no .NAME.aout2elf-XXXXXX in the folder
	local t
	t=$(find "$1" -maxdepth 1 -name '.*.aout2elf-*' 2>/dev/null)
	[ -z "$t" ] || {
		why+=("temporary file left: $t")
		find "$1" -maxdepth 1 -name '.*.aout2elf-*' -delete
	}
}
want_same() { cmp -s "$1" "$2" || why+=("$2 was changed"); }
conclude() {
	if [ ${#why[@]} -eq 0 ]; then
		ok "$1"
	else
		not_ok "$1" "${why[@]}"
		show_output
	fi
	why=()
}

# ---- the crafted files ----

if ! "$GEN" "$in" >"$tmp/generated" 2>"$tmp/gen.err"; then
	not_ok "tests/malformed/gen writes the crafted files"
	sed 's/^/#   /' "$tmp/gen.err"
	finish
fi
cp -a "$in" "$orig"

names=() wants=()
while IFS= read -r line || [ -n "$line" ]; do
	case $line in '' | '#'*) continue ;; esac
	names+=("${line%%$'\t'*}")
	wants+=("${line#*$'\t'}")
done <"$TABLE"

check "expected.txt has at least 40 cases (${#names[@]})" test "${#names[@]}" -ge 40
# grep -c prints 0 when no line is bad, and nothing when grep fails
tab=$(printf '\t')
grep -v -e '^#' -e '^$' "$TABLE" >"$tmp/table.lines"
check "every line of expected.txt is NAME<TAB>EXPECTED" \
	test "$(grep -vcE "^[a-z0-9][a-z0-9.-]*${tab}(OK|aout2elf: FILE: .+)\$" "$tmp/table.lines")" = 0
printf '%s\n' "${names[@]}" | sort >"$tmp/table.names"
sort "$tmp/generated" >"$tmp/gen.names"
check "gen writes exactly the cases of expected.txt" cmp -s "$tmp/table.names" "$tmp/gen.names"
check "no case is listed twice" test -z "$(uniq -d "$tmp/table.names")"

for i in "${!names[@]}"; do
	name=${names[$i]} want=${wants[$i]}
	input=$in/$name output=$out/$name.elf
	opts=()
	libdir=
	if [ -d "$in/$name.lib" ]; then
		libdir=$(cd "$in/$name.lib" && pwd -P)
		opts=(-L "$libdir")
	fi
	if [ ! -f "$input" ]; then
		not_ok "$name: the crafted file exists"
		continue
	fi

	if [ "$want" = OK ]; then
		run "$AOUT2ELF" "${opts[@]}" "$input" "$output"
		want_status 0
		want_no_stdout
		want_err_only_warnings
		want_elf "$output"
		# never more than the input and the stub (ok-names-shared: names
		# are not copied per symbol)
		if [ -f "$output" ] && [ "$(stat -c %s "$output")" -gt \
			$((2 * $(stat -c %s "$input") + 1048576)) ]; then
			why+=("the output is more than twice the input, and 1 MiB")
		fi
		want_no_temp "$out"
		want_same "$orig/$name" "$input"
		conclude "$name: converts"
		rm -f "$output"
		run "$AOUT2ELF" "${opts[@]}" --info "$input"
		want_status 0
		[ -s "$OUT" ] || why+=("--info printed nothing")
		[ ! -s "$ERR" ] || why+=("--info printed on stderr")
		conclude "$name: --info describes it"
		continue
	fi

	line=${want/#aout2elf: FILE: /"aout2elf: $input: "}
	[ -n "$libdir" ] && line=${line//LIBDIR/"$libdir"}

	run "$AOUT2ELF" "${opts[@]}" "$input" "$output"
	want_status 1
	want_err "$line"
	want_no_stdout
	want_absent "$output"
	want_no_temp "$out"
	want_same "$orig/$name" "$input"
	[ -n "$libdir" ] && want_same "$orig/$name.lib/libx.so.1" "$libdir/libx.so.1"
	conclude "$name: ${want#aout2elf: FILE: }"
	rm -f "$output"

	run "$AOUT2ELF" "${opts[@]}" --info "$input"
	want_status 1
	want_err "$line"
	want_no_stdout
	conclude "$name: --info fails the same way"

	run "$AOUT2ELF" "${opts[@]}" --exec "$input"
	want_status 1
	want_err "$line"
	want_no_stdout
	conclude "$name: --exec fails the same way"
done

# ---- inputs that are not regular files, or not there ----

good=$in/ok-qmagic
spec=$tmp/spec
mkdir "$spec" && chmod 755 "$spec"

# expect_input_error DESC INPUT REASON [OPTION...]: conversion and --info
# fail with "aout2elf: INPUT: REASON", create nothing
expect_input_error() {
	local desc=$1 input=$2 reason=$3
	shift 3
	run "$AOUT2ELF" "$@" "$input" "$spec/o"
	want_status 1
	want_err "aout2elf: $input: $reason"
	want_no_stdout
	want_absent "$spec/o"
	want_no_temp "$spec"
	conclude "$desc"
	rm -f "$spec/o"
	run "$AOUT2ELF" "$@" --info "$input"
	want_status 1
	want_err "aout2elf: $input: $reason"
	want_no_stdout
	conclude "$desc (--info)"
}

mkdir "$tmp/folder"
expect_input_error "a folder as INPUT" "$tmp/folder" "is a directory"
check "the folder is still there, empty" test -d "$tmp/folder" -a -z "$(ls -A "$tmp/folder")"
ln -s folder "$tmp/folder-link"
expect_input_error "a symlink to a folder as INPUT" "$tmp/folder-link" "is a directory"

if mkfifo "$tmp/fifo" 2>/dev/null; then
	# timeout 10: a converter that blocks in open() or read() fails here
	set_timeout 10
	expect_input_error "a FIFO without a writer as INPUT, at once" "$tmp/fifo" "not a regular file"
	set_timeout 30
	check "the FIFO is still a FIFO" test -p "$tmp/fifo"
else
	skip "mkfifo is not possible here"
	skip "mkfifo is not possible here (--info)"
	skip "mkfifo is not possible here (still a FIFO)"
fi
if [ -c /dev/null ]; then
	expect_input_error "a character device as INPUT" /dev/null "not a regular file"
fi
expect_input_error "a missing INPUT" "$tmp/missing" "No such file or directory"
expect_input_error "a regular file used as a folder" "$good/x" "Not a directory"

if truncate -s 2147483649 "$tmp/huge" 2>/dev/null; then
	expect_input_error "a file of 2^31 + 1 bytes" "$tmp/huge" \
		"too large for an a.out executable (2147483649 bytes)"
	rm -f "$tmp/huge"
else
	skip "cannot create a sparse file of 2^31 + 1 bytes here"
	skip "cannot create a sparse file of 2^31 + 1 bytes here (--info)"
fi

# ---- a file that shrinks while it is read ----

# Deterministic: a sysfs attribute says 4096 bytes and has fewer.
sysattr=
for f in /sys/devices/system/cpu/online /sys/kernel/mm/transparent_hugepage/enabled \
	/sys/power/state /sys/kernel/profiling; do
	if [ -f "$f" ] && [ -r "$f" ]; then
		size=$(stat -c %s "$f") got=$(wc -c <"$f")
		if [ "$size" -gt "$got" ] && [ "$got" -gt 0 ]; then
			sysattr=$f
			break
		fi
	fi
done
if [ -n "$sysattr" ]; then
	expect_input_error "a file that is shorter than its size ($sysattr)" "$sysattr" \
		"file shrank while being read ($got of $size bytes)"
else
	skip "no sysfs attribute shorter than its size here"
	skip "no sysfs attribute shorter than its size here (--info)"
fi

# A race: a background loop cuts a 16 MiB program to 4096 bytes and
# extends it again (with zeros, which keep it valid) while it is converted
# over and over.  Every run must end with status 0, or 1 and one line;
# never a temporary file.  Which message a run gets depends on timing;
# the exact "shrank" line is checked above and in the unit tests.
mkdir "$tmp/race" "$tmp/race/out"
victim=$tmp/race/prog
if "$GEN" --big 16 "$victim" 2>/dev/null; then
	full=$(stat -c %s "$victim")
	(
		while :; do
			truncate -s 4096 "$victim"
			truncate -s "$full" "$victim"
		done
	) &
	bg_pid=$!
	n_conv=0 n_shrank=0 n_trunc=0 n_other=0
	for r in $(seq 30); do
		run "$AOUT2ELF" "$victim" "$tmp/race/out/o$r"
		case $st in
		0) n_conv=$((n_conv + 1)) ;;
		1)
			want_err_match "^aout2elf: "
			want_absent "$tmp/race/out/o$r"
			if grep -q 'file shrank while being read' "$ERR"; then
				n_shrank=$((n_shrank + 1))
			elif grep -q 'truncated' "$ERR"; then
				n_trunc=$((n_trunc + 1))
			else
				n_other=$((n_other + 1))
			fi
			;;
		*) why+=("run $r: exit status $st") ;;
		esac
		want_no_stdout
		want_no_temp "$tmp/race/out"
		rm -f "$tmp/race/out/o$r"
	done
	kill "$bg_pid" 2>/dev/null
	wait "$bg_pid" 2>/dev/null
	bg_pid=
	echo "# race: $n_conv converted, $n_shrank shrank, $n_trunc truncated, $n_other other"
	conclude "30 conversions of a file that shrinks meanwhile: status 0 or 1, one line, no temporary file"
else
	skip "gen --big failed"
fi

# ---- out of memory ----

sanitized() { ldd "$AOUT2ELF" 2>/dev/null | grep -q -e libasan -e libtsan -e libmsan; }
if sanitized; then
	skip "ulimit -v cannot be used with a sanitizer build"
	skip "ulimit -v cannot be used with a sanitizer build"
else
	# the input buffer itself (a QMAGIC magic first: a file of a megabyte
	# or more is judged by its first bytes before it is read)
	if printf '\314\000\144\000' >"$tmp/big2g" &&
		truncate -s 2147483648 "$tmp/big2g" 2>/dev/null; then
		run bash -c 'ulimit -v 1000000 && exec "$@"' sh "$AOUT2ELF" "$tmp/big2g" "$spec/o"
		want_status 1
		want_err "aout2elf: $tmp/big2g: out of memory"
		want_absent "$spec/o"
		want_no_temp "$spec"
		conclude "a 2 GiB input with 1 GB of address space: out of memory"
		rm -f "$tmp/big2g"
	else
		skip "cannot create a sparse file of 2 GiB here"
	fi
	# the symbol table: 96 MB of nlist, 192 MB to hold it
	if "$GEN" --many-symbols 8000000 "$tmp/manysyms" 2>/dev/null; then
		run bash -c 'ulimit -v 250000 && exec "$@"' sh "$AOUT2ELF" "$tmp/manysyms" "$spec/o"
		want_status 1
		want_err "aout2elf: $tmp/manysyms: out of memory for 8000000 symbols"
		want_absent "$spec/o"
		want_no_temp "$spec"
		conclude "8000000 symbols with 250 MB of address space: out of memory"
		rm -f "$tmp/manysyms"
	else
		skip "gen --many-symbols failed"
	fi
fi

# ---- permissions, as an unprivileged user ----

if can_drop_privileges && as_nobody "$AOUT2ELF" --version >/dev/null 2>&1; then
	cp "$good" "$spec/unreadable"
	chmod 000 "$spec/unreadable"
	mkdir "$spec/pub" && chmod 777 "$spec/pub"
	run "${NOBODY[@]}" "$AOUT2ELF" "$spec/unreadable" "$spec/pub/o"
	want_status 1
	want_err "aout2elf: $spec/unreadable: Permission denied"
	want_absent "$spec/pub/o"
	conclude "an unreadable INPUT (as uid 65534)"
	cp "$good" "$spec/pub/in" && chmod 644 "$spec/pub/in"
	mkdir "$spec/ro" && chmod 755 "$spec/ro"
	run "${NOBODY[@]}" "$AOUT2ELF" "$spec/pub/in" "$spec/ro/o"
	want_status 1
	want_err "aout2elf: $spec/ro/o: cannot create a file beside it: Permission denied"
	want_absent "$spec/ro/o"
	want_no_temp "$spec/ro"
	conclude "OUTPUT in a folder that is not writable (as uid 65534)"
	rm -rf "$spec/unreadable" "$spec/pub" "$spec/ro"
else
	skip "not root, or no setpriv: unreadable INPUT"
	skip "not root, or no setpriv: unwritable OUTPUT folder"
fi

# ---- OUTPUT ----

cp "$good" "$spec/in"
cp "$good" "$spec/in.orig"
printf 'precious\n' >"$spec/exists"
cp "$spec/exists" "$spec/exists.orig"

run "$AOUT2ELF" "$spec/in" "$spec/exists"
want_status 1
want_err "aout2elf: $spec/exists: already exists; to replace it: aout2elf -f $spec/in $spec/exists"
want_no_stdout
want_same "$spec/exists.orig" "$spec/exists"
want_no_temp "$spec"
conclude "an existing OUTPUT without -f is refused and left alone"

run "$AOUT2ELF" -f "$in/q-text-0" "$spec/exists"
want_status 1
want_err "aout2elf: $in/q-text-0: QMAGIC text size 0 is smaller than its own header"
want_same "$spec/exists.orig" "$spec/exists"
want_no_temp "$spec"
conclude "-f with a malformed INPUT leaves the existing OUTPUT alone"

run "$AOUT2ELF" -f "$spec/in" "$spec/exists"
want_status 0
want_no_stdout
want_elf "$spec/exists"
want_no_temp "$spec"
conclude "-f replaces an existing OUTPUT"

ln -s nowhere "$spec/dangling"
run "$AOUT2ELF" "$spec/in" "$spec/dangling"
want_status 1
want_err "aout2elf: $spec/dangling: already exists; to replace it: aout2elf -f $spec/in $spec/dangling"
[ "$(readlink "$spec/dangling")" = nowhere ] && [ ! -e "$spec/nowhere" ] ||
	why+=("the dangling symlink was followed or changed")
want_no_temp "$spec"
conclude "a dangling symlink as OUTPUT without -f is refused"

ln "$spec/in" "$spec/hardlink"
ln -s in "$spec/symlink"
for force in "" -f; do
	for o in "$spec/in" "$spec/hardlink" "$spec/symlink"; do
		run "$AOUT2ELF" $force "$spec/in" "$o"
		want_status 1
		want_err "aout2elf: $o: is the input file; refusing to overwrite it"
		want_no_stdout
		want_same "$spec/in.orig" "$spec/in"
		want_no_temp "$spec"
		conclude "OUTPUT ${o##*/} is INPUT${force:+ (with -f)}: refused, INPUT untouched"
	done
done
check "the hard link and the symlink are still there" test "$(stat -c %h "$spec/in")" = 2 -a -L "$spec/symlink"

mkdir "$spec/outdir"
for force in "" -f; do
	run "$AOUT2ELF" $force "$spec/in" "$spec/outdir"
	want_status 1
	want_err "aout2elf: $spec/outdir: is a directory; to convert into it: aout2elf ${force:+$force }-O $spec/outdir $spec/in"
	[ -d "$spec/outdir" ] && [ -z "$(ls -A "$spec/outdir")" ] || why+=("the folder was changed")
	want_no_temp "$spec"
	conclude "OUTPUT is a folder${force:+ (with -f)}: refused"
done

run "$AOUT2ELF" "$spec/in" "$spec/nodir/o"
want_status 1
want_err "aout2elf: $spec/nodir/o: cannot create a file beside it: No such file or directory"
want_absent "$spec/nodir"
conclude "OUTPUT in a missing folder"

# A write error: RLIMIT_FSIZE of 8 KiB, the ELF is larger.  With SIGXFSZ
# ignored, write() fails with EFBIG; with its default action the kernel
# kills the writer, and a converter that does not ignore SIGXFSZ leaves
# its temporary file behind (README: failures leave no file behind).
# the ACTION of trap for SIGXFSZ, and what that makes of the signal
while read -r action how; do
	run bash -c "trap $action XFSZ; "'ulimit -f 8 && exec "$@"' sh "$AOUT2ELF" "$spec/in" "$spec/big.elf"
	want_status 1
	want_err "aout2elf: $spec/big.elf: write error: File too large"
	want_absent "$spec/big.elf"
	want_no_temp "$spec"
	conclude "a write error (ulimit -f, SIGXFSZ $how): one line, no file left"
done <<'EOF'
"" ignored
- default
EOF
# a new OUTPUT is written without a name (O_TMPFILE), which nothing can
# leave behind; an OUTPUT replaced with -f is written under a temporary
# name, the case the two runs above are about
echo keep >"$spec/big.keep"
for xfsz in '""' -; do
	cp "$spec/big.keep" "$spec/big.elf"
	run bash -c "trap $xfsz XFSZ; ulimit -f 8 && exec \"\$@\"" sh "$AOUT2ELF" -f "$spec/in" "$spec/big.elf"
	want_status 1
	want_err "aout2elf: $spec/big.elf: write error: File too large"
	want_same "$spec/big.keep" "$spec/big.elf"
	want_no_temp "$spec"
	conclude "a write error replacing OUTPUT (-f; ulimit -f, trap $xfsz XFSZ): one line, OUTPUT and no temporary file left"
done
rm -f "$spec/big.elf" "$spec/big.keep"
want_same "$spec/in.orig" "$spec/in"
conclude "INPUT unchanged by all of the above"

# ---- -L folders: at most 1024 bytes in all, NULs and ':' included ----
# The converted program keeps them in 1024 bytes: more is a usage error,
# said of the folder that passes the limit, before any input is read.

# mkdir_len LEN: makes a folder whose absolute path is LEN bytes long
mkdir_len() {
	local d=$tmp/L$1 part
	while [ $(($1 - ${#d})) -gt 201 ]; do
		d=$d/$(printf '%0200d' 0)
	done
	part=$(printf "%0$(($1 - ${#d} - 1))d" 0)
	d=$d/$part
	mkdir -p "$d" && echo "$d"
}
long=$(mkdir_len 1100)
name=ok-lib-qmagic
run "$AOUT2ELF" -L "$long" -L "$in/$name.lib" "$in/$name" "$spec/o"
want_status 2
want_err "aout2elf: $(realpath "$long"): the -L directories would be longer than 1024 bytes in all"
want_absent "$spec/o"
want_no_temp "$spec"
conclude "-L folders of more than 1024 bytes: a usage error"
# 1023 bytes and the NUL fill the 1024 exactly
fits=$(mkdir_len 1023)
run "$AOUT2ELF" -L "$fits" "$good" "$spec/o"
want_status 0
want_elf "$spec/o"
conclude "one -L folder of 1023 bytes (1024 with its NUL) fits"
rm -f "$spec/o"

# ---- usage errors: exit 2, a pointer to --help, nothing created ----

cd "$spec" || exit 99
for args in "" "in u1 u2" "--bogus in u1" "-Z in u1" "--info"; do
	# shellcheck disable=SC2086
	run "$AOUT2ELF" $args
	want_status 2
	want_err_help
	want_no_stdout
	want_absent u1
	want_absent u2
	conclude "usage error '$args': exit 2, stderr points at --help"
done
cd - >/dev/null || exit 99

finish
