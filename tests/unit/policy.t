#!/bin/bash
# The password policy we ship must accept the passphrases it suggests:
# 500 pwqgen suggestions under tcb/pam/conf/passwdqc.conf all pass pwqcheck
# with the same file (random=47 once offered 11-character passphrases that
# the 15-character minimum then refused), and typical weak ones fail.
. "$(dirname "$0")/../lib/tap.sh"
X=$TOP/build/cache/extract/usr/bin
CONF=$TOP/tcb/pam/conf/passwdqc.conf
[ -x "$X/pwqgen" ] || skip_all "passwdqc not unpacked (make deps)"
bad=0 short=999
for i in $(seq 1 500); do
	p=$("$X/pwqgen" config="$CONF")
	[ "${#p}" -lt "$short" ] && short=${#p}
	printf '%s\n' "$p" | "$X/pwqcheck" -1 config="$CONF" >/dev/null ||
	    { bad=$((bad + 1)); diag "refused: $p"; }
done
is "$bad" 0 "500 suggested passphrases all accepted (shortest: $short)"
for w in abc12 password1234 'Tr0ub4dor&3' qwertyuiopasdf; do
	printf '%s\n' "$w" | "$X/pwqcheck" -1 config="$CONF" >/dev/null
	is "$?" 1 "weak '$w' refused"
done
printf '%s\n' 'correct horse battery staple' | "$X/pwqcheck" -1 config="$CONF" >/dev/null
is "$?" 0 "a four-word passphrase accepted"
done_testing
