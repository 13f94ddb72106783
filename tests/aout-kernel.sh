#!/bin/bash
# The kernel's own a.out loader as the reference.
#
# Every other test checks converted programs against what ia32_aout.c
# says.  This one runs the original a.out programs under Linux 5.10 built
# with that loader (CONFIG_IA32_AOUT, in the VM of `tools/run-in-vm
# --aout`, which `tools/setup-vm --aout-kernel` builds), and their
# conversions beside them in the same VM, and compares what they do:
#
# - statedump and statedump-big (brk below and above 64 KiB) print what a
#   program can see of its process (registers, the stack frame, brk, the
#   mappings, /proc, signals, limits); the lines of the original and of the
#   conversion must be the same but for the differences listed in
#   KNOWN_DIFFERENCES below, each of which docs/testing.md names;
# - the self-checking fixtures (startup in every layout, sigsegv, runcode,
#   forkexec, hello) must print the same and end the same way, which also
#   proves that their expectations are the loader's;
# - with ../shared/corpus: aln, hello-syms, and (in a chroot holding lib/)
#   pwd.exe and gforth-0.2.1 (its "5", and its errors caught by signal
#   handlers, its heap addresses, files and floats); and the 1993 programs
#   of oldlinux/, whose crt0 calls uselib itself, each in a copy of the
#   old system's tree.
#
# The VM runs without NX (noexec=off, see tools/run-in-vm): under NX the
# 5.10 loader's OMAGIC, NMAGIC and ZMAGIC text is not executable.  Skips
# when the VM is not set up.  Environment as for e2e-static.sh.
set -u

. "${srcdir:-.}/tests/lib.sh"

vm=${srcdir:-.}/tools/run-in-vm
if ! why=$("$vm" --aout --check); then
	skip "no kernel with the a.out loader to compare with: $why"
	finish
fi

e2e_setup aout-kernel
[ -n "${AOUT2ELF_KEEP_WORK:-}" ] && trap - EXIT # to look at the results
corpus=${AOUT2ELF_CORPUS:-${srcdir:-.}/../shared/corpus}
MAGICS="omagic nmagic zmagic qmagic"
td_abs=$(cd "$TESTDATA" && pwd)

# Each program P is run as ./prog in $W/o/P (the original), $W/c/P
# (converted) and $W/n/P (converted with --no-randomize): paths of one
# length, so that exec leaves the same strings on every stack.
# place P SRC [OPTION...]: the three copies of a.out SRC
place() {
	local p=$1 src=$2
	shift 2
	mkdir -p "$W/o/$p" "$W/c/$p" "$W/n/$p"
	cp "$src" "$W/o/$p/prog" && chmod 755 "$W/o/$p/prog"
	convert "converts $p" "$W/c/$p/prog" -q "$@" "$src"
	convert "converts $p with --no-randomize" "$W/n/$p/prog" -q --no-randomize "$@" "$src"
}

# The job the VM runs: "r P ARG..." runs the three copies of P with ARG...
# and a small fixed environment (and what the array ENV_EXTRA adds), for a
# minute at most, each result in $W/res/V.P.N.{out,err,rc} for the Nth
# run of P.
mkdir "$W/res"
job=$W/job
cat >"$job" <<EOF
#!/bin/bash
W=$(printf '%q' "$W")
EOF
cat >>"$job" <<'EOF'
declare -A count
r() {
	local p=$1 v n
	shift
	n=$((${count[$p]:-0} + 1))
	count[$p]=$n
	for v in o c n; do
		(cd "$W/$v/$p" && timeout -k 5 60 env -i A=1 'B=two words' "${ENV_EXTRA[@]}" ./prog "$@" \
			>"$W/res/$v.$p.$n.out" 2>"$W/res/$v.$p.$n.err" </dev/null
		 echo $? >"$W/res/$v.$p.$n.rc")
	done
}
ENV_EXTRA=()
EOF
runs=()
# extra VAR=VALUE...: the environment of the runs added after it
extra() {
	{
		printf 'ENV_EXTRA=('
		[ $# -gt 0 ] && printf ' %q' "$@"
		echo ' )'
	} >>"$job"
}
# add P ARG...: one run of P
add() {
	runs+=("$1")
	{
		printf 'r'
		printf ' %q' "$@"
		echo
	} >>"$job"
}

for M in $MAGICS; do
	place "statedump.$M" "$TESTDATA/statedump.$M.aout"
	place "statedump-big.$M" "$TESTDATA/statedump-big.$M.aout"
	add "statedump.$M" x 'y z' ''
	add "statedump-big.$M" x 'y z' ''
	place "hello.$M" "$TESTDATA/hello.$M.aout"
	add "hello.$M"
	add "hello.$M" world
	place "sigsegv.$M" "$TESTDATA/sigsegv.$M.aout"
	add "sigsegv.$M"
	place "runcode.$M" "$TESTDATA/runcode.$M.aout"
	for where in stack data bss heap heap-high; do
		add "runcode.$M" "$where"
	done
	place "forkexec.$M" "$TESTDATA/forkexec.$M.aout"
	# child32 where configure found a 32-bit glibc (the original's run
	# and its conversion's are compared, so without it there is none)
	[ "${AOUT2ELF_M32_LIBC:-yes}" = no ] || add "forkexec.$M" "$td_abs/child32"
	add "forkexec.$M" "$td_abs/child64"
	# uselib: the library's own file for the original, embedded in the
	# conversion; again at the end (its data as in the file, bss zero);
	# and (QMAGIC: elsewhere address 16 is text, a path the kernel looks
	# for, where the stub stops the program when it finds it nowhere, see
	# docs/design.md) with a pointer it cannot read (EFAULT)
	place "dyn.$M" "$TESTDATA/dyn.$M.aout" -L "$TESTDATA"
	extra "DYN_LIBDIR=$td_abs"
	add "dyn.$M"
	extra "DYN_LIBDIR=$td_abs" DYN_USELIB_TWICE=1
	add "dyn.$M"
	# brk moved by the library's code, below 64 KiB, past it and back
	extra "DYN_LIBDIR=$td_abs" DYN_LIB_BRK=1
	add "dyn.$M"
	if [ "$M" = qmagic ]; then
		extra "DYN_LIBDIR=$td_abs" DYN_USELIB_FAULT=1
		add "dyn.$M"
		place dynz.qmagic "$TESTDATA/dyn.qmagic.aout" -L "$TESTDATA/zmagic"
		extra "DYN_LIBDIR=$td_abs/zmagic" DYN_USELIB_TWICE=1
		add dynz.qmagic
	fi
	extra AOUT_TEST=yes STARTUP_ANY_REGS=1
	place "startup.$M" "$TESTDATA/startup.$M.aout"
	add "startup.$M" args 'b b' ''
	for L in $LAYOUTS; do
		place "startup-$L.$M" "$TESTDATA/startup-$L.$M.aout"
		add "startup-$L.$M" args 'b b' ''
	done
	extra
done
chmod 755 "$job"

# ---- the corpus: in a chroot, where ld.so finds /lib as it did ----
if [ -d "$corpus" ]; then
	mkdir -p "$W/root/lib" "$W/root/tmp"
	cp "$corpus"/lib/* "$W/root/lib/"
	for p in aln hello-syms; do
		place $p "$corpus/$p"
	done
	add aln
	add aln -?
	add hello-syms
	mkdir "$W/root/o" "$W/root/c" "$W/root/n"
	for p in pwd.exe gforth-0.2.1; do
		cp "$corpus/$p" "$W/root/o/$p"
		convert "converts $p" "$W/root/c/$p" -q -L "$corpus/lib" "$corpus/$p"
		convert "converts $p with --no-randomize" "$W/root/n/$p" -q --no-randomize \
			-L "$corpus/lib" "$corpus/$p"
	done
	for v in o c n; do
		cp "$corpus/gforth-0.2.1.fi" "$W/root/$v/"
	done
	cat >>"$job" <<'EOF2'
# rc V NAME PROG ARG...: PROG run in the chroot (whose / holds lib/);
# with OLDROOT set, in V's own copy of the 1993 system (see below)
rc() {
	local v=$1 name=$2 root=$W/root
	shift 2
	[ -n "${OLDROOT:-}" ] && root=$W/old-$v
	timeout -k 5 60 env -i A=1 HOME=/tmp "$(command -v chroot)" "$root" "$@" \
		>"$W/res/$v.$name.1.out" 2>"$W/res/$v.$name.1.err" </dev/null
	echo $? >"$W/res/$v.$name.1.rc"
}
EOF2
	# gforth beyond "5": its SIGFPE and SIGSEGV handlers (a return stack
	# run into its guard page too), stack underflow, the addresses malloc
	# and the dictionary get (heap from the exact brk), files, floats.
	# Not 1e 0e f/: libc.so.4 unmasks the x87's zero-divide exception,
	# which QEMU's emulation (TCG) never raises: "Inf" here, SIGFPE on a
	# real processor.
	gforth_runs=(
		gforth '2 3 + . cr bye'
		gforth-fpe '1 0 / . cr bye'
		gforth-segv '0 @ . cr bye'
		gforth-underflow 'drop bye'
		gforth-rstack ': g 1 + recurse ; 0 g bye'
		gforth-alloc '1000 allocate throw . 100000000 allocate throw . cr bye'
		gforth-here 'here . sp@ . rp@ . cr bye'
		gforth-file 's" /tmp/ff" r/w create-file throw dup s" hello" rot write-file throw close-file throw s" /tmp/ff" r/o open-file throw pad 10 rot read-file throw pad swap type cr bye'
		gforth-float '1e 3e f/ f. cr bye'
	)
	for v in o c n; do
		echo "rc $v pwd.exe /$v/pwd.exe" >>"$job"
		set -- "${gforth_runs[@]}"
		while [ $# -gt 0 ]; do
			printf 'rc %s %s /%s/gforth-0.2.1 -i /%s/gforth-0.2.1.fi -e %q\n' \
				"$v" "$1" "$v" "$v" "$2" >>"$job"
			[ "$v" = o ] && runs+=("$1")
			shift 2
		done
	done
	runs+=(pwd.exe)
fi

# ---- 1993 programs whose crt0 calls uselib itself (oldlinux/) ----
# Each of original (o), converted (c) and converted --no-randomize (n)
# gets its own copy of the old system, the programs at the same paths (so
# that argv[0] in their messages is the same): /lib with Slackware's libc
# and libm 4.4.1 and SLS's X11 libraries, and F, the file the README's
# runs read.  The conversions find the libraries with --sysroot, by the
# names the programs give, absolute links resolved inside the tree.
old=$corpus/oldlinux
if [ -d "$old" ]; then
	for v in o c n; do
		mkdir -p "$W/old-$v/bin" "$W/old-$v/tmp"
		old_libs "$old" "$W/old-$v"
		printf 'hello world\nfoo bar\nhello\n' >"$W/old-$v/tmp/F"
		touch -d '1993-07-03 12:00' "$W/old-$v/tmp/F"
	done
	for p in cat sed gawk tcsh ls gzip zipinfo; do
		cp "$old/$p" "$W/old-o/bin/$p"
		chmod 755 "$W/old-o/bin/$p"
		opts=(--sysroot "$W/old-o")
		[ $p = zipinfo ] && opts=(--no-embed-libs) # its library is nowhere
		convert "converts oldlinux/$p" "$W/old-c/bin/$p" -q "${opts[@]}" "$old/$p"
		convert "converts oldlinux/$p with --no-randomize" "$W/old-n/bin/$p" -q \
			--no-randomize "${opts[@]}" "$old/$p"
	done
	# old_run NAME PROG ARG...: one run of PROG in each of the three trees
	old_run() {
		local v
		for v in o c n; do
			{
				printf 'OLDROOT=1 rc %s' "$v"
				printf ' %q' "$@"
				echo
			} >>"$job"
		done
		runs+=("$1")
	}
	old_run old-cat /bin/cat /tmp/F
	old_run old-sed /bin/sed s/hello/bye/ /tmp/F
	old_run old-gawk /bin/gawk '{print $2, NR*3, sin(1)}' /tmp/F
	old_run old-tcsh /bin/tcsh -f -c 'echo hi $shell; echo $version'
	old_run old-ls /bin/ls -l /tmp/F
	old_run old-gzip /bin/gzip -c /tmp/F
	old_run old-zipinfo /bin/zipinfo /tmp/F
fi

# ---- run them all, in one boot of the VM ----
set_timeout 900
vm_st=0
"${TIMEOUT[@]}" "$vm" --aout "$job" >"$W/vm.out" 2>&1 || vm_st=$?
set_timeout "${AOUT2ELF_TIMEOUT:-30}"
if [ "$vm_st" != 0 ]; then
	not_ok "the VM with the a.out loader runs the job" "exit status $vm_st"
	show "$W/vm.out" vm
	finish
fi
ok "the VM with the a.out loader runs the job"

# ---- compare ----

# same_run DESC KEY: the original's and the two conversions' runs KEY
# printed the same and ended the same way
same_run() {
	local desc=$1 k=$2 v bad=
	for v in c n; do
		if ! cmp -s "$W/res/o.$k.rc" "$W/res/$v.$k.rc" ||
			! cmp -s "$W/res/o.$k.out" "$W/res/$v.$k.out" ||
			! cmp -s "$W/res/o.$k.err" "$W/res/$v.$k.err"; then
			bad="$bad $v"
		fi
	done
	if [ -z "$bad" ]; then
		ok "$desc"
		return
	fi
	not_ok "$desc" "original: exit status $(cat "$W/res/o.$k.rc" 2>/dev/null)"
	show "$W/res/o.$k.out" "original stdout"
	show "$W/res/o.$k.err" "original stderr"
	for v in $bad; do
		diag "$(vname "$v"): exit status $(cat "$W/res/$v.$k.rc" 2>/dev/null)"
		show "$W/res/$v.$k.out" "$(vname "$v") stdout"
		show "$W/res/$v.$k.err" "$(vname "$v") stderr"
	done
}
vname() { case $1 in c) echo converted ;; n) echo "converted --no-randomize" ;; esac; }

# What a conversion shows differently from the a.out loader, on purpose or
# because the kernel allows nothing else (docs/testing.md names each): these lines
# of statedump are compared by the checks below, not line by line.
#   eax..ebp      the loader left the exec caller's registers; the stub
#                 clears them, as the ELF loader does
#   stack top     the loader's is 0xffffe000 less 0 or 4 KiB at random
#                 (arch_align_stack); a conversion's is randomised over
#                 megabytes, or 0xffffe000 with --no-randomize
#   personality   0 under the loader (PER_LINUX); READ_IMPLIES_EXEC in a
#                 conversion, which gives it the executable memory that
#                 pre-NX processors gave every a.out program
#   mmap address  randomised in a conversion; the loader's with
#                 --no-randomize
#   auxv          the ELF loader's auxiliary vector; none under the loader
#   status SigCgt, NoNewPrivs, Seccomp   where brk is trapped: the stub's
#                 SIGSYS handler and filter (under 5.10, from the start)
#   stat startcode .. start_brk   PR_SET_MM_MAP takes no address below
#                 64 KiB: the code fields name the stub, the data ones 64 KiB
#   map           what is mapped below 0x80000000 and the stack must be the
#                 same (and, where brk lies below 64 KiB, the zero pages up
#                 to 64 KiB in a conversion); access, file offsets and names
#                 differ (the text comes from the ELF file; the stub's own
#                 mappings; stack and heap executable)
KNOWN='^(e[abcd]x|esi|edi|ebp|stack top|personality|mmap address|auxv|status (SigCgt|NoNewPrivs|Seccomp)|stat (startcode|endcode|start_data|end_data|start_brk)|map ):'
KNOWN=${KNOWN%:}

# field FILE KEY: the value on statedump's line "KEY: value"
field() { sed -n "s/^$2: //p" "$1"; }

# coverage FILE [FROM TO]: the address ranges mapped below 0x80000000, and
# the stack, joined, one "start end" a line; with FROM and TO, that range
# (the hybrid brk's zero pages) is left out
coverage() {
	awk -v from="${2:-0}" -v to="${3:-0}" '
	function num(h,   i, v) {
		h = tolower(h); sub(/^0x/, "", h); v = 0
		for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
		return v
	}
	/^map / {
		split($2, r, "-")
		if ($0 ~ /\[stack\]$/) { print "stack", r[1], r[2]; next }
		s = num(r[1]); e = num(r[2])
		if (s >= 2147483648) next
		if (from < to && s < num(to) && e > num(from)) {
			if (s < num(from)) add(s, num(from))
			if (e > num(to)) add(num(to), e)
			next
		}
		add(s, e)
	}
	function add(s, e) {
		if (n && s == last) { ends[n] = e } else { n++; starts[n] = s; ends[n] = e }
		last = e
	}
	END { for (i = 1; i <= n; i++) printf "%x %x\n", starts[i], ends[i] }' "$1"
}

# statedump_check P: the original's and the conversions' statedump of P
statedump_check() {
	local p=$1 k=$1.1 o c v desc brk from to
	o=$W/res/o.$k.out
	for v in c n; do
		c=$W/res/$v.$k.out
		desc="$p: $(vname "$v") prints what the original prints (but the known differences)"
		if [ "$(cat "$W/res/$v.$k.rc")" != 0 ] || [ "$(cat "$W/res/o.$k.rc")" != 0 ] || [ ! -s "$o" ]; then
			not_ok "$desc" "exit status $(cat "$W/res/o.$k.rc") (original), $(cat "$W/res/$v.$k.rc")"
			show "$W/res/o.$k.err" "original stderr"
			show "$W/res/$v.$k.err" "$(vname "$v") stderr"
			continue
		fi
		grep -Ev "$KNOWN" "$o" >"$W/o.rest"
		grep -Ev "$KNOWN" "$c" >"$W/c.rest"
		if diff "$W/o.rest" "$W/c.rest" >"$W/rest.diff"; then
			ok "$desc"
		else
			not_ok "$desc"
			show "$W/rest.diff" diff
		fi

		desc="$p: $(vname "$v") starts with eax..ebp zero"
		if [ "$(grep -E '^(e[abcd]x|esi|edi|ebp): ' "$c" | grep -vc ': 0x00000000$')" = 0 ]; then
			ok "$desc"
		else
			not_ok "$desc"
			show "$c" "$(vname "$v")"
		fi

		# the hybrid brk's zero pages, from brk's page up to 64 KiB
		from='' to=''
		brk=$(field "$o" brk)
		if [ -n "$brk" ] && ((brk < 0x10000)); then
			from=$(printf '0x%x' $(((brk + 4095) & ~4095))) to=0x10000
		fi
		desc="$p: $(vname "$v") has what the original has mapped below 2 GiB, and its stack"
		if [ "$(coverage "$o")" = "$(coverage "$c" "${from:-0}" "${to:-0}")" ] && [ -n "$(coverage "$o")" ]; then
			ok "$desc"
		else
			not_ok "$desc" "original: $(coverage "$o" | tr '\n' ' ')" \
				"$(vname "$v"): $(coverage "$c" "${from:-0}" "${to:-0}" | tr '\n' ' ')"
		fi
	done

	desc="$p: the original's stack top is 0xffffe000 or 0xffffd000, --no-randomize's 0xffffe000"
	case $(field "$o" "stack top") in
	0xffffe000 | 0xffffd000)
		if [ "$(field "$W/res/n.$k.out" "stack top")" = 0xffffe000 ]; then
			ok "$desc"
		else
			not_ok "$desc" "--no-randomize: $(field "$W/res/n.$k.out" "stack top")"
		fi
		;;
	*) not_ok "$desc" "original: $(field "$o" "stack top")" ;;
	esac

	desc="$p: mmap gives --no-randomize the address it gave the original"
	if [ "$(field "$o" "mmap address")" = "$(field "$W/res/n.$k.out" "mmap address")" ]; then
		ok "$desc"
	else
		not_ok "$desc" "original $(field "$o" "mmap address"), --no-randomize $(field "$W/res/n.$k.out" "mmap address")"
	fi

	desc="$p: the original's personality is PER_LINUX, a conversion's READ_IMPLIES_EXEC"
	if [ "$(field "$o" personality)" = 0x00000000 ] &&
		[ "$(field "$W/res/c.$k.out" personality)" = 0x00400000 ]; then
		ok "$desc"
	else
		not_ok "$desc" "original $(field "$o" personality), converted $(field "$W/res/c.$k.out" personality)"
	fi
}

# original_did KEY RC TEXT: the original's run KEY ended with status RC
# and printed TEXT (a fixed string) on stdout.  Runs that agree are only
# worth something where the original itself did the right thing: not
# three failures of chroot alike.
original_did() {
	local k=$1 rc=$2 text=$3
	if [ "$(cat "$W/res/o.$k.rc" 2>/dev/null)" = "$rc" ] &&
		grep -qF -- "$text" "$W/res/o.$k.out" 2>/dev/null; then
		ok "$k: the original under the a.out loader exits $rc and prints '$text'"
	else
		not_ok "$k: the original under the a.out loader exits $rc and prints '$text'" \
			"exit status $(cat "$W/res/o.$k.rc" 2>/dev/null)"
		show "$W/res/o.$k.out" "original stdout"
		show "$W/res/o.$k.err" "original stderr"
	fi
}
for M in $MAGICS; do
	original_did "dyn.$M.3" 0 'dyn: hello from libtiny' # DYN_LIB_BRK
done
if [ -d "$corpus" ]; then
	original_did aln.1 1 '*   ATARI LINKER (Mar 17 1995)    *'
	original_did hello-syms.1 0 'Hello, brave new world!'
	original_did pwd.exe.1 0 /
	original_did gforth.1 0 '5 '
	original_did gforth-fpe.1 55 'Error: Floating-point unidentified fault'
	original_did gforth-segv.1 9 'Error: Invalid memory address'
	original_did gforth-underflow.1 4 'Error: Stack underflow'
	original_did gforth-rstack.1 9 'Error: Invalid memory address'
	original_did gforth-alloc.1 0 '475136 483328 '
	original_did gforth-here.1 0 '150240 348208 397212 '
	original_did gforth-file.1 0 hello
	original_did gforth-float.1 0 '.333333333333333 '
fi
if [ -d "$old" ]; then
	original_did old-cat.1 0 'hello world'
	original_did old-sed.1 0 'bye world'
	original_did old-gawk.1 0 'world 3 0.841471'
	original_did old-tcsh.1 0 'tcsh 6.04.00 (Cornell) 93/07/03 (i386-linux) options 8b,dl,al'
	original_did old-ls.1 0 '/tmp/F'
	check "old-zipinfo.1: the original under the a.out loader exits 128, saying its library is missing" \
		sh -c "test \"\$(cat '$W/res/o.old-zipinfo.1.rc')\" = 128 &&
			grep -qF \"can't load library '/lib/libc.so.4.0'\" '$W/res/o.old-zipinfo.1.err'"
fi

declare -A seen
for k in "${runs[@]}"; do
	seen[$k]=$((${seen[$k]:-0} + 1))
	key=$k.${seen[$k]}
	case $k in
	statedump*) statedump_check "$k" ;;
	*) same_run "$k run ${seen[$k]}: the conversions do what the original does" "$key" ;;
	esac
done

finish
