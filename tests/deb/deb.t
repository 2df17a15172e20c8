#!/bin/bash
# owlet's Debian packages (debian/, make deb, docs/packaging.md) on a
# private copy (overlayfs) of the Debian base root, every step inside the
# root (chroot_run, own network namespace):
#   make deb builds the six packages, lintian reports nothing that
#   debian/*.lintian-overrides does not justify;
#   dpkg -i changes nothing: the whole tree is the same apart from the
#   packages' own files, dpkg's database and caches (seal manifests), the
#   set-ID files are the same, control reads Debian's states and
#   control --check/--audit are clean;
#   control passwd tcb (+ chage public, tcb_chkpwd tcb, crontab
#   restricted): logins through PAM work (pamprobe from the host, su(1)
#   with a password), a wrong password fails, a user changes their
#   password with passwd(1) (pam_passwdqc + pam_tcb); removal is refused;
#   dpkg -i of a newer version keeps every chosen state (statoverride on
#   owlet's own files too);
#   control passwd traditional: logins work through pam_unix;
#   dpkg --purge: logins work, no owlet file, diversion or statoverride
#   of control's is left (cron's own entry is back), nsswitch.conf,
#   login.defs and common-* are Debian's, the set-ID files are those of
#   before the installation but crontab, whose chosen state stays.
. "$(dirname "$0")/../lib/root.sh"
. "$(dirname "$0")/../lib/image.sh"
. "$(dirname "$0")/../lib/deb.sh"
need_root
need_plain_build
command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null &&
    command -v lintian >/dev/null ||
	skip_all "dpkg-dev, debhelper or lintian missing (make deps)"
[ -x "$B/tests/bin/pamprobe" ] && [ -x "$B/bin/seal" ] ||
	skip_all "build first (make all \$B/tests/bin/pamprobe)"
# Like owlet_root, without make install: the packages install owlet.
private_root need_base "$@"
PKGS="owlet-control libpam-tcb libnss-tcb libtcb-dev libtcb0 seal"
# (owlet-shadow-tcb has a test of its own: shadow-tcb.t)

# --- build -----------------------------------------------------------------
V1=$(dpkg-parsechangelog -l "$TOP/debian/changelog" -S Version)
V2=$DEB_NEXT
need_debs "$T/v1"
[ -s "$T/v1/lintian.txt" ]
ok $? "make deb builds owlet $V1 and runs lintian (its report kept)"
need_debs "$T/v2" next
ls "$T"/v2/*_"$V2"_*.deb >/dev/null 2>&1
ok $? "make deb-repack gives the same packages as version $V2"
for v in v1 v2; do
	mkdir -p "$T/in/$v"
	for p in $PKGS; do cp "$T/$v/${p}_"*.deb "$T/in/$v/" 2>/dev/null; done
done
is "$(ls "$T/in/v1" | wc -l) $(ls "$T/in/v2" | wc -l)" "6 6" "six packages in each build"

# lintian: only tags that an override justifies (O:), no E/W, no override
# that no longer matches anything
L=$T/v1/lintian.txt
is "$(grep -c '^[EW]:' "$L")" 0 "lintian: no error or warning"
is "$(grep -c 'unused-override\|mismatched-override' "$L")" 0 "lintian: every override is used"
is "$(grep -c '^I:' "$L")" 0 "lintian: no informational tag either"
[ "$(grep -c '^[EWI]:' "$L")" = 0 ] || diag "$(grep '^[EWI]:' "$L")"

# seal needs libsodium23, which the base lacks: from apt's cache or
# downloaded once into $B/cache/debs (apt-get download touches no /etc)
sodium=$(ls /var/cache/apt/archives/libsodium23_*.deb "$B"/cache/debs/libsodium23_*.deb 2>/dev/null | head -n 1)
if [ -z "$sodium" ]; then
	mkdir -p "$B/cache/debs"
	(cd "$B/cache/debs" && apt-get download -qq libsodium23) >/dev/null 2>&1
	sodium=$(ls "$B"/cache/debs/libsodium23_*.deb 2>/dev/null | head -n 1)
fi
if [ -n "$sodium" ]; then
	cp "$sodium" "$T/in/"
else
	PKGS=${PKGS% seal}
	rm -f "$T"/in/v*/seal_*.deb
	diag "no libsodium23 .deb: seal is not installed"
fi
cp "$B/tests/bin/pamprobe" "$T/in/pamprobe"

# --- the root ----------------------------------------------------------------
if ! base_overlay "$R" || ! mount --bind "$T/in" "$R/mnt"; then
	ok 1 "an overlay of the base root"
	done_testing
fi
# manifest FILE: seal spec of the whole root (not the mounts of chroot_run),
# one "PATH keywords" line per entry (mtree's ".." levels resolved)
manifest() {
	"$B/bin/seal" create -p "$R" -x mnt -x proc -x dev -x run -x tmp -x sys |
	    awk '/^#/ { next }
		$1 == ".." { if (!sub(/\/[^\/]*$/, "", cur)) cur = ""; next }
		{ p = ($1 == "." || cur == "") ? $1 : cur "/" $1; $1 = p; print }
		$1 != "." && / type=dir / { cur = p }' > "$1"
}
# mdiff A B: "new P", "gone P", "changed P" per path of two manifests
mdiff() {
	awk 'FNR == NR { if ($0 !~ /^#/) a[$1] = $0; next }
	    /^#/ { next }
	    !($1 in a) { print "new", $1; next }
	    a[$1] != $0 { print "changed", $1 }
	    { delete a[$1] }
	    END { for (p in a) print "gone", p }' "$1" "$2" | sort
}
# owlet_files: the files (not directories) of the installed owlet packages
owlet_files() {
	for p in $PKGS ${1:-}; do
		cat "$R/var/lib/dpkg/info/$p.list" "$R/var/lib/dpkg/info/$p:amd64.list"
	done 2>/dev/null | while read -r f; do
		[ -d "$R$f" ] || echo "${f#/}"
	done | sort -u
}
# auth USER PASS: a login through PAM (service login) works, a wrong
# password fails; su(1) as bob with USER's password
PASS='Corr3ct-Horse-Battery-Staple'
auth() {
	inside "/mnt/pamprobe login $1 auth '$2' noauth 'wrong-$2' &&
	    echo '$2' | runuser -u bob -- su -c 'id -un' $1"
}

out=$(inside "useradd -m -s /bin/sh alice && useradd -m -s /bin/sh bob &&
    echo 'alice:$PASS' | chpasswd && echo 'bob:$PASS' | chpasswd && echo users-ok")
like "$out" users-ok "users alice and bob with passwords (Debian's tools)"
like "$(auth alice "$PASS")" '(^|[^a-z])alice$' "before: alice logs in through PAM (pam_unix)"

manifest "$T/m0"
setid > "$T/s0"
cp "$R/var/lib/dpkg/statoverride" "$T/so0"
inside "dpkg-divert --list | sort" > "$T/div0"

# --- dpkg -i: nothing changes ---------------------------------------------------
out=$(inside "dpkg -i /mnt/v1/*.deb \$(ls /mnt/*.deb 2>/dev/null) && echo dpkg-ok")
like "$out" dpkg-ok "dpkg -i of the owlet packages"
[ "${out##*dpkg-ok}" = "" ] || diag "$out"
out=$(inside "dpkg-query -W -f='\${Package} \${Version} \${Status}\n' $PKGS")
is "$(printf '%s\n' "$out" | grep -c " $V1 install ok installed")" "$(echo $PKGS | wc -w)" "all installed, version $V1"

manifest "$T/m1"
setid > "$T/s1"
owlet_files libsodium23 > "$T/files"
is "$(diff "$T/s0" "$T/s1")" "" "the set-ID files are the same (chage keeps Debian's 2755 root:shadow)"
# What may differ: the packages' own files (libsodium23's too) and
# diversions, dpkg's database (its statoverride is checked below), caches
# that dpkg triggers rebuild (ldconfig; debconf's database written by
# pam-auth-update), pam-auth-update's record of the profiles it has seen,
# and owlet-control's record of the statoverride database.  chage and its
# manual page change content only (chage's mode is in the set-ID list).
unexpected=$(mdiff "$T/m0" "$T/m1" | while read -r how p; do
	case "$p" in
	var/lib/dpkg|var/lib/dpkg/*|var/log/dpkg.log|etc/ld.so.cache|\
	var/cache/ldconfig/aux-cache|var/cache/debconf/*|var/lib/pam/seen|\
	usr/bin/chage.distrib|usr/share/man/man1/chage.distrib.1.gz|\
	var/lib/libpam-tcb|var/lib/libpam-tcb/*|var/lib/owlet|var/lib/owlet/package|\
	var/lib/owlet/package/statoverride.orig)
		continue ;;
	usr/bin/chage|usr/share/man/man1/chage.1.gz) [ "$how" = changed ] && continue ;;
	esac
	# packages record /lib/..., found under usr/lib on merged /usr
	q=$p
	case "$p" in usr/lib/*|usr/bin/*|usr/sbin/*) q=${p#usr/} ;; esac
	[ "$how" = new ] && grep -qxF -e "$p" -e "$q" "$T/files" && continue
	# a new directory that only holds the packages' files
	[ "$how" = new ] && [ -d "$R/$p" ] && grep -q "^$p/" "$T/files" && continue
	echo "$how $p"
done)
is "$unexpected" "" "dpkg -i changed nothing else in the whole tree"
is "$(diff "$T/so0" "$R/var/lib/dpkg/statoverride" | grep '^[<>]')" \
    "> root shadow 2755 /usr/bin/chage" \
    "the only statoverride added keeps chage's present state (for the diverted file)"
out=$(inside "dpkg-divert --list | grep libpam-tcb | sort")
like "$out" "diversion of /usr/bin/chage to /usr/bin/chage.distrib by libpam-tcb" "chage diverted"
is "$(st /usr/bin/chage.distrib)" "755 root:root " "Debian's chage.distrib keeps no set-ID bit"
is "$(st /usr/libexec/chkpwd /usr/libexec/chkpwd/tcb_chkpwd)" \
    "700 root:root 700 root:root " "tcb_chkpwd ships restricted (root-only, no set-ID)"
out=$(inside "control passwd; control chage; control tcb_chkpwd; control --check && echo check-clean;
    control --audit >/dev/null && echo audit-clean")
is "$(printf '%s\n' "$out" | head -n 3 | tr '\n' ' ')" "traditional traditional restricted " \
    "control reads passwd traditional, chage traditional, tcb_chkpwd restricted"
like "$out" check-clean "control --check is clean"
like "$out" audit-clean "control --audit: every set-ID file belongs to a facility"
like "$(auth alice "$PASS")" '(^|[^a-z])alice$' "after dpkg -i: alice still logs in"
out=$(inside "seal create -p /etc/pam.d >/dev/null && echo seal-ok")
like "$out" seal-ok "seal runs"

# --- control passwd tcb ----------------------------------------------------------
# crontab restricted replaces the statoverride entry cron registered itself
out=$(inside "control passwd tcb && control chage public && control tcb_chkpwd tcb &&
    control crontab restricted && echo switched; control passwd; control --check && echo check-clean")
like "$out" switched "control passwd tcb, chage public, tcb_chkpwd tcb, crontab restricted"
like "$out" "^tcb$" "control passwd reads tcb"
like "$out" check-clean "control --check is clean"
is "$(st /usr/bin/passwd)" "2711 root:shadow " "passwd is 2711 root:shadow"
t "/etc/tcb/alice/shadow holds alice's entry, /etc/shadow is gone" sh -c \
    "grep -q '^alice:' '$R/etc/tcb/alice/shadow' && ! test -e '$R/etc/shadow'"
SO=$(cat "$R/var/lib/dpkg/statoverride")
like "$SO" "root shadow 2711 /usr/bin/passwd" "passwd's state registered with dpkg-statoverride"
like "$SO" "root shadow 2711 /usr/libexec/chkpwd/tcb_chkpwd" "so is tcb_chkpwd's (a path of libpam-tcb)"
like "$SO" "root chkpwd 710 /usr/libexec/chkpwd" "and its gate directory's"
like "$SO" "root root 700 /usr/bin/crontab" "cron's own entry for crontab replaced by control's"
out=$(auth alice "$PASS")
like "$out" "auth 0 " "tcb: alice authenticates through pam_tcb"
like "$out" "noauth 7 " "a wrong password fails"
like "$out" '(^|[^a-z])alice$' "su alice with her password works"
# with passwd(1), set-gid shadow: a program of alice's own cannot reach
# /etc/tcb (root:shadow 0710)
NEW='Quartz-Lantern-Tangerine-Meadow-81'
out=$(inside "printf '%s\n' '$PASS' '$NEW' '$NEW' | runuser -u alice -- passwd; echo rc=\$?")
like "$out" "rc=0" "alice changes her own password with passwd (pam_passwdqc + pam_tcb)"
PASS=$NEW
like "$(auth alice "$PASS")" '(^|[^a-z])alice$' "and logs in with the new one"

# removal is refused while the system depends on tcb
out=$(inside "dpkg -r owlet-control; echo rc=\$?; dpkg -r --force-depends libpam-tcb; echo rc=\$?;
    dpkg -r --force-depends libnss-tcb; echo rc=\$?;
    dpkg-query -W -f='\${Status}\n' owlet-control libpam-tcb libnss-tcb")
like "$out" "owlet-control: refusing removal: the system is in 'passwd tcb'" "dpkg -r owlet-control is refused in passwd tcb"
like "$out" "libpam-tcb: refusing removal: /etc/pam.d uses pam_tcb.so" "dpkg -r libpam-tcb is refused"
like "$out" "libnss-tcb: refusing removal: /etc/nsswitch.conf uses tcb" "dpkg -r libnss-tcb is refused"
is "$(printf '%s\n' "$out" | grep -c ' ok installed$')" 3 "all three stay installed and configured"
like "$(auth alice "$PASS")" '(^|[^a-z])alice$' "alice still logs in"

# --- upgrade ---------------------------------------------------------------------
out=$(inside "dpkg -i /mnt/v2/*.deb 2>&1 && echo dpkg-ok")
like "$out" dpkg-ok "dpkg -i of $V2 (upgrade)"
[ "${out##*dpkg-ok}" = "" ] || diag "$out"
out=$(inside "dpkg-query -W -f='\${Package} \${Version} \${Status}\n' $PKGS")
is "$(printf '%s\n' "$out" | grep -c " $V2 install ok installed")" "$(echo $PKGS | wc -w)" "all upgraded to $V2"
out=$(inside "control passwd; control chage; control tcb_chkpwd; control crontab; control --check && echo check-clean")
is "$(printf '%s\n' "$out" | head -n 4 | tr '\n' ' ')" "tcb public tcb restricted " "every chosen state kept"
like "$out" check-clean "control --check is clean after the upgrade"
is "$(st /usr/bin/passwd)" "2711 root:shadow " "passwd still 2711 root:shadow"
is "$(st /usr/bin/chage /usr/libexec/chkpwd /usr/libexec/chkpwd/tcb_chkpwd)" \
    "2711 root:shadow 710 root:chkpwd 2711 root:shadow " \
    "the new chage and tcb_chkpwd got their states from dpkg (statoverride)"
like "$(auth alice "$PASS")" '(^|[^a-z])alice$' "after the upgrade: alice logs in"

# --- back to traditional ----------------------------------------------------------
out=$(inside "control passwd traditional && echo switched; control passwd")
like "$out" switched "control passwd traditional"
like "$out" "^traditional$" "control passwd reads traditional"
t "/etc/shadow is back, /etc/tcb gone" sh -c \
    "grep -q '^alice:' '$R/etc/shadow' && ! test -e '$R/etc/tcb'"
out=$(auth alice "$PASS")
like "$out" "auth 0 " "traditional: alice authenticates through pam_unix"
like "$out" "noauth 7 " "a wrong password fails"
like "$out" '(^|[^a-z])alice$' "su alice works"

# --- purge -------------------------------------------------------------------------
owlet_files > "$T/files2"
out=$(inside "dpkg --purge $PKGS 2>&1 && echo dpkg-ok")
like "$out" dpkg-ok "dpkg --purge of every owlet package"
[ "${out##*dpkg-ok}" = "" ] || diag "$out"
out=$(auth alice "$PASS")
like "$out" "auth 0 " "after the purge: alice authenticates"
like "$out" "noauth 7 " "a wrong password fails"
like "$out" '(^|[^a-z])alice$' "su alice works"
left=$(while read -r f; do [ -e "$R/$f" ] || [ -L "$R/$f" ] && echo "$f"; done < "$T/files2"
    for f in etc/control.d var/lib/owlet var/lib/libpam-tcb usr/share/owlet \
	usr/libexec/chkpwd usr/bin/chage.distrib etc/tcb; do
	[ -e "$R/$f" ] && echo "$f"
    done)
# chage is passwd's file again (same path as ours)
left=$(printf '%s\n' "$left" | grep -vx 'usr/bin/chage\|usr/share/man/man1/chage.1.gz' | grep .)
is "$left" "" "no owlet file or record left"
is "$(inside "dpkg-divert --list | sort")" "$(cat "$T/div0")" "no diversion left"
is "$(cat "$R/var/lib/dpkg/statoverride")" "$(cat "$T/so0")" \
    "dpkg-statoverride's database is as before (control's entries removed, cron's put back)"
is "$(cd "$R/usr/bin" && md5sum chage | cut -d' ' -f1)" \
    "$(grep ' usr/bin/chage$' "$R/var/lib/dpkg/info/passwd.md5sums" | cut -d' ' -f1)" \
    "chage is Debian's again"
for f in etc/nsswitch.conf etc/login.defs etc/pam.d/common-auth etc/pam.d/common-account \
    etc/pam.d/common-password etc/pam.d/common-session \
    etc/pam.d/common-session-noninteractive; do
	t "$f is Debian's" cmp "$R/$f" "$OWLET_BASE/$f"
done
# The chosen states stay (crontab restricted); only their registration is gone.
setid > "$T/s2"
gid=$(awk -F: '$1 == "crontab" { print $3 }' "$R/etc/group")
is "$(diff "$T/s0" "$T/s2" | grep '^[<>]')" "< 2755 0:$gid usr/bin/crontab" \
    "the set-ID files are those of before the installation, but crontab (left restricted)"
manifest "$T/m2"
# Left in /etc: the password hashes (alice changed hers; /etc/shadow- is
# rebuilt by no one), the groups tcb added (auth, chkpwd: never removed,
# files may use their IDs), ld.so.cache.
unexpected=$(mdiff "$T/m0" "$T/m2" | grep ' etc/' | while read -r how p; do
	case "$p" in
	etc/shadow|etc/shadow-|etc/group|etc/group-|etc/gshadow|etc/gshadow-|\
	etc/ld.so.cache) continue ;;
	esac
	echo "$how $p"
done)
is "$unexpected" "" "nothing else in /etc differs from before the installation"

done_testing
