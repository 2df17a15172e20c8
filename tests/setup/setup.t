#!/bin/bash
# owlet-setup(8) on a private copy of the Debian base root switched to the
# owlet profile (control --defaults: tcb): the root password through
# passwdqc, administrator accounts (UID 0, own tcb entry, own key), and the
# pwck-style check.
. "$(dirname "$0")/../lib/root.sh"
. "$(dirname "$0")/../lib/image.sh"
need_root
owlet_root "$@"
"$B/sbin/control" --root "$R" --defaults --quiet
ok $? "the owlet profile applied (tcb)"
S() { "$B/sbin/owlet-setup" --root "$R" "$@"; }
# verify PASS HASH: does libxcrypt (through perl's crypt) accept PASS?
verify() { perl -e 'exit !(crypt($ARGV[0], $ARGV[1]) eq $ARGV[1])' "$1" "$2"; }
hash_of() { cut -d: -f2 "$R/etc/tcb/$1/shadow"; }
ssh-keygen -q -t ed25519 -N '' -C admin-key -f "$T/key"

# --- root password through passwdqc
out=$(printf 'short\n' | S --stdin root-password 2>&1); rc=$?
is "$rc" 1 "a weak root password is refused"
like "$out" "weak password for root: too short" "with passwdqc's reason"
is "$(hash_of root)" "*" "root's entry is unchanged"
out=$(printf 'short\n' | S --stdin root-password --if-unset 2>&1); rc=$?
like "$rc:$out" "^1:.*weak password" "--if-unset asks while root has no password"
STRONG='Tangled-Orchard-Lamp-Frost'
printf '%s\n' "$STRONG" | S --stdin root-password >/dev/null
ok $? "a strong root password is accepted"
h=$(hash_of root)
like "$h" '^\$y\$' "hashed with yescrypt"
verify "$STRONG" "$h"
ok $? "the new hash verifies against the password"
verify "short" "$h"
tfail "and not against another" test $? = 0
is "$(stat -c '%a %u' "$R/etc/tcb/root/shadow")" "640 0" "root's tcb file keeps its mode and owner"
before=$(hash_of root)
out=$(printf 'Another-Strong-Passphrase-Here\n' | S --stdin root-password --if-unset 2>&1); rc=$?
is "$rc:$out:$(hash_of root)" "0::$before" "--if-unset does nothing once root has a password"

# --- administrators
S admin add alice --key "$T/key.pub" >/dev/null
ok $? "admin add alice --key"
like "$(grep '^alice:' "$R/etc/passwd")" '^alice:x:0:0:administrator alice:/home/alice:/bin/bash$' "alice is a UID-0 account of her own"
is "$(hash_of alice)" "*" "key only: no password hash"
is "$(stat -c '%a %u' "$R/etc/tcb/alice" "$R/etc/tcb/alice/shadow" | tr '\n' ' ')" "2710 0 640 0 " "her own tcb directory and file (tcb layout)"
cmp -s "$T/key.pub" "$R/home/alice/.ssh/authorized_keys"
ok $? "her key is in /home/alice/.ssh/authorized_keys"
is "$(stat -c '%a %u' "$R/home/alice" "$R/home/alice/.ssh/authorized_keys" | tr '\n' ' ')" "700 0 600 0 " "home and key file are root-only"
out=$(S admin add alice --key "$T/key.pub" 2>&1); rc=$?
is "$rc:$out" "1:owlet-setup: $R/etc/passwd: account alice exists" "a second alice is refused"
printf 'Quiet-Harbor-Stone-Violet\n' | S --stdin admin add bob --password >/dev/null
ok $? "admin add bob --password"
verify 'Quiet-Harbor-Stone-Violet' "$(hash_of bob)"
ok $? "bob's own password hash in his own tcb file"
out=$(printf 'bob\n' | S --stdin admin add carol --password 2>&1); rc=$?
is "$rc" 1 "a weak administrator password is refused"
t "and no trace of carol is left" test ! -e "$R/etc/tcb/carol" -a ! -e "$R/home/carol"
is "$(grep -c '^carol:' "$R/etc/passwd")" 0 "(not in passwd either)"
out=$(S admin add dave 2>&1); rc=$?
like "$rc:$out" "^1:.*needs a key" "an administrator without key or password is refused"
printf 'not a key\n' > "$T/bad.pub"
out=$(S admin add erin --key "$T/bad.pub" 2>&1); rc=$?
is "$rc:$out" "1:owlet-setup: $T/bad.pub:1: not an SSH public key line" "a bad key file: file:line error"
out=$(S admin list)
like "$out" "^alice +/home/alice +no password$" "admin list: alice, key only"
like "$out" "^bob +/home/bob +password$" "admin list: bob, with a password"
out=$(S check); rc=$?
is "$rc" 0 "check: consistent"
like "$out" "alice has UID 0" "check lists every root login"

# --- the other tcb layout (TCB_AUTH_GROUP no): USER:shadow 2700 / 0600,
# as tcb_convert makes it (one rule, owlet_tcb_layout)
cp -p "$R/etc/login.defs" "$T/login.defs.saved"
sed -i 's/^TCB_AUTH_GROUP.*/TCB_AUTH_GROUP no/' "$R/etc/login.defs"
S admin add erin --key "$T/key.pub" >/dev/null
ok $? "admin add erin with TCB_AUTH_GROUP no"
gid_of() { awk -F: -v g="$1" '$1 == g { print $3 }' "$R/etc/group"; }
sh=$(gid_of shadow) au=$(gid_of auth)
is "$(stat -c '%a %u %g' "$R/etc/tcb/erin" "$R/etc/tcb/erin/shadow" | tr '\n' ' ')" \
    "2700 0 $sh 600 0 $sh " "her tcb directory and file: USER:shadow 2700 and 0600"
S admin del erin >/dev/null
ok $? "admin del erin"
mv "$T/login.defs.saved" "$R/etc/login.defs"
is "$(stat -c '%a %g' "$R/etc/tcb/bob" "$R/etc/tcb/bob/shadow" | tr '\n' ' ')" \
    "2710 $au 640 $au " "bob's entry (USER:auth 2710 and 0640) untouched"

# --- removal and inconsistencies
S admin del alice >/dev/null
ok $? "admin del alice"
t "alice's passwd line and tcb entry are gone" sh -c "! grep -q '^alice:' '$R/etc/passwd' && test ! -e '$R/etc/tcb/alice'"
t "her home is kept" test -d "$R/home/alice"
out=$(S admin del root 2>&1); rc=$?
is "$rc:$out" "1:owlet-setup: root: not an administrator account" "root cannot be deleted"
out=$(S admin del sshd 2>&1); rc=$?
like "$rc:$out" "^1:.*sshd is not an administrator" "a non-UID-0 account is not deleted"
mkdir "$R/etc/tcb/ghost"
rm "$R/etc/tcb/bob/shadow"
out=$(S check); rc=$?
is "$rc" 1 "check exits 1 on problems"
like "$out" "tcb/ghost: no such user in passwd" "names a tcb entry without a user"
like "$out" "tcb/bob/shadow: missing" "names a user without a tcb file"
# A tcb directory left by a deleted account, now under a new account of the
# same name: pam_tcb and tcb_chkpwd ignore its hash; check names it.
chown 4242 "$R/etc/tcb/daemon"
out=$(S check); rc=$?
like "$out" "tcb/daemon: directory not owned by the user" \
    "names a tcb directory of another owner (a deleted account's)"
rmdir "$R/etc/tcb/ghost"

# --- /etc/tcb entry names reach root's terminal escaped (issue 15)
name=$(printf 'gh\033[2J\rost\nfake: 0 problems\xff\\')
long=$(printf 'x\033]0;%040d\a' 0)
mkdir "$R/etc/tcb/$name" "$R/etc/tcb/$long"
out=$(S check); rc=$?
is "$rc" 1 "check exits 1 on entries without a user"
is "$(printf '%s\n' "$out" | LC_ALL=C grep -caP '[\x00-\x09\x0b-\x1f\x7f-\xff]')" 0 \
    "no control byte and no byte >= 0x7f in the output"
like "$out" '/tcb/gh\\x1b\[2J\\x0dost\\x0afake: 0 problems\\xff\\\\: no such user in passwd$' \
    "an entry's name is escaped (\\xHH, backslash doubled)"
like "$out" '/tcb/x\\x1b\]0;0{40}\\x07: name too long for a user$' "so is a name too long for a user"
unlike "$out" '^fake' "no forged line"

done_testing
