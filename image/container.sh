#!/bin/sh
# image/container.sh: make container.  From the image ($B/image/root and
# its tarball, make image), the cached minbase ($B/cache/rootfs/minbase,
# rootfs.sh minbase) and owlet's packages ($B/deb), writes in $B/image/:
#
#   owlet-bookworm-system.oci/      OCI image layout of the system flavour:
#   owlet-bookworm-system.oci.tar   the image tree (systemd as init; no
#                                   kernel, boot loader or udev), command
#                                   /sbin/init; and its oci-archive
#   owlet-bookworm-base.oci/        the base flavour, for FROM in a
#   owlet-bookworm-base.oci.tar     Containerfile: Debian's minbase, owlet's
#                                   packages and the privilege model of the
#                                   profile (profile.sh --base); no init,
#                                   no sshd, command /bin/bash
#   owlet-bookworm-{system,base}.mtree[.minisig]  seal spec of each
#                                   layer's tree, signed with the image key;
#                                   the trusted comment names the layer's
#                                   digests (uncompressed and gzip)
#   owlet-bookworm-base.audit.json  control --audit of the base flavour
#   owlet-bookworm-system.tar.xz    the system flavour's rootfs: LXC,
#                                   Incus/LXD, machinectl import-tar
#   owlet-bookworm-system.meta.tar.xz  its metadata: metadata.yaml and
#                                   templates/ (Incus, LXD), config and
#                                   config-user (lxc-create -t local)
#   owlet-bookworm_VERSION_amd64.tar.zst  the system rootfs as a Proxmox VE
#                                   container template
#   owlet-bookworm.container.stamp  the inputs of the last build: outputs
#                                   whose inputs did not change are not
#                                   rebuilt
#   container.log                   apt's output and the checks'
#
#   container.sh --tree DIR NAME   the base flavour's pipeline (clean, tar,
#                                  gzip, OCI layout and archive, command
#                                  /bin/bash) on a copy of another root
#                                  (bench/container.sh's stock minbase):
#                                  outputs $B/image/NAME.oci and
#                                  NAME.oci.tar, always rebuilt
#
# Environment: B, DEB_OUT, SOURCE_DATE_EPOCH (default: the last commit's
# time), SEAL_KEY/SEAL_PUB (as make image).
#
# Invariants:
# - Byte-reproducible for one SOURCE_DATE_EPOCH, image, minbase and set
#   of packages: every tarball is image_tar's (sorted, clamped mtimes,
#   numeric owners), gzip runs with -n (no name, no time), xz and zstd
#   with a fixed thread count (their output then depends on the level
#   alone), JSON is written by printf in a fixed order, and every time in
#   it is SOURCE_DATE_EPOCH.
# - The system flavour is the image's tree itself: its layer is the bytes
#   of owlet-bookworm.tar, read under a shared lock on $B/image/lock, so
#   the OCI image, the LXC and Proxmox rootfs and the image tarball are one
#   tree, and owlet-bookworm.mtree describes it.
# - Outputs exist under their final names only complete: the previous
#   build's are removed first, everything is made in container.work/ and
#   renamed into place at the end; the work directory is removed on any
#   exit.
set -eu
prog=container.sh
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

O=$B/image
C=$B/cache/rootfs
NAME=owlet-bookworm
W=$O/container.work
SEAL=$B/bin/seal
tree=
if [ "${1:-}" = --tree ]; then
	[ $# = 3 ] || die "usage: container.sh [--tree DIR NAME]"
	tree=$(cd "$2" 2>/dev/null && pwd -P) || die "$2: no such directory"
	[ -x "$tree/usr/bin/apt-get" ] || die "$tree: not a Debian root"
	case $3 in '' | *[!a-z0-9.-]*) die "--tree: NAME must be [a-z0-9.-]" ;; esac
	NAME=$3
fi

need_root "file owners, chroot, mount namespaces"
need_tool gzip gzip
need_tool xz xz-utils
need_tool zstd zstd
[ -x "$SEAL" ] || die "$SEAL missing (make all)"
image_epoch
image_key

VERSION=$(sed -n '1s/^[^ ]* (\([^)]*\)).*/\1/p' "$top/debian/changelog")
case $VERSION in '' | *[!0-9A-Za-z.+~-]*) die "no version in $top/debian/changelog" ;; esac
REVISION=$(git -C "$top" rev-parse HEAD 2>/dev/null || echo unknown)
if [ "$REVISION" != unknown ] &&
    [ -n "$(git -C "$top" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
	REVISION=$REVISION-dirty
fi
CREATED=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)
PROXMOX=${NAME}_${VERSION}_amd64.tar.zst
SYS=$NAME-system
BASE=$NAME-base
PATH_ENV=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

mkdir -p "$O"
exec 5>>"$O/container.lock"
flock 5
log=$O/container.log

# --- the pieces ------------------------------------------------------------
# sha FILE: its sha256, hex
sha() { sha256sum < "$1" | cut -d' ' -f1; }

# layer TAR DIR: the gzip-compressed layer of TAR as a blob of the layout
# DIR; sets diff_id (the uncompressed tar's digest), digest and size (the
# blob's).
layer() {
	diff_id=$(sha "$1")
	gzip -n -6 -c "$1" > "$2/blobs/layer" || die "gzip of $1 failed"
	blob "$2" layer
	digest=$_b_digest size=$_b_size
}

# blob DIR FILE: move DIR/blobs/FILE to its content address; sets
# _b_digest and _b_size.
blob() {
	_b_digest=$(sha "$1/blobs/$2")
	_b_size=$(stat -c %s "$1/blobs/$2")
	mv "$1/blobs/$2" "$1/blobs/sha256/$_b_digest"
}

# annotations: the OCI annotations of both flavours (JSON members), used
# in the manifest and, as labels, in the image's config, where podman
# inspect shows them.
annotations() {
	printf '"org.opencontainers.image.created":"%s",' "$CREATED"
	printf '"org.opencontainers.image.description":"%s",' "$1"
	printf '"org.opencontainers.image.revision":"%s",' "$REVISION"
	printf '"org.opencontainers.image.title":"%s",' "$2"
	printf '"org.opencontainers.image.version":"%s"' "$VERSION"
}

# oci TAR NAME CMD DESCRIPTION [CONFIG]: the OCI image layout $W/NAME.oci
# (one gzip layer made from TAR, the config with the command CMD, a JSON
# array, and the extra config members CONFIG) and its oci-archive
# $W/NAME.oci.tar.  Sets diff_id and digest (of the layer).
oci() {
	_o=$W/$2.oci
	mkdir -p "$_o/blobs/sha256"
	layer "$1" "$_o"
	_o_ann=$(annotations "$4" "$2")
	printf '{"architecture":"amd64","config":{"Cmd":%s,"Env":["%s"],"Labels":{%s}%s},"created":"%s","history":[{"created":"%s","created_by":"owlet image/container.sh"}],"os":"linux","rootfs":{"diff_ids":["sha256:%s"],"type":"layers"}}' \
	    "$3" "$PATH_ENV" "$_o_ann" "${5:+,$5}" "$CREATED" "$CREATED" "$diff_id" \
	    > "$_o/blobs/config"
	blob "$_o" config
	printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%s},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":"sha256:%s","size":%s}],"annotations":{%s}}' \
	    "$_b_digest" "$_b_size" "$digest" "$size" "$_o_ann" > "$_o/blobs/manifest"
	blob "$_o" manifest
	printf '{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%s,"annotations":{"org.opencontainers.image.ref.name":"%s"}}]}' \
	    "$_b_digest" "$_b_size" "$VERSION" > "$_o/index.json"
	printf '{"imageLayoutVersion":"1.0.0"}' > "$_o/oci-layout"
	chmod -R u=rwX,go=rX "$_o"
	image_tar "$_o" "$W/$2.oci.tar"
}

# base_tar DIR: clean the tree DIR for shipping and make $W/base.tar of it
base_tar() {
	image_clean "$1"
	image_tar "$1" "$W/base.tar"
}

# --- --tree: the pipeline of the base flavour on another root -------------
if [ -n "$tree" ]; then
	image_begin "$log" "$W" "$O/$NAME.oci" "$O/$NAME.oci.tar"
	mkdir -p "$W"
	cp -a "$tree" "$W/base"
	base_tar "$W/base"
	oci "$W/base.tar" "$NAME" '["/bin/bash"]' "$NAME (container.sh --tree)"
	publish "$W/$NAME.oci" "$O/$NAME.oci"
	publish "$W/$NAME.oci.tar" "$O/$NAME.oci.tar"
	note "done in $(($(date +%s) - t0)) s: $O/$NAME.oci.tar ($(du -h "$O/$NAME.oci.tar" | cut -f1))"
	exit 0
fi

# The image (tree, tarball, spec) is read under a shared lock on $O/lock
# for the whole build: no make image replaces it meanwhile.
exec 7>>"$O/lock"
flock -s 7
if [ ! -f "$O/$NAME.tar" ] || [ ! -f "$O/$NAME.mtree.minisig" ] || [ ! -d "$O/root" ]; then
	die "$O/$NAME.tar missing (make image)"
fi
B=$B sh "$here/rootfs.sh" --check minbase ||
	die "$C/minbase missing or out of date (B=$B sh image/rootfs.sh minbase)"
[ -f "$D/stamp" ] || die "no complete build of owlet's packages in $D (make deb)"

# The stamp: every input.  The image's signature names its tarball's
# sha256 and SOURCE_DATE_EPOCH.
inputs="epoch=$SOURCE_DATE_EPOCH version=$VERSION revision=$REVISION
image=$(sha "$O/$NAME.mtree.minisig")
minbase=$(sha "$C/minbase.stamp")
debs=$(sha "$D/stamp")
key=$(sha "$pub")
tools=$( (gzip --version; xz --version; zstd --version; tar --version) 2>&1 | sha256sum | cut -d' ' -f1)
scripts=$( (cat "$0" "$here/lib.sh" "$here/chroot.sh" "$here/apt-install.sh" "$here/profile.sh"
    find "$here/files" -type f | LC_ALL=C sort | xargs cat) | sha256sum | cut -d' ' -f1)"
stamp=$O/$NAME.container.stamp
outputs="$O/$SYS.oci $O/$SYS.oci.tar $O/$BASE.oci $O/$BASE.oci.tar
$O/$SYS.mtree $O/$SYS.mtree.minisig $O/$BASE.mtree $O/$BASE.mtree.minisig
$O/$BASE.audit.json $O/$SYS.tar.xz $O/$SYS.meta.tar.xz $O/$PROXMOX"
current=1
[ -f "$stamp" ] && [ "$(cat "$stamp")" = "$inputs" ] || current=0
for f in $outputs; do [ -e "$f" ] || current=0; done
if [ "$current" = 1 ]; then
	note "$O/$SYS.oci.tar, $BASE.oci.tar, LXC and Proxmox outputs are up to date"
	exit 0
fi

# shellcheck disable=SC2086 # paths without blanks
image_begin "$log" "$W" "$stamp" $outputs "$O"/"${NAME}"_*_amd64.tar.zst
mkdir -p "$W"

# --- the base flavour ------------------------------------------------------
note "base flavour: minbase + owlet's packages (log: $log)"
exec 9>>"$C/lock"
flock -s 9
cp -a "$C/minbase" "$W/base"
flock -u 9
image_debs "$W/base"
# What the privilege model needs besides owlet: the tcb stack's password
# policy (passwdqc) and ping, a facility (set-gid _icmp).
# shellcheck disable=SC2086 # a list of paths without blanks
sh "$here/apt-install.sh" "$W/base" "$log" $debs libpam-passwdqc passwdqc iputils-ping ||
	die "installing owlet's packages into the base flavour failed (log: $log)"
B=$B IMAGE_OUT=$W sh "$here/profile.sh" --base "$W/base" >>"$log" 2>&1 ||
	die "profile.sh --base failed: $(tail -n 1 "$log") (log: $log)"
mv "$W/$NAME.audit.json" "$W/$BASE.audit.json"
base_tar "$W/base"
note "base flavour: OCI image"
oci "$W/base.tar" "$BASE" '["/bin/bash"]' \
    "owlet $VERSION base: Debian 12 with Owl's privilege model (tcb, control, zero set-uid), for FROM"
base_diff=$diff_id base_digest=$digest

# --- the system flavour: the image's tarball --------------------------------
note "system flavour: OCI image, LXC and Proxmox rootfs"
oci "$O/$NAME.tar" "$SYS" '["/sbin/init"]' \
    "owlet $VERSION system: Debian 12 server with Owl's privilege model, systemd as init" \
    '"StopSignal":"SIGRTMIN+3"'
sys_diff=$diff_id sys_digest=$digest
xz -T2 -1 -c "$O/$NAME.tar" > "$W/$SYS.tar.xz" || die "xz failed"
zstd -q -T2 -12 -c "$O/$NAME.tar" > "$W/$PROXMOX" || die "zstd failed"

# --- the specs ---------------------------------------------------------------
# sign FLAVOUR DIFF DIGEST TREE: sign $W/NAME-FLAVOUR.mtree, the trusted
# comment naming the layer's digests, and check it against TREE.
sign() {
	_s=$W/$NAME-$1.mtree
	"$SEAL" sign -s "$key" -c "owlet container spec" \
	    -t "$NAME-$1.mtree layer sha256:$2 gzip sha256:$3 SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH" \
	    -x "$_s.minisig" "$_s" || die "seal sign of $_s failed"
	"$SEAL" verify -P "$pub" -x "$_s.minisig" -f "$_s" -p "$4" >>"$log" 2>&1 ||
		die "the $1 flavour's spec does not verify against $4 (log: $log)"
}
"$SEAL" create -p "$W/base" -o "$W/$BASE.mtree" || die "seal create failed"
sign base "$base_diff" "$base_digest" "$W/base"
cp "$O/$NAME.mtree" "$W/$SYS.mtree"
sign system "$sys_diff" "$sys_digest" "$O/root"

# --- LXC and Incus metadata ---------------------------------------------------
# Incus and LXD read metadata.yaml and templates/; lxc-create -t local
# reads config (config-user for an unprivileged container) and appends it
# to the container's.  The ping sysctl: control's ping facility gives ICMP
# datagram sockets to group _icmp only (its sysctl.d file; LXC lets
# systemd-sysctl set net.* keys itself, podman does not).
icmp=$(awk -F: '$1 == "_icmp" { print $3 }' "$O/root/etc/group")
case $icmp in '' | *[!0-9]*) die "no group _icmp in $O/root/etc/group" ;; esac
M=$W/meta
mkdir -p "$M/templates"
cat > "$M/metadata.yaml" <<EOF
architecture: x86_64
creation_date: $SOURCE_DATE_EPOCH
properties:
  architecture: amd64
  description: owlet $VERSION (Debian 12 bookworm with Owl's privilege model)
  name: owlet-bookworm-$VERSION
  os: debian
  release: bookworm
  serial: "$VERSION"
  variant: owlet
templates:
  /etc/hostname:
    when:
    - create
    - copy
    template: hostname.tpl
EOF
printf '{{ instance.name }}\n' > "$M/templates/hostname.tpl"
{
	echo "# owlet $VERSION: lxc-create -t local -- --metadata $SYS.meta.tar.xz --fstree $SYS.tar.xz"
	echo "lxc.include = LXC_TEMPLATE_CONFIG/common.conf"
	echo "lxc.arch = x86_64"
	echo "# ICMP datagram sockets for group _icmp (set-gid ping)"
	echo "lxc.sysctl.net.ipv4.ping_group_range = $icmp $icmp"
} > "$M/config"
{ cat "$M/config"; echo "lxc.include = LXC_TEMPLATE_CONFIG/userns.conf"; } > "$M/config-user"
chmod -R u=rwX,go=rX "$M"
image_tar "$M" "$W/meta.tar"
xz -T2 -6 -c "$W/meta.tar" > "$W/$SYS.meta.tar.xz" || die "xz failed"

# --- publish -------------------------------------------------------------------
for f in $outputs; do
	publish "$W/${f##*/}" "$f"
done
printf '%s\n' "$inputs" > "$stamp.new"
publish "$stamp.new" "$stamp"
note "done in $(($(date +%s) - t0)) s: $SYS.oci.tar $(du -h "$O/$SYS.oci.tar" | cut -f1)," \
    "$BASE.oci.tar $(du -h "$O/$BASE.oci.tar" | cut -f1), $SYS.tar.xz $(du -h "$O/$SYS.tar.xz" | cut -f1)," \
    "$PROXMOX $(du -h "$O/$PROXMOX" | cut -f1) ($O)"
