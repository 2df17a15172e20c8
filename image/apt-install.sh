#!/bin/sh
# image/apt-install.sh ROOT LOG PKG...: install PKG... (names or paths of
# .debs inside ROOT) into the image root ROOT with apt, run in ROOT
# (image/chroot.sh), output appended to LOG.  Used by image/build.sh
# (owlet's packages) and image/disk.sh (the kernel).
#
# Invariants: runs in a private mount namespace of its own, where apt's
# lists and archives of the build cache are bound over ROOT's (downloads
# stay cached, none lands in ROOT; the cache's lock is held only while
# apt downloads, see below); the base's apt lists are used first, for the
# versions the base was made with, and updated only when they no longer
# resolve; no service starts (policy-rc.d); the build host's resolv.conf
# is in ROOT only meanwhile.  A kernel (linux-image-*) is installed by a
# second apt run, after everything else: its initramfs is then made once,
# by the kernel's own hook.  In one run, initramfs-tools' postinst defers
# an update to its trigger, which made the same initramfs a second time
# after the kernel's (about a minute under load); initramfs-tools, when
# listed, and every package with an initramfs hook, come first.  On
# failure: exit 1 with one line.
set -eu
prog=apt-install.sh
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

if [ "${1:-}" != --inner ]; then
	[ $# -ge 3 ] || die "usage: apt-install.sh ROOT LOG PKG..."
	exec unshare -m --propagation private -- sh "$0" --inner "$@"
fi
shift
root=$1 log=$2
shift 2
image_no_services "$root" on
cp /etc/resolv.conf "$root/etc/resolv.conf"
image_apt_cache "$root"
if ! sh "$here/chroot.sh" "$root" apt-get -q -y --print-uris \
    -o APT::Install-Recommends=false install "$@" >>"$log" 2>&1; then
	image_apt "$root" "$log" update
fi
# The downloads under the cache's lock; the install itself (dpkg, and a
# kernel's initramfs: minutes under load) from hard links of the cached
# .debs in ROOT's own archives, so that a concurrent build (the disk and
# the ISO are made side by side) need not wait for it.
image_apt "$root" "$log" install --download-only "$@"
umount "$root/var/cache/apt/archives"
A=$B/cache/rootfs/debs/apt
for f in "$A"/*.deb; do
	[ -f "$f" ] || continue
	ln "$f" "$root/var/cache/apt/archives/" 2>/dev/null ||
		cp "$f" "$root/var/cache/apt/archives/" || die "cannot copy $f into $root"
done
kernels='' others=''
for p; do
	case $p in
	linux-image-*) kernels="$kernels $p" ;;
	*) others="$others $p" ;;
	esac
done
# shellcheck disable=SC2086 # package names: no blanks, no globs
[ -z "$others" ] || image_apt_own "$root" "$log" install $others
# shellcheck disable=SC2086
[ -z "$kernels" ] || image_apt_own "$root" "$log" install $kernels
rm -f "$root"/var/cache/apt/archives/*.deb "$root"/var/cache/apt/archives/lock
umount "$root/var/lib/apt/lists"
rm -f "$root/etc/resolv.conf" "$root"/var/cache/apt/*.bin
image_no_services "$root" off
