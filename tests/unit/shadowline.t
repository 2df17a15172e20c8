#!/bin/bash
# owlet_shadow_check / owlet_shadow_parse (common/shadowline.c).
. "$(dirname "$0")/../lib/root.sh"

U=$B/tests/bin/unitprobe
if [ ! -x "$U" ]; then
	plan 1; ok 1 "unitprobe built (run make check)"; done_testing
fi
plan 49

chk() { "$U" check "$1"; }

# --- accepted -------------------------------------------------------------
for l in \
	'u1:$y$j9T$salt$hash:19001:0:99999:7:::' \
	'u1:x:::::::' \
	'u1::::::::' \
	'u1:*:0:0:0:0:0:0:0' \
	'u1:!:19001:0:99999:7:30:20000:0' \
	'a:h:2147483647::::::' \
	'a:h:0000000000000000001::::::' \
	'u.s_e-r$:h:1:2:3:4:5:6:7' \
	'abcdefghijklmnopqrstuvwxyz012345:h:::::::' \
	'u1:has spaces and ; and \ odd chars:1::::::' \
	'u1:'"$(head -c 5000 /dev/zero | tr '\0' x)"':1::::::'
do
	is "$(chk "$l")" ok "accepted: ${l:0:60}"
done

# --- rejected -------------------------------------------------------------
for l in \
	'' \
	'u1' \
	'u1:x:19001:0:99999:7::' \
	'u1:x:19001:0:99999:7:::::' \
	'u1:x:19001:0:99999:7::::' \
	'u1:x:1900a:0:99999:7:::' \
	'u1:x:19001: 0:99999:7:::' \
	'u1:x:19001:0 :99999:7:::' \
	'u1:x:+1:0:99999:7:::' \
	'u1:x:-1:0:99999:7:::' \
	'u1:x:19001:0:99999:-7:::' \
	'u1:x:19001:0:99999:7:::-1' \
	'u1:x:19001:0:99999:7:::x' \
	'u1:x:0x10:0:99999:7:::' \
	'u1:x:1e3:0:99999:7:::' \
	'u1:x:19001:0:99999:7:12345678901234567890::' \
	'u1:x:9223372036854775808::::::' \
	'u1:x:99999999999999999999::::::' \
	'u1:x:::::::18446744073709551616' \
	':x:19001:0:99999:7:::' \
	'.u1:x:19001:0:99999:7:::' \
	'-u1:x:19001:0:99999:7:::' \
	'u 1:x:19001:0:99999:7:::' \
	'u/1:x:19001:0:99999:7:::' \
	'..:x:19001:0:99999:7:::' \
	'abcdefghijklmnopqrstuvwxyz0123456:x:::::::' \
	"$(printf 'u1:x:19001:0:99999:7:::\nu2:x::::::')" \
	"$(printf 'u\t1:x:::::::')" \
	"$(printf 'u1:x:::::::\r')"
do
	is "$(chk "$l")" "bad EINVAL" "rejected: $(printf '%q' "${l:0:60}")"
done

# --- parse ------------------------------------------------------------------
is "$("$U" parse 'u1:$y$j9T$s$h:19001:0:99999:7:30:20000:5' | tr '\n' ' ')" \
	'name=u1 pwd=$y$j9T$s$h lstchg=19001 min=0 max=99999 warn=7 inact=30 expire=20000 flag=5 ' \
	"parse: every field"
is "$("$U" parse 'u1::::::::' | tr '\n' ' ')" \
	"name=u1 pwd= lstchg=-1 min=-1 max=-1 warn=-1 inact=-1 expire=-1 flag=18446744073709551615 " \
	"parse: empty numbers are -1, empty flag ~0UL"
is "$("$U" parse 'big:h:2147483647::::::' | sed -n 3p)" "lstchg=2147483647" \
	"parse: INT_MAX fits"
is "$("$U" parse 'big:h:2147483648::::::' | tr '\n' ' ')" "bad EINVAL " \
	"parse: INT_MAX + 1 rejected (glibc's files backend would not keep it either)"
is "$("$U" parse 'u1:x:1:2:3:4:5:6' | tr '\n' ' ')" "bad EINVAL " "parse: 8 fields rejected"
is "$("$U" parse 'u1:x:1:2:3:4:5:6:7:8' | tr '\n' ' ')" "bad EINVAL " "parse: 10 fields rejected"
is "$("$U" parse 'u1:x:1:2:-3:4:5:6:7' | tr '\n' ' ')" "bad EINVAL " "parse: negative rejected"
is "$("$U" parse '.x:x:1:2:3:4:5:6:7' | tr '\n' ' ')" "bad EINVAL " "parse: bad name rejected"

# A random sample of well-formed lines always passes; any single field made
# non-numeric fails.
fails=0
for i in $(seq 1 20); do
	l="user$i:\$6\$$RANDOM:$RANDOM:$((RANDOM % 10)):$RANDOM:$((RANDOM % 30))::$RANDOM:"
	[ "$(chk "$l")" = ok ] || fails=$((fails + 1))
	f=$((RANDOM % 7 + 3))
	bad=$(echo "$l" | awk -F: -v OFS=: -v f="$f" '{ $f = $f "z"; print }')
	[ "$(chk "$bad")" = "bad EINVAL" ] || fails=$((fails + 1))
done
is "$fails" 0 "20 random valid lines pass, each with one corrupted number fails"

done_testing
