# Shared by the shell tests: numbered checks and the closing summary line
# "N passed, N failed, N skipped" that the CI reads.  Source it, call
# check/skip, end with finish.

: "${AOUT2ELF:=./src/aout2elf}"
n_pass=0 n_fail=0 n_skip=0 n_total=0

ok() { n_total=$((n_total + 1)); n_pass=$((n_pass + 1)); echo "ok $n_total - $*"; }
not_ok() { n_total=$((n_total + 1)); n_fail=$((n_fail + 1)); echo "not ok $n_total - $*"; }
skip() { n_total=$((n_total + 1)); n_skip=$((n_skip + 1)); echo "ok $n_total # skip $*"; }

# check DESCRIPTION COMMAND...: passes when the command succeeds
check() {
	desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}

# run_capture OUTBASE CMD...: stdout, stderr and status into OUTBASE.{out,err,rc}
run_capture() {
	base=$1
	shift
	"$@" >"$base.out" 2>"$base.err" </dev/null
	echo $? >"$base.rc"
}

finish() {
	echo "$n_pass passed, $n_fail failed, $n_skip skipped"
	[ "$n_fail" -eq 0 ] || exit 1
	[ "$n_pass" -gt 0 ] || exit 77
	exit 0
}

is_root() { [ "$(id -u)" -eq 0 ]; }

# as_nobody CMD...: run unprivileged (needs root and setpriv)
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
can_drop_privileges() { is_root && command -v setpriv >/dev/null 2>&1; }
