#!/bin/sh
# bench/passwd.sh (make bench-passwd): one password change through pam_tcb
# (write_to=tcb: /etc/tcb/USER/shadow replaced) against Debian's pam_unix
# (the whole /etc/shadow rewritten under lckpwdf), in the same run.
#
# For each user count N it builds one private root under $BENCH_TMPDIR
# (default /tmp) with N users as bench/tcb.sh does, converts it with
# tcb_convert and keeps its /etc/shadow too, so both schemes work on the
# same root: pam_tcb on /etc/tcb, pam_unix on /etc/shadow.  Then, in a
# private mount namespace whose /etc is that root's etc, build/bench/
# passwd_bench changes the passwords of randomly drawn users as root (one
# PAM transaction each, no old-password prompt), timing each change:
#   tcb   password required pam_tcb.so write_to=tcb prefix=$1$ nodelay
#         (nsswitch "shadow: tcb")
#   unix  password required /lib/MULTIARCH/security/pam_unix.so md5
#         (nsswitch "shadow: files", as on a stock Debian)
# md5crypt on both sides, so that hashing costs about 0.1 ms and the file
# handling dominates; the default yescrypt is measured once at the largest
# N for context.  passwd lookups go through an indexed database (nss_db,
# "passwd: db files", built with makedb; libnss-db is unpacked under
# $B/cache/extract, not installed), because with "passwd: files" every
# getpwnam(3) is a linear scan of /etc/passwd: pam_tcb makes two per change,
# pam_unix about ten, and that scan, not the shadow scheme, would dominate.
# The same changes with "passwd: files" are measured too (a second table).
#
# BENCH_ROUNDS rounds, each over all sizes (ascending in odd rounds,
# descending in even ones); a figure is the median of all changes of a kind
# at one N.  Afterwards the last users changed by each scheme must
# authenticate with their last password and not with the one before, and
# /etc/shadow must still hold all N+3 users.  Prints a table and PASS/FAIL;
# exits 1 if the flatness target or a check fails.  Needs root; not part of
# make check.
#
# Knobs (environment):
#   BENCH_SIZES        user counts              default "1000 100000 1000000"
#   BENCH_ROUNDS       interleaved rounds       default 5
#   BENCH_TCB_CHANGES  tcb changes/round/N      default 40
#   BENCH_UNIX_CHANGES pam_unix changes/round/N default 2e6/N clamped to 2..40
#   BENCH_PASSWD_FILES 0: skip the "passwd: files" table  default 1
#   BENCH_TMPDIR, BENCH_KEEP, BENCH_CONVERT, BENCH_SETTLE: as in bench/tcb.sh
#                      (the same settle stamp: the two wait for each other)
#   BENCH_PAM_UNIX     pam_unix module   default /lib/MULTIARCH/security/...
# The roots, settle and medians are bench/lib.sh's (shared with
# bench/tcb.sh).  Word splitting of $SIZES and $ROOTS is intended (globbing
# is off).
# shellcheck disable=SC2016,SC2086,SC2317
set -euf

ME=bench/passwd.sh
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
MA=$(cc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
ROUNDS=${BENCH_ROUNDS:-5}
TCB_CHANGES=${BENCH_TCB_CHANGES:-40}
PWFILES=${BENCH_PASSWD_FILES:-1}
PAM_UNIX=${BENCH_PAM_UNIX:-/lib/$MA/security/pam_unix.so}
PAM_TCB=$B/lib/security/pam_tcb.so
BIN=$B/bench/passwd_bench
PROBE=$B/tests/bin/pamprobe
X=$B/cache/extract
MEDIAN_DECIMALS=4

bench_init
[ -x "$BIN" ] || die "$BIN missing (make bench-passwd builds it)"
[ -x "$PROBE" ] || die "$PROBE missing (make bench-passwd builds it)"
[ -e "$PAM_TCB" ] || die "$PAM_TCB missing"
[ -e "$PAM_UNIX" ] || die "$PAM_UNIX missing (libpam-modules)"
[ -d /var/lib/misc ] || die "/var/lib/misc missing (nss_db's directory)"

# libnss-db ships a conffile (/etc/default/libnss-db): unpack it under
# $B/cache/extract as mk/deps.sh does for such packages, never install it.
if ! [ -e "$X/.libnss-db" ]; then
	echo "unpacking libnss-db under $X (not installed)"
	mkdir -p "$B/cache/debs" "$X"
	if ! (cd "$B/cache/debs" && apt-get download -qq libnss-db 2>/dev/null)
	then
		apt-get update -qq || die "apt-get update failed"
		(cd "$B/cache/debs" && apt-get download -qq libnss-db) ||
		    die "cannot download libnss-db"
	fi
	deb=$(find "$B/cache/debs" -name 'libnss-db_*.deb' | sort | tail -n 1)
	[ -n "$deb" ] || die "no libnss-db .deb in $B/cache/debs"
	dpkg-deb -x "$deb" "$X" || die "dpkg-deb -x $deb"
	touch "$X/.libnss-db"
fi
MAKEDB=$X/usr/bin/makedb
{ [ -e "$X/lib/$MA/libnss_db.so.2" ] && [ -x "$MAKEDB" ]; } ||
    die "no libnss_db.so.2 or makedb under $X (rm $X/.libnss-db, retry)"
# glibc finds libnss_tcb and libnss_db, pam_tcb finds libtcb, through this.
LDP=$B/lib:$X/lib/$MA

# in_ns DIR CMD...: CMD in a private mount namespace whose /etc is DIR/etc
# and whose /var/lib/misc (nss_db's databases) is DIR/misc.
in_ns() {
	_r=$1; shift
	LD_LIBRARY_PATH=$LDP unshare -m --propagation private -- sh -c '
	    mount --bind "$0/etc" /etc &&
	    mount --bind "$0/misc" /var/lib/misc && exec "$@"' "$_r" "$@"
}

# pamconf DIR: the services in DIR/etc/pam.d.
pamconf() {
	mkdir -p "$1/etc/pam.d"
	while read -r _s _l; do
		echo "$_l" > "$1/etc/pam.d/$_s"
	done <<-EOF
	tcb password required $PAM_TCB write_to=tcb prefix=\$1\$ nodelay
	unix password required $PAM_UNIX md5
	tcb-y password required $PAM_TCB write_to=tcb nodelay
	unix-y password required $PAM_UNIX yescrypt
	auth-tcb auth required $PAM_TCB shadow nodelay
	auth-unix auth required $PAM_UNIX nodelay
	EOF
}

# passwd_db DIR: DIR/misc/passwd.db as libnss-db's Makefile builds it
# (keys: "0" line number, "." name, "=" uid; the first of equal uids wins:
# u64534 has nobody's uid 65534).
passwd_db() {
	mkdir -p "$1/misc"
	awk -F: 'NF > 1 { printf "0%u %s\n.%s %s\n", NR - 1, $0, $1, $0
		if (!seen[$3]++) printf "=%s %s\n", $3, $0 }' \
	    "$1/etc/passwd" | "$MAKEDB" -o "$1/misc/passwd.db" - ||
	    die "makedb failed"
}

# measure DIR N ROUND KEY SERVICE PASSWD SHADOW COUNT SEED: COUNT timed
# changes (after one untimed) through SERVICE; each time goes to $RES as
# "N KEY ROUND MS", each change to DIR/SCHEME.log (SCHEME: tcb or unix).
measure() {
	_d=$1 _n=$2 _r=$3 _k=$4 _svc=$5
	nsswitch "$_d" "$6" "$7"
	_out=$(in_ns "$_d" "$BIN" "$_svc" "$_d/names" "$8" "$9" \
	    "$_k-r$_r" "$_d/${_svc%-y}.log" 2> "$_d/err") || {
		sed 's/^/  /' "$_d/err" >&2
		die "N=$_n: passwd_bench $_svc failed"
	}
	echo "$_out" | sed -n "s/^change_ms=/$_n $_k $_r /p" >> "$RES"
}

# flatness KEY BIG SMALL: median over the rounds of the ratio of KEY's
# round medians at BIG and SMALL (measured in the same round).
flatness() {
	for _r in $(seq 1 "$ROUNDS"); do
		_b=$(awk -v n="$2" -v k="$1" -v r="$_r" \
		    '$1 == n && $2 == k && $3 == r { print $4 }' "$RES" |
		    median_of) || continue
		_s=$(awk -v n="$3" -v k="$1" -v r="$_r" \
		    '$1 == n && $2 == k && $3 == r { print $4 }' "$RES" |
		    median_of) || continue
		awk -v b="$_b" -v s="$_s" 'BEGIN { print b / s }'
	done | median_of
}

clamp() { # clamp V LO HI
	if [ "$1" -lt "$2" ]; then echo "$2"
	elif [ "$1" -gt "$3" ]; then echo "$3"
	else echo "$1"; fi
}

echo "owlet bench: password change, pam_tcb vs pam_unix"
machine ", libpam $(dpkg-query -W -f='${Version}' libpam-modules 2>/dev/null)"
echo "sizes: $SIZES; $ROUNDS rounds of $TCB_CHANGES tcb changes and" \
    "${BENCH_UNIX_CHANGES:-2e6/N (2..40)} pam_unix changes per N"
echo

need=102400
for n in $SIZES; do
	case $n in ''|*[!0-9]*|0*) die "bad size '$n' in BENCH_SIZES" ;; esac
	# tcb: N dirs + N files; shadow, passwd, passwd.db, shadow copies.
	need=$((need + n * 9 + n / 4 + n * 3 / 4))
done
# Settle (bench/lib.sh; the same stamp as bench/tcb.sh): both tcb_convert
# and every tcb change create inodes.
settle "$need"

# Phase 1: every root built before any measurement.
for n in $SIZES; do
	newroot "$n"
	pamconf "$d"
	passwd_db "$d"
	# DIR/shadow.orig, the pristine /etc/shadow, is for the checks
	# (pam_unix replaces /etc/shadow).
	convert "$d" "$n"
	: > "$d/tcb.log"
	: > "$d/unix.log"
done

# Phase 2: rounds.  Per size: tcb, then pam_unix, then (BENCH_PASSWD_FILES)
# both again with "passwd: files".  Seeds differ per round, size and kind.
big=$(printf '%s\n' $SIZES | sort -n | tail -n 1)
small=$(printf '%s\n' $SIZES | sort -n | head -n 1)
r=1
while [ "$r" -le "$ROUNDS" ]; do
	echo "measuring: round $r of $ROUNDS ..."
	for n in $(round_sizes "$r"); do
		eval "d=\$root_$n"
		uc=${BENCH_UNIX_CHANGES:-$(clamp $((2000000 / n)) 2 40)}
		s=$((r * 100))
		measure "$d" "$n" "$r" tcb tcb 'db files' tcb \
		    "$TCB_CHANGES" $((s + 1))
		measure "$d" "$n" "$r" unix unix 'db files' files "$uc" $((s + 2))
		[ "$PWFILES" = 0 ] && continue
		measure "$d" "$n" "$r" tcbf tcb files tcb \
		    "$(clamp $((2000000 / n)) 4 "$TCB_CHANGES")" $((s + 3))
		measure "$d" "$n" "$r" unixf unix files files "$uc" $((s + 4))
	done
	r=$((r + 1))
done
# Context: the default yescrypt (cost 5), at the largest N.
echo "measuring: yescrypt at N=$big ..."
eval "d=\$root_$big"
measure "$d" "$big" 1 tcby tcb-y 'db files' tcb 20 91
measure "$d" "$big" 1 unixy unix-y 'db files' files \
    "${BENCH_UNIX_CHANGES:-$(clamp $((2000000 / big)) 2 10)}" 92

# Phase 3: checks.  For the last 5 users changed through each scheme: the
# last password authenticates, the one before (or a wrong one) does not,
# and the hash has the method of the last change; /etc/shadow still holds
# every user; changed users' tcb dirs hold only shadow and shadow.lock.
fail=0
# last5 LOG: "USER LAST PREV" for the last 5 distinct users of LOG.
last5() {
	awk '{ prev[$1] = last[$1]; last[$1] = $2; order[$1] = NR }
	    END { for (u in last) print order[u], u, last[u],
	        prev[u] == "" ? "wrong-" last[u] : prev[u] }' "$1" |
	    sort -rn | head -n 5 | cut -d' ' -f2-
}
checks=''
for n in $SIZES; do
	eval "d=\$root_$n"
	bad=''
	for scheme in tcb unix; do
		if [ $scheme = tcb ]; then nsswitch "$d" 'db files' tcb
		else nsswitch "$d" 'db files' files; fi
		last5 "$d/$scheme.log" > "$d/$scheme.check"
		while read -r u last prev; do
			in_ns "$d" "$PROBE" "auth-$scheme" "$u" auth "$last" \
			    noauth "$prev" > "$d/probe.out" 2>&1 ||
			    bad="$bad $scheme:$u:$(tr '\n' ' ' < "$d/probe.out")"
			case $last in tcby-*|unixy-*) want='$y$' ;; *) want='$1$' ;; esac
			if [ $scheme = tcb ]; then
				h=$(cut -d: -f2 "$d/etc/tcb/$u/shadow")
			else
				h=$(awk -F: -v u="$u" '$1 == u { print $2 }' \
				    "$d/etc/shadow")
			fi
			case $h in "$want"*) ;; *) bad="$bad $scheme:$u:hash=$h" ;;
			esac
		done < "$d/$scheme.check"
	done
	[ "$(cut -d: -f1 "$d/etc/shadow" | cksum)" = \
	    "$(cut -d: -f1 "$d/shadow.orig" | cksum)" ] ||
	    bad="$bad shadow-users-differ"
	[ "$(stat -c '%U:%G %a' "$d/etc/shadow")" = "root:shadow 640" ] ||
	    bad="$bad shadow-mode:$(stat -c '%U:%G/%a' "$d/etc/shadow")"
	cut -d' ' -f1 "$d/tcb.log" | sort -u | while read -r u; do
		ls -A "$d/etc/tcb/$u"
	done | grep -v -x -e shadow -e shadow.lock > "$d/debris" &&
	    bad="$bad tcb-debris:$(head -n 3 "$d/debris" | tr '\n' ' ')"
	tc=$(cut -d' ' -f1 "$d/tcb.log" | sort -u | wc -l)
	uc=$(cut -d' ' -f1 "$d/unix.log" | sort -u | wc -l)
	checks="$checks
$( [ -z "$bad" ] && echo 1 || echo 0) N=$n: last 5 users of each scheme authenticate with their last password only, hashes \$1\$/\$y\$ as set; /etc/shadow keeps all $((n + 3)) users, root:shadow 0640; $tc tcb-changed users' dirs hold only shadow, shadow.lock${bad:+ (bad:$bad)}"
	echo "N=$n: checked ($(wc -l < "$d/tcb.log") tcb and" \
	    "$(wc -l < "$d/unix.log") pam_unix changes on $tc and $uc users)"
done

remove_roots

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'; }
count() { awk -v n="$1" -v k="$2" '$1 == n && $2 == k' "$RES" | wc -l; }

echo
echo "ms per password change (median), passwd: db (indexed)"
printf '%9s %9s %11s %11s %7s %7s\n' N "tcb ms" "pam_unix ms" unix/tcb \
    "#tcb" "#unix"
for n in $SIZES; do
	t=$(median "$n" tcb) u=$(median "$n" unix)
	printf '%9s %9.2f %11.2f %11s %7s %7s\n' "$n" "$t" "$u" \
	    "$(ratio "$u" "$t")" "$(count "$n" tcb)" "$(count "$n" unix)"
done
t=$(median "$big" tcby) u=$(median "$big" unixy)
echo "yescrypt (default cost) at N=$big: tcb $(printf %.2f "$t") ms," \
    "pam_unix $(printf %.2f "$u") ms, unix/tcb $(ratio "$u" "$t")" \
    "($(count "$big" tcby) and $(count "$big" unixy) changes)"
if [ "$PWFILES" != 0 ]; then
	echo
	echo "the same with passwd: files (getpwnam scans /etc/passwd)"
	printf '%9s %9s %11s %11s %7s %7s\n' N "tcb ms" "pam_unix ms" \
	    unix/tcb "#tcb" "#unix"
	for n in $SIZES; do
		t=$(median "$n" tcbf) u=$(median "$n" unixf)
		printf '%9s %9.2f %11.2f %11s %7s %7s\n' "$n" "$t" "$u" \
		    "$(ratio "$u" "$t")" "$(count "$n" tcbf)" \
		    "$(count "$n" unixf)"
	done
fi
echo "md5crypt (\$1\$) on both sides unless said; one PAM transaction"
echo "(pam_start .. pam_end) per change, as root, random users"
echo

echo "$checks" | while read -r ok text; do
	[ -n "$ok" ] && verdict "$ok" "$text"
done | tee "$RES.v"
grep -q '^FAIL' "$RES.v" && fail=1
rm -f "$RES.v"
if [ "$small" != "$big" ]; then
	q=$(flatness tcb "$big" "$small")
	verdict "$(holds "$q" 1.5 '<=')" \
	    "flatness: tcb(N=$big)/tcb(N=$small) = $(printf %.2f "$q") <= 1.5"
	if [ "$PWFILES" != 0 ]; then
		q=$(flatness tcbf "$big" "$small")
		echo "info  with passwd: files, tcb(N=$big)/tcb(N=$small) =" \
		    "$(printf %.1f "$q") (two /etc/passwd scans per change)"
	fi
fi
exit $fail
