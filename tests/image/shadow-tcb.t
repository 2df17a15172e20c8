#!/bin/bash
# tcb-aware shadow-utils for the image (image/shadow-tcb.sh, docs/shadow-tcb.md)
# on a private copy (overlayfs) of the Debian base root with owlet
# installed and the owlet profile applied (control --defaults: tcb, no
# /etc/shadow).  Inside the root (chroot_run): useradd, chpasswd (PAM and
# -e), usermod -l/-u/-L/-U, passwd -l/-u/-S/-e, owlet's chage, pwck,
# newusers, userdel keep /etc/tcb consistent -- after each step
# owlet-setup check passes and no /etc/shadow* exists -- and logins work
# through PAM (pamtester from the host, run inside the root; a real
# login(1) on a pty).  The dpkg diversions are registered and survive a
# reinstall of the packages passwd and login; a second --install changes
# nothing; a root without owlet is refused untouched; with control passwd
# traditional the same programs use /etc/shadow.
. "$(dirname "$0")/../lib/root.sh"
. "$(dirname "$0")/../lib/image.sh"
need_root
need_plain_build
private_root need_base "$@"

# --- build and stage --------------------------------------------------------
out=$(B=$B "$TOP/image/shadow-tcb.sh" 2>"$T/build.err"); rc=$?
if [ "$rc" = 77 ]; then
	skip_all "cannot download Debian's shadow source package ($(tail -n 1 "$T/build.err"))"
fi
ok $rc "image/shadow-tcb.sh builds and stages shadow-utils --with-tcb"
if [ "$rc" != 0 ]; then
	diag "$(tail -n 5 "$T/build.err")"
	done_testing
fi
S=$(printf '%s\n' "$out" | tail -n 1)
t "the stage holds useradd usermod userdel passwd chpasswd pwck" sh -c \
    "cd '$S' && test -x usr/sbin/useradd -a -x usr/sbin/usermod -a -x usr/sbin/userdel -a -x usr/bin/passwd -a -x usr/sbin/chpasswd -a -x usr/sbin/pwck"
like "$(readelf -d "$S/usr/sbin/useradd")" 'NEEDED.*\[libtcb\.so\.0\]' "useradd needs libtcb.so.0"
is "$(find "$S" -type f -perm /6000 | wc -l)" 0 "nothing in the stage is set-ID"

# --- a root without owlet (no libtcb): refused, nothing changed -----------------
base_overlay "$T/bare" || { ok 1 "overlay of the base root"; done_testing; }
out=$(B=$B "$TOP/image/shadow-tcb.sh" --install "$T/bare" 2>&1); rc=$?
is "$rc" 1 "--install into a root without owlet's libtcb fails"
like "$out" "libtcb\.so\.0 => not found" "... naming the missing library"
is "$(chroot_run "$T/bare" dpkg-divert --list | grep -c '^local')" 0 "... and diverts nothing"
umount -l "$T/bare"

# --- the root: base + owlet + control --defaults + our programs -------------
base_overlay "$R" || { ok 1 "overlay of the base root"; done_testing; }
make -s -C "$TOP" install DESTDIR="$R" PREFIX=/usr B="$B" >/dev/null 2>&1 &&
	"$B/sbin/control" --root "$R" --defaults --quiet
ok $? "owlet installed and the owlet profile applied (tcb)"
t "the profile removed /etc/shadow" test ! -e "$R/etc/shadow"
B=$B "$TOP/image/shadow-tcb.sh" --install "$R" >"$T/install.out" 2>&1; rc=$?
ok $rc "image/shadow-tcb.sh --install ROOT"
[ $rc = 0 ] || diag "$(tail -n 5 "$T/install.out")"
is "$(grep -c 'dpkg-divert: warning' "$T/install.out")" 0 "no dpkg-divert warnings"

# --- diversions ---------------------------------------------------------------
divs() { chroot_run "$R" dpkg-divert --list | grep '^local diversion' | sort; }
d1=$(divs)
for p in /usr/sbin/useradd /usr/sbin/usermod /usr/sbin/userdel /usr/sbin/chpasswd \
    /usr/bin/passwd /bin/login; do
	like "$d1" "^local diversion of $p to $p\\.distrib\$" "dpkg diversion registered: $p"
done
is "$(printf '%s\n' "$d1" | wc -l)" 27 "27 local diversions (26 programs and owlet's chage)"
is "$(chroot_run "$R" dpkg-divert --truename /usr/bin/chage)" /usr/bin/chage.distrib \
    "owlet's chage is protected by a diversion ..."
cmp -s "$B/bin/chage" "$R/usr/bin/chage"; ok $? "... and left in place"
for p in usr/sbin/useradd usr/bin/passwd usr/bin/login; do
	cmp -s "$S/$p" "$R/$p"; ok $? "/$p is the tcb build"
done
shadow=$(awk -F: '$1 == "shadow" { print $3 }' "$R/etc/group")
is "$(stat -c '%u:%g %a' "$R/usr/bin/passwd")" "0:$shadow 2711" \
    "passwd keeps control's state (root:shadow 2711)"
is "$(find "$R/usr/bin" "$R/usr/sbin" -name '*.distrib' -perm /6000 | wc -l)" 0 \
    "Debian's diverted binaries are not set-ID"

# --- helpers ------------------------------------------------------------------
skip() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $1 # SKIP $2"; }
run() { chroot_run "$R" /bin/sh -c "$1" 2>&1; }
consistent() {	# consistent STEP: owlet-setup check, no /etc/shadow*
	local o r
	o=$("$B/sbin/owlet-setup" --root "$R" check 2>&1); r=$?
	is "$r" 0 "after $1: owlet-setup check passes"
	[ "$r" = 0 ] || diag "$o"
	is "$(cd "$R/etc" && ls -d shadow* 2>/dev/null)" "" "after $1: no /etc/shadow*"
}
line() { cat "$R/etc/tcb/$1/shadow" 2>&1; }
field() { cut -d: -f"$2" "$R/etc/tcb/$1/shadow"; }
PAM=
if command -v pamtester >/dev/null; then
	install -m 0755 "$(command -v pamtester)" "$R/usr/local/bin/pamtester"
	# bookworm's own binary: its libraries are in the root too
	chroot_run "$R" pamtester 2>&1 | grep -q '^usage: pamtester' && PAM=1
fi
# auth USER PASS [PAMTESTER-OPS]: a login through PAM (service login)
auth() {
	printf '%s\n' "$2" | chroot_run "$R" pamtester login "$1" ${3:-authenticate} >/dev/null 2>&1
}
pam_ok() {	# pam_ok DESC USER PASS [OPS]
	if [ -z "$PAM" ]; then skip "$1" "no pamtester on the host"; return; fi
	auth "$2" "$3" "${4:-}"; ok $? "$1"
}
pam_no() {
	if [ -z "$PAM" ]; then skip "$1" "no pamtester on the host"; return; fi
	auth "$2" "$3" "${4:-}"; ok $(($? == 0)) "$1"
}
today=$(( $(date +%s) / 86400 ))
PW1='Quiet-Harbor-Stone-Violet'
PW2='Tangled-Orchard-Lamp-Frost'

# --- useradd -------------------------------------------------------------------
out=$(run 'useradd -m -s /bin/sh u1'); rc=$?
ok $rc "useradd -m u1"
is "$out" "" "... prints nothing (Debian's would: unknown item 'USE_TCB')"
# numeric IDs: the host's names for them differ
auth=$(awk -F: '$1 == "auth" { print $3 }' "$R/etc/group")
uid=$(awk -F: '$1 == "u1" { print $3 }' "$R/etc/passwd")
is "$(stat -c '%u:%g %a' "$R/etc/tcb/u1" "$R/etc/tcb/u1/shadow" | tr '\n' ' ')" \
    "$uid:$auth 2710 $uid:$auth 640 " "/etc/tcb/u1 is u1:auth 2710, its shadow u1:auth 0640"
like "$(line u1)" '^u1:!:[0-9]+:0:99999:7:::$' "u1's tcb entry: locked, no password yet"
like "$(grep '^u1:' "$R/etc/passwd")" '^u1:x:1000:' "u1's passwd entry has no hash (x)"
is "$(stat -c %u "$R/home/u1")" "$uid" "home /home/u1 made, owned by u1"
consistent "useradd"

# --- a password, and a login ------------------------------------------------------
run "echo 'u1:$PW1' | chpasswd" >/dev/null
ok $? "chpasswd (through PAM: pam_tcb write_to=tcb)"
like "$(field u1 2)" '^\$' "u1's tcb entry now holds a hash"
is "$(run 'getent shadow u1')" "$(line u1)" "getent shadow u1 in the root (libnss_tcb) = the tcb file"
pam_ok "u1 logs in with the password (PAM, service login)" u1 "$PW1" "authenticate acct_mgmt"
pam_no "and not with another" u1 "$PW2"
# A real console login on a pty (script(1)): our /bin/login, PAM,
# pam_tcb, a shell as u1.  Input is paced for the prompts.
out=$( { sleep 2; echo "$PW1"; sleep 3; echo 'id -un; exit'; } |
    run 'timeout 30 script -qec "login u1" /dev/null' | tr -d '\r')
like "$out" "^u1\$" "login u1 with the password on a terminal gives a shell as u1"
consistent "chpasswd"

# --- usermod -l --------------------------------------------------------------------
h=$(field u1 2)
run 'usermod -l u2 u1' >/dev/null; ok $? "usermod -l u2 u1"
t "/etc/tcb/u1 is gone" test ! -e "$R/etc/tcb/u1"
is "$(stat -c '%u:%g %a' "$R/etc/tcb/u2" "$R/etc/tcb/u2/shadow" 2>&1 | tr '\n' ' ')" \
    "$uid:$auth 2710 $uid:$auth 640 " "/etc/tcb/u2 with the same owner and modes"
is "$(field u2 1):$(field u2 2)" "u2:$h" "the entry is renamed, the hash kept"
pam_ok "u2 logs in with u1's password" u2 "$PW1"
consistent "usermod -l"
run 'usermod -u 1500 u2' >/dev/null; ok $? "usermod -u 1500 u2"
uid=1500
is "$(stat -c '%u:%g %a' "$R/etc/tcb/u2" "$R/etc/tcb/u2/shadow" 2>&1 | tr '\n' ' ')" \
    "$uid:$auth 2710 $uid:$auth 640 " "/etc/tcb/u2 and its file now belong to UID 1500"
consistent "usermod -u"

# --- usermod -L / -U, passwd -l / -u / -S / -e -----------------------------------
run 'usermod -L u2' >/dev/null; ok $? "usermod -L u2"
is "$(field u2 2)" "!$h" "... the hash is locked (!)"
pam_no "u2 cannot log in" u2 "$PW1"
consistent "usermod -L"
run 'usermod -U u2' >/dev/null; ok $? "usermod -U u2"
is "$(field u2 2)" "$h" "... the hash is back"
pam_ok "u2 logs in again" u2 "$PW1"
consistent "usermod -U"
run 'passwd -l u2' >/dev/null; ok $? "passwd -l u2 (patch 02)"
is "$(field u2 2)" "!$h" "... locks the tcb entry"
run 'passwd -u u2' >/dev/null; ok $? "passwd -u u2"
is "$(field u2 2)" "$h" "... unlocks it"
like "$(run 'passwd -S u2')" "^u2 P [0-9-]+ 0 99999 7 -1\$" "passwd -S u2 (through libnss_tcb)"
run 'passwd -e u2' >/dev/null; ok $? "passwd -e u2"
is "$(field u2 3)" 0 "... sets the last change to 0 (change forced)"
pam_no "u2's account now needs a new password (acct_mgmt)" u2 "$PW1" "authenticate acct_mgmt"
consistent "passwd -l/-u/-e"

# --- owlet's chage ---------------------------------------------------------------
before=$(line u2)
run 'chage -M 90 u2' >/dev/null; ok $? "chage -M 90 u2 (owlet's chage)"
is "$(line u2)" "$(printf '%s\n' "$before" | awk -F: -v OFS=: '{ $5 = 90 } 1')" \
    "... field 5 is 90, the rest unchanged"
consistent "chage"

# --- chpasswd -e (patch 03) ------------------------------------------------------------
h2=$(printf '%s\n' "$PW2" | "$B/tests/bin/mkhash")
run "echo 'u2:$h2' | chpasswd -e" >/dev/null; ok $? "chpasswd -e (pre-hashed, patch 03)"
is "$(field u2 2):$(field u2 3)" "$h2:$today" "... the hash is in u2's tcb file, changed today"
is "$(stat -c '%u:%g %a %h' "$R/etc/tcb/u2/shadow")" "$uid:$auth 640 1" "... which keeps owner, mode, one link"
pam_ok "u2 logs in with the new password" u2 "$PW2" "authenticate acct_mgmt"
out=$(run "printf 'nosuch:%s\nu2:%s\n' '$h' '$h'| chpasswd -e"); rc=$?
is "$rc" 1 "chpasswd -e with an unknown user exits 1"
like "$out" "line 1: user 'nosuch' does not exist" "... naming the line"
is "$(field u2 2)" "$h" "... and applies the good line (one commit per line, as with PAM)"
consistent "chpasswd -e"

# --- pwck (patch 01: checks every tcb file) ---------------------------------------
out=$(run 'pwck -r -q'); rc=$?
is "$rc" 0 "pwck -r -q passes"
[ "$rc" = 0 ] || diag "$out"
mv "$R/etc/tcb/u2/shadow" "$R/etc/tcb/u2/shadow.away"
out=$(run 'pwck -r -q'); rc=$?
ok $((rc == 0)) "pwck -r -q fails when u2's tcb file is missing"
like "$out" "/etc/tcb/u2/shadow" "... naming it"
mv "$R/etc/tcb/u2/shadow.away" "$R/etc/tcb/u2/shadow"

# --- newusers refuses (patch 04) ---------------------------------------------------
cp "$R/etc/passwd" "$T/passwd.before"
out=$(run "echo 'n1:$PW1:2001:100::/home/n1:/bin/sh' | newusers"); rc=$?
is "$rc" 1 "newusers refuses on a tcb system"
like "$out" "not supported with USE_TCB" "... saying why"
cmp -s "$T/passwd.before" "$R/etc/passwd"; ok $? "... and changes nothing"

# --- group tools: no "unknown item" noise ------------------------------------------
is "$(run 'groupadd g1 && groupmod -n g2 g1 && groupdel g2')" "" \
    "groupadd/groupmod/groupdel work and print nothing"

# --- userdel -r --------------------------------------------------------------------
run 'userdel -r u2' >/dev/null; ok $? "userdel -r u2"
t "/etc/tcb/u2 is gone" test ! -e "$R/etc/tcb/u2"
t "/home/u2 is gone" test ! -e "$R/home/u2"
is "$(grep -c '^u2:' "$R/etc/passwd")" 0 "u2 is gone from passwd"
consistent "userdel -r"

# --- a package upgrade keeps our programs -------------------------------------------
debs=$(find "$B/cache/rootfs/debs" \( -name 'passwd_*.deb' -o -name 'login_*.deb' \) 2>/dev/null | sort)
if [ "$(printf '%s\n' "$debs" | grep -c .)" = 2 ]; then
	mkdir -p "$R/var/tmp/debs"
	cp $debs "$R/var/tmp/debs/"
	run 'dpkg -i /var/tmp/debs/*.deb' >"$T/dpkg.out"
	ok $? "dpkg -i passwd and login again (as an upgrade would)"
	for p in usr/sbin/useradd usr/bin/passwd usr/bin/login; do
		cmp -s "$S/$p" "$R/$p"; ok $? "/$p is still the tcb build"
	done
	cmp -s "$B/bin/chage" "$R/usr/bin/chage"; ok $? "/usr/bin/chage is still owlet's"
	is "$(run 'dpkg --verify passwd login' | grep -v ' c /etc/' | tr '\n' ' ')" "" \
	    "Debian's binaries were unpacked to their *.distrib names (dpkg --verify)"
	is "$(find "$R/usr/bin" "$R/usr/sbin" -name '*.distrib' -perm /4000 | wc -l)" 0 \
	    "none of them is set-uid (dpkg applies control's statoverrides)"
	is "$(stat -c '%u:%g %a' "$R/usr/bin/passwd")" "0:$shadow 2711" "passwd keeps its state"
	rm -rf "$R/var/tmp/debs"
else
	skip "dpkg -i of passwd and login" "no cached .debs under $B/cache/rootfs/debs"
fi

# --- installing again changes nothing ------------------------------------------------
B=$B "$TOP/image/shadow-tcb.sh" --install "$R" >"$T/install2.out" 2>&1
ok $? "a second --install"
is "$(divs)" "$d1" "... leaves the same diversions"
run 'useradd -m u3 && userdel -r u3' >/dev/null; ok $? "useradd and userdel still work"
consistent "the second install"

# --- the same programs without tcb (control passwd traditional) ---------------
"$B/sbin/control" --root "$R" passwd traditional >/dev/null 2>&1
ok $? "control passwd traditional (back to /etc/shadow)"
out=$(run 'useradd u4 && passwd -l u4 && grep "^u4:" /etc/shadow'); rc=$?
ok $rc "useradd and passwd -l work on /etc/shadow"
like "$out" '^u4:!' "... u4's locked entry is in /etc/shadow"
t "... and not in /etc/tcb" test ! -e "$R/etc/tcb/u4"
run 'userdel u4' >/dev/null; ok $? "userdel u4"
is "$(grep -c '^u4:' "$R/etc/shadow" "$R/etc/passwd" | tr '\n' ' ')" \
    "$R/etc/shadow:0 $R/etc/passwd:0 " "... removes it from /etc/shadow and /etc/passwd"

done_testing
