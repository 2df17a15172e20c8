#!/bin/bash
# make disk (image/disk.sh) read from outside, without booting (the boot is
# tests/vm/disk.t): the layout that UEFI firmware, systemd-boot and the
# initramfs expect, the signed spec, byte-identical rebuilds (with
# OWLET_REBUILD=1), and bad input (one-line errors, nothing under a final
# name).
. "$(dirname "$0")/../lib/root.sh"
. "$(dirname "$0")/../lib/image.sh"
. "$(dirname "$0")/../lib/vm.sh"
need_root
need_plain_build
tmpdir
need_disk
O=$B/image
RAW=$O/owlet-bookworm.raw
QCOW=$O/owlet-bookworm.qcow2

# --- the partition table -------------------------------------------------
dump=$(sfdisk --dump "$RAW" 2>/dev/null)
like "$dump" "^label: gpt" "GPT"
esp=$(grep -i 'type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B' <<<"$dump")
root=$(grep -i 'type=4F68BCE3-E8CD-4DB1-96E7-FBCAF984B709' <<<"$dump")
like "$esp" "start= *2048," "an EFI system partition at 1 MiB"
like "$root" "uuid=" "a root partition of the discoverable root-x86-64 type"
num() { sed -n "s/.*$1= *\([0-9A-Fa-f-]*\).*/\1/p" <<<"$2"; }
esp_start=$(num start "$esp") esp_size=$(num size "$esp")
root_start=$(num start "$root") root_size=$(num size "$root")
root_partuuid=$(num uuid "$root" | tr A-F a-f)

# --- the ESP ---------------------------------------------------------------
dd if="$RAW" of="$T/esp.img" bs=512 skip="$esp_start" count="$esp_size" status=none
export MTOOLS_SKIP_CHECK=1
t "the ESP holds systemd-boot at the removable-media path" \
    mdir -i "$T/esp.img" ::/EFI/BOOT/BOOTX64.EFI
entries=$(mdir -b -i "$T/esp.img" ::/loader/entries 2>/dev/null)
like "$entries" "owlet-[0-9][0-9.-]*-cloud-amd64\.conf" "a Boot Loader Spec entry for the cloud kernel"
entry=$(mtype -i "$T/esp.img" "$(head -n 1 <<<"$entries")" 2>/dev/null)
like "$entry" "options root=PARTUUID=$root_partuuid rw" "... booting the root partition by its PARTUUID"
like "$entry" "console=tty0 console=ttyS0,115200" "... with screen and serial console"
kver=$(sed -n 's/^version //p' <<<"$entry")
t "... whose kernel and initramfs are on the ESP" \
    mdir -i "$T/esp.img" "::/owlet/$kver/initrd"
like "$(mtype -i "$T/esp.img" ::/loader/loader.conf)" "editor no" \
    "loader.conf: no editing of the kernel command line at the boot menu"
t "the ESP's FAT is clean (fsck.fat -n)" fsck.fat -n "$T/esp.img"

# --- the root ----------------------------------------------------------------
dd if="$RAW" of="$T/root.img" bs=1M skip=$((root_start / 2048)) \
    count=$((root_size / 2048)) conv=sparse status=none
t "the root's ext4 is clean (e2fsck -fn)" e2fsck -fn "$T/root.img"
fs_uuid=$(blkid -p -o value -s UUID "$T/root.img")
like "$(debugfs -R 'cat /etc/fstab' "$T/root.img" 2>/dev/null)" \
    "^UUID=$fs_uuid[[:space:]]+/[[:space:]]+ext4[[:space:]]+[^ ]*x-systemd.growfs" \
    "fstab mounts the root by UUID and grows it at boot"
epoch=$(sed -n 's/.*epoch=\([0-9]*\).*/\1/p' "$O/owlet-bookworm.disk.stamp")
st=$(debugfs -R 'stat /etc/passwd' "$T/root.img" 2>/dev/null)
like "$(grep -E '^ *mtime:' <<<"$st")" "0x$(printf '%08x' "$epoch")" \
    "inode times are SOURCE_DATE_EPOCH ($epoch)"
is "$(debugfs -R 'cat /etc/machine-id' "$T/root.img" 2>/dev/null)" "" \
    "machine-id empty: each instance makes its own"
is "$(debugfs -R 'ls -p /etc/ssh' "$T/root.img" 2>/dev/null | grep -c ssh_host_)" 0 \
    "no SSH host key in the image"
like "$(debugfs -R 'ls -p /boot' "$T/root.img" 2>/dev/null)" "vmlinuz-$kver" \
    "the kernel is a package of the root (/boot/vmlinuz-$kver)"
rm -f "$T/root.img" "$T/esp.img"

# --- the spec, the qcow2 -------------------------------------------------------
sig=$(minisign -Vm "$O/owlet-bookworm.disk.mtree" -x "$O/owlet-bookworm.disk.mtree.minisig" \
    -p "$O/owlet.pub" 2>&1)
like "$sig" "Signature and comment signature verified" "the disk's spec is signed by the image key"
sum_raw=$(sha256sum < "$RAW" | cut -d' ' -f1)
like "$sig" "owlet-bookworm.raw sha256:$sum_raw" "... its trusted comment names the raw disk's sha256"
t "the qcow2 holds the same disk (qemu-img compare)" qemu-img compare -q "$RAW" "$QCOW"
sum_qcow=$(sha256sum < "$QCOW" | cut -d' ' -f1)

# --- reproducible; a current disk is not rebuilt ---------------------------------
exec 6<&- 7<&-	# need_disk's shared locks: disk.sh takes them exclusively
out=$(B=$B sh "$TOP/image/disk.sh" 2>&1)
like "$out" "up to date" "make disk with nothing changed rebuilds nothing"
if rebuild_wanted; then
	rm -f "$O/owlet-bookworm.disk.stamp"
	out=$(B=$B sh "$TOP/image/disk.sh" 2>&1)
	ok $? "make disk again from scratch"
	is "$(sha256sum < "$RAW" | cut -d' ' -f1)" "$sum_raw" "... gives a byte-identical raw disk"
	is "$(sha256sum < "$QCOW" | cut -d' ' -f1)" "$sum_qcow" "... and qcow2"
else
	skip "make disk again from scratch: a byte-identical raw disk and qcow2" "OWLET_REBUILD=1 runs it"
fi

# --- bad input --------------------------------------------------------------------
# (another NAME, so that the built disk stays for the tests after this one)
bad() {	# bad DESC REGEX ENV...: disk.sh fails with one line matching REGEX
	_d=$1 _re=$2
	shift 2
	_out=$(env "$@" B="$B" sh "$TOP/image/disk.sh" --tree "$OWLET_IMAGE" owlet-bad 2>&1)
	_rc=$?
	[ "$_rc" -ne 0 ] && [ "$(wc -l <<<"$_out")" -eq 1 ] && grep -Eq -- "$_re" <<<"$_out"
	ok $? "$_d"
	[ "$_rc" -ne 0 ] && [ "$(wc -l <<<"$_out")" -eq 1 ] || diag "rc $_rc: $_out"
}
bad "DISK_SIZE too small: one line naming it" "^disk.sh: DISK_SIZE=300M too small" DISK_SIZE=300M
bad "DISK_SIZE not a size" "^disk.sh: DISK_SIZE=lots: not a size" DISK_SIZE=lots
bad "KERNEL neither cloud nor generic" "^disk.sh: KERNEL must be cloud or generic" KERNEL=rt
mkdir -p "$T/nomtools"
for p in sh env id sha256sum cut sed numfmt du mke2fs debugfs mkfs.fat sfdisk qemu-img \
    mkdir flock dirname readlink cat printf; do
	_p=$(command -v "$p") && ln -sf "$_p" "$T/nomtools/$p"
done
bad "a missing tool names its Debian package" "mcopy not found: install the Debian package mtools" \
    PATH="$T/nomtools"
# An interrupted build: killed while apt installs the kernel.
(B=$B sh "$TOP/image/disk.sh" --tree "$OWLET_IMAGE" owlet-bad >/dev/null 2>&1 &
 pid=$!; sleep 12; kill -TERM "$pid"; wait "$pid")
sleep 1
is "$(ls "$O" | grep -c '^owlet-bad\.\(raw\|qcow2\|disk\.mtree\)')" 0 \
    "nothing under a final name after failures and an interrupted build"
is "$(ls -d "$O/disk.work" 2>/dev/null)" "" "... and no work directory left"

# vm.sh refuses a credential that is not an SSH public key.
printf 'not a key\n' > "$T/notakey.pub"
out=$(B=$B sh "$TOP/image/vm.sh" --key "$T/notakey.pub" --daemon "$T/pid" --serial "$T/s" 2>&1)
like "$out" "notakey.pub: not an SSH public key" "make vm: a key file that is not an SSH public key is refused"
[ ! -e "$T/pid" ]
ok $? "... before qemu starts"
done_testing
