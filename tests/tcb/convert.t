#!/bin/bash
# tcb_convert / tcb_unconvert against private roots: results seen through
# real glibc NSS, round trip, permissions, and refusals of bad input that
# must leave every file as it was.
. "$(dirname "$0")/../lib/root.sh"
need_root
tmpdir
CONV=$B/sbin/tcb_convert
UNCONV=$B/sbin/tcb_unconvert

# snapshot DIR: every path under DIR/etc with type, mode, owner and content
# hash (the lock file excluded): equal snapshots = nothing changed.
snapshot() {
	(cd "$1/etc" && find . -path ./.pwd.lock -prune -o -printf '%p %y %m %u:%g\n' |
	    sort && find . -type f ! -name .pwd.lock -exec sha256sum {} + | sort)
}

R=$T/r
mkroot "$R" 50
cp "$R/etc/shadow" "$T/shadow.orig"

$CONV --root "$R"; ok $? "convert a 50-user root"
is "$(stat -c '%a %U %G' "$R/etc/tcb")" "710 root shadow" "/etc/tcb root:shadow 0710"
auth=$(awk -F: '$1 == "auth" { print $3 }' "$R/etc/group")
is "$(stat -c '%a %u %g' "$R/etc/tcb/u7")" "2710 1007 $auth" "user dir USER:auth 2710 (TCB_AUTH_GROUP yes)"
is "$(stat -c '%a %u %g' "$R/etc/tcb/u7/shadow")" "640 1007 $auth" "user file USER:auth 0640"
is "$(stat -c '%a %U' "$R/etc/tcb/root")" "2710 root" "root is an ordinary entry"
is "$(cat "$R/etc/tcb/u7/shadow")" "$(grep '^u7:' "$T/shadow.orig")" "file holds the user's line"
cmp -s "$T/shadow.orig" "$R/etc/shadow"; ok $? "/etc/shadow untouched by convert"
is "$(grep -c '^auth:x:' "$R/etc/group")" 1 "group auth added"
is "$(grep -c '^auth:!::' "$R/etc/gshadow")" 1 "gshadow entry for auth added"
is "$(ls -a "$R/etc" | grep -c tcb)" 1 "no staging leftovers"

# glibc through nsswitch.conf (shadow: tcb) sees exactly the old shadow file.
got=$(in_ns "$R" getent -s tcb shadow | sort)
is "$got" "$(sort "$T/shadow.orig")" "getspent via tcb = converted /etc/shadow"
is "$(in_ns "$R" getent shadow u42)" "$(grep '^u42:' "$T/shadow.orig")" \
    "getspnam via nsswitch (shadow: tcb files)"

# Permissions: a user without group shadow sees nothing; with egid shadow
# and its own uid, it reads its own entry only; nobody lists /etc/tcb.
tfail "non-root user cannot list /etc/tcb" in_ns "$R" $(user_cmd 1001 100) ls /etc/tcb
tfail "non-root user cannot read own entry without group shadow" \
    in_ns "$R" $(user_cmd 1001 100) cat /etc/tcb/u1/shadow
got=$(in_ns "$R" $(user_cmd 1001 42) getent shadow u1)
is "$got" "$(grep '^u1:' "$T/shadow.orig")" "uid u1 + egid shadow reads its own entry"
tfail "uid u1 + egid shadow cannot read u2's entry" \
    in_ns "$R" $(user_cmd 1001 42) cat /etc/tcb/u2/shadow
tfail "uid u1 + egid shadow: getspnam(u2) fails" \
    in_ns "$R" $(user_cmd 1001 42) getent -s tcb shadow u2
tfail "uid u1 + egid shadow cannot list /etc/tcb" \
    in_ns "$R" $(user_cmd 1001 42) ls /etc/tcb

# Round trip: unconvert rebuilds the same bytes (passwd order kept).
rm "$R/etc/shadow"
$UNCONV --root "$R"; ok $? "unconvert"
cmp -s "$T/shadow.orig" "$R/etc/shadow"; ok $? "round trip is byte-identical"
is "$(stat -c '%a %U %G' "$R/etc/shadow")" "640 root shadow" "/etc/shadow root:shadow 0640"
# Success leaves /etc/tcb without group access (a stale copy now: no writer
# may land a change there); a failed run restores it (tests/tcb/fault.t).
is "$(stat -c '%a' "$R/etc/tcb")" 700 "/etc/tcb stays 0700 after a successful unconvert"
chmod 710 "$R/etc/tcb"

# TCB_AUTH_GROUP no: USER:shadow 2700 / 0600.
R2=$T/r2
mkroot "$R2" 2
sed -i 's/^TCB_AUTH_GROUP.*/TCB_AUTH_GROUP no/' "$R2/etc/login.defs"
$CONV --root "$R2"; ok $? "convert with TCB_AUTH_GROUP no"
is "$(stat -c '%a %u %G' "$R2/etc/tcb/u1" "$R2/etc/tcb/u1/shadow" | tr '\n' ' ')" \
    "2700 1001 shadow 600 1001 shadow " "USER:shadow 2700 dir, 0600 file"

# --incremental adds only the missing users.
echo "new1:x:2001:100::/:/bin/sh" >> "$R2/etc/passwd"
echo 'new1:!:19500:0:99999:7:::' >> "$R2/etc/shadow"
echo "tampered" > "$R2/etc/tcb/u1/keep"
$CONV --root "$R2" --incremental; ok $? "--incremental"
is "$(cat "$R2/etc/tcb/new1/shadow")" 'new1:!:19500:0:99999:7:::' "new user added"
is "$(stat -c '%a %u' "$R2/etc/tcb/new1")" "2700 2001" "new user's dir owner and mode"
is "$(cat "$R2/etc/tcb/u1/keep")" tampered "existing user dirs untouched"
is "$(ls -a "$R2/etc/tcb" | grep -c :)" 0 "no :incoming leftover"
tfail "plain convert refuses an existing /etc/tcb" $CONV --root "$R2"

# Refusals: each bad input gives a one-line error naming file:line or user,
# exit 1, and leaves the root exactly as it was.  refuse TOOL DESC PATTERN
# SETUP: SETUP DIR spoils a fresh root (for unconvert: a converted root whose
# /etc/shadow was removed, so a write would show).
refuse() {
	local tool=$1 desc=$2 pat=$3 setup=$4 r=$T/bad out rc before
	rm -rf "$r"; mkroot "$r" 3
	if [ "$tool" = "$UNCONV" ]; then
		$CONV --root "$r" && rm "$r/etc/shadow"
	fi
	$setup "$r"
	before=$(snapshot "$r")
	out=$(timeout 20 "$tool" --root "$r" 2>&1); rc=$?
	is "$rc" 1 "$desc: exit 1"
	like "$out" "$pat" "$desc: names the problem"
	is "$(snapshot "$r")" "$before" "$desc: nothing changed"
}
sh_add() { printf '%s\n' "$2" >> "$1/etc/shadow"; }
pw_add() { printf '%s\n' "$2" >> "$1/etc/passwd"; }
bad_fields() { sh_add "$1" 'u9:x:1:2:3:4:5:6'; pw_add "$1" 'u9:x:1009:100::/:/bin/sh'; }
bad_number() { sh_add "$1" 'u9:x:12a:0:99999:7:::'; pw_add "$1" 'u9:x:1009:100::/:/bin/sh'; }
bad_dup() { sh_add "$1" 'u2:x:19000:0:99999:7:::'; }
bad_orphan() { sh_add "$1" 'zz:*:19000:0:99999:7:::'; }
bad_dotdot() { sh_add "$1" '..:x:19000:0:99999:7:::'; }
bad_slash() { sh_add "$1" 'a/b:x:19000:0:99999:7:::'; }
bad_dot() { sh_add "$1" '.hid:x:19000:0:99999:7:::'; }
bad_comment() { sh_add "$1" '# a comment'; }
bad_nis() { sh_add "$1" '+::::::::'; }
bad_long() { { printf 'u9:'; head -c 1048576 /dev/zero | tr '\0' a; printf ':1::::::\n'; } >> "$1/etc/shadow"; }
bad_pwdup() { pw_add "$1" 'u1:x:1001:100::/:/bin/sh'; }
bad_defs() { echo 'TCB_AUTH_GROUP maybe' >> "$1/etc/login.defs"; }
bad_links() { echo 'TCB_SYMLINKS yes' >> "$1/etc/login.defs"; }
bad_noshadow() { rm "$1/etc/shadow"; }
# No group shadow, so convert adds it, preferring Debian's GID 42; glibc
# reads GID 4294967338 as 42 (and 4294968295 as 999, the top of the range
# the chooser takes others from).  Handing out either would give the new
# group an existing group's files: the chooser names the line instead.
no_shadow_group() { sed -i '/^shadow:/d' "$1/etc/group" "$1/etc/gshadow"; }
bad_gidwrap() { no_shadow_group "$1"; echo 'evil:x:4294967338:' >> "$1/etc/group"; }
bad_gidwrap999() { echo 'evil:x:4294968295:' >> "$1/etc/group"; }
bad_gidjunk() { no_shadow_group "$1"; echo 'junk:x:42abc:' >> "$1/etc/group"; }
bad_gidsign() { no_shadow_group "$1"; echo 'sign:x:+42:' >> "$1/etc/group"; }

refuse "$CONV" "8 fields" "shadow:7: malformed entry for u9" bad_fields
refuse "$CONV" "non-numeric field" "shadow:7: malformed entry for u9" bad_number
refuse "$CONV" "duplicate user" "shadow:7: duplicate user u2" bad_dup
refuse "$CONV" "user not in passwd" "user zz has no entry in .*/etc/passwd" bad_orphan
refuse "$CONV" "'..' user name" "shadow:7: invalid user name" bad_dotdot
refuse "$CONV" "'/' in user name" "shadow:7: invalid user name" bad_slash
refuse "$CONV" "leading '.'" "shadow:7: invalid user name" bad_dot
refuse "$CONV" "comment line" "shadow:7: unsupported line" bad_comment
refuse "$CONV" "NIS line" "shadow:7: unsupported line" bad_nis
refuse "$CONV" "1 MiB line" "shadow:7: line too long" bad_long
refuse "$CONV" "duplicate passwd user" "passwd:7: duplicate user u1" bad_pwdup
refuse "$CONV" "bad login.defs value" "login.defs:[0-9]+: value must be yes or no" bad_defs
refuse "$CONV" "TCB_SYMLINKS" "TCB_SYMLINKS is not supported" bad_links
refuse "$CONV" "no /etc/shadow" "etc/shadow: No such file" bad_noshadow
refuse "$CONV" "GID 4294967338 (glibc: 42), no shadow group" "etc/group:7: malformed line \(a GID" bad_gidwrap
refuse "$CONV" "GID 4294968295 (glibc: 999)" "etc/group:8: malformed line \(a GID" bad_gidwrap999
refuse "$CONV" "GID 42abc" "etc/group:7: malformed line \(a GID" bad_gidjunk
refuse "$CONV" "GID +42" "etc/group:7: malformed line \(a GID" bad_gidsign

un_symlink() { mv "$1/etc/tcb/u2/shadow" "$1/etc/tcb/u2/real"; ln -s real "$1/etc/tcb/u2/shadow"; }
un_hardlink() { ln "$1/etc/tcb/u2/shadow" "$1/etc/tcb/u2/shadow-"; }
un_fifo() { rm "$1/etc/tcb/u2/shadow"; mkfifo "$1/etc/tcb/u2/shadow"; }
un_twolines() { echo 'u2:x:1:::::::' >> "$1/etc/tcb/u2/shadow"; }
un_othername() { sed -i 's/^u2:/u3:/' "$1/etc/tcb/u2/shadow"; }
un_owner() { chown 1003 "$1/etc/tcb/u2/shadow"; }
un_missing() { rm -r "$1/etc/tcb/u2"; }
un_orphan() { mkdir "$1/etc/tcb/ghost"; echo 'ghost:*:1:::::' > "$1/etc/tcb/ghost/shadow"; }
refuse "$UNCONV" "symlink planted as shadow" "tcb/u2/shadow: not a regular file" un_symlink
refuse "$UNCONV" "hard link planted" "tcb/u2/shadow: not a regular file" un_hardlink
refuse "$UNCONV" "FIFO planted" "tcb/u2/shadow: not a regular file" un_fifo
refuse "$UNCONV" "two lines" "tcb/u2/shadow: not exactly one valid shadow line for u2" un_twolines
refuse "$UNCONV" "entry for another name" "not exactly one valid shadow line for u2" un_othername
refuse "$UNCONV" "file owned by another user" "owned by uid 1003, not by u2" un_owner
refuse "$UNCONV" "passwd user without tcb entry" "passwd:5: user u2 has no tcb entry" un_missing
refuse "$UNCONV" "tcb entry without passwd user" "tcb/ghost: no such user" un_orphan

# --force writes despite reported missing/orphaned entries.
r=$T/force; mkroot "$r" 3; $CONV --root "$r"; rm -r "$r/etc/tcb/u2"
out=$($UNCONV --root "$r" --force 2>&1); ok $? "--force proceeds"
like "$out" "user u2 has no tcb entry" "--force still reports the missing user"
is "$(grep -c '^u[0-9]:' "$r/etc/shadow")" 2 "--force: the others are written"

# Bounded memory: peak RSS stays small for 20,000 users (bench/ goes to 1M).
r=$T/big; mkroot "$r" 20000
rss=$(/usr/bin/time -f %M $CONV --root "$r" 2>&1 >/dev/null | tail -1)
ok $(( rss < 65536 ? 0 : 1 )) "convert of 20,000 users in ${rss} KiB (< 64 MiB)"
rm "$r/etc/shadow"
rss=$(/usr/bin/time -f %M $UNCONV --root "$r" 2>&1 >/dev/null | tail -1)
ok $(( rss < 65536 ? 0 : 1 )) "unconvert of 20,000 users in ${rss} KiB (< 64 MiB)"
is "$(wc -l < "$r/etc/shadow")" 20003 "unconvert wrote every entry"

# A hostile root: a FIFO as ETC/.pwd.lock must not hang root's tools (an
# O_WRONLY open of a FIFO waits for a reader); one line, exit 1, at once.
r=$T/fifo; mkroot "$r" 2; mkfifo "$r/etc/.pwd.lock"
for tool in "$CONV" "$UNCONV"; do
	t0=$(date +%s%N)
	out=$(timeout -k 1 5 "$tool" --root "$r" 2>&1); rc=$?
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	is "$rc" 1 "${tool##*/}: FIFO .pwd.lock: exit 1 (not a hang: $ms ms)"
	is "$out" "${tool##*/}: cannot lock $r/etc/.pwd.lock: not a regular file" \
	    "${tool##*/}: one line naming the lock file"
done
t "FIFO left as it was" test -p "$r/etc/.pwd.lock"

# --lock-fd: the tool takes the lock through an inherited descriptor of
# ETC/.pwd.lock (control's hand-over), refusing any other file.
r=$T/lockfd; mkroot "$r" 2; : > "$r/etc/.pwd.lock"
out=$($CONV --root "$r" --lock-fd 3 2>&1 3>"$r/etc/passwd-"); rc=$?
is "$rc:$out" "1:tcb_convert: --lock-fd 3: not an open, writable $r/etc/.pwd.lock" \
    "--lock-fd naming another file is refused"
t "nothing converted" test ! -e "$r/etc/tcb"
$CONV --root "$r" --lock-fd 3 3>>"$r/etc/.pwd.lock"; ok $? "--lock-fd on ETC/.pwd.lock converts"
is "$($CONV --root "$r" --lock-fd x 2>&1; echo $?)" "tcb_convert: --lock-fd x: not a file descriptor number
2" "--lock-fd x: usage error"

done_testing
