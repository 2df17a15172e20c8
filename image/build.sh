#!/bin/sh
# image/build.sh: make image.  From the cached base ($B/cache/rootfs/base,
# make rootfs) and owlet's packages ($B/deb, make deb), builds in $B/image/:
#   root/                    the image tree: base + owlet's packages
#                            installed with apt + image/profile.sh, cleaned
#                            for shipping
#   owlet-bookworm.tar       reproducible rootfs tarball of root/
#   owlet-bookworm.mtree     seal spec of root/
#   owlet-bookworm.mtree.minisig  its signature; owlet.pub verifies it
#
# Environment: B, DEB_OUT (the packages, default $B/deb), SOURCE_DATE_EPOCH (default: the last commit's time),
# SEAL_KEY (secret key file; SEAL_PUB defaults to SEAL_KEY with .key/.sec
# replaced by .pub) or else a key pair generated once in $B/keys/.
#
# Invariants:
# - The root is rebuilt from the base (root.new, then renamed) whenever
#   an input changed ($B/image/owlet-bookworm.stamp lists them), and the
#   outputs of a previous build are deleted first: whatever exists in
#   $B/image/ after a failure belongs to one build.
# - The tree is cleaned before the spec and the tarball are made, and the
#   tarball excludes nothing: root/, the tarball and the spec hold the same
#   entries, so an instance unpacked from the tarball verifies against the
#   spec.
# - The base is read under a shared lock on $B/cache/rootfs/lock, and the
#   packages are copied under a shared lock on $DEB_OUT/lock, so no make
#   rootfs or make deb replaces them meanwhile; $B/image/lock serializes
#   image builds.
# - owlet comes into the root as a system gets it: apt installs the .debs
#   (dpkg owns every file, the packages' maintainer scripts and triggers
#   run, dependencies such as libsodium23 come from Debian's archive).
#   apt's lists and archives are the build cache's, bind-mounted only
#   inside a private mount namespace; the .debs themselves are read from
#   a copy under var/tmp that is removed with the rest of var/tmp.
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
image_epoch

# The stamp: every input of the image.  The base's and the packages'
# stamps name theirs; image/ whole (a script that only makes the disk
# costs a needless rebuild, never a stale image); seal, which writes the
# spec; the signing key.  An image whose stamp matches is not rebuilt, and
# the check takes only a shared lock: tests hold one on $O/lock while
# they read the image, and may run side by side.  The stamp written is
# the inputs seen when the build began.
inputs() {
	_key=${SEAL_KEY:-$B/keys/owlet.key}
	printf 'epoch=%s packages=%s\nbase=%s\ndebs=%s\nkey=%s\n' \
	    "$SOURCE_DATE_EPOCH" "$IMAGE_PKGS" \
	    "$(sha256sum < "$C/stamp" 2>/dev/null | cut -d' ' -f1)" \
	    "$(sha256sum < "$D/stamp" 2>/dev/null | cut -d' ' -f1)" \
	    "$({ sha256sum < "$_key"; } 2>/dev/null | cut -d' ' -f1)"
	find "$here" "$SEAL" -type f | LC_ALL=C sort | xargs sha256sum |
	    sed "s|$here/||"
}
current() {
	[ -f "$O/$NAME.stamp" ] && [ "$(cat "$O/$NAME.stamp")" = "$(inputs)" ] &&
	    [ -d "$R" ] && [ -f "$O/$NAME.mtree.minisig" ] && [ -f "$O/$NAME.tar" ]
}
exec 8>>"$O/lock"
for mode in -s -x; do	# the exclusive lock is not taken atomically: again
	flock "$mode" 8
	if current; then
		note "$O/$NAME.tar is up to date"
		exit 0
	fi
done
exec 9>>"$C/lock"
flock -s 9
B=$B sh "$here/rootfs.sh" --check || die "base missing or out of date (make rootfs)"

image_key
stamp=$(inputs)

log=$O/build.log
image_begin "$log" "$R.new" "$O/$NAME.stamp" "$O/$NAME.tar" "$O/$NAME.mtree" \
    "$O/$NAME.mtree.minisig" "$O/owlet.pub" "$O/$NAME.audit.json"
cp -a "$C/base" "$R.new"
flock -u 9

image_debs "$R.new"

note "apt-get install owlet's packages (from $D; log: $log)"
# shellcheck disable=SC2086 # a list of paths without blanks
sh "$here/apt-install.sh" "$R.new" "$log" $debs ||
	die "installing owlet's packages failed (log: $log)"

note "profile.sh"
B=$B IMAGE_OUT=$O sh "$here/profile.sh" "$R.new" || die "profile.sh failed"

image_clean "$R.new"

rm -rf "$R"
mv "$R.new" "$R"
trap - EXIT

note "tar, seal (SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH)"
image_tar "$R" "$O/$NAME.tar.new"
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
printf '%s\n' "$stamp" > "$O/$NAME.stamp.new"
publish "$O/$NAME.stamp.new" "$O/$NAME.stamp"

note "done in $(($(date +%s) - t0)) s: root $(du -sxh "$R" | cut -f1)," \
    "tarball $(du -h --apparent-size "$O/$NAME.tar" | cut -f1) ($O)"
