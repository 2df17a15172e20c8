#!/bin/bash
# pam_tcb authentication through real Linux-PAM: results, prompts, hash
# sources and methods, the fork option, token items from stacked modules,
# likeauth, the tcb_chkpwd helper protocol and the fail delay.
. "$(dirname "$0")/../lib/pam.sh"
need_pam
tmpdir

R=$T/r
pam_root "$R" 8 >/dev/null || { echo "Bail out! cannot build a root"; exit 1; }
GOOD=Auth-good-1
H=$(mkhash "$GOOD")
set_hash "$R" u1 "$H"
set_hash "$R" u2 "!$H"		# locked, the right hash after the "!"
set_hash "$R" u3 "*"
set_hash "$R" u4 ""		# empty password
set_hash "$R" u5 "!"
set_hash "$R" u6 "*$H"
# u7: the hash in /etc/passwd (tcb entry locked, so a hit proves the source)
sed -i "s|^u7:x:|u7:$(mkhash Passwd-field-7):|" "$R/etc/passwd"
set_hash "$R" u7 "*"
LONG=$(printf 'a%.0s' $(seq 40))

PROMPT="echo_off Password: "

# check DESC WANT_CODES WANT_MSGS PROBE_ARGS...: one probe run (as root).
check() {
	local desc=$1 want=$2 wmsg=$3 out; shift 3
	out=$(probe "$R" "$@")
	is "$(codes "$out")" "$want" "$desc"
	[ "$wmsg" = - ] || is "$(msgs "$out")" "$wmsg" "$desc: conversation"
}

for mode in "" fork; do
	m=${mode:+[fork] }
	tcb_svc "$R" owlet shadow nodelay $mode
	check "${m}right password" "auth PAM_SUCCESS" "$PROMPT" -u u1 -a "$GOOD" auth
	check "${m}wrong password" "auth PAM_AUTH_ERR" "$PROMPT" -u u1 -a Auth-bad-1 auth
	check "${m}empty password" "auth PAM_AUTH_ERR" - -u u1 -a '' auth
	check "${m}right password with a suffix" "auth PAM_AUTH_ERR" - -u u1 -a "${GOOD}x" auth
	check "${m}unknown user" "auth PAM_USER_UNKNOWN" - -u nosuch -a "$GOOD" auth
	for bad in ../x a/b "$LONG" .hidden :x -x ..; do
		check "${m}bad name '$bad' is unknown, no prompt" \
		    "auth PAM_USER_UNKNOWN" "" -u "$bad" -a "$GOOD" auth
	done
	check "${m}'!hash' locked, right password" "auth PAM_AUTH_ERR" - -u u2 -a "$GOOD" auth
	check "${m}'!' locked" "auth PAM_AUTH_ERR" - -u u5 -a '' auth
	check "${m}'*' locked" "auth PAM_AUTH_ERR" - -u u3 -a '*' auth
	check "${m}'*hash' locked, right password" "auth PAM_AUTH_ERR" - -u u6 -a "$GOOD" auth
	check "${m}empty hash without nullok: prompt, then refused" \
	    "auth PAM_AUTH_ERR" "$PROMPT" -u u4 -a '' auth
	# the hash in /etc/passwd is used only with the passwd option
	check "${m}passwd field hash without 'passwd': unavailable" \
	    "auth PAM_AUTHINFO_UNAVAIL" - -u u7 -a Passwd-field-7 auth

	tcb_svc "$R" owlet shadow nodelay nullok $mode
	check "${m}nullok, empty hash: success without a prompt" \
	    "auth PAM_SUCCESS" "" -u u4 auth
	check "${m}nullok, non-empty hash, empty password" \
	    "auth PAM_AUTH_ERR" "$PROMPT" -u u1 -a '' auth
	check "${m}nullok, right password" "auth PAM_SUCCESS" - -u u1 -a "$GOOD" auth
	check "${m}nullok, '!' is not empty" "auth PAM_AUTH_ERR" "$PROMPT" -u u5 -a '' auth

	tcb_svc "$R" owlet passwd nodelay $mode
	check "${m}passwd option: hash from /etc/passwd" \
	    "auth PAM_SUCCESS" - -u u7 -a Passwd-field-7 auth
	check "${m}passwd option: wrong password" \
	    "auth PAM_AUTH_ERR" - -u u7 -a "$GOOD" auth
	# without "shadow" auth never reads the shadow database: root has no
	# way to check a tcb user's password
	check "${m}no shadow option: tcb hash unavailable" \
	    "auth PAM_AUTHINFO_UNAVAIL" - -u u1 -a "$GOOD" auth
done

# A conversation that asks to come back (PAM_CONV_AGAIN) while pam_tcb
# asks for the user name makes it return PAM_INCOMPLETE, and calling
# pam_authenticate again resumes the stack (libpam 1.5.2's
# pam_get_authtok turns any conversation failure into PAM_AUTHTOK_ERR, so
# the password prompt cannot show this).
for mode in "" fork; do
	tcb_svc "$R" owlet shadow nodelay $mode
	check "${mode:+[fork] }PAM_CONV_AGAIN -> PAM_INCOMPLETE, then resumed" \
	    "auth PAM_INCOMPLETE auth PAM_SUCCESS" \
	    "echo_on login:|conv-again|echo_on login:|$PROMPT" \
	    -a @CONV_AGAIN@ -a u1 -a "$GOOD" auth auth
	check "${mode:+[fork] }PAM_CONV_AGAIN at the password prompt: aborted" \
	    "auth PAM_AUTHTOK_ERR" "$PROMPT|conv-again" -u u1 -a @CONV_AGAIN@ auth
done

# Every method libxcrypt implements verifies (right and wrong password).
for p in '$y$' '$gy$' '$7$' '$2b$' '$2a$' '$2y$' '$6$' '$5$' '$1$' '$sha1$' \
    '$md5' '$3$' '_' ''; do
	h=$(mkhash Meth-pass-9 "$p") || { ok 1 "mkhash '$p'"; continue; }
	set_hash "$R" u8 "$h"
	for mode in "" fork; do
		tcb_svc "$R" owlet shadow nodelay $mode
		out=$(probe "$R" -u u8 -a Meth-pass-9 auth)
		out2=$(probe "$R" -u u8 -a wrong-pw auth)
		is "$(codes "$out") / $(codes "$out2")" \
		    "auth PAM_SUCCESS / auth PAM_AUTH_ERR" \
		    "method '${p:-descrypt}' (${h:0:8}...) ${mode:+[fork] }verifies"
	done
done

# use_first_pass / try_first_pass: the token of a module stacked before
# (pam_exec expose_authtok reads it with pam_get_authtok, which stores the
# PAM_AUTHTOK item; an application cannot set that item itself).
EXEC="auth optional pam_exec.so quiet expose_authtok /bin/true"
tcb_svc "$R" owlet shadow nodelay use_first_pass
check "use_first_pass, no item: refused without a prompt" \
    "auth PAM_AUTH_ERR" "" -u u1 -a "$GOOD" auth
for o in use_first_pass try_first_pass; do
	pam_svc "$R" owlet "$EXEC" "auth required @TCB@ shadow nodelay $o"
	check "$o: the stacked module's token is used, one prompt in all" \
	    "auth PAM_SUCCESS" "$PROMPT" -u u1 -a "$GOOD" auth
	check "$o: the stacked module's wrong token fails" \
	    "auth PAM_AUTH_ERR" "$PROMPT" -u u1 -a Auth-bad-1 auth
done
tcb_svc "$R" owlet shadow nodelay try_first_pass
check "try_first_pass, no item: prompts" "auth PAM_SUCCESS" "$PROMPT" \
    -u u1 -a "$GOOD" auth

# likeauth: setcred repeats the authentication result.  (libpam runs
# setcred along the chain auth took: a module returning PAM_SUCCESS after a
# failed auth turns into PAM_PERM_DENIED.)
tcb_svc "$R" owlet shadow nodelay likeauth
check "likeauth: setcred after success" "auth PAM_SUCCESS setcred PAM_SUCCESS" - \
    -u u1 -a "$GOOD" auth setcred
check "likeauth: setcred after a wrong password" \
    "auth PAM_AUTH_ERR setcred PAM_AUTH_ERR" - -u u1 -a Auth-bad-1 auth setcred
check "likeauth: setcred after an unknown user" \
    "auth PAM_USER_UNKNOWN setcred PAM_USER_UNKNOWN" - -u nosuch -a x auth setcred
check "likeauth: setcred without auth" "setcred PAM_SUCCESS" - -u u1 setcred
tcb_svc "$R" owlet shadow nodelay
check "no likeauth: setcred returns success (libpam: denied)" \
    "auth PAM_AUTH_ERR setcred PAM_PERM_DENIED" - -u u1 -a Auth-bad-1 auth setcred

# The user itself (uid u1) with group shadow reads its own entry; without
# it, the hash is unreadable and the helper decides.
tcb_svc "$R" owlet shadow nodelay
out=$(probe_as 1001 42 "$R" -u u1 -a "$GOOD" auth)
is "$(codes "$out")" "auth PAM_SUCCESS" "uid u1 + group shadow: own entry"
out=$(probe_as 1001 42 "$R" -u u1 -a Auth-bad-1 auth)
is "$(codes "$out")" "auth PAM_AUTH_ERR" "uid u1 + group shadow: wrong password"

# Helper protocol, with a fake helper that records what it got: the
# request on stdin ("nonull\0\0" or "nullok\0\0", user, password, NULs),
# real uid = the user, empty environment; reply TCB_MAGIC + exit 0.
cat > "$T/helper" <<'PL'
#!/usr/bin/perl
binmode STDIN; binmode STDOUT;
local $/; my $in = <STDIN>;
open(my $f, ">>", $ARGV[0] // "HELPERLOG") or exit 3;
my $ok = $in =~ /\A(nonull|nullok)\0\0([^\0]+)\0([^\0]*)\0\z/;
my $env = join(",", sort keys %ENV);
printf $f "ok=%d flag=%s user=%s uid=%d env=[%s] tty=%d\n", $ok ? 1 : 0,
    $1 // "", $2 // "", $<, $env, (-t STDIN || -t STDOUT) ? 1 : 0;
if ($ok && $3 eq "Helper-pass-3") { print pack("l", 0x0a00ff7f); exit 0 }
print pack("l", 1); exit 1;
PL
sed -i "s|HELPERLOG|$T/helper.log|" "$T/helper"
chmod 0755 "$T/helper"; : > "$T/helper.log"; chmod 0666 "$T/helper.log"
for mode in "" fork; do
	m=${mode:+[fork] }
	: > "$T/helper.log"
	tcb_svc "$R" owlet shadow nodelay $mode "helper=$T/helper"
	out=$(probe_as 1001 100 "$R" -u u1 -a Helper-pass-3 auth)
	is "$(codes "$out")" "auth PAM_SUCCESS" "${m}helper says yes: success"
	out=$(probe_as 1001 100 "$R" -u u1 -a Wrong-pass-3 auth)
	is "$(codes "$out")" "auth PAM_AUTH_ERR" "${m}helper says no: refused"
	tcb_svc "$R" owlet shadow nodelay nullok $mode "helper=$T/helper"
	probe_as 1001 100 "$R" -u u1 -a Helper-pass-3 auth >/dev/null
	is "$(cat "$T/helper.log")" "ok=1 flag=nonull user=u1 uid=1001 env=[] tty=0
ok=1 flag=nonull user=u1 uid=1001 env=[] tty=0
ok=1 flag=nullok user=u1 uid=1001 env=[] tty=0" "${m}helper request format, uid, environment"
done
: > "$T/helper.log"
tcb_svc "$R" owlet shadow nodelay "helper=$T/helper"
out=$(probe "$R" -u u1 -a Helper-pass-3 auth)
is "$(codes "$out")" "auth PAM_AUTH_ERR" "root reads the hash itself (helper not asked)"
out=$(probe_as 1002 100 "$R" -u u1 -a Helper-pass-3 auth)
is "$(codes "$out")" "auth PAM_AUTHINFO_UNAVAIL" "another uid: no helper, unavailable"
is "$(cat "$T/helper.log")" "" "the helper ran for neither"
tcb_svc "$R" owlet shadow nodelay helper=
out=$(probe_as 1001 100 "$R" -u u1 -a Helper-pass-3 auth)
is "$(codes "$out")" "auth PAM_AUTHINFO_UNAVAIL" "helper= disables the helper"
tcb_svc "$R" owlet shadow nodelay "helper=$T/nonexistent"
out=$(probe_as 1001 100 "$R" -u u1 -a Helper-pass-3 auth)
is "$(codes "$out")" "auth PAM_AUTH_ERR" "missing helper: refused"

# Fail delay: pam_tcb asks libpam for 2 s (libpam randomises it to
# 1-3 s); nodelay asks for none.  The probe's PAM_FAIL_DELAY function sees
# the value; pamtester really sleeps.
tcb_svc "$R" owlet shadow
out=$(probe "$R" -d -u u1 -a Auth-bad-1 auth)
usec=$(printf '%s\n' "$out" | awk '/^delay 7 / { print $3 }')
[ -n "$usec" ] && [ "$usec" -ge 1000000 ] && [ "$usec" -le 3000000 ]
ok $? "default: a 2 s fail delay is requested (libpam computed ${usec:-none} us)"
tcb_svc "$R" owlet shadow nodelay
out=$(probe "$R" -d -u u1 -a Auth-bad-1 auth)
is "$(printf '%s\n' "$out" | grep '^delay')" "delay 7 0" "nodelay: no delay requested"

ms() { echo $(($(date +%s%N) / 1000000)); }
tcb_svc "$R" slow shadow
tcb_svc "$R" fast shadow nodelay
t0=$(ms); printf '%s\n' Auth-bad-1 | in_ns "$R" pamtester slow u1 authenticate >/dev/null 2>&1
rc=$?; t1=$(ms)
is "$rc" 1 "pamtester: wrong password fails"
[ $((t1 - t0)) -ge 900 ]; ok $? "pamtester: failure without nodelay takes >= 0.9 s ($((t1 - t0)) ms)"
t0=$(ms); printf '%s\n' "$GOOD" | in_ns "$R" pamtester slow u1 authenticate >/dev/null 2>&1
rc=$?; t1=$(ms)
is "$rc" 0 "pamtester: right password"
[ $((t1 - t0)) -lt 1000 ]; ok $? "pamtester: success is not delayed ($((t1 - t0)) ms)"
t0=$(ms); printf '%s\n' Auth-bad-1 | in_ns "$R" pamtester fast u1 authenticate >/dev/null 2>&1
rc=$?; t1=$(ms)
is "$rc" 1 "pamtester nodelay: wrong password fails"
[ $((t1 - t0)) -lt 1000 ]; ok $? "pamtester: failure with nodelay takes < 1 s ($((t1 - t0)) ms)"

# A tcb directory left behind by a deleted account (owned by its old uid)
# must not serve its hash to a new account of the same name: pam_tcb takes
# a hash from /etc/tcb only from a directory the account owns.
tcb_svc "$R" owlet shadow nodelay
chown 2008 "$R/etc/tcb/u8" "$R/etc/tcb/u8/shadow"
set_hash "$R" u8 "$H"
out=$(probe "$R" -u u8 -a "$GOOD" auth)
is "$(codes "$out")" "auth PAM_AUTHINFO_UNAVAIL" \
    "leftover tcb dir (uid 2008, account uid 1008): its hash is not used, even by root"
chown 1008 "$R/etc/tcb/u8" "$R/etc/tcb/u8/shadow"
out=$(probe "$R" -u u8 -a "$GOOD" auth)
is "$(codes "$out")" "auth PAM_SUCCESS" "the same entry owned by the account: used"

# A daemon that is not set-ID but may read hashes (groups shadow and auth,
# as tcb(5) provides) holds the hash anyway: no guess gate for it, and it
# checks passwords as before.
authgid=$(awk -F: '$1 == "auth" { print $3 }' "$R/etc/group")
out=$(probe_as 998 "100,42,$authgid" "$R" -u u1 -a "$GOOD" auth)
is "$(codes "$out")" "auth PAM_SUCCESS" "a daemon in groups shadow and auth (uid 998) checks u1's password"
t "... and no gate file was made for it" test ! -e "$R/etc/tcb/u1/shadow.gate"

done_testing
