#!/bin/bash
# The guess gate: a user who runs their own set-gid passwd many times at
# once, killing each run as soon as its answer is late, tests at most one
# guess of their password per 2 s (the same limit as tcb_chkpwd).
#
# The oracle being closed: passwd asks "Current password:", pam_tcb checks
# it against the user's own hash (passwd is set-gid shadow, so it can read
# it) and a right guess is answered with "New password:" at once, a wrong
# one only after the failure delay.  An attacker kills every run that has
# not answered within 0.4 s and so learns "wrong" without waiting.  With
# the gate, a guess is hashed only after the stamp on /etc/tcb/USER/
# shadow.gate has passed, and arming the stamp comes first: the stamp's
# successive values, sampled by root during a flood of guesses, are the
# guesses that reached the hash.
. "$(dirname "$0")/../lib/root.sh"
need_root
tmpdir
S=$T/stage
need_stage "$S"
RIGHT='Old-u1-Passw0rd-Xq'
R=$T/r
mkroot "$R" 2
set_pass "$R" u1 "$RIGHT"
tcb_sysroot "$R"; ok $? "2-user root converted to tcb, owlet's PAM stacks"
STAMP=/etc/tcb/u1/shadow.gate

# The attacker's tools, run inside one namespace (in_sys) as root, each
# guess through Debian's passwd set-gid shadow as u1.
cat > "$T/attack.sh" <<'EOF'
# try GUESS MS OUT: one passwd run as u1 with GUESS as the current
# password, killed after MS milliseconds; exit 0 as soon as passwd asks
# for the new password (the guess was right), 1 if it did not by then.
try() {
	local pid end
	end=$(( $(date +%s%N) + $2 * 1000000 ))
	setpriv --reuid=1001 --regid=100 --clear-groups -- passwd \
	    <<<"$1" >"$3" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		grep -qi 'new password' "$3" && break
		[ "$(date +%s%N)" -lt "$end" ] || break
		sleep 0.01
	done
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	grep -qi 'new password' "$3"
}
# stamps FILE STOP: root samples the stamp's mtime every 10 ms until the
# file STOP exists.
stamps() {
	while [ ! -e "$2" ]; do
		stat -c '%.9Y' "$1" 2>/dev/null
		sleep 0.01
	done | uniq
}
case $1 in
flood)	# flood RUNS MIN MAX PARALLEL OUTDIR: wrong guesses, each killed at
	# 0.4 s, for MIN seconds and then until RUNS runs were made or MAX
	# seconds passed (a slow host floods for longer); OUTDIR/ms is how
	# long it lasted
	runs=$2 min=$3 secs=$4 par=$5 out=$6
	: > "$out/runs"
	stamps /etc/tcb/u1/shadow.gate "$out/stop" > "$out/stamps" &
	spid=$!
	start=$(date +%s%N)
	least=$(( $(date +%s) + min )) end=$(( $(date +%s) + secs ))
	pids=
	for i in $(seq "$par"); do
		(n=0; while now=$(date +%s); [ "$now" -lt "$least" ] ||
		    { [ "$now" -lt "$end" ] && [ "$(wc -c < "$out/runs")" -lt "$runs" ]; }; do
			n=$((n + 1))
			echo -n . >> "$out/runs"
			try "Wrong-guess-$i-$n" 400 "$out/try.$i" &&
			    echo "wrong guess $i-$n accepted"
		done; echo "$n" > "$out/count.$i") 2>/dev/null &
		pids="$pids $!"
	done
	wait $pids
	echo $(( ($(date +%s%N) - start) / 1000000 )) > "$out/ms"
	touch "$out/stop"
	wait "$spid" ;;
oracle)	# oracle GUESS: a wrong guess, then the right one, each killed at 0.4 s
	try Wrong-guess-oracle 400 /tmp/o1 2>/dev/null && echo "wrong accepted"
	s=$(date +%s%N)
	if try "$2" 400 /tmp/o2 2>/dev/null; then
		echo "answered in $(( ($(date +%s%N) - s) / 1000000 )) ms"
	else
		echo "no answer"
	fi ;;
patient) # patient GUESS: the right guess, waited for (no new password given)
	s=$(date +%s%N)
	if try "$2" 20000 /tmp/p; then
		echo "answered in $(( ($(date +%s%N) - s) / 1000000 )) ms"
	else
		echo "no answer: $(head -c 300 /tmp/p)"
	fi ;;
stopped) # stopped DAYS: a wrong guess arms the stamp, a second passwd run
	# waiting at the gate is stopped (SIGSTOP), then root changes u1's
	# entry with chage, a writer that takes u1's tcb lock
	try Wrong-guess-stop 400 /tmp/s1 2>/dev/null && echo "wrong accepted"
	setpriv --reuid=1001 --regid=100 --clear-groups -- passwd \
	    <<<"Another-wrong-guess" >/tmp/s2 2>&1 &
	pid=$!
	sleep 0.5
	kill -STOP "$pid"
	s=$(date +%s%N)
	chage -d "$2" u1 >/tmp/s3 2>&1
	echo "root: exit $? in $(( ($(date +%s%N) - s) / 1000000 )) ms"
	cat /tmp/s3
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null ;;
esac
EOF
mkdir -p "$T/flood"
in_sys "$R" "$S" bash "$T/attack.sh" flood 16 6 40 4 "$T/flood" > "$T/flood/out" 2>&1
is "$(cat "$T/flood/out")" "" "flood: no wrong guess accepted"
tries=$(cat "$T"/flood/count.* | awk '{ s += $1 } END { print s }')
ms=$(cat "$T/flood/ms")
diag "flood: $tries runs of passwd in $ms ms (4 in parallel, each killed at 0.4 s)"
# A flood is at least 3 times the 4 guesses the gate lets through in 6 s,
# so that the gate, not passwd's start-up, is what held them back: the
# flood lasts 6 s, and longer until 16 runs were made (under ASan on a
# loaded 2-core host one run takes up to 1.3 s), 40 s at most.
[ "${tries:-0}" -ge 12 ]; ok $? "flood: the attacker ran $tries passwd runs (>= 12)"
# The stamp's values: each armed one is the time a guess reached the hash
# plus 2 s.  They must be at least 2 s apart (less a little for the clock
# read between arming and sampling): in MS ms, at most MS/2000 + 1 guesses
# reached the hash after the first.
mapfile -t st < "$T/flood/stamps"
diag "flood: stamp values: ${st[*]}"
[ "${#st[@]}" -ge 2 ]; ok $? "flood: guesses reached the gate and armed the stamp (${#st[@]} values)"
max=$(( ms / 2000 + 1 ))
[ $(( ${#st[@]} - 1 )) -le "$max" ]
ok $? "flood: at most $max guesses reached the hash in $ms ms ($(( ${#st[@]} - 1 )) after the first value)"
gaps=$(printf '%s\n' "${st[@]}" | awk 'NR > 1 { printf "%.2f ", $1 - p } { p = $1 }')
diag "flood: gaps between armed stamps: $gaps"
min=$(printf '%s\n' "${st[@]}" | awk 'NR > 1 { d = $1 - p; if (m == "" || d < m) m = d } { p = $1 } END { print (m == "" ? 0 : m) }')
awk -v m="$min" 'BEGIN { exit !(m >= 1.95) }'
ok $? "flood: successive guesses reached the hash >= 2 s apart (smallest gap $min s)"

# The oracle of the review: a wrong guess, then the right one; killing the
# right one at 0.4 s must not tell the attacker it was right.
sleep 2.1	# the flood's last stamp passes
out=$(in_sys "$R" "$S" bash "$T/attack.sh" oracle "$RIGHT" 2>&1)
is "$out" "no answer" "oracle: a right guess right after a wrong one is not answered within 0.4 s"

# The real user is only slowed, never locked out: waited for, the right
# password is answered within the delay, and then the stamp is reset.
out=$(in_sys "$R" "$S" bash "$T/attack.sh" patient "$RIGHT" 2>&1)
like "$out" '^answered in [0-9]+ ms$' "patient: the right password is answered ($out)"
ms=$(echo "$out" | sed -n 's/^answered in \([0-9]*\) ms$/\1/p')
[ "${ms:-99999}" -lt 4500 ]; ok $? "patient: within one delay and a hash (${ms} ms)"
out=$(in_sys "$R" "$S" bash "$T/attack.sh" patient "$RIGHT" 2>&1)
ms=$(echo "$out" | sed -n 's/^answered in \([0-9]*\) ms$/\1/p')
[ "${ms:-99999}" -lt 1500 ]; ok $? "patient: after a right guess the next is not delayed (${ms} ms)"
is "$(stat -c '%u %a %h' "$R$STAMP")" "1001 600 1" "the stamp is u1's own gate file, 0600, one link"

# A user who stops a checker waiting at the gate holds up nothing but
# their own checks: root's change of their entry goes through at once (the
# gate is not the writers' lock, and no lock is held while waiting).
out=$(in_sys "$R" "$S" bash "$T/attack.sh" stopped 12345 2>&1)
diag "stopped: $out"
like "$out" "^root: exit 0 in [0-9]+ ms" "stopped checker: root's chage -d 12345 u1 succeeds"
ms=$(echo "$out" | sed -n 's/^root: exit 0 in \([0-9]*\) ms$/\1/p')
[ "${ms:-99999}" -lt 5000 ]; ok $? "stopped checker: root was not held up (${ms} ms)"
is "$(cut -d: -f3 "$R/etc/tcb/u1/shadow")" 12345 "stopped checker: u1's last change day is 12345"
done_testing
