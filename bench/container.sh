#!/bin/sh
# bench/container.sh (make bench-container): compressed size of owlet's
# base flavour (make container: Debian's minbase, owlet's packages, the
# privilege model) against a stock Debian minbase built by the same
# pipeline in the same run (issue 16: goal <= 1.1x).
#
# The stock image: the cached minbase ($B/cache/rootfs/minbase: debootstrap
# --variant=minbase bookworm and its updates, what the base flavour starts
# from) through `image/container.sh --tree`, the base flavour's own steps
# (image_clean, the reproducible tar, gzip -n, the OCI layout and
# archive), as $B/image/debian-minbase.oci*, removed at the end.  Prints
# the sizes of the gzip layer (what a registry stores and a client
# downloads), the oci-archive and the uncompressed layer, the ratios, what
# the packages add, and a PASS/FAIL line against the goal; exits 0 whatever
# it says (a benchmark reports, it does not gate).  Needs root
# (container.sh); not part of make check.
#
# Invariants: the minbase is read under a shared lock on
# $B/cache/rootfs/lock and the base flavour under one on
# $B/image/container.lock, so no concurrent build replaces them.
# shellcheck disable=SC2034 # MEDIAN_DECIMALS, fail: read by bench/lib.sh
set -eu
ME=container.sh
MEDIAN_DECIMALS=3
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/lib/container.sh"

[ "$(id -u)" = 0 ] || die "needs root (image/container.sh)"
O=$B/image
OWL=$O/owlet-bookworm-base.oci
STOCK=$O/debian-minbase.oci
C=$B/cache/rootfs
[ -d "$OWL" ] || die "$OWL missing (make container)"
mkdir -p "$B/bench"
T=$(mktemp -d "$B/bench/container.XXXXXX")
trap 'rm -rf "$STOCK" "$STOCK.tar" "$T"' EXIT
trap 'exit 130' HUP INT TERM

exec 9>>"$C/lock"
flock -s 9
B=$B sh "$TOP/image/rootfs.sh" --check minbase || die "$C/minbase missing or out of date (make container)"
echo "building $STOCK (image/container.sh --tree $C/minbase) ..."
B=$B sh "$TOP/image/container.sh" --tree "$C/minbase" debian-minbase ||
	die "image/container.sh --tree $C/minbase debian-minbase failed"
exec 5<"$O/container.lock"
flock -s 5
[ -d "$OWL" ] || die "$OWL vanished (a concurrent make container?)"

ol=$(oci_blob "$OWL" layer) sl=$(oci_blob "$STOCK" layer)
size() { stat -c %s "$1"; }
ogz=$(size "$ol") sgz=$(size "$sl")
oar=$(size "$OWL.tar") sar=$(size "$STOCK.tar")
otar=$(gzip -dc "$ol" | wc -c) star=$(gzip -dc "$sl" | wc -c)
# installed packages: "name installed-KiB", from the layers' dpkg status
pkgs() {
	gzip -dc "$1" | tar -xOf - ./var/lib/dpkg/status |
	    awk '/^Package: / { p = $2 } /^Status: .* installed$/ { i = 1 }
	    /^Installed-Size: / { s = $2 } /^$/ { if (i) print p, s; p = ""; i = 0; s = 0 }
	    END { if (i) print p, s }' | LC_ALL=C sort
}
pkgs "$ol" > "$T/owlet"
pkgs "$sl" > "$T/stock"

echo "owlet bench: container base flavour vs stock Debian minbase (same pipeline)"
machine ""
echo
echo "sizes (bytes)               owlet        stock  owlet/stock"
printf '%-20s %12s %12s %8s\n' "gzip layer" "$ogz" "$sgz" "$(ratio "$ogz" "$sgz" 3)"
printf '%-20s %12s %12s %8s\n' "oci-archive" "$oar" "$sar" "$(ratio "$oar" "$sar" 3)"
printf '%-20s %12s %12s %8s\n' "layer (tar)" "$otar" "$star" "$(ratio "$otar" "$star" 3)"
echo "packages: owlet $(wc -l < "$T/owlet"), stock $(wc -l < "$T/stock")"
# shellcheck disable=SC2046 # the word lists are printed on one line
echo "  only in owlet (installed KiB):" $(LC_ALL=C join -v 1 "$T/owlet" "$T/stock" | awk '{ printf "%s(%s) ", $1, $2 }')
# shellcheck disable=SC2046
echo "  only in stock (installed KiB):" $(LC_ALL=C join -v 2 "$T/owlet" "$T/stock" | awk '{ printf "%s(%s) ", $1, $2 }')
echo
fail=0
r=$(ratio "$ogz" "$sgz" 3)
verdict "$(holds "$r" 1.1 '<=')" "base flavour, compressed: owlet/stock = $r ($ogz / $sgz bytes; goal <= 1.1)"
exit 0
