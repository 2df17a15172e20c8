#!/bin/bash
# System test, issue 7: the built image (make image) as an ordinary user
# sees it, with real services.  One overlay of build/image/root (never
# changed itself), one chroot_run in private mount, pid, uts, ipc and
# network namespaces running the image's own programs: sshd on 127.0.0.1
# (the image's configuration: users by keyboard-interactive PAM) and
# Debian's cron.  Password logins use the image's ssh client, answered
# through SSH_ASKPASS (tests/lib/inside.sh).
#   - bob (useradd -m, password by chpasswd) logs in over ssh with his
#     password (pam_tcb); passwd, which is set-gid shadow only (2711
#     root:shadow), refuses a weak new password with passwdqc's message
#     and changes nothing, then changes it; the new password logs in, the
#     old one no longer does; his tcb file stays his (bob:auth 0640) and
#     holds a yescrypt hash;
#   - as bob, over ssh: crontab -e (an EDITOR script) and crontab -l work
#     (crontab set-gid crontab, no set-uid) and cron runs the job as bob
#     within 75 s; ping -c1 127.0.0.1 works (ping set-gid _icmp, no
#     capability: ICMP datagram sockets through the image's
#     ping_group_range, which a user lacks before it is applied); su is
#     refused by the kernel (root-only); /etc/tcb/root/shadow, another
#     user's tcb file and getent shadow are out of reach;
#   - while cron's minute passes: useradd, usermod -l/-u, chage, userdel
#     keep /etc/tcb consistent (owlet-setup check clean after each; it
#     fails on a tcb file taken away), and no /etc/shadow appears.
. "$(dirname "$0")/../lib/root.sh"
. "$(dirname "$0")/../lib/image.sh"
need_root
need_plain_build
private_root need_image "$@"
base_overlay "$R" "$OWLET_IMAGE" || { ok 1 "an overlay of the image"; done_testing; }
out() { step_out "$R" "$1"; }
rc() { step_rc "$R" "$1"; }

P1='Quiet-Harbor-Lamp-42'	# passphrases passwdqc accepts
P2='Violet-Canyon-Drum-77'
P3='Carol-Paints-Blue-Doors-5'
WEAK='abc123xy'			# too short for the policy (15)
CRON_WAIT=75

in_image "$R" "
useradd -m -s /bin/bash bob && useradd -m -s /bin/bash carol
printf 'bob:%s\ncarol:%s\n' '$P1' '$P3' | step chpasswd chpasswd
step ping_preboot runuser -u bob -- ping -c1 -W2 127.0.0.1
boot; step boot_rc echo booted
start_sshd; step sshd_rc echo sshd started
step cron_rc cron

# crontab -e as bob: an editor that adds the job.  It waits a second
# first: crontab -e installs nothing if the file's mtime (in seconds) did
# not change ('No modification made').
printf '%s\n' '#!/bin/sh' 'sleep 1' \
    'echo \"* * * * * id -un > \\\$HOME/cron.out\" >> \"\$1\"' >/usr/local/bin/owlet-test-editor
chmod 0755 /usr/local/bin/owlet-test-editor
t0=\$(date +%s)
step crontab_e ssh_pw '$P1' bob@127.0.0.1 'EDITOR=/usr/local/bin/owlet-test-editor crontab -e'
step crontab_l ssh_pw '$P1' bob@127.0.0.1 'crontab -l'
step spool stat -c '%U:%G %a' /var/spool/cron/crontabs/bob
step modes stat -c '%a %U:%G %n' /usr/bin/passwd /usr/bin/crontab /usr/bin/ping /usr/bin/su
step caps getcap /usr/bin/passwd /usr/bin/crontab /usr/bin/ping

# passwords
step login1 ssh_pw '$P1' bob@127.0.0.1 'id -un; id -u'
step method_password cssh -o BatchMode=yes -o PreferredAuthentications=password bob@127.0.0.1 'id -u'
sha256sum /etc/tcb/bob/shadow >\$OUT/sum0
printf '%s\n' '$P1' '$WEAK' '$WEAK' | step weak ssh_pw '$P1' bob@127.0.0.1 passwd
sha256sum /etc/tcb/bob/shadow >\$OUT/sum1
printf '%s\n' '$P1' '$P2' '$P2' | step passwd ssh_pw '$P1' bob@127.0.0.1 passwd
sha256sum /etc/tcb/bob/shadow >\$OUT/sum2
step tcbfile stat -c '%U:%G %a' /etc/tcb/bob/shadow
step hashpfx sh -c 'cut -d: -f2 /etc/tcb/bob/shadow | cut -c1-3'
step login_old ssh_pw '$P1' bob@127.0.0.1 'id -u'
step login_new ssh_pw '$P2' bob@127.0.0.1 'id -u'

# as bob
step ping ssh_pw '$P2' bob@127.0.0.1 'ping -c1 -W2 127.0.0.1'
step su ssh_pw '$P2' bob@127.0.0.1 'su -c \"id -u\" root'
step tcb_root ssh_pw '$P2' bob@127.0.0.1 'cat /etc/tcb/root/shadow'
step tcb_carol ssh_pw '$P2' bob@127.0.0.1 'cat /etc/tcb/carol/shadow'
step getent ssh_pw '$P2' bob@127.0.0.1 'getent shadow root carol bob'
step tcb_there sh -c 'test -s /etc/tcb/root/shadow && test -s /etc/tcb/carol/shadow && getent shadow carol | cut -d: -f1'

# account tools, while cron's minute passes
step a_add useradd -m -s /bin/bash dave
step a_chk_add owlet-setup check
step a_tcb_add stat -c '%U:%G %a' /etc/tcb/dave /etc/tcb/dave/shadow
step a_ren usermod -l erin -d /home/erin -m dave
step a_chk_ren owlet-setup check
step a_tcb_ren sh -c 'ls -d /etc/tcb/dave /etc/tcb/erin 2>&1; stat -c %U /etc/tcb/erin/shadow'
step a_uid usermod -u 2001 erin
step a_chk_uid owlet-setup check
step a_tcb_uid stat -c '%u %n' /etc/tcb/erin /etc/tcb/erin/shadow
step a_chage chage -M 90 erin
step a_chk_chage owlet-setup check
step a_max sh -c 'cut -d: -f1,5 /etc/tcb/erin/shadow'
step a_del userdel -r erin
step a_chk_del owlet-setup check
step a_gone sh -c 'ls -d /etc/tcb/erin /home/erin 2>&1; grep -c ^erin: /etc/passwd'
mv /etc/tcb/carol/shadow /etc/tcb/carol/.away
step a_chk_broken owlet-setup check
mv /etc/tcb/carol/.away /etc/tcb/carol/shadow
step a_chk_back owlet-setup check
step a_noshadow sh -c 'ls /etc/shadow /etc/shadow- 2>&1'

# cron: the job ran as bob?
while [ ! -s /home/bob/cron.out ] && [ \$((\$(date +%s) - t0)) -lt $CRON_WAIT ]; do
	sleep 1
done
echo \$((\$(date +%s) - t0)) >\$OUT/cron_secs
step cron_out cat /home/bob/cron.out
step cron_owner stat -c '%U' /home/bob/cron.out
"
ok $? "the scenario ran inside the image (chroot, own network namespace)"

is "$(rc chpasswd)" 0 "chpasswd sets bob's and carol's passwords"
is "$(rc boot_rc):$(rc sshd_rc):$(rc cron_rc)" "0:0:0" \
    "boot steps (host keys, ping sysctl), sshd on 127.0.0.1:22, cron started"

# --- passwords over ssh ------------------------------------------------------
is "$(rc login1)" 0 "bob logs in over ssh with his password (keyboard-interactive, pam_tcb)"
is "$(out login1)" "bob
1000" "... and runs as bob"
like "$(cat "$R/var/log/auth.log")" "Accepted keyboard-interactive/pam for bob from 127\\.0\\.0\\.1" \
    "auth.log: keyboard-interactive/pam for bob"
is "$(rc method_password)" 255 "the ssh 'password' method is off (PasswordAuthentication no)"

like "$(out modes)" "^2711 root:shadow /usr/bin/passwd\$" "passwd is 2711 root:shadow: set-gid shadow, no set-uid"
is "$(rc weak)" 10 "passwd refuses a weak new password (exit 10, authentication token manipulation error)"
like "$(out weak)" "Weak password: too short" "... with passwdqc's message"
is "$(cat "$R/var/tmp/owlet-system/sum1")" "$(cat "$R/var/tmp/owlet-system/sum0")" \
    "... and bob's tcb file is unchanged"
is "$(rc passwd)" 0 "passwd changes bob's password over ssh"
like "$(out passwd)" "password updated successfully" "... and says so"
sum1=$(cut -d' ' -f1 "$R/var/tmp/owlet-system/sum1")
sum2=$(cut -d' ' -f1 "$R/var/tmp/owlet-system/sum2")
[ -n "$sum1" ] && [ "$sum1" != "$sum2" ]
ok $? "... a new hash in /etc/tcb/bob/shadow"
is "$(out tcbfile)" "bob:auth 640" "... the file is still bob:auth 0640"
is "$(out hashpfx)" '$y$' "... the new hash is yescrypt (login.defs ENCRYPT_METHOD)"
is "$(rc login_old)" 255 "the old password no longer logs in"
like "$(cat "$R/var/log/auth.log")" "Failed keyboard-interactive/pam for bob from 127\\.0\\.0\\.1" \
    "... (auth.log: failed keyboard-interactive/pam for bob)"
is "$(rc login_new):$(out login_new)" "0:1000" "the new password logs in"

# --- as bob --------------------------------------------------------------------
is "$(rc crontab_e)" 0 "crontab -e as bob (EDITOR) installs a crontab"
like "$(out crontab_e)" "installing new crontab" "... and says so"
is "$(rc crontab_l)" 0 "crontab -l as bob"
like "$(out crontab_l)" '^\* \* \* \* \* id -un > \$HOME/cron\.out$' "... shows the job"
is "$(out spool)" "bob:crontab 600" "the spool file is bob:crontab 0600 (written through set-gid crontab)"
like "$(out modes)" "^2755 root:crontab /usr/bin/crontab\$" "crontab is 2755 root:crontab: set-gid only"
is "$(out cron_owner)" bob "cron ran bob's job as bob (after $(cat "$R/var/tmp/owlet-system/cron_secs" 2>/dev/null) s)"
is "$(out cron_out)" bob "... and its output says bob"

like "$(out ping_preboot)" "Operation not permitted" \
    "before the image's ping_group_range is applied, bob's ping fails"
is "$(rc ping)" 0 "after it (as at boot), bob's ping -c1 127.0.0.1 works"
like "$(out ping)" "1 packets transmitted, 1 received" "... and gets the reply"
like "$(out modes)" "^2711 root:_icmp /usr/bin/ping\$" "ping is 2711 root:_icmp: no set-uid"
is "$(out caps)" "" "no file capability on passwd, crontab or ping"
is "$(rc caps)" 0 "(getcap ran)"

like "$(out modes)" "^700 root:root /usr/bin/su\$" "su is root-only (700 root:root)"
is "$(rc su)" 126 "bob's su is refused (exit 126: cannot execute)"
like "$(out su)" "/usr/bin/su: Permission denied" "... by the kernel: permission denied"
unlike "$(out su)" "^0\$" "... and nothing ran as root"

is "$(out tcb_there)" carol "(root can read /etc/tcb/root/shadow and carol's entry)"
is "$(rc tcb_root)" 1 "bob cannot read /etc/tcb/root/shadow"
like "$(out tcb_root)" "Permission denied" "... permission denied"
is "$(rc tcb_carol)" 1 "bob cannot read carol's /etc/tcb/carol/shadow"
like "$(out tcb_carol)" "Permission denied" "... permission denied"
is "$(rc getent):$(out getent)" "2:" "getent shadow root carol bob finds nothing for bob"

# --- account tools keep /etc/tcb consistent ------------------------------------
is "$(rc a_add)" 0 "useradd -m dave"
is "$(out a_tcb_add)" "dave:auth 2710
dave:auth 640" "... /etc/tcb/dave dave:auth 2710 with shadow dave:auth 0640"
is "$(rc a_ren)" 0 "usermod -l erin -d /home/erin -m dave"
like "$(out a_tcb_ren)" "cannot access '/etc/tcb/dave'" "... /etc/tcb/dave is gone"
like "$(out a_tcb_ren)" "^erin\$" "... /etc/tcb/erin holds erin's file"
is "$(rc a_uid)" 0 "usermod -u 2001 erin"
is "$(out a_tcb_uid)" "2001 /etc/tcb/erin
2001 /etc/tcb/erin/shadow" "... re-owns erin's tcb directory and file"
is "$(rc a_chage)" 0 "chage -M 90 erin"
is "$(out a_max)" "erin:90" "... writes erin's tcb entry"
is "$(rc a_del)" 0 "userdel -r erin"
is "$(out a_gone)" "ls: cannot access '/etc/tcb/erin': No such file or directory
ls: cannot access '/home/erin': No such file or directory
0" "... removes erin's tcb directory, home and passwd line"
for s in add ren uid chage del; do
	is "$(rc a_chk_$s)" 0 "owlet-setup check is clean after $s"
done
is "$(rc a_chk_broken)" 1 "owlet-setup check fails while carol's tcb file is away"
like "$(out a_chk_broken)" "carol" "... naming carol"
is "$(rc a_chk_back)" 0 "... and is clean when it is back"
is "$(out a_noshadow)" "ls: cannot access '/etc/shadow': No such file or directory
ls: cannot access '/etc/shadow-': No such file or directory" "no /etc/shadow or /etc/shadow- appeared"

done_testing
