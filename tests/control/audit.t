#!/bin/bash
# control --audit against what an unprivileged user can plant (issue 15,
# finding 3), and control on a root without facility files.  A private
# root on tmpfs (readdir lists the newest entry first there, so files
# planted after a root-owned one are walked before it, as a user's files
# on /dev/shm are walked before /usr when the attack works), no Debian
# base needed.
. "$(dirname "$0")/../lib/root.sh"
. "$(dirname "$0")/../lib/image.sh"
need_root
private_root : "$@"
mkdir -p "$R" && mount -t tmpfs -o mode=0755 tmpfs "$R" || {
	ok 1 "tmpfs private root"; done_testing; }
ctl() { "$B/sbin/control" --root "$R" "$@"; }
# control bytes other than the newline that ends each line
raw_ctl() { LC_ALL=C grep -caP '[\x00-\x09\x0b-\x1f\x7f-\xff]'; }

mkroot "$R" 1
mkdir -p "$R/etc/control.d/facilities" "$R/usr/bin" "$R/tmp" "$R/dev/shm"
chmod 1777 "$R/tmp"
cat > "$R/etc/control.d/facilities/tool" <<'EOF'
summary a set-uid tool
requires /usr/bin/tool

state public
file /usr/bin/tool root root 4755

state restricted
file /usr/bin/tool root root 0700
EOF
cp /bin/true "$R/usr/bin/tool" && chmod 4755 "$R/usr/bin/tool"

# --- 3(a): a user's set-uid file named to rewrite root's screen
name=$(printf 'x\033[2J\033[H\rclean\naudit: clean\n0 set-uid, 0 set-gid, 0 with capabilities, 0 unknown\xff\\')
touch "$R/tmp/$name" && chown 1001:100 "$R/tmp/$name" && chmod 4755 "$R/tmp/$name"
out=$(ctl --audit 2>&1); rc=$?
is "$rc" 1 "audit fails: the user's set-uid file belongs to no facility"
is "$(printf '%s\n' "$out" | wc -l)" 3 "one line per finding (tool, the planted file) and the summary"
is "$(printf '%s\n' "$out" | raw_ctl)" 0 "no control byte and no byte >= 0x7f in the text output"
like "$out" '/tmp/x\\x1b\[2J\\x1b\[H\\x0dclean\\x0aaudit: clean\\x0a0 set-uid, 0 set-gid, 0 with capabilities, 0 unknown\\xff\\\\ 4755 u1:users UNKNOWN' \
    "the name escaped (\\xHH, backslash doubled), on the finding's line"
unlike "$out" '^(audit: clean|0 set-uid)' "no forged line"
like "$(printf '%s\n' "$out" | tail -n 1)" '^2 set-uid, 0 set-gid, 0 with capabilities, 1 unknown \(0 owned by root\)$' \
    "the summary is the last line and counts both"

# JSON: exact bytes back (surrogateescape for the invalid byte)
ctl --audit --json > "$T/audit.json"
NAME="/tmp/$name" python3 -c '
import json, os, sys
j = json.load(open(sys.argv[1]))
want = os.environb[b"NAME"]
paths = [f["path"].encode("utf-8", "surrogateescape") for f in j["files"]]
sys.exit(0 if want in paths and j["unknown"] == 1 and j["complete"] else 1)' "$T/audit.json"
ok $? "--json parses (python3 json) and gives the exact name back"
utf=$(printf 'caf\303\251')
touch "$R/tmp/$utf" && chmod 2755 "$R/tmp/$utf"
is "$(ctl --audit --json | grep -c "\"path\": \"/tmp/$utf\"")" 1 "--json: a UTF-8 name passes through as is"
is "$(ctl --audit | grep -c '^/tmp/caf\\xc3\\xa9 2755 root:root UNKNOWN')" 1 "text: as \\xHH (ASCII whatever the terminal)"
rm -f "$R/tmp/$name" "$R/tmp/$utf"

# --- 3(b): 5,000 set-uid files of a user, planted after an unmanaged
# set-uid root program, on another tmpfs (as /dev/shm)
cp /bin/true "$R/usr/bin/evil" && chmod 4755 "$R/usr/bin/evil"
mount -t tmpfs -o mode=1777 tmpfs "$R/dev/shm"
(cd "$R/dev/shm" && seq -f 'f%g' 1 5000 | xargs touch &&
    seq -f 'f%g' 1 5000 | xargs chown 1001:100 &&
    seq -f 'f%g' 1 5000 | xargs chmod 4755)
ok $? "5,000 user-owned set-uid files on a tmpfs"
ctl --audit > "$T/out" 2> "$T/err"; rc=$?
is "$rc" 1 "audit fails"
is "$(grep -c '^/usr/bin/evil 4755 root:root UNKNOWN' "$T/out")" 1 "the unmanaged root program is named"
is "$(grep -c '^/dev/shm/f[0-9]* 4755 u1:users UNKNOWN' "$T/out")" 5000 \
    "and every user file (planted attacks are findings too)"
like "$(tail -n 1 "$T/out")" '^5002 set-uid, 0 set-gid, 0 with capabilities, 5001 unknown \(1 owned by root\)$' \
    "the summary counts the root-owned unknown file apart"
is "$(wc -l < "$T/err")" 0 "nothing on stderr: the walk is complete"
[ -s "$T/err" ] && diag "$(head -n 3 "$T/err")"
ctl --audit --json | python3 -c '
import json, sys
j = json.load(sys.stdin)
ev = [f for f in j["files"] if f["path"] == "/usr/bin/evil" and f["facility"] is None]
sys.exit(0 if ev and j["unknown"] == 5001 and j["unknown_root"] == 1 and
    j["setuid"] == 5002 and j["complete"] else 1)'
ok $? "--json: the root program, 5,001 unknown, 1 root-owned, complete"
umount "$R/dev/shm"
rm -f "$R/usr/bin/evil"

# --- a path too long to name is an error, never a silent skip
(cd "$R/tmp" && for i in $(seq 17); do
	mkdir "$(printf 'd%.0s' $(seq 240))" && cd d* || exit; done)
ctl --audit > "$T/out" 2> "$T/err"; rc=$?
is "$rc" 1 "audit fails when a name is too long for a path"
like "$(cat "$T/err")" "name too long for a path; not looked at" "and says so"
like "$(tail -n 1 "$T/out")" ', incomplete \(errors above\)$' "the summary says the audit is incomplete"
rm -rf "$R/tmp/dd"*

ctl --audit >/dev/null 2>&1
ok $? "a clean root audits clean (exit 0)"

# --- a root with no facility files: say so, exit non-zero
mkdir -p "$T/empty/etc" "$T/empty/usr/share"
for cmd in "" --check --dump --defaults; do
	out=$("$B/sbin/control" --root "$T/empty" $cmd 2>"$T/err"); rc=$?
	is "$rc" 1 "control --root EMPTY ${cmd:-(list)}: exit 1"
	is "$(wc -l < "$T/err")" 1 "... one line on stderr"
	like "$(cat "$T/err")" "^control: no facility files in $T/empty/usr/share/owlet/facilities or $T/empty/etc/control.d/facilities\$" \
	    "... naming the directories it looked in"
done
is "$(ctl >/dev/null 2>&1; echo $?)" 0 "a root with one facility file lists it (exit 0)"

done_testing
