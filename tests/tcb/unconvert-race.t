#!/bin/bash
# No password change is lost across tcb_unconvert (issue 15, finding 2): a
# change made while it runs either lands in the new /etc/shadow or fails
# loudly, never "exit 0 and gone".  The writer is owlet's chage (root, so
# owlet_edit_tcb drops to the user's fsuid exactly as pam_tcb does), slowed
# by faultinj.so's FAULT_DELAY at the two points that matter:
#   - at its rename: it holds u1's lock when tcb_unconvert starts, so
#     tcb_unconvert must wait for the lock and copy the new entry;
#   - right after opening u1's shadow.lock by path, before locking it: it
#     locks only after tcb_unconvert has copied u1, so its re-check under
#     the lock (lckpwdf_tcb) must fail it.
# Also: after a successful run /etc/tcb keeps its group access removed.
. "$(dirname "$0")/../lib/root.sh"
need_root
SO=$B/tests/faultinj.so
[ -f "$SO" ] || make -s -C "$TOP" B="$B" "$SO" >/dev/null 2>&1 ||
	skip_all "cannot build $SO"
tmpdir
# the mark is created with the writer's fs ids at that moment (u1's)
M=$T/marks
mkdir -m 1777 "$M"
CH=$B/bin/chage
UNCONV=$B/sbin/tcb_unconvert
export LC_ALL=C TZ=UTC0

# waitfile PATH: up to 10 s for PATH to appear.
waitfile() {
	_i=0
	while [ ! -e "$1" ] && [ "$_i" -lt 1000 ]; do sleep 0.01; _i=$((_i + 1)); done
	[ -e "$1" ]
}

# race NAME DELAY: chage -M 77 u1 under FAULT_DELAY=DELAY against
# tcb_unconvert started when the delay begins.  Sets wrc, urc, max (u1's
# maximum age in the rebuilt /etc/shadow) and ms (tcb_unconvert's time).
race() {
	R=$T/$1
	mkroot "$R" 3
	tcb_sysroot "$R" || return 1
	rm -f "$M/mark"
	in_ns "$R" env LD_PRELOAD="$(preload "$SO")" FAULT_DELAY="$2" \
	    FAULT_DELAY_MARK="$M/mark" "$CH" -M 77 u1 >"$T/$1.wout" 2>&1 &
	wpid=$!
	waitfile "$M/mark" || { kill "$wpid"; return 1; }
	t0=$(date +%s%N)
	"$UNCONV" --root "$R" >"$T/$1.uout" 2>&1
	urc=$?
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	wait "$wpid"
	wrc=$?
	max=$(awk -F: '$1 == "u1" { print $5 }' "$R/etc/shadow" 2>/dev/null)
	diag "$1: chage exit $wrc ($(head -c 200 "$T/$1.wout")), tcb_unconvert exit $urc in $ms ms, u1 max=$max"
}

# 1. Writer holds u1's lock, sleeping 1.5 s before its rename.
race atrename before:rename:1500:shadow; ok $? "set-up: writer reached its rename"
is "$urc" 0 "tcb_unconvert succeeds while a change is in flight"
t "change landed in /etc/shadow or the writer failed (exit $wrc, max $max)" \
    test "$wrc" != 0 -o "$max" = 77
is "$wrc:$max" "0:77" "the writer held the lock: tcb_unconvert waited and copied its change"
ok $(( ms >= 1000 ? 0 : 1 )) "tcb_unconvert waited for u1's lock (${ms} ms)"
is "$(stat -c '%a' "$R/etc/tcb")" 700 "/etc/tcb stays 0700 after success (no writer gets back in)"

# 2. Writer opened shadow.lock by path before the lock-out, locks after
#    tcb_unconvert copied u1.
race lockopen after:open:1500:shadow.lock; ok $? "set-up: writer opened its lock file"
is "$urc" 0 "tcb_unconvert succeeds"
t "change landed in /etc/shadow or the writer failed (exit $wrc, max $max)" \
    test "$wrc" != 0 -o "$max" = 77
is "$(awk -F: '$1 == "u1" { print $5 }' "$R/etc/tcb/u1/shadow")" 99999 \
    "the late writer changed nothing under /etc/tcb either"

# 3. A failed run gives /etc/tcb its mode back.
R=$T/fail
mkroot "$R" 2
tcb_sysroot "$R"
echo 'u9:x:1009:100::/:/bin/sh' >> "$R/etc/passwd"	# no tcb entry: refused
tfail "tcb_unconvert refuses a passwd user without a tcb entry" "$UNCONV" --root "$R"
is "$(stat -c '%a' "$R/etc/tcb")" 710 "/etc/tcb mode restored after a failure"

done_testing
