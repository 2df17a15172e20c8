#!/bin/sh
# image/build.sh: make image.  From the cached base ($B/cache/rootfs/base,
# make rootfs), builds in $B/image/:
#   root/                    the image tree: base + make install of owlet +
#                            image/profile.sh, cleaned for shipping
#   owlet-bookworm.tar       reproducible rootfs tarball of root/
#   owlet-bookworm.mtree     seal spec of root/
#   owlet-bookworm.mtree.minisig  its signature; owlet.pub verifies it
#
# Environment: B, MAKE, SOURCE_DATE_EPOCH (default: the last commit's time),
# SEAL_KEY (secret key file; SEAL_PUB defaults to SEAL_KEY with .key/.sec
# replaced by .pub) or else a key pair generated once in $B/keys/.
#
# Invariants:
# - The root is rebuilt from the base every time (root.new, then renamed),
#   and the outputs of a previous build are deleted first: whatever exists
#   in $B/image/ after a failure belongs to one build.
# - The tree is cleaned before the spec and the tarball are made, and the
#   tarball excludes nothing: root/, the tarball and the spec hold the same
#   entries, so an instance unpacked from the tarball verifies against the
#   spec.
# - The base is read under a shared lock on $B/cache/rootfs/lock, so no
#   make rootfs replaces it meanwhile; $B/image/lock serializes image builds.
set -eu
prog=build.sh
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
C=$B/cache/rootfs
O=$B/image
R=$O/root
NAME=owlet-bookworm
SEAL=$B/bin/seal

need_root "file owners, chroot, mount namespaces"
[ -x "$SEAL" ] || die "$SEAL missing (make all)"
mkdir -p "$O"
exec 8>>"$O/lock"
flock 8
exec 9>>"$C/lock"
flock -s 9
B=$B sh "$here/rootfs.sh" --check || die "base missing or out of date (make rootfs)"

image_epoch

image_key

t0=$(date +%s)
log=$O/build.log
: > "$log"
rm -f "$O/$NAME.tar" "$O/$NAME.mtree" "$O/$NAME.mtree.minisig" "$O/owlet.pub" \
    "$O/$NAME.audit.json"
rm -rf "$R.new"
trap 'rm -rf "$R.new"' EXIT
trap 'exit 130' INT TERM HUP
cp -a "$C/base" "$R.new"
flock -u 9

note "make install DESTDIR=$R.new PREFIX=/usr"
${MAKE:-make} -s -C "$top" B="$B" install DESTDIR="$R.new" PREFIX=/usr >>"$log" 2>&1 ||
	die "make install failed: $(tail -n 1 "$log") (log: $log)"
# make install puts libtcb.so.0 in the multiarch libdir: refresh ld.so.cache.
sh "$here/chroot.sh" "$R.new" ldconfig >>"$log" 2>&1 || die "ldconfig in the image failed"

note "profile.sh"
B=$B IMAGE_OUT=$O sh "$here/profile.sh" "$R.new" || die "profile.sh failed"

# Shipping clean-up.  Each instance makes its own machine-id (systemd, at
# first boot) and SSH host keys (owlet-ssh-keygen.service); nothing of the
# build host or the build run stays: apt lists and caches, dpkg/debconf
# backups, logs (emptied, kept for their owners and modes: btmp, wtmp),
# and whatever is in the mount points.
cd "$R.new"
rm -f etc/ssh/ssh_host_*_key etc/ssh/ssh_host_*_key.pub var/lib/dbus/machine-id \
    var/cache/debconf/*-old var/lib/dpkg/*-old etc/resolv.conf \
    var/cache/ldconfig/aux-cache
: > etc/machine-id
rm -rf var/lib/apt/lists/* var/cache/apt/*
find proc sys dev run tmp var/tmp -mindepth 1 -xdev -delete
find var/log -xdev -type f -exec truncate -s 0 {} +
rm -f var/log/apt/eipp.log.xz
cd - >/dev/null

rm -rf "$R"
mv "$R.new" "$R"
trap - EXIT

note "tar, seal (SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH)"
# --sort, a fixed clamp for mtimes and no atime/ctime or pid-derived pax
# header names: the archive depends on the tree alone.
tar --create --file="$O/$NAME.tar.new" --directory="$R" --format=posix \
    --sort=name --mtime="@$SOURCE_DATE_EPOCH" --clamp-mtime --numeric-owner \
    --acls --xattrs --xattrs-include='*' \
    --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime . ||
	die "tar failed"
"$SEAL" create -p "$R" -o "$O/$NAME.mtree.new" || die "seal create failed"
mv "$O/$NAME.mtree.new" "$O/$NAME.mtree"
sum=$(sha256sum "$O/$NAME.tar.new" | cut -d' ' -f1)
# The trusted comment is signed too: it binds the tarball to the spec.
"$SEAL" sign -s "$key" -c "owlet image spec" \
    -t "$NAME.mtree $NAME.tar sha256:$sum SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH" \
    -x "$O/$NAME.mtree.minisig.new" "$O/$NAME.mtree" || die "seal sign failed"
"$SEAL" verify -P "$pub" -x "$O/$NAME.mtree.minisig.new" -f "$O/$NAME.mtree" \
    -p "$R" >>"$log" 2>&1 ||
	die "the new spec does not verify against $R (log: $log)"
mv "$O/$NAME.mtree.minisig.new" "$O/$NAME.mtree.minisig"
mv "$O/$NAME.tar.new" "$O/$NAME.tar"
cp "$pub" "$O/owlet.pub"

note "done in $(($(date +%s) - t0)) s: root $(du -sxh "$R" | cut -f1)," \
    "tarball $(du -h --apparent-size "$O/$NAME.tar" | cut -f1) ($O)"
