#!/bin/bash
# make container's system flavour booted, and its LXC, Incus and Proxmox
# outputs read as their importers read them (issue 16):
#   - LXC: Debian's lxc-local template (lxc-create -t local, from the
#     liblxc-common package, fetched on the host) unpacks the metadata and
#     the rootfs .tar.xz into a container directory and writes its config;
#   - Incus/LXD: metadata.yaml's fields and templates;
#   - Proxmox VE: the template's name, zstd, the tree at the tarball's
#     root, unpacked with the options of pct restore, Debian 12 found;
#   - the rootfs tarballs decompress to the image tarball, the OCI
#     layer's diff_id;
#   - systemd-nspawn -b boots the tree lxc-local unpacked (what
#     machinectl import-tar unpacks too) to is-system-running = running;
#   - podman --systemd=always boots the system flavour's OCI image to
#     running.
. "$(dirname "$0")/../lib/root.sh"
. "$(dirname "$0")/../lib/image.sh"
. "$(dirname "$0")/../lib/container.sh"
container_ns "$@"
O=$B/image
SYS=$O/owlet-bookworm-system
version=$(sed -n '1s/^[^ ]* (\([^)]*\)).*/\1/p' "$TOP/debian/changelog")
tarsum=$(sha256sum < "$O/owlet-bookworm.tar" | cut -d' ' -f1)

# --- one tree, four containers ---------------------------------------------------
is "$(xz -dc "$SYS.tar.xz" | sha256sum | cut -d' ' -f1)" "$tarsum" \
    "the LXC rootfs (.tar.xz) is the image tarball"
proxmox=$O/owlet-bookworm_${version}_amd64.tar.zst
is "$(zstd -qdc "$proxmox" | sha256sum | cut -d' ' -f1)" "$tarsum" \
    "the Proxmox template (.tar.zst) is the image tarball"
mkdir -p "$T/oci"
tar -xf "$SYS.oci.tar" -C "$T/oci"
diff_id=$(sed 's/.*"diff_ids":\["sha256:\([0-9a-f]*\)".*/\1/' "$(oci_blob "$T/oci" config)")
is "$diff_id" "$tarsum" "the system OCI image's layer is the image tarball (its diff_id)"
rm -rf "$T/oci"

# --- Proxmox VE --------------------------------------------------------------------
# pvesm lists templates named NAME_VERSION_ARCH.tar.(gz|xz|zst|bz2); pct
# restore unpacks them with these options and finds the distribution in
# /etc/debian_version.
like "${proxmox##*/}" '^[a-z0-9-]+_[0-9][0-9a-z.+~-]*_amd64\.tar\.zst$' "Proxmox: the template's name (${proxmox##*/})"
t "Proxmox: zstd -t" zstd -qt "$proxmox"
like "$(tar --zstd -tf "$proxmox" | head -n 3 | tr '\n' ' ')" '^\./ \./bin ' \
    "Proxmox: the root is the tarball's root (./bin, ./etc, ...)"
mkdir -p "$T/pve"
tar -xpf "$proxmox" --zstd --totals --one-file-system --sparse --numeric-owner --acls \
    --xattrs --xattrs-include=user.* --xattrs-include=security.capability \
    --warning=no-file-ignored --warning=no-xattr-write -C "$T/pve" >/dev/null 2>"$T/pve.err"
ok $? "Proxmox: unpacked with pct restore's tar options"
grep -v '^Total bytes read' "$T/pve.err" | head -n 5 | while read -r l; do diag "$l"; done
like "$(cat "$T/pve/etc/debian_version")" '^12\.' "Proxmox: /etc/debian_version says Debian 12"
is "$(readlink "$T/pve/sbin/init")" "/lib/systemd/systemd" "Proxmox: /sbin/init is systemd"
rm -rf "$T/pve"

# --- LXC (lxc-create -t local) and Incus/LXD metadata -----------------------------
mkdir -p "$T/meta"
tar -xJf "$SYS.meta.tar.xz" -C "$T/meta"
meta=$T/meta/metadata.yaml
like "$(grep '^architecture:' "$meta")" '^architecture: x86_64$' "Incus: metadata.yaml names the architecture"
epoch=$(sed -n 's/.*SOURCE_DATE_EPOCH=\([0-9]*\).*/\1/p' "$SYS.mtree.minisig")
like "$(grep '^creation_date:' "$meta")" "^creation_date: $epoch\$" "... the creation date (SOURCE_DATE_EPOCH)"
like "$(sed -n '/^properties:/,/^[a-z]/p' "$meta" | tr '\n' ' ')" \
    "os: debian .*release: bookworm" "... and os and release properties"
tpl=$(sed -n 's/^ *template: //p' "$meta")
t "... whose template ($tpl) is in templates/" test -f "$T/meta/templates/$tpl"
is "$(cat "$T/meta/templates/$tpl")" "{{ instance.name }}" "... and writes the instance's name to /etc/hostname"

# lxc-local: the template script of Debian's liblxc-common, fetched on the
# host and read from its .deb (never installed: the package has a set-uid
# helper).
debs=$B/cache/debs
mkdir -p "$debs"
[ -n "$(find "$debs" -maxdepth 1 -name 'liblxc-common_*.deb')" ] ||
	(cd "$debs" && apt-get download -qq liblxc-common >/dev/null 2>&1) || :
lxcdeb=$(find "$debs" -maxdepth 1 -name 'liblxc-common_*.deb' | head -n 1)
rootfs=$T/lxc/rootfs
if [ -n "$lxcdeb" ]; then
	mkdir -p "$T/lxcpkg" "$rootfs"
	dpkg-deb --fsys-tarfile "$lxcdeb" | tar -x -C "$T/lxcpkg" \
	    ./usr/share/lxc/templates/lxc-local ./usr/share/lxc/config
	: > "$T/lxc/config"
	out=$(LXC_TEMPLATE_CONFIG=$T/lxcpkg/usr/share/lxc/config \
	    sh "$T/lxcpkg/usr/share/lxc/templates/lxc-local" --name owlet1 --path "$T/lxc" \
	    --rootfs "$rootfs" --metadata "$SYS.meta.tar.xz" --fstree "$SYS.tar.xz" 2>&1)
	rc=$?
	ok $rc "LXC: lxc-local (lxc-create -t local) takes the metadata and the rootfs"
	[ "$rc" = 0 ] || diag "$out"
	conf=$(cat "$T/lxc/config")
	like "$conf" "^lxc.include = .*/config/common.conf\$" "LXC: the config includes LXC's common.conf"
	icmp=$(awk -F: '$1 == "_icmp" { print $3 }' "$rootfs/etc/group")
	like "$conf" "^lxc.sysctl.net.ipv4.ping_group_range = $icmp $icmp\$" \
	    "LXC: the config gives group _icmp ($icmp) its ICMP sockets"
	like "$conf" "^lxc.uts.name = owlet1\$" "LXC: lxc-local named the container"
	t "LXC: the rootfs is unpacked (/sbin/init, /etc/os-release)" \
	    test -L "$rootfs/sbin/init" -a -f "$rootfs/usr/lib/os-release"
	is "$(stat -c '%a %U:%G' "$rootfs/usr/bin/passwd")" "2711 root:shadow" \
	    "LXC: owners and modes kept (passwd 2711 root:shadow)"
else
	ok 1 "apt-get download liblxc-common on the host (for lxc-local)"
	mkdir -p "$rootfs"
	tar -xpJf "$SYS.tar.xz" --numeric-owner --xattrs --xattrs-include='*' --acls -C "$rootfs"
fi
# (lxc-local adds /dev/pts, a mount point)
t "the unpacked tree verifies against the system spec (seal verify -P)" \
    "$B/bin/seal" verify -P "$O/owlet.pub" -x "$SYS.mtree.minisig" -f "$SYS.mtree" \
    --exclude /dev/pts -p "$rootfs"

# --- systemd-nspawn -b on the unpacked tree ---------------------------------------------
if nspawn=$(nspawn_path); then
	"$nspawn" -D "$rootfs" --register=no --keep-unit --private-network -b \
	    --console=read-only </dev/null >"$T/nspawn.log" 2>&1 &
	npid=$!
	t0=$(date +%s)
	init=
	# The container's init: nspawn's child once it runs systemd (the
	# children before it are nspawn's own, short-lived).
	for _ in $(seq 60); do
		init=$(pgrep -x -P "$npid" systemd | head -n 1)
		[ -n "$init" ] && break
		sleep 1
	done
	st=$(wait_running nspawn 180 nsenter -t "${init:-0}" -a systemctl is-system-running)
	is "$(nsenter -t "${init:-0}" -a cat /proc/1/comm 2>&1)" systemd "systemd-nspawn -b: PID 1 is systemd"
	is "$st" running "systemd-nspawn -b: is-system-running = running ($(($(date +%s) - t0)) s)"
	[ "$st" = running ] || diag "$(nsenter -t "${init:-0}" -a systemctl --failed --no-legend 2>&1)" \
	    "$(tail -n 20 "$T/nspawn.log")"
	out=$(nsenter -t "${init:-0}" -a sh -c 'find / -xdev -perm /4000 -print; control --check' 2>&1)
	ok $? "... control --check is clean in the booted container, no set-uid file"
	[ -z "$out" ] || diag "$out"
	out=$(nsenter -t "${init:-0}" -a setpriv --reuid 65534 --regid 65534 --clear-groups \
	    sh -c 'exec ping -c 1 -W 2 127.0.0.1' 2>&1)
	rc=$?
	ok $rc "... ping as uid 65534 works (systemd-sysctl set the private network's ping_group_range)"
	[ "$rc" = 0 ] || diag "$out"
	kill -TERM "$npid"	# nspawn powers the container off
	for _ in $(seq 30); do kill -0 "$npid" 2>/dev/null || break; sleep 1; done
	kill -0 "$npid" 2>/dev/null && kill -KILL "$npid"
	wait "$npid" 2>/dev/null
else
	echo "ok $((_tap_n + 1)) # SKIP systemd-nspawn not found (make deps unpacks it, or NSPAWN=)"
	_tap_n=$((_tap_n + 1))
fi

# --- podman --systemd=always ------------------------------------------------------------
id=$(pod_load "$SYS.oci.tar")
ok $? "podman loads the system flavour"
pod run -d --name owlet-sys --cgroup-parent="$POD_CG" --systemd=always "$id" >/dev/null 2>"$T/run.err"
ok $? "podman run --systemd=always starts it"
[ -s "$T/run.err" ] && diag "$(cat "$T/run.err")"
st=$(wait_running podman 180 pod exec owlet-sys systemctl is-system-running)
is "$st" running "podman --systemd=always: is-system-running = running"
[ "$st" = running ] || diag "$(pod exec owlet-sys systemctl --failed --no-legend 2>&1)"
pod rm -f -t 10 owlet-sys >/dev/null 2>&1
done_testing
