#!/bin/bash
# owlet's chage (tcb/progs/chage.c) on private roots.
#
# tcb root (tcb_sysroot), chage staged root:shadow 2711 by stage_sys and run
# through in_sys, so that it really runs set-gid shadow as the user:
#   - chage -l u1 as u1: the exact seven lines (expected text computed from
#     the entry), -i with ISO dates, "password must be changed" for day 0;
#   - u1 cannot list u2, nor u1alias (same uid, other name), nor change
#     anything (file untouched); a copy without the set-gid bit cannot read;
#   - the group is dropped (setresgid, checked with getresgid) after the
#     entry is read and before anything is written (strace, if installed);
#   - root: each of -d -E -I -m -M -W changes exactly that field of
#     /etc/tcb/u1/shadow: other fields and other users' files byte-
#     identical, owner/group/mode/link count kept, lock file u1's, no temp
#     files; u1 then sees the value; -E -1 clears; bad values exit 2 and
#     change nothing; refusals for a malformed or hard-linked file.
# Fault injection: every counted call of a root change failed in turn
# (faultinj.so): u1's dir is the old state with a non-zero exit or the new
# one with exit 0, nothing else.
# Non-tcb root: root edits /etc/shadow under lckpwdf; compared byte for byte
# with what Debian's /usr/bin/chage does to a copy of the same root, and the
# -l output with Debian's.
. "$(dirname "$0")/../lib/root.sh"
need_root
tmpdir
S=$T/stage
need_stage "$S"
CH=$B/bin/chage
export LC_ALL=C TZ=UTC0

# skip DESC REASON: a TAP line for a check that cannot run here.
skip() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $1 # SKIP $2"; }

R=$T/r
mkroot "$R" 3
# u1alias: a second name for uid 1001, with its own tcb entry.
echo 'u1alias:x:1001:100:Alias:/home/u1:/bin/sh' >> "$R/etc/passwd"
echo 'u1alias:$y$j9T$aliassalt$aliasHASHaliasHASH:19500:0:99999:7:::' >> "$R/etc/shadow"
tcb_sysroot "$R"; ok $? "tcb root with u1..u3 and u1alias (uid 1001 too)"
auth=$(awk -F: '$1 == "auth" { print $3 }' "$R/etc/group")
U1=$R/etc/tcb/u1/shadow
AS_U1=$(user_cmd 1001 100)	# u1 as a login shell has it: no group shadow

is "$(in_sys "$R" "$S" stat -c '%a %U:%G' /usr/bin/chage)" "2711 root:shadow" \
    "chage in the overlay: root:shadow 2711"
in_sys "$R" "$S" cmp -s /usr/bin/chage "$CH"
ok $? "it is owlet's chage"

# state FILE: inode, owner, group, mode, links, mtime, contents.
state() { stat -c '%i %u %g %a %h %Y' "$1"; sha256sum < "$1"; }
others() { for u in u2 u3 u1alias root; do state "$R/etc/tcb/$u/shadow"; done; }
OTHERS=$(others)

# fmt DAY [iso]: a day number as chage prints it.
fmt() {
	if [ -n "$2" ]; then date -u -d "@$(($1 * 86400))" +%Y-%m-%d
	else date -u -d "@$(($1 * 86400))" '+%b %d, %Y'; fi
}
# expect LINE [iso]: the seven lines chage -l prints for shadow LINE
# (Debian's list_fields, condition for condition).
expect() {
	local l m x w i e
	IFS=: read -r _ _ l m x w i e _ <<< "$1"
	l=${l:--1} m=${m:--1} x=${x:--1} w=${w:--1} i=${i:--1} e=${e:--1}
	printf 'Last password change\t\t\t\t\t: '
	if [ "$l" -lt 0 ]; then echo never
	elif [ "$l" = 0 ]; then echo "password must be changed"
	else fmt "$l" "$2"; fi
	printf 'Password expires\t\t\t\t\t: '
	if [ "$l" = 0 ]; then echo "password must be changed"
	elif [ "$l" -lt 0 ] || [ "$x" -ge 10000 ] || [ "$x" -lt 0 ]; then echo never
	else fmt $((l + x)) "$2"; fi
	printf 'Password inactive\t\t\t\t\t: '
	if [ "$l" = 0 ]; then echo "password must be changed"
	elif [ "$l" -lt 0 ] || [ "$i" -lt 0 ] || [ "$x" -ge 10000 ] || [ "$x" -lt 0 ]; then echo never
	else fmt $((l + x + i)) "$2"; fi
	printf 'Account expires\t\t\t\t\t\t: '
	if [ "$e" -lt 0 ]; then echo never; else fmt "$e" "$2"; fi
	printf 'Minimum number of days between password change\t\t: %s\n' "$m"
	printf 'Maximum number of days between password change\t\t: %s\n' "$x"
	printf 'Number of days of warning before password expires\t: %s\n' "$w"
}
# u1list [-i]: chage -l u1 as u1; stdout in $out, stderr in $err, $rc.
u1list() {
	out=$(in_sys "$R" "$S" $AS_U1 chage -l "$@" u1 2>"$T/err"); rc=$?
	err=$(cat "$T/err")
}

# --- chage -l as the user ---------------------------------------------------
line=$(cat "$U1")
u1list
ok $rc "chage -l u1 as u1 (set-gid shadow)"
is "$out" "$(expect "$line")" "chage -l u1: the seven lines for '${line#*:*:}'"
is "$out" "$(printf '%s\n' \
    'Last password change					: Jan 09, 2022' \
    'Password expires					: never' \
    'Password inactive					: never' \
    'Account expires						: never' \
    'Minimum number of days between password change		: 0' \
    'Maximum number of days between password change		: 99999' \
    'Number of days of warning before password expires	: 7')" \
    "chage -l u1: literally Debian's format for day 19001"
is "$err" "" "... nothing on stderr"
! grep -q '\$y\$' <<< "$out"; ok $? "... no hash printed"
u1list -i
is "$out" "$(expect "$line" iso)" "chage -l -i u1: ISO dates"
like "$out" "^Last password change[[:space:]]+: 2022-01-09\$" "... 2022-01-09"
out=$(in_sys "$R" "$S" chage -l u1 2>&1)
is "$out" "$(expect "$line")" "chage -l u1 as root: the same"

# --- what the user may not do -----------------------------------------------
u1state=$(state "$U1")
out=$(in_sys "$R" "$S" $AS_U1 chage -l u2 2>&1); rc=$?
is "$rc" 1 "u1: chage -l u2 refused, exit 1"
is "$out" "chage: Permission denied." "... 'chage: Permission denied.', nothing else"
out=$(in_sys "$R" "$S" $AS_U1 chage -l u1alias 2>&1); rc=$?
is "$rc:$out" "1:chage: Permission denied." \
    "u1: chage -l u1alias (same uid 1001, another name) refused"
out=$(in_sys "$R" "$S" $AS_U1 chage -l nosuchuser 2>&1); rc=$?
is "$rc:$out" "1:chage: Permission denied." "u1: chage -l of an unknown user refused"
for opt in "-d 0" "-d 2020-01-01" "-E 0" "-E -1" "-I 5" "-m 1" "-M 5" "-W 3" "-M 5 -l"; do
	out=$(in_sys "$R" "$S" $AS_U1 chage $opt u1 2>&1); rc=$?
	case $opt in
	*-l) is "$rc" 2 "u1: chage $opt u1: bad syntax, exit 2" ;;
	*) is "$rc:$out" "1:chage: Permission denied." "u1: chage $opt u1 refused, exit 1" ;;
	esac
done
out=$(in_sys "$R" "$S" $AS_U1 chage u1 2>&1); rc=$?
is "$rc:$out" "1:chage: Permission denied." "u1: chage u1 (no option) refused"
is "$(state "$U1")" "$u1state" "u1's file untouched by all of that (inode, mtime, content)"
is "$(ls -A "$R/etc/tcb/u1")" "shadow" "u1's dir: no lock or temp file created"

# Without the set-gid bit (as if chmod g-s): u1 cannot reach /etc/tcb.
install -m 0755 "$CH" "$T/chage-nosgid"
out=$(in_sys "$R" "$S" $AS_U1 "$T/chage-nosgid" -l u1 2>"$T/err"); rc=$?
is "$rc" 1 "chage without set-gid, as u1: exit 1"
is "$out" "" "... prints no aging lines"
like "$(cat "$T/err")" "^chage: cannot read the shadow entry of user 'u1'" \
    "... one line: cannot read the shadow entry"

# The group drop, observed: the entry is read with egid shadow, then
# setresgid(real gid) before the first write.  strace -u runs chage as u1
# with its set-gid bit honoured.
if command -v strace >/dev/null; then
	in_sys "$R" "$S" strace -qq -u u1 -o "$T/trace" \
	    -e trace=openat,setresgid,getresgid,write chage -l u1 >/dev/null 2>&1
	ok $? "chage -l u1 as u1 under strace -u u1"
	tr=$(grep -nE 'openat\(.*/etc/tcb/u1/shadow"|setresgid\(|getresgid\(|write\(1,' "$T/trace" |
	    sed -E 's/^([0-9]+):([a-z]+)\(.*/\2/' | uniq | tr '\n' ' ')
	is "$tr" "openat setresgid getresgid write " \
	    "order: tcb file read, setresgid, getresgid (verify), then output"
	like "$(grep -E 'openat\(.*/etc/tcb/u1/shadow"' "$T/trace" | head -n 1)" ' = [0-9]+$' \
	    "the tcb file was opened (egid shadow honoured under strace -u)"
	like "$(grep 'setresgid(' "$T/trace")" '^setresgid\(100, 100, 100\) += 0' \
	    "setresgid(100, 100, 100): real gid users for all three"
	like "$(grep 'getresgid(' "$T/trace")" '\[100\], \[100\], \[100\]\) += 0' \
	    "getresgid confirms 100/100/100"
else
	for d in "strace run" "order" "opened" "setresgid" "getresgid"; do
		skip "group drop: $d" "strace not installed"
	done
fi

# --- root changes, one field at a time --------------------------------------
# rootset FIELD VALUE-ON-DISK OPTION ARG: chage OPTION ARG u1 as root must
# change exactly shadow field FIELD (1-based) to VALUE-ON-DISK.
rootset() {
	local f=$1 v=$2 before after
	shift 2
	before=$(cat "$U1")
	out=$(in_sys "$R" "$S" chage "$@" u1 2>&1); rc=$?
	ok $rc "root: chage $* u1"
	[ -z "$out" ] || diag "$out"
	after=$(awk -F: -v OFS=: -v f="$f" -v v="$v" '{ $f = v } 1' <<< "$before")
	is "$(cat "$U1")" "$after" "... field $f is now '$v', every other byte kept"
	is "$(stat -c '%u %g %a %h' "$U1")" "1001 $auth 640 1" "... u1:auth 0640, one link"
	is "$(ls -A "$R/etc/tcb/u1" | tr '\n' ' ')" "shadow shadow.lock " \
	    "... u1's dir: shadow and shadow.lock only"
	is "$(stat -c '%u %a' "$R/etc/tcb/u1/shadow.lock")" "1001 600" \
	    "... lock file u1's, 0600 (taken as u1)"
	is "$(stat -c '%u %g %a' "$R/etc/tcb/u1")" "1001 $auth 2710" \
	    "... dir still u1, 2710"
	is "$(others)" "$OTHERS" "... u2, u3, u1alias, root byte-identical"
	u1list
	is "$out" "$(expect "$(cat "$U1")")" "... chage -l u1 as u1 shows it"
}

d20240115=$(( $(date -u -d 2024-01-15 +%s) / 86400 ))
d20261203=$(( $(date -u -d 2026-12-03 +%s) / 86400 ))
rootset 3 "$d20240115" -d 2024-01-15
rootset 5 30 -M 30
like "$out" "Password expires[[:space:]]+: $(fmt $((d20240115 + 30)))\$" \
    "... expiry is last change + 30 days"
rootset 7 10 -I 10
like "$out" "Password inactive[[:space:]]+: $(fmt $((d20240115 + 40)))\$" \
    "... inactive 10 days after that"
rootset 8 "$d20261203" -E 2026-12-03
like "$out" "Account expires[[:space:]]+: Dec 03, 2026\$" "... 'Dec 03, 2026'"
rootset 4 2 -m 2
rootset 6 14 -W 14
rootset 8 "" -E -1
like "$out" "Account expires[[:space:]]+: never\$" "... -E -1: account expires never"
rootset 3 19999 --lastday 19999
rootset 7 "" -I -1
rootset 3 0 -d 0
is "$(sed -n 1,3p <<< "$out" | sed 's/.*: //' | sort -u)" "password must be changed" \
    "... -d 0: 'password must be changed' on the first three lines"
rootset 5 "" --maxdays -1
# Several at once.
before=$(cat "$U1")
in_sys "$R" "$S" chage -m 1 -M 60 -W 5 -d 2025-05-20 u1 >/dev/null 2>&1
ok $? "root: chage -m 1 -M 60 -W 5 -d 2025-05-20 u1"
is "$(cat "$U1")" "$(awk -F: -v OFS=: -v d=$(( $(date -u -d 2025-05-20 +%s) / 86400 )) \
    '{ $3 = d; $4 = 1; $5 = 60; $6 = 5 } 1' <<< "$before")" "... fields 3-6 set, the rest kept"

# --- bad values: exit 2, nothing changed ------------------------------------
u1state=$(state "$U1")
for bad in "-M -5" "-M abc" "-M 2147483648" "-M 010" "-m 0x10" "-W ''" "-I -2" \
    "-E 2026-13-40" "-E 2026-02-29" "-E 1969-12-31" "-d tomorrow" "-d -7" \
    "-E 99999999999"; do
	eval "set -- $bad"
	out=$(in_sys "$R" "$S" chage "$@" u1 2>&1); rc=$?
	is "$rc" 2 "root: chage $bad u1: exit 2"
	like "$(head -n 1 <<< "$out")" "^chage: invalid (numeric argument|date) '" \
	    "... first line names the bad value"
done
is "$(state "$U1")" "$u1state" "u1's file unchanged by the bad values"
out=$(in_sys "$R" "$S" chage u1 2>&1); rc=$?
is "$rc" 2 "root: chage u1 without options: exit 2 (no interactive mode)"
like "$out" "^chage: no changes requested: .*no interactive mode" "... one line saying so"
is "$(wc -l <<< "$out")" 1 "... only that line"
out=$(in_sys "$R" "$S" chage -M 5 nosuchuser 2>&1); rc=$?
is "$rc:$out" "1:chage: user 'nosuchuser' does not exist in /etc/passwd" \
    "root: unknown user: exit 1, named"
out=$(in_sys "$R" "$S" chage -l 2>&1); rc=$?
is "$rc" 2 "chage -l without LOGIN: exit 2"
is "$(state "$U1")" "$u1state" "u1's file still unchanged"

# A user in passwd with neither a tcb dir nor /etc/shadow: exit 15.
echo 'u9:x:1009:100::/:/bin/sh' >> "$R/etc/passwd"
out=$(in_sys "$R" "$S" chage -M 5 u9 2>&1); rc=$?
is "$rc:$out" "15:chage: the shadow password file is not present" \
    "root: no tcb dir and no /etc/shadow: exit 15"
is "$(ls -A "$R/etc/tcb" | grep -c u9)" 0 "... nothing created for u9"

# Suspicious files: refused, left as they are.
cp -p "$R/etc/tcb/u3/shadow" "$T/u3.orig"
printf 'u3x:*:1:0:99999:7:::\n' >> "$R/etc/tcb/u3/shadow"
u3state=$(state "$R/etc/tcb/u3/shadow")
out=$(in_sys "$R" "$S" chage -M 5 u3 2>&1); rc=$?
is "$rc" 1 "root: u3's file with two lines: refused (exit 1)"
like "$out" "^chage: /etc/tcb/u3/shadow: malformed or suspicious" "... says so"
is "$(state "$R/etc/tcb/u3/shadow")" "$u3state" "... file unchanged"
cp -p "$T/u3.orig" "$R/etc/tcb/u3/shadow"
ln "$R/etc/tcb/u3/shadow" "$R/etc/tcb/u3/hardlink"
out=$(in_sys "$R" "$S" chage -M 5 u3 2>&1); rc=$?
is "$rc" 1 "root: u3's file with two links: refused (exit 1)"
cmp -s "$T/u3.orig" "$R/etc/tcb/u3/shadow"; ok $? "... file unchanged"
rm -f "$R/etc/tcb/u3/hardlink"
sed -i 's/^u3:/u3x:/' "$R/etc/tcb/u3/shadow"
out=$(in_sys "$R" "$S" chage -M 5 u3 2>&1); rc=$?
is "$rc:$out" "1:chage: user 'u3' has no entry in /etc/tcb/u3/shadow" \
    "root: u3's file holds another name: exit 1, 'has no entry'"
cp -p "$T/u3.orig" "$R/etc/tcb/u3/shadow"

# --- fault injection over a root change -------------------------------------
SO=$B/tests/faultinj.so
[ -f "$SO" ] || make -s -C "$TOP" B="$B" "$SO" >/dev/null 2>&1
if [ -f "$SO" ]; then
	# dirstate DIR: u1's tcb dir and the other files (lock file ignored).
	dirstate() {
		( cd "$1/etc/tcb" && find . -path ./u1/shadow.lock -prune -o \
		    -printf '%p %y %m %U:%G %n\n' | sort &&
		  find . -path ./u1/shadow.lock -prune -o -type f -print0 |
		    sort -z | xargs -0r sha256sum )
	}
	P=$T/prep
	cp -a "$R" "$P"
	old=$(dirstate "$P")
	cp -a "$P" "$T/f0"
	in_ns "$T/f0" env LD_PRELOAD="$(preload "$SO")" FAULT_LOG="$T/count" \
	    "$CH" -M 77 -W 3 u1 >/dev/null 2>&1
	ok $? "fault-free run of chage -M 77 -W 3 u1 under faultinj.so"
	new=$(dirstate "$T/f0")
	C=$(cat "$T/count" 2>/dev/null || echo 0)
	[ "$C" -ge 5 ]; ok $? "it makes $C counted calls (>= 5)"
	bad=0 nold=0 nnew=0
	for n in $(seq 1 "$C"); do
		rm -rf "$T/f"; cp -a "$P" "$T/f"
		in_ns "$T/f" timeout 20 env LD_PRELOAD="$(preload "$SO")" FAULT_AT="$n" \
		    "$CH" -M 77 -W 3 u1 >/dev/null 2>&1
		frc=$?
		got=$(dirstate "$T/f")
		if [ "$frc" != 0 ] && [ "$got" = "$old" ]; then nold=$((nold + 1))
		elif [ "$frc" = 0 ] && [ "$got" = "$new" ]; then nnew=$((nnew + 1))
		else bad=$((bad + 1)); diag "FAULT_AT=$n: exit $frc, state neither old nor new"
		fi
	done
	diag "chage fault injection: $C runs: $nold old state, $nnew new state, $bad violations"
	is "$bad" 0 "every injected fault: old state with exit != 0, or new state with exit 0"
	rm -rf "$T/f" "$T/f0" "$P"
else
	skip "fault-free run" "no faultinj.so"; skip "counted calls" "no faultinj.so"
	skip "every injected fault" "no faultinj.so"
fi

# --- non-tcb root: /etc/shadow ----------------------------------------------
N=$T/n
mkroot "$N" 3
sed -i 's/^shadow:.*/shadow: files/' "$N/etc/nsswitch.conf"
sed -i '/^TCB_/d' "$N/etc/login.defs"	# Debian's chage knows no TCB_* keys
echo 'nosp:x:1010:100::/:/bin/sh' >> "$N/etc/passwd"
etcstate() { ( cd "$1/etc" && ls -A | grep -v '^\.pwd\.lock$' | sort | tr '\n' ' ' &&
    stat -c '%U:%G %a %h' shadow ); }
before=$(cat "$N/etc/shadow")
bstate=$(etcstate "$N")
out=$(in_ns "$N" "$CH" -l u2 2>&1)
is "$out" "$(expect "$(grep '^u2:' "$N/etc/shadow")")" "non-tcb: chage -l u2 as root"
is "$out" "$(in_ns "$N" /usr/bin/chage -l u2 2>/dev/null)" "... same as Debian's chage -l u2"
is "$(in_ns "$N" "$CH" -l -i u2 2>&1)" "$(in_ns "$N" /usr/bin/chage -l -i u2 2>/dev/null)" \
    "... and with -i"
in_ns "$N" "$CH" -M 30 u2 >/dev/null 2>&1
ok $? "non-tcb: chage -M 30 u2 as root"
is "$(cat "$N/etc/shadow")" "$(awk -F: -v OFS=: '$1 == "u2" { $5 = 30 } 1' <<< "$before")" \
    "... /etc/shadow: u2's field 5 is 30, every other line byte-identical"
is "$(etcstate "$N")" "$bstate" "... root:shadow 0640 kept, no temp or backup file in /etc"
out=$(in_ns "$N" "$CH" -M 30 nosp 2>&1); rc=$?
is "$rc:$out" "1:chage: user 'nosp' has no entry in /etc/shadow" \
    "non-tcb: user without a shadow line: exit 1, named"

# Debian's chage on a copy of the same root: same bytes in /etc/shadow.
for opts in "-M 45" "-m 3" "-W 10" "-I 20" "-E 2026-12-03" "-E -1" "-d 2024-01-15" \
    "-d 0" "-d -1" "-I -1 -M 99999" "-E 20000"; do
	rm -rf "$T/d" "$T/o"; cp -a "$N" "$T/d"; cp -a "$N" "$T/o"
	in_ns "$T/d" /usr/bin/chage $opts u1 >/dev/null 2>&1; drc=$?
	in_ns "$T/o" "$CH" $opts u1 >/dev/null 2>&1; orc=$?
	if [ "$drc" = 0 ]; then
		is "$orc:$(cat "$T/o/etc/shadow")" "0:$(cat "$T/d/etc/shadow")" \
		    "chage $opts u1: /etc/shadow identical to Debian's chage result"
		is "$(in_ns "$T/o" "$CH" -l u1 2>&1)" "$(in_ns "$T/d" /usr/bin/chage -l u1 2>/dev/null)" \
		    "... and chage -l u1 prints what Debian's does"
	else
		skip "chage $opts u1 vs Debian's" "Debian's chage failed here (exit $drc)"
		skip "... -l" "Debian's chage failed here"
	fi
done
rm -rf "$T/d" "$T/o"

done_testing
