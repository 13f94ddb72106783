#!/bin/bash
# The make fragment (data/aout2elf.mk, built from data/aout2elf.mk.in) over
# a small SDK-like tree: a static and a dynamic program (its library given
# with AOUT2ELF_LIBDIRS) in folders of their own, and a program behind
# wrapper scripts.  The including makefile keeps its own default goal;
# aout2elf-all converts, a second run converts nothing, the converter, the
# flags or a library changing converts again, aout2elf-clean removes
# exactly what it made, and a wrapper run the README's way keeps the
# program's name and passes what it adds.
. "${srcdir:-.}/tests/lib.sh"
need_i386 "$@"
e2e_setup makefrag

fragment=$(pwd)/data/aout2elf.mk
if [ ! -f "$fragment" ]; then
	not_ok "the fragment $fragment exists (make builds it)"
	finish
fi
# the test's own make runs, whatever make called this script with
unset MAKEFLAGS MFLAGS MAKELEVEL

# ---- the tree ----
S=$W/sdk
mkdir -p "$S/bin/sub" "$S/lib" "$W/tools"
cp "$TESTDATA/hello.qmagic.aout" "$S/bin/hello-a.out"
cp "$TESTDATA/dyn.qmagic.aout" "$S/bin/sub/dyn-a.out"
cp "$TESTDATA/statedump.qmagic.aout" "$S/bin/tool-a.out"
cp "$TESTDATA/libtiny.so.1" "$S/lib/"
# a converter of its own, to be touched as an installed one changes
cp "$AOUT2ELF" "$W/tools/aout2elf"
conv=$W/tools/aout2elf

# the SDK's makefile: the fragment first, then the makefile's own goal
cat >"$S/bin/Makefile" <<EOF
include $fragment
AOUT2ELF = $conv
AOUT2ELF_PROGRAMS = hello sub/dyn tool
AOUT2ELF_LIBDIRS = ../lib
sdk-default:
	@echo the SDK makefile\\'s own default goal
EOF
# and one whose first rule comes before the include
printf 'early:\n\t@echo early goal\ninclude %s\n' "$fragment" >"$S/bin/early.mk"
tree() { (cd "$S" && find . | LC_ALL=C sort); }
tree >"$W/tree.before"
MK=(make -C "$S/bin" --no-print-directory)

# ---- the default goal and the default converter ----
run "${MK[@]}"
expect "a plain make runs the including makefile's default goal" 0 "the SDK makefile's own default goal
"
check "... and converts nothing" sh -c "test -z \"\$(find '$S' -name '*.elf')\""
run "${MK[@]}" -f early.mk
expect "a first rule before the include stays the default goal" 0 "early goal
"
# shellcheck disable=SC2016 # make's $(AOUT2ELF)
printf 'include %s\nshow:\n\t@echo $(AOUT2ELF)\n' "$fragment" >"$W/show.mk"
run env -u AOUT2ELF make -s -f "$W/show.mk"
case $(cat "$OUT") in
/*/aout2elf) ok "AOUT2ELF is by default the installed converter by its full path: $(cat "$OUT")" ;;
*) not_ok "AOUT2ELF is by default the installed converter by its full path" && report_run ;;
esac

# ---- converting, and converting again what changed ----
converted() { grep -c "^$conv .* -f .*-a.out .*\.elf$" "$OUT"; }
run "${MK[@]}" aout2elf-all
if [ "$st" = 0 ] && [ "$(converted)" = 3 ] && [ -x "$S/bin/hello.elf" ] &&
	[ -x "$S/bin/sub/dyn.elf" ] && [ -x "$S/bin/tool.elf" ]; then
	ok "make aout2elf-all converts the three programs, with the converter by its path"
else
	not_ok "make aout2elf-all converts the three programs" && report_run
fi
check "... with -L for the library folder" grep -q -- "-L \.\./lib -f sub/dyn-a.out sub/dyn.elf" "$OUT"
sed 's/^/# /' "$OUT"
run "${MK[@]}" aout2elf-all
if [ "$st" = 0 ] && [ "$(converted)" = 0 ]; then
	ok "a second make aout2elf-all converts nothing: $(cat "$OUT")"
else
	not_ok "a second make aout2elf-all converts nothing" && report_run
fi
check "make -q aout2elf-all says all is up to date" "${MK[@]}" -q aout2elf-all

again() { # again DESCRIPTION [MAKE-ARG...]: every program is converted again
	local desc=$1
	shift
	run "${MK[@]}" aout2elf-all "$@"
	if [ "$st" = 0 ] && [ "$(converted)" = 3 ]; then
		ok "$desc converts again"
	else
		not_ok "$desc converts again" && report_run
	fi
	run "${MK[@]}" aout2elf-all "$@"
	if [ "$st" = 0 ] && [ "$(converted)" = 0 ]; then
		ok "... once"
	else
		not_ok "... once" && report_run
	fi
}
touch "$S/lib/libtiny.so.1"
again "a library touched"
touch "$conv"
again "the converter changed"
again "other flags (AOUT2ELF_FLAGS=-s)" AOUT2ELF_FLAGS=-s
check "... recorded in .aout2elf-flags" grep -qx "$conv -s -L \.\./lib" "$S/bin/.aout2elf-flags"
again "the flags back as before"
cp -p "$S/lib/libtiny.so.1" "$S/lib/libother.so.1"
again "a library added (with an older date)"
rm "$S/lib/libother.so.1"
again "a library removed"

# ---- the converted programs, and the wrappers ----
if why=$(why_not_run qmagic); then
	skip "running the converted programs: $why"
else
	run "$S/bin/hello.elf"
	expect "hello.elf runs" 0 "hello from a.out
"
	run "$S/bin/sub/dyn.elf"
	expect "sub/dyn.elf runs with the library embedded from AOUT2ELF_LIBDIRS" 0 "dyn: hello from libtiny
"
	# the README's wrappers: one that keeps the name, one that also sets a
	# variable and adds an argument (as gcc263's does)
	# shellcheck disable=SC2016 # the wrapper's own $0 and $@
	printf '#!/bin/bash\nexec -a "$0" "$0.elf" "$@"\n' >"$S/bin/a.out-wrapper"
	chmod 755 "$S/bin/a.out-wrapper"
	ln -s a.out-wrapper "$S/bin/tool"
	run env PATH="$S/bin:$PATH" tool one
	if [ "$st" = 0 ] && grep -q "^argv\[0\]: .* \"$S/bin/tool\"$" "$OUT" &&
		grep -q '^argv\[1\]: .* "one"$' "$OUT"; then
		ok "a wrapper found in PATH runs NAME.elf by the wrapper's name: $(grep '^argv\[0\]' "$OUT")"
	else
		not_ok "a wrapper found in PATH runs NAME.elf by the wrapper's name" && report_run
	fi
	cat >"$S/bin/tool2" <<'EOF'
#!/bin/bash
export TOOL_PREFIX="${0%/*}/"
exec -a "$0" "${0%2}.elf" -V2.6.3 "$@"
EOF
	chmod 755 "$S/bin/tool2"
	run "$S/bin/tool2" one
	if [ "$st" = 0 ] && grep -q "^argv\[0\]: .* \"$S/bin/tool2\"$" "$OUT" &&
		grep -q '^argv\[1\]: .* "-V2.6.3"$' "$OUT" && grep -q '^argv\[2\]: .* "one"$' "$OUT" &&
		grep -q "^envp\[[0-9]*\]: .* \"TOOL_PREFIX=$S/bin/\"$" "$OUT"; then
		ok "a wrapper that sets a variable and adds an argument passes both, and its name"
	else
		not_ok "a wrapper that sets a variable and adds an argument passes both, and its name" && report_run
	fi
	rm -f "$S/bin/a.out-wrapper" "$S/bin/tool" "$S/bin/tool2"
fi

# ---- clean ----
run "${MK[@]}" aout2elf-clean
tree >"$W/tree.after"
if [ "$st" = 0 ] && cmp -s "$W/tree.before" "$W/tree.after"; then
	ok "make aout2elf-clean removes exactly what the fragment made"
else
	not_ok "make aout2elf-clean removes exactly what the fragment made" && report_run
	diff "$W/tree.before" "$W/tree.after" | sed 's/^/#   /'
fi

finish
