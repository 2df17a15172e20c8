#!/bin/sh
# Install the Debian packages owlet needs to build and test; quiet and quick
# when nothing is missing.
#
# Packages whose installation would change this machine's /etc (PAM stacks
# through pam-auth-update, conffiles) are never installed: they are
# downloaded and unpacked under $B/cache/extract, and tests use them from
# there inside private namespaces.
set -eu
B=${B:-build}
pkgs="gcc make pkg-config perl util-linux libpam0g-dev libcrypt-dev
libpasswdqc-dev libssl-dev libcap-dev pamtester mandoc clang
libclang-rt-14-dev time dpkg-dev mtree-netbsd libarchive-tools minisign
signify-openbsd aide libsodium-dev strace cppcheck clang-tools-14 debootstrap
debhelper fakeroot lintian ansible
e2fsprogs dosfstools mtools fdisk qemu-utils qemu-system-x86 ovmf
openssh-client iproute2 expect socat
podman runc gzip xz-utils zstd libcap2-bin xorriso squashfs-tools"
# systemd-nspawn (tests/container) comes unpacked, in the version of the
# host's systemd: installing systemd-container would configure the host.
extract_pkgs="libpam-passwdqc passwdqc libnss-db
systemd-container=$(dpkg-query -W -f='${Version}' systemd 2>/dev/null || :)"

export DEBIAN_FRONTEND=noninteractive
updated=
apt_update() {
	[ -n "$updated" ] || apt-get update -qq
	updated=1
}

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "deps: installing$missing"
	apt_update
	# Upgrade-By-Source-Package=false: podman's libsubid4 would otherwise
	# upgrade the host's passwd and login (set-uid programs) with it.
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends \
	    -o APT::Get::Upgrade-By-Source-Package=false $missing >/dev/null
fi

X=$B/cache/extract
for p in $extract_pkgs; do	# NAME or NAME=VERSION
	case $p in *=) p=${p%=} ;; esac
	n=${p%%=*}
	[ -e "$X/.$n" ] && continue
	echo "deps: unpacking $p under $X (not installed)"
	mkdir -p "$B/cache/debs" "$X"
	if ! (cd "$B/cache/debs" && apt-get download -qq "$p" 2>/dev/null); then
		apt_update
		(cd "$B/cache/debs" && apt-get download -qq "$p")
	fi
	# shellcheck disable=SC2012 # the newest download; names without blanks
	dpkg-deb -x "$(ls -t "$B/cache/debs/${n}_"*.deb | head -n 1)" "$X"
	touch "$X/.$n"
done
