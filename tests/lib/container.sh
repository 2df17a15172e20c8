# The container harness: the outputs of `make container` (image/
# container.sh) under podman and systemd-nspawn, in a private world that
# nothing outlives.  Source after tests/lib/root.sh and
# tests/lib/image.sh, in bash:
#
#     container_ns "$@"    # container_needs, then re-runs the test
#     id=$(pod_load "$B/image/owlet-bookworm-base.oci.tar")
#     pod_run --sysctl net.ipv4.ping_group_range="0 0" "$id" ping ...
#
# container_ns runs the test in its own mount and pid namespaces
# (unshare --kill-child): podman, conmon, runc, the containers and
# systemd-nspawn all die with the test, and every mount (podman's
# overlays) with the namespace.  podman is rootful and private: its
# storage, run and temp directories and its configuration are under $T;
# /var/lib is an overlay whose writes land in $T too (containers/image
# keeps a blob cache in /var/lib/containers whatever the storage root),
# and so is /run (runc's state), and each container's cgroups are under
# /owlet-test-PID, removed at exit.  Containers get no network
# (--network none): nothing here sends a packet out.  runc, cgroupfs and
# the ulimits are what works on the developers' machines (crun fails:
# docs in ../shared/reference/boot.md).

# container_needs: skip the whole test (with the reason) unless it can
# run: root, a plain build (need_plain_build), podman, runc and the tools
# of make container; make deps installs them.
container_needs() {
	need_root
	need_plain_build
	need_tools "container test" podman:podman runc:runc xz:xz-utils zstd:zstd \
	    minisign:minisign
}

# need_container: make container (the image and minbase first if needed)
# or stop the run with "Bail out!"; then hold shared locks on
# $B/image/lock (fd 7) and $B/image/container.lock (fd 5), so no
# concurrent build replaces the outputs.
need_container() {
	need_make need_container container
	exec 7<"$B/image/lock" 5<"$B/image/container.lock"
	flock -s 7
	flock -s 5
	need_outputs need_container owlet-bookworm-system.oci.tar owlet-bookworm-base.oci.tar \
	    owlet-bookworm-system.tar.xz owlet-bookworm-system.meta.tar.xz \
	    owlet-bookworm-system.mtree.minisig owlet-bookworm-base.mtree.minisig
}

# container_ns "$@": the preamble of a container test.  Outside the
# namespaces it runs container_needs and need_container and re-runs the
# test in new mount and pid namespaces; there it sets T (tmpdir), sets up
# podman's private world and removes it at exit.
container_ns() {
	if [ -z "${OWLET_IN_NS:-}" ]; then
		container_needs
		need_container
		exec env OWLET_IN_NS=1 unshare -m -p --fork --kill-child --mount-proc \
		    --propagation private -- "$0" "$@"
	fi
	tmpdir
	P=$T/podman
	POD_CG=/owlet-test-$$-$(date +%s)
	mkdir -p "$P/storage" "$P/run" "$P/tmp"
	for _cn in /var/lib /run; do
		mkdir -p "$P/over$_cn/upper" "$P/over$_cn/work"
		mount -t overlay overlay -o \
		    "lowerdir=$_cn,upperdir=$P/over$_cn/upper,workdir=$P/over$_cn/work" "$_cn"
	done
	cat > "$P/storage.conf" <<-EOF
	[storage]
	driver = "overlay"
	graphroot = "$P/storage"
	runroot = "$P/run"
	EOF
	cat > "$P/containers.conf" <<-EOF
	[containers]
	netns = "none"
	log_driver = "k8s-file"
	default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]
	[network]
	network_config_dir = "$P/networks"
	[engine]
	cgroup_manager = "cgroupfs"
	runtime = "runc"
	events_logger = "file"
	events_logfile_path = "$P/events.log"
	static_dir = "$P/storage/libpod"
	tmp_dir = "$P/run/libpod"
	volume_path = "$P/storage/volumes"
	image_copy_tmp_dir = "$P/tmp"
	EOF
	trap container_cleanup EXIT
}

container_cleanup() {
	pod rm -a -f -t 0 >/dev/null 2>&1
	pod rmi -a -f >/dev/null 2>&1
	# This shell is pid 1 of the namespace: kill -1 reaches everything
	# else in it (conmon, nspawn, a container's init), and nothing outside.
	[ "$$" != 1 ] || kill -KILL -1 2>/dev/null
	sleep 0.2
	for _cc in /sys/fs/cgroup/*/"${POD_CG#/}"; do
		[ ! -d "$_cc" ] || find "$_cc" -depth -type d -exec rmdir {} + 2>/dev/null
	done
	umount -l /var/lib /run 2>/dev/null
	rm -rf --one-file-system "$T"
}

# pod ARGS...: podman with the private configuration.
pod() {
	CONTAINERS_CONF=$P/containers.conf CONTAINERS_STORAGE_CONF=$P/storage.conf \
	    TMPDIR=$P/tmp podman "$@"
}

# pod_run ARGS...: podman run --rm in this test's cgroup parent.  (podman
# build puts its containers into --cgroup-parent itself, not below it:
# give it a leaf of its own, "$POD_CG/build".)
pod_run() {
	pod run --rm --cgroup-parent="$POD_CG" "$@"
}

# pod_load ARCHIVE: load an oci-archive into the private storage; prints
# the image's id (returns non-zero on failure).
pod_load() {
	pod pull -q "oci-archive:$1" 2>&1 | tail -n 1 | grep -E '^[0-9a-f]{64}$'
}

# oci_blob LAYOUT manifest|config|layer: the path of that blob in the OCI
# image layout LAYOUT (one manifest, one layer: as container.sh writes it).
oci_blob() {
	_ob=$1/blobs/sha256
	_ob_m=$_ob/$(oci_digest manifests "$1/index.json")
	case $2 in
	manifest) echo "$_ob_m" ;;
	config) echo "$_ob/$(oci_digest config "$_ob_m")" ;;
	layer) echo "$_ob/$(oci_digest layers "$_ob_m")" ;;
	esac
}
# oci_digest KEY FILE: the hex digest of the first descriptor under KEY
oci_digest() {
	sed "s/.*\"$1\":\[*{[^]}]*\"digest\":\"sha256:\([0-9a-f]*\)\".*/\1/" "$2"
}

# nspawn_path: the systemd-nspawn to use (NSPAWN=, else on PATH, else the
# one mk/deps.sh unpacked under $B/cache/extract), or nothing.
nspawn_path() {
	for _n in "${NSPAWN:-}" "$(command -v systemd-nspawn)" \
	    "$B/cache/extract/usr/bin/systemd-nspawn"; do
		[ -n "$_n" ] && [ -x "$_n" ] && { echo "$_n"; return 0; }
	done
	return 1
}

# wait_running WHAT SECONDS CMD...: poll CMD (a systemctl
# is-system-running in the container) until it prints running or
# degraded, or SECONDS pass; prints the last answer.
wait_running() {
	_wr_end=$(($(date +%s) + $2))
	_wr_what=$1
	shift 2
	while :; do
		_wr_st=$("$@" 2>/dev/null) || :
		case $_wr_st in running | degraded) break ;; esac
		[ "$(date +%s)" -lt "$_wr_end" ] || break
		sleep 1
	done
	echo "${_wr_st:-no answer from $_wr_what}"
}
