#!/bin/sh
# image/shell.sh shell|boot: make shell / make boot on $B/image/root.
#   shell  an interactive root shell in the image: systemd-nspawn when
#          installed, else private mount/pid/uts/ipc namespaces and chroot
#          (image/chroot.sh)
#   boot   systemd-nspawn -b (no fallback: booting needs a container
#          manager)
# Changes are discarded (a private overlay over the tree), because the tree
# is what the spec and the tarball describe; WRITE=1 writes to the tree.
set -eu
prog=shell.sh
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
R=$B/image/root
mode=${1:-shell}
case $mode in shell | boot) ;; *) die "usage: shell.sh shell|boot" ;; esac
need_root "namespaces, chroot"
[ -d "$R" ] || die "$R missing (make image)"
case ${WRITE:-0} in 0) volatile=--volatile=overlay ;; 1) volatile= ;;
*) die "WRITE must be 0 or 1" ;; esac

# NSPAWN= names another systemd-nspawn (e.g. one unpacked from the
# systemd-container package matching the host's systemd).
nspawn=${NSPAWN:-$(command -v systemd-nspawn || :)}
if [ -n "$nspawn" ]; then
	[ -x "$nspawn" ] || die "NSPAWN=$nspawn: not executable"
	# Without systemd as the host's init (containers, chroots) there is no
	# machined to register with and no scope to create.
	[ -d /run/systemd/system ] || volatile="$volatile --register=no --keep-unit"
	if [ "$mode" = boot ]; then
		# shellcheck disable=SC2086 # option words
		exec "$nspawn" -D "$R" $volatile --hostname=owlet -b
	fi
	# Commands piped in (no terminal) need nspawn's pipe mode to be read.
	[ -t 0 ] || volatile="$volatile --pipe"
	# shellcheck disable=SC2086
	exec "$nspawn" -D "$R" $volatile --hostname=owlet /bin/bash -l
fi
[ "$mode" = shell ] ||
	die "systemd-nspawn not installed (Debian package systemd-container; or NSPAWN=path); make shell works without it"

if [ "${WRITE:-0}" = 1 ]; then
	exec sh "$here/chroot.sh" "$R" /bin/bash -l
fi
# The overlay's upper layer lives in a temp dir removed afterwards; the
# overlay itself is mounted in a private namespace only.
tmp=$(mktemp -d /tmp/owlet-shell.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM HUP
mkdir -m 0755 "$tmp/upper" "$tmp/work" "$tmp/root"
echo "$prog: changes are discarded on exit (WRITE=1 keeps them)" >&2
rc=0
unshare -m --propagation private -- sh -c '
	mount -t overlay overlay -o "lowerdir=$1,upperdir=$2/upper,workdir=$2/work" "$2/root" &&
	exec sh "$3" "$2/root" /bin/bash -l' shell.sh "$R" "$tmp" "$here/chroot.sh" || rc=$?
exit "$rc"
