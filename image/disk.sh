#!/bin/sh
# image/disk.sh: make disk.  From the image tree ($B/image/root, make
# image), builds a bootable disk in $B/image/:
#   owlet-bookworm.raw     GPT: an EFI system partition (systemd-boot, a
#                          Boot Loader Spec entry per kernel) and an ext4
#                          root; the root grows to fill the disk at first
#                          boot
#   owlet-bookworm.qcow2   the same, compressed qcow2
#   owlet-bookworm.disk.mtree[.minisig]  seal spec of the disk's root (the
#                          image tree plus kernel and boot files), signed
#                          like the image's; the trusted comment names the
#                          raw disk's sha256
#
#   disk.sh --tree DIR NAME   the same pipeline on another root tree (the
#                             stock Debian disk of bench/boot.sh): outputs
#                             $B/image/NAME.*, always rebuilt
#
# Environment: B, KERNEL (cloud: linux-image-cloud-amd64, the default;
# generic: linux-image-amd64, for bare metal), DISK_SIZE (default 2G),
# SOURCE_DATE_EPOCH (default: the last commit's time).
#
# Invariants:
# - Nothing is mounted outside a private mount namespace, no loop device is
#   used, and the host's /dev is not touched: the file systems are made in
#   plain files (mke2fs -d, mkfs.fat + mcopy) and placed into the disk with
#   dd, the partition table written by sfdisk on the plain file.
# - The kernel and initramfs are installed inside a copy of the image tree
#   through apt, from Debian's archive (so the kernel gets Debian's
#   updates); the image tree itself (the rootfs tarball's) stays
#   kernel-free.
# - Byte-reproducible for one SOURCE_DATE_EPOCH and one image tree: file
#   system UUIDs, serials and partition GUIDs derive from SOURCE_DATE_EPOCH
#   and KERNEL, every inode time is SOURCE_DATE_EPOCH, mkfs tools run under
#   their fake-time variables, and the ESP is filled in sorted order.
# - Outputs exist under their final names only complete: both are removed
#   first and renamed into place at the end; the work directory is removed
#   on any exit.
set -eu
prog=disk.sh
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

O=$B/image
NAME=owlet-bookworm
tree=$O/root
if [ "${1:-}" = --tree ]; then
	[ $# = 3 ] || die "usage: disk.sh [--tree DIR NAME]"
	tree=$(cd "$2" 2>/dev/null && pwd -P) || die "$2: no such directory"
	case $3 in '' | *[!a-z0-9.-]*) die "--tree: NAME must be [a-z0-9.-]" ;; esac
	NAME=$3
fi
W=$O/disk.work
SEAL=$B/bin/seal

need_root "file owners, chroot, mount namespaces"
need_tool mke2fs e2fsprogs
need_tool debugfs e2fsprogs
need_tool mkfs.fat dosfstools
need_tool mcopy mtools
need_tool mmd mtools
need_tool sfdisk fdisk
need_tool qemu-img qemu-utils
[ -x "$SEAL" ] || die "$SEAL missing (make all)"
image_epoch
image_key

case ${KERNEL:=cloud} in
cloud) kpkg=linux-image-cloud-amd64 ;;
generic) kpkg=linux-image-amd64 ;;
*) die "KERNEL must be cloud or generic, not '$KERNEL'" ;;
esac
DISK_SIZE=${DISK_SIZE:-2G}
disk_bytes=$(numfmt --from=iec "$DISK_SIZE" 2>/dev/null) ||
	die "DISK_SIZE=$DISK_SIZE: not a size (like 2G or 3072M)"
MiB=1048576
ESP_MIB=256
# Room the kernel, its modules and initramfs take in the root (cloud:
# about 130 MiB; generic: about 450), for the early size check.
case $KERNEL in cloud) kernel_mib=130 ;; generic) kernel_mib=450 ;; esac

mkdir -p "$O"
exec 6>>"$O/disk.lock"
flock -s 6	# exclusive once a rebuild is known to be needed (below)
# The image tree is read under a shared lock on $O/lock: no make image
# replaces it while it is copied.
exec 7>>"$O/lock"
flock -s 7
owlet=0
[ "$tree" != "$O/root" ] || owlet=1	# else a stock root (bench/boot.sh)
if [ "$owlet" = 1 ]; then
	[ -d "$tree" ] && [ -f "$O/owlet-bookworm.mtree.minisig" ] ||
		die "$tree missing (make image)"
	image_id=$(sha256sum < "$O/owlet-bookworm.mtree.minisig" | cut -d' ' -f1)
else
	[ -x "$tree/usr/bin/apt-get" ] || die "$tree: not a Debian root"
	image_id=none	# another tree: no stamp, always rebuilt
fi

# The stamp: every input of the disk.  The image's signature names its
# tarball's sha256 and SOURCE_DATE_EPOCH; the base's stamp, the apt lists
# the kernel is chosen from.  A disk whose stamp matches is not rebuilt.
inputs="kernel=$KERNEL size=$DISK_SIZE epoch=$SOURCE_DATE_EPOCH
image=$image_id
base=$(sha256sum < "$B/cache/rootfs/stamp" | cut -d' ' -f1)
key=$(sha256sum < "$pub" | cut -d' ' -f1)
scripts=$(cat "$0" "$here/lib.sh" "$here/chroot.sh" "$here/apt-install.sh" "$here/conf/mke2fs.conf" \
    "$here"/files/disk/* | sha256sum | cut -d' ' -f1)"
stamp=$O/$NAME.disk.stamp
current() {
	[ "$image_id" != none ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$inputs" ] &&
	    [ -f "$O/$NAME.raw" ] && [ -f "$O/$NAME.qcow2" ] &&
	    [ -f "$O/$NAME.disk.mtree.minisig" ]
}
# Checked under a shared lock (tests that boot the disk hold one and may
# run side by side), then again under the exclusive one: not atomic.
for mode in -s -x; do
	flock "$mode" 6
	if current; then
		note "$O/$NAME.raw and .qcow2 are up to date"
		exit 0
	fi
done

# need_mib KIB: the root partition's minimum for a tree of KIB
need_mib() { echo $(($1 * 5 / 4 / 1024 + 128)); }
root_mib=$((disk_bytes / MiB - 1 - ESP_MIB - 1))
early=$(need_mib $(($(du -sxk "$tree" | cut -f1) + kernel_mib * 1024)))
[ "$root_mib" -ge "$early" ] ||
	die "DISK_SIZE=$DISK_SIZE too small: the root needs about ${early} MiB, the disk leaves ${root_mib} MiB"

log=$O/disk.log
image_begin "$log" "$W" "$stamp" "$O/$NAME.raw" "$O/$NAME.qcow2" \
    "$O/$NAME.disk.mtree" "$O/$NAME.disk.mtree.minisig"
mkdir -p "$W"
R=$W/root
note "copying the image tree"
cp -a "$tree" "$R"
flock -u 7

# uuid WHAT: a UUID (version 4 layout) that is the same for every build
# of this NAME with this SOURCE_DATE_EPOCH and KERNEL, and differs
# between WHATs (and between disks of other NAMEs).
uuid() {
	printf '%s %s %s %s' "$NAME" "$SOURCE_DATE_EPOCH" "$KERNEL" "$1" | sha256sum |
	    sed -E 's/^(.{8})(.{4}).(.{3}).(.{3})(.{12}).*/\1-\2-4\3-8\4-\5/'
}
root_uuid=$(uuid root-fs)
root_partuuid=$(uuid root-part)
esp_partuuid=$(uuid esp-part)
disk_uuid=$(uuid disk)
esp_serial=$(uuid esp-fs | cut -c1-8)
esp_fsuuid=$(printf '%s' "$esp_serial" | tr a-f A-F | sed 's/^\(....\)/\1-/')

# --- the kernel and the boot files, inside the copy ---------------------
# AppArmor as Debian installs it (the kernel recommends it, and Debian's
# kernel enables the LSM): apparmor.service loads Debian's profiles at
# boot; its compiled profile cache under /var/cache/apparmor is each
# instance's own (a first-boot path of the seal spec).
note "apt: $kpkg, initramfs-tools, systemd-boot-efi, apparmor (log: $log)"
sh "$here/apt-install.sh" "$R" "$log" "$kpkg" initramfs-tools systemd-boot-efi apparmor ||
	die "installing the kernel failed (log: $log)"
ls "$R"/boot/vmlinuz-* >/dev/null 2>&1 || die "no kernel in $R/boot after apt (log: $log)"

image_boot_files "$R"
# The root partition and file system grow to fill the virtual disk at
# first boot (systemd-repart, systemd-growfs via x-systemd.growfs).  Not
# on the live ISO (an overlay) nor from the installer (it sizes the
# partition to the disk).
install -D -m 0644 "$here/files/disk/repart.conf" "$R/etc/repart.d/50-root.conf"
sed -e "s/@ROOT_UUID@/$root_uuid/" -e "s/@ESP_UUID@/$esp_fsuuid/" \
    "$R/usr/lib/owlet/fstab.in" > "$R/etc/fstab"
printf 'root=PARTUUID=%s rw console=tty0 console=ttyS0,115200\n' "$root_partuuid" \
    > "$R/etc/kernel/cmdline"
# The owlet profile's choices that need the disk's own files: the mounts
# of /proc, /tmp and /dev/shm (fstab, written above) and the kernel
# hardening parameters (/etc/kernel/cmdline, which the image has not):
# control --defaults recorded them when it built the image, and puts
# them in place now, before the boot entries are made from the line.
if [ "$owlet" = 1 ]; then
	"$R/usr/sbin/control" --root "$R" --reapply --quiet >>"$log" 2>&1 &&
	    "$R/usr/sbin/control" --root "$R" --check >>"$log" 2>&1 ||
		die "control --reapply on the disk's root failed (log: $log)"
fi
# The ESP's contents, made by the same program that keeps it current on
# the running system: written to $R/boot/efi, then moved out of the root.
mkdir -p "$R/boot/efi"
sh "$here/chroot.sh" "$R" /usr/lib/owlet/esp-update --build /boot/efi >>"$log" 2>&1 ||
	die "esp-update failed: $(tail -n 1 "$log") (log: $log)"
mv "$R/boot/efi" "$W/esp"
mkdir -m 0700 "$R/boot/efi"
if [ "$owlet" = 1 ]; then
	image_clean "$R"
else
	image_clean "$R" --keep-host-keys	# a stock root: its keys stay
fi

# ext4's lost+found (mke2fs keeps this one), so that the spec lists it.
mkdir -m 0700 "$R/lost+found"
"$SEAL" create -p "$R" -o "$W/disk.mtree" || die "seal create failed"

# --- sizes ---------------------------------------------------------------
# The root partition takes what the ESP leaves (1 MiB alignment in front,
# the backup GPT at the end); it must hold the tree with room to work.
used_kib=$(du -sxk "$R" | cut -f1)
need=$(need_mib "$used_kib")
[ "$root_mib" -ge "$need" ] ||
	die "DISK_SIZE=$DISK_SIZE too small: the root needs ${need} MiB, the disk leaves ${root_mib} MiB"

# --- root file system ----------------------------------------------------
note "ext4 root ($root_mib MiB, $((used_kib / 1024)) MiB used)"
export E2FSPROGS_FAKE_TIME=$SOURCE_DATE_EPOCH
MKE2FS_CONFIG=$here/conf/mke2fs.conf mke2fs -q -F -t ext4 -L owlet-root \
    -U "$root_uuid" -E "hash_seed=$root_uuid,root_owner=0:0" \
    -d "$R" "$W/root.img" "${root_mib}M" >>"$log" 2>&1 ||
	die "mke2fs failed: $(tail -n 1 "$log") (log: $log)"
# mke2fs -d copies every file's atime, ctime and mtime from the tree: set
# them all to SOURCE_DATE_EPOCH (debugfs quotes with "", so a path holding
# one, or a newline, is refused).
paths=$W/paths
(cd "$R" && find . -xdev) | sed 's|^\.||; s|^$|/|' > "$paths"
if grep -q '"' "$paths"; then
	die "a path in the root holds a double quote: $(grep -m1 '"' "$paths")"
fi
awk -v t="@$SOURCE_DATE_EPOCH" '{
	for (f = 1; f <= 3; f++)
		printf "sif \"%s\" %s %s\n", $0, (f == 1 ? "atime" : f == 2 ? "ctime" : "mtime"), t
}' "$paths" > "$W/times.debugfs"
debugfs -w -f "$W/times.debugfs" "$W/root.img" >"$W/debugfs.out" 2>&1 ||
	die "debugfs failed: $(tail -n 1 "$W/debugfs.out")"
if grep -v '^debugfs' "$W/debugfs.out" | grep -q .; then
	die "debugfs: $(grep -v '^debugfs' "$W/debugfs.out" | head -n 1)"
fi
e2fsck -fn "$W/root.img" >>"$log" 2>&1 || die "e2fsck finds the new root damaged (log: $log)"

# --- EFI system partition ------------------------------------------------
note "ESP ($ESP_MIB MiB, FAT32)"
image_fat "$W/esp" "$W/esp.img" $((ESP_MIB * 1024)) "$esp_serial" OWLET-ESP 32

# --- the disk --------------------------------------------------------------
note "GPT disk ($DISK_SIZE)"
truncate -s "$disk_bytes" "$W/disk.raw"
esp_start=2048
esp_sectors=$((ESP_MIB * 2048))
root_start=$((esp_start + esp_sectors))
root_sectors=$((root_mib * 2048))
sfdisk -q --no-reread --no-tell-kernel "$W/disk.raw" >>"$log" 2>&1 <<EOF ||
label: gpt
label-id: $disk_uuid
unit: sectors
first-lba: 2048

start=$esp_start, size=$esp_sectors, type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B, uuid=$esp_partuuid, name="esp"
start=$root_start, size=$root_sectors, type=4F68BCE3-E8CD-4DB1-96E7-FBCAF984B709, uuid=$root_partuuid, name="root"
EOF
	die "sfdisk failed: $(tail -n 1 "$log") (log: $log)"
dd if="$W/esp.img" of="$W/disk.raw" bs=1M seek=$((esp_start / 2048)) \
    conv=notrunc,sparse status=none || die "dd of the ESP failed"
dd if="$W/root.img" of="$W/disk.raw" bs=1M seek=$((root_start / 2048)) \
    conv=notrunc,sparse status=none || die "dd of the root failed"

note "qcow2"
qemu-img convert -f raw -O qcow2 -c "$W/disk.raw" "$W/disk.qcow2" >>"$log" 2>&1 ||
	die "qemu-img convert failed (log: $log)"

sum=$(sha256sum "$W/disk.raw" | cut -d' ' -f1)
"$SEAL" sign -s "$key" -c "owlet disk spec" \
    -t "$NAME.disk.mtree $NAME.raw sha256:$sum SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH KERNEL=$KERNEL" \
    -x "$W/disk.mtree.minisig" "$W/disk.mtree" || die "seal sign failed"
publish "$W/disk.mtree" "$O/$NAME.disk.mtree"
publish "$W/disk.mtree.minisig" "$O/$NAME.disk.mtree.minisig"
publish "$W/disk.raw" "$O/$NAME.raw"
publish "$W/disk.qcow2" "$O/$NAME.qcow2"
if [ "$image_id" != none ]; then
	printf '%s\n' "$inputs" > "$stamp.new"
	publish "$stamp.new" "$stamp"
fi
note "done in $(($(date +%s) - t0)) s: $O/$NAME.raw ($DISK_SIZE)," \
    "$O/$NAME.qcow2 ($(du -h "$O/$NAME.qcow2" | cut -f1)), kernel $(ls "$R/boot" | sed -n 's/^vmlinuz-//p' | tr '\n' ' ')"
