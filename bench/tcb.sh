#!/bin/sh
# bench/tcb.sh (make bench): the tcb storage half, measured against its peers
# in the same run.  For each user count N it builds a private root under
# $BENCH_TMPDIR (default /tmp) with N users and converts it with tcb_convert
# (wall time, CPU time, peak RSS).  Then, in a private mount namespace whose
# /etc is that root's etc, it measures the median latency of one lookup of a
# random existing user with
#   nsswitch "shadow: tcb"    glibc getspnam(3) through our module
#   floor                     bare open+read+close of /etc/tcb/USER/shadow
#   nsswitch "shadow: files"  glibc getspnam(3), linear scan of /etc/shadow
# tcb and floor run in alternating batches of one process, so their ratio is
# taken under the same load.  BENCH_ROUNDS rounds, each over all sizes, so the
# sizes are compared under the same load too; a figure is the median of the
# rounds' medians.  Prints a table and PASS/FAIL per target; exits 1 if a
# target fails.  Needs root; not part of make check.
#
# Knobs (environment):
#   BENCH_SIZES       user counts             default "1000 100000 1000000"
#   BENCH_ITERS       tcb/floor lookups/run   default 100000
#   BENCH_FILES_ITERS files lookups/run       default 2e7/N clamped to 20..20000
#   BENCH_ROUNDS      interleaved rounds      default 7
#   BENCH_TMPDIR      where roots are built   default /tmp
#   BENCH_KEEP        1: keep the roots (paths are printed)
#   BENCH_CONVERT     converter               default $B/sbin/tcb_convert
#   BENCH_SETTLE      seconds between the previous run's removal and the
#                     next conversion (settle in bench/lib.sh)  default
#                     360; 0: no waits
# The roots, settle and medians are bench/lib.sh's (shared with
# bench/passwd.sh).  Word splitting of $SIZES and $ROOTS is intended
# (globbing is off).
# shellcheck disable=SC2016,SC2086,SC2317
set -euf

ME=bench/tcb.sh
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
ITERS=${BENCH_ITERS:-100000}
ROUNDS=${BENCH_ROUNDS:-7}
BIN=$B/bench/getspnam_bench
MEDIAN_DECIMALS=3

bench_init
[ -x "$BIN" ] || die "$BIN missing (make bench builds it)"
[ -x /usr/bin/time ] || die "/usr/bin/time missing (apt-get install time)"

# in_ns DIR CMD...: CMD in a private mount namespace whose /etc is DIR/etc;
# glibc finds our NSS module through LD_LIBRARY_PATH (as tests/lib/root.sh).
in_ns() {
	_r=$1; shift
	LD_LIBRARY_PATH=$B/lib unshare -m --propagation private -- \
	    sh -c 'mount --bind "$0/etc" /etc && exec "$@"' "$_r" "$@"
}

# measure DIR N ROUND MODE ITERS KEY=FIELD...: one getspnam_bench run inside
# DIR; each FIELD of its output goes to $RES as "N KEY ROUND VALUE".
measure() {
	_d=$1 _n=$2 _r=$3 _m=$4
	_out=$(in_ns "$_d" "$BIN" "$_m" "$_d/names" "$5") ||
	    die "N=$_n: getspnam_bench $_m failed"
	shift 5
	for _kf; do
		_v=$(echo "$_out" | tr ' ' '\n' | sed -n "s/^${_kf#*=}=//p")
		[ -n "$_v" ] || die "N=$_n: no ${_kf#*=} in '$_out'"
		echo "$_n ${_kf%%=*} $_r $_v" >> "$RES"
	done
}

# flatness BIG SMALL: median over the rounds of tcb(BIG)/tcb(SMALL), both
# measured a few seconds apart in the same round.
flatness() {
	awk -v b="$1" -v s="$2" '$2 == "tcb" && $1 == b { big[$3] = $4 }
	    $2 == "tcb" && $1 == s { small[$3] = $4 }
	    END { for (r in big) if (r in small) print big[r] / small[r] }' \
	    "$RES" | median_of
}

echo "owlet bench: tcb storage (getspnam, tcb_convert)"
machine ""
echo "sizes: $SIZES; tcb/floor $ITERS lookups x $ROUNDS rounds"
echo

# Phase 1: build and convert every root.  All stay until the end, so that
# phase 2 can interleave the sizes in time.
need=102400
for n in $SIZES; do
	case $n in ''|*[!0-9]*|0*) die "bad size '$n' in BENCH_SIZES" ;; esac
	# N dirs + N files (a 4 KiB block each) and the flat files.
	need=$((need + n * 9 + n / 4))
done
# tcb_convert creates 2N inodes: settle first (see bench/lib.sh).
settle "$need"

for n in $SIZES; do
	newroot "$n"
	nsswitch "$d" files tcb
	convert "$d" "$n" /usr/bin/time -f '%e %M %U %S' -o "$d/time.out"
	# time -o also gets "Command exited..." lines; the figures are last.
	read -r wall rss_kb usr sys <<-EOF
	$(tail -n 1 "$d/time.out")
	EOF
	{
		echo "$n convert_s 1 $wall"
		echo "$n convert_kb 1 $rss_kb"
		awk -v n="$n" -v u="$usr" -v s="$sys" \
		    'BEGIN { print n, "convert_cpu", 1, u + s }'
	} >> "$RES"
done

# Phase 2: rounds.  In each, tcb and floor for every size back to back
# (in round_sizes order), then files for every size.
r=1
while [ "$r" -le "$ROUNDS" ]; do
	echo "measuring: round $r of $ROUNDS ..."
	order=$(round_sizes "$r")
	for n in $order; do
		eval "d=\$root_$n"
		nsswitch "$d" files tcb
		measure "$d" "$n" "$r" pair "$ITERS" tcb=median_ns \
		    floor=floor_median_ns ratio=ratio_median
	done
	for n in $order; do
		eval "d=\$root_$n"
		fiters=${BENCH_FILES_ITERS:-$((20000000 / n))}
		[ "$fiters" -ge 20 ] || fiters=20
		[ "$fiters" -le 20000 ] || fiters=20000
		nsswitch "$d" files files
		measure "$d" "$n" "$r" nss "$fiters" files=median_ns
	done
	r=$((r + 1))
done

remove_roots

# Table and targets.
fail=0
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

echo
printf '%9s %9s %9s %9s %13s %9s %9s %8s %8s\n' N "tcb ns" "floor ns" \
    tcb/floor "files ns" files/tcb "conv s" "cpu s" "RSS MiB"
for n in $SIZES; do
	t=$(median "$n" tcb) f=$(median "$n" floor) s=$(median "$n" files)
	printf '%9s %9.0f %9.0f %9.2f %13.0f %9.0f %9.1f %8.1f %8s\n' "$n" \
	    "$t" "$f" "$(median "$n" ratio)" "$s" "$(ratio "$s" "$t")" \
	    "$(median "$n" convert_s)" "$(median "$n" convert_cpu)" \
	    "$(mib "$(median "$n" convert_kb)")"
done
echo "ns: median ns per lookup (getspnam via tcb, via files; bare"
echo "open+read+close of /etc/tcb/USER/shadow); conv s, cpu s, RSS MiB:"
echo "wall time, user+sys time and peak RSS of tcb_convert --root"
echo

for n in $SIZES; do
	q=$(median "$n" ratio)
	verdict "$(holds "$q" 2.0 '<=')" \
	    "N=$n: tcb/floor = $(printf %.2f "$q") <= 2.0"
done
small=$(printf '%s\n' $SIZES | sort -n | head -n 1)
big=$(printf '%s\n' $SIZES | sort -n | tail -n 1)
if [ "$small" != "$big" ]; then
	q=$(flatness "$big" "$small")
	verdict "$(holds "$q" 1.5 '<=')" \
	    "flatness: tcb(N=$big)/tcb(N=$small) = $(printf %.2f "$q") <= 1.5"
fi
case " $SIZES " in
*" 1000000 "*)
	q=$(ratio "$(median 1000000 files)" "$(median 1000000 tcb)")
	verdict "$(holds "$q" 1000 '>=')" \
	    "N=1000000: files/tcb = $(printf %.0f "$q") >= 1000"
	w=$(median 1000000 convert_s) k=$(median 1000000 convert_kb)
	verdict "$(holds "$w" 180 '<')" "N=1000000: tcb_convert wall ${w}s < 180s"
	verdict "$(holds "$k" 65536 '<=')" \
	    "N=1000000: tcb_convert peak RSS $(mib "$k") MiB <= 64 MiB"
	;;
*)	echo "SKIP  files/tcb >= 1000 and tcb_convert targets: N=1000000" \
	    "not in BENCH_SIZES" ;;
esac
exit $fail
