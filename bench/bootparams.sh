#!/bin/sh
# bench/bootparams.sh (make bench-bootparams): the cost of owlet's kernel
# boot parameters (issue 17: control bootparams hardened, iommu strict)
# against Debian's (bootparams debian, iommu debian), side by side on one
# VM of the owlet disk (make disk), in the same run.
#
# One VM, on a qcow2 overlay of the disk: a first boot (its first-boot
# work is not measured), then BENCH_BOOTS rounds of two boots each, the
# hardened parameters then Debian's: before each boot the states are
# switched with control (owlet-esp-update.path rewrites the boot entry;
# the script waits until the entry holds the new line) and the VM powered
# off; the boot is measured from just before qemu starts to the first
# `ssh root@127.0.0.1 true` that succeeds (tests/lib/vm.sh's vm_ssh_up).
# After `systemctl is-system-running --wait`, /proc/cmdline is checked,
# the kernel phase is taken from `systemd-analyze time` (kernel start to
# the initramfs' hand-over: where the parameters act at boot), and a small
# workload is timed inside the guest (its own clock):
#   alloc   seq 1..2,000,000 | sort -nr (pages allocated, freed, reused:
#           init_on_free, page_alloc.shuffle, slab_nomerge)
#   exec    2,000 runs of /bin/true (fork, exec, page tables, system
#           calls: pti, init_on_alloc/free)
#   io      64 MiB written with fsync and read back uncached (virtio DMA:
#           iommu strictness, where the VM has an IOMMU; qemu's q35 here
#           has none, so little is expected)
# Prints medians and hardened/debian ratios; exits 0 whatever they say (a
# benchmark reports, it does not gate).  Needs root (the disk's locks);
# not part of make check.
#
# Knobs: BENCH_BOOTS (rounds, default 3), BENCH_POLL (seconds between SSH
# attempts, default 0.25), VM_TIMEOUT (seconds a boot may take, 600),
# BENCH_WORK=0 (no workload: the boot figures only), BENCH_SERIAL=DIR
# (keep each measured boot's serial console, with the kernel's timestamps,
# as DIR/STATE.ROUND.serial).
# BENCH_ONE="P..." (e.g. "init_on_free=1 pti=on"): instead, each round
# boots Debian's line, then Debian's line plus one parameter P at a time,
# and each is compared with Debian's: which parameter costs what.
#
# Invariants: no qemu outlives the script (vm_cleanup at every exit); the
# built disk is never written (an overlay in $T); it is booted under
# shared locks on $B/image/lock and disk.lock.
# shellcheck disable=SC2034,SC2086 # MEDIAN_DECIMALS, VM_TIMEOUT: read by
# the sourced libraries; $KEYS is a word list, split on purpose
set -eu
ME=bootparams.sh
MEDIAN_DECIMALS=3
. "$(dirname "$0")/lib.sh"
bench_vm_init

mkdir -p "$B/bench"
T=$(mktemp -d "$B/bench/bootparams.XXXXXX")
. "$TOP/tests/lib/vm.sh"
trap vm_cleanup EXIT
trap 'exit 130' HUP INT TERM
RES=$T/results		# "KEY ROUND VALUE" lines
exec 7<"$B/image/lock" 6<"$B/image/disk.lock"
flock -s 7
flock -s 6
qemu-img create -q -f qcow2 -F qcow2 -b "$OWL" "$T/vm.p.qcow2" ||
	die "qemu-img create of an overlay of $OWL failed"

# boot: start the VM, set BOOT_S to the seconds to SSH, wait for the
# boot's end.  Not in a subshell: vm_boot's EXIT trap would kill the VM
# when the subshell ends.
boot() {
	_t0=$(date +%s.%N)
	vm_boot p "$OWL" >/dev/null || die "qemu did not start (serial: $T/vm.p.serial)"
	BOOT_S=$(vm_ssh_up p "$_t0" "$POLL") || die "no SSH"
	vm_ssh p 'timeout 300 systemctl is-system-running --wait' >/dev/null || :
}
# switch BOOTPARAMS IOMMU [EXTRA]: set the states; with BENCH_ONE, the
# first switch keeps Debian's line in /root/cmdline.debian and the later
# ones write it plus EXTRA (one parameter) in one go, without control
# (one write of the file: a switch and a second write right after it can
# race esp-update, whose path unit does not watch while it runs; control's
# own switches leave a flag for that); wait (60 s) until the
# boot entry holds /etc/kernel/cmdline, power off.
switch() {
	_rc=0
	_out=$(vm_ssh p "if [ -n '${BENCH_ONE:-}' ] && [ -f /root/cmdline.debian ]; then
		printf '%s\\n' \"\$(cat /root/cmdline.debian)${3:+ $3}\" > /etc/kernel/cmdline || exit 3
	    else
		control bootparams $1 && control iommu $2 || exit 3
		[ -z '${BENCH_ONE:-}' ] || cp /etc/kernel/cmdline /root/cmdline.debian || exit 3
	    fi
	    i=0; while [ \$i -lt 60 ]; do
		o=\$(tr -s \" \n\" \"  \" < /etc/kernel/cmdline | sed \"s/ *\$//\")
		grep -rqsxF \"options \$o\" /boot/efi/loader/entries && exit 0
		sleep 1; i=\$((i + 1))
	    done; grep -rh ^options /boot/efi/loader/entries; exit 4" 2>&1) || _rc=$?
	case $_rc in
	0) ;;
	3) die "control bootparams $1, iommu $2 failed: $_out" ;;
	4) die "control bootparams $1: the boot entry did not follow: $_out" ;;
	*) die "control bootparams $1: ssh failed: $_out" ;;
	esac
	vm_stop p || die "the VM did not power off"
}
# The workload, timed inside the guest: "alloc S exec S io S" lines.
# shellcheck disable=SC2016 # expanded in the guest
WORK='t() { date +%s.%N; }
a=$(t); seq 1 2000000 | sort -nr > /dev/null; b=$(t)
i=0; while [ $i -lt 2000 ]; do /bin/true; i=$((i + 1)); done; c=$(t)
dd if=/dev/zero of=/var/tmp/bench.io bs=1M count=64 conv=fsync status=none
echo 3 > /proc/sys/vm/drop_caches; cat /var/tmp/bench.io > /dev/null; rm -f /var/tmp/bench.io; d=$(t)
awk -v a="$a" -v b="$b" -v c="$c" -v d="$d" "BEGIN { printf \"alloc %.3f\nexec %.3f\nio %.3f\n\", b - a, c - b, d - c }"'
measure() {	# measure STATE ROUND [EXTRA]
	boot
	_ssh=$BOOT_S
	echo "$1.ssh $2 $_ssh" >> "$RES"
	_cl=$(vm_ssh p 'cat /proc/cmdline')
	case "$1 $_cl" in
	"hardened "*slab_nomerge*page_alloc.shuffle=1*) ;;
	"debian "*slab_nomerge* | "debian "*page_alloc.shuffle=1* | hardened*)
		die "$1: /proc/cmdline is not the state's: $_cl" ;;
	"+"*" "*"${3:-}"*) ;;
	"+"*) die "$1: /proc/cmdline lacks ${3:-}: $_cl" ;;
	esac
	vm_ssh p 'systemd-analyze time' | head -n 1 | startup_parts "$1" "$2" >> "$RES"
	[ -z "${BENCH_SERIAL:-}" ] || cp "$T/vm.p.serial" "$BENCH_SERIAL/$1.$2.serial"
	[ "$WORK_RUNS" = 0 ] ||
		vm_ssh p "$WORK" | while read -r k v; do echo "$1.$k $2 $v"; done >> "$RES"
	echo "  round $2, $1: SSH after $_ssh s; $(awk -v s="$1" -v r="$2" \
	    'index($1, s ".") == 1 && $2 == r && $1 ~ /[.](kernel|alloc|exec|io)$/ { sub(/.*\./, "", $1); printf "%s %s s  ", $1, $3 }' "$RES")"
}

# BENCH_WORK=0: boot figures only (the workload takes about a minute a
# boot under TCG)
WORK_RUNS=${BENCH_WORK:-1}
KEYS="ssh kernel alloc exec io"
[ "$WORK_RUNS" != 0 ] || KEYS="ssh kernel"
accel=TCG
[ -r /dev/kvm ] && [ -w /dev/kvm ] && accel=KVM
echo "owlet bench: kernel boot parameters, hardened vs Debian's, one VM"
machine ", qemu $accel"
if [ -n "${BENCH_ONE:-}" ]; then
	echo "rounds: $BOOTS (debian, then debian plus each of: $BENCH_ONE), after one first boot"
else
	echo "rounds: $BOOTS (hardened, then debian), after one first boot"
fi
boot
echo "  first boot: SSH after $BOOT_S s (not counted)"
i=1
while [ "$i" -le "$BOOTS" ]; do
	if [ -z "${BENCH_ONE:-}" ]; then
		switch hardened strict
		measure hardened "$i"
	fi
	switch debian debian
	measure debian "$i"
	for p in ${BENCH_ONE:-}; do
		switch debian debian "$p"
		measure "+$p" "$i" "$p"
	done
	i=$((i + 1))
done
# leave the overlay as it began (it is removed anyway)
vm_stop p || :

echo
if [ -n "${BENCH_ONE:-}" ]; then
	echo "median of $BOOTS, each against Debian's line (ratio: with P / without)"
	printf '%-28s' ""
	printf ' %10s' $KEYS
	echo
	for p in debian $BENCH_ONE; do
		case $p in debian) l=debian ;; *) l=+$p ;; esac
		printf '%-28s' "$l"
		for k in $KEYS; do
			if [ "$p" = debian ]; then
				printf ' %8.2f s' "$(med "debian.$k")"
			else
				printf ' %9sx' "$(ratio "$(med "+$p.$k")" "$(med "debian.$k")")"
			fi
		done
		echo
	done
	exit 0
fi
echo "median of $BOOTS          hardened     debian  hardened/debian"
for k in $KEYS; do
	h=$(med "hardened.$k") d=$(med "debian.$k")
	printf '%-18s %9.2f s %9.2f s %8s\n' "$k" "$h" "$d" "$(ratio "$h" "$d")"
done
exit 0
