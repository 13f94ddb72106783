#!/bin/sh
# fuzz/run-fuzzer.sh NAME SECONDS SRCDIR: `make fuzz` runs each libFuzzer
# target with this, from the build directory.
#
# The seeds of $SRCDIR/fuzz/corpus/NAME are copied into fuzz/work/NAME
# (finds of earlier runs stay there), so the source tree is never written;
# $SRCDIR/fuzz/regressions, when present, is read as a second corpus.
# Crashes, leaks and timeouts land in fuzz/artifacts/NAME-*; the whole
# libFuzzer output in fuzz/NAME.log.  FUZZ_FLAGS adds libFuzzer options.
set -u
name=$1
secs=$2
srcdir=$3
bin=./fuzz/fuzz_$name
work=fuzz/work/$name
art=fuzz/artifacts
log=fuzz/$name.log

mkdir -p "$work" "$art" || exit 1
for f in "$srcdir/fuzz/corpus/$name"/*; do
	[ -f "$f" ] || continue
	cp -f "$f" "$work/" && chmod u+w "$work/${f##*/}" || exit 1
done
set -- "$work"
if [ -d "$srcdir/fuzz/regressions" ]; then
	set -- "$@" "$srcdir/fuzz/regressions"
fi
echo "fuzz_$name: ${secs}s over $* (log in $log)"
# shellcheck disable=SC2086
"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
	-print_final_stats=1 -artifact_prefix="$art/$name-" ${FUZZ_FLAGS:-} \
	"$@" >"$log" 2>&1
rc=$?

# The last status line (cov:, ft:, corp:, exec/s) and the final stats.
grep -E '^#[0-9]+[[:space:]]+(INITED|NEW|REDUCE|pulse|DONE)' "$log" | tail -n 1 |
	sed "s/^/fuzz_$name: /"
grep -E '^(stat::|Done [0-9]+ runs)' "$log" | sed "s/^/fuzz_$name: /"
if [ "$rc" -ne 0 ]; then
	echo "fuzz_$name: FAILED (exit $rc); the end of $log:" >&2
	tail -n 60 "$log" >&2
	ls -l "$art"/"$name"-* 2>/dev/null >&2
	exit 1
fi
echo "fuzz_$name: $(ls "$work" | wc -l) inputs in $work"
