#!/bin/sh
# Build owlet's Debian packages (make deb; see mk/deb.mk).
#
# The tree (tracked and untracked files that git does not ignore; without
# git, everything but build directories and .git) is copied to a fresh
# directory under $B/cache (which the top Makefile's search for *.d
# dependency files skips), where dpkg-buildpackage -b -us -uc runs; its
# own build directory is inside the copy.  Nothing outside $B changes.
#
# Invariants:
# - DEB_OUT holds the packages of one build (old ones are removed before
#   the new ones move in), under an exclusive lock on DEB_OUT/lock while
#   they change; readers (image/build.sh) copy them under a shared lock.
# - DEB_OUT/stamp names the inputs of the packages there (a hash of the
#   copied tree, Debian's shadow source included, its modes and symlinks;
#   the version, build profiles, lintian setting, DEB_BUILD_OPTIONS and
#   the versions of every package installed on the build host).  It is
#   removed before the packages change and written after lintian passed,
#   so a second make deb with the same inputs keeps them (a second or
#   two) and anything else rebuilds.  DEB_FORCE=1 rebuilds regardless.
set -eu
prog=deb.sh
die() { printf '%s: %s\n' "$prog" "$*" >&2; exit 1; }

B=${B:-build}
DEB_OUT=${DEB_OUT:-$B/deb}
DEB_VERSION=${DEB_VERSION:-}
DEB_LINTIAN=${DEB_LINTIAN:-1}
DEB_SHADOW=${DEB_SHADOW:-1}
DEB_FORCE=${DEB_FORCE:-0}
TOP=$(pwd)

command -v dpkg-buildpackage >/dev/null || die "dpkg-buildpackage missing (make deps)"
command -v dh >/dev/null || die "debhelper missing (make deps)"
[ -f debian/control ] || die "run from the top of the tree"

mkdir -p "$B/cache" "$DEB_OUT"
exec 9>>"$DEB_OUT/lock"
flock 9
W=$(mktemp -d "$B/cache/deb-build.XXXXXX")
W=$(cd "$W" && pwd)
trap 'rm -rf "$W"' EXIT INT TERM
S=$W/owlet
mkdir "$S"

# the tree, as git sees it (working copy, untracked files included),
# without what no package is built from: the test scripts (the tests'
# C helpers stay: make all builds them), docs, benchmark scripts and
# contrib.  They are not inputs of the stamp either: editing a test does
# not rebuild the packages, nor the image and disk made from them.
if git -C "$TOP" rev-parse --git-dir >/dev/null 2>&1; then
	# shellcheck disable=SC2016 # $f belongs to the inner sh
	git -C "$TOP" ls-files -z --cached --others --exclude-standard |
	    grep -zEv '^(tests/.*\.(t|exp)|tests/lib/.*\.sh|docs/.*|contrib/.*|bench/.*\.sh)$' |
	    (cd "$TOP" && xargs -0 sh -c 'for f; do [ -e "$f" ] || [ -L "$f" ] && printf "%s\0" "$f"; done; :' sh) |
	    tar -C "$TOP" --null --no-recursion -T - -cf - | tar -C "$S" -xf -
else
	tar -C "$TOP" --exclude=./.git --exclude='./build*' -cf - . | tar -C "$S" -xf -
fi
[ -x "$S/debian/rules" ] || die "debian/rules missing in the copy"

if [ -n "$DEB_VERSION" ]; then
	# a changelog entry for DEB_VERSION, by the last entry's maintainer
	who=$(sed -n 's/^ -- \(.*>\)  .*/\1/p' "$S/debian/changelog" | head -n 1)
	{
		printf 'owlet (%s) unstable; urgency=medium\n\n' "$DEB_VERSION"
		printf '  * Built as version %s (make deb DEB_VERSION=%s).\n\n' \
		    "$DEB_VERSION" "$DEB_VERSION"
		printf ' -- %s  %s\n\n' "$who" "$(date -R)"
		cat "$S/debian/changelog"
	} > "$S/debian/changelog.new"
	mv "$S/debian/changelog.new" "$S/debian/changelog"
fi
version=$(cd "$S" && dpkg-parsechangelog -S Version)

# owlet-shadow-tcb is built from Debian's shadow source package, fetched
# (once, into $B/cache/apt) by the compat build's script and copied into
# the tree as shadow-src/; its build work is shared with the image's
# ($B/cache/shadow-tcb, redone only when an input changes).  Without the
# source (no network) or with DEB_SHADOW=0 the package is left out
# through the build profile noshadow.
profiles=
if [ "$DEB_SHADOW" = 1 ]; then
	rc=0
	B=$B bash tests/compat/shadow-utils.sh --fetch >"$W/fetch.out" 2>"$W/fetch.log" || rc=$?
	dsc=$(tail -n 1 "$W/fetch.out")
	if [ "$rc" = 0 ] && [ -r "$dsc" ]; then
		mkdir "$S/shadow-src"
		cp "$dsc" "$S/shadow-src/"
		# the files the .dsc names, beside it
		sed -n '/^Files:/,/^[^ ]/s/^ [0-9a-f]\{32\} [0-9]* //p' "$dsc" |
		while read -r f; do cp "$(dirname "$dsc")/$f" "$S/shadow-src/"; done
		export OWLET_SHADOW_WORK
		OWLET_SHADOW_WORK=$(cd "$B" && pwd)/cache/shadow-tcb
	elif [ "$rc" = 77 ]; then
		echo "deb: Debian's shadow source cannot be downloaded: owlet-shadow-tcb left out" >&2
		tail -n 2 "$W/fetch.log" >&2
		profiles=noshadow
	else
		cat "$W/fetch.log" >&2
		die "fetching Debian's shadow source failed"
	fi
else
	profiles=noshadow
fi

# The stamp: what the packages are made from.  The tree's file times are
# not inputs (dpkg-buildpackage takes SOURCE_DATE_EPOCH from the
# changelog); the host's package versions stand for the toolchain and
# the build dependencies.
inputs=$(
	printf 'version %s\nprofiles %s\nlintian %s\noptions %s\ntree ' \
	    "$version" "${profiles:-none}" "$DEB_LINTIAN" "${DEB_BUILD_OPTIONS:-}"
	tar -C "$S" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner \
	    --format=gnu -cf - . | sha256sum | cut -d' ' -f1
	printf 'host '
	dpkg-query -W -f '${Package}:${Architecture} ${Version}\n' | sort |
	    sha256sum | cut -d' ' -f1
)
if [ "$DEB_FORCE" != 1 ] && [ -f "$DEB_OUT/stamp" ] &&
    [ "$(cat "$DEB_OUT/stamp")" = "$inputs" ]; then
	echo "deb: owlet $version in $DEB_OUT is up to date"
	exit 0
fi

log=$W/build.log
echo "deb: building owlet $version in $S"
# The build inside the copy must not see this make's variables: B from
# the environment or from MAKEFLAGS (make deb B=/abs/build puts it there)
# would point the copy's "make clean" at the real build directory.
if ! (cd "$S" &&
    env -u B -u DEB_OUT -u DEB_VERSION -u DEB_LINTIAN -u MAKEFLAGS -u MFLAGS \
    -u MAKELEVEL -u MAKEOVERRIDES -u MAKEFILES \
    DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:-parallel=$(nproc)}" \
    dpkg-buildpackage -b -us -uc ${profiles:+-P"$profiles"}) >"$log" 2>&1; then
	tail -n 30 "$log" >&2
	die "dpkg-buildpackage failed (log above)"
fi

# one build's packages in DEB_OUT
rm -f "$DEB_OUT/stamp" "$DEB_OUT"/*.deb "$DEB_OUT"/*.buildinfo "$DEB_OUT"/*.changes
mv "$W"/*.deb "$W"/*.buildinfo "$W"/*.changes "$DEB_OUT"/
cp "$log" "$DEB_OUT/build.log"
(cd "$DEB_OUT" && for d in *.deb; do
	printf '  %-48s %8s bytes\n' "$d" "$(stat -c %s "$d")"
done)

if [ "$DEB_LINTIAN" = 1 ]; then
	command -v lintian >/dev/null || die "lintian missing (make deps)"
	# Overrides ship in the packages (debian/*.lintian-overrides, each
	# with its reason); any warning or error that no override justifies
	# (E:, W:) is fatal.  Informational tags and the overridden ones (O:,
	# with the reason) are listed too.  (--fail-on would count the
	# overridden tags that --show-overrides lists.)  Its temporary files
	# in the work directory: lintian leaves mldbm-elf-* files behind.
	rc=0
	TMPDIR=$W lintian --fail-on none --display-info --show-overrides \
	    "$DEB_OUT"/*.changes > "$W/lintian.txt" 2>&1 || rc=$?
	grep -v '^running with root privileges' "$W/lintian.txt" > "$DEB_OUT/lintian.txt" || :
	if [ "$rc" != 0 ] || grep -q '^[EW]:' "$DEB_OUT/lintian.txt"; then
		cat "$DEB_OUT/lintian.txt" >&2
		die "lintian: warnings or errors (above)"
	fi
	echo "deb: lintian: no error or warning; $(grep -c '^O:' "$DEB_OUT/lintian.txt") overridden, $(grep -c '^I:' "$DEB_OUT/lintian.txt") info ($DEB_OUT/lintian.txt)"
fi

printf '%s\n' "$inputs" > "$DEB_OUT/stamp.new"
mv "$DEB_OUT/stamp.new" "$DEB_OUT/stamp"
