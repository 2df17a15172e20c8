#!/bin/bash
# image/shadow-tcb.sh: tcb-aware shadow-utils for the image (docs/shadow-tcb.md).
#
#   image/shadow-tcb.sh                 build (cached) and stage; the stage
#                                       directory is the last stdout line
#   image/shadow-tcb.sh --install ROOT  the same, then install the staged
#                                       programs into the root tree ROOT
#   image/shadow-tcb.sh --copy DIR      the same, then copy the stage to
#                                       DIR (new), still under its lock
#                                       (the package build: debian/rules)
#
# Build: Debian 12's shadow 4.13 source package, built --with-tcb against
# owlet's libtcb by tests/compat/shadow-utils.sh (download through a
# private apt configuration, configure, make; cached), here with
# image/patches/*.patch applied and Debian's hardening flags, in its own
# work directory $B/cache/shadow-tcb.  The programs are staged, stripped,
# under $B/cache/shadow-tcb/stage/usr/{bin,sbin}/ with mode 0755 (no
# set-ID bits: the stage is a build product on the build host, not an
# installed tree).
#
# Install (run after make install DESTDIR=ROOT, before or after control;
# make image installs the package owlet-shadow-tcb instead):
# inside ROOT (image/chroot.sh, private namespaces), each staged program
# replaces Debian's under a local dpkg diversion to PATH.distrib, so an
# upgrade of the package passwd or login unpacks Debian's new binary as
# PATH.distrib and leaves ours in place.  This has the effect of
# dpkg-divert --rename without the moment when PATH is missing (which
# dpkg-divert warns about for Essential packages such as login): Debian's
# file is copied to PATH.distrib, the diversion registered with
# --no-rename, and ours renamed over PATH.  Ours gets the owner, group
# and mode of the file it replaces (control's state if control ran
# first); PATH.distrib is made root:root 0755.  owlet's own chage, when
# make install put it over Debian's, is protected by a diversion too (no
# copy: the file in place is ours).  Installing again only refreshes the
# programs.  The diversion work is image/shadow-divert.sh, which the
# package owlet-shadow-tcb runs the same way (debian/, docs/packaging.md).
#
# Environment: B (owlet build dir, default TOP/build; libtcb built);
# SHADOW_TCB_WORK (work directory, default $B/cache/shadow-tcb; the
# package build shares the image's, see debian/rules); SHADOW_DSC (a .dsc
# of Debian's shadow to build instead of downloading one).
# Exit status: 0 done, 77 Debian's source package could not be downloaded
# (network), 1 anything else.  Needs root for --install.
set -euo pipefail
prog=shadow-tcb.sh
here=$(cd "$(dirname "$0")" && pwd)
TOP=$(dirname "$here")
B=${B:-$TOP/build}
. "$here/lib.sh"
W=${SHADOW_TCB_WORK:-$B/cache/shadow-tcb}
case $W in /*) ;; *) W=$PWD/$W ;; esac
STAGE=$W/stage

# The programs of Debian's packages "passwd" and "login" that the image
# takes from this build (usr/bin or usr/sbin, as Debian installs them).
# All of them read /etc/login.defs: Debian's, built without tcb, print
# "configuration error - unknown item 'USE_TCB'" on every run.
#   tcb-aware (libtcb):  useradd usermod userdel passwd chpasswd pwck vipw
#   refuses with USE_TCB: newusers (patch 04); pwconv pwunconv (upstream)
#   no shadow entries:   the group tools, chfn chsh expiry gpasswd login
#                        newgrp faillog lastlog
# Not taken: chage (owlet's own, tcb/progs/chage.c), nologin (reads no
# configuration), cppw/cpgr (Debian adds them through Makefile.am, which
# needs autoreconf; see docs/shadow-tcb.md), shadowconfig (a script).
# Links follow their targets: vigr -> vipw, sg -> newgrp.
UBIN="passwd chfn chsh expiry gpasswd newgrp faillog lastlog login"
USBIN="useradd usermod userdel chpasswd chgpasswd newusers pwck grpck
	pwconv pwunconv grpconv grpunconv groupadd groupdel groupmod groupmems vipw"

# --- build and stage --------------------------------------------------------
build() {
	local out rc
	out=$(B=$B SHADOW_WORK=$W SHADOW_HARDEN=1 \
	    SHADOW_PATCHES="$(printf '%s ' "$here"/patches/*.patch)" \
	    SHADOW_EXTRA_PROGS="$(echo $UBIN $USBIN)" \
	    bash "$TOP/tests/compat/shadow-utils.sh") || {
		rc=$?
		[ "$rc" = 77 ] && exit 77
		die "building shadow-utils failed (tests/compat/shadow-utils.sh, exit $rc)"
	}
	BIN=$(printf '%s\n' "$out" | tail -n 1)
	[ -d "$BIN" ] || die "no build output directory"

	# Staged afresh from the cached build (cheap), under a lock held
	# until exit, so that no concurrent run sees a half-made stage.
	exec 7>"$W/stage.lock"
	flock -w 300 7 || die "timed out waiting for $W/stage.lock"
	rm -rf "$STAGE.new"
	mkdir -p "$STAGE.new/usr/bin" "$STAGE.new/usr/sbin"
	for p in $UBIN; do install -s -m 0755 "$BIN/$p" "$STAGE.new/usr/bin/$p"; done
	for p in $USBIN; do install -s -m 0755 "$BIN/$p" "$STAGE.new/usr/sbin/$p"; done
	rm -rf "$STAGE"
	mv "$STAGE.new" "$STAGE"
}

# --- install into a root tree ---------------------------------------------
# The part that runs inside the root (image/chroot.sh): $1 = the stage,
# $2 = image/shadow-divert.sh, both copied into the root.
inner() {
	cat <<'EOF'
set -eu
S=$1
die() { echo "shadow-tcb.sh (in root): $*" >&2; exit 1; }

# First, before anything changes: every program finds its libraries here
# (libtcb.so.0 from owlet's make install).
bad=$(for f in "$S"/usr/bin/* "$S"/usr/sbin/*; do
	ldd "$f" 2>&1 | sed -n "s|^|${f##*/}: |; /not found/p"
done)
[ -z "$bad" ] || die "missing libraries (make install owlet first): $bad"

# Debian's programs diverted to PATH.distrib, ours in their place
# (image/shadow-divert.sh; local diversions).
sh "$2" install "$S/usr" --local

# owlet's chage, installed by make install over Debian's: keep a later
# upgrade of passwd from overwriting it (no rename: the file is ours).
c=/usr/bin/chage
if [ -f "$c" ] && [ "$(dpkg-divert --truename "$c")" = "$c" ]; then
	sum=$(awk '$2 == "usr/bin/chage" { print $1 }' /var/lib/dpkg/info/passwd.md5sums)
	if [ -n "$sum" ] && [ "$(md5sum < "$c" | cut -d' ' -f1)" != "$sum" ]; then
		dpkg-divert --local --no-rename --divert "$c.distrib" --add "$c" >/dev/null
	fi
fi
EOF
}

# check_root DIR: sets R, or dies before anything is built or changed.
check_root() {
	R=$(cd "$1" 2>/dev/null && pwd -P) || die "$1: no such directory"
	[ "$R" != / ] || die "refusing to install into /"
	[ "$(id -u)" = 0 ] || die "--install must run as root (chroot, owners)"
	[ -r "$R/var/lib/dpkg/info/passwd.list" ] || die "$R: no Debian package passwd"
	[ -d "$R/var/tmp" ] && [ ! -L "$R/var/tmp" ] || die "$R/var/tmp: not a directory"
}

# install_root: the stage into $R, through a copy under $R/var/tmp that
# the chroot sees (chroot.sh puts a fresh tmpfs on /tmp).
install_root() {
	local rc
	tmp=$(mktemp -d "$R/var/tmp/owlet-shadow-tcb.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	rc=0
	mkdir "$tmp/stage" && cp -a "$STAGE/." "$tmp/stage/" &&
	cp "$here/shadow-divert.sh" "$tmp/" && inner > "$tmp/install.sh" &&
	sh "$here/chroot.sh" "$R" /bin/sh "${tmp#"$R"}/install.sh" \
	    "${tmp#"$R"}/stage" "${tmp#"$R"}/shadow-divert.sh" || rc=$?
	rm -rf "$tmp"
	[ "$rc" = 0 ] || die "installing into $R failed"
	note "installed into $R: $(echo $UBIN $USBIN | wc -w) programs (Debian's diverted to *.distrib)"
}

case ${1:-} in
"")	build; echo "$STAGE" ;;
--install)
	[ $# = 2 ] || die "usage: shadow-tcb.sh [--install ROOT | --copy DIR]"
	check_root "$2"; build; install_root ;;
--copy)
	# A concurrent build (make image, another make deb) restages under
	# the lock as soon as build() returns it: copy while it is held.
	[ $# = 2 ] || die "usage: shadow-tcb.sh [--install ROOT | --copy DIR]"
	[ ! -e "$2" ] || die "$2 exists"
	build; cp -a "$STAGE" "$2" || die "copying the stage to $2 failed" ;;
*)	die "usage: shadow-tcb.sh [--install ROOT | --copy DIR]" ;;
esac
