#!/bin/bash
# Converted programs under an i386 kernel.
#
# An x86-64 kernel gives an i386 program the address space up to
# 0xFFFFE000; an i386 kernel keeps everything from 0xC0000000 up for
# itself, and puts the program's stack right below that.  The converted
# program's own mappings (the stub, its variables, the staged segments)
# must all fit below it, or exec fails with SIGSEGV.  Every other test
# runs converted programs under an x86-64 kernel (this machine's, or the
# VM of tools/run-in-vm); this one runs them under Debian's i386 kernel,
# in the VM of `tools/run-in-vm --i386` (set up by `tools/setup-vm
# --i386`), and skips when that VM is not set up.
#
# The fixtures are converted here; the i386 VM has busybox, not this
# machine's programs, so what runs there is a POSIX sh script written
# here, which prints one "PASS desc" or "FAIL desc: why" line per check.
# Covered: the four kinds (hello, startup with and without --direct,
# startup in the layouts around 64 KiB), the trapped brk (traps; with
# registers, the i386 kernel's own signal frames), signals,
# fork and exec of a converted program, code in the heap and the stack,
# a dynamically linked program with its library embedded and looked up at
# run time, the low-address refusal as uid 65534, and the corpus programs
# when ../shared/corpus is there.
#
# Environment as for e2e-static.sh (AOUT2ELF, AOUT2ELF_TESTDATA,
# AOUT2ELF_CORPUS).
set -u

. "${srcdir:-.}/tests/lib.sh"

vm=${srcdir:-.}/tools/run-in-vm
if ! why=$("$vm" --i386 --check); then
	skip "no i386 kernel to run converted programs under: $why (tools/setup-vm --i386)"
	finish
fi

e2e_setup e2e-i386
corpus=${AOUT2ELF_CORPUS:-${srcdir:-.}/../shared/corpus}
MAGICS="omagic nmagic zmagic qmagic"

# conv NAME ARG...: "aout2elf -q ARG... $B/NAME", a failed check if it fails
conv() {
	local name=$1
	shift
	convert "aout2elf $* converts to $name" "$B/$name" -q "$@"
}

# ---- convert, here ----
for M in $MAGICS; do
	conv "hello.$M" "$TESTDATA/hello.$M.aout"
	conv "startup.$M" "$TESTDATA/startup.$M.aout"
	conv "startup-direct.$M" --direct "$TESTDATA/startup.$M.aout"
	conv "startup-norandom.$M" --no-randomize "$TESTDATA/startup.$M.aout"
	for L in $LAYOUTS; do
		conv "startup-$L.$M" "$TESTDATA/startup-$L.$M.aout"
	done
	for f in traps sigsegv forkexec runcode dyn; do
		case $f in
		dyn) conv "dyn.$M" -L "$TESTDATA" "$TESTDATA/dyn.$M.aout" ;;
		*) conv "$f.$M" "$TESTDATA/$f.$M.aout" ;;
		esac
	done
done
conv dyn-rt.qmagic --no-embed-libs -L "$TESTDATA" "$TESTDATA/dyn.qmagic.aout"
have_corpus=no
if [ -d "$corpus" ]; then
	corpus=$(cd "$corpus" && pwd)
	have_corpus=yes
	conv aln "$corpus/aln"
	conv hello-syms "$corpus/hello-syms"
	conv pwd.exe -L "$corpus/lib" "$corpus/pwd.exe"
	conv gforth -L "$corpus/lib" "$corpus/gforth-0.2.1"
fi

# busybox has no setarch: a static i386 one for the stack-top check
norandom=$W/norandom
if ! ${CC:-cc} -m32 -static -O2 -o "$norandom" "${srcdir:-.}/tests/helpers/norandom.c" 2>"$W/norandom.err"; then
	show "$W/norandom.err" "cc -m32 -static tests/helpers/norandom.c"
	norandom=
fi
# where configure found no 32-bit glibc, that check is skipped, not failed
NRMISS=FAIL
[ "${AOUT2ELF_M32_LIBC:-yes}" = no ] && NRMISS=SKIP

# ---- what runs in the i386 VM ----
# t DESC STATUS STDOUT PROGRAM [ARG...]: the program exits STATUS, prints
# exactly STDOUT (without its last newline) and nothing on stderr
# tn DESC STATUS STDOUT-PREFIX ...: the same, stdout starting so
# t1 DESC STATUS WORDS ...: exits STATUS, stdout empty, one line on
# stderr holding WORDS
{
	echo '#!/bin/sh'
	printf 'W=%q B=%q TD=%q NR=%q NRMISS=%q LAYOUTS=%q\n' "$W" "$B" \
		"$(cd "$TESTDATA" && pwd)" "$norandom" "$NRMISS" "$LAYOUTS"
	cat <<'EOF'
E=$W/inner.err
t() {
	desc=$1 want=$2 wantout=$3
	shift 3
	out=$(timeout 60 "$@" 2>"$E" </dev/null)
	st=$?
	if [ "$st" = "$want" ] && [ "$out" = "$wantout" ] && [ ! -s "$E" ]; then
		echo "PASS $desc"
	else
		echo "FAIL $desc: exit status $st (want $want), stdout [$out], stderr [$(head -c 300 "$E")]"
	fi
}
tn() {
	desc=$1 want=$2 prefix=$3
	shift 3
	out=$(timeout 60 "$@" 2>"$E" </dev/null)
	st=$?
	case $out in
	"$prefix"*) same=yes ;;
	*) same=no ;;
	esac
	if [ "$st" = "$want" ] && [ "$same" = yes ] && [ ! -s "$E" ]; then
		echo "PASS $desc"
	else
		echo "FAIL $desc: exit status $st (want $want), stdout [$(echo "$out" | head -3)], stderr [$(head -c 300 "$E")]"
	fi
}
t1() {
	desc=$1 want=$2 words=$3
	shift 3
	out=$(timeout 60 "$@" 2>"$E" </dev/null)
	st=$?
	lines=$(wc -l <"$E")
	if [ "$st" = "$want" ] && [ -z "$out" ] && [ "$lines" = 1 ] && grep -qF "$words" "$E"; then
		echo "PASS $desc"
	else
		echo "FAIL $desc: exit status $st (want $want), stdout [$out], stderr [$(head -c 300 "$E")]"
	fi
}
min=$(cat /proc/sys/vm/mmap_min_addr)
echo "# $(uname -srm), vm.mmap_min_addr $min, uid $(id -u)"
for M in omagic nmagic zmagic qmagic; do
	t "$M: hello" 0 "hello from a.out" "$B/hello.$M"
	t "$M: hello world" 0 "hello from a.out
world" "$B/hello.$M" world
	t "$M: startup" 0 "startup: ok" "$B/startup.$M"
	t "$M: startup args with AOUT_TEST=yes" 0 "startup: ok" env AOUT_TEST=yes "$B/startup.$M" args "b b" ""
	t "$M: startup with no environment" 0 "startup: ok" env -i "$B/startup.$M"
	t "$M: startup, converted with --direct" 0 "startup: ok" "$B/startup-direct.$M"
	# without randomisation, the stack ends where the i386 a.out loader
	# put it: at STACK_TOP, 0xC0000000 (binfmt_aout's arch_align_stack
	# moved it down by at most 8 KiB; an ELF's moves by up to 8 MiB)
	for f in startup startup-direct; do
		if [ -n "$NR" ]; then
			t "$M: $f stacktop, no randomisation: the a.out loader's stack top" 0 \
				"stack top: 0xc0000000" "$NR" "$B/$f.$M" stacktop
		else
			echo "$NRMISS $M: $f stacktop: tests/helpers/norandom.c did not build (cc -m32 -static: a 32-bit glibc, Debian package gcc-multilib)"
		fi
	done
	# --no-randomize: the same top with no help from outside
	t "$M: startup stacktop, converted with --no-randomize" 0 \
		"stack top: 0xc0000000" "$B/startup-norandom.$M" stacktop
	t "$M: startup, converted with --no-randomize" 0 "startup: ok" "$B/startup-norandom.$M"
	for L in $LAYOUTS; do
		t "$M: startup-$L" 0 "startup: ok" "$B/startup-$L.$M"
		# brk set by prctl in every layout at vm.mmap_min_addr 4096: no
		# filter, no no_new_privs
		echo 4096 >/proc/sys/vm/mmap_min_addr
		t "$M: startup-$L privs (brk by prctl: no filter, no no_new_privs)" 0 \
			"$(printf 'NoNewPrivs:\t0\nSeccomp:\t0')" "$B/startup-$L.$M" privs
		echo "$min" >/proc/sys/vm/mmap_min_addr
	done
	# Debian's i386 kernel lets PR_SET_MM_MAP set a brk as low as
	# vm.mmap_min_addr (4096 here): nothing is trapped.  Its struct
	# prctl_mm_map is 100 bytes, not the 104 of a 64-bit kernel, which it
	# refuses.
	echo 4096 >/proc/sys/vm/mmap_min_addr
	t "$M: traps probe: brk exact by prctl (the i386 kernel's struct prctl_mm_map)" 0 \
		"brk: exact" "$B/traps.$M" probe
	# at 65536, as on most kernels, a brk below 64 KiB is trapped; root
	# still maps the a.out below it
	echo 65536 >/proc/sys/vm/mmap_min_addr
	probe=$("$B/traps.$M" probe 2>&1)
	for mode in fork mask blockall budget brkonly nested registers sigsys; do
		case $probe in
		"brk: trapped"*) t "$M: traps $mode (vm.mmap_min_addr 65536)" 0 "traps: ok" "$B/traps.$M" "$mode" ;;
		*) echo "FAIL $M: traps probe with vm.mmap_min_addr 65536 says brk is trapped: [$probe]" ;;
		esac
	done
	t "$M: traps sigsys-default (killed by SIGSYS)" 159 "" "$B/traps.$M" sigsys-default
	echo "$min" >/proc/sys/vm/mmap_min_addr
	t "$M: sigsegv (its handler catches SIGSEGV)" 42 "caught SIGSEGV" "$B/sigsegv.$M"
	t "$M: forkexec hello (fork, exec of a converted program)" 0 "hello from a.out
child" "$B/forkexec.$M" "$B/hello.$M"
	t "$M: forkexec startup-brk-10004 (traps nothing, under the parent's filter)" 0 "startup: ok" \
		"$B/forkexec.$M" "$B/startup-brk-10004.$M"
	for where in stack heap heap-high; do
		t "$M: runcode $where" 42 "" "$B/runcode.$M" "$where"
	done
	t "$M: dyn (libtiny.so.1 embedded)" 0 "dyn: hello from libtiny" env -u AOUT_LIBRARY_PATH "$B/dyn.$M"
	t "$M: dyn, brk moved by the library's code" 0 "dyn: hello from libtiny" \
		env -u AOUT_LIBRARY_PATH DYN_LIB_BRK=1 "$B/dyn.$M"
done
t "qmagic: dyn, --no-embed-libs, AOUT_LIBRARY_PATH" 0 "dyn: hello from libtiny" env AOUT_LIBRARY_PATH="$TD" "$B/dyn-rt.qmagic"
echo 65536 >/proc/sys/vm/mmap_min_addr
for M in zmagic qmagic; do
	t1 "$M as uid 65534 with vm.mmap_min_addr 65536: one line, exit 127" 127 "vm.mmap_min_addr" \
		su -s /bin/sh nobody -c 'exec "$0"' "$B/hello.$M"
done
echo 4096 >/proc/sys/vm/mmap_min_addr
t "qmagic as uid 65534 with vm.mmap_min_addr 4096" 0 "hello from a.out" \
	su -s /bin/sh nobody -c 'exec "$0"' "$B/hello.qmagic"
echo "$min" >/proc/sys/vm/mmap_min_addr
EOF
	echo 'done=1'

	if [ "$have_corpus" = yes ]; then
		printf 'C=%q\n' "$corpus"
		cat <<'EOF'
tn "corpus: aln prints its banner, exits 1" 1 "*******" "$B/aln"
tn "corpus: aln -? prints its usage, exits 1" 1 "Usage: " "$B/aln" '-?'
t "corpus: hello-syms" 0 "Hello, brave new world!" "$B/hello-syms"
mkdir -p "$W/home" "$W/here"
t "corpus: pwd.exe prints the working folder" 0 "$W/here" sh -c 'cd "$0" && exec "$1"' "$W/here" "$B/pwd.exe"
t "corpus: gforth with its nonrelocatable image" 0 "5 " env HOME="$W/home" "$B/gforth" -i "$C/gforth-0.2.1.fi" -e '2 3 + . cr bye'
EOF
	fi
	# shellcheck disable=SC2016 # expanded by the inner sh
	echo '[ "$done" = 1 ] && echo "END of the checks"'

} >"$W/inner.sh"

# ---- run it there ----
if ! AOUT2ELF_VM_TIMEOUT=${AOUT2ELF_VM_TIMEOUT:-900} "$vm" --i386 sh "$W/inner.sh" >"$W/inner.out" 2>&1; then
	not_ok "the i386 VM runs the checks" "tools/run-in-vm --i386 failed"
	show "$W/inner.out" output
	finish
fi
sed -n 's/^# /# i386 VM: /p' "$W/inner.out"
while IFS= read -r line; do
	case $line in
	"PASS "*) ok "i386 kernel: ${line#PASS }" ;;
	"FAIL "*) not_ok "i386 kernel: ${line#FAIL }" ;;
	"SKIP "*) skip "i386 kernel: ${line#SKIP }" ;;
	esac
done <"$W/inner.out"
if ! grep -qx "END of the checks" "$W/inner.out"; then
	not_ok "the i386 VM ran the checks to the end"
	show "$W/inner.out" output
fi
finish
