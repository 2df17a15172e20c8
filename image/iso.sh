#!/bin/sh
# image/iso.sh: make iso.  From the image tree ($B/image/root, make image),
# builds $B/image/owlet-bookworm.iso: a hybrid ISO 9660 image that boots
# from a CD or from a USB stick written with dd, on UEFI (systemd-boot in
# an El Torito EFI image, also a GPT partition) and on legacy BIOS
# (ISOLINUX, an isohybrid MBR), into a live system with the installer
# (owlet-setup install, docs/install.md).  Its contents:
#
#   live/filesystem.squashfs   the system: the image tree plus Debian's
#                              generic kernel, its initramfs, systemd-boot,
#                              esp-update and the recovery and installer
#                              tools; what owlet-setup install copies
#   live/vmlinuz, initrd.img   the kernel and an initramfs with live-boot,
#                              which mounts the squashfs under a RAM-backed
#                              overlay (made in a throw-away overlay of the
#                              system: live-boot is not in the system; the
#                              system's /boot holds the same initramfs)
#   isolinux/                  ISOLINUX, for BIOS
#   boot/efi.img               FAT: systemd-boot, its entry, kernel, initrd
#   debs/                      owlet's packages
#   owlet.pub                  the key that signs the two specs
#   system.mtree[.minisig]     seal spec of the system (the squashfs)
#   iso.mtree[.minisig]        seal spec of every other file of the ISO
#                              (isolinux.bin excepted: xorriso patches it)
#
# Environment: B, SOURCE_DATE_EPOCH (default: the last commit's time),
# SEAL_KEY (image_key), ISO_COMP (squashfs compression: zstd, the default,
# or xz, smaller and slower).
#
# Invariants: as disk.sh's.  Nothing is mounted outside a private mount
# namespace, no loop device is used; the kernel comes from Debian's archive
# through apt; byte-identical for one SOURCE_DATE_EPOCH and one image tree
# (mksquashfs and xorriso with fixed times: SOURCE_DATE_EPOCH, FAT by image_fat); the ISO
# exists under its final name only complete.
set -eu
prog=iso.sh
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

O=$B/image
NAME=owlet-bookworm
W=$O/iso.work
SEAL=$B/bin/seal
tree=$O/root
# Debian's generic kernel (bare metal: the cloud kernel lacks most drivers)
KPKG=linux-image-amd64
# What the live system and the installer need beyond a disk's packages:
# partitioning, FAT, BIOS boot loaders (extlinux for an installed disk on
# a machine without UEFI, ISOLINUX for this ISO).
SYSTEM_PKGS="$KPKG initramfs-tools systemd-boot-efi apparmor fdisk dosfstools
extlinux syslinux-common isolinux zstd"
LIVE_PKGS="live-boot live-boot-initramfs-tools"
# The live system's kernel command line; control adds the hardening
# parameters (facility bootparams) as on a disk.
LIVE_CMDLINE="boot=live live-media-path=/live console=tty0 console=ttyS0,115200"

need_root "file owners, chroot, mount namespaces"
need_tool xorriso xorriso
need_tool mksquashfs squashfs-tools
need_tool mkfs.fat dosfstools
need_tool mcopy mtools
[ -x "$SEAL" ] || die "$SEAL missing (make all)"
case ${ISO_COMP:=zstd} in zstd | xz) ;; *) die "ISO_COMP must be zstd or xz" ;; esac
image_epoch
image_key

mkdir -p "$O"
exec 6>>"$O/iso.lock"
exec 7>>"$O/lock"
flock -s 7
[ -d "$tree" ] && [ -f "$O/$NAME.mtree.minisig" ] || die "$tree missing (make image)"
[ -f "$D/stamp" ] || die "no complete build of owlet's packages in $D (make deb)"

inputs="epoch=$SOURCE_DATE_EPOCH comp=$ISO_COMP
image=$(sha256sum < "$O/$NAME.mtree.minisig" | cut -d' ' -f1)
base=$(sha256sum < "$B/cache/rootfs/stamp" | cut -d' ' -f1)
debs=$(sha256sum < "$D/stamp" | cut -d' ' -f1)
key=$(sha256sum < "$pub" | cut -d' ' -f1)
scripts=$(cat "$0" "$here/lib.sh" "$here/chroot.sh" "$here/apt-install.sh" \
    "$here"/files/disk/* "$here"/files/live/* | sha256sum | cut -d' ' -f1)"
stamp=$O/$NAME.iso.stamp
out=$O/$NAME.iso
current() {
	[ -f "$stamp" ] && [ "$(cat "$stamp")" = "$inputs" ] && [ -f "$out" ]
}
for mode in -s -x; do
	flock "$mode" 6
	if current; then
		note "$out is up to date"
		exit 0
	fi
done

log=$O/iso.log
image_begin "$log" "$W" "$stamp" "$out"
S=$W/system
I=$W/iso
mkdir -p "$I/live" "$I/isolinux" "$I/boot" "$I/debs" "$W/efi/EFI/BOOT" \
    "$W/efi/loader/entries" "$W/efi/live"
note "copying the image tree"
cp -a "$tree" "$S"
flock -u 7

# --- the system: kernel, boot files, tools -------------------------------
# One initramfs, made once, serves the live system and the installed one:
# the generic kernel's (MODULES=most) takes a minute or more to make, most
# of it adding ~750 modules one at a time (a copy and a modinfo each).
# While apt installs the kernel, update-initramfs is diverted to a no-op;
# the initramfs is made with live-boot in an overlay (below) and copied
# into the system too.  On an installed system live-boot's scripts in it
# do nothing (they act with boot=live only), and the first
# update-initramfs there (a kernel or initramfs-tools update) makes a
# plain one: no live-boot package is in the system.
UI=/usr/sbin/update-initramfs
sh "$here/chroot.sh" "$S" dpkg-divert --quiet --local --rename \
    --divert "$UI.owlet-iso" --add "$UI" >>"$log" 2>&1 ||
	die "dpkg-divert of $UI in the system failed (log: $log)"
printf '#!/bin/sh\n# owlet ISO build: the initramfs is made once, later\nexit 0\n' > "$S$UI"
chmod 0755 "$S$UI"
note "apt: $(echo $SYSTEM_PKGS) (log: $log)"
# shellcheck disable=SC2086 # a list of package names
sh "$here/apt-install.sh" "$S" "$log" $SYSTEM_PKGS ||
	die "installing the kernel and tools failed (log: $log)"
kver=$(cd "$S/boot" && ls vmlinuz-* 2>/dev/null | sed 's/^vmlinuz-//')
case $kver in
'' | *[!a-z0-9.+~-]*) die "not exactly one kernel in $S/boot: '$kver' (log: $log)" ;;
esac

# --- the initramfs, with live-boot, in an overlay of the system -----------
# live-boot's initramfs scripts find the medium, mount the squashfs and an
# overlay on tmpfs.  The overlay, where apt installs live-boot, dies with
# its namespace; only the initramfs is kept.
note "apt: $LIVE_PKGS, in an overlay; the initramfs (log: $log)"
mkdir -p "$W/ov/upper" "$W/ov/work" "$W/ov/merged"
unshare -m --propagation private -- sh -c '
	mount -t overlay -o "lowerdir=$1,upperdir=$2/upper,workdir=$2/work" owlet-iso "$2/merged" &&
	sh "$3/apt-install.sh" "$2/merged" "$4" $5 &&
	sh "$3/chroot.sh" "$2/merged" "$7.owlet-iso" -c -k "$6" >>"$4" 2>&1 &&
	sh "$3/chroot.sh" "$2/merged" lsinitramfs "/boot/initrd.img-$6" >"$2/list" &&
	cp "$2/merged/boot/initrd.img-$6" "$2/initrd.img"' _ \
    "$S" "$W/ov" "$here" "$log" "$LIVE_PKGS" "$kver" "$UI" ||
	die "the initramfs failed (log: $log)"
grep -qx 'scripts/live' "$W/ov/list" ||
	die "the initramfs has no live-boot scripts (log: $log)"
rm -f "$S$UI"
sh "$here/chroot.sh" "$S" dpkg-divert --quiet --local --rename --remove "$UI" >>"$log" 2>&1 &&
    [ -x "$S$UI" ] || die "removing the diversion of $UI in the system failed (log: $log)"
cp "$W/ov/initrd.img" "$S/boot/initrd.img-$kver"
cp "$W/ov/initrd.img" "$I/live/initrd.img"
cp "$S/boot/vmlinuz-$kver" "$I/live/vmlinuz"
rm -rf "$W/ov"
image_boot_files "$S"
# The live system's line; the installer writes the installed one.
printf '%s\n' "$LIVE_CMDLINE" > "$S/etc/kernel/cmdline"
# Root may log in over SSH with the password set on the live console
# (docs/install.md); the installer puts the state the answers choose.
"$S/usr/sbin/control" --root "$S" --reapply --quiet >>"$log" 2>&1 &&
    "$S/usr/sbin/control" --root "$S" sshd root-password >>"$log" 2>&1 &&
    "$S/usr/sbin/control" --root "$S" --check >>"$log" 2>&1 ||
	die "control on the system failed (log: $log)"
cmdline=$(cat "$S/etc/kernel/cmdline")
image_clean "$S"

note "seal spec of the system"
"$SEAL" create -p "$S" -o "$I/system.mtree" || die "seal create of the system failed"

note "squashfs ($ISO_COMP)"
# zstd level 9: 1 MiB larger than level 15 (169 against 168 MiB of the
# system's 606 MB) and three times faster (8 s against 26 s on two CPUs).
case $ISO_COMP in
zstd) comp="-comp zstd -Xcompression-level 9" ;;
xz) comp="-comp xz -Xbcj x86" ;;
esac
# shellcheck disable=SC2086 # options
mksquashfs "$S" "$I/live/filesystem.squashfs" -noappend -no-progress -quiet \
    -reproducible \
    -b 1M $comp >>"$log" 2>&1 || die "mksquashfs failed (log: $log)"

# --- boot loaders -----------------------------------------------------------
cp "$S/usr/lib/ISOLINUX/isolinux.bin" "$S/usr/lib/syslinux/modules/bios/ldlinux.c32" \
    "$I/isolinux/"
sed "s|@CMDLINE@|$cmdline|" "$here/files/live/isolinux.cfg" > "$I/isolinux/isolinux.cfg"
cp "$I/live/vmlinuz" "$I/live/initrd.img" "$W/efi/live/"
cp "$S/usr/lib/systemd/boot/efi/systemd-bootx64.efi" "$W/efi/EFI/BOOT/BOOTX64.EFI"
printf 'default owlet-live.conf\ntimeout 3\neditor no\nconsole-mode keep\n' \
    > "$W/efi/loader/loader.conf"
pretty=$(sed -n 's/^PRETTY_NAME=//p' "$S/etc/os-release" | tr -d '"')
printf 'title %s (live)\nlinux /live/vmlinuz\ninitrd /live/initrd.img\noptions %s\n' \
    "${pretty:-owlet}" "$cmdline" > "$W/efi/loader/entries/owlet-live.conf"
efi_kib=$(($(du -sk "$W/efi" | cut -f1) * 11 / 10 + 2048))
serial=$(printf '%s iso-efi' "$SOURCE_DATE_EPOCH" | sha256sum | cut -c1-8)
image_fat "$W/efi" "$I/boot/efi.img" "$efi_kib" "$serial" OWLET-EFI

# --- packages, specs --------------------------------------------------------
# shellcheck disable=SC2086 # a list of package names
image_copy_debs "$I/debs" $IMAGE_PKGS libtcb-dev
cp "$pub" "$I/owlet.pub"
sum_sq=$(sha256sum "$I/live/filesystem.squashfs" | cut -d' ' -f1)
"$SEAL" sign -s "$key" -c "owlet live system spec" \
    -t "system.mtree live/filesystem.squashfs sha256:$sum_sq SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH" \
    -x "$I/system.mtree.minisig" "$I/system.mtree" || die "seal sign failed"
find "$I" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
"$SEAL" create -p "$I" -x iso.mtree -x iso.mtree.minisig -x isolinux/isolinux.bin \
    -o "$W/iso.mtree" || die "seal create of the ISO tree failed"
mv "$W/iso.mtree" "$I/iso.mtree"
"$SEAL" sign -s "$key" -c "owlet ISO spec" \
    -t "iso.mtree $NAME.iso SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH" \
    -x "$I/iso.mtree.minisig" "$I/iso.mtree" || die "seal sign failed"
touch -h -d "@$SOURCE_DATE_EPOCH" "$I" "$I/iso.mtree" "$I/iso.mtree.minisig" \
    "$I/system.mtree.minisig"

# --- the ISO ------------------------------------------------------------------
note "xorriso"
date=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y%m%d%H%M%S00)
xorriso -volume_date uuid "$date" -volume_date all_file_dates "$date" \
    -as mkisofs -o "$W/out.iso" -V OWLET_BOOKWORM -R -iso-level 3 \
    --modification-date="$date" \
    -isohybrid-mbr "$S/usr/lib/ISOLINUX/isohdpfx.bin" \
    -b isolinux/isolinux.bin -c isolinux/boot.cat -no-emul-boot \
    -boot-load-size 4 -boot-info-table \
    -eltorito-alt-boot -e boot/efi.img -no-emul-boot -isohybrid-gpt-basdat \
    "$I" >>"$log" 2>&1 || die "xorriso failed: $(tail -n 1 "$log") (log: $log)"
size=$(stat -c %s "$W/out.iso")
[ "$size" -le $((300 * 1024 * 1024)) ] ||
	note "warning: the ISO is $((size / 1048576)) MiB, over the 300 MiB goal"
publish "$W/out.iso" "$out"
printf '%s\n' "$inputs" > "$stamp.new"
publish "$stamp.new" "$stamp"
note "done in $(($(date +%s) - t0)) s: $out ($((size / 1048576)) MiB, kernel $kver)"
