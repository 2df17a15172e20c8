#!/bin/bash
# Concurrent password changes through pam_tcb write_to=tcb, inside a
# private tcb root with owlet staged over the system dirs (in_sys).
#
# 8 users change their own passwords 200 times each, in 8 parallel
# processes (tests/bin/pamprobe: one process per user, one PAM transaction
# per change, root mode, cheap $1$ hashes so that the file handling, not
# hashing, dominates).  Meanwhile two more processes change u11's password
# 100 times each (contention on one user's lock), and a reader checks that
# every read of u1..u8's files sees one complete valid entry.  Afterwards:
# every user authenticates with their last password and not the previous
# one; u9 and u10, never changed, are byte-identical; every tcb file is one
# valid line, owned by its user, mode and group kept, one link; no
# temporary files left anywhere under /etc/tcb.
. "$(dirname "$0")/../lib/root.sh"
need_root
PROBE=$B/tests/bin/pamprobe
if [ ! -x "$PROBE" ]; then
	make -s -C "$TOP" B="$B" "$PROBE" >/dev/null 2>&1 ||
		skip_all "cannot build $PROBE"
fi
tmpdir
S=$T/stage
need_stage "$S"

USERS="u1 u2 u3 u4 u5 u6 u7 u8"
N=200
R=$T/r
mkroot "$R" 11
tcb_sysroot "$R"; ok $? "11-user root converted and configured for tcb"
auth=$(awk -F: '$1 == "auth" { print $3 }' "$R/etc/group")
cat > "$R/etc/pam.d/owlet-chpw" <<'EOF'
password	required	pam_tcb.so write_to=tcb prefix=$1$ nodelay
EOF
cat > "$R/etc/pam.d/owlet-auth" <<'EOF'
auth	required	pam_tcb.so shadow nodelay
EOF
for u in u9 u10; do
	sha256sum < "$R/etc/tcb/$u/shadow" > "$T/$u.sum"
	stat -c '%u %g %a %h %i %Y' "$R/etc/tcb/$u/shadow" > "$T/$u.stat"
done
today=$(( $(date +%s) / 86400 ))

# valid USER LINE: one shadow line for USER with a $1$ hash changed today
# (the day may roll over during the run: accept tomorrow too).
valid() {
	[[ $2 =~ ^$1:\$1\$[./0-9A-Za-z]{1,8}\$[./0-9A-Za-z]{22}:([0-9]+):0:99999:7:::$ ]] &&
	    [ "${BASH_REMATCH[1]}" -ge "$today" ] &&
	    [ "${BASH_REMATCH[1]}" -le $((today + 1)) ]
}

# Reader: until the writers are done, read u1..u8's files (as root, from
# outside the namespace: the same files); each read must be exactly one
# valid line, or the untouched original.
for u in $USERS; do cp "$R/etc/tcb/$u/shadow" "$T/$u.orig"; done
reader() {
	local reads=0 bad=0 u lines
	while [ ! -e "$T/writers.done" ]; do
		for u in $USERS; do
			lines=()
			mapfile -t lines < "$R/etc/tcb/$u/shadow"
			if { [ "${#lines[@]}" = 1 ] && valid "$u" "${lines[0]}"; } ||
			    [ "${lines[*]}" = "$(< "$T/$u.orig")" ]; then
				:
			else
				bad=$((bad + 1))
				[ "$bad" -le 3 ] && printf '%s: %s\n' "$u" \
				    "${lines[*]}" >> "$T/reader.bad"
			fi
			reads=$((reads + 1))
		done
	done
	echo "$reads $bad" > "$T/reader.out"
}

reader &
rpid=$!
start=$(date +%s%N)
# One namespace for all writers; each writes its result line and status.
in_sys "$R" "$S" bash -c '
	probe=$1 t=$2 n=$3; shift 3
	for u; do
		( "$probe" owlet-chpw "$u" loop "$n" "P-$u-pw" > "$t/loop.$u" 2>&1
		  echo $? > "$t/rc.$u" ) &
	done
	for x in a b; do
		( "$probe" owlet-chpw u11 loop 100 "P-u11-$x" > "$t/loop.u11$x" 2>&1
		  echo $? > "$t/rc.u11$x" ) &
	done
	wait' concurrent "$PROBE" "$T" "$N" $USERS
end=$(date +%s%N)
touch "$T/writers.done"
wait "$rpid"
ms=$(( (end - start) / 1000000 ))
total=$(( 8 * N + 200 ))

for u in $USERS; do
	is "$(cat "$T/rc.$u" 2>/dev/null) $(cat "$T/loop.$u" 2>/dev/null)" \
	    "0 loop $N/$N 0 Success" "$u: $N changes, all succeeded"
done
for x in a b; do
	is "$(cat "$T/rc.u11$x" 2>/dev/null) $(cat "$T/loop.u11$x" 2>/dev/null)" \
	    "0 loop 100/100 0 Success" "u11, writer $x: 100 changes on the shared user, all succeeded"
done
echo "# $total password changes in $ms ms: $(( total * 1000 / (ms > 0 ? ms : 1) )) changes/s (8 users x $N + u11 2 x 100)"
ok $(( ms < 60000 ? 0 : 1 )) "changes finished in < 60 s (${ms} ms)"
read -r reads bad < "$T/reader.out"
is "$bad" 0 "concurrent reader: $reads reads of u1..u8's files, each one complete valid entry"
[ -s "$T/reader.bad" ] && diag "$(cat "$T/reader.bad")"

# Authentication: last password yes, previous no (one process per user;
# the service has nodelay, so failures cost no delay).
for u in $USERS; do
	out=$(in_sys "$R" "$S" "$PROBE" owlet-auth "$u" auth "P-$u-pw-$N" \
	    noauth "P-$u-pw-$((N - 1))" noauth "P-$u-pw-1" 2>&1)
	ok $? "$u authenticates with its last password only ($(echo $out))"
done
out=$(in_sys "$R" "$S" "$PROBE" owlet-auth u11 auth P-u11-a-100 2>/dev/null)
a=$?
out=$(in_sys "$R" "$S" "$PROBE" owlet-auth u11 auth P-u11-b-100 2>/dev/null)
b=$?
is "$(( (a == 0) + (b == 0) ))" 1 "u11 authenticates with exactly one of the two last passwords (a=$a b=$b)"
tfail "u11 does not authenticate with a's previous password" \
    in_sys "$R" "$S" "$PROBE" owlet-auth u11 auth P-u11-a-99
# The same through our real common-auth stack (fork, fail delay): one user.
echo '@include common-auth' > "$R/etc/pam.d/owlet-real"
printf 'P-u3-pw-%s\n' "$N" | in_sys "$R" "$S" pamtester owlet-real u3 authenticate >/dev/null 2>&1
ok $? "u3's last password accepted by common-auth (pamtester)"

# The two users nobody touched.
for u in u9 u10; do
	is "$(sha256sum < "$R/etc/tcb/$u/shadow")" "$(cat "$T/$u.sum")" "$u's file byte-identical"
	is "$(stat -c '%u %g %a %h %i %Y' "$R/etc/tcb/$u/shadow")" "$(cat "$T/$u.stat")" \
	    "$u's file: same inode, owner, mode, links, mtime"
done

# Every file: one valid line, its owner, group auth, 0640, one link; every
# dir holds only shadow and shadow.lock (or only shadow if never locked).
bad=
for u in $USERS u11; do
	f=$R/etc/tcb/$u/shadow
	mapfile -t lines < "$f"
	{ [ "${#lines[@]}" = 1 ] && valid "$u" "${lines[0]}" &&
	    [ "$(tail -c 1 "$f" | od -An -c | tr -d ' ')" = '\n' ]; } ||
	    bad="$bad $u:content"
	uid=$(awk -F: -v u="$u" '$1 == u { print $3 }' "$R/etc/passwd")
	[ "$(stat -c '%u %g %a %h' "$f")" = "$uid $auth 640 1" ] || bad="$bad $u:$(stat -c '%u/%g/%a/%h' "$f")"
done
is "${bad# }" "" "u1..u8, u11: one valid \$1\$ line changed today, USER:auth 0640, one link"
debris=$(cd "$R/etc/tcb" && find . -mindepth 1 ! -name shadow ! -name shadow.lock \
    ! -path './u[0-9]' ! -path './u1[01]' ! -path ./root ! -path ./daemon ! -path ./nobody)
is "$debris" "" "no temporary files left under /etc/tcb"
bad=
for u in u1 u2 u3 u4 u5 u6 u7 u8 u9 u10 u11; do
	uid=$(awk -F: -v u="$u" '$1 == u { print $3 }' "$R/etc/passwd")
	[ "$(stat -c '%a %u %g' "$R/etc/tcb/$u")" = "2710 $uid $auth" ] || bad="$bad $u"
done
is "${bad# }" "" "user dirs still USER:auth 2710"

done_testing
