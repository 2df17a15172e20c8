#!/bin/bash
# The package owlet-shadow-tcb (debian/, image/shadow-divert.sh,
# docs/packaging.md) on a private copy (overlayfs) of the Debian base
# root, every step inside the root:
#   dpkg -i puts the 26 tcb-aware programs in place of Debian's under
#   diversions of its own; Debian's stay as PATH.distrib (content
#   unchanged, 0755 root:root); the set-ID files are the same, with the
#   same modes; on a traditional system useradd still writes /etc/shadow;
#   after control passwd tcb: useradd makes /etc/tcb/USER, chpasswd and
#   passwd -l/-u edit it, a login through PAM works, no program prints
#   "unknown item"; removal is refused;
#   dpkg -i of Debian's passwd and login (an update of theirs) leaves ours
#   in place, and the triggers take the set-ID bits off the new .distrib
#   files (libpam-tcb's for chage.distrib);
#   an upgrade of owlet's packages keeps the modes control chose;
#   after control passwd traditional, dpkg -r puts Debian's programs
#   back (dpkg --verify clean) with the modes of ours, no diversion and no
#   .distrib left; purge leaves nothing of the package.
. "$(dirname "$0")/../lib/root.sh"
. "$(dirname "$0")/../lib/image.sh"
. "$(dirname "$0")/../lib/deb.sh"
need_root
need_plain_build
command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null ||
	skip_all "dpkg-dev or debhelper missing (make deps)"
[ -x "$B/tests/bin/pamprobe" ] || skip_all "build first (make all \$B/tests/bin/pamprobe)"
private_root need_base "$@"

# Debian's own passwd and login, as the base root was made from them
debs=$(find "$B/cache/rootfs/debs" \( -name 'passwd_*.deb' -o -name 'login_*.deb' \) 2>/dev/null | sort)
[ "$(printf '%s\n' "$debs" | grep -c .)" = 2 ] ||
	skip_all "no cached passwd and login .debs under $B/cache/rootfs/debs (make rootfs)"

# --- build: this version and a newer one ------------------------------------
V1=$(dpkg-parsechangelog -l "$TOP/debian/changelog" -S Version)
V2=$DEB_NEXT
need_debs "$T/v1"
[ -e "$T"/v1/owlet-shadow-tcb_*.deb ] ||
	skip_all "make deb left out owlet-shadow-tcb (no Debian shadow source: $(grep -m1 'cannot be downloaded' "$T/v1.log"))"
need_debs "$T/v2" next
mkdir "$T/in" "$T/in/debian"
for v in v1 v2; do
	mkdir "$T/in/$v"
	for p in libtcb0 libnss-tcb libpam-tcb owlet-control owlet-shadow-tcb; do
		cp "$T/$v/${p}_"*.deb "$T/in/$v/"
	done
done
# shellcheck disable=SC2086
cp $debs "$T/in/debian/"
cp "$B/tests/bin/pamprobe" "$T/in/"
L=/usr/lib/owlet-shadow-tcb
PROGS=$(dpkg-deb -c "$T"/v1/owlet-shadow-tcb_*.deb | awk '{ print $6 }' |
    sed -n "s|^\.$L/s\{0,1\}bin/\([^/][^/]*\)$|\1|p" | sort)
is "$(echo $PROGS | wc -w)" 26 "the package holds 26 programs"

if ! base_overlay "$R" || ! mount --bind "$T/in" "$R/mnt"; then
	ok 1 "an overlay of the base root"
	done_testing
fi

# paths: "NAME dpkg-path" of each program, as passwd and login record it
inside "dpkg-query -L passwd login" > "$T/files"
for p in $PROGS; do
	echo "$p $(grep -E "^(/usr)?/s?bin/$p\$" "$T/files" | head -n 1)"
done > "$T/paths"
is "$(awk 'NF != 2' "$T/paths")" "" "each program is a file of passwd or login"
# sums: "md5 path" of Debian's file of each program, from dpkg's records
sums() {
	while read -r _ d; do
		grep -h " ${d#/}\$" "$R/var/lib/dpkg/info/passwd.md5sums" \
		    "$R/var/lib/dpkg/info/login.md5sums" | head -n 1
	done < "$T/paths"
}
sums > "$T/debian.sums"
# check_each DESC TEST: TEST (a shell function of NAME and dpkg path) for
# every program, one TAP line naming the ones that fail
check_each() {
	_bad=$(while read -r p d; do "$2" "$p" "$d" || echo "$p"; done < "$T/paths")
	is "$(echo $_bad)" "" "$1"
}
ours() { cmp -s "$R$2" "$R$L/bin/$1" || cmp -s "$R$2" "$R$L/sbin/$1"; }
distrib_is_debian() {
	[ "$(md5sum < "$R$2.distrib" | cut -d' ' -f1)" = "$(grep " ${2#/}\$" "$T/debian.sums" | cut -d' ' -f1)" ]
}
distrib_plain() { [ "$(stat -c '%a %u:%g' "$R$2.distrib")" = "755 0:0" ]; }
diverted() { grep -qxF "diversion of $2 to $2.distrib by owlet-shadow-tcb" "$T/div"; }
no_distrib() { [ ! -e "$R$2.distrib" ]; }
modes() { while read -r _ d; do echo "$d $(stat -c '%a %u:%g' "$R$d")"; done < "$T/paths"; }

PASS='Corr3ct-Horse-Battery-Staple'
out=$(inside "useradd -m -s /bin/sh alice && echo 'alice:$PASS' | chpasswd && echo users-ok")
like "$out" users-ok "user alice with a password (Debian's tools)"
setid > "$T/s0"
modes > "$T/m0"
inside "dpkg-divert --list | sort" > "$T/div0"

# --- install on a traditional system ----------------------------------------
out=$(inside "dpkg -i /mnt/v1/libtcb0_*.deb /mnt/v1/owlet-shadow-tcb_*.deb && echo dpkg-ok")
like "$out" dpkg-ok "dpkg -i libtcb0 owlet-shadow-tcb"
[ "${out##*dpkg-ok}" = "" ] || diag "$out"
inside "dpkg-divert --list" > "$T/div"
check_each "each program diverted by owlet-shadow-tcb to PATH.distrib" diverted
check_each "ours in place of each" ours
check_each "Debian's file of each is PATH.distrib, content unchanged" distrib_is_debian
check_each "every PATH.distrib is 0755 root:root" distrib_plain
modes > "$T/m1"
is "$(diff "$T/m0" "$T/m1")" "" "each program keeps the owner and mode of the file it replaced"
is "$(setid | grep -v '\.distrib$' | diff "$T/s0" -)" "" "the set-ID files are the same (passwd stays 4755 root:root)"
is "$(inside "dpkg --verify passwd login")" "" "dpkg --verify passwd login is clean (dpkg checks PATH.distrib)"
out=$(inside "useradd -m -s /bin/sh carol 2>&1 && echo add-ok; grep -c '^carol:' /etc/shadow")
like "$out" "^add-ok" "traditional: our useradd adds carol"
like "$out" "^1$" "and writes her entry into /etc/shadow"
unlike "$out" "unknown item" "without a word about login.defs"

# --- control passwd tcb -------------------------------------------------------
out=$(inside "dpkg -i /mnt/v1/libnss-tcb_*.deb /mnt/v1/libpam-tcb_*.deb /mnt/v1/owlet-control_*.deb >/dev/null &&
    control passwd tcb && echo switched; control passwd")
like "$out" switched "owlet's tcb packages installed, control passwd tcb"
like "$out" "^tcb$" "control passwd reads tcb"
is "$(st /usr/bin/passwd)" "2711 root:shadow " "passwd (ours) is 2711 root:shadow"
out=$(inside "useradd -m -s /bin/sh dave; echo rc=\$?; stat -c '%U:%G %a' /etc/tcb/dave /etc/tcb/dave/shadow
    cut -d: -f1,2 /etc/tcb/dave/shadow; grep '^dave:' /etc/passwd | cut -d: -f2")
like "$out" "rc=0" "tcb: useradd dave"
unlike "$out" "unknown item" "no 'unknown item' from useradd"
like "$out" "^dave:auth 2710" "/etc/tcb/dave is dave:auth 2710"
like "$out" "^dave:auth 640" "its shadow dave:auth 0640"
like "$out" "^dave:!$" "with a locked entry"
like "$out" "^x$" "and x in /etc/passwd"
t "no /etc/shadow was made" test ! -e "$R/etc/shadow"
out=$(inside "echo 'dave:$PASS' | chpasswd && echo chpasswd-ok; /mnt/pamprobe login dave auth '$PASS' noauth 'wrong'")
like "$out" chpasswd-ok "chpasswd sets dave's password"
like "$out" "auth 0 " "dave authenticates through pam_tcb"
like "$out" "noauth 7 " "a wrong password fails"
out=$(inside "passwd -l dave >/dev/null && cut -d: -f2 /etc/tcb/dave/shadow | cut -c1;
    passwd -u dave >/dev/null && cut -d: -f2 /etc/tcb/dave/shadow | cut -c1-3; grep -c '^dave:x:' /etc/passwd")
is "$(echo $out)" '! $y$ 1' "passwd -l/-u lock and unlock dave's tcb entry, /etc/passwd keeps x"
out=$(inside "for p in chfn login groupadd grpck lastlog; do \$p --help 2>&1; done")
unlike "$out" "unknown item" "the other programs read the tcb login.defs silently"

out=$(inside "dpkg -r owlet-shadow-tcb; echo rc=\$?; dpkg-query -W -f='\${Status}\n' owlet-shadow-tcb")
like "$out" "refusing removal: /etc/login.defs has USE_TCB yes" "removal refused while USE_TCB yes"
like "$out" "install ok installed" "the package stays installed"
inside "dpkg-divert --list" > "$T/div"
check_each "and every program still ours" ours

# --- Debian updates passwd and login --------------------------------------------
out=$(inside "dpkg -i /mnt/debian/*.deb 2>&1 && echo dpkg-ok")
like "$out" dpkg-ok "dpkg -i of Debian's passwd and login"
[ "${out##*dpkg-ok}" = "" ] || diag "$out"
like "$out" "Processing triggers for owlet-shadow-tcb" "which triggers owlet-shadow-tcb"
check_each "ours stay in place" ours
check_each "Debian's files land in PATH.distrib" distrib_is_debian
check_each "the trigger made every new PATH.distrib 0755 root:root" distrib_plain
is "$(st /usr/bin/passwd)" "2711 root:shadow " "passwd still 2711 root:shadow"
is "$(st /usr/bin/chage.distrib)" "755 root:root " \
    "libpam-tcb's trigger made the new chage.distrib 0755 root:root (not chage's 2755)"

# --- upgrade --------------------------------------------------------------------
out=$(inside "dpkg -i /mnt/v2/*.deb 2>&1 && echo dpkg-ok; dpkg-query -W -f='\${Version}\n' owlet-shadow-tcb")
like "$out" "dpkg-ok" "dpkg -i of owlet $V2 (upgrade)"
is "$(printf '%s\n' "$out" | tail -n 1)" "$V2" "owlet-shadow-tcb is $V2"
inside "dpkg-divert --list" > "$T/div"
check_each "still diverted by owlet-shadow-tcb" diverted
check_each "the new programs in place" ours
is "$(st /usr/bin/passwd)" "2711 root:shadow " "passwd keeps control's 2711 root:shadow"
out=$(inside "echo 'dave:$PASS-2' | chpasswd && /mnt/pamprobe login dave auth '$PASS-2'")
like "$out" "auth 0 " "after the upgrade: a changed password works"

# --- back to traditional, remove, purge -------------------------------------------
out=$(inside "control passwd traditional && echo switched")
like "$out" switched "control passwd traditional"
modes > "$T/m2"
out=$(inside "dpkg -r owlet-shadow-tcb && echo removed")
like "$out" removed "dpkg -r owlet-shadow-tcb"
inside "dpkg-divert --list" > "$T/div"
is "$(grep -c owlet-shadow-tcb "$T/div")" 0 "no diversion of owlet-shadow-tcb left"
check_each "no PATH.distrib left" no_distrib
is "$(inside "dpkg --verify passwd login")" "" "Debian's programs are back (dpkg --verify passwd login clean)"
modes > "$T/m3"
is "$(diff "$T/m2" "$T/m3")" "" "with the owners and modes ours had"
out=$(inside "useradd -m -s /bin/sh erin 2>&1 && grep -c '^erin:' /etc/shadow && /mnt/pamprobe login dave auth '$PASS-2'")
like "$out" "^1$" "Debian's useradd works again (erin in /etc/shadow)"
like "$out" "auth 0 " "dave still logs in (pam_unix)"
out=$(inside "dpkg --purge owlet-shadow-tcb && echo purged; dpkg-divert --list | sort")
like "$out" purged "dpkg --purge owlet-shadow-tcb"
is "$(inside "dpkg-divert --list | sort" | grep -v libpam-tcb)" "$(grep -v libpam-tcb "$T/div0")" \
    "the diversions are those of before (libpam-tcb's chage aside)"
t "nothing of $L is left" test ! -e "$R$L"

done_testing
