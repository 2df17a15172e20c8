#!/bin/sh
# image/chroot.sh DIR CMD...: run CMD chrooted into DIR, in fresh private
# mount, pid, uts and ipc namespaces, with
#   /proc      proc of the new pid namespace
#   /dev       tmpfs with null zero full random urandom tty (bind-mounted
#              from the host's /dev, which works in containers without
#              CAP_MKNOD), /dev/pts (devpts newinstance, ptmx), /dev/shm,
#              and /dev/console = the terminal on stdin, if any
#   /run /tmp  empty tmpfs
# and a clean environment (PATH, HOME=/root, TERM, LANG=C.UTF-8, and
# SOURCE_DATE_EPOCH when set: mkinitramfs and others make reproducible
# output with it).
# CHROOT_UNSHARE adds unshare options (e.g. "-n": a network namespace with
# lo up, and OWLET_PRIVATE_NETNS=1 in CMD's environment, which lets
# control(8) set net.* sysctls there; CHROOT_NETNS=private says the same
# of a network namespace the caller entered itself).
#
# Invariants: every mount lives in the new mount namespace only, so it
# vanishes with CMD and nothing under DIR or on the host is left mounted;
# DIR's own files are not modified by the set-up (the mounts cover
# DIR/proc, dev, run, tmp).  When CMD exits, every process it left behind
# is killed with the pid namespace; if this script is killed, unshare's
# --kill-child takes the namespace down too.  Exit status: CMD's.
set -eu
prog=chroot.sh
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

if [ "${1:-}" != --inner ]; then
	[ $# -ge 2 ] || die "usage: chroot.sh DIR CMD..."
	need_root "mount namespaces, chroot"
	# shellcheck disable=SC2086 # CHROOT_UNSHARE is a list of options
	exec unshare -m -p -u -i --fork --kill-child --propagation private \
	    ${CHROOT_UNSHARE:-} -- sh "$0" --inner "$@"
fi
shift
d=$1; shift
d=$(cd "$d" 2>/dev/null && pwd -P) || die "$d: no such directory"
[ "$d" != / ] || die "refusing to chroot into /"
for m in proc dev run tmp; do
	# A symlink here would put our mounts somewhere outside DIR.
	if [ ! -d "$d/$m" ] || [ -L "$d/$m" ]; then die "$d/$m: not a directory"; fi
done

mount -t proc -o nosuid,nodev,noexec proc "$d/proc"
mount -t tmpfs -o nosuid,mode=0755,size=1m devtmp "$d/dev"
for n in null zero full random urandom tty; do
	: > "$d/dev/$n"
	mount --bind "/dev/$n" "$d/dev/$n"
done
mkdir -m 0755 "$d/dev/pts"
mkdir -m 1777 "$d/dev/shm"
mount -t devpts -o newinstance,ptmxmode=0666,mode=0620,gid=5,nosuid,noexec \
    devpts "$d/dev/pts"
ln -s pts/ptmx "$d/dev/ptmx"
mount -t tmpfs -o nosuid,nodev,mode=1777 shm "$d/dev/shm"
ln -s /proc/self/fd "$d/dev/fd"
ln -s /proc/self/fd/0 "$d/dev/stdin"
ln -s /proc/self/fd/1 "$d/dev/stdout"
ln -s /proc/self/fd/2 "$d/dev/stderr"
mount -t tmpfs -o nosuid,nodev,mode=0755 run "$d/run"
mkdir -m 1777 "$d/run/lock"
mount -t tmpfs -o nosuid,nodev,mode=1777 tmp "$d/tmp"

# A terminal on stdin (make shell): visible as /dev/console, where
# ttyname() finds it (tty, passwd, ssh), since the host's /dev/pts is not.
if t=$(tty 2>/dev/null); then
	: > "$d/dev/console"
	mount --bind "$t" "$d/dev/console"
fi
# control(8) in a chroot writes the net.* sysctls of the running kernel
# only when told that the network namespace is private (its own is
# invisible from inside the pid namespace).
netns=0
[ "${CHROOT_NETNS:-}" != private ] || netns=1
case " ${CHROOT_UNSHARE:-} " in
*" -n "* | *" --net "*) ip link set lo up; netns=1 ;;
esac
if [ -s "$d/etc/hostname" ]; then
	hostname "$(head -n 1 "$d/etc/hostname")" 2>/dev/null || :
fi

# Not exec: this shell stays pid 1 of the namespace, so CMD gets ordinary
# signal semantics, and the namespace (with CMD's leftovers) ends with it.
rc=0
env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root TERM="${TERM:-dumb}" LANG=C.UTF-8 OWLET_PRIVATE_NETNS=$netns \
    ${SOURCE_DATE_EPOCH:+SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH} \
    /usr/sbin/chroot "$d" "$@" || rc=$?
exit "$rc"
