# The VM harness: boot an owlet disk under qemu (image/vm.sh, the same
# command line as `make vm`) and talk to it over SSH.  Source after
# tests/lib/root.sh and tests/lib/image.sh, in bash:
#
#     need_root; tmpdir; need_vm_tools; need_disk
#     vm_boot a "$OWLET_DISK" 3G; vm_wait_ssh a
#     vm_ssh a 'systemctl is-system-running'
#     vm_stop a
#
# Every VM runs on a qcow2 overlay in $T (the built disk stays pristine;
# the overlay persists across vm_stop/vm_boot of the same NAME, which is a
# reboot), with qemu's user networking restricted (restrict=on: the guest
# reaches nothing outside) and one forward, 127.0.0.1:PORT to the guest's
# sshd.  Root's key (made here, in $T) goes in as the systemd credential
# ssh.authorized_keys.root.  No qemu outlives the test: vm_cleanup runs at
# exit and kills what is left.

OWLET_DISK=$B/image/owlet-bookworm.qcow2

VM_TIMEOUT=${VM_TIMEOUT:-240}
# ssh's ConnectTimeout in vm_ssh: qemu accepts the forwarded connection at
# once, so this bounds the wait for sshd's banner (bench/boot.sh polls
# with a short one: an attempt made before the guest's network is up hangs
# until it).
VM_CONNECT_TIMEOUT=${VM_CONNECT_TIMEOUT:-10}

# need_vm_tools: skip the whole test (with the reason) when qemu, OVMF or
# an SSH client is missing; make deps installs them.
need_vm_tools() {
	need_tools "VM test" qemu-system-x86_64:qemu-system-x86 qemu-img:qemu-utils \
	    /usr/share/ovmf/OVMF.fd:ovmf ssh:openssh-client expect:expect socat:socat
}

# need_disk: make disk (the image first if needed) or stop the run with
# "Bail out!"; then hold shared locks on $B/image/lock and disk.lock, so
# no concurrent build replaces the disk underneath.
need_disk() {
	need_make need_disk disk
	exec 7<"$B/image/lock" 6<"$B/image/disk.lock"
	flock -s 7
	flock -s 6
	need_outputs need_disk owlet-bookworm.qcow2 owlet-bookworm.raw \
	    owlet-bookworm.disk.mtree.minisig
}

# need_iso: make iso (the image first if needed) or stop the run; then
# hold a shared lock on $B/image/iso.lock, so no concurrent build replaces
# the ISO underneath.
OWLET_ISO=$B/image/owlet-bookworm.iso
need_iso() {
	need_make need_iso iso
	exec 5<"$B/image/iso.lock"
	flock -s 5
	need_outputs need_iso owlet-bookworm.iso
}

VM_NAMES=
vm_cleanup() {
	for _vc in $VM_NAMES; do
		for _vc_s in "$T/vm.$_vc".*.ctl; do
			[ ! -S "$_vc_s" ] || ssh -q -o ControlPath="$_vc_s" -O exit vm 2>/dev/null || :
		done
		vm_kill "$_vc"
		# one whose pid file is gone: by its overlay's name
		pkill -9 -f -- "file=$T/vm\.$_vc\.qcow2," 2>/dev/null || :
	done
	rm -rf "$T"
}

# vm_boot NAME DISK [SIZE]: start VM NAME in the background on an overlay
# of DISK (made on the first boot of NAME, SIZE larger than DISK if given;
# DISK "blank": an empty disk of SIZE).  VM_KEY=none boots it without
# root's key, VM_CONSOLE=1 with its serial console on the Unix socket
# $T/vm.NAME.sock (vm_console) instead of the file $T/vm.NAME.serial;
# VM_CREDS adds vm.sh options (--credential ...), VM_CDROM=ISO a CD-ROM,
# VM_FIRMWARE=bios legacy BIOS instead of UEFI.
vm_boot() {
	_vb=$1
	if [ ! -e "$T/vm.$_vb.qcow2" ] && [ "$2" = blank ]; then
		qemu-img create -q -f qcow2 "$T/vm.$_vb.qcow2" "$3" || return 1
	elif [ ! -e "$T/vm.$_vb.qcow2" ]; then
		qemu-img create -q -f qcow2 -F qcow2 -b "$2" "$T/vm.$_vb.qcow2" ${3:+"$3"} ||
			return 1
	fi
	if [ ! -e "$T/vm.key" ]; then
		ssh-keygen -q -t ed25519 -N '' -C owlet-test -f "$T/vm.key" || return 1
	fi
	case " $VM_NAMES " in *" $_vb "*) ;; *) VM_NAMES="$VM_NAMES $_vb" ;; esac
	trap vm_cleanup EXIT
	# A port nobody listens on (if another process takes it meanwhile,
	# qemu exits and vm_wait_ssh says so).
	while :; do
		_vb_port=$(shuf -i 20000-59999 -n 1)
		[ -z "$(ss -Hltn "sport = :$_vb_port")" ] && break
	done
	echo "$_vb_port" > "$T/vm.$_vb.port"
	: > "$T/vm.$_vb.serial"
	_vb_serial=$T/vm.$_vb.serial
	[ "${VM_CONSOLE:-0}" = 0 ] || _vb_serial=unix:$T/vm.$_vb.sock
	rm -f "$T/vm.$_vb.pid" "$T/vm.$_vb.known_hosts" "$T/vm.$_vb.sock" "$T/vm.$_vb".*.ctl
	date +%s > "$T/vm.$_vb.start"
	# qemu must not inherit need_disk's and need_iso's lock descriptors:
	# a VM left behind would hold the shared locks and block every later
	# build.
	B=$B sh "$TOP/image/vm.sh" --disk "$T/vm.$_vb.qcow2" --port "$_vb_port" \
	    --key "${VM_KEY:-$T/vm.key.pub}" --serial "$_vb_serial" --persist \
	    --daemon "$T/vm.$_vb.pid" ${VM_CDROM:+--cdrom "$VM_CDROM"} \
	    --firmware "${VM_FIRMWARE:-uefi}" ${VM_CREDS:-} 5<&- 6<&- 7<&-
}

# vm_ssh NAME CMD...: run CMD (a shell command line) as root (VM_SSH_USER:
# another account holding the same key) in the VM.
# The VM's key only (IdentitiesOnly): sshd allows 3 tries (control sshd),
# and an agent's keys would be offered first.  One connection per VM and
# user carries every command (ControlMaster, the socket $T/vm.NAME.USER.ctl):
# under TCG a new connection's key exchange and login take 2-3 s of the
# guest's CPU, a session on an open one a fraction of that.  The master
# ends with the VM's connection (power-off, vm_cleanup); vm_boot removes
# a dead one's socket, so each boot's first command checks the host key.
vm_ssh() {
	_vs=$1
	shift
	ssh -q -p "$(cat "$T/vm.$_vs.port")" -i "$T/vm.key" -o IdentitiesOnly=yes -o BatchMode=yes \
	    -o StrictHostKeyChecking=accept-new -o "UserKnownHostsFile=$T/vm.$_vs.known_hosts" \
	    -o ControlMaster=auto -o "ControlPath=$T/vm.$_vs.%r.ctl" -o ControlPersist=yes \
	    -o ConnectTimeout="$VM_CONNECT_TIMEOUT" -o LogLevel=ERROR "${VM_SSH_USER:-root}@127.0.0.1" "$@"
}

# vm_wait_for NAME WHAT CMD...: run CMD every second until it succeeds,
# for at most VM_TIMEOUT seconds from the boot's start; sets
# VM_BOOT_SECONDS.  When time is up or qemu is gone: "no WHAT" and the
# serial console's tail as TAP comments, return 1.
vm_wait_for() {
	_vw=$1 _vw_what=$2
	shift 2
	_vw_t0=$(cat "$T/vm.$_vw.start")
	while :; do
		if "$@"; then
			VM_BOOT_SECONDS=$(($(date +%s) - _vw_t0))
			return 0
		fi
		if [ $(($(date +%s) - _vw_t0)) -ge "$VM_TIMEOUT" ] ||
		    ! kill -0 "$(cat "$T/vm.$_vw.pid" 2>/dev/null || echo 0)" 2>/dev/null; then
			echo "# VM $_vw: no $_vw_what after $(($(date +%s) - _vw_t0)) s; serial console:"
			tail -n 30 "$T/vm.$_vw.serial" | sed 's/^/#   /'
			return 1
		fi
		sleep 1
	done
}
# vm_wait_ssh NAME: wait until root (VM_SSH_USER) logs in over SSH.
vm_wait_ssh() { vm_wait_for "$1" SSH vm_ssh "$1" true 2>/dev/null; }
# vm_wait_serial NAME TEXT: wait until the serial console shows TEXT (a
# fixed string).
vm_wait_serial() { vm_wait_for "$1" "\"$2\" on the console" grep -qF "$2" "$T/vm.$1.serial" 2>/dev/null; }

# vm_ssh_up NAME T0 POLL: for the benchmarks: wait until root logs in over
# SSH, one attempt every POLL seconds, each of at most 2 s (an attempt made
# before the guest's network is up hangs until the connect timeout);
# prints the seconds since T0 (date +%s.%N) with 2 decimals.  After
# VM_TIMEOUT seconds, or when qemu is gone: the serial console's tail on
# stderr, return 1.
vm_ssh_up() {
	_vu=$1 _vu_t0=$2
	while ! VM_CONNECT_TIMEOUT=2 vm_ssh "$_vu" true 2>/dev/null; do
		_vu_el=$(awk -v a="$_vu_t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%d", b - a }')
		if [ "$_vu_el" -ge "$VM_TIMEOUT" ] ||
		    ! kill -0 "$(cat "$T/vm.$_vu.pid" 2>/dev/null || echo 0)" 2>/dev/null; then
			tail -n 20 "$T/vm.$_vu.serial" | sed 's/^/  serial: /' >&2
			echo "$_vu: no SSH after $_vu_el s" >&2
			return 1
		fi
		sleep "$3"
	done
	awk -v a="$_vu_t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f\n", b - a }'
}

# vm_no_setuid NAME: in VM NAME, no set-uid file on the root file system
# and no file capability on it (getcap -r over its top directories but
# /proc, /sys, /dev and /run: virtual, or nosuid tmpfs, where the kernel
# ignores capabilities; walking /proc alone takes half a minute under TCG).
# Two TAP lines.
vm_no_setuid() {
	_ns_out=$(vm_ssh "$1" 'find / -xdev -perm /4000 -print | sed "s/^/set-uid /"
	    set --; for d in /*; do case $d in /proc | /sys | /dev | /run) ;; *) set -- "$@" "$d" ;; esac; done
	    getcap -r "$@" 2>/dev/null | sed "s/^/capability /"')
	is "$(printf '%s\n' "$_ns_out" | grep '^set-uid ')" "" "no set-uid file (find / -xdev -perm /4000)"
	is "$(printf '%s\n' "$_ns_out" | grep '^capability ')" "" "no file capability (getcap -r on the root file system)"
}

# vm_seal_check NAME WHAT PUB SIG SPEC [PATH...]: in VM NAME, seal verify
# of the running root against the signed SPEC (PUB, SIG: paths in the VM),
# with a file planted in /usr/local/bin, reports that file and nothing
# else but the paths every instance makes its own at first boot
# (docs/image.md lists them) and PATH..., and exits 2 (differences).  One
# TAP line; WHAT names the spec.  (One pass: a verify hashes the whole
# root, which takes half a minute under TCG.)
VM_FIRSTBOOT="proc sys dev run tmp boot/efi etc/machine-id
etc/ssh/ssh_host_ecdsa_key etc/ssh/ssh_host_ecdsa_key.pub
etc/ssh/ssh_host_ed25519_key etc/ssh/ssh_host_ed25519_key.pub
etc/ssh/ssh_host_rsa_key etc/ssh/ssh_host_rsa_key.pub root/.ssh
var/log var/lib/systemd var/cache/ldconfig/aux-cache var/lib/dhcp var/cache/apparmor"
vm_seal_check() {
	_sc=$1 _sc_what=$2 _sc_pub=$3 _sc_sig=$4 _sc_spec=$5
	shift 5
	_sc_verify="seal verify -j 2 -P $_sc_pub -x $_sc_sig -f $_sc_spec -p / $(
	    printf -- '--exclude %s ' $VM_FIRSTBOOT "$@")"
	_sc_t0=$(date +%s)
	# stdout: the differences; stderr: minisign's two lines, nothing else
	_sc_out=$(vm_ssh "$_sc" "printf x > /usr/local/bin/planted; $_sc_verify 2>/run/seal-check.err;
	    echo rc=\$?; rm -f /usr/local/bin/planted; grep -v -e '^Signature and comment signature verified\$' \
	    -e '^Trusted comment: ' /run/seal-check.err")
	is "$_sc_out" "./usr/local/bin/planted: extra${nl}rc=2" \
	    "seal verify of the running root against $_sc_what: a planted file flagged and failing, nothing else but first-boot paths ($(($(date +%s) - _sc_t0)) s)"
}

# vm_stop NAME: power the VM off and wait for qemu to exit (60 s, then
# kill it and return 1).
vm_stop() {
	_vt=$1
	_vt_pid=$(cat "$T/vm.$_vt.pid" 2>/dev/null) || return 0
	vm_ssh "$_vt" 'systemctl poweroff' 2>/dev/null || :
	_vt_i=0
	while kill -0 "$_vt_pid" 2>/dev/null; do
		_vt_i=$((_vt_i + 1))
		if [ "$_vt_i" -gt 60 ]; then
			kill -9 "$_vt_pid" 2>/dev/null
			return 1
		fi
		sleep 1
	done
	rm -f "$T/vm.$_vt.pid"
}

# vm_kill NAME: stop VM NAME at once (qemu killed), for a VM no later
# check boots again: a clean power-off takes 10-15 s of emulation.
vm_kill() {
	_vk_pid=$(cat "$T/vm.$1.pid" 2>/dev/null) || return 0
	kill -9 "$_vk_pid" 2>/dev/null
	while kill -0 "$_vk_pid" 2>/dev/null; do sleep 0.2; done
	rm -f "$T/vm.$1.pid"
}

# vm_ssh_pw NAME USER PASS CMD: run CMD as USER, logged in with a password
# through keyboard-interactive (PAM), answered by an SSH_ASKPASS program
# (no terminal needed; one prompt allowed, so a wrong password fails at
# once).  stdin goes to CMD.
vm_ssh_pw() {
	( umask 077; printf '%s\n' "$3" > "$T/vm.askpass.pw" )
	printf '#!/bin/sh\ncat "%s"\n' "$T/vm.askpass.pw" > "$T/vm.askpass"
	chmod 0700 "$T/vm.askpass"
	SSH_ASKPASS=$T/vm.askpass SSH_ASKPASS_REQUIRE=force setsid -w \
	    ssh -q -p "$(cat "$T/vm.$1.port")" -o StrictHostKeyChecking=accept-new \
	    -o "UserKnownHostsFile=$T/vm.$1.known_hosts" -o ConnectTimeout=10 \
	    -o LogLevel=ERROR -o PreferredAuthentications=keyboard-interactive \
	    -o PubkeyAuthentication=no -o NumberOfPasswordPrompts=1 \
	    "$2@127.0.0.1" "$4"
}

# vm_pty_passwd NAME USER OLD NEW: as USER (logged in with OLD), run
# passwd(1) on a terminal (ssh -tt, driven by expect): every prompt for the
# current password gets OLD, every prompt for a new one gets NEW.  Prints
# the session's text; the exit status is passwd's.
vm_pty_passwd() {
	VM_PORT=$(cat "$T/vm.$1.port") VM_KNOWN=$T/vm.$1.known_hosts \
	VM_USER=$2 VM_OLD=$3 VM_NEW=$4 expect -f "$TOP/tests/lib/passwd.exp"
}

# vm_console NAME WEAK PASS: for a VM booted with VM_KEY=none VM_CONSOLE=1:
# on its serial console, answer owlet-setup's root password prompt (WEAK
# first, which must be refused, then PASS), log in as root with PASS,
# print the instance's identity between ==ID== and ==END==, power off
# (tests/lib/console.exp).  The whole console session goes to stdout;
# the exit status is 0, or the number of the step that failed.
vm_console() {
	VM_SOCK=$T/vm.$1.sock VM_WEAK=$2 VM_PASS=$3 \
	    expect -f "$TOP/tests/lib/console.exp"
}
