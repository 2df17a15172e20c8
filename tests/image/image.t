#!/bin/bash
# make image (image/build.sh) from the cached base.
#   - the outputs exist: root/, owlet-bookworm.tar, .mtree, .mtree.minisig,
#     owlet.pub; owlet is installed in the root (seal, libtcb in ld.so.cache);
#   - from its packages: dpkg -S names owlet's package for control,
#     pam_tcb.so, libnss_tcb.so.2, seal and tcb_chkpwd; dpkg --verify of
#     the six is clean (after control --defaults); the shadow-utils are
#     owlet-shadow-tcb's diversions; seal finds its libraries (libsodium23
#     came with it); no .deb is left in the tree;
#   - seal verify -P with the signature passes on the fresh root; a planted
#     set-uid file (in an overlay of the root) makes it fail; a spec changed
#     by one byte fails the signature check;
#   - the tarball: names sorted within each directory, no mtime after
#     SOURCE_DATE_EPOCH (read from the signed trusted comment), a file the
#     build wrote (dpkg's status) at exactly that time, owlet's seal at its
#     time in the package (the changelog's date) or, if later, at
#     SOURCE_DATE_EPOCH; numeric owners only; no SSH host keys, an
#     empty machine-id, nothing inside proc/ sys/ dev/ run/ tmp/, no apt
#     lists or .debs; file capabilities kept (pax xattr headers);
#   - the tarball unpacked verifies against the spec (the root, the spec
#     and the tarball describe the same tree);
#   - a second make image gives byte-identical tar, mtree and minisig
#     (with OWLET_REBUILD=1);
#   - the profile's sshd drop-in: sshd -T in an overlay of the root (with
#     host keys made there) shows root by key only, keyboard-interactive
#     through PAM, no X11 or agent forwarding.
. "$(dirname "$0")/../lib/root.sh"
. "$(dirname "$0")/../lib/image.sh"
need_root
need_plain_build
need_base
tmpdir

O=$B/image R=$O/root N=$O/owlet-bookworm
SEAL=$B/bin/seal
if ! make -s -C "$TOP" B="$B" image >"$T/make.log" 2>&1; then
	ok 1 "make image"
	diag "$(tail -n 3 "$T/make.log")"
	done_testing
fi
ok 0 "make image"
for f in "$N.tar" "$N.mtree" "$N.mtree.minisig" "$O/owlet.pub"; do
	t "output ${f##*/} exists" test -s "$f"
done
t "the root has owlet's seal" test -x "$R/usr/bin/seal"
like "$(chroot_run "$R" ldconfig -p)" 'libtcb\.so\.0 ' "libtcb.so.0 is in the root's ld.so.cache"

# owlet came from its packages: dpkg owns its files, and they are the
# packages' (dpkg --verify compares every file with the package's md5sums).
PKGS="libtcb0 libnss-tcb libpam-tcb owlet-control seal owlet-shadow-tcb"
ML=lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
for pf in owlet-control:/usr/sbin/control libpam-tcb:/$ML/security/pam_tcb.so \
    libnss-tcb:/$ML/libnss_tcb.so.2 seal:/usr/bin/seal \
    libpam-tcb:/usr/libexec/chkpwd/tcb_chkpwd; do
	p=${pf%%:*} f=${pf#*:}
	like "$(chroot_run "$R" dpkg -S "$f" 2>&1)" "^$p(:[a-z0-9]+)?: $f\$" "dpkg -S $f: $p"
done
out=$(chroot_run "$R" dpkg-query -W -f '${Package} ${db:Status-Abbrev}\n' $PKGS 2>&1)
is "$(printf '%s\n' "$out" | grep -c ' ii $')" 6 "the six packages are installed (ii)"
out=$(chroot_run "$R" dpkg --verify $PKGS 2>&1)
ok $? "dpkg --verify of owlet's packages exits 0"
is "$out" "" "dpkg --verify of owlet's packages reports nothing"
is "$(chroot_run "$R" dpkg-divert --listpackage /usr/sbin/useradd)" owlet-shadow-tcb \
    "useradd is owlet-shadow-tcb's (a package diversion, kept by its triggers)"
# No translations (image/profile.sh: only C and C.UTF-8 exist): no message
# catalogue, no translated manual page; the English pages stay.
is "$(find "$R/usr/share/locale" -name '*.mo' | head -n 3)" "" "no message catalogue (*.mo) in the root"
is "$(find "$R/usr/share/man" -mindepth 1 -maxdepth 1 ! -name 'man*')" "" "no translated manual pages"
t "the English manual pages stay" test -f "$R/usr/share/man/man1/ls.1.gz"
unlike "$(chroot_run "$R" ldd /usr/bin/seal 2>&1)" 'not found' \
    "seal finds its libraries in the root (libsodium23 came as its dependency)"
is "$(find "$R" -xdev -name '*.deb' | head -n 3)" "" "no .deb is left in the tree"

t "seal verify -P on the fresh root" "$SEAL" verify -f "$N.mtree" -p "$R" -P "$O/owlet.pub"

plant() {	# plant DIR: a set-uid copy of sh in an overlay of the image
	base_overlay "$1" "$OWLET_IMAGE" || exit 120
	cp "$1/usr/bin/dash" "$1/usr/local/bin/owlet-planted" &&
	chmod 4755 "$1/usr/local/bin/owlet-planted" || exit 121
	"$B/bin/seal" verify -f "$2.mtree" -p "$1" -P "$3"
}
export -f plant
out=$(B=$B private_ns plant "$T/ov" "$N" "$O/owlet.pub" 2>&1)
rc=$?
ok $((rc == 0 || rc >= 120)) "seal verify fails after a planted set-uid file (exit $rc)"
like "$out" 'owlet-planted' "and names it"

cp "$N.mtree" "$T/spec"
sed -i '0,/mode=0755/s//mode=0775/' "$T/spec"
tfail "a spec changed by one byte fails the signature check" \
    "$SEAL" verify -f "$T/spec" -x "$N.mtree.minisig" -p "$R" -P "$O/owlet.pub"

# SOURCE_DATE_EPOCH used, from the signed trusted comment.
sde=$(sed -n 's/^trusted comment: .* SOURCE_DATE_EPOCH=\([0-9]*\)$/\1/p' "$N.mtree.minisig")
like "$sde" '^[0-9]+$' "the signature's trusted comment names SOURCE_DATE_EPOCH"
like "$(cat "$N.mtree.minisig")" "sha256:$(sha256sum < "$N.tar" | cut -d' ' -f1)" \
    "the trusted comment names the tarball's sha256"

list=$(tar -tf "$N.tar")
is "$(printf '%s\n' "$list" | head -n 1)" "./" "the tarball starts with ./"
# --sort=name orders the entries of each directory, depth first.
unsorted=$(printf '%s\n' "$list" | LC_ALL=C awk '
	{ p = $0; sub(/\/$/, "", p); d = p; sub(/\/[^\/]*$/, "", d)
	  n = substr(p, length(d) + 2)
	  if ((d in last) && !(last[d] < n)) print; last[d] = n }')
is "$unsorted" "" "the tarball's names are sorted within each directory"
tv=$(TZ=UTC tar --full-time --numeric-owner -tvf "$N.tar")
sdetime=$(TZ=UTC date -d "@$sde" '+%Y-%m-%d %H:%M:%S')
newer=$(printf '%s\n' "$tv" | awk -v s="$sdetime" '($4 " " $5) > s' | head -n 3)
is "$newer" "" "no mtime after SOURCE_DATE_EPOCH ($sdetime)"
like "$(printf '%s\n' "$tv" | grep ' \./var/lib/dpkg/status$')" " $sdetime +\\./var/lib/dpkg/status\$" \
    "a file the build wrote (dpkg's status) has mtime SOURCE_DATE_EPOCH"
debtime=$(dpkg-deb --fsys-tarfile "$B"/deb/seal_*.deb |
    TZ=UTC tar --full-time -tvf - ./usr/bin/seal | awk '{ print $4 " " $5 }')
[[ "$debtime" < "$sdetime" ]] || debtime=$sdetime
like "$(printf '%s\n' "$tv" | grep ' \./usr/bin/seal$')" " $debtime +\\./usr/bin/seal\$" \
    "owlet's seal has its mtime from the package ($debtime)"
is "$(tar -tvf "$N.tar" | awk '$2 !~ /^[0-9]+\/[0-9]+$/' | head -n 3)" "" \
    "no owner names stored (--numeric-owner)"
is "$(printf '%s\n' "$list" | grep -c '^\./etc/ssh/ssh_host_')" 0 "no SSH host keys in the tarball"
like "$(printf '%s\n' "$tv" | grep ' \./etc/machine-id$')" '^-r--r--r-- 0/0 +0 ' \
    "an empty /etc/machine-id"
is "$(printf '%s\n' "$list" | grep -E '^\./(proc|sys|dev|run|tmp|var/tmp)/.' | head -n 3)" "" \
    "nothing inside proc/ sys/ dev/ run/ tmp/ var/tmp/"
is "$(printf '%s\n' "$list" | grep -E '^\./var/(lib/apt/lists|cache/apt)/.' | head -n 3)" "" \
    "no apt lists or caches"
unlike_caps=$(tar --xattrs --xattrs-include='*' -tvvf "$N.tar" 2>/dev/null | grep -c 'security\.capability')
is "$unlike_caps" 0 "no file capability in the tarball (the owlet profile)"
is "$(printf '%s\n' "$tv" | grep -c '^-..[sS]')" 0 "no set-uid file in the tarball"
like "$(printf '%s\n' "$tv" | grep ' \./usr/bin/ping$')" '^-rwx--s--x 0/[0-9]+ ' \
    "ping is set-gid (dgramsocket), not set-uid"
like "$(cat "$O/owlet-bookworm.audit.json")" '"setuid": 0, "setgid": [0-9]+, "caps": 0, "unknown": 0' \
    "the audit report ships: 0 set-uid, 0 capabilities, 0 unknown"

mkdir "$T/x"
tar -xf "$N.tar" -C "$T/x" --numeric-owner --xattrs --xattrs-include='*' --acls
ok $? "the tarball unpacks"
t "the unpacked tarball verifies against the spec" \
    "$SEAL" verify -f "$N.mtree" -p "$T/x" -P "$O/owlet.pub"
rm -rf "$T/x"

sums=$(cd "$O" && sha256sum owlet-bookworm.tar owlet-bookworm.mtree owlet-bookworm.mtree.minisig)
out=$(B=$B sh "$TOP/image/build.sh" 2>&1)
like "$out" "up to date" "make image with nothing changed rebuilds nothing"
# From scratch (OWLET_REBUILD=1): the other tests that read the image
# wait for its lock meanwhile, as for the disk's, containers' and ISO's.
if rebuild_wanted; then
	rm -f "$O/owlet-bookworm.stamp"
	make -s -C "$TOP" B="$B" image >"$T/make.log" 2>&1
	ok $? "make image again from scratch"
	is "$(cd "$O" && sha256sum owlet-bookworm.tar owlet-bookworm.mtree owlet-bookworm.mtree.minisig)" \
	    "$sums" "a rebuild gives byte-identical tar, mtree and minisig"
else
	skip "make image again from scratch: byte-identical tar, mtree and minisig" "OWLET_REBUILD=1 runs it"
fi

sshd_t() {	# sshd_t DIR: effective sshd settings in an overlay of the image
	base_overlay "$1" "$OWLET_IMAGE" || exit 1
	chroot_run "$1" sh -c 'ssh-keygen -A >/dev/null && mkdir -p /run/sshd && sshd -T'
}
export -f sshd_t
conf=$(private_ns sshd_t "$T/ov2")
ok $? "sshd -T accepts the configuration"
for kv in "permitrootlogin without-password" "usepam yes" \
    "kbdinteractiveauthentication yes" "passwordauthentication no" \
    "x11forwarding no" "allowagentforwarding no" "loglevel VERBOSE"; do
	like "$conf" "^$kv\$" "sshd: $kv"
done
t "the image ships the host key unit, wanted by ssh.service" \
    test -L "$R/etc/systemd/system/ssh.service.wants/owlet-ssh-keygen.service"

done_testing
