# Helpers for tests that use the Debian base root ($B/cache/rootfs/base,
# built by make rootfs / image/rootfs.sh) or the image ($B/image/root).
# Source after tests/lib/root.sh:
#     . "$(dirname "$0")/../lib/root.sh"
#     . "$(dirname "$0")/../lib/image.sh"
#     need_root; need_base; tmpdir
#     private_ns sh -c 'base_overlay "$1" && chroot_run "$1" dpkg -l' _ "$T/r"
# Nothing here mounts anything in the caller's mount namespace.

OWLET_BASE=$B/cache/rootfs/base
OWLET_IMAGE=$B/image/root

# need_base: make sure the base is built and current (make rootfs: a no-op
# when it is, a few minutes from nothing), then hold a shared lock on it
# (fd 8) for the rest of the test, so no concurrent make rootfs replaces it
# underneath.  On failure the whole run stops (TAP "Bail out!") naming the
# reason: every later test would fail the same way.  Call need_root first.
need_base() {
	need_make need_base rootfs
	exec 8<"$B/cache/rootfs/lock"
	flock -s 8
	if ! B=$B sh "$TOP/image/rootfs.sh" --check; then
		echo "Bail out! need_base: $OWLET_BASE replaced by a build with other inputs"
		exit 255
	fi
}

# need_image: build the image (make image: the base if needed, then
# build/image/ from scratch, 10-25 s), then hold a shared lock on
# $B/image/lock (fd 7) for the rest of the test: image/build.sh takes it
# exclusively, so no concurrent make image replaces $OWLET_IMAGE (or the
# spec and signature) underneath.  The lock survives an exec (a test
# re-running itself in a private mount namespace keeps it).  If a build
# fails between ours and the lock, its outputs are missing: that, or a
# failing make image, stops the whole run (TAP "Bail out!") naming the
# reason.  Call need_root first, and not after need_base in the same
# process: a rebuild of the base waits for every holder of the base's lock.
# Tests never write to $OWLET_IMAGE: they use base_overlay DIR "$OWLET_IMAGE".
need_image() {
	need_make need_image image
	exec 7<"$B/image/lock"
	flock -s 7
	need_outputs need_image root/usr/sbin/control owlet-bookworm.mtree \
	    owlet-bookworm.mtree.minisig owlet.pub
}

# need_make WHO TARGET: make TARGET, or stop the whole run (TAP "Bail
# out!") naming WHO and the last line of make's output.
need_make() {
	_nm_log=$(mktemp)
	if ! make -s -C "$TOP" B="$B" "$2" >"$_nm_log" 2>&1; then
		echo "Bail out! $1: make $2 failed: $(tail -n 1 "$_nm_log")"
		rm -f "$_nm_log"
		exit 255
	fi
	rm -f "$_nm_log"
}

# need_outputs WHO FILE...: stop the run unless every FILE (relative to
# $B/image) exists: a concurrent build failed between ours and the lock.
need_outputs() {
	_no_who=$1
	shift
	for _no_f; do
		if [ ! -e "$B/image/$_no_f" ]; then
			echo "Bail out! $_no_who: $B/image/$_no_f missing (a concurrent build failed?)"
			exit 255
		fi
	done
}

# base_overlay DIR [LOWER]: mount at DIR (created if missing) a writable
# overlayfs whose lower layer is LOWER (default: the base) and whose upper
# and work dirs are fresh under $T (tmpdir), else under a new temp dir.
# Writes go to the upper dir only: LOWER stays byte-identical, and each
# call gives an independent copy in O(1).  Must be called inside a private
# mount namespace (private_ns); refuses to mount in the namespace of pid 1.
# Returns non-zero on failure.
base_overlay() {
	_bo_d=$1 _bo_lo=${2:-$OWLET_BASE}
	if [ "$(readlink /proc/self/ns/mnt)" = "$(readlink /proc/1/ns/mnt)" ]; then
		echo "base_overlay: not in a private mount namespace (use private_ns)" >&2
		return 1
	fi
	[ -d "$_bo_lo" ] || { echo "base_overlay: $_bo_lo missing" >&2; return 1; }
	_bo_t=$(mktemp -d "${T:-/tmp}/overlay.XXXXXX") || return 1
	# The upper dir's root gives the merged root its owner and mode.
	mkdir -m 0755 "$_bo_t/upper" "$_bo_t/work" || return 1
	mkdir -p "$_bo_d" &&
	mount -t overlay overlay \
	    -o "lowerdir=$_bo_lo,upperdir=$_bo_t/upper,workdir=$_bo_t/work" "$_bo_d"
}

# chroot_run DIR CMD...: run CMD chrooted into DIR, in its own private
# mount, pid, uts and ipc namespaces (image/chroot.sh), with /proc, a
# minimal private /dev (tmpfs: null zero full random urandom tty, /dev/pts
# newinstance, /dev/shm), tmpfs /run and /tmp, and a clean environment
# (PATH, HOME=/root, TERM, LANG=C.UTF-8).  Callable from any namespace: a
# DIR mounted by base_overlay in the caller's private namespace is seen.
# When CMD exits, the mounts are gone and every process it left is killed.
# CHROOT_UNSHARE="-n" adds a network namespace (lo up).  Returns CMD's
# status; stdin/stdout/stderr are the caller's.
chroot_run() {
	sh "$TOP/image/chroot.sh" "$@"
}

# private_ns CMD...: run CMD (a program, or a function of this file or one
# the test exported with export -f) in bash inside a new private mount
# namespace; its mounts vanish when it exits.  TOP, B, T are passed on.
private_ns() {
	TOP=$TOP B=$B T=${T:-} OWLET_BASE=$OWLET_BASE OWLET_IMAGE=$OWLET_IMAGE \
	    unshare -m --propagation private -- bash -c '"$@"' private_ns "$@"
}
export -f base_overlay chroot_run

# private_root NEED "$@": the preamble of a test that works on a private
# root tree.  Outside a private mount namespace it runs NEED (need_base or
# need_image: the tree to copy exists, or the test is skipped) and re-runs
# the test inside one with its arguments; there it sets T (tmpdir) and
# R=$T/root, and removes both at exit (R and R/mnt unmounted first).
private_root() {
	if [ -z "${OWLET_IN_NS:-}" ]; then
		"$1"
		shift
		exec env OWLET_IN_NS=1 unshare -m --propagation private -- "$0" "$@"
	fi
	tmpdir
	R=$T/root
	trap 'umount -l "$R/mnt" 2>/dev/null; umount -l "$R" 2>/dev/null; rm -rf "$T"' EXIT
}

# owlet_root "$@": the set-up of a test that works on a private copy of
# the base with owlet installed.  Outside a private mount namespace it
# makes sure the base exists (need_base) and re-runs the test inside one;
# there it sets T (tmpdir), R=$T/root (base_overlay) and installs owlet
# into R (make install DESTDIR=R PREFIX=/usr).  A failing step ends the
# test with one failed TAP line.  Call need_root first.
owlet_root() {
	private_root need_base "$@"
	if ! base_overlay "$R" ||
	    ! make -s -C "$TOP" install DESTDIR="$R" PREFIX=/usr B="$B" >"$T/install.log" 2>&1; then
		ok 1 "a copy of the base root with owlet installed"
		diag "$(tail -n 5 "$T/install.log" 2>/dev/null)"
		done_testing
	fi
}

# in_image DIR SCRIPT: run the bash text SCRIPT inside DIR (an overlay of
# the image: base_overlay DIR "$OWLET_IMAGE") with chroot_run in its own
# network namespace (CHROOT_UNSHARE=-n), after sourcing tests/lib/inside.sh
# (step, boot, start_sshd, ssh_pw, ssh_key; see there).  stdin is
# /dev/null.  Every process the script started (sshd, cron) dies when it
# returns, or when it has run IN_IMAGE_TIMEOUT seconds (default 300: the
# whole namespace is killed, status 124).  Results are read from outside
# with step_out/step_rc.  Returns the script's status.
in_image() {
	_ii_o=$1/var/tmp/owlet-system
	{ [ -d "$_ii_o" ] || mkdir -m 0700 "$_ii_o"; } &&
	cp "$TOP/tests/lib/inside.sh" "$_ii_o/inside.sh" &&
	printf '%s\n' "$2" >"$_ii_o/script.sh" || return 1
	CHROOT_UNSHARE=-n timeout -k 10 "${IN_IMAGE_TIMEOUT:-300}" \
	    sh "$TOP/image/chroot.sh" "$1" /bin/bash -c \
	    '. /var/tmp/owlet-system/inside.sh && . /var/tmp/owlet-system/script.sh' \
	    </dev/null
}

# step_out DIR NAME, step_rc DIR NAME: the output (stdout and stderr) and
# exit status of the step NAME of the last in_image DIR ("missing" when
# the step did not run).
step_out() { cat "$1/var/tmp/owlet-system/$2.out" 2>/dev/null || echo missing; }
step_rc() { cat "$1/var/tmp/owlet-system/$2.rc" 2>/dev/null || echo missing; }

# need_debs DIR [next]: owlet's packages, copied into DIR (which must not
# exist yet): this version (debian/changelog's, lintian passed: DIR/
# lintian.txt) or, with "next", the same packages repacked as version
# $DEB_NEXT (make deb-repack: a newer version of the same tree, for
# upgrades).  Each of the two is made once for every test (the stamps) in
# $B/deb and $B/deb-next and copied under a shared lock on its
# DEB_OUT/lock, which a rebuild takes exclusively.  On failure the test
# ends with one failed TAP line showing the end of the build log
# (DIR.log).
# (the version read with sed: this runs whenever a test sources this file,
# dpkg-parsechangelog would start perl every time)
DEB_NEXT=$(sed -n '1s/^[^ ]* (\([^)]*\)).*/\1/p' "$TOP/debian/changelog")+next
need_debs() {
	_nd_out=$B/deb
	if ! { make -s -C "$TOP" deb B="$B" DEB_OUT="$_nd_out" &&
	    if [ "${2:-}" = next ]; then
		_nd_out=$B/deb-next
		make -s -C "$TOP" deb-repack DEB_FROM="$B/deb" DEB_OUT="$_nd_out" \
		    DEB_VERSION="$DEB_NEXT"
	    fi; } >"$1.log" 2>&1; then
		ok 1 "make deb builds owlet's packages"
		diag "$(tail -n 20 "$1.log")"
		done_testing
	fi
	mkdir "$1" &&
	    (flock -s 9 && cp "$_nd_out"/*.deb "$1"/ &&
	    for _nd_f in "$_nd_out"/*.changes "$_nd_out/lintian.txt"; do
		[ ! -f "$_nd_f" ] || cp "$_nd_f" "$1"/ || exit
	    done) 9<"$_nd_out/lock" ||
		{ ok 1 "owlet's packages copied from $_nd_out"; done_testing; }
}

# base_debs DIR PKG...: copy into DIR the .debs that install PKG... on top
# of the base, dependencies included: what `apt-get -s install
# --no-install-recommends` plans against the base's dpkg status (or the
# status file BASE_DEBS_STATUS names: another root's), with this
# machine's apt lists (run `apt-get update` if they are too old for the
# mirror).  Each .deb is downloaded once (apt-get download, which touches
# no /etc) into $B/cache/debs and reused from there.  Returns non-zero,
# naming the package, if one cannot be had.  Install them inside the root
# with apt, which orders Pre-Depends (a plain dpkg -i of all may not), e.g.
# chroot_run ROOT apt-get install -qq --no-install-recommends /mnt/*.deb
# with DIR bound on ROOT/mnt: no network, no apt lists needed.
base_debs() {
	_bd_dir=$1; shift
	mkdir -p "$_bd_dir" "$B/cache/debs" || return 1
	_bd_plan=$(apt-get -s -qq -o Debug::NoLocking=1 \
	    -o Dir::State::status="${BASE_DEBS_STATUS:-$OWLET_BASE/var/lib/dpkg/status}" \
	    install --no-install-recommends "$@" 2>&1) ||
		{ echo "base_debs: apt-get -s: $_bd_plan" >&2; return 1; }
	# "Inst NAME [OLD] (VERSION ARCHIVES [ARCH])"
	printf '%s\n' "$_bd_plan" | sed -n \
	    's/^Inst \([^ ]*\) \(\[[^]]*\] \)\{0,1\}(\([^ ]*\) .*\[\([^]]*\)\])$/\1 \3 \4/p' |
	while read -r _bd_p _bd_v _bd_a; do
		# apt-get download writes an epoch's colon as %3a
		_bd_f=${_bd_p}_$(printf '%s' "$_bd_v" | sed 's/:/%3a/')_$_bd_a.deb
		if [ ! -s "$B/cache/debs/$_bd_f" ]; then
			_bd_t=$(mktemp -d "$B/cache/debs/.dl.XXXXXX") || return 1
			(cd "$_bd_t" && apt-get download -qq "$_bd_p=$_bd_v") >/dev/null 2>&1 &&
			    mv "$_bd_t/$_bd_f" "$B/cache/debs/$_bd_f"
			rm -rf "$_bd_t"
			[ -s "$B/cache/debs/$_bd_f" ] ||
				{ echo "base_debs: cannot download $_bd_p $_bd_v" >&2; return 1; }
		fi
		cp "$B/cache/debs/$_bd_f" "$_bd_dir/" || return 1
	done
}

# rebuild_wanted: OWLET_REBUILD=1 asks for the byte-identical rebuilds of
# the disk, the containers and the ISO (tests/image/disk.t,
# tests/container/build.t, tests/iso/iso.t).  Each takes about as long as
# its build, so a plain make check leaves them out (its CI time goal);
# `make check OWLET_REBUILD=1` or OWLET_REBUILD=1 prove TEST runs them.
rebuild_wanted() { [ "${OWLET_REBUILD:-0}" = 1 ]; }
