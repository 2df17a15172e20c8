#!/bin/sh
# image/vm.sh: boot an owlet disk with qemu: `make vm`, and the one qemu
# command line of the tests (tests/lib/vm.sh).
#
#   vm.sh [--disk FILE] [--port N] [--key PUBFILE] [--serial FILE]
#         [--credential NAME=VALUE]... [--persist] [--daemon PIDFILE]
#         [--cdrom ISO] [--firmware uefi|bios]
#
#   --disk      qcow2 or raw image (default $B/image/owlet-bookworm.qcow2)
#   --port      host port on 127.0.0.1 forwarded to the guest's port 22
#               (default 2222)
#   --key       public key for root, passed as the systemd credential
#               ssh.authorized_keys.root (default: the invoking user's
#               ~/.ssh/id_ed25519.pub, id_ecdsa.pub or id_rsa.pub, if any;
#               none: no key)
#   --serial    serial console to FILE, or to the Unix socket PATH with
#               unix:PATH (default: this terminal, with the qemu monitor
#               on Ctrl-a c; Ctrl-a x quits)
#   --credential  another systemd credential (e.g. system.hostname=web1)
#   --persist   write to the disk (default: a snapshot, discarded at exit;
#               PERSIST=1 does the same)
#   --daemon    run in the background, the qemu pid written to PIDFILE
#   --cdrom     also a CD-ROM drive holding ISO (make iso), booted when the
#               disk has no boot loader (a blank disk to install on)
#   --firmware  uefi (OVMF, the default) or bios (qemu's SeaBIOS)
#
# Networking is qemu's user mode with restrict=on: the guest reaches
# nothing outside the VM; the only way in is the forward from
# 127.0.0.1:PORT.  KVM when /dev/kvm is usable, TCG otherwise.  UEFI
# firmware: OVMF, without NVRAM (the disk boots from the removable path).
# VM_TCG_CPU: qemu's -cpu under TCG (default max,-erms,-fsrm: below).
set -eu
prog=vm.sh
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

disk=$B/image/owlet-bookworm.qcow2
port=2222 key= serial= daemon= creds= cdrom= firmware=uefi
persist=${PERSIST:-0}
while [ $# -gt 0 ]; do
	case $1 in
	--disk) disk=$2; shift ;;
	--port) port=$2; shift ;;
	--key) key=$2; shift ;;
	--serial) serial=$2; shift ;;
	--credential) creds="$creds $2"; shift ;;
	--persist) persist=1 ;;
	--daemon) daemon=$2; shift ;;
	--cdrom) cdrom=$2; shift ;;
	--firmware) firmware=$2; shift ;;
	*) die "unknown option $1 (see the head of $0)" ;;
	esac
	shift
done

need_tool qemu-system-x86_64 qemu-system-x86
case $firmware in
uefi)
	ovmf=/usr/share/ovmf/OVMF.fd
	[ -r "$ovmf" ] || die "$ovmf missing: install the Debian package ovmf (make deps)"
	fw="-bios $ovmf" ;;
bios) fw= ;;
*) die "--firmware $firmware: uefi or bios" ;;
esac
[ -z "$cdrom" ] || [ -r "$cdrom" ] || die "$cdrom missing (make iso)"
[ -r "$disk" ] || die "$disk missing (make disk)"
case $port in '' | *[!0-9]*) die "--port $port: not a number" ;; esac
case $persist in 0) snap=on ;; 1) snap=off ;; *) die "PERSIST must be 0 or 1" ;; esac
case $disk in *.qcow2) fmt=qcow2 ;; *) fmt=raw ;; esac

if [ "$key" = none ]; then
	key=
elif [ -z "$key" ]; then
	home=$(getent passwd "${SUDO_USER:-$(id -un)}" | cut -d: -f6)
	for k in id_ed25519 id_ecdsa id_rsa; do
		[ -r "$home/.ssh/$k.pub" ] && { key=$home/.ssh/$k.pub; break; }
	done
fi
smbios=
if [ -n "$key" ]; then
	[ -r "$key" ] || die "--key $key: cannot read"
	# Only public keys: a private key or anything else must not reach
	# the guest's authorized_keys.
	ssh-keygen -l -f "$key" >/dev/null 2>&1 || die "$key: not an SSH public key"
	grep -q PRIVATE "$key" && die "$key: a private key, not a public one"
	smbios="io.systemd.credential.binary:ssh.authorized_keys.root=$(base64 -w0 < "$key")"
fi

if [ -w /dev/kvm ] && [ -r /dev/kvm ]; then
	accel="-accel kvm -cpu host"
else
	# Under TCG, -cpu max without ERMS and FSRM: with them the guest's
	# kernel zeroes and copies pages with rep stosb/movsb, which TCG
	# emulates a byte at a time (init_on_free=1 stalled a
	# live boot for 70 s freeing its initramfs); without them it uses
	# rep stosq.  Boots to SSH took a fifth less, owlet's and stock
	# Debian's alike (docs/benchmarks.md).  VM_TCG_CPU overrides.
	accel="-accel tcg -cpu ${VM_TCG_CPU:-max,-erms,-fsrm}"
fi

# shellcheck disable=SC2086 # $accel and $fw are lists of options
set -- -machine q35 $accel -smp 2 -m 2048 $fw \
    -drive "if=virtio,format=$fmt,file=$disk,snapshot=$snap" \
    -netdev "user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:$port-:22" \
    -device virtio-net-pci,netdev=n0 \
    -device virtio-rng-pci -display none
[ -z "$cdrom" ] || set -- "$@" -drive "if=ide,media=cdrom,readonly=on,format=raw,file=$cdrom" \
    -boot order=cd
[ -z "$smbios" ] || set -- "$@" -smbios "type=11,value=$smbios"
for c in $creds; do
	case $c in *=*) ;; *) die "--credential $c: not NAME=VALUE" ;; esac
	set -- "$@" -smbios "type=11,value=io.systemd.credential:$c"
done

case $serial in
'') set -- "$@" -serial mon:stdio ;;
unix:*) set -- "$@" -chardev "socket,id=s0,path=${serial#unix:},server=on,wait=off" \
    -serial chardev:s0 -monitor none ;;
*) set -- "$@" -serial "file:$serial" -monitor none ;;
esac
if [ -n "$daemon" ]; then
	[ -n "$serial" ] || die "--daemon needs --serial FILE"
	exec qemu-system-x86_64 "$@" -daemonize -pidfile "$daemon"
fi
note "ssh -p $port root@localhost${key:+ (key $key)}; Ctrl-a x quits"
[ -n "$key" ] || note "no SSH key found: log in on this console (root sets a password at first login)"
exec qemu-system-x86_64 "$@"
