#!/bin/bash
# The inputs the fuzzers found (fuzz/regressions/, see fuzz/README), and
# the fuzz seed corpus, through the real command line: `aout2elf --info
# FILE` and `aout2elf FILE OUT` must each exit 0 or 1 (never 2, never a
# signal, never a sanitizer report), print at most one line on stderr, and
# a refused conversion must leave no OUTPUT behind.  Skips when there is
# nothing to run.
#
# Then, where `make check` could build them (clang), the two libFuzzer
# harnesses once over their seeds and the regressions (-runs=0): their
# checks model the writer's output, and a model gone stale stops every
# fuzzing run at its first seed, which nothing else would show.
. "${srcdir:-.}/tests/lib.sh"

top=${srcdir:-.}
# A sanitizer build reports with exit status 86, not 1, so that it is seen.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=86"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}exitcode=86"

files=()
for f in "$top"/fuzz/regressions/* "$top"/fuzz/corpus/convert/*; do
	[ -f "$f" ] && files+=("$f")
done
if [ ${#files[@]} -eq 0 ]; then
	skip "no fuzz regressions or seeds in $top/fuzz"
	finish
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
set_timeout 60

# verdict NAME BASE: rc 0 or 1 and at most one line on stderr
verdict() {
	local what=$1 base=$2 rc lines
	rc=$(cat "$base.rc")
	lines=$(wc -l <"$base.err")
	if [ "$rc" != 0 ] && [ "$rc" != 1 ]; then
		not_ok "$what: exit status $rc"
		sed 's/^/# /' "$base.err" | head -n 20
		return 1
	fi
	if [ "$lines" -gt 1 ]; then
		not_ok "$what: $lines lines on stderr"
		sed 's/^/# /' "$base.err" | head -n 20
		return 1
	fi
	return 0
}

n=0
for f in "${files[@]}"; do
	n=$((n + 1))
	name=${f#"$top"/fuzz/}
	run_capture "$tmp/info" "${TIMEOUT[@]}" "$AOUT2ELF" --info "$f"
	verdict "--info $name" "$tmp/info" && ok "--info $name"

	out="$tmp/out.$n"
	run_capture "$tmp/conv" "${TIMEOUT[@]}" "$AOUT2ELF" "$f" "$out"
	if verdict "convert $name" "$tmp/conv"; then
		if [ "$(cat "$tmp/conv.rc")" = 1 ] && [ -e "$out" ]; then
			not_ok "convert $name: refused, but left $out behind"
		elif [ "$(cat "$tmp/conv.rc")" = 1 ] && ! grep -q '^aout2elf: ' "$tmp/conv.err"; then
			not_ok "convert $name: refused without an 'aout2elf: ' line"
		else
			ok "convert $name (exit $(cat "$tmp/conv.rc"))"
		fi
	fi
	rm -f "$out"
done

for target in convert info; do
	harness=fuzz/fuzz_$target
	desc="fuzz_$target over fuzz/corpus/$target and fuzz/regressions (-runs=0)"
	if [ ! -x "$harness" ]; then
		skip "$desc: not built (no clang when configured)"
		continue
	fi
	run_capture "$tmp/h" "${TIMEOUT[@]}" "$harness" -runs=0 -artifact_prefix="$tmp/" \
		"$top/fuzz/corpus/$target" "$top/fuzz/regressions"
	if [ "$(cat "$tmp/h.rc")" = 0 ] && grep -q '^Done [0-9]* runs' "$tmp/h.err"; then
		ok "$desc: $(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$tmp/h.err") inputs"
	else
		not_ok "$desc: exit status $(cat "$tmp/h.rc")"
		grep -v '^INFO:' "$tmp/h.err" | head -n 20 | sed 's/^/# /'
	fi
done
finish
