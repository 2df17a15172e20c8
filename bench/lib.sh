# bench/lib.sh: what the benchmarks share (bench/tcb.sh and
# bench/passwd.sh all of it; the boot and container benchmarks die,
# bench_vm_init, ratio and med),
# sourced right after `set -euf`, with ME (the script's name in messages and
# in the roots it generates) set before:
#   - the knobs they have in common (BENCH_SIZES, BENCH_TMPDIR,
#     BENCH_CONVERT, BENCH_SETTLE; documented at the top of bench/tcb.sh)
#   - die, and bench_init: the root and namespace checks, the results file
#     $RES and the clean-up at exit
#   - the private roots: newroot/genroot (the same users, hashes and files
#     in both benchmarks, so that their figures compare), nsswitch,
#     convert (tcb_convert --root, checked), settle and remove_roots (the
#     two benchmarks share the settle stamp, so each waits for the other's
#     removals)
#   - medians over $RES ("N KEY ROUND VALUE" lines) and the PASS/FAIL lines
# Defining functions and variables is all that sourcing does.  Word
# splitting of $ROOTS is intended (the scripts turn globbing off).
# shellcheck shell=sh disable=SC2016,SC2034,SC2086

TOP=$(cd "$(dirname "$0")/.." && pwd)
B=${B:-$TOP/build}
case $B in /*) ;; *) B=$TOP/$B ;; esac
SIZES=${BENCH_SIZES:-1000 100000 1000000}
TMPD=${BENCH_TMPDIR:-/tmp}
CONVERT=${BENCH_CONVERT:-$B/sbin/tcb_convert}
SETTLE=${BENCH_SETTLE:-360}
# The background removals' pids and the time the last one ended.
RMPID=$TMPD/owlet-bench.rmpid STAMP=$TMPD/owlet-bench.removed
# The roots still to be removed at exit (space-separated), the results file.
ROOTS='' RES=''

die() { echo "$ME: $*" >&2; exit 2; }

# bench_init: dies unless this can run (root, private mount namespaces,
# tcb_convert and libnss_tcb built); then creates $RES, removed at exit with
# the roots (unless BENCH_KEEP).
bench_init() {
	[ "$(id -u)" = 0 ] || die "needs root (private mount namespaces)"
	unshare -m true 2>/dev/null || die "unshare -m not permitted here"
	[ -x "$CONVERT" ] || die "$CONVERT missing (not built yet?)"
	[ -e "$B/lib/libnss_tcb.so.2" ] || die "$B/lib/libnss_tcb.so.2 missing"
	trap cleanup EXIT
	trap 'exit 130' HUP INT PIPE TERM
	RES=$(mktemp "$TMPD/owlet-bench-res.XXXXXX")
}
cleanup() { rm -f "$RES"; [ -n "${BENCH_KEEP:-}" ] || rm -rf $ROOTS; }

# bench_vm_init: what the boot benchmarks (boot.sh, bootparams.sh) check
# before booting: BENCH_BOOTS (BOOTS, default 3), BENCH_POLL (POLL, the
# SSH poll in seconds), VM_TIMEOUT (default 600 s), root (the disk's
# locks), qemu, ssh and OVMF, and the owlet disk ($OWL).
bench_vm_init() {
	BOOTS=${BENCH_BOOTS:-3}
	POLL=${BENCH_POLL:-0.25}
	VM_TIMEOUT=${VM_TIMEOUT:-600}
	case $BOOTS in '' | *[!0-9]* | 0) die "BENCH_BOOTS=$BOOTS: not a positive number" ;; esac
	[ "$(id -u)" = 0 ] || die "needs root (the disks' locks, image/chroot.sh)"
	for _t in qemu-system-x86_64 qemu-img ssh ssh-keygen; do
		command -v "$_t" >/dev/null || die "$_t missing (make deps)"
	done
	[ -r /usr/share/ovmf/OVMF.fd ] || die "/usr/share/ovmf/OVMF.fd missing (make deps)"
	OWL=$B/image/owlet-bookworm.qcow2
	[ -f "$OWL" ] || die "$OWL missing (make disk)"
}

# ratio A B [DECIMALS]: A/B with DECIMALS (default 2) decimals, "nan"
# when B is not positive.
ratio() { awk -v a="$1" -v b="$2" -v p="${3:-2}" 'BEGIN { if (b > 0) printf "%." p "f", a / b; else print "nan" }'; }
# med KEY: the median of the values of KEY in $RES ("KEY ROUND VALUE"
# lines), 0 when there is none.
med() { awk -v k="$1" '$1 == k { print $3 }' "$RES" | median_of || echo 0; }

# startup_parts NAME I: from systemd-analyze time's first line on stdin
# ("Startup finished in 1.2s (firmware) + 870ms (loader) + ... = 20s"),
# "NAME.PART I SECONDS" lines for $RES (PART: firmware, loader, kernel,
# initrd, userspace).
startup_parts() {
	awk -v n="$1" -v i="$2" '
	function secs(s,   t, k, p, m, v) {
		t = 0; k = split(s, p, " ")
		for (m = 1; m <= k; m++) {
			v = p[m]
			if (v ~ /min$/) t += substr(v, 1, length(v) - 3) * 60
			else if (v ~ /ms$/) t += substr(v, 1, length(v) - 2) / 1000
			else if (v ~ /us$/) t += substr(v, 1, length(v) - 2) / 1e6
			else if (v ~ /h$/) t += substr(v, 1, length(v) - 1) * 3600
			else if (v ~ /s$/) t += substr(v, 1, length(v) - 1)
		}
		return t
	}
	/^Startup finished in / {
		sub(/^Startup finished in /, ""); sub(/ = .*/, "")
		k = split($0, part, / \+ /)
		for (j = 1; j <= k; j++) {
			name = part[j]; sub(/.*\(/, "", name); sub(/\).*/, "", name)
			val = part[j]; sub(/ \(.*/, "", val)
			printf "%s.%s %s %.3f\n", n, name, i, secs(val)
		}
	}'
}

# machine MORE: the "machine:" line of the header, MORE (may be empty)
# appended.
machine() {
	_cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
	echo "machine: $(nproc) CPUs, ${_cpu:-unknown CPU}, Linux $(uname -r)," \
	    "$(ldd --version 2>&1 | head -n 1 | sed 's/.*) //;s/^/glibc /')," \
	    "$TMPD on $(df -PT "$TMPD" | awk 'NR == 2 { print $2 }')$*"
}

# settle NEED: waits until the earlier runs' background removals are over
# and BENCH_SETTLE seconds old, then dies unless $TMPD has NEED KiB free.
# tcb_convert (and every tcb password change) creates inodes, and ext4
# without a journal (as here) skips inodes freed in the last 1-6 minutes
# when allocating, scanning past each one: right after a big removal (the
# previous run's roots), creating a million inodes is several times slower.
settle() {
	if [ "$SETTLE" -gt 0 ] && removing; then
		echo "waiting for the previous run's roots to be removed ..."
		while removing; do sleep 5; done
	fi
	if [ -s "$STAMP" ] && [ "$SETTLE" -gt 0 ]; then
		_left=$(($(cat "$STAMP") + SETTLE - $(date +%s)))
		if [ "$_left" -gt 0 ]; then
			echo "waiting ${_left}s for freed inodes to age" \
			    "(BENCH_SETTLE) ..."
			sleep "$_left"
		fi
	fi
	if [ "$SETTLE" -gt 0 ]; then
		rm -f "$RMPID" "$STAMP"
	fi
	_avail=$(df -Pk "$TMPD" | awk 'NR == 2 { print $4 }')
	[ "$_avail" -gt "$1" ] ||
	    die "needs ~$(($1 / 1024)) MiB in $TMPD, $((_avail / 1024)) MiB free"
}
removing() {	# is an earlier run's removal still going?
	[ -s "$RMPID" ] || return 1
	while read -r _p; do
		grep -q owlet-bench "/proc/$_p/cmdline" 2>/dev/null && return 0
	done < "$RMPID"
	return 1
}

# newroot N: a fresh root for N users under $TMPD (genroot), in $d and in
# root_N; listed in $ROOTS for removal.
newroot() {
	d=$(mktemp -d "$TMPD/owlet-bench.XXXXXX")
	chmod 0755 "$d"
	ROOTS="$ROOTS $d"
	eval "root_$1=\$d"
	echo "N=$1: generating $d ..."
	genroot "$d" "$1"
}

# genroot DIR N: a Debian-like DIR/etc with users u1..uN (uid 1000+i) and
# yescrypt-looking hashes, plus DIR/names (the user names, in order).  The
# same for the same N on every run (fixed seed).
genroot() {
	_d=$1 _n=$2
	mkdir -p "$_d/etc"
	awk -v n="$_n" -v d="$_d" 'BEGIN {
		srand(42)
		c = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		for (i = 0; i < 4096; i++)
			pool = pool substr(c, int(rand() * 64) + 1, 1)
		pw = d "/etc/passwd"; sh = d "/etc/shadow"; nm = d "/names"
		print "root:x:0:0:root:/root:/bin/bash" > pw
		print "daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin" > pw
		print "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin" > pw
		print "root:$y$j9T$" substr(pool, 1, 22) "$" \
		    substr(pool, 100, 43) ":19000:0:99999:7:::" > sh
		print "daemon:*:19000:0:99999:7:::" > sh
		print "nobody:*:19000:0:99999:7:::" > sh
		for (i = 1; i <= n; i++) {
			printf "u%d:x:%d:100:User %d:/home/u%d:/bin/sh\n", i, 1000 + i, i, i > pw
			printf "u%d:$y$j9T$%s$%s:%d:0:99999:7:::\n", i,
			    substr(pool, (i * 131) % 4000 + 1, 22),
			    substr(pool, (i * 7919) % 4000 + 1, 43),
			    19000 + i % 1000 > sh
			print "u" i > nm
		}
	}'
	cat > "$_d/etc/group" <<-EOF
	root:x:0:
	daemon:x:1:
	sys:x:3:
	shadow:x:42:
	users:x:100:
	auth:x:901:
	nogroup:x:65534:
	EOF
	sed 's/:x:[0-9]*:.*/:*::/' "$_d/etc/group" > "$_d/etc/gshadow"
	chmod 0640 "$_d/etc/shadow" "$_d/etc/gshadow"
	chgrp 42 "$_d/etc/shadow" "$_d/etc/gshadow"
	{
		echo "# generated by owlet $ME"
		echo "ENCRYPT_METHOD YESCRYPT"
		echo "USE_TCB yes"
		echo "TCB_AUTH_GROUP yes"
	} > "$_d/etc/login.defs"
	cp /etc/ld.so.cache "$_d/etc/" 2>/dev/null || :
}

# nsswitch DIR PASSWD SHADOW: DIR/etc/nsswitch.conf with these services
# for passwd and shadow, replaced atomically.
nsswitch() {
	printf 'passwd: %s\ngroup: files\nshadow: %s\n' "$2" "$3" \
	    > "$1/etc/nsswitch.conf.new"
	mv "$1/etc/nsswitch.conf.new" "$1/etc/nsswitch.conf"
}

# convert DIR N [CMD...]: tcb_convert --root DIR (run by CMD, e.g. a
# /usr/bin/time), its output in DIR/convert.log.  Before, DIR/etc/shadow
# is kept as DIR/shadow.orig; after, DIR/etc/shadow exists whatever the
# converter did with it (the files peer and pam_unix need it), and dies
# unless users u1 and uN have their tcb shadow files.
convert() {
	_d=$1 _n=$2
	shift 2
	ln "$_d/etc/shadow" "$_d/shadow.orig"
	echo "N=$_n: tcb_convert --root $_d ..."
	"$@" "$CONVERT" --root "$_d" > "$_d/convert.log" 2>&1 || {
		sed 's/^/  /' "$_d/convert.log" >&2
		die "N=$_n: tcb_convert failed"
	}
	[ -e "$_d/etc/shadow" ] || ln "$_d/shadow.orig" "$_d/etc/shadow"
	{ [ -f "$_d/etc/tcb/u1/shadow" ] && [ -f "$_d/etc/tcb/u$_n/shadow" ]; } ||
	    die "N=$_n: tcb_convert left no /etc/tcb/u1/shadow or u$_n/shadow"
}

# round_sizes R: the sizes in the order of round R, ascending in odd rounds
# and descending in even ones, so that a drifting machine load does not
# favour one size.
round_sizes() {
	if [ $(($1 % 2)) = 1 ]; then printf '%s\n' $SIZES | sort -n
	else printf '%s\n' $SIZES | sort -rn; fi
}

# remove_roots: unless BENCH_KEEP, removes $ROOTS in the background (a
# 1M-user root takes minutes to delete: make need not wait for it); the
# next run waits for that (settle).  With BENCH_KEEP, prints their paths.
remove_roots() {
	if [ -n "${BENCH_KEEP:-}" ]; then
		echo "kept:$ROOTS"
	elif [ -n "$ROOTS" ]; then
		echo "removing$ROOTS in the background"
		nohup sh -c 'rm -rf "$@"; date +%s > "$0"' "$STAMP" $ROOTS \
		    > /dev/null 2>&1 &
		echo $! >> "$RMPID"
		ROOTS=
	fi
}

# median N KEY: the median of the VALUEs of KEY at N in $RES.
median() {
	awk -v n="$1" -v k="$2" '$1 == n && $2 == k { print $4 }' "$RES" |
	    median_of
}

# median_of: the median of the numbers on stdin, one a line; of an even
# count, the mean of the middle two with MEDIAN_DECIMALS decimals (set by
# the script).  Fails (status 1) on no numbers.
median_of() {
	sort -g | awk -v p="$MEDIAN_DECIMALS" '{ v[NR] = $1 } END {
		if (NR == 0) exit 1
		if (NR % 2) print v[(NR + 1) / 2]
		else printf "%." p "f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

verdict() {	# verdict OK(0/1) TEXT: a PASS or FAIL line; FAIL sets fail=1
	if [ "$1" = 1 ]; then echo "PASS  $2"; else echo "FAIL  $2"; fail=1; fi
}
holds() {	# holds A B OP: 1 if A OP B, else 0
	if awk -v a="$1" -v b="$2" "BEGIN { exit !(a $3 b) }"; then echo 1
	else echo 0; fi
}
