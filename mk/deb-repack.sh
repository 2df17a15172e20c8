#!/bin/sh
# Repack the packages of one make deb as another version (make
# deb-repack; see mk/deb.mk): the upgrade tests need "the same tree as a
# newer version", and a second dpkg-buildpackage of the same tree costs
# minutes of CPU for nothing but a version string.
#
# Every .deb of DEB_FROM is unpacked and built again into DEB_OUT with
# its Version field and each exact relation on a package of the same
# build ("(= OLD)") set to DEB_VERSION.  Files, modes, owners and
# maintainer scripts are those of DEB_FROM, byte for byte (the
# changelog in /usr/share/doc still names the old version: dpkg never
# reads it).  Runs as root, so that dpkg-deb -R keeps the owners.
#
# Invariants (as mk/deb.sh's): DEB_OUT holds the packages of one repack,
# changed under an exclusive lock on DEB_OUT/lock; DEB_FROM is read under
# a shared lock on DEB_FROM/lock; DEB_OUT/stamp names DEB_FROM's stamp
# and the version, written last, so a second run with the same inputs
# changes nothing.
set -eu
prog=deb-repack.sh
die() { printf '%s: %s\n' "$prog" "$*" >&2; exit 1; }

DEB_FROM=${DEB_FROM:-}
DEB_OUT=${DEB_OUT:-}
DEB_VERSION=${DEB_VERSION:-}
[ -n "$DEB_FROM" ] && [ -n "$DEB_OUT" ] && [ -n "$DEB_VERSION" ] ||
	die "usage: make deb-repack DEB_FROM=DIR DEB_OUT=DIR DEB_VERSION=VERSION"
case $DEB_VERSION in
[!0-9]* | *[!A-Za-z0-9.+~-]*)
	die "DEB_VERSION=$DEB_VERSION: not a Debian version without epoch" ;;
esac
[ "$(id -u)" = 0 ] || die "run as root: the packages' owners are kept"
command -v dpkg-deb >/dev/null || die "dpkg-deb missing"
[ "$(cd "$DEB_FROM" 2>/dev/null && pwd)" != "$(mkdir -p "$DEB_OUT" && cd "$DEB_OUT" && pwd)" ] ||
	die "DEB_FROM and DEB_OUT are the same directory"

exec 9>>"$DEB_OUT/lock"
flock 9
exec 8>>"$DEB_FROM/lock"
flock -s 8
[ -f "$DEB_FROM/stamp" ] || die "$DEB_FROM: no complete make deb (its stamp is missing)"
inputs=$(printf 'repack %s as %s' \
    "$(sha256sum < "$DEB_FROM/stamp" | cut -d' ' -f1)" "$DEB_VERSION")
if [ -f "$DEB_OUT/stamp" ] && [ "$(cat "$DEB_OUT/stamp")" = "$inputs" ]; then
	echo "deb-repack: owlet $DEB_VERSION in $DEB_OUT is up to date"
	exit 0
fi

W=$(mktemp -d "$DEB_OUT/.repack.XXXXXX")
trap 'rm -rf "$W"' EXIT INT TERM
n=0
for d in "$DEB_FROM"/*.deb; do
	[ -f "$d" ] || die "$DEB_FROM: no .deb"
	pkg=$(dpkg-deb -f "$d" Package)
	old=$(dpkg-deb -f "$d" Version)
	arch=$(dpkg-deb -f "$d" Architecture)
	# the old version as a sed pattern: its dots and pluses literal
	oldre=$(printf '%s' "$old" | sed 's/[].[*^$\/+]/\\&/g')
	rm -rf "$W/tree"
	dpkg-deb -R "$d" "$W/tree" || die "$d: dpkg-deb -R failed"
	sed -i -e "s/^Version: .*/Version: $DEB_VERSION/" \
	    -e "/^\(Pre-Depends\|Depends\|Recommends\|Suggests\|Breaks\|Replaces\|Conflicts\):/s/(= $oldre)/(= $DEB_VERSION)/g" \
	    "$W/tree/DEBIAN/control"
	dpkg-deb --build "$W/tree" "$W/${pkg}_${DEB_VERSION}_$arch.deb" >/dev/null ||
		die "$d: dpkg-deb --build failed"
	n=$((n + 1))
done

rm -f "$DEB_OUT/stamp" "$DEB_OUT"/*.deb "$DEB_OUT"/*.changes "$DEB_OUT"/*.buildinfo \
    "$DEB_OUT/build.log" "$DEB_OUT/lintian.txt"
mv "$W"/*.deb "$DEB_OUT"/
printf '%s\n' "$inputs" > "$DEB_OUT/stamp.new"
mv "$DEB_OUT/stamp.new" "$DEB_OUT/stamp"
echo "deb-repack: $n packages of $DEB_FROM as version $DEB_VERSION in $DEB_OUT"
