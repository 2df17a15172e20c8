#!/bin/sh
# bench/boot.sh (make bench-boot): boot-to-SSH time and disk size of the
# owlet disk (make disk) against a stock Debian disk built by the same
# pipeline, in the same run (issue 19: goal <= 1.1x the time, <= 1.0x the
# qcow2 size).
#
# The stock disk: a copy of the cached debootstrap base ($B/cache/rootfs/
# base: minbase plus the same package list as owlet's, make rootfs) plus
# only what makes it reachable the same way: systemd-networkd enabled with
# owlet's 80-owlet-dhcp.network, /etc/machine-id emptied, multi-user.target
# the default.  Everything else stays Debian's, its baked SSH host keys
# included (owlet makes its keys at first boot: part of the difference).
# `image/disk.sh --tree` turns it into $B/image/debian-bookworm.raw/.qcow2
# with the same kernel, ESP and ext4 steps as the owlet disk.  Root's key
# reaches both as the credential ssh.authorized_keys.root (systemd's
# tmpfiles provision.conf; Debian's sshd allows root with a key).
#
# BENCH_BOOTS boots of each disk, alternating (owlet, stock, owlet, ...),
# one VM at a time, each on a fresh qcow2 overlay, through image/vm.sh
# (tests/lib/vm.sh's vm_boot: the command line of make vm and the tests).
# Measured per boot: seconds from just before qemu starts to the first
# `ssh root@127.0.0.1 true` that succeeds (polled every BENCH_POLL s, each
# attempt at most 2 s: see VM_CONNECT_TIMEOUT in tests/lib/vm.sh); then,
# once `systemctl is-system-running --wait` returns, `systemd-analyze
# time` (firmware, loader, kernel, initrd, userspace) and the root's used
# bytes (df).  Prints medians, owlet/stock ratios, the qcow2 sizes, the
# trees' sizes and what differs between them (packages, directories), and
# PASS/FAIL lines against the goals; exits 0 whatever they say (a
# benchmark reports, it does not gate).  Needs root (disk.sh); not part of
# make check.
#
# Knobs (environment):
#   BENCH_BOOTS    boots of each disk            default 3
#   BENCH_POLL     seconds between SSH attempts  default 0.25
#   VM_TIMEOUT     seconds a boot may take       default 600
#
# Invariants: no qemu outlives the script (vm_cleanup, at every exit,
# kills what vm_boot started and removes the work directory $T); one VM
# runs at a time; the built disks are never written (overlays in $T); the
# base is copied under a shared lock on $B/cache/rootfs/lock, and the
# disks are booted under shared locks on $B/image/lock and disk.lock, so
# no concurrent make rootfs/image/disk replaces them meanwhile.
# shellcheck disable=SC2034,SC2046 # MEDIAN_DECIMALS, VM_CONNECT_TIMEOUT: read
# by the sourced libraries; the word lists echoed are split on purpose.
set -eu
ME=boot.sh
MEDIAN_DECIMALS=2
. "$(dirname "$0")/lib.sh"
bench_vm_init
STOCK=$B/image/debian-bookworm.qcow2
BASE=$B/cache/rootfs/base

mkdir -p "$B/bench"
T=$(mktemp -d "$B/bench/boot.XXXXXX")
. "$TOP/tests/lib/vm.sh"
# vm_cleanup kills every VM of VM_NAMES and removes $T (vm_boot sets the
# same trap again).
trap vm_cleanup EXIT
trap 'exit 130' HUP INT TERM
RES=$T/results		# "KEY BOOT VALUE" lines

# --- the stock tree and disk -----------------------------------------------
S=$T/stock
exec 9>>"$B/cache/rootfs/lock"
flock -s 9
B=$B sh "$TOP/image/rootfs.sh" --check ||
	die "$BASE missing or out of date (make rootfs)"
echo "copying $BASE to $S ..."
cp -a "$BASE" "$S"
flock -u 9
install -D -m 0644 "$TOP/image/files/etc/systemd/network/80-owlet-dhcp.network" \
    "$S/etc/systemd/network/80-owlet-dhcp.network"
sh "$TOP/image/chroot.sh" "$S" systemctl enable --quiet systemd-networkd.service \
    systemd-networkd-wait-online.service || die "systemctl enable systemd-networkd failed in $S"
: > "$S/etc/machine-id"
ln -sfn /lib/systemd/system/multi-user.target "$S/etc/systemd/system/default.target"
echo "building $STOCK (image/disk.sh --tree) ..."
B=$B sh "$TOP/image/disk.sh" --tree "$S" debian-bookworm ||
	die "image/disk.sh --tree $S debian-bookworm failed"

exec 7<"$B/image/lock" 6<"$B/image/disk.lock"
flock -s 7
flock -s 6
if [ ! -f "$OWL" ] || [ ! -f "$STOCK" ]; then
	die "$OWL or $STOCK vanished (a concurrent make disk?)"
fi

# --- sizes -------------------------------------------------------------------
owl_q=$(stat -c %s "$OWL") stock_q=$(stat -c %s "$STOCK")
owl_raw=$(du -B1 "${OWL%.qcow2}.raw" | cut -f1)
stock_raw=$(du -B1 "${STOCK%.qcow2}.raw" | cut -f1)
# The trees before the kernel (owlet's image tree, the stock tree): what
# the profile and the packages add or remove, by package and directory.
OT=$B/image/root
pkgs() {	# pkgs ROOT: "package installed-KiB" lines, sorted
	dpkg-query --admindir="$1/var/lib/dpkg" -W \
	    -f '${db:Status-Abbrev} ${Package} ${Installed-Size}\n' |
	    awk '$1 ~ /^.i/ { print $2, $3 }' | LC_ALL=C sort
}
pkgs "$OT" > "$T/pkgs.owlet"
pkgs "$S" > "$T/pkgs.stock"
dirs='etc usr/bin usr/sbin usr/lib usr/libexec usr/share/doc usr/share/man
usr/share/locale usr/share/zoneinfo usr/share var'
for d in . $dirs; do
	printf '%s %s %s\n' "$d" "$(du -sxk "$OT/$d" 2>/dev/null | cut -f1)" \
	    "$(du -sxk "$S/$d" 2>/dev/null | cut -f1)"
done > "$T/du"

# --- boots -------------------------------------------------------------------
# boot_one NAME DISK I: boot DISK as VM NAME on a fresh overlay, record its
# figures under NAME.* for boot I, power it off.
boot_one() {
	_n=$1 _d=$2 _i=$3
	rm -f "$T/vm.$_n.qcow2"
	qemu-img create -q -f qcow2 -F qcow2 -b "$_d" "$T/vm.$_n.qcow2" ||
		die "qemu-img create of an overlay of $_d failed"
	_t0=$(date +%s.%N)
	vm_boot "$_n" "$_d" || die "$_n: qemu did not start (serial: $T/vm.$_n.serial)"
	_s=$(vm_ssh_up "$_n" "$_t0" "$POLL") || die "$_n (boot $_i): no SSH"
	echo "$_n.ssh $_i $_s" >> "$RES"
	_st=$(vm_ssh "$_n" 'timeout 300 systemctl is-system-running --wait') || :
	_an=$(vm_ssh "$_n" 'systemd-analyze time' | head -n 1) || :
	_used=$(vm_ssh "$_n" 'df -B1 --output=used / | tail -n 1') || :
	echo "$_n.used $_i ${_used:-0}" >> "$RES"
	echo "$_an" | startup_parts "$_n" "$_i" >> "$RES"
	echo "  $_n boot $_i: SSH after $_s s; $_st; ${_an:-no systemd-analyze}"
	vm_stop "$_n" || echo "  $_n boot $_i: did not power off within 60 s, killed"
}

accel=TCG
[ -r /dev/kvm ] && [ -w /dev/kvm ] && accel=KVM
echo "owlet bench: boot to SSH and disk size, owlet vs stock Debian"
machine ", qemu $accel"
echo "boots: $BOOTS of each, alternating, one VM at a time (2 vCPUs, 2 GiB)"
i=1
while [ "$i" -le "$BOOTS" ]; do
	boot_one owlet "$OWL" "$i"
	boot_one stock "$STOCK" "$i"
	i=$((i + 1))
done

# --- report ------------------------------------------------------------------
# (sizes get 3 decimals: their goal is tight)
echo
echo "median of $BOOTS boots       owlet      stock  owlet/stock"
for k in ssh firmware loader kernel initrd userspace; do
	# systemd-analyze leaves out what it did not measure (firmware and
	# loader without a boot loader interface, initrd without systemd in it)
	grep -q "^[a-z]*\.$k " "$RES" || continue
	o=$(med "owlet.$k") s=$(med "stock.$k")
	printf '%-22s %8.2f s %8.2f s %8s\n' "$k" "$o" "$s" "$(ratio "$o" "$s")"
done
# kernel + initrd + userspace: systemd's view of the boot after the loader
# (its "Startup finished" total without firmware and loader).
for n in owlet stock; do
	awk -v n="$n" '$1 == n ".kernel" || $1 == n ".initrd" || $1 == n ".userspace" {
		t[$2] += $3 } END { for (i in t) print t[i] }' "$RES" | median_of > "$T/sum.$n" ||
		echo 0 > "$T/sum.$n"
done
o=$(cat "$T/sum.owlet") s=$(cat "$T/sum.stock")
printf '%-22s %8.2f s %8.2f s %8s\n' "systemd-analyze sum" "$o" "$s" "$(ratio "$o" "$s")"
echo "boot to SSH, each pair (owlet/stock):" $(awk '
	$1 == "owlet.ssh" { o[$2] = $3 } $1 == "stock.ssh" { s[$2] = $3 }
	END { for (i = 1; i in o; i++) if (s[i] > 0) printf "%.2f ", o[i] / s[i] }' "$RES")
uo=$(med owlet.used) us=$(med stock.used)
echo
echo "sizes                      owlet        stock  owlet/stock"
printf '%-18s %12s %12s %8s\n' "qcow2 bytes" "$owl_q" "$stock_q" "$(ratio "$owl_q" "$stock_q" 3)"
printf '%-18s %12s %12s %8s\n' "raw allocated" "$owl_raw" "$stock_raw" "$(ratio "$owl_raw" "$stock_raw" 3)"
printf '%-18s %12s %12s %8s\n' "root used (df)" "$uo" "$us" "$(ratio "$uo" "$us" 3)"
echo
echo "trees before the kernel (du -sxk, KiB)  owlet   stock   diff"
awk '{ printf "  %-30s %7d %7d %+7d\n", $1, $2, $3, $2 - $3 }' "$T/du"
echo "packages: owlet $(wc -l < "$T/pkgs.owlet"), stock $(wc -l < "$T/pkgs.stock")"
echo "  only in owlet (installed KiB):" $(LC_ALL=C join -v 1 "$T/pkgs.owlet" "$T/pkgs.stock" | awk '{ printf "%s(%s) ", $1, $2 }')
echo "  only in stock (installed KiB):" $(LC_ALL=C join -v 2 "$T/pkgs.owlet" "$T/pkgs.stock" | awk '{ printf "%s(%s) ", $1, $2 }')
echo "  in both, other size:" $(LC_ALL=C join "$T/pkgs.owlet" "$T/pkgs.stock" | awk '$2 != $3 { printf "%s(%s/%s) ", $1, $2, $3 }')
echo
fail=0
so=$(med owlet.ssh) ss=$(med stock.ssh)
r=$(ratio "$so" "$ss")
verdict "$(holds "$r" 1.1 '<=')" "boot to SSH: owlet/stock = $r (median $so s / $ss s; goal <= 1.1)"
r=$(ratio "$owl_q" "$stock_q" 3)
verdict "$(holds "$r" 1.0 '<=')" "qcow2 size: owlet/stock = $r ($owl_q / $stock_q bytes; goal <= 1.0)"
exit 0
