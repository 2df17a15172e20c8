#!/bin/sh
# Install the Debian packages owlet needs to build and test; quiet and quick
# when nothing is missing.
set -eu
pkgs="gcc make pkg-config perl util-linux libpam0g-dev libcrypt-dev
libpasswdqc-dev libssl-dev libcap-dev pamtester mandoc clang
libclang-rt-14-dev time dpkg-dev"
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
