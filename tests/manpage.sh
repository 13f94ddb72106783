#!/bin/bash
# The man page (man/aout2elf.1, mdoc): clean under mandoc -Tlint and
# groff -ww (each skipped where it is not installed), its footer naming
# no BSD, no "folder" in it or in --help, and the options it documents
# the ones --help lists: each long option of --help has an entry of its
# own, and every option the page names anywhere is one --help lists.
. "${srcdir:-.}/tests/lib.sh"

page=${srcdir:-.}/man/aout2elf.1
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

if command -v mandoc >/dev/null 2>&1; then
	# "referenced manual not found" and mandoc.db depend on what this
	# machine has installed, not on the page
	mandoc -Tlint -W style "$page" 2>&1 |
		grep -v -e 'referenced manual not found' -e 'mandoc\.db' >"$W/mandoc"
	check "mandoc -Tlint -W style: nothing to say" test ! -s "$W/mandoc"
	[ -s "$W/mandoc" ] && diag "$(head -n 20 "$W/mandoc")"
else
	skip "mandoc -Tlint: mandoc is not installed (apt-get install mandoc)"
fi

if command -v groff >/dev/null 2>&1; then
	groff -ww -mandoc -z "$page" >"$W/groff" 2>&1
	check "groff -ww -mandoc: no warnings" test ! -s "$W/groff"
	[ -s "$W/groff" ] && diag "$(head -n 20 "$W/groff")"
else
	skip "groff -ww: groff is not installed"
fi

check "the footer names an operating system, not the BSD default (.Os with an argument)" \
	grep -qE '^\.Os [^ ]' "$page"
check "no 'folder' in the man page (directory)" sh -c "! grep -qiw 'folders\?' '$page'"
"$AOUT2ELF" --help >"$W/help" 2>&1
check "no 'folder' in --help (directory)" sh -c "! grep -qiw 'folders\?' '$W/help'"

# The options of an mdoc line: each word after Fl up to the next macro,
# a dash put before it (Fl -strip is --strip).
mdoc_options() {
	awk '/^\./ {
		fl = 0
		for (i = 1; i <= NF; i++) {
			if ($i == "Fl" || $i == ".Fl") { fl = 1; continue }
			if ($i ~ /^\.?[A-Z][a-z][a-z]?$/) { fl = 0; continue }
			if (fl && $i ~ /^--?[a-z]/) print "-" $i
		}
	}' | grep -- '^--' | sort -u
}
grep -o -- '--[a-z][a-z-]*' "$W/help" | sort -u >"$W/help.opts"
grep '^\.It Fl' "$page" | mdoc_options >"$W/entries"
mdoc_options <"$page" >"$W/named"
missing=$(comm -23 "$W/help.opts" "$W/entries")
check "every long option of --help has an entry in the man page" test -z "$missing"
[ -n "$missing" ] && diag "no entry: $(echo $missing)"
extra=$(comm -13 "$W/help.opts" "$W/named")
check "every option the man page names is one --help lists" test -z "$extra"
[ -n "$extra" ] && diag "not in --help: $(echo $extra)"
check "the option lists are not empty" test "$(wc -l <"$W/help.opts")" -gt 10

finish
