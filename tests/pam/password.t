#!/bin/bash
# pam_tcb password changes through real Linux-PAM: root and user mode on a
# converted root (write_to=tcb), what the rewritten file looks like, the
# refusals that must leave everything as it was, the method of new hashes,
# write_to=shadow and write_to=passwd, and pam_passwdqc stacked first.
. "$(dirname "$0")/../lib/pam.sh"
need_pam
tmpdir

R=$T/r
pam_root "$R" 6 >/dev/null || { echo "Bail out! cannot build a root"; exit 1; }
D=$(today)
OLD=Old-pass-1
set_entry "$R" u1 "$(mkhash "$OLD"):$((D - 100)):0:99999:7:30:$((D + 1000)):"
set_entry "$R" u3 "$(mkhash "$OLD"):$D:10:99999:7:::"		# sp_min not passed
set_entry "$R" u4 "*:$((D - 100)):0:99999:7:::"			# no password
set_entry "$R" u5 "$(mkhash "$OLD"):$((D - 100)):0:99999:7:::"
tcb_svc "$R" passwd write_to=tcb nodelay
tcb_svc "$R" login shadow nodelay

NEWP="echo_off New password: "
RETYPE="echo_off Retype new password: "
CURP="echo_off Current password: "
CHANGING="info Changing password for u1."

# state: every file under /etc with owner, mode, links and content hash.
state() {
	(cd "$R/etc" && find . -path ./.pwd.lock -prune -o -printf '%p %y %m %u:%g %n\n' |
	    sort && find . -type f ! -name .pwd.lock -exec sha256sum {} + | sort)
}
# others USER: the state of every tcb file but USER's, and of passwd/shadow.
others() {
	(cd "$R/etc" && sha256sum passwd shadow $(ls -d tcb/*/shadow | grep -v "^tcb/$1/"))
}
# auth_code USER PASS: the result of authenticating with PASS (login service).
auth_code() { codes "$(probe "$R" -s login -u "$1" -a "$2" auth)"; }
field() { cut -d: -f"$2" "$R/etc/tcb/$1/shadow"; }

# ---- root changes a user's password: no old password, New/Retype only.
before_others=$(others u2)
st_before=$(stat -c '%u %g %a %h' "$R/etc/tcb/u2/shadow")
out=$(probe "$R" -s passwd -u u2 -a Root-set-2 -a Root-set-2 chauthtok)
is "$(codes "$out")" "chauthtok PAM_SUCCESS" "root sets u2's password"
is "$(msgs "$out")" "$NEWP|$RETYPE" "root is asked only New/Retype"
is "$(auth_code u2 Root-set-2)" "auth PAM_SUCCESS" "u2 authenticates with the new password"
is "$(field u2 3)" "$D" "u2: last change is today"
is "$(stat -c '%u %g %a %h' "$R/etc/tcb/u2/shadow")" "$st_before" "u2: owner, group, mode, single link"
is "$(others u2)" "$before_others" "root change: other files byte-identical"
# pamtester, as an administrator would run it.
printf '%s\n' Root-set-3 Root-set-3 | in_ns "$R" pamtester passwd u2 chauthtok >/dev/null 2>&1
ok $? "pamtester: root changes u2's password"
is "$(auth_code u2 Root-set-3) / $(auth_code u2 Root-set-2)" \
    "auth PAM_SUCCESS / auth PAM_AUTH_ERR" "pamtester change took effect"

# ---- the user itself (uid u1, group shadow), as passwd set-gid shadow runs.
user_chauthtok() { probe_as 1001 42 "$R" -s passwd -u u1 "$@" chauthtok; }
before=$(state)
out=$(user_chauthtok -a Wrong-pass-9 -a New-pass-1x -a New-pass-1x)
is "$(codes "$out")" "chauthtok PAM_AUTH_ERR" "user: wrong current password refused"
is "$(msgs "$out")" "$CHANGING|$CURP" "user: asked the current password, nothing more"
is "$(state)" "$before" "user: wrong current password changes nothing"

out=$(user_chauthtok -a "$OLD" -a New-pass-1x -a New-pass-1y)
like "$(codes "$out")" "^chauthtok PAM_(TRY_AGAIN|AUTHTOK_ERR)" "user: mismatched retype refused"
like "$(msgs "$out")" "do not match" "user: mismatch is reported"
is "$(state)" "$before" "user: mismatched retype changes nothing"

out=$(user_chauthtok -a "$OLD" -a "$OLD" -a "$OLD" -a "$OLD" -a "$OLD" -a "$OLD" -a "$OLD")
is "$(codes "$out")" "chauthtok PAM_AUTHTOK_ERR" "user: new == old refused"
like "$(msgs "$out")" "error The password has not been changed\." "user: told the password was not changed"
is "$(printf '%s\n' "$out" | grep -c '^echo_off New password')" 3 "user: three tries for a new password"
is "$(state)" "$before" "user: new == old changes nothing"

out=$(user_chauthtok -a "$OLD" -a '' -a '' -a '' -a '' -a '' -a '')
is "$(codes "$out")" "chauthtok PAM_AUTHTOK_ERR" "user: empty new password refused"
like "$(msgs "$out")" "error No password has been supplied\." "user: told none was supplied"
is "$(state)" "$before" "user: empty new password changes nothing"

before_others=$(others u1)
st_before=$(stat -c '%u %g %a %h' "$R/etc/tcb/u1/shadow")
dst_before=$(stat -c '%u %g %a' "$R/etc/tcb/u1")
f_before=$(cut -d: -f1,4- "$R/etc/tcb/u1/shadow")
hash_before=$(field u1 2)
out=$(user_chauthtok -a "$OLD" -a New-pass-1x -a New-pass-1x)
is "$(codes "$out")" "chauthtok PAM_SUCCESS" "user: right current password, change accepted"
is "$(msgs "$out")" "$CHANGING|$CURP|$NEWP|$RETYPE" "user: Changing/Current/New/Retype"
is "$(auth_code u1 New-pass-1x)" "auth PAM_SUCCESS" "user: the new password works"
is "$(auth_code u1 "$OLD")" "auth PAM_AUTH_ERR" "user: the old password no longer works"
[ "$(field u1 2)" != "$hash_before" ]; ok $? "user: the stored hash changed"
like "$(field u1 2)" '^\$y\$j9T\$' "user: new hash is yescrypt (login.defs)"
is "$(field u1 3)" "$D" "user: field 3 (last change) = today"
is "$(cut -d: -f1,4- "$R/etc/tcb/u1/shadow")" "$f_before" "user: the other fields unchanged"
is "$(wc -l < "$R/etc/tcb/u1/shadow")" 1 "user: still one line"
is "$(stat -c '%u %g %a %h' "$R/etc/tcb/u1/shadow")" "$st_before" "user: owner, group, mode, single link kept"
is "$(stat -c '%u %g %a' "$R/etc/tcb/u1")" "$dst_before" "user: directory owner/mode kept"
is "$(ls -A "$R/etc/tcb/u1" | tr '\n' ' ')" "shadow shadow.lock " "user: no temporary files left"
is "$(others u1)" "$before_others" "user: other users' files byte-identical"
# The same from pamtester, run as the user.
printf '%s\n' New-pass-1x New-pass-1z New-pass-1z |
    in_ns "$R" $(user_cmd 1001 42) pamtester passwd u1 chauthtok >/dev/null 2>&1
ok $? "pamtester as u1: change accepted"
is "$(auth_code u1 New-pass-1z)" "auth PAM_SUCCESS" "pamtester as u1: new password works"
# A user cannot change somebody else's password (the current one of u5
# cannot even be read).
before=$(state)
out=$(probe_as 1001 42 "$R" -s passwd -u u5 -a "$OLD" -a Other-pass-5 -a Other-pass-5 chauthtok)
like "$(codes "$out")" "^chauthtok PAM_(AUTH_ERR|AUTHINFO_UNAVAIL|USER_UNKNOWN|CRED_INSUFFICIENT|PERM_DENIED|AUTHTOK_ERR)$" \
    "uid u1 cannot change u5's password"
is "$(state)" "$before" "uid u1 changing u5: nothing changed"

# ---- the rewrite trusts nothing planted in the user's directory: a
# symlink or file under the old fixed temp name is neither followed nor
# truncated; a hard-linked or multi-line entry is not rewritten.
set_entry "$R" u5 "$(mkhash "$OLD"):$((D - 100)):0:99999:7:::"
echo victim > "$T/victim"; chown 1005 "$T/victim"
ln -s "$T/victim" "$R/etc/tcb/u5/shadow.tmp"
out=$(probe_as 1005 42 "$R" -s passwd -u u5 -a "$OLD" -a Planted-5a -a Planted-5a chauthtok)
is "$(codes "$out")" "chauthtok PAM_SUCCESS" "planted shadow.tmp symlink: change still works"
is "$(cat "$T/victim")" victim "planted shadow.tmp symlink: target untouched"
[ -L "$R/etc/tcb/u5/shadow" ]; ok $((! $?)) "planted shadow.tmp symlink: shadow is still a regular file"
is "$(auth_code u5 Planted-5a)" "auth PAM_SUCCESS" "planted shadow.tmp symlink: new password works"
rm -f "$R/etc/tcb/u5/shadow.tmp"
ln "$R/etc/tcb/u5/shadow" "$R/etc/tcb/u5/shadow-"
before=$(state)
out=$(probe "$R" -s passwd -u u5 -a Hardlink-5b -a Hardlink-5b chauthtok)
is "$(codes "$out")" "chauthtok PAM_AUTHTOK_ERR" "hard-linked tcb file: change refused"
is "$(state)" "$before" "hard-linked tcb file: nothing changed"
rm -f "$R/etc/tcb/u5/shadow-"
echo "u5:x:1:::::::" >> "$R/etc/tcb/u5/shadow"
before=$(state)
out=$(probe "$R" -s passwd -u u5 -a Twoline-5c -a Twoline-5c chauthtok)
like "$(codes "$out")" "^chauthtok PAM_(AUTHTOK_ERR|USER_UNKNOWN)$" "two-line tcb file: change refused"
is "$(state)" "$before" "two-line tcb file: nothing changed"
set_entry "$R" u5 "$(mkhash "$OLD"):$((D - 100)):0:99999:7:::"

# ---- the per-user lock: a classic fcntl lock on shadow.lock (what
# shadow-utils and Openwall's pam_tcb take) makes the change wait for it.
perl -MFcntl -e '
	open(my $fh, "+<", $ARGV[0]) or die "$ARGV[0]: $!";
	fcntl($fh, F_SETLKW, pack("s s x4 q q l x4", F_WRLCK, SEEK_SET, 0, 0, 0))
	    or die "lock: $!";
	open(my $r, ">", $ARGV[1]) and close($r);
	select(undef, undef, undef, 1.5);' "$R/etc/tcb/u5/shadow.lock" "$T/locked" &
lpid=$!
for i in $(seq 100); do [ -e "$T/locked" ] && break; sleep 0.05; done
t0=$(date +%s%N)
out=$(probe "$R" -s passwd -u u5 -a Locked-5d -a Locked-5d chauthtok)
t1=$(date +%s%N)
wait $lpid
is "$(codes "$out")" "chauthtok PAM_SUCCESS" "lock held by another process: change done after it is released"
[ $(((t1 - t0) / 1000000)) -ge 1000 ]; ok $? "lock held: the change waited ($(((t1 - t0) / 1000000)) ms)"
is "$(auth_code u5 Locked-5d)" "auth PAM_SUCCESS" "lock held: new password works"
set_entry "$R" u5 "$(mkhash "$OLD"):$((D - 100)):0:99999:7:::"

# ---- PAM_SILENT: prompts only, no "Changing password" banner.
out=$(probe_as 1005 42 "$R" -s passwd -u u5 -a "$OLD" -a Silent-5e -a Silent-5e chauthtok:silent)
is "$(codes "$out") | $(msgs "$out")" "chauthtok PAM_SUCCESS | $CURP|$NEWP|$RETYPE" \
    "PAM_SILENT: no informational message"
# ---- an expired account cannot change its password (the user); root can.
set_entry "$R" u5 "$(mkhash "$OLD"):$((D - 100)):0:99999:7::$((D - 1)):"
before=$(state)
out=$(probe_as 1005 42 "$R" -s passwd -u u5 -a "$OLD" -a Expired-5f -a Expired-5f chauthtok)
is "$(codes "$out")" "chauthtok PAM_ACCT_EXPIRED" "expired account: user cannot change the password"
is "$(state)" "$before" "expired account: nothing changed"
out=$(probe "$R" -s passwd -u u5 -a Expired-5f -a Expired-5f chauthtok)
is "$(codes "$out")" "chauthtok PAM_SUCCESS" "expired account: root can"
# ---- an expired password is exactly what the user may change.
set_entry "$R" u5 "$(mkhash "$OLD"):$((D - 100)):0:30:7:::"
out=$(probe_as 1005 42 "$R" -s passwd -u u5 -a "$OLD" -a Aged-5g -a Aged-5g chauthtok:expired)
is "$(codes "$out")" "chauthtok PAM_SUCCESS" "expired password: the user changes it"
is "$(field u5 3)" "$D" "expired password: last change today"

# ---- an empty password: with nullok the user sets one without being asked
# for the current one; without nullok the empty current password fails.
set_entry "$R" u5 ":$((D - 100)):0:99999:7:::"
before=$(state)
out=$(probe_as 1005 42 "$R" -s passwd -u u5 -a '' -a Empty-5h -a Empty-5h chauthtok)
is "$(codes "$out")" "chauthtok PAM_AUTH_ERR" "empty hash, no nullok: refused"
is "$(state)" "$before" "empty hash, no nullok: nothing changed"
tcb_svc "$R" passwd-nullok write_to=tcb nodelay nullok
out=$(probe_as 1005 42 "$R" -s passwd-nullok -u u5 -a Empty-5h -a Empty-5h chauthtok)
is "$(codes "$out") | $(msgs "$out")" "chauthtok PAM_SUCCESS | $NEWP|$RETYPE" \
    "empty hash, nullok: New/Retype only"
is "$(auth_code u5 Empty-5h)" "auth PAM_SUCCESS" "empty hash, nullok: new password works"
# ---- root may set a password on a "!"-locked account.
set_entry "$R" u5 "!$(mkhash "$OLD"):$((D - 100)):0:99999:7:::"
out=$(probe "$R" -s passwd -u u5 -a Unlocked-5i -a Unlocked-5i chauthtok)
is "$(codes "$out")" "chauthtok PAM_SUCCESS" "'!'-locked account: root sets a password"
is "$(auth_code u5 Unlocked-5i)" "auth PAM_SUCCESS" "'!'-locked account: new password works"
set_entry "$R" u5 "$(mkhash "$OLD"):$((D - 100)):0:99999:7:::"

# ---- minimum age: refused for the user, allowed for root.
before=$(state)
out=$(probe_as 1003 42 "$R" -s passwd -u u3 -a "$OLD" -a Min-age-3 -a Min-age-3 chauthtok)
is "$(codes "$out")" "chauthtok PAM_AUTHTOK_ERR" "user u3: sp_min not passed, refused"
like "$(msgs "$out")" "error You must wait longer to change your password\." "user u3: told to wait"
is "$(state)" "$before" "user u3: nothing changed"
out=$(probe "$R" -s passwd -u u3 -a Min-age-3 -a Min-age-3 chauthtok)
is "$(codes "$out")" "chauthtok PAM_SUCCESS" "root: sp_min does not apply"
is "$(auth_code u3 Min-age-3)" "auth PAM_SUCCESS" "root changed u3's password"

# ---- an account without a password ("*") has none to modify.
before=$(state)
for who in root user; do
	if [ $who = root ]; then
		out=$(probe "$R" -s passwd -u u4 -a Star-pass-4 -a Star-pass-4 chauthtok)
	else
		out=$(probe_as 1004 42 "$R" -s passwd -u u4 -a x -a Star-pass-4 -a Star-pass-4 chauthtok)
	fi
	is "$(codes "$out")" "chauthtok PAM_AUTHTOK_ERR" "'*' account ($who): refused"
	is "$(msgs "$out")" "error You do not have a modifiable password." "'*' account ($who): told so, no prompt"
done
is "$(state)" "$before" "'*' account: nothing changed"

# ---- unknown users and bad names.
out=$(probe "$R" -s passwd -u nosuch -a Some-pass-1 -a Some-pass-1 chauthtok)
is "$(codes "$out")" "chauthtok PAM_USER_UNKNOWN" "unknown user"
out=$(probe "$R" -s passwd -u ../u1 -a Some-pass-1 -a Some-pass-1 chauthtok)
is "$(codes "$out")" "chauthtok PAM_USER_UNKNOWN" "bad name ../u1"

# ---- expired password changed at login (PAM_CHANGE_EXPIRED_AUTHTOK): even
# root-run programs ask for the current password then.
set_entry "$R" u5 "$(mkhash "$OLD"):0:0:99999:7:::"
out=$(probe "$R" -s passwd -u u5 -a "$OLD" -a Expired-new-5 -a Expired-new-5 chauthtok:expired)
is "$(codes "$out")" "chauthtok PAM_SUCCESS" "expired-authtok change by a root program"
like "$(msgs "$out")" "^info Changing password for u5\.\|$CURP\|$NEWP\|$RETYPE$" \
    "expired-authtok change asks the current password"
is "$(field u5 3)" "$D" "expired-authtok change: last change is today"

# ---- the method of new hashes: prefix=/count= options, else login.defs.
# method DESC REGEX OPTIONS [login.defs lines]
method() {
	local desc=$1 re=$2 opts=$3 pw=Method-pass-$((++mn)); shift 3
	cp "$R/etc/login.defs" "$T/login.defs.keep"
	printf '%s\n' "$@" >> "$R/etc/login.defs"
	[ $# -gt 0 ] && [ "$1" = "-" ] && sed -i '/^ENCRYPT_METHOD/d;/^-$/d' "$R/etc/login.defs"
	tcb_svc "$R" method write_to=tcb nodelay $opts
	out=$(probe "$R" -s method -u u6 -a "$pw" -a "$pw" chauthtok)
	cp "$T/login.defs.keep" "$R/etc/login.defs"
	is "$(codes "$out")" "chauthtok PAM_SUCCESS" "$desc: changed"
	like "$(field u6 2)" "$re" "$desc: hash $(field u6 2 | cut -c1-16)..."
	is "$(auth_code u6 "$pw")" "auth PAM_SUCCESS" "$desc: the new hash verifies"
}
mn=0
method "login.defs YESCRYPT" '^\$y\$j9T\$' ""
method "no ENCRYPT_METHOD: libxcrypt default" '^\$y\$j9T\$' "" -
method "YESCRYPT_COST_FACTOR 8" '^\$y\$jCT\$' "" "YESCRYPT_COST_FACTOR 8"
method "YESCRYPT_COST_FACTOR 3" '^\$y\$j7T\$' "" "YESCRYPT_COST_FACTOR 3"
sed -i 's/^ENCRYPT_METHOD.*/ENCRYPT_METHOD SHA512/' "$R/etc/login.defs"
method "ENCRYPT_METHOD SHA512" '^\$6\$[./0-9A-Za-z]{16}\$[./0-9A-Za-z]{86}$' ""
method "SHA512 + SHA_CRYPT_MIN_ROUNDS 6000" '^\$6\$rounds=6000\$' "" "SHA_CRYPT_MIN_ROUNDS 6000"
method "SHA512 + SHA_CRYPT_MAX_ROUNDS 7000" '^\$6\$rounds=7000\$' "" "SHA_CRYPT_MIN_ROUNDS 6000" "SHA_CRYPT_MAX_ROUNDS 7000"
method "prefix=\$y\$ beats login.defs SHA512" '^\$y\$j9T\$' 'prefix=$y$' "SHA_CRYPT_MIN_ROUNDS 6000"
sed -i 's/^ENCRYPT_METHOD.*/ENCRYPT_METHOD BCRYPT/' "$R/etc/login.defs"
method "ENCRYPT_METHOD BCRYPT + BCRYPT_MIN_ROUNDS 6" '^\$2b\$06\$' "" "BCRYPT_MIN_ROUNDS 6"
sed -i 's/^ENCRYPT_METHOD.*/ENCRYPT_METHOD YESCRYPT/' "$R/etc/login.defs"
method "prefix=\$6\$" '^\$6\$[./0-9A-Za-z]{16}\$[./0-9A-Za-z]{86}$' 'prefix=$6$'
method "prefix=\$6\$ count=7000" '^\$6\$rounds=7000\$' 'prefix=$6$ count=7000'
method "prefix=\$5\$" '^\$5\$' 'prefix=$5$'
method "prefix=\$2b\$ count=4" '^\$2b\$04\$' 'prefix=$2b$ count=4'
method "prefix=\$gy\$" '^\$gy\$' 'prefix=$gy$'
method "md5" '^\$1\$' md5
method "prefix=\$y\$ count=3" '^\$y\$j7T\$' 'prefix=$y$ count=3'
method "count=8 alone: login.defs method" '^\$y\$jCT\$' 'count=8'
method "count=7 beats YESCRYPT_COST_FACTOR" '^\$y\$jBT\$' 'count=7' "YESCRYPT_COST_FACTOR 9"
method "plain_crypt" '^\$y\$j9T\$' plain_crypt
method "fork" '^\$y\$j9T\$' fork
method "authtok_type" '^\$y\$j9T\$' authtok_type=TEST
# A login.defs cost that is not a decimal number in 0..2^32-1 is an error
# (the change fails, quickly, the old hash stays): strtoul read "-1" and
# 2^64+5 as ULONG_MAX (a billion SHA-512 rounds: a hash that takes minutes)
# and silently dropped "12abc" for the default.
sed -i 's/^ENCRYPT_METHOD.*/ENCRYPT_METHOD SHA512/' "$R/etc/login.defs"
tcb_svc "$R" method write_to=tcb nodelay
for v in -1 18446744073709551621 12abc 0x1b58; do
	cp "$R/etc/login.defs" "$T/login.defs.keep"
	echo "SHA_CRYPT_MIN_ROUNDS $v" >> "$R/etc/login.defs"
	old=$(field u6 2) start=$SECONDS
	out=$(in_ns "$R" timeout 30 "$PROBE" -s method -u u6 -a Cost-pass-1 \
	    -a Cost-pass-1 chauthtok 2>&1)
	took=$((SECONDS - start))
	cp "$T/login.defs.keep" "$R/etc/login.defs"
	like "$(codes "$out")" "^chauthtok PAM_" "SHA_CRYPT_MIN_ROUNDS '$v': chauthtok answers"
	unlike "$(codes "$out")" "PAM_SUCCESS" "SHA_CRYPT_MIN_ROUNDS '$v': the change fails"
	is "$(field u6 2)" "$old" "SHA_CRYPT_MIN_ROUNDS '$v': the old hash stays"
	ok $((took < 10 ? 0 : 1)) "SHA_CRYPT_MIN_ROUNDS '$v': fails at once (${took} s)"
done
sed -i 's/^ENCRYPT_METHOD.*/ENCRYPT_METHOD YESCRYPT/' "$R/etc/login.defs"

# ---- write_to=shadow on an unconverted root: /etc/shadow rewritten, every
# other line byte-identical, mode and owner kept.  Root only.
S=$T/s
mkroot "$S" 4 >/dev/null
set_s() { sed -i "s|^$1:[^:]*:[^:]*:|$1:$2:$3:|" "$S/etc/shadow"; }
set_s u1 "$(mkhash "$OLD")" $((D - 100))
sed -i 's/^shadow:.*/shadow: files/' "$S/etc/nsswitch.conf"
pam_svc "$S" passwd "password required @TCB@ write_to=shadow nodelay"
pam_svc "$S" login "auth required @TCB@ shadow nodelay"
pam_svc "$S" other "auth required pam_deny.so"
cp "$S/etc/shadow" "$T/shadow.before"
st_before=$(stat -c '%u %g %a %h' "$S/etc/shadow")
out=$(in_ns "$S" "$PROBE" -s passwd -u u2 -a Shadow-new-2 -a Shadow-new-2 chauthtok 2>&1)
is "$(codes "$out")" "chauthtok PAM_SUCCESS" "write_to=shadow: root changes u2"
is "$(grep -v '^u2:' "$S/etc/shadow")" "$(grep -v '^u2:' "$T/shadow.before")" \
    "write_to=shadow: every other line byte-identical"
is "$(wc -l < "$S/etc/shadow")" "$(wc -l < "$T/shadow.before")" "write_to=shadow: same line count"
is "$(grep '^u2:' "$S/etc/shadow" | cut -d: -f3)" "$D" "write_to=shadow: u2 last change today"
is "$(grep '^u2:' "$S/etc/shadow" | cut -d: -f1,4-)" "$(grep '^u2:' "$T/shadow.before" | cut -d: -f1,4-)" \
    "write_to=shadow: u2's other fields kept"
is "$(stat -c '%u %g %a %h' "$S/etc/shadow")" "$st_before" "write_to=shadow: owner, group, mode kept"
out=$(in_ns "$S" "$PROBE" -s login -u u2 -a Shadow-new-2 auth 2>&1)
is "$(codes "$out")" "auth PAM_SUCCESS" "write_to=shadow: new password works"
is "$(ls -A "$S/etc" | grep -Ev '^(passwd|group|gshadow|shadow|nsswitch.conf|login.defs|ld.so.cache|pam.d|\.pwd\.lock)$')" "" \
    "write_to=shadow: no temporary files left in /etc"
cp "$S/etc/shadow" "$T/shadow.before"
out=$(in_ns "$S" $(user_cmd 1001 42) "$PROBE" -s passwd -u u1 -a "$OLD" -a Shadow-new-1 -a Shadow-new-1 chauthtok 2>&1)
is "$(codes "$out")" "chauthtok PAM_CRED_INSUFFICIENT" "write_to=shadow: a user cannot rewrite /etc/shadow"
cmp -s "$S/etc/shadow" "$T/shadow.before"; ok $? "write_to=shadow: refused change leaves /etc/shadow"
# The global lock is taken without glibc's lckpwdf(), which installs its
# own SIGALRM handler and calls alarm(), cancelling the application's
# ITIMER_REAL: the probe arms one (-t) and it must survive the change.
cp "$S/etc/shadow" "$T/shadow.before"
out=$(in_ns "$S" "$PROBE" -t -s passwd -u u2 -a Shadow-new-2b -a Shadow-new-2b chauthtok 2>&1)
is "$(codes "$out")" "chauthtok PAM_SUCCESS" "write_to=shadow with an application timer: changed"
! cmp -s "$S/etc/shadow" "$T/shadow.before"; ok $? "write_to=shadow with an application timer: /etc/shadow rewritten"
is "$(grep '^timer ' <<<"$out")" "timer armed handler kept alarms 0" \
    "write_to=shadow: the application's SIGALRM handler and ITIMER_REAL untouched"

# ---- write_to=passwd: the hash lives in /etc/passwd.
sed -i "s|^u3:x:|u3:$(mkhash "$OLD"):|" "$S/etc/passwd"
pam_svc "$S" passwd "password required @TCB@ write_to=passwd nodelay"
pam_svc "$S" login "auth required @TCB@ passwd nodelay"
cp "$S/etc/passwd" "$T/passwd.before"; cp "$S/etc/shadow" "$T/shadow.before"
out=$(in_ns "$S" "$PROBE" -s passwd -u u3 -a Passwd-new-3 -a Passwd-new-3 chauthtok 2>&1)
is "$(codes "$out")" "chauthtok PAM_SUCCESS" "write_to=passwd: root changes u3"
is "$(grep -v '^u3:' "$S/etc/passwd")" "$(grep -v '^u3:' "$T/passwd.before")" \
    "write_to=passwd: every other line byte-identical"
is "$(grep '^u3:' "$S/etc/passwd" | cut -d: -f1,3-)" "$(grep '^u3:' "$T/passwd.before" | cut -d: -f1,3-)" \
    "write_to=passwd: u3's other fields kept"
like "$(grep '^u3:' "$S/etc/passwd" | cut -d: -f2)" '^\$y\$' "write_to=passwd: new hash in the passwd field"
cmp -s "$S/etc/shadow" "$T/shadow.before"; ok $? "write_to=passwd: /etc/shadow untouched"
out=$(in_ns "$S" "$PROBE" -s login -u u3 -a Passwd-new-3 auth 2>&1)
is "$(codes "$out")" "auth PAM_SUCCESS" "write_to=passwd: new password works"

# ---- write_to=tcb for a user whose hash is still in /etc/passwd: the new
# hash goes to tcb and the passwd field becomes "x".
sed -i "s|^u6:x:|u6:$(mkhash "$OLD"):|" "$R/etc/passwd"
cp "$R/etc/passwd" "$T/passwd.before"
out=$(probe "$R" -s passwd -u u6 -a Tcb-new-6 -a Tcb-new-6 chauthtok)
is "$(codes "$out")" "chauthtok PAM_SUCCESS" "write_to=tcb, hash in passwd: changed"
is "$(grep '^u6:' "$R/etc/passwd" | cut -d: -f2)" "x" "write_to=tcb: passwd field becomes x"
is "$(grep -v '^u6:' "$R/etc/passwd")" "$(grep -v '^u6:' "$T/passwd.before")" \
    "write_to=tcb: other passwd lines byte-identical"
is "$(auth_code u6 Tcb-new-6)" "auth PAM_SUCCESS" "write_to=tcb: new password in tcb works"

# ---- a user whose hash is still in /etc/passwd cannot move it to tcb
# (rewriting passwd needs root): refused before anything is written.
sed -i "s|^u4:[^:]*:|u4:$(mkhash "$OLD"):|" "$R/etc/passwd"
tcb_svc "$R" passwd-pw write_to=tcb nodelay passwd
before=$(state)
out=$(probe_as 1004 42 "$R" -s passwd-pw -u u4 -a "$OLD" -a Pwfield-new-4 -a Pwfield-new-4 chauthtok)
is "$(codes "$out")" "chauthtok PAM_CRED_INSUFFICIENT" "hash in passwd, user, write_to=tcb: refused"
is "$(state)" "$before" "hash in passwd, user, write_to=tcb: nothing written (tcb file included)"

# ---- pam_passwdqc first, pam_tcb use_authtok: policy from tcb/pam/conf.
if [ -e "$PASSWDQC" ]; then
	cp "$TOP/tcb/pam/conf/passwdqc.conf" "$R/etc/passwdqc.conf"
	pam_svc "$R" qc "password requisite @QC@ config=/etc/passwdqc.conf" \
	    "password required @TCB@ use_authtok write_to=tcb nodelay"
	set_entry "$R" u2 "$(mkhash "$OLD"):$((D - 100)):0:99999:7:::"
	before=$(state)
	out=$(probe_as 1002 42 "$R" -s qc -u u2 -a "$OLD" -a Short-1 -a abcdefgh -a password123 -a x chauthtok)
	is "$(codes "$out")" "chauthtok PAM_AUTHTOK_ERR" "passwdqc: weak passwords refused"
	like "$(msgs "$out")" "Weak password" "passwdqc: says why"
	like "$(msgs "$out")" "you can pick this as.*your password: \"[^\"]+\"" \
	    "passwdqc: offers a random passphrase"
	is "$(printf '%s\n' "$out" | grep -c '^echo_off Enter new password')" 3 "passwdqc: three tries"
	is "$(state)" "$before" "passwdqc: refused change leaves everything"
	STRONG="Correct horse battery staple"
	out=$(probe_as 1002 42 "$R" -s qc -u u2 -a "$OLD" -a "$STRONG" -a "$STRONG" chauthtok)
	is "$(codes "$out")" "chauthtok PAM_SUCCESS" "passwdqc: a strong passphrase accepted"
	is "$(printf '%s\n' "$out" | grep -c '^echo_off.*New password\|^echo_off Retype new')" 0 \
	    "passwdqc + use_authtok: pam_tcb did not prompt itself"
	is "$(auth_code u2 "$STRONG")" "auth PAM_SUCCESS" "passwdqc: the new passphrase works"
	is "$(field u2 3)" "$D" "passwdqc: last change today"
else
	ok 0 "# SKIP pam_passwdqc.so not unpacked (make deps)"
fi

done_testing
