#!/bin/sh
# shadow-divert: put the tcb-aware shadow-utils programs in the place of
# those of Debian's packages passwd and login, under dpkg diversions, or
# put Debian's back.  Runs on the system that gets them: the maintainer
# scripts of the package owlet-shadow-tcb (installed there as
# /usr/lib/owlet-shadow-tcb/shadow-divert) and image/shadow-tcb.sh
# --install inside an image root.  docs/shadow-tcb.md explains the why.
#
#   shadow-divert install DIR [--local]
#   shadow-divert restore DIR [--local]
#
# DIR holds bin/ and sbin/ with the programs, named as Debian names them.
# Diversions belong to the package owlet-shadow-tcb, or with --local are
# local ones (the image's).  install takes over a diversion of the other
# kind that points to the same place (an image later given the package).
#
# Invariants, for every program at its dpkg path PATH (/bin/login, not
# /usr/bin/login, on merged-/usr bookworm):
#  - PATH never goes missing: Debian's file is copied to PATH.distrib and
#    the diversion registered with --no-rename (dpkg-divert --rename would
#    leave a moment without /bin/login, an Essential file), then the
#    replacement is renamed over PATH.
#  - No set-ID bit is chosen here.  The file put at PATH gets the owner,
#    group and mode of PATH's dpkg-statoverride entry if there is one
#    (control's state, the administrator's), else those of the file it
#    replaces.  PATH.distrib is root:root 0755: a second set-ID copy would
#    serve nobody.
#  - Nothing changes unless every program can be handled: all checks run
#    before the first change.  Running install (or restore) twice is the
#    same as once.
set -eu
prog=shadow-divert
die() { printf '%s: %s\n' "$prog" "$*" >&2; exit 1; }
usage() { die "usage: shadow-divert install|restore DIR [--local]"; }

[ $# -ge 2 ] && [ $# -le 3 ] || usage
action=$1 dir=$2
case $action in install|restore) ;; *) usage ;; esac
if [ "${3:-}" = --local ]; then
	owner=LOCAL other=owlet-shadow-tcb
	set -- --local
elif [ -z "${3:-}" ]; then
	owner=owlet-shadow-tcb other=LOCAL
	set -- --package owlet-shadow-tcb
else
	usage
fi
[ -d "$dir/bin" ] && [ -d "$dir/sbin" ] || die "$dir: no bin/ and sbin/"

# the paths of passwd's and login's files, as dpkg records them
files=$(dpkg-query -L passwd login 2>/dev/null || dpkg-query -L passwd)

# dpkg_path NAME: the path under which passwd or login installs NAME
dpkg_path() {
	printf '%s\n' "$files" | grep -E "^(/usr)?/s?bin/$1\$" | head -n 1
}

# mode_for PATH: "uid gid mode" for the file at PATH: its statoverride
# entry (names resolved by chown), else the present file's
mode_for() {
	m=$(dpkg-statoverride --list "$1" | awk '{ print $1, $2, $3; exit }')
	[ -n "$m" ] || m=$(stat -c '%u %g %a' "$1")
	echo "$m" | tr -d '#'
}

# put SRC PATH: SRC's content at PATH with mode_for PATH, by rename
put() {
	# shellcheck disable=SC2046
	set -- "$1" "$2" $(mode_for "$2")
	cp "$1" "$2.owlet-new"
	chown "$3:$4" "$2.owlet-new"
	chmod "$5" "$2.owlet-new"
	mv -f "$2.owlet-new" "$2"
}

# --- checks first -----------------------------------------------------------
plan=
for f in "$dir"/bin/* "$dir"/sbin/*; do
	[ -f "$f" ] || continue
	p=${f##*/}
	d=$(dpkg_path "$p")
	[ -n "$d" ] || die "$p: not a file of the packages passwd or login"
	[ -f "$d" ] && [ ! -L "$d" ] || die "$d: missing or not a regular file"
	to=$(dpkg-divert --truename "$d")
	by=$(dpkg-divert --listpackage "$d")
	if [ "$to" != "$d" ] && [ "$to" != "$d.distrib" ]; then
		die "$d is diverted to $to by $by"
	fi
	if [ "$to" = "$d.distrib" ] && [ "$by" != "$owner" ] && [ "$by" != "$other" ]; then
		die "$d is diverted by $by"
	fi
	if [ "$action" = restore ] && [ "$by" = "$owner" ]; then
		[ -f "$d.distrib" ] || die "$d.distrib: missing, cannot put Debian's $p back"
	fi
	plan="$plan $f=$d=$by"
done
[ -n "$plan" ] || die "$dir: no programs"

# --- then the changes ---------------------------------------------------------
for e in $plan; do
	f=${e%%=*}; rest=${e#*=}; d=${rest%%=*}; by=${rest#*=}
	if [ "$action" = install ]; then
		if [ -z "$by" ]; then
			cp "$d" "$d.distrib.owlet-new"
			chown root:root "$d.distrib.owlet-new"
			chmod 0755 "$d.distrib.owlet-new"
			mv -f "$d.distrib.owlet-new" "$d.distrib"
		elif [ "$by" = "$other" ]; then
			if [ "$other" = LOCAL ]; then
				dpkg-divert --local --no-rename --remove "$d" >/dev/null
			else
				dpkg-divert --package "$other" --no-rename --remove "$d" >/dev/null
			fi
		fi
		[ "$by" = "$owner" ] ||
			dpkg-divert "$@" --no-rename --divert "$d.distrib" --add "$d" >/dev/null
		put "$f" "$d"
		# an upgrade of passwd/login unpacked a new one with its mode
		chown root:root "$d.distrib"
		chmod 0755 "$d.distrib"
	elif [ "$by" = "$owner" ]; then
		put "$d.distrib" "$d"
		dpkg-divert "$@" --no-rename --remove "$d" >/dev/null
		rm -f "$d.distrib"
	fi
done
