#!/bin/sh
# bench/timeline.sh [-n RUNS] PROGRAM...: where the time between exec and
# exit goes, from the kernel's own trace events (tracefs; needs root).
#
# Runs each PROGRAM (no arguments, stdout to /dev/null) RUNS times in
# turn with these events on: sched_process_fork, sched_process_exec,
# page_fault_user, signal_deliver, sched_process_exit.  For each program it takes the
# sequence of events its runs show most often and prints the median time
# from fork to exec (execve itself, mostly), then from each event to the
# next, so a converted program's start-up can be
# read off step by step against a native one: the stub's page faults, the
# stretch of its system calls, the a.out code's first faults, a trapped
# call's SIGSYS.  Faults are named by where they hit (stub, a.out, high:
# the vDSO or the stack) and how (fetch, read, write; "cow" when the page
# was there read-only).  The events themselves cost about a microsecond
# each; compare programs under the same tracing, not with `make bench`.
#
# `make bench-timeline` runs it on the start-up programs of `make bench`.
set -eu
runs=500
if [ "${1:-}" = -n ]; then
	runs=$2
	shift 2
fi
if [ $# -eq 0 ]; then
	echo "usage: bench/timeline.sh [-n RUNS] PROGRAM..." >&2
	exit 2
fi
T=/sys/kernel/tracing
[ -w "$T/trace" ] || T=/sys/kernel/debug/tracing
if [ ! -w "$T/trace" ] || ! : >"$T/trace" 2>/dev/null; then
	echo "timeline: needs root and a writable tracefs (/sys/kernel/tracing); nothing measured"
	exit 0
fi

# x86-tsc gives cycles (nanosecond steps); other clocks print microseconds
mhz=$(awk -F: '/^cpu MHz/ { print $2 + 0; exit }' /proc/cpuinfo 2>/dev/null || true)
old_clock=$(sed 's/.*\[\(.*\)\].*/\1/' "$T/trace_clock")
if [ -n "$mhz" ] && grep -q x86-tsc "$T/trace_clock"; then
	clock=x86-tsc
else
	clock=local mhz=
fi
work=$(mktemp -d)
copies=
cleanup() {
	echo 0 >"$T/tracing_on"
	: >"$T/set_event"
	echo "$old_clock" >"$T/trace_clock"
	rm -rf "$work" ${copies:+"$copies"}
}
trap cleanup EXIT INT TERM

# In the VM of tools/run-in-vm the host's files come over 9p, which drops
# their cached pages at every open: run copies in the VM's own tmpfs, as
# bench/bench does, so that a fault is a fault and not a read from the host.
if [ -n "${AOUT2ELF_IN_VM:-}" ] && [ -w /dev/shm ]; then
	copies=$(mktemp -d -p /dev/shm)
	n=0
	for p in "$@"; do
		n=$((n + 1))
		cp "$p" "$copies/$n.${p##*/}"
		set -- "$@" "$copies/$n.${p##*/}"
	done
	shift "$n"
fi

echo 0 >"$T/tracing_on"
echo "$clock" >"$T/trace_clock"
echo 16384 >"$T/buffer_size_kb"
: >"$T/trace"
: >"$T/set_event"
for e in sched:sched_process_fork sched:sched_process_exec sched:sched_process_exit \
	exceptions:page_fault_user signal:signal_deliver; do
	echo "$e" >>"$T/set_event"
done
echo 1 >"$T/tracing_on"
i=0
while [ "$i" -lt "$runs" ]; do
	for p in "$@"; do
		"$p" >/dev/null 2>&1 </dev/null || true
	done
	i=$((i + 1))
done
echo 0 >"$T/tracing_on"
cat "$T/trace" >"$work/trace"

# one line per run: program, the events' names joined by ';', the steps' times
awk -v mhz="$mhz" '
function region(a) {
	if (a >= 2952790016 && a < 2953838592) return "stub-vars"  # 0xb0000000, 1 MiB
	if (a >= 2147483648 && a < 3221225472) return "stub"  # its code, then staging
	if (a >= 4026531840) return "high"                    # 0xf0000000: vDSO, stack
	if (a < 2147483648) return "a.out"
	return "other"
}
function hex(s,   v, i, c) {
	v = 0
	s = tolower(substr(s, 3))
	for (i = 1; i <= length(s); i++) {
		c = index("0123456789abcdef", substr(s, i, 1)) - 1
		v = v * 16 + c
	}
	return v
}
function how(code) {
	code = hex(code)
	if (int(code / 16) % 2) return "fetch"
	if (int(code / 2) % 2) return (code % 2) ? "cow" : "write"
	return "read"
}
{
	split($1, cp, "-")
	pid = cp[length(cp)]
	for (f = 1; f <= NF && $f !~ /:$/; f++) ;
	t = $f; sub(/:$/, "", t)
	t = mhz != "" ? t / mhz : t * 1e6     # microseconds
	ev = $(f + 1); sub(/:$/, "", ev)
	if (ev == "sched_process_fork") {
		child = $0; sub(/.*child_pid=/, "", child); sub(/ .*/, "", child)
		forked[child] = t
		next
	}
	if (ev == "sched_process_exec") {
		name = $0; sub(/.*filename=/, "", name); sub(/ .*/, "", name)
		prog[pid] = name; last[pid] = t; seq[pid] = ""; times[pid] = ""
		toexec[pid] = (pid in forked) ? t - forked[pid] : -1
		next
	}
	if (!(pid in prog)) next
	if (ev == "page_fault_user") {
		a = $0; sub(/.*address=/, "", a); sub(/ .*/, "", a)
		c = $0; sub(/.*error_code=/, "", c); sub(/ .*/, "", c)
		label = "fault " region(hex(a)) " " how(c)
	} else if (ev == "signal_deliver") {
		s = $0; sub(/.*sig=/, "", s); sub(/ .*/, "", s)
		label = "signal " s " delivered"
	} else if (ev == "sched_process_exit") {
		label = "exit"
	} else next
	seq[pid] = seq[pid] (seq[pid] == "" ? "" : ";") label
	times[pid] = times[pid] " " (t - last[pid])
	last[pid] = t
	if (ev == "sched_process_exit") {
		print prog[pid] "\t" seq[pid] "\t" times[pid] "\t" toexec[pid]
		delete prog[pid]
	}
}' "$work/trace" >"$work/runs"

for p in "$@"; do
	awk -F'\t' -v p="$p" '$1 == p { n[$2]++ } END { for (s in n) print n[s] "\t" s }' \
		"$work/runs" | sort -rn | head -1 >"$work/mode"
	if [ ! -s "$work/mode" ]; then
		echo "$p: no run traced"
		continue
	fi
	awk -F'\t' -v p="$p" -v clock="$clock" '
	NR == FNR { want = $2; modal = $1; next }
	$1 == p { all++ }
	$1 == p && $2 == want {
		k = split($3, d, " ")
		for (i = 1; i <= k; i++) v[i, ++c[i]] = d[i]
		total[++runs] = 0
		for (i = 1; i <= k; i++) total[runs] += d[i]
		if ($4 >= 0) fe[++nfe] = $4
	}
	function median(arr, key, n,   i, j, x, s) {
		for (i = 1; i <= n; i++) s[i] = (key == "" ? arr[i] : arr[key, i])
		for (i = 2; i <= n; i++) {
			x = s[i]
			for (j = i - 1; j >= 1 && s[j] > x; j--) s[j + 1] = s[j]
			s[j + 1] = x
		}
		return (n % 2) ? s[(n + 1) / 2] : (s[n / 2] + s[n / 2 + 1]) / 2
	}
	END {
		k = split(want, names, ";")
		printf "%s: exec to exit %.1f us (median; %d of %d runs had these events, clock %s)\n",
			p, median(total, "", runs), modal, all, clock
		if (nfe)
			printf "  %8.1f us  from fork to exec (the shell child, then execve)\n",
				median(fe, "", nfe)
		for (i = 1; i <= k; i++)
			printf "  %+8.1f us  %s\n", median(v, i, c[i]), names[i]
	}' "$work/mode" "$work/runs"
done
