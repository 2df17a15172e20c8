#!/bin/sh
# image/profile.sh [--base] ROOT: the owlet profile, applied to an image
# tree by image/build.sh after the base was copied to ROOT and owlet's
# packages installed into it with apt (owlet-shadow-tcb among them: the
# tcb-aware shadow-utils are in place, under its diversions).  --base: the
# container base flavour (image/container.sh), a root without init, sshd
# or logins: only the privilege model, without the parts for a booted
# system (sshd, units, first-login and console password prompts).
#
# Contract: runs on the build host as root; changes ROOT only (never the
# host); to run a program of the image, use
#     sh "$here/chroot.sh" "$R" PROGRAM ARGS...
# (private namespaces, nothing left mounted).  Exits non-zero on any
# failure; build.sh then discards ROOT.  IMAGE_OUT is the output directory
# ($B/image), for reports that ship next to the tarball.  Afterwards build.sh removes SSH
# host keys, empties machine-id, apt caches and logs, then tars and seals.
set -eu
prog=profile.sh
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
system=1
[ "${1:-}" != --base ] || { system=0; shift; }
[ $# = 1 ] || die "usage: profile.sh [--base] ROOT"
R=$(cd "$1" 2>/dev/null && pwd -P) || die "$1: no such directory"
[ "$R" != / ] || die "refusing to change /"

# put SRC DEST MODE: a file of image/files/, owned by root.
put() {
	install -D -o root -g root -m "$3" "$here/files/$1" "$R/$2"
}

# enable UNIT...: systemctl enable in the root, the links the units'
# [Install] sections name (offline: systemctl sees it is in a chroot).
enable() {
	sh "$here/chroot.sh" "$R" systemctl enable --quiet "$@" ||
		die "systemctl enable $* failed"
}

if [ "$system" = 1 ]; then
	# sshd: root with a key only, users with a password through PAM, no
	# X11/agent forwarding (the file says why).
	put etc/ssh/sshd_config.d/owlet.conf etc/ssh/sshd_config.d/owlet.conf 0644

	# SSH host keys: none are shipped; each instance makes its own.
	put etc/systemd/system/owlet-ssh-keygen.service \
	    etc/systemd/system/owlet-ssh-keygen.service 0644
	enable owlet-ssh-keygen.service

	# Network: systemd-networkd, DHCP on wired Ethernet (the file says more).
	put etc/systemd/network/80-owlet-dhcp.network etc/systemd/network/80-owlet-dhcp.network 0644
	enable systemd-networkd.service systemd-networkd-wait-online.service

	# Host name: the system.hostname credential, else /etc/hostname.
	put etc/systemd/system/owlet-hostname.service etc/systemd/system/owlet-hostname.service 0644
	enable owlet-hostname.service

	# A server: boot to multi-user.target (Debian's default is graphical).
	ln -sfn /lib/systemd/system/multi-user.target "$R/etc/systemd/system/default.target"

	# Logging: journald records the sender's uid/pid/command of every local
	# message (trusted fields); kept persistently.
	put etc/systemd/journald.conf.d/owlet.conf etc/systemd/journald.conf.d/owlet.conf 0644

	# The fstab lines of control proc and tmp are a machine's: in a
	# container (the same tree, as the system flavour) the runtime mounts.
	put etc/systemd/system/systemd-remount-fs.service.d/owlet-container.conf \
	    etc/systemd/system/systemd-remount-fs.service.d/owlet-container.conf 0644
fi

# No translations: without the locales package only C and C.UTF-8 exist,
# so message catalogues and translated man pages are never read (38 MiB).
# dpkg leaves them out from now on; those of the base go here.
put etc/dpkg/dpkg.cfg.d/owlet-translations etc/dpkg/dpkg.cfg.d/owlet-translations 0644
for p in locales locales-all; do
	[ ! -e "$R/var/lib/dpkg/info/$p.list" ] ||
		die "package $p installed: translations would be read"
done
find "$R/usr/share/locale" -name '*.mo' ! -type d -delete
find "$R/usr/share/man" -mindepth 1 -maxdepth 1 ! -name 'man*' -exec rm -rf {} +

# ---------------------------------------------------------------------------
# The privilege model.  control runs from the host with --root, never
# inside the root: there it would act on the running system, and its
# sysctls would reach the build host's kernel.
ctl() { "$R/usr/sbin/control" --root "$R" "$@"; }

# The tcb-aware shadow-utils (useradd, passwd, chpasswd, pwck, ...) are
# owlet-shadow-tcb's, put over Debian's by its postinst under package
# diversions, kept by its triggers across updates of passwd and login
# (docs/packaging.md); this script checks they are in place.
[ "$(sh "$here/chroot.sh" "$R" dpkg-divert --listpackage /usr/sbin/useradd)" = \
    owlet-shadow-tcb ] || die "owlet-shadow-tcb's useradd is not in place"

if [ "$system" = 1 ]; then
	# First login: root without a password is asked for one (passwdqc).
	put etc/profile.d/owlet-setup.sh etc/profile.d/owlet-setup.sh 0644
	# No key and no password for root (a disk booted without the
	# credential): the console asks for a password before the login
	# prompts.
	put etc/systemd/system/owlet-root-password.service \
	    etc/systemd/system/owlet-root-password.service 0644
	enable owlet-root-password.service
fi

# Password policy (min 15, passphrases, random=64; see the file), used by
# pam_passwdqc through the tcb stack and by owlet-setup.
install -o root -g root -m 0644 "$R/usr/share/owlet/passwdqc.conf" \
    "$R/etc/passwdqc.conf"

# Every facility in its owlet default: passwd tcb (tcb_convert, nsswitch
# "shadow: tcb files", pam_passwdqc + pam_tcb stacks, passwd set-gid
# shadow), ping dgramsocket, su restricted, crontab set-gid crontab, every
# other set-uid program root-only: zero set-uid files, zero capabilities.
# And the kernel and system hardening (docs/kernel-hardening.md): sysctls
# (links, dmesg, ptrace, bpf, kexec, ldisc, sysrq, oops, aslr, userns,
# network) in /etc/sysctl.d only, never the build host's kernel; /proc
# hidepid, tmpfs /tmp and /dev/shm (fstab), umask 027, sshd's drop-in;
# the boot parameters are recorded only (the image has no
# /etc/kernel/cmdline: image/disk.sh applies them to the disk's).
ctl --defaults --quiet || die "control --defaults failed"
ctl --check >/dev/null || die "control --check: not every facility is in its default"

# The audit report ships next to the tarball; it must find nothing
# unknown, no set-uid file and no capability.
audit=${IMAGE_OUT:-$R/..}/owlet-bookworm.audit.json
ctl --audit --json > "$audit" || die "control --audit: unknown privileged files (see $audit)"
grep -q '"setuid": 0, "setgid": [0-9]*, "caps": 0, "unknown": 0' "$audit" ||
	die "control --audit: set-uid or capability files remain (see $audit)"

# Consistency of passwd and /etc/tcb, as pwck would check it.
"$R/usr/sbin/owlet-setup" --root "$R" check >/dev/null ||
	die "owlet-setup check: passwd and /etc/tcb disagree"
