#!/bin/bash
# What pam_tcb logs, captured from a private /dev/log (with_syslog): the
# facility (authpriv), libpam's "pam_tcb(SERVICE:GROUP):" prefix, the
# lines for each outcome, and that no password ever reaches the log.
. "$(dirname "$0")/../lib/pam.sh"
need_pam
command -v perl >/dev/null || skip_all "perl not installed"
tmpdir

R=$T/r
pam_root "$R" 6 >/dev/null || { echo "Bail out! cannot build a root"; exit 1; }
D=$(today)
# Every password typed in this test; none may appear in any log.
PW1=Log-secret-u1 PW1N=Log-newsecret-u1 PW2N=Log-rootset-u2 BAD=Log-wrong-guess
PW3=Log-secret-u3 PW5=Log-secret-u5 QCOLD=Log-secret-u6
QCWEAK=logweak1 QCSTRONG="Lumpy giraffe ate seven quiet pianos"
MISMATCH_A=Log-mismatch-A MISMATCH_B=Log-mismatch-B
set_entry "$R" u1 "$(mkhash "$PW1"):$((D - 100)):0:99999:7:::"
set_entry "$R" u3 "$(mkhash "$PW3"):$((D - 100)):0:99999:7:::"
set_entry "$R" u4 "$(mkhash "$PW1"):$((D - 100)):0:99999:7::$((D - 1)):"
set_entry "$R" u5 "$(mkhash "$PW5"):$((D - 100)):0:99999:7:::"
set_entry "$R" u6 "$(mkhash "$QCOLD"):$((D - 100)):0:99999:7:::"
cp "$TOP/tcb/pam/conf/passwdqc.conf" "$R/etc/passwdqc.conf"
tcb_svc "$R" owlet shadow nodelay
tcb_svc "$R" forked shadow nodelay fork
tcb_svc "$R" blank shadow nodelay blank_nolog
tcb_svc "$R" passwd write_to=tcb nodelay
tcb_svc "$R" chatty write_to=tcb nodelay debug audit
tcb_svc "$R" broken shadow nodelay bogus
pam_svc "$R" qc "password requisite @QC@ config=/etc/passwdqc.conf" \
    "password required @TCB@ use_authtok write_to=tcb nodelay debug"

n=0
# logged NAME CMD...: run CMD (a probe, as root unless setpriv words come
# first) with a private syslog; its output in $out, its log in $log.
logged() {
	local name=$1; shift
	log=$T/log.$((++n)).$name
	out=$(with_syslog "$log" "$R" "$@" 2>&1)
}
# has LOG REGEX DESC / hasnt LOG REGEX DESC
has() { grep -Eq -- "$2" "$1"; ok $? "$3"; }
hasnt() { if grep -Eq -- "$2" "$1"; then ok 1 "$3"; else ok 0 "$3"; fi; }
show_on_fail() { [ "$_tap_fail" -gt "${_shown:-0}" ] && { diag "log $1:"; sed 's/^/#   /' "$1" >&2; _shown=$_tap_fail; }; :; }
AUTH='<86>[^>]*: pam_tcb\(owlet:auth\): '

logged auth-ok "$PROBE" -u u1 -i ruser=alice -a "$PW1" auth
is "$(codes "$out")" "auth PAM_SUCCESS" "syslog helper: probe ran"
has "$log" "^${AUTH}Authentication passed for u1 from alice\(uid=0\)$" \
    "success: LOG_AUTHPRIV|LOG_INFO, pam_tcb(owlet:auth), user, ruser, uid"
show_on_fail "$log"

logged auth-bad "$PROBE" -u u1 -a "$BAD" auth
has "$log" "^<85>[^>]*: pam_tcb\(owlet:auth\): Authentication failed for u1 from \(uid=0\)$" \
    "failure: LOG_AUTHPRIV|LOG_NOTICE"
show_on_fail "$log"
logged auth-fork "$PROBE" -s forked -u u1 -a "$BAD" auth
has "$log" "pam_tcb\(forked:auth\): Authentication failed for u1 " "fork: failure logged once by the caller"
is "$(grep -c 'Authentication failed' "$log")" 1 "fork: exactly one line"
logged auth-unknown "$PROBE" -u nosuch -a "$BAD" auth
has "$log" "pam_tcb\(owlet:auth\): Authentication failed for nosuch " "unknown user: failure logged"

logged blank "$PROBE" -s blank -u u3 -a '' auth
hasnt "$log" "Authentication failed for u3" "blank_nolog: empty password not logged"
logged blank2 "$PROBE" -s blank -u u3 -a "$BAD" auth
has "$log" "pam_tcb\(blank:auth\): Authentication failed for u3 " "blank_nolog: other failures logged"
logged noblank "$PROBE" -u u3 -a '' auth
has "$log" "Authentication failed for u3 " "without blank_nolog: empty password failure logged"

logged option "$PROBE" -s broken -u u1 -a "$PW1" auth acct open chauthtok
has "$log" "^<83>[^>]*: pam_tcb\(broken:auth\): Unrecognized option: bogus$" \
    "unknown option: LOG_ERR 'Unrecognized option: bogus'"
for g in account session chauthtok; do
	has "$log" "pam_tcb\(broken:$g\): Unrecognized option: bogus" "unknown option logged by $g"
done
show_on_fail "$log"

logged chpw-user $(user_cmd 1001 42) "$PROBE" -s passwd -u u1 -a "$PW1" -a "$PW1N" -a "$PW1N" chauthtok
is "$(codes "$out")" "chauthtok PAM_SUCCESS" "user changes own password"
has "$log" "^<86>[^>]*: pam_tcb\(passwd:chauthtok\): Password for u1 changed by \(uid=1001\)$" \
    "'Password for u1 changed' at LOG_INFO"
has "$log" "pam_tcb\(passwd:chauthtok\): Authentication passed for u1 .*for password management" \
    "current password check logged"
show_on_fail "$log"
logged chpw-root "$PROBE" -s passwd -u u2 -a "$PW2N" -a "$PW2N" chauthtok
has "$log" "pam_tcb\(passwd:chauthtok\): Password for u2 changed by \(uid=0\)$" "root change logged"
logged chpw-wrong $(user_cmd 1005 42) "$PROBE" -s passwd -u u5 -a "$BAD" chauthtok
has "$log" "pam_tcb\(passwd:chauthtok\): Authentication failed for u5 .*for password management" \
    "wrong current password logged"
hasnt "$log" "changed" "wrong current password: no change logged"
logged chpw-mismatch "$PROBE" -s chatty -u u5 -a "$MISMATCH_A" -a "$MISMATCH_B" chauthtok
hasnt "$log" "Password for u5 changed" "mismatch: no change logged"
logged chpw-same $(user_cmd 1005 42) "$PROBE" -s chatty -u u5 -a "$PW5" -a "$PW5" -a "$PW5" \
    -a "$PW5" -a "$PW5" -a "$PW5" -a "$PW5" chauthtok
is "$(codes "$out")" "chauthtok PAM_AUTHTOK_ERR" "debug audit: new == old refused"
has "$log" "^<87>[^>]*: pam_tcb\(chatty:chauthtok\): " "debug: a LOG_DEBUG line for the rejected token"
show_on_fail "$log"

# A tcb file that does not belong to its user is not rewritten.
chown 1001 "$R/etc/tcb/u5/shadow"
cp "$R/etc/tcb/u5/shadow" "$T/u5.before"
logged chpw-owner "$PROBE" -s passwd -u u5 -a Log-owner-u5 -a Log-owner-u5 chauthtok
is "$(codes "$out")" "chauthtok PAM_AUTHTOK_ERR" "foreign-owned tcb file: change refused"
has "$log" "^<83>[^>]*: pam_tcb\(passwd:chauthtok\): Failed to update /etc/tcb/u5/shadow" \
    "foreign-owned tcb file: 'Failed to update' at LOG_ERR"
cmp -s "$R/etc/tcb/u5/shadow" "$T/u5.before"; ok $? "foreign-owned tcb file: unchanged"
is "$(ls -A "$R/etc/tcb/u5" | tr '\n' ' ')" "shadow shadow.lock " "foreign-owned tcb file: no temp left"
chown 1005 "$R/etc/tcb/u5/shadow"

logged acct "$PROBE" -u u4 acct
has "$log" "^<85>[^>]*: pam_tcb\(owlet:account\): Account u4 has expired \(account expired\)$" \
    "expired account logged"
logged acct-unknown "$PROBE" -u nosuch acct
has "$log" "pam_tcb\(owlet:account\): Unable to identify user" "account: unknown user logged"
logged session "$PROBE" -u u1 -i ruser=alice open close
has "$log" "^<86>[^>]*: pam_tcb\(owlet:session\): Session opened for u1 by alice\(uid=0\)$" "session opened logged"
has "$log" "^<86>[^>]*: pam_tcb\(owlet:session\): Session closed for u1$" "session closed logged"

if [ -e "$PASSWDQC" ]; then
	logged qc $(user_cmd 1006 42) "$PROBE" -s qc -u u6 -a "$QCOLD" -a "$QCWEAK" \
	    -a "$QCSTRONG" -a "$QCSTRONG" chauthtok
	is "$(codes "$out")" "chauthtok PAM_SUCCESS" "passwdqc stack: weak then strong"
	has "$log" "pam_tcb\(qc:chauthtok\): Password for u6 changed" "passwdqc stack: change logged"
else
	ok 0 "# SKIP pam_passwdqc.so not unpacked"; ok 0 "# SKIP"
fi

# Every line pam_tcb wrote is authpriv (facility 10: <80>..<87>).
cat "$T"/log.* > "$T/all.log"
is "$(grep 'pam_tcb(' "$T/all.log" | grep -cv '^<8[0-7]>')" 0 "every pam_tcb line is LOG_AUTHPRIV"
# (the passwdqc stack adds two lines; it is skipped without pam_passwdqc)
least=23; [ -e "$PASSWDQC" ] && least=25
[ "$(grep -c 'pam_tcb(' "$T/all.log")" -ge "$least" ]; ok $? "the logs hold pam_tcb's lines ($(grep -c 'pam_tcb(' "$T/all.log"), at least $least)"
# No password, and no stored hash, in any log.
for p in "$PW1" "$PW1N" "$PW2N" "$BAD" "$PW3" "$PW5" "$QCOLD" "$QCWEAK" \
    "$QCSTRONG" "$MISMATCH_A" "$MISMATCH_B" Log-owner-u5; do
	hasnt "$T/all.log" "$(printf '%s' "$p" | sed 's/[][\.*^$+?(){}|]/\\&/g')" "no log line contains password '$p'"
done
for u in u1 u2 u3 u5 u6; do
	h=$(cut -d: -f2 "$R/etc/tcb/$u/shadow")
	if grep -qF -- "$h" "$T/all.log" || grep -qF -- "${h%\$*}" "$T/all.log"; then
		ok 1 "no log line contains $u's hash or salt"
	else
		ok 0 "no log line contains $u's hash or salt"
	fi
done
[ -e /dev/log ]; ok $((! $?)) "the host still has no /dev/log"

done_testing
