#!/bin/bash
# owlet_name_ok / owlet_name_ok_n (common/names.c): user names that are safe
# as one path component under /etc/tcb.
. "$(dirname "$0")/../lib/root.sh"

U=$B/tests/bin/unitprobe
if [ ! -x "$U" ]; then
	plan 1; ok 1 "unitprobe built (run make check)"; done_testing
fi
plan 42

n32=abcdefghijklmnopqrstuvwxyz012345
for n in u1 root a A Z9 u.ser u_ser u-ser 'machine$' 'a@b' 'x.' 'a..b' "$n32" \
	'Ünï' 'a+b' '1234'; do
	is "$("$U" name "$n")" 1 "accepted: '$n'"
done
for n in '' . .. .hidden ./x -x -- :1K :tmp 'a:b' 'a:' a/b / ../x 'a/..' \
	'a b' ' a' 'a ' "$(printf 'a\tb')" "$(printf 'a\nb')" "$(printf 'a\177')" \
	"$(printf 'a\001')" "${n32}6"; do
	is "$("$U" name "$n")" 0 "rejected: $(printf '%q' "$n")"
done
# The _n form looks at exactly LEN bytes.
is "$("$U" namen "u1/x" 2)" 1 "_n: 'u1' out of 'u1/x' (len 2) is fine"
is "$("$U" namen "u1/x" 3)" 0 "_n: 'u1/' (len 3) is not"
is "$("$U" namen "u1" 0)" 0 "_n: length 0 is not"

done_testing
