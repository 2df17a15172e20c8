#!/bin/bash
# Build Debian 12's shadow-utils (source package "shadow", 4.13) with
# --with-tcb against owlet's libtcb, unchanged, and check how the programs
# link to it.  Used by tests/tcb/shadow-utils.t; can be run by hand.
#
#   tests/compat/shadow-utils.sh        prints the directory of the built
#                                       programs as the last stdout line
#   tests/compat/shadow-utils.sh --fetch
#                                       only downloads the source package
#                                       (if not cached) and prints its .dsc
#
# Environment: B (owlet build dir, default TOP/build; libtcb must be built),
# SHADOW_CACHE (default $B/cache).  Under it:
#   apt/            private apt configuration, lists and the source package
#                   (the host's /etc/apt and /var/lib/apt are only read)
#   shadow-utils/   bin/ with the programs, build.log, stamp, include/
# The source is unpacked and built in a temporary directory outside $B,
# removed afterwards: the top Makefile includes every *.d under $B, and
# shadow's tree has directories named pam.d and login.defs.d.
# A second run downloads nothing; it rebuilds only when tcb.h, the source
# package, the chage patch or this script changed (the programs link libtcb
# dynamically, so a rebuilt libtcb needs no rebuild).
#
# image/shadow-tcb.sh reuses this build for the image, in its own work
# directory, with these (all unset here):
#   SHADOW_WORK         work directory instead of $SHADOW_CACHE/shadow-utils
#   SHADOW_PATCHES      patch files (-p1) applied, in order, before configure
#   SHADOW_EXTRA_PROGS  more programs of src/ copied to bin/
#   SHADOW_HARDEN=1     Debian's build flags (dpkg-buildflags, hardening=+all)
#                       and vipw's default editor, as in debian/rules
# and owlet's package build (debian/rules, owlet-shadow-tcb) with
#   SHADOW_DSC          this source package's .dsc, nothing downloaded
#
# Exit status: 0 built and checked, 77 the source package could not be
# downloaded (network), 1 anything else (missing tool, build or link check
# failed).  Needs: apt, dpkg-dev (dpkg-source, patch, xz-utils), gcc, make,
# binutils, libpam0g-dev, libcrypt-dev.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$TOP/build}
case $B in /*) ;; *) B=$TOP/$B ;; esac
CACHE=${SHADOW_CACHE:-$B/cache}
case $CACHE in /*) ;; *) CACHE=$PWD/$CACHE ;; esac
APT=$CACHE/apt
W=${SHADOW_WORK:-$CACHE/shadow-utils}
case $W in /*) ;; *) W=$PWD/$W ;; esac
PATCH=$TOP/tests/compat/chage-tcb-set-user.patch
EXTRA_PATCHES=${SHADOW_PATCHES:-}
# The programs the test runs; all of them call libtcb.
TCB_PROGS="chage passwd pwck vipw useradd usermod userdel"
PROGS="$TCB_PROGS ${SHADOW_EXTRA_PROGS:-}"
TCB_SYMS="lckpwdf_tcb ulckpwdf_tcb tcb_drop_priv tcb_gain_priv tcb_is_suspect"

say() { printf 'shadow-utils: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

FETCH_ONLY=
case ${1:-} in
"") ;;
--fetch) FETCH_ONLY=1 ;;
*) die "usage: shadow-utils.sh [--fetch]" ;;
esac
for tool in apt-get dpkg-source patch gcc make readelf nm flock sha256sum; do
	command -v "$tool" >/dev/null ||
	    die "$tool not found (apt-get install apt dpkg-dev patch gcc make binutils util-linux)"
done
if [ -z "$FETCH_ONLY" ]; then
	if [ ! -e "$B/lib/libtcb.so.0" ] || [ ! -e "$B/lib/libtcb.so" ]; then
		die "$B/lib/libtcb.so.0 missing: run make first"
	fi
	[ -r "$TOP/tcb/lib/tcb.h" ] || die "$TOP/tcb/lib/tcb.h missing"
fi

mkdir -p "$APT" "$W"
# One builder at a time (parallel prove runs share the cache).
exec 9>"$CACHE/shadow-utils.lock"
flock -w 900 9 || die "timed out waiting for $CACHE/shadow-utils.lock"

# --- 1. source package, through a private apt configuration -------------
apt_get() {
	apt-get -q \
	    -o Dir::Etc::sourcelist=/dev/null \
	    -o Dir::Etc::sourceparts="$APT/etc" \
	    -o Dir::State::Lists="$APT/lists" \
	    -o Dir::Cache="$APT/cache" \
	    -o APT::Sandbox::User=root \
	    -o Acquire::Retries=1 -o Acquire::http::Timeout=30 "$@"
}
newest_dsc() {
	{ find "$APT/src" -maxdepth 1 -name 'shadow_*.dsc' 2>/dev/null || :; } | sort -V | tail -1
}

DSC=${SHADOW_DSC:-$(newest_dsc)}
if [ -n "${SHADOW_DSC:-}" ]; then
	[ -r "$DSC" ] || die "SHADOW_DSC=$DSC: not readable"
elif [ -z "$DSC" ]; then
	say "downloading Debian's shadow source package into $APT"
	mkdir -p "$APT/etc" "$APT/lists/partial" "$APT/cache/archives/partial" "$APT/src"
	# Debian's own archive entries, turned into deb-src ones.
	if [ -r /etc/apt/sources.list.d/debian.sources ]; then
		sed 's/^Types:.*$/Types: deb-src/' \
		    /etc/apt/sources.list.d/debian.sources > "$APT/etc/src.sources"
	elif grep -q '^deb ' /etc/apt/sources.list 2>/dev/null; then
		sed -n 's/^deb /deb-src /p' /etc/apt/sources.list > "$APT/etc/src.list"
	else
		say "no Debian apt sources found in /etc/apt"; exit 77
	fi
	# A suite that fails to update is only a warning; "source" decides.
	if ! apt_get update >"$APT/update.log" 2>&1; then
		tail -3 "$APT/update.log" >&2
		say "apt-get update failed (network?)"
		exit 77
	fi
	if ! (cd "$APT/src" && apt_get source --download-only shadow) \
	    >"$APT/source.log" 2>&1; then
		rm -f "$APT"/src/shadow_*.dsc
		tail -3 "$APT/source.log" >&2
		say "apt-get source shadow failed (network?)"
		exit 77
	fi
	DSC=$(newest_dsc)
	[ -n "$DSC" ] || { say "no shadow_*.dsc after download"; exit 77; }
fi
VER=$(basename "$DSC" .dsc); VER=${VER#shadow_}
if [ -n "$FETCH_ONLY" ]; then
	echo "$DSC"
	exit 0
fi

# --- 2. configure and build (cached) --------------------------------------
# Close to Debian's debian/rules, minus optional dependencies (SELinux,
# audit, ACL, xattr, btrfs, NLS, man pages) and with tcb on.
CONFIGURE=(--prefix=/usr --sysconfdir=/etc --localstatedir=/var
	--with-tcb --with-libpam --with-yescrypt --enable-shadowgrp
	--disable-account-tools-setuid --with-group-name-max-length=32
	--without-selinux --without-audit --without-acl --without-attr
	--without-libcrack --without-btrfs --without-su
	--disable-nls --disable-man)
INC=$W/include
FLAGS=(CPPFLAGS="-I$INC" LDFLAGS="-L$B/lib")
if [ "${SHADOW_HARDEN:-}" = 1 ]; then
	bf() { DEB_BUILD_MAINT_OPTIONS="hardening=+all reproducible=-fixfilepath,-fixdebugpath" \
	    dpkg-buildflags --get "$1"; }
	# The editor as debian/rules has it: make's shell removes one level.
	FLAGS=(CPPFLAGS="-I$INC $(bf CPPFLAGS)" LDFLAGS="-L$B/lib $(bf LDFLAGS)"
	    CFLAGS="$(bf CFLAGS) -DDEFAULT_EDITOR=\"\\\"sensible-editor\\\"\"")
fi
# (The work and owlet build directories are left out of the key: the
# package build's is a fresh copy each time, and the programs record
# neither.)
FLAGS_KEY=${FLAGS[*]//"$W"/W}
KEYIN=$(printf '%s\n' "$VER" "${CONFIGURE[*]}" "$PROGS" "${FLAGS_KEY//"$B"/B}")
KEY=$( { echo "$KEYIN"
    cat "$TOP/tcb/lib/tcb.h" "$PATCH" "$0" $EXTRA_PATCHES; } | sha256sum | cut -c1-64)

built() {
	[ "$(cat "$W/stamp" 2>/dev/null)" = "$KEY" ] || return 1
	for p in $PROGS chage-tcbfix; do [ -x "$W/bin/$p" ] || return 1; done
}

if built; then
	say "using cached build of shadow $VER in $W/bin"
else
	say "building shadow $VER --with-tcb (log: $W/build.log)"
	rm -rf "${W:?}/tree" "${W:?}/bin" "${W:?}/stamp" "$INC"
	mkdir -p "$INC" "$W/bin"
	TREE=$(mktemp -d "${TMPDIR:-/tmp}/owlet-shadow.XXXXXX")
	trap 'rm -rf "$TREE"' EXIT
	# Only tcb.h on the include path (tcb/lib holds private headers too).
	cp "$TOP/tcb/lib/tcb.h" "$INC/"
	start=$(date +%s)
	set +e
	(
		set -ex
		cd "$TREE"
		dpkg-source -x "$DSC" src
		cd src
		for p in $EXTRA_PATCHES; do patch -p1 < "$p"; done
		./configure "${CONFIGURE[@]}" "${FLAGS[@]}"
		grep -q '^#define WITH_TCB 1' config.h
		make -j"$(nproc)"
		for p in $PROGS; do cp "src/$p" "$W/bin/"; done
		# chage-tcbfix: stock chage cannot reach libtcb (see the patch).
		patch -p1 < "$PATCH"
		make -C src chage
		cp src/chage "$W/bin/chage-tcbfix"
	) >"$W/build.log" 2>&1
	rc=$?
	set -e
	if [ $rc -ne 0 ]; then
		tail -25 "$W/build.log" >&2
		die "build of shadow $VER failed (full log: $W/build.log)"
	fi
	rm -rf "$TREE"
	echo "$KEY" > "$W/stamp"
	echo "$KEYIN" > "$W/stamp.in"	# what the key is made of, but files
	say "built in $(( $(date +%s) - start )) s"
fi

# --- 3. link checks: NEEDED libtcb.so.0, tcb symbols imported from it with
# version TCB_0.9.8 (or unversioned), nothing from libtcb linked in. -------
for p in $TCB_PROGS chage-tcbfix; do
	f=$W/bin/$p
	grep -q 'NEEDED.*\[libtcb\.so\.0\]' <<<"$(readelf -d "$f")" ||
	    die "$p: no NEEDED libtcb.so.0"
	syms=$(nm -D "$f")
	for s in $TCB_SYMS; do
		grep -Eq "^ +U $s(@TCB_0\.9\.8)?$" <<<"$syms" ||
		    die "$p: $s not imported as $s@TCB_0.9.8"
	done
	if grep -Eq ' [^U] (tcb_|lckpwdf_tcb|ulckpwdf_tcb)' <<<"$syms"; then
		die "$p: defines tcb symbols itself (static libtcb?)"
	fi
done
say "link checks passed: $TCB_PROGS chage-tcbfix need libtcb.so.0, import TCB_0.9.8"
echo "$W/bin"
