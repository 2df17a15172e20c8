#!/bin/sh
# image/rootfs.sh: the cached Debian 12 roots that the images start from.
#
#   base     ($B/cache/rootfs/base, stamp $C/stamp): what `make image`
#            copies and tests overlay (tests/lib/image.sh).
#            debootstrap --variant=minbase bookworm, then apt-get inside the
#            target: bookworm-updates and bookworm-security applied, and
#            the server set (systemd-sysv openssh-server cron iputils-ping
#            libpam-passwdqc passwdqc less; OWLET_EXTRAS=1 adds john
#            scanlogd popa3d), no Recommends.
#   minbase  ($B/cache/rootfs/minbase, stamp $C/minbase.stamp): the same
#            without the server set, Debian's minbase with its updates:
#            the container base flavour starts from it (image/container.sh)
#            and bench/container.sh compares against it.
#
# Environment: B (build dir), MIRROR (default: the host's apt source for
# bookworm, else deb.debian.org), SECURITY_MIRROR (default: the host's
# source for bookworm-security, else security's deb.debian.org; "none"
# skips security updates), OWLET_EXTRAS (0 or 1).
#
#   rootfs.sh [minbase]          build unless the stamp says the root is
#                                current
#   rootfs.sh --check [minbase]  exit 0 iff the root is current (no lock,
#                                no build)
#
# Invariants:
# - $C/base exists only complete: it is built in $C/base.new.* and renamed
#   into place; $C/stamp (the inputs) is written after the rename and
#   removed before it, so a base without a matching stamp is rebuilt.
#   The same for $C/minbase and $C/minbase.stamp.
# - $C/lock: builders of either root hold it exclusively; users (need_base,
#   image/build.sh, image/container.sh) hold it shared, so a root in use is
#   never replaced.
# - Nothing is mounted outside a private mount+pid namespace; the temp
#   tree is deleted from the host namespace, where no mount exists in it.
# - No service starts during the build (policy-rc.d exits 101, removed
#   before the rename, so the base never contains it).
# - Downloaded .debs stay in $C/debs (debootstrap/ and apt/), apt lists
#   in $C/lists: neither is left inside the base.
set -eu
prog=rootfs.sh
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
C=$B/cache/rootfs
SUITE=bookworm
VARIANT=minbase
PKGS="systemd-sysv openssh-server cron iputils-ping libpam-passwdqc passwdqc less"
EXTRAS="john scanlogd popa3d"

# ---------------------------------------------------------------------------
# Inside the private namespaces: build the tree at $2.  Everything is given
# through the environment by the outer half below.
inner() {
	T=$1 log=$R_LOG t0=$(date +%s)
	# debootstrap copies the host's resolv.conf and hostname; apt needs
	# the former during the build only.
	# shellcheck disable=SC2086 # R_INCLUDE is an optional option word
	debootstrap --variant="$VARIANT" --cache-dir="$C/debs/debootstrap" \
	    $R_INCLUDE "$SUITE" "$T" "$R_MIRROR" >>"$log" 2>&1 ||
		die "debootstrap failed: $(tail -n 1 "$log") (log: $log)"

	note "debootstrap done in $(($(date +%s) - t0)) s"
	image_no_services "$T" on
	echo owlet > "$T/etc/hostname"

	rm -f "$T/etc/apt/sources.list"
	{
		printf 'Types: deb\nURIs: %s\nSuites: %s %s-updates\n' \
		    "$R_MIRROR" "$SUITE" "$SUITE"
		printf 'Components: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n'
		if [ "$R_SECURITY" != none ]; then
			printf '\nTypes: deb\nURIs: %s\nSuites: %s-security\n' \
			    "$R_SECURITY" "$SUITE"
			printf 'Components: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n'
		fi
	} > "$T/etc/apt/sources.list.d/debian.sources"

	# apt's lists and archives live in the cache; the target's own
	# directories stay empty underneath the bind mounts.
	image_apt_cache "$T"
	aptget() { image_apt "$T" "$log" "$@"; }
	note "apt-get: updates${R_PKGS:+ and$R_PKGS}"
	aptget update
	aptget dist-upgrade
	# shellcheck disable=SC2086 # a package list
	[ -z "$R_PKGS" ] || aptget install $R_PKGS

	umount "$T/var/cache/apt/archives" "$T/var/lib/apt/lists"
	note "apt-get done in $(($(date +%s) - t0)) s"
	image_no_services "$T" off
	rm -f "$T/etc/resolv.conf" "$T"/var/cache/apt/*.bin
}

if [ "${1:-}" = --inner ]; then
	inner "$2"
	exit 0
fi
need_root "debootstrap, chroot, mount namespaces"

# ---------------------------------------------------------------------------
# host_uri SUITE: the first URI of an enabled "deb" source for exactly
# SUITE in the host's apt configuration (deb822 .sources, then one-line
# .list format), or nothing.
host_uri() {
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		awk -v suite="$1" '
		function flush() {
			if (types ~ /(^|[ \t])deb([ \t]|$)/ && enabled != "no" &&
			    (" " suites " ") ~ ("[ \t]" suite "[ \t]") && uris != "") {
				split(uris, u, /[ \t]+/); print u[1]; found = 1; exit
			}
			types = suites = uris = enabled = ""
		}
		/^[ \t]*#/ { next }
		/^[ \t]*$/ { flush(); next }
		/^[^ \t][^:]*:/ {
			k = tolower(substr($0, 1, index($0, ":") - 1))
			v = substr($0, index($0, ":") + 1)
			gsub(/^[ \t]+|[ \t]+$/, "", v)
			if (k == "types") types = v
			else if (k == "suites") suites = v
			else if (k == "uris") uris = v
			else if (k == "enabled") enabled = tolower(v)
		}
		END { if (!found) flush() }' "$f"
	done | head -n 1 | grep . && return 0
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
	awk -v suite="$1" '
	$1 == "deb" {
		i = 2
		if ($2 ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
		if ($(i + 1) == suite) { print $i; exit }
	}'
}

probe() {	# probe URL: the mirror answers for this suite
	case $1 in
	file://*) [ -r "${1#file://}/dists/$2/Release" ] ;;
	*) wget -q -T 20 -t 2 -O /dev/null "$1/dists/$2/Release" ;;
	esac
}

MIRROR=${MIRROR:-$(host_uri "$SUITE" || :)}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
MIRROR=${MIRROR%/}
SECURITY_MIRROR=${SECURITY_MIRROR:-$(host_uri "$SUITE-security" || :)}
SECURITY_MIRROR=${SECURITY_MIRROR:-http://deb.debian.org/debian-security}
SECURITY_MIRROR=${SECURITY_MIRROR%/}
case ${OWLET_EXTRAS:-0} in
0) ;;
1) PKGS="$PKGS $EXTRAS" ;;
*) die "OWLET_EXTRAS must be 0 or 1, not '$OWLET_EXTRAS'" ;;
esac
check=0
[ "${1:-}" != --check ] || { check=1; shift; }
case $#:${1:-} in
0:) name=base stamp=$C/stamp log=$C/build.log ;;
1:minbase) name=minbase stamp=$C/minbase.stamp log=$C/minbase.log PKGS= ;;
*) die "usage: rootfs.sh [--check] [minbase]" ;;
esac
include=
case $MIRROR$SECURITY_MIRROR in
# minbase has no CA certificates; apt in the target needs them for https.
*https:*) include=--include=ca-certificates ;;
esac

# The stamp: every input that changes the tree.
inputs="suite=$SUITE variant=$VARIANT
arch=$(dpkg --print-architecture)
mirror=$MIRROR
security=$SECURITY_MIRROR
root=$name packages=$PKGS${include:+ $include}
debootstrap=$(dpkg-query -W -f='${Version}' debootstrap 2>/dev/null || echo none)
script=$(cat "$0" "$here/chroot.sh" "$here/lib.sh" | sha256sum | cut -d' ' -f1)"

current() {
	[ -d "$C/$name" ] && [ -f "$stamp" ] &&
		[ "$(cat "$stamp")" = "$inputs" ]
}

if [ "$check" = 1 ]; then
	current
	exit
fi
command -v debootstrap >/dev/null || die "debootstrap not installed (make deps)"
mkdir -p "$C"
exec 9>>"$C/lock"
flock -s 9
current && exit 0
flock -x 9	# not atomic with the shared lock: check again
current && exit 0

unshare -m true 2>/dev/null ||
	die "cannot create a mount namespace (unshare -m): CAP_SYS_ADMIN needed"
probe "$MIRROR" "$SUITE" ||
	die "cannot reach mirror $MIRROR (dists/$SUITE/Release); set MIRROR="
if [ "$SECURITY_MIRROR" != none ]; then
	probe "$SECURITY_MIRROR" "$SUITE-security" ||
		die "cannot reach security mirror $SECURITY_MIRROR; set SECURITY_MIRROR= (or none)"
fi

# Leftovers of a killed build: no builder holds the lock, and their mounts
# died with their namespaces.
rm -rf "$C/$name".new.* "$C/$name".old.*
mkdir -p "$C/debs/debootstrap"
tmp=$(mktemp -d "$C/$name.new.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM HUP
chmod 0755 "$tmp"	# the root directory of the tree
: > "$log"
note "debootstrap $VARIANT $SUITE from $MIRROR (log: $log)"
t0=$(date +%s)
R_MIRROR=$MIRROR R_SECURITY=$SECURITY_MIRROR R_PKGS="${PKGS:+ $PKGS}" R_INCLUDE=$include \
    R_LOG=$log \
    VARIANT=$VARIANT SUITE=$SUITE B=$B \
    unshare -m -p --fork --kill-child --mount-proc --propagation private -- \
    sh "$0" --inner "$tmp"

rm -f "$stamp"
[ ! -d "$C/$name" ] || mv "$C/$name" "$C/$name.old.$$"
mv "$tmp" "$C/$name"
trap - EXIT
printf '%s\n' "$inputs" > "$stamp.new"
mv "$stamp.new" "$stamp"
rm -rf "$C/$name.old.$$"
note "$name ready in $(($(date +%s) - t0)) s, $(du -sxh "$C/$name" | cut -f1) ($C/$name)"
