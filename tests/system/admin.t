#!/bin/bash
# System test, issue 7: the built image (make image) as its administrators
# see it.  Each scenario runs in a writable overlay of build/image/root
# (never changed itself), entered with chroot_run in private mount, pid,
# uts, ipc and network namespaces, with the image's own programs.
#   - integrity: seal verify (build/bin/seal, with the signature and
#     build/image/owlet.pub) passes on the pristine image and on a fresh
#     overlay of it, and fails naming the files after a set-uid file and a
#     file with a capability are planted in the overlay; control --audit
#     inside the image reports 0 set-uid and 0 capability files (exit 0),
#     and the planted files as unknown (exit 1); control --check is clean
#     once the image's sysctl (ping) is applied, as booting does;
#   - administrators: owlet-setup admin add alice --key (a key made with
#     the image's ssh-keygen) gives a UID-0 account alice that logs in over
#     ssh (real sshd on 127.0.0.1, the image's sshd_config) with her key, is
#     UID 0 in her own home, and /var/log/auth.log names alice with her
#     key's fingerprint; another key is refused; password logins of root
#     and alice with their right passwords are refused (prohibit-password),
#     while a second sshd with PermitRootLogin yes accepts the same
#     passwords (so the refusal is the policy's); after admin del the key
#     no longer logs in; owlet-setup check is clean after add and del.
. "$(dirname "$0")/../lib/root.sh"
. "$(dirname "$0")/../lib/image.sh"
need_root
need_plain_build
if [ -z "${OWLET_IN_NS:-}" ]; then
	need_image
	exec env OWLET_IN_NS=1 unshare -m --propagation private -- "$0" "$@"
fi
tmpdir
trap 'umount -l "$T/r" 2>/dev/null; umount -l "$T/p" 2>/dev/null; rm -rf "$T"' EXIT
O=$B/image N=$B/image/owlet-bookworm SEAL=$B/bin/seal

# --- integrity: seal --------------------------------------------------------
out=$("$SEAL" verify -f "$N.mtree" -p "$OWLET_IMAGE" -P "$O/owlet.pub" 2>&1)
rc=$?
ok $rc "seal verify -P: the pristine image matches its signed spec"
[ $rc = 0 ] || diag "$out"

base_overlay "$T/p" "$OWLET_IMAGE" || { ok 1 "an overlay of the image"; done_testing; }
out=$("$SEAL" verify -f "$N.mtree" -p "$T/p" -P "$O/owlet.pub" 2>&1)
rc=$?
ok $rc "seal verify passes on a fresh overlay of the image"
[ $rc = 0 ] || diag "$out"
cp "$T/p/usr/bin/dash" "$T/p/usr/local/bin/owlet-planted" &&
	chmod 4755 "$T/p/usr/local/bin/owlet-planted" &&
	cp "$T/p/usr/bin/true" "$T/p/usr/local/bin/owlet-capped" &&
	CHROOT_UNSHARE=-n chroot_run "$T/p" setcap cap_net_raw+ep /usr/local/bin/owlet-capped
ok $? "a set-uid root shell and a cap_net_raw program planted in the overlay"
out=$("$SEAL" verify -f "$N.mtree" -p "$T/p" -P "$O/owlet.pub" 2>&1)
rc=$?
ok $((rc == 0)) "seal verify fails after the plant (exit $rc)"
like "$out" "usr/local/bin/owlet-planted" "... naming the set-uid file"
like "$out" "usr/local/bin/owlet-capped" "... and the file with a capability"

in_image "$T/p" 'step audit control --audit'
like "$(step_out "$T/p" audit)" "^/usr/local/bin/owlet-planted 4755 root:root .*UNKNOWN" \
    "control --audit in the image names the planted set-uid file as unknown"
like "$(step_out "$T/p" audit)" "^/usr/local/bin/owlet-capped 0755 root:root cap_net_raw=ep .*UNKNOWN" \
    "... and the planted capability"
like "$(step_out "$T/p" audit)" "1 set-uid, [0-9]+ set-gid, 1 with capabilities, 2 unknown\$" \
    "... and counts them"
is "$(step_rc "$T/p" audit)" 1 "... exit 1"
umount -l "$T/p"

# --- the fresh image: audit, check, administrators ------------------------------
base_overlay "$T/r" "$OWLET_IMAGE" || { ok 1 "an overlay of the image"; done_testing; }
R=$T/r
APW='Alice-Rides-North-Bay-31'	# passphrases passwdqc accepts
RPW='Root-Keeps-Quiet-Lamps-77'
in_image "$R" "
step audit control --audit
step check_preboot control --check
boot; step boot_rc echo booted
step check control --check
start_sshd; step sshd_rc echo sshd started

ssh-keygen -q -t ed25519 -N '' -C alice-test-key -f /root/alice
ssh-keygen -q -t ed25519 -N '' -C not-installed -f /root/other
step fpr ssh-keygen -lf /root/alice.pub
echo '$APW' | step add owlet-setup --stdin admin add alice --key /root/alice.pub --password
step list owlet-setup admin list
step check_add owlet-setup check
step pwline grep '^alice:' /etc/passwd
step hashes sh -c 'cut -d: -f1-2 /etc/tcb/alice/shadow | cut -c1-12'
step alice_key ssh_key /root/alice alice@127.0.0.1 'id -u; echo \"\$USER \$HOME \$(pwd)\"'
step other_key ssh_key /root/other alice@127.0.0.1 'id -u'

echo '$RPW' | step rootpw owlet-setup --stdin root-password
step root_pw ssh_pw '$RPW' root@127.0.0.1 'id -u'
step alice_pw ssh_pw '$APW' alice@127.0.0.1 'id -u'
start_sshd -o Port=2222 -o PermitRootLogin=yes -E /var/log/auth-2222.log
step root_pw_2222 ssh_pw '$RPW' -p 2222 root@127.0.0.1 'id -u'
step alice_pw_2222 ssh_pw '$APW' -p 2222 alice@127.0.0.1 'id -u'

step del owlet-setup admin del alice
step check_del owlet-setup check
step alice_key_del ssh_key /root/alice alice@127.0.0.1 'id -u'
"
ok $? "the scenario ran inside the image (chroot, own network namespace)"

audit=$(step_out "$R" audit)
like "$audit" "^0 set-uid, [0-9]+ set-gid, 0 with capabilities, 0 unknown\$" \
    "control --audit in the image: 0 set-uid, 0 capabilities, 0 unknown"
is "$(step_rc "$R" audit)" 0 "... exit 0"
like "$audit" "^/usr/bin/passwd 2711 root:shadow passwd tcb\$" "... passwd is set-gid shadow (tcb)"
like "$(step_out "$R" check_preboot)" "^ping: configured dgramsocket, found unknown\$" \
    "control --check before boot: ping's sysctl is not yet applied in the new network namespace"
is "$(step_rc "$R" boot_rc):$(step_rc "$R" sshd_rc)" "0:0" \
    "boot steps (host keys, ping sysctl) and sshd on 127.0.0.1:22"
is "$(step_rc "$R" check):$(step_out "$R" check)" "0:" \
    "control --check is clean once the image's sysctl.d is applied"

fpr=$(step_out "$R" fpr | awk '{ print $2 }')
like "$fpr" '^SHA256:' "alice's key fingerprint"
is "$(step_rc "$R" add)" 0 "owlet-setup admin add alice --key --password"
like "$(step_out "$R" list)" "^alice +/home/alice +password" "admin list shows alice (with a password)"
is "$(step_rc "$R" check_add)" 0 "owlet-setup check is clean after admin add"
like "$(step_out "$R" check_add)" "alice has UID 0" "... and lists alice as a root login"
like "$(step_out "$R" hashes)" '^alice:\$' "alice has her own tcb entry with a hash"
like "$(step_out "$R" pwline)" '^alice:x:0:0:[^:]*:/home/alice:' "alice is UID 0 in /etc/passwd"

is "$(step_rc "$R" alice_key)" 0 "alice logs in over ssh with her key"
is "$(step_out "$R" alice_key)" "0
alice /home/alice /home/alice" "... as UID 0, USER alice, in her own home"
auth=$(cat "$R/var/log/auth.log")
like "$(printf '%s\n' "$auth" | grep -F "Accepted publickey for alice from 127.0.0.1 " |
    grep -F "ssh2: ED25519 $fpr")" . "auth.log names alice and her key's fingerprint"
unlike "$auth" "Accepted publickey for root " "... and no login as root"
is "$(step_rc "$R" other_key)" 255 "a key not in alice's authorized_keys is refused"

is "$(step_rc "$R" rootpw)" 0 "owlet-setup root-password"
is "$(step_rc "$R" root_pw)" 255 "root's password login over ssh is refused (prohibit-password)"
is "$(step_rc "$R" alice_pw)" 255 "alice's password login over ssh is refused"
unlike "$(step_out "$R" root_pw)
$(step_out "$R" alice_pw)" "^0\$" "... no command ran"
like "$(cat "$R/var/tmp/owlet-system/askpass.log")" "\\(alice@127\\.0\\.0\\.1\\) Password:" \
    "(the password was asked and given through keyboard-interactive)"
like "$auth" "Failed keyboard-interactive/pam for alice from 127\\.0\\.0\\.1" \
    "auth.log: alice's keyboard-interactive attempt failed"
is "$(step_rc "$R" root_pw_2222):$(step_out "$R" root_pw_2222)" "0:0" \
    "the same root password logs in on a second sshd with PermitRootLogin yes"
is "$(step_rc "$R" alice_pw_2222):$(step_out "$R" alice_pw_2222)" "0:0" \
    "... and so does alice's: the refusal on port 22 is the image's policy"

is "$(step_rc "$R" del)" 0 "owlet-setup admin del alice"
is "$(step_rc "$R" check_del)" 0 "owlet-setup check is clean after admin del"
is "$(grep -c '^alice:' "$R/etc/passwd")" 0 "alice is gone from /etc/passwd"
t "... and from /etc/tcb" test ! -e "$R/etc/tcb/alice"
is "$(step_rc "$R" alice_key_del)" 255 "alice's key no longer logs in"

done_testing
