#!/bin/bash
# A user changes their own password through Debian's passwd installed
# set-gid shadow (root:shadow 2711, no set-uid bit), on a private tcb root
# with owlet staged over the system dirs (in_sys): pam_passwdqc picks and
# checks the new password, pam_tcb write_to=tcb writes it as the user.
# Also: the user cannot touch another user's entry, and owlet's chage
# (set-gid shadow, staged by stage_sys) shows and root changes the user's
# aging.
. "$(dirname "$0")/../lib/root.sh"
need_root
command -v pamtester >/dev/null || skip_all "pamtester not installed"
tmpdir
S=$T/stage
need_stage "$S"
OLD='Old-u1-Passw0rd-Xq'
NEW='Tr0ub4dor-Horse-Battery&9'
U2PW='Second-User-Pass-77'
R=$T/r
mkroot "$R" 3
set_pass "$R" u1 "$OLD"
set_pass "$R" u2 "$U2PW"
tcb_sysroot "$R"; ok $? "3-user root converted to tcb, owlet's PAM stacks and passwdqc.conf"
echo '@include common-auth' > "$R/etc/pam.d/owlet-auth"
auth=$(awk -F: '$1 == "auth" { print $3 }' "$R/etc/group")
U1=$R/etc/tcb/u1/shadow
U2=$R/etc/tcb/u2/shadow
u2state() { stat -c '%i %u %g %a %h %Y' "$U2"; sha256sum < "$U2"; }
u2before=$(u2state)
today=$(( $(date +%s) / 86400 ))

AS_U1=$(user_cmd 1001 100)	# u1, primary group users, no shadow
SH_U1=$(user_cmd 1001 42)	# u1 with gid shadow: what passwd runs as

# The programs as the namespace sees them: set-gid shadow, not set-uid.
is "$(in_sys "$R" "$S" stat -c '%a %U:%G' /usr/bin/passwd)" "2711 root:shadow" \
    "/usr/bin/passwd in the overlay: root:shadow 2711"
in_sys "$R" "$S" test ! -u /usr/bin/passwd; ok $? "/usr/bin/passwd has no set-uid bit"
is "$(in_sys "$R" "$S" stat -c '%a %U:%G' /usr/libexec/chkpwd/tcb_chkpwd)" \
    "2711 root:shadow" "tcb_chkpwd in the overlay: root:shadow 2711"
is "$(stat -c '%a %U:%G' "$R/etc/pam.d/passwd")" "640 root:shadow" \
    "/etc/pam.d/passwd root:shadow 0640 (readable by set-gid passwd only)"

# u1passwd LINE...: passwd as u1, the LINEs on stdin; output (stdout and
# stderr) in $out, exit status in $rc.
u1passwd() {
	out=$(printf '%s\n' "$@" | in_sys "$R" "$S" $AS_U1 passwd 2>&1); rc=$?
}
u1state() { stat -c '%i %u %g %a %h %Y' "$U1"; sha256sum < "$U1"; }

# --- weak passwords: refused by passwdqc, the file untouched ----------------
before=$(u1state)
# weak PASS DESC PATTERN: three tries of PASS (retry=3), all refused.
weak() {
	u1passwd "$OLD" "$1" "$1" "$1" "$1" "$1" "$1"
	ok $((rc == 0)) "u1: '$1' ($2) refused: passwd exits $rc"
	like "$out" "$3" "u1: '$1': passwdqc says why"
	is "$(u1state)" "$before" "u1: '$1': tcb file unchanged (inode, owner, mode, mtime, content)"
}
weak abc12 "5 chars" "Weak password: too short"
weak password1234 "12 chars" "Weak password: too short"
weak passwordpasswordpass "20 chars, one class, one word" \
    "Weak password: not enough different characters or classes"
weak "${OLD}1" "based on the old one" "Weak password: is based on the old one"

# Wrong current password: refused before any new password is asked.
u1passwd "Wrong-Current-Pw-12" "$NEW" "$NEW"
ok $((rc == 0)) "u1: wrong current password refused (exit $rc)"
is "$(u1state)" "$before" "u1: wrong current password: file unchanged"

# --- a strong one: accepted, written as u1 ----------------------------------
u1passwd "$OLD" "$NEW" "$NEW"
ok $rc "u1: '$NEW' (25 chars, 4 classes) accepted"
like "$out" "passwd: password updated successfully" "passwd reports success"
like "$out" '^your password: "[^"]{15,}"\.$' \
    "passwdqc offered a random passphrase of 15+ characters"
like "$out" "at least 15 characters" "passwdqc explained the 15-character minimum"
line=$(cat "$U1")
[[ $line =~ ^u1:\$y\$[./0-9A-Za-z]+\$[./0-9A-Za-z]+\$[./0-9A-Za-z]{43}:$today:0:99999:7:::$ ]]
ok $? "u1's file: one line, a new yescrypt hash, last change today, aging kept"
is "$(wc -l < "$U1")" 1 "u1's file has exactly one line"
is "$(stat -c '%u %g %a %h' "$U1")" "1001 $auth 640 1" "u1's file: u1:auth 0640, one link"
is "$(stat -c '%u %a' "$R/etc/tcb/u1/shadow.lock" 2>&1)" "1001 600" \
    "lock file created by u1 (no root involved)"
is "$(ls -A "$R/etc/tcb/u1" | tr '\n' ' ')" "shadow shadow.gate shadow.lock " "no temporary files left in u1's dir (the lock and the guess gate only)"
is "$(u2state)" "$u2before" "u2's file untouched by u1's change"

# pamtester as root through common-auth: the new password, not the old.
pt() { printf '%s\n' "$2" | in_sys "$R" "$S" pamtester owlet-auth "$1" authenticate >/dev/null 2>&1; }
pt u1 "$NEW"; ok $? "u1 authenticates with the new password (common-auth, pamtester)"
tfail "u1 no longer authenticates with the old password" pt u1 "$OLD"

# A second change to a passphrase from the staged pwqgen (same policy file).
PHRASE=$(in_sys "$R" "$S" $AS_U1 pwqgen config=/etc/passwdqc.conf)
ok $? "pwqgen (staged) generates a passphrase: '$PHRASE'"
u1passwd "$NEW" "$PHRASE" "$PHRASE"
ok $rc "u1: pwqgen passphrase (${#PHRASE} chars) accepted"
pt u1 "$PHRASE"; ok $? "u1 authenticates with the passphrase"
tfail "u1 no longer authenticates with the previous password" pt u1 "$NEW"
is "$(stat -c '%u %g %a %h' "$U1")" "1001 $auth 640 1" "u1's file still u1:auth 0640, one link"

# --- u1 against u2 ----------------------------------------------------------
out=$(printf '%s\n' "$PHRASE" "$NEW" "$NEW" | in_sys "$R" "$S" $AS_U1 passwd u2 2>&1); rc=$?
ok $((rc == 0)) "u1: passwd u2 refused (exit $rc)"
like "$out" "You may not view or modify password information for u2" "... with passwd's message"
tfail "u1 cannot read /etc/tcb/u2/shadow" in_sys "$R" "$S" $AS_U1 cat /etc/tcb/u2/shadow
tfail "u1 with gid shadow cannot read /etc/tcb/u2/shadow" \
    in_sys "$R" "$S" $SH_U1 cat /etc/tcb/u2/shadow
tfail "u1 cannot list /etc/tcb" in_sys "$R" "$S" $AS_U1 ls /etc/tcb
tfail "u1 with gid shadow cannot list /etc/tcb" in_sys "$R" "$S" $SH_U1 ls /etc/tcb
tfail "u1 cannot read its own file without gid shadow" \
    in_sys "$R" "$S" $AS_U1 cat /etc/tcb/u1/shadow
got=$(in_sys "$R" "$S" $SH_U1 getent shadow u2 2>&1)
is "$got" "" "u1 with gid shadow: getspnam(u2) returns nothing"
tfail "u1 cannot write into u2's tcb dir" \
    in_sys "$R" "$S" $SH_U1 touch /etc/tcb/u2/planted
pt u2 "$U2PW"; ok $? "u2 still authenticates with its password"
is "$(u2state)" "$u2before" "u2's file byte-identical (and same inode, owner, mode, mtime)"

# --- chage (owlet's, set-gid shadow) ---------------------------------------
is "$(in_sys "$R" "$S" stat -c '%a %U:%G' /usr/bin/chage)" "2711 root:shadow" \
    "owlet's chage in the overlay: root:shadow 2711"
in_sys "$R" "$S" cmp -s /usr/bin/chage "$B/bin/chage"
ok $? "/usr/bin/chage in the overlay is owlet's (build/bin/chage)"
out=$(in_sys "$R" "$S" $AS_U1 chage -l u1 2>&1); rc=$?
ok $rc "chage -l u1 as u1 (through set-gid shadow)"
like "$out" "Maximum number of days between password change[[:space:]]*: 99999" \
    "u1 sees its maximum (99999)"
[ "$rc" = 0 ] || diag "$out"
out=$(in_sys "$R" "$S" $AS_U1 chage -l u2 2>&1); rc=$?
ok $((rc == 0)) "chage -l u2 as u1 fails (exit $rc)"
! printf '%s' "$out" | grep -q "Maximum number"
ok $? "... without u2's data"
sline=$(cat "$U1")
in_sys "$R" "$S" chage -M 45 u1 >/dev/null 2>&1
ok $? "chage -M 45 u1 as root"
is "$(cat "$U1")" "$(printf '%s\n' "$sline" | awk -F: -v OFS=: '{ $5 = 45 } 1')" \
    "u1's file: field 5 is 45, the rest unchanged"
out=$(in_sys "$R" "$S" $AS_U1 chage -l u1 2>&1)
like "$out" "Maximum number of days between password change[[:space:]]*: 45\$" \
    "u1 sees 45 with chage -l u1"
is "$(stat -c '%u %g %a %h' "$U1")" "1001 $auth 640 1" "u1's file in the end: u1:auth 0640, one link"
is "$(u2state)" "$u2before" "u2's file in the end: byte-identical"

done_testing
