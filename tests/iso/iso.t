#!/bin/bash
# The live ISO and the installer (issue 18), under qemu (TCG when there is
# no KVM), with the harness of tests/vm (tests/lib/vm.sh):
#   - the ISO: under 300 MiB, El Torito images for BIOS and UEFI, a GPT
#     for USB sticks; its two specs verify (seal, the key at its root)
#     against its files and the squashfs's; OWLET_REBUILD=1 also
#     rebuilds it and compares the bytes (about as long as make iso);
#   - UEFI, VM "live": the ISO with a blank disk; root logs in over SSH
#     with the key credential; no set-uid file, no capability, tcb,
#     control --check clean, the recovery tools present; root's password
#     opens nothing until set with owlet-setup, then opens SSH;
#   - interactive owlet-setup install asks, shows the disk and stops
#     unless "yes" is typed;
#   - owlet-setup install --answers refuses a weak root password (with
#     passwdqc's reason), a disk with a mounted partition and a disk too
#     small, each in one line, the disk left as it was; then installs;
#   - VM "inst": the installed disk alone, no key: root logs in with the
#     answers' password, the admin with its key; hostname, swap, fstab;
#     running, no failed unit, no set-uid file, control --check clean;
#     seal verify against the installed baseline reports only first-boot
#     paths, and flags a planted file;
#   - the same installed disk rebooted on legacy BIOS (the answers' bios=yes:
#     extlinux, the GPT MBR), as far as systemd starting from its root;
#   - legacy BIOS, VM "bios": the ISO boots through ISOLINUX and live-boot
#     as far as systemd starting from the squashfs.
# The boot-to-SSH and install times are printed.
. "$(dirname "$0")/../lib/root.sh"
. "$(dirname "$0")/../lib/image.sh"
. "$(dirname "$0")/../lib/vm.sh"
need_root
need_plain_build
need_vm_tools
need_tools "ISO test" xorriso:xorriso unsquashfs:squashfs-tools
tmpdir
need_iso
# The live system boots slower than a disk under TCG (live-boot finds the
# medium, the generic kernel's larger initramfs).
VM_TIMEOUT=${OWLET_ISO_TIMEOUT:-480}
ISO=$OWLET_ISO

PR='Quiet-Harbor-Lamp-42'	# passphrases passwdqc accepts
PL='Amber-Kettle-Window-93'
WEAK='abc123xy'			# too short for owlet's policy

# --- the ISO, without booting it ---------------------------------------------
size=$(stat -c %s "$ISO")
ok $((size <= 300 * 1048576 ? 0 : 1)) "the ISO is under 300 MiB ($((size / 1048576)) MiB)"
out=$(xorriso -indev "$ISO" -report_el_torito plain 2>/dev/null)
like "$out" 'El Torito boot img :   1  BIOS' "El Torito: a BIOS boot image (ISOLINUX)"
like "$out" 'El Torito boot img :   2  UEFI' "El Torito: a UEFI boot image"
out=$(sfdisk -d "$ISO" 2>/dev/null)
like "$out" 'type=ef$' "an MBR with an EFI system partition (written to a USB stick, it boots on UEFI)"
mkdir "$T/iso"
xorriso -osirrox on -indev "$ISO" -extract / "$T/iso" >/dev/null 2>&1
ok $? "xorriso extracts the ISO"
V=$T/iso
is "$(ls "$V/debs" | sed 's/_.*//' | sort | tr '\n' ' ')" \
    "libnss-tcb libpam-tcb libtcb-dev libtcb0 owlet-control owlet-shadow-tcb seal " \
    "owlet's packages at debs/"
out=$("$B/bin/seal" verify -P "$V/owlet.pub" -x "$V/iso.mtree.minisig" -f "$V/iso.mtree" \
    -p "$V" --exclude iso.mtree --exclude iso.mtree.minisig --exclude isolinux/isolinux.bin \
    --exclude isolinux/boot.cat 2>&1)
ok $? "seal verify: every file of the ISO matches its signed spec (iso.mtree)"
[ -z "$out" ] || diag "$(head -n 20 <<<"$out")"
t0=$(date +%s)
unsquashfs -q -n -d "$T/system" "$V/live/filesystem.squashfs" >/dev/null 2>&1
ok $? "unsquashfs of the system ($(($(date +%s) - t0)) s)"
out=$("$B/bin/seal" verify -P "$V/owlet.pub" -x "$V/system.mtree.minisig" -f "$V/system.mtree" \
    -p "$T/system" 2>&1)
ok $? "seal verify: the squashfs matches its signed spec (system.mtree)"
[ -z "$out" ] || diag "$(head -n 20 <<<"$out")"
like "$(sed -n 3p "$V/system.mtree.minisig")" \
    "sha256:$(sha256sum < "$V/live/filesystem.squashfs" | cut -d' ' -f1)" \
    "... its trusted comment names the squashfs's sha256"
is "$(find "$T/system" -xdev -perm /4000 | sed "s|^$T/system||")" "" \
    "the system has no set-uid file"
rm -rf "$T/system" "$V"

if rebuild_wanted; then
	sum=$(sha256sum < "$ISO" | cut -d' ' -f1)
	exec 5<&-
	rm -f "$B/image/owlet-bookworm.iso.stamp"
	t0=$(date +%s)
	B=$B sh "$TOP/image/iso.sh" >/dev/null 2>&1
	ok $? "make iso again from scratch ($(($(date +%s) - t0)) s)"
	is "$(sha256sum < "$ISO" | cut -d' ' -f1)" "$sum" "... gives a byte-identical ISO"
	exec 5<"$B/image/iso.lock"
	flock -s 5
else
	skip "make iso again from scratch: a byte-identical ISO" "OWLET_REBUILD=1 runs it"
fi

# --- UEFI: the live system, with a blank disk ----------------------------------
VM_CDROM=$ISO vm_boot live blank 4G || { ok 1 "qemu starts (live)"; done_testing; }
vm_wait_ssh live
ok $? "the live system (UEFI): root logs in over SSH with the key given as a credential"
diag "live boot to SSH: $VM_BOOT_SECONDS s"
out=$(vm_ssh live 'findmnt -no FSTYPE /; findmnt -no FSTYPE /run/live/rootfs/filesystem.squashfs')
is "$out" "overlay${nl}squashfs" "its root: an overlay over the squashfs"
out=$(vm_ssh live 'systemctl is-system-running; systemctl --failed --plain --no-legend')
is "$out" running "running, no failed unit"
vm_no_setuid live
out=$(vm_ssh live 'control --check >/dev/null; echo rc=$?; ls /etc/tcb/root/shadow; grep -c tcb /etc/nsswitch.conf')
re_ok "$out" "^rc=0${nl}/etc/tcb/root/shadow${nl}[1-9]\$" "control --check clean, tcb in use"
out=$(vm_ssh live 'for c in sfdisk fdisk mkfs.ext4 e2fsck mkfs.fat seal owlet-setup extlinux; do command -v $c >/dev/null || echo "missing $c"; done')
is "$out" "" "recovery tools: partitioning, file systems, seal, owlet-setup, extlinux"
vm_ssh_pw live root "$PL" true 2>/dev/null
ok $((! $?)) "root's password opens no SSH session before it is set"
vm_ssh live "printf '%s\n' '$PL' | owlet-setup --stdin root-password >/dev/null"
ok $? "owlet-setup root-password on the live system"
is "$(vm_ssh_pw live root "$PL" 'id -un' 2>/dev/null)" root "... then root logs in over SSH with it"

# --- the installer refuses bad answers ---------------------------------------------
answers() {	# NAME KEY=VALUE...: an answers file in the VM, mode 0600
	_n=$1
	shift
	printf '%s\n' "$@" | vm_ssh live "umask 077; cat > /run/$_n.answers"
}
blank='wipefs -n /dev/vda | wc -l'
answers weak disk=/dev/vda "root_password=$WEAK"
out=$(vm_ssh live 'owlet-setup install --answers /run/weak.answers 2>&1; echo rc=$?')
like "$out" "weak password for root: " "a weak root password in the answers: passwdqc's reason"
like "$out" "^owlet-install: password: root_password refused" "... one line naming the step"
like "$out" "rc=1" "... exit 1"
is "$(vm_ssh live "$blank")" 0 "... the disk left blank"
answers big disk=/dev/vda "root_password=$PR" swap=8G
out=$(vm_ssh live 'owlet-setup install --answers /run/big.answers 2>&1; echo rc=$?')
re_ok "$out" "^owlet-install: disk: /dev/vda: 4096 MiB, too small: the system needs [0-9]+ MiB${nl}rc=1\$" \
    "a disk too small (8 GiB swap on 4 GiB): refused in one line"
out=$(VM_PORT=$(cat "$T/vm.live.port") VM_KNOWN=$T/vm.live.known_hosts VM_KEY=$T/vm.key \
    VM_DISK=/dev/vda expect -f "$TOP/tests/iso/interactive.exp" 2>&1)
rc=$?
like "$out" "owlet-install: confirm: not confirmed" "interactive: the disk is shown, and only 'yes' erases it"
is "$rc" 1 "... exit 1"
is "$(vm_ssh live "$blank")" 0 "... the disk left blank"
vm_ssh live 'printf "label: gpt\n,\n" | sfdisk -q /dev/vda >/dev/null && mkfs.ext4 -q /dev/vda1 &&
	mkdir -p /mnt/busy && mount /dev/vda1 /mnt/busy'
answers busy disk=/dev/vda "root_password=$PR"
out=$(vm_ssh live 'owlet-setup install --answers /run/busy.answers 2>&1; echo rc=$?; mountpoint -q /mnt/busy && echo still mounted; umount /mnt/busy')
re_ok "$out" "^owlet-install: disk: /dev/vda1 is mounted on /mnt/busy: unmount it first${nl}rc=1${nl}still mounted\$" \
    "a disk with a mounted partition: refused in one line, left mounted"
out=$(vm_ssh live 'chmod 644 /run/busy.answers; owlet-setup install --answers /run/busy.answers 2>&1; echo rc=$?')
re_ok "$out" "readable by others .*chmod 600${nl}rc=1\$" "an answers file others may read: refused"
answers nodisk "root_password=$PR"
out=$(vm_ssh live 'owlet-setup install --answers /run/nodisk.answers 2>&1; echo rc=$?')
re_ok "$out" "no disk= .*${nl}rc=1\$" "an answers file must name the disk"

# --- the installation -------------------------------------------------------------
vm_ssh live 'cat > /run/ops.pub' < "$T/vm.key.pub"
answers good disk=/dev/vda hostname=owlet-inst "root_password=$PR" root_ssh=password \
    admin=ops admin_key=/run/ops.pub swap=256M bios=yes
t0=$(date +%s)
# each line of the installer's as it comes, with its time: the steps' durations
out=$(vm_ssh live 'owlet-setup install --answers /run/good.answers 2>&1; echo rc=$?' |
    while IFS= read -r l; do
	printf '%s\n' "$l"
	printf '%s %s\n' "$EPOCHSECONDS" "$l" >> "$T/install.times"
    done)
like "$out" "rc=0\$" "owlet-setup install --answers: done ($(($(date +%s) - t0)) s)"
[ "$(tail -n 1 <<<"$out")" = rc=0 ] || diag "$out"
diag "install steps (s): $(awk -v t="$t0" -v w=start '/^[0-9]+ (owlet-install: |rc=)/ {
	printf "%s %d; ", w, $1 - t; t = $1; w = $3 }' "$T/install.times")"
like "$out" "baseline's public key: " "... it prints the baseline's public key"
grep -q "$PR" <<<"$out"
ok $((! $?)) "... and never the password"
out=$(vm_ssh live 'sfdisk -d /dev/vda | grep -c "^/dev/vda"; findmnt -rn | grep -c /dev/vda || :')
is "$out" "3${nl}0" "three partitions (ESP, swap, root), nothing left mounted"
vm_stop live
ok $? "the live system powers off"

# --- the installed disk, alone ---------------------------------------------------
VM_KEY=none vm_boot inst "$T/vm.live.qcow2" || { ok 1 "qemu starts (inst)"; done_testing; }
VM_SSH_USER=ops vm_wait_ssh inst
ok $? "the installed disk boots; the admin 'ops' logs in with its key"
diag "installed disk boot to SSH: $VM_BOOT_SECONDS s"
is "$(vm_ssh_pw inst root "$PR" 'id -un' 2>/dev/null)" root "root logs in over SSH with the answers' password"
export VM_SSH_USER=ops
out=$(vm_ssh inst 'id -u; hostname; systemctl is-system-running; systemctl --failed --plain --no-legend | wc -l')
is "$out" "0${nl}owlet-inst${nl}running${nl}0" "ops is uid 0; hostname owlet-inst; running, no failed unit"
out=$(vm_ssh inst 'swapon --noheadings --show=TYPE; findmnt -no SOURCE,FSTYPE /boot/efi | sed "s/[0-9]* / /"; grep -c "^UUID=" /etc/fstab')
is "$out" "partition${nl}/dev/vda vfat${nl}3" "swap on, the ESP mounted, fstab by UUID (root, ESP, swap)"
out=$(vm_ssh inst 'grep -c "^	append initrd=/initrd.img root=PARTUUID=[^ ]* .*$(cat /etc/kernel/cmdline | cut -d" " -f2-)" /boot/extlinux/extlinux.conf')
is "$out" 1 "bios=yes: /boot/extlinux/extlinux.conf, made by esp-update from /etc/kernel/cmdline"
vm_no_setuid inst
out=$(vm_ssh inst 'control --check >/dev/null; echo rc=$?; control sshd; control bootparams')
is "$out" "rc=0${nl}root-password${nl}hardened" "control --check clean; sshd root-password (the answers'), bootparams hardened"
S=/var/lib/owlet/seal
vm_seal_check inst "the installed baseline" $S/baseline.pub $S/baseline.mtree.minisig \
    $S/baseline.mtree var/lib/owlet/seal
vm_stop inst
ok $? "the installed system powers off"

# --- the same disk on a legacy-BIOS machine (bios=yes: extlinux too) -------------------
# Booted as far as systemd starting from the installed root with its host
# name (the rest of the boot is the one checked above, over UEFI).
VM_FIRMWARE=bios VM_KEY=none vm_boot inst "$T/vm.live.qcow2" || { ok 1 "qemu starts (inst, BIOS)"; done_testing; }
vm_wait_serial inst 'systemd[1]: Hostname set to <owlet-inst>.'
ok $? "the installed disk boots on legacy BIOS too (extlinux: the kernel, the initramfs, systemd from the installed root, $VM_BOOT_SECONDS s)"
vm_kill inst	# not booted again: no clean power-off needed
unset VM_SSH_USER

# --- legacy BIOS: the live system from the ISO ----------------------------------------
# Booted as far as systemd starting from the squashfs (the live initramfs
# found the medium on the BIOS path: ISOLINUX, the kernel, live-boot);
# the rest of the live boot is the one checked above, over UEFI.
VM_FIRMWARE=bios VM_CDROM=$ISO vm_boot bios blank 64M ||
	{ ok 1 "qemu starts (bios)"; done_testing; }
vm_wait_serial bios 'systemd[1]: Hostname set to <owlet>.'
ok $? "legacy BIOS: the ISO boots the live system (the kernel, live-boot, systemd from the squashfs, $VM_BOOT_SECONDS s)"
grep -q 'ISOLINUX' "$T/vm.bios.serial"
ok $? "... through ISOLINUX"
grep -qF 'on "/run/live/rootfs/filesystem.squashfs" via' "$T/vm.bios.serial"
ok $? "... and live-boot's initramfs, which mounted the squashfs from the medium"
vm_kill bios	# not booted further: no clean power-off needed

done_testing
