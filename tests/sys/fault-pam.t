#!/bin/bash
# Fault injection in the password update path (pam_tcb write_to=tcb, with
# pam_passwdqc in front: the common-password stack we ship), in a private
# tcb root with owlet staged over the system dirs (in_sys).
#
# Two callers of the same stack:
#   root  pamtester passwd u1 chauthtok as root (root mode: no old
#         password; pam_tcb drops its fs IDs to u1 to write);
#   user  tests/bin/pamprobe as u1 with gid shadow (what passwd set-gid
#         shadow runs as; real gid shadow too, since a set-gid exec would
#         ignore LD_PRELOAD): current password, then the new one.
# For each: one fault-free run under build/tests/faultinj.so with FAULT_LOG
# counts the C wrapped calls (C > 10), then for N = 1..C one run with
# FAULT_AT=N on a fresh copy of the prepared root.  After each run:
#   - u1 authenticates with exactly one of the old and the new password,
#     and it is the new one iff the change reported success;
#   - u1's file is one valid line (the old one, or the old one with a new
#     hash and today's date), same owner, group, mode and link count, and
#     u1's directory holds nothing but shadow and shadow.lock;
#   - nothing else under the root's /etc changed (other users' tcb files,
#     passwd, group, PAM config ...).
# login.defs sets YESCRYPT_COST_FACTOR 6 (not libxcrypt's default 5): every
# new hash should carry it: when opening /etc or reading login.defs fails,
# pam_tcb must refuse the change, never fall back to libxcrypt's defaults.
. "$(dirname "$0")/../lib/root.sh"
need_root
SO=$B/tests/faultinj.so
PROBE=$B/tests/bin/pamprobe
for f in "$SO" "$PROBE"; do
	if [ ! -e "$f" ]; then
		make -s -C "$TOP" B="$B" "$f" >/dev/null 2>&1 ||
			skip_all "cannot build $f"
	fi
done
command -v pamtester >/dev/null || skip_all "pamtester not installed"
tmpdir
S=$T/stage
need_stage "$S"
mkdir -m 1777 "$T/w"	# shim logs, written by u1 too
TIMEOUT=30

OLD='Old-u1-Passw0rd-Xq'
NEW='Granite-Otter-Lamp-47!'
P=$T/prep
mkroot "$P" 4
set_pass "$P" u1 "$OLD"
echo 'YESCRYPT_COST_FACTOR 6' >> "$P/etc/login.defs"
COST=$(printf 'x\n' | "$B/tests/bin/mkhash" '$y$' 6 | cut -d'$' -f1-3)'$'
tcb_sysroot "$P"; ok $? "prepared root: 4 users, converted, common-* stacks, passwdqc"
cat > "$P/etc/pam.d/owlet-auth" <<'EOF'
auth	required	pam_tcb.so shadow nodelay
EOF
OLDLINE=$(cat "$P/etc/tcb/u1/shadow")
OLDSTAT=$(stat -c '%u %g %a %h' "$P/etc/tcb/u1/shadow")

# manifest DIR: DIR/etc without u1's tcb dir (and glibc's .pwd.lock).
manifest() {
	(
		cd "$1/etc" || exit 1
		find . \( -path ./tcb/u1 -o -path ./.pwd.lock \) -prune -o \
		    -printf '%p %y %m %U:%G %n %l\n' | LC_ALL=C sort
		find . \( -path ./tcb/u1 -o -path ./.pwd.lock \) -prune -o \
		    -type f -print0 | LC_ALL=C sort -z | xargs -0r sha256sum
	)
}
manifest "$P" > "$T/manifest.old"

# change MODE DIR [VAR=VALUE...]: one password change of u1 in DIR; exit
# status in $rc, output in $T/w/out and $T/w/err.
change() {
	local mode=$1 dir=$2
	shift 2
	if [ "$mode" = root ]; then
		printf '%s\n%s\n' "$NEW" "$NEW" | in_sys "$dir" "$S" \
		    timeout -k 5 "$TIMEOUT" env LD_PRELOAD="$(preload "$SO")" "$@" \
		    pamtester passwd u1 chauthtok >"$T/w/out" 2>"$T/w/err"
	else
		in_sys "$dir" "$S" timeout -k 5 "$TIMEOUT" $(user_cmd 1001 42) \
		    env LD_PRELOAD="$(preload "$SO")" "$@" \
		    "$PROBE" passwd u1 change "$OLD" "$NEW" </dev/null \
		    >"$T/w/out" 2>"$T/w/err"
	fi
	rc=$?
}

# works DIR: "old", "new", "both" or "none": the passwords u1 can
# authenticate with (pam_tcb, as root, no fail delay).
works() {
	local out o n
	out=$(in_sys "$1" "$S" "$PROBE" owlet-auth u1 auth "$OLD" auth "$NEW" 2>/dev/null)
	o=$(printf '%s\n' "$out" | sed -n 1p)
	n=$(printf '%s\n' "$out" | sed -n 2p)
	case $o in "auth 0 "*) o=1 ;; *) o=0 ;; esac
	case $n in "auth 0 "*) n=1 ;; *) n=0 ;; esac
	case $o$n in 10) echo old ;; 01) echo new ;; 11) echo both ;; *) echo none ;; esac
}

# filestate DIR: empty if u1's file and dir are sound, else what is wrong.
today=$(( $(date +%s) / 86400 ))
filestate() {
	local f=$1/etc/tcb/u1/shadow lines st extra norm
	mapfile -t lines < "$f"
	if [ "${#lines[@]}" != 1 ] || [ "$(tail -c 1 "$f" | od -An -tx1 | tr -d ' ')" != 0a ]; then
		echo "not one line: ${#lines[@]} lines"
		return
	fi
	if [ "${lines[0]}" != "$OLDLINE" ]; then
		norm=$(printf '%s\n' "${lines[0]}" | awk -F: -v OFS=: '{ $2 = "H"; $3 = "D" } 1')
		if [ "$norm" != "$(printf '%s\n' "$OLDLINE" | awk -F: -v OFS=: '{ $2 = "H"; $3 = "D" } 1')" ] ||
		    ! [[ ${lines[0]} =~ ^u1:\$y\$[./0-9A-Za-z]+\$[./0-9A-Za-z]+\$[./0-9A-Za-z]{43}:([0-9]+): ]] ||
		    [ "${BASH_REMATCH[1]}" -lt "$today" ]; then
			echo "bad line: ${lines[0]}"
			return
		fi
	fi
	st=$(stat -c '%u %g %a %h' "$f")
	[ "$st" = "$OLDSTAT" ] || { echo "owner/group/mode/links $st, was $OLDSTAT"; return; }
	extra=$(ls -A "$1/etc/tcb/u1" | grep -vx -e shadow -e shadow.lock | tr '\n' ' ')
	[ -z "$extra" ] || echo "left in u1's dir: $extra"
}

total_runs=0 total_bad=0
W=$T/work

# hashcost DIR: the start of u1's hash ("$y$jAT$" for yescrypt cost 6).
hashcost() { cut -d: -f2 "$1/etc/tcb/u1/shadow" | cut -d'$' -f1-3 | sed 's/$/$/'; }

# fault_loop MODE
fault_loop() {
	local mode=$1 C n call got fs m old=0 new=0 bad=0 weak=
	rm -rf "$W"; cp -a "$P" "$W"
	rm -f "$T/w/count"
	change "$mode" "$W" FAULT_LOG="$T/w/count"
	ok $rc "$mode: fault-free run under the shim succeeds"
	[ "$rc" = 0 ] || diag "$(cat "$T/w/err")"
	is "$(works "$W")" new "$mode: ... and u1 then authenticates with the new password only"
	is "$(filestate "$W")" "" "$mode: ... u1's file: one valid new line, owner/mode/links kept"
	is "$(hashcost "$W")" "$COST" "$mode: ... the new hash has login.defs' cost (YESCRYPT_COST_FACTOR 6)"
	C=$(cat "$T/w/count" 2>/dev/null || echo 0)
	[ "$C" -gt 10 ]; ok $? "$mode: $C wrapped calls counted (> 10)"

	rm -rf "$W"; cp -a "$P" "$W"
	change "$mode" "$W" FAULT_AT=$((C + 1))
	is "$rc $(works "$W")" "0 new" "$mode: FAULT_AT=$((C + 1)) (past the end): success, new password"

	for n in $(seq 1 "$C"); do
		rm -rf "$W"; cp -a "$P" "$W"
		change "$mode" "$W" FAULT_AT="$n"
		call=$(sed -n 's/.*faultinj: failing \([^ ]*\) #[0-9]*\(.*\)$/\1\2/p' "$T/w/err" | head -n 1)
		[ -n "$call" ] || call="no fault hit"
		got=$(works "$W")
		case $rc,$got in
		0,new) new=$((new + 1)); ok 0 "$mode FAULT_AT=$n ($call): exit 0, new password only"
			[ "$(hashcost "$W")" = "$COST" ] || weak="$weak $n:$(hashcost "$W")" ;;
		[1-9]*,old)
			if [ "$rc" -ge 124 ]; then
				ok 1 "$mode FAULT_AT=$n ($call): exit $rc (timeout or signal), old password"
				bad=$((bad + 1))
			else
				old=$((old + 1))
				ok 0 "$mode FAULT_AT=$n ($call): exit $rc, old password only"
			fi ;;
		*)	ok 1 "$mode FAULT_AT=$n ($call): exit $rc, passwords working: $got"
			bad=$((bad + 1))
			grep -v '^faultinj:' "$T/w/err" | tail -n 5 | sed 's/^/#   /' >&2 ;;
		esac
		fs=$(filestate "$W")
		is "$fs" "" "$mode FAULT_AT=$n: u1's file one valid line, owner/mode/links kept, no debris"
		[ -z "$fs" ] || bad=$((bad + 1))
		manifest "$W" > "$T/manifest.now"
		if cmp -s "$T/manifest.old" "$T/manifest.now"; then
			ok 0 "$mode FAULT_AT=$n: nothing else under /etc changed"
		else
			ok 1 "$mode FAULT_AT=$n: nothing else under /etc changed"
			diff "$T/manifest.old" "$T/manifest.now" | head -n 10 | sed 's/^/#   /' >&2
			bad=$((bad + 1))
		fi
	done
	[ -z "$weak" ]
	ok $? "$mode: every new hash written under a fault has login.defs' cost ${COST}${weak:+ (not at FAULT_AT=${weak# })}"
	diag "$mode: C=$C; $C runs: $old old password, $new new password, $bad violations"
	total_runs=$((total_runs + C))
	total_bad=$((total_bad + bad))
}

fault_loop root
fault_loop user

diag "fault injection: $total_runs runs, $total_bad violations"
done_testing
