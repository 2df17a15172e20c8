# image/lib.sh: the shell shared by the scripts of image/ (sourced, never
# run).  One definition of each convention:
#
#   die MSG...          one line "PROG: MSG" on stderr, exit 1
#   note MSG...         one line "PROG: MSG" on stderr
#   need_root WHY       die unless uid 0
#   need_tool CMD PKG   die naming the Debian package when CMD is missing
#   image_epoch         SOURCE_DATE_EPOCH defaulted (last commit, else
#                       2025-01-01) and checked; exported
#   publish TMP FINAL   rename TMP to FINAL (same directory): an output
#                       exists under its final name only complete
#   image_key           key= and pub=: the seal key pair signing the specs
#   image_clean ROOT [--keep-host-keys]  the shipping clean-up of a root
#   image_copy_debs DIR PKG...  copy one .deb of each PKG into DIR
#   image_debs ROOT     copy owlet's packages into ROOT for apt (below)
#   image_tar DIR OUT   the reproducible tarball of a tree
#   image_fat DIR IMG KIB SERIAL LABEL [FATSIZE]  a FAT image of a tree
#   image_boot_files ROOT  esp-update, its hooks and the disk templates
#   image_begin LOG WORK OUTPUT...  start a build (below)
#
# Sourcing scripts set prog= first (the name in messages) and here= (the
# image/ directory); B is made absolute, and so is D, the directory of
# owlet's packages (DEB_OUT, default $B/deb).
prog=${prog:-${0##*/}}
here=${here:-$(cd "$(dirname "$0")" && pwd)}
top=$(dirname "$here")
B=${B:-build}
case $B in /*) ;; *) B=$PWD/$B ;; esac
D=${DEB_OUT:-$B/deb}
case $D in /*) ;; *) D=$top/$D ;; esac
# owlet's packages in an image: all of make deb's but libtcb-dev (a server
# has no compiler)
IMAGE_PKGS="libtcb0 libnss-tcb libpam-tcb owlet-control seal owlet-shadow-tcb"

die() { printf '%s: %s\n' "$prog" "$*" >&2; exit 1; }
# note MSG: progress on stderr; in a build (image_begin), also in its log
# with the seconds since it began, to see where a build spends its time.
note() {
	printf '%s: %s\n' "$prog" "$*" >&2
	[ -z "${t0:-}" ] || [ -z "${log:-}" ] ||
		printf '== %s: +%s s: %s\n' "$prog" "$(($(date +%s) - t0))" "$*" >> "$log" || :
}

need_root() {
	[ "$(id -u)" = 0 ] || die "must be run as root ($1)"
}

need_tool() {
	command -v "$1" >/dev/null 2>&1 ||
		die "$1 not found: install the Debian package $2 (make deps)"
}

image_epoch() {
	if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
		SOURCE_DATE_EPOCH=$(git -C "$top" log -1 --format=%ct 2>/dev/null || :)
		# 2025-01-01T00:00:00Z, for a tree without git history
		SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-1735689600}
	fi
	case $SOURCE_DATE_EPOCH in
	'' | *[!0-9]*) die "SOURCE_DATE_EPOCH must be seconds since the epoch" ;;
	esac
	export SOURCE_DATE_EPOCH
}

publish() {
	[ -e "$1" ] || die "publish: $1 missing"
	mv -f "$1" "$2" || die "cannot rename $1 to $2"
}

# image_apt_cache ROOT: bind apt's lists and archives of the build cache
# ($B/cache/rootfs/lists, debs/apt) over ROOT's own, so that downloads stay
# cached and never land in ROOT.  Only inside a private mount namespace
# (unshare -m --propagation private): the mounts die with it.
image_apt_cache() {
	mkdir -p "$B/cache/rootfs/lists/partial" "$B/cache/rootfs/debs/apt/partial"
	rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/archives/*.deb
	mkdir -p "$1/var/lib/apt/lists/partial" "$1/var/cache/apt/archives/partial"
	mount --bind "$B/cache/rootfs/lists" "$1/var/lib/apt/lists"
	mount --bind "$B/cache/rootfs/debs/apt" "$1/var/cache/apt/archives"
}

# image_apt ROOT LOG ARGS...: apt-get ARGS in ROOT (image/chroot.sh), no
# Recommends, old conffiles kept, output appended to LOG; on failure, die
# with the log's last line.  One apt-get at a time over the shared cache
# (image_apt_cache): apt's own locks there would fail a concurrent build
# ("Could not get lock .../archives/lock") instead of waiting, so each run
# holds $B/cache/rootfs/apt.lock exclusively (flock -o: not passed on).
# image_apt_own ROOT LOG ARGS...: the same without that lock, for a run
# that only reads the shared lists and has archives of its own (an
# install whose packages apt-install.sh downloaded first).
image_apt() { _image_apt lock "$@"; }
image_apt_own() { _image_apt own "$@"; }
_image_apt() {
	_ia_lock=$1 _ia_root=$2 _ia_log=$3 _ia_cmd=$4
	shift 3
	set -- sh "$here/chroot.sh" "$_ia_root" env DEBIAN_FRONTEND=noninteractive \
	    apt-get -q -y -o Dpkg::Options::=--force-confdef \
	    -o Dpkg::Options::=--force-confold \
	    -o APT::Install-Recommends=false "$@"
	if [ "$_ia_lock" = lock ]; then
		mkdir -p "$B/cache/rootfs"
		set -- flock -o "$B/cache/rootfs/apt.lock" "$@"
	fi
	"$@" >>"$_ia_log" 2>&1 ||
		die "apt-get $_ia_cmd in $_ia_root failed: $(tail -n 1 "$_ia_log") (log: $_ia_log)"
}

# image_no_services ROOT on|off: while on, policy-rc.d in ROOT forbids
# every service start (invoke-rc.d), and dpkg skips fsync (a build that
# dies is thrown away anyway).
image_no_services() {
	case $2 in
	on)
		printf '#!/bin/sh\n# owlet image build: no service starts in the target\nexit 101\n' \
		    > "$1/usr/sbin/policy-rc.d"
		chmod 0755 "$1/usr/sbin/policy-rc.d"
		echo force-unsafe-io > "$1/etc/dpkg/dpkg.cfg.d/owlet-build" ;;
	off)
		rm -f "$1/usr/sbin/policy-rc.d" "$1/etc/dpkg/dpkg.cfg.d/owlet-build" ;;
	esac
}

# image_key: set key= (secret) and pub= (public) for signing the specs:
# SEAL_KEY (SEAL_PUB defaults to its name with .pub), else a key pair
# without passphrase made once in $B/keys/.  Needs SEAL (the seal program).
image_key() {
	if [ -n "${SEAL_KEY:-}" ]; then
		key=$SEAL_KEY
		case ${key##*/} in *.*) pub=${key%.*}.pub ;; *) pub=$key.pub ;; esac
		pub=${SEAL_PUB:-$pub}
		[ -r "$key" ] || die "SEAL_KEY=$key: cannot read"
		[ -r "$pub" ] || die "public key $pub not found (set SEAL_PUB=)"
		return 0
	fi
	key=$B/keys/owlet.key pub=$B/keys/owlet.pub
	[ -e "$key" ] && return 0
	mkdir -p "$B/keys"
	chmod 0700 "$B/keys"
	"$SEAL" keygen -W -c "owlet image key" -p "$pub.new" -s "$key.new" >/dev/null ||
		die "seal keygen failed"
	mv "$pub.new" "$pub"
	mv "$key.new" "$key"
	note "new signing key $key (public: $pub)"
}

# image_clean ROOT: what no shipped root may hold.  Each instance makes its
# own machine-id (systemd, at first boot) and SSH host keys
# (owlet-ssh-keygen.service); nothing of the build host or the build run
# stays: apt lists and caches, dpkg/debconf backups, ldconfig's aux-cache
# (inode numbers and times), logs (emptied, kept for their owners and
# modes: btmp, wtmp), and whatever is in the mount points
# (--keep-host-keys: a stock Debian root, which has its keys baked).  The same
# clean-up for the rootfs tarball and the disk keeps both reproducible.
image_clean() {
	(
	cd "$1" || exit 1
	[ "${2:-}" = --keep-host-keys ] ||
		rm -f etc/ssh/ssh_host_*_key etc/ssh/ssh_host_*_key.pub
	rm -f var/lib/dbus/machine-id var/cache/debconf/*-old var/lib/dpkg/*-old \
	    etc/resolv.conf var/cache/ldconfig/aux-cache var/log/apt/eipp.log.xz
	: > etc/machine-id
	rm -rf var/lib/apt/lists/* var/cache/apt/*
	find proc sys dev run tmp var/tmp -mindepth 1 -xdev -delete
	find var/log -xdev -type f -exec truncate -s 0 {} +
	) || die "clean-up of $1 failed"
}

# image_copy_debs DIR PKG...: copy the one .deb of each PKG from $D into
# DIR, all of one make deb (its stamp is written after the last package),
# under a shared lock on $D/lock; sets copied= to the files' names.
image_copy_debs() {
	_ic_dir=$1
	shift
	mkdir -p "$D" "$_ic_dir"
	exec 4>>"$D/lock"
	flock -s 4
	[ -f "$D/stamp" ] || die "no complete build of owlet's packages in $D (make deb)"
	copied=
	for _ic_p; do
		set -- "$D/${_ic_p}"_*.deb
		if [ $# != 1 ] || [ ! -f "$1" ]; then
			die "$D: not exactly one ${_ic_p}_*.deb (make deb; owlet-shadow-tcb needs Debian's shadow source)"
		fi
		cp "$1" "$_ic_dir/" || die "copying $1 to $_ic_dir failed"
		copied="$copied ${1##*/}"
	done
	exec 4<&-
}

# image_debs ROOT: owlet's packages that an image holds (IMAGE_PKGS) into
# ROOT/var/tmp/owlet-debs (image_copy_debs); sets debs= to their paths
# inside ROOT, for apt-install.sh.  apt reads them in place; var/tmp is
# emptied by image_clean.
image_debs() {
	# shellcheck disable=SC2086 # a list of package names
	image_copy_debs "$1/var/tmp/owlet-debs" $IMAGE_PKGS
	debs=
	for _id_f in $copied; do
		debs="$debs /var/tmp/owlet-debs/$_id_f"
	done
}

# image_tar DIR OUT: the tarball of the tree DIR (docs/image.md, "The
# tarball"): entries ./..., sorted, numeric owners, ACLs and every xattr
# (file capabilities), mtimes clamped to SOURCE_DATE_EPOCH, no atime, ctime
# or pid-derived pax header names: it depends on the tree alone.
image_tar() {
	tar --create --file="$2" --directory="$1" --format=posix \
	    --sort=name --mtime="@$SOURCE_DATE_EPOCH" --clamp-mtime --numeric-owner \
	    --acls --xattrs --xattrs-include='*' \
	    --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime . ||
		die "tar of $1 failed"
}

# image_fat DIR IMG KIB SERIAL LABEL [FATSIZE]: a FAT file system of KIB
# KiB in the plain file IMG holding the tree DIR (regular files and
# directories), without mounting: mkfs.fat --invariant with the volume
# serial SERIAL (8 hex digits), then mtools in sorted order (mtools takes
# file times from SOURCE_DATE_EPOCH): the same tree gives the same bytes.
# FATSIZE: 12, 16 or 32 (default: mkfs.fat's choice for the size).
image_fat() {
	_if_dir=$1 _if_img=$2
	mkfs.fat ${6:+-F "$6"} --invariant -i "$4" -n "$5" -C "$_if_img" "$3" >/dev/null ||
		die "mkfs.fat of $_if_img failed"
	(cd "$_if_dir" && find . -mindepth 1 | LC_ALL=C sort) | while IFS= read -r _if_p; do
		_if_p=${_if_p#./}
		if [ -d "$_if_dir/$_if_p" ]; then
			mmd -i "$_if_img" "::/$_if_p"
		else
			mcopy -i "$_if_img" "$_if_dir/$_if_p" "::/$_if_p"
		fi
	done || die "mtools failed on $_if_img"
}

# image_boot_files ROOT: what a root needs to boot from a disk made by
# disk.sh or by the installer (owlet-install): /usr/lib/owlet/esp-update
# run by the kernel's and initramfs' hooks and by a path unit watching
# /etc/kernel/cmdline, and the fstab template (/usr/lib/owlet/fstab.in:
# @ROOT_UUID@, @ESP_UUID@).  Not in the image tree or the containers: only disks boot
# a kernel of their own.
image_boot_files() {
	_ib_f=$here/files/disk
	install -D -m 0644 "$_ib_f/fstab" "$1/usr/lib/owlet/fstab.in"
	install -D -m 0755 "$_ib_f/esp-update" "$1/usr/lib/owlet/esp-update"
	for _ib_d in kernel/postinst.d kernel/postrm.d initramfs/post-update.d; do
		mkdir -p "$1/etc/$_ib_d"
		ln -sfn /usr/lib/owlet/esp-update "$1/etc/$_ib_d/zz-owlet-esp"
	done
	for _ib_u in owlet-esp-update.path owlet-esp-update.service; do
		install -D -m 0644 "$_ib_f/$_ib_u" "$1/etc/systemd/system/$_ib_u"
	done
	sh "$here/chroot.sh" "$1" systemctl enable --quiet owlet-esp-update.path ||
		die "systemctl enable owlet-esp-update.path in $1 failed"
}

# image_begin LOG WORK OUTPUT...: start a build: t0 is now, LOG is
# emptied, the previous build's OUTPUTs (files or directories) are
# removed (whatever exists afterwards belongs to one build), and the work
# tree WORK is removed now
# and at any exit.
image_begin() {
	t0=$(date +%s)
	: > "$1"
	_ib_work=$2
	shift 2
	rm -rf "$@"
	rm -rf "$_ib_work"
	trap 'rm -rf "$_ib_work"' EXIT
	trap 'exit 130' INT TERM HUP
}
