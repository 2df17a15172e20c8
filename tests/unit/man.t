#!/bin/bash
# Every manual page in man/ passes mandoc's linter at warning level with no
# output, and every name a page documents is reachable: it is the page's own
# name or has a link page declared in man/man.mk.
. "$(dirname "$0")/../lib/tap.sh"

shopt -s nullglob
pages=("$TOP"/man/*.[1-9])

if ! command -v mandoc >/dev/null 2>&1; then
	plan 1
	ok 1 "mandoc is installed"
	diag "mandoc not found: install it (apt-get install mandoc, or make deps)"
	done_testing
fi
if [ ${#pages[@]} -eq 0 ]; then
	plan 1
	ok 1 "man/ holds manual pages"
	done_testing
fi

plan $((2 * ${#pages[@]}))

for p in "${pages[@]}"; do
	rel=${p#"$TOP"/}
	out=$(mandoc -Tlint -W warning "$p" 2>&1)
	rc=$?
	if [ -z "$out" ] && [ $rc -eq 0 ]; then
		ok 0 "mandoc -Tlint -W warning $rel"
	else
		ok 1 "mandoc -Tlint -W warning $rel"
		diag "exit status $rc" "$out"
	fi
done

# Names in the NAME section (.Nm lines up to the first .Nd).
for p in "${pages[@]}"; do
	rel=${p#"$TOP"/}
	base=${p##*/}
	sect=${base##*.}
	missing=
	for n in $(sed -n '/^\.Sh NAME/,/^\.Nd/s/^\.Nm \([^ ,]*\).*/\1/p' "$p"); do
		[ "$n.$sect" = "$base" ] && continue
		grep -q "man$sect/$n\.$sect=man$sect/$base" "$TOP/man/man.mk" ||
			missing="$missing $n"
	done
	if [ -z "$missing" ]; then
		ok 0 "$rel: every name has a page or a link"
	else
		ok 1 "$rel: every name has a page or a link"
		diag "no link in man/man.mk for:$missing"
	fi
done

done_testing
