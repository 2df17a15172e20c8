#!/bin/bash
# tcb_chkpwd as installed: the staged helper runs really set-gid shadow
# (in_sys lays the stage over /usr/libexec), against a converted root whose
# only shadow source is /etc/tcb.  The callers are users without group
# shadow, as a screen locker is.  Requests go through tests/bin/chkpwd_client,
# which reports the 4-byte reply, the exit status and the time taken.
. "$(dirname "$0")/../lib/root.sh"
need_root
tmpdir
C0=$B/tests/bin/chkpwd_client
[ -x "$C0" ] && [ -x "$B/tests/bin/mkhash" ] ||
	skip_all "test programs not built (run make check)"
H=/usr/libexec/chkpwd/tcb_chkpwd
OK=0x0a00ff7f
NO=0x00000001

R=$T/r S=$T/stage
mkroot "$R" 3
"$B/sbin/tcb_convert" --root "$R" || { plan 1; ok 1 "tcb_convert"; done_testing; }
rm "$R/etc/shadow"
sed -i 's/^shadow:.*/shadow: tcb/' "$R/etc/nsswitch.conf"
stage_sys "$S" || skip_all "stage_sys failed (make install, or make deps for passwdqc)"
# The client must be reachable by the test users.
cp "$C0" "$T/chkpwd_client"
C=$T/chkpwd_client

# setentry USER HASH: rewrite the user's tcb file in place (owner, group
# and mode kept).
setentry() {
	printf '%s:%s:19000:0:99999:7:::\n' "$1" "$2" > "$R/etc/tcb/$1/shadow"
}
PW1='correct horse battery'
setentry u1 "$(printf '%s\n' "$PW1" | "$B/tests/bin/mkhash")"
# libxcrypt hashes passphrases of up to 511 bytes.
LONGPW=$(head -c 511 /dev/zero | tr '\0' p)
setentry u2 "$(printf '%s\n' "$LONGPW" | "$B/tests/bin/mkhash")"
setentry u3 ''

# client UID GROUPS [ARGS...]: chkpwd_client as UID, primary gid users
# (100), supplementary GROUPS (comma list, or "" for none); a hang is cut
# off after 20 s (and then prints nothing).
client() {
	local uid=$1 groups=$2 g
	shift 2
	if [ -n "$groups" ]; then g=--groups=$groups; else g=--clear-groups; fi
	in_sys "$R" "$S" timeout 20 setpriv --reuid="$uid" --regid=100 "$g" -- \
	    "$C" "$@"
}
field() { printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | tail -1; }

# The staged helper really is set-gid shadow behind the chkpwd gate.
is "$(stat -c '%a %u:%g' "$S$H" "$S/usr/libexec/chkpwd" | tr '\n' ' ')" \
    "2711 0:42 710 0:163 " "staged helper 2711 root:shadow in a 0710 root:chkpwd dir"

# Right password, from u1's own uid, without group shadow.
out=$(client 1001 163 "$H" u1 "$PW1" 2>"$T/err")
is "$(field reply "$out") $(field status "$out")" "$OK exit:0" \
    "right password: reply TCB_MAGIC, exit 0"
is "$(field extra "$out")" 0 "reply is exactly 4 bytes"
ms=$(field ms "$out")
[ "${ms:-9999}" -lt 1500 ]; ok $? "right password answered without the failure delay (${ms} ms)"

# Wrong password: reply 1, exit 1, after the 2 s delay.
out=$(client 1001 163 "$H" u1 'wrong')
is "$(field reply "$out") $(field status "$out")" "$NO exit:1" \
    "wrong password: reply 1, exit 1"
ms=$(field ms "$out")
[ "${ms:-0}" -ge 2000 ]; ok $? "wrong password took >= 2 s (${ms} ms)"

# Only the account of the caller's own uid can be checked.
out=$(client 1002 163 "$H" u1 "$PW1")
is "$(field reply "$out") $(field status "$out")" "$NO exit:1" \
    "uid 1002 asking about u1 (right password): refused"
out=$(client 1001 163 "$H" nosuchuser "$PW1")
is "$(field reply "$out") $(field status "$out")" "$NO exit:1" "unknown user: refused"
out=$(client 0 163 "$H" u1 "$PW1")
is "$(field reply "$out") $(field status "$out")" "$NO exit:1" "root asking about u1: refused"

# Nothing pam_tcb would refuse: an alias sharing u1's uid (with a password
# of its own), a hash in passwd(5), a tcb directory of another owner.
sed -i '/^u1:/a u1alias:x:1001:100::/:/bin/sh' "$R/etc/passwd"
mkdir -m 2710 "$R/etc/tcb/u1alias"
printf 'u1alias:%s:19000:0:99999:7:::\n' "$(printf '%s\n' Alias-pass-1 | "$B/tests/bin/mkhash")" \
    > "$R/etc/tcb/u1alias/shadow"
chown -R 1001:"$(stat -c %g "$R/etc/tcb/u1")" "$R/etc/tcb/u1alias"
chmod 0640 "$R/etc/tcb/u1alias/shadow"
out=$(client 1001 163 "$H" u1alias Alias-pass-1)
is "$(field reply "$out") $(field status "$out")" "$NO exit:1" \
    "uid 1001 asking about u1alias (uid 1001 too, right password): refused"
echo "u4:$(printf '%s\n' Passwd-field-4 | "$B/tests/bin/mkhash"):1004:100::/:/bin/sh" >> "$R/etc/passwd"
out=$(client 1004 163 "$H" u4 Passwd-field-4)
is "$(field reply "$out") $(field status "$out")" "$NO exit:1" \
    "a hash in passwd(5) (right password): refused, as pam_tcb without 'passwd'"
cp -a "$R/etc/tcb/u1" "$R/etc/tcb/u5"
sed -i 's/^u1:/u5:/' "$R/etc/tcb/u5/shadow"
chown -R 2005 "$R/etc/tcb/u5"
echo "u5:x:1005:100::/:/bin/sh" >> "$R/etc/passwd"
out=$(client 1005 163 "$H" u5 "$PW1")
is "$(field reply "$out") $(field status "$out")" "$NO exit:1" \
    "a leftover tcb dir owned by uid 2005 for account u5 (uid 1005): refused"

# Bounds: the longest password libxcrypt can hash works through the helper.
out=$(client 1002 163 "$H" u2 "$LONGPW")
is "$(field reply "$out") $(field status "$out")" "$OK exit:0" "511-byte password accepted"

# Empty hash: never, whatever the flag word (the caller is the user; its
# nullok would be the user's own choice).
out=$(client 1003 163 -n "$H" u3 '')
is "$(field reply "$out") $(field status "$out")" "$NO exit:1" "empty hash + nullok: refused"
out=$(client 1003 163 "$H" u3 '')
is "$(field reply "$out") $(field status "$out")" "$NO exit:1" "empty hash + nonull: refused"

# Malformed requests, all sent at once (each costs the delay): reply 1.
req() { printf "$2" > "$T/req.$1"; }
req nonul 'nonull\0\0u1'
req nopass 'nonull\0\0u1\0'
req trailing 'nonull\0\0u1\0x\0y'
req trailnul 'nonull\0\0u1\0x\0\0'
req empty ''
req shortflag 'nonul'
req badflag 'nulok\0\0\0u1\0x\0'
req flagjunk 'nullok\0Xu1\0x\0'
req emptyname 'nonull\0\0\0x\0'
req slashname 'nonull\0\0../u1\0x\0'
{ printf 'nonull\0\0u1\0'; head -c 600 /dev/zero | tr '\0' a; printf '\0'; } > "$T/req.pass600"
{ printf 'nonull\0\0u1\0'; head -c 513 /dev/zero | tr '\0' a; printf '\0'; } > "$T/req.pass513"
{ printf 'nonull\0\0'; head -c 40 /dev/zero | tr '\0' u; printf '\0x\0'; } > "$T/req.name40"
{ printf 'nonull\0\0u1\0'; head -c 70000 /dev/zero | tr '\0' a; } > "$T/req.huge"
bad="nonul nopass trailing trailnul empty shortflag badflag flagjunk emptyname slashname pass600 pass513 name40 huge"
for r in $bad; do
	client 1001 163 -r "$T/req.$r" "$H" > "$T/out.$r" 2>&1 &
done
wait
for r in $bad; do
	out=$(cat "$T/out.$r")
	is "$(field reply "$out") $(field status "$out")" "$NO exit:1" "malformed ($r): refused with reply 1"
done

# A terminal on stdin or stdout is refused.
out=$(client 1001 163 -T in "$H" u1 "$PW1")
is "$(field status "$out") $(field reply "$out")" "exit:1 none" "stdin a terminal: refused, no reply"
out=$(client 1001 163 -T out "$H" u1 "$PW1")
is "$(field status "$out")" "exit:1" "stdout a terminal: refused"

# fd 1 closed: the helper exits at once instead of hanging.
out=$(client 1001 163 -c "$H" u1 "$PW1")
is "$(field status "$out")" "exit:1" "fd 1 closed: exits 1"
ms=$(field ms "$out")
[ "${ms:-9999}" -lt 1000 ]; ok $? "fd 1 closed: no hang (${ms} ms)"

# The group privilege is gone before the password is judged: during the
# failure delay all four gids are the caller's real gid (100) and group
# shadow is not among the supplementary groups.
out=$(client 1001 163 -s 700 "$H" u1 wrong)
is "$(printf '%s\n' "$out" | awk '/^Gid:/ { print $2, $3, $4, $5 }')" "100 100 100 100" \
    "during the failure delay: real, effective, saved and fs gid all 100"
is "$(printf '%s\n' "$out" | awk '/^Groups:/ { $1 = ""; print }' | tr -d ' ')" 163 \
    "during the failure delay: supplementary groups are the caller's"

# Rate limit: two wrong guesses at once are serialised by the user's lock.
t0=$(date +%s%N)
client 1001 163 "$H" u1 wrong1 > "$T/par1" &
client 1001 163 "$H" u1 wrong2 > "$T/par2" &
wait
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ "$ms" -ge 4000 ]; ok $? "two simultaneous wrong guesses take >= 4 s in all ($ms ms)"
is "$(field reply "$(cat "$T/par1")") $(field reply "$(cat "$T/par2")")" "$NO $NO" \
    "both simultaneous wrong guesses refused"
# Another user is not slowed down by u1's guesses.
client 1001 163 "$H" u1 wrong3 > /dev/null &
sleep 0.3
out=$(client 1002 163 "$H" u2 "$LONGPW")
wait
ms=$(field ms "$out")
[ "${ms:-9999}" -lt 1500 ]; ok $? "u2 is not delayed by u1's failure (${ms} ms)"

# Killing a helper as soon as its answer is late (a wrong guess) does not
# buy a faster next guess: the next helper waits out the stamp.
client 1001 163 -k 400 "$H" u1 wrong4 > "$T/killed"
is "$(field status "$(cat "$T/killed")")" "signal:9" "a wrong guess killed after 0.4 s"
out=$(client 1001 163 "$H" u1 "$PW1")
ms=$(field ms "$out")
is "$(field reply "$out")" "$OK" "next (right) guess succeeds"
[ "${ms:-0}" -ge 1200 ]; ok $? "next guess waited for the killed guess's delay (${ms} ms)"
out=$(client 1001 163 "$H" u1 "$PW1")
ms=$(field ms "$out")
[ "${ms:-9999}" -lt 1500 ]; ok $? "after a success no wait is left (${ms} ms)"

# The environment is ignored: a set-gid program never preloads, and the
# helper clears what it got.  Nothing of it comes back.
big=$(head -c 100000 /dev/zero | tr '\0' E)
out=$(client 1001 163 -E LD_PRELOAD=/nonexistent.so -E LD_LIBRARY_PATH=/nonexistent \
    -E "BIG=$big" "$H" u1 "$PW1" 2>"$T/err")
is "$(field reply "$out") $(field status "$out") $(field extra "$out")" "$OK exit:0 0" \
    "hostile environment (LD_PRELOAD, 100 kB variable): still works, 4-byte reply"
! grep -q -e nonexistent -e EEEE "$T/err"; ok $? "nothing of the environment echoed on stderr"

# The gate: only group chkpwd may run the helper.
out=$(client 1001 "" "$H" u1 "$PW1")
is "$out" "exec=EACCES" "caller not in group chkpwd: exec fails with EACCES"
out=$(client 1001 42,163 "$H" u1 "$PW1")
is "$(field reply "$out")" "$OK" "caller in group chkpwd (and shadow): runs"

# pam_tcb end to end: a user process without group shadow (a screen
# locker) authenticates its own user through the helper.
mkdir -p "$R/etc/pam.d"
printf 'auth required pam_tcb.so\naccount required pam_permit.so\n' > "$R/etc/pam.d/owlet-chkpwd"
pt() {	# pt PASS: pamtester as uid 1001 with group chkpwd only
	printf '%s\n' "$1" | in_sys "$R" "$S" setpriv --reuid=1001 --regid=100 \
	    --groups=163 -- pamtester owlet-chkpwd u1 authenticate
}
if command -v pamtester >/dev/null; then
	out=$(pt "$PW1" 2>&1); rc=$?
	is "$rc" 0 "pam_tcb through the helper: right password authenticates"
	like "$out" "successfully authenticated" "pamtester reports success"
	out=$(pt wrong 2>&1); rc=$?
	[ "$rc" -ne 0 ]; ok $? "pam_tcb through the helper: wrong password fails"
	like "$out" "Authentication failure" "pamtester reports the failure"
	out=$(printf '%s\n' "$PW1" | in_sys "$R" "$S" setpriv --reuid=1002 --regid=100 \
	    --groups=163 -- pamtester owlet-chkpwd u1 authenticate 2>&1)
	[ $? -ne 0 ]; ok $? "pam_tcb: another uid cannot use the helper for u1"
else
	for i in 1 2 3 4 5; do ok 0 "# SKIP pamtester not installed"; done
fi

done_testing
