# image/: the Debian 12 server image (docs/image.md).
#   make rootfs   cached debootstrap base, $(B)/cache/rootfs/base
#   make image    $(B)/image/: root/, owlet-bookworm.tar, .mtree, .minisig,
#                 from the base and owlet's packages (make deb)
#   make shell    root shell in $(B)/image/root (changes discarded; WRITE=1
#                 keeps them)
#   make boot     boot $(B)/image/root with systemd-nspawn -b
#   make disk     $(B)/image/owlet-bookworm.raw and .qcow2 (bootable; KERNEL=
#                 cloud|generic, DISK_SIZE=2G)
#   make vm       boot the disk with qemu, SSH on localhost:2222 (PORT=,
#                 PERSIST=1 keeps changes)
#   make iso      $(B)/image/owlet-bookworm.iso: the live system with the
#                 installer, hybrid (CD, USB; UEFI, BIOS) (image/iso.sh)
#   make container  $(B)/image/: OCI images of the system and base flavours,
#                 the LXC/Incus rootfs and metadata, the Proxmox template
#                 (image/container.sh; the minbase first, rootfs.sh minbase)
# MIRROR=, SECURITY_MIRROR=, OWLET_EXTRAS=1, SEAL_KEY=, SOURCE_DATE_EPOCH=
# reach the scripts through the environment.
rootfs:
	@B=$(abspath $(B)) sh image/rootfs.sh

# The image installs owlet from make deb's packages (a no-op when they are
# current: mk/deb.sh's stamp); all builds the seal that signs the spec.
image: all rootfs deb
	@B=$(abspath $(B)) DEB_OUT=$(abspath $(DEB_OUT)) sh image/build.sh

shell:
	@B=$(abspath $(B)) sh image/shell.sh shell

boot:
	@B=$(abspath $(B)) sh image/shell.sh boot

disk: image
	@B=$(abspath $(B)) sh image/disk.sh

iso: image
	@B=$(abspath $(B)) DEB_OUT=$(abspath $(DEB_OUT)) sh image/iso.sh

# The base flavour starts from Debian's minbase (a no-op when current).
container: image
	@B=$(abspath $(B)) sh image/rootfs.sh minbase
	@B=$(abspath $(B)) DEB_OUT=$(abspath $(DEB_OUT)) sh image/container.sh

vm:
	@B=$(abspath $(B)) sh image/vm.sh --port $(or $(PORT),2222)
