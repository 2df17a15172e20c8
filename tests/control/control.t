#!/bin/bash
# control(8) on a private copy (overlayfs) of the Debian base root, with
# owlet installed into it: every facility's every state is set, read back
# and switched back; drift, audit, persistence and hostile input.
. "$(dirname "$0")/../lib/root.sh"
. "$(dirname "$0")/../lib/image.sh"
need_root
owlet_root "$@"
ctl() { "$B/sbin/control" --root "$R" "$@"; }
gid_of() { awk -F: -v g="$1" '$1 == g { print $3 }' "$R/etc/group"; }
state() { ctl "$1" 2>/dev/null; }
# manifest of everything but control's own bookkeeping
manifest() {
	"$B/bin/seal" create -p "$R" -x /proc -x /sys -x /dev -x /run -x /tmp \
	    -x /etc/control.d -x /var/lib/owlet -x /var/lib/dpkg/statoverride \
	    -x /etc/sysctl.d/99-sysctl-control.conf -x /etc/group -x /etc/gshadow \
	    -x /etc/group- -x /etc/gshadow- -x /etc/.pwd.lock \
	    -x /etc/shadow- 2>/dev/null
}

# --- what a stock Debian root reads as
out=$(ctl); rc=$?
ok $rc "control lists the facilities (exit 0)"
like "$out" "passwd +traditional +\(traditional tcb restricted\)" "passwd reads traditional on stock Debian"
like "$out" "ping +raw-caps" "ping reads raw-caps (Debian: cap_net_raw)"
like "$out" "su +public" "su reads public"
like "$out" "crontab +public" "crontab reads public (cron's own statoverride mode)"
unlike "$out" "^sudo " "facilities whose program is absent are not listed"
ctl --json | perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); exit !(ref $j eq "ARRAY" && grep { $_->{facility} eq "passwd" && $_->{state} eq "traditional" } @$j)'
ok $? "--json listing is valid JSON with the same states"
is "$(ctl ping list)" "dgramsocket public restricted raw-caps" "ping list: states in file order"
like "$(ctl ping help)" "dgramsocket: set-gid _icmp" "ping help describes each state"
like "$(ctl passwd summary)" "who may change passwords" "passwd summary"

# --- every state of every facility, and back, leaves the tree as it was
# (make install leaves owlet's chage and tcb_chkpwd in no state: start
# them from one)
ctl chage restricted && ctl tcb_chkpwd restricted
ok $? "owlet's own programs set to a state"
before=$(manifest)
facs=$(ctl | awk '{print $1}')
bad=
for f in $facs; do
	orig=$(state "$f")
	for s in $(ctl "$f" list); do
		if ! ctl "$f" "$s" >/dev/null 2>"$T/err"; then
			bad="$bad $f:$s(set:$(head -n 1 "$T/err"))"
		elif [ "$(state "$f")" != "$s" ]; then
			bad="$bad $f:$s(read $(state "$f"))"
		fi
	done
	if [ "$orig" != unknown ]; then
		ctl "$f" "$orig" >/dev/null 2>&1 || bad="$bad $f:back-to-$orig"
	fi
done
is "${bad:-none}" none "every facility reaches every state and reads it back ($(echo $facs | wc -w) facilities)"
after=$(manifest)
diff <(echo "$before") <(echo "$after") > "$T/diff"
is "$(grep -c '^[<>]' "$T/diff")" 0 "switching everything back leaves the tree byte-identical (seal manifest)"
[ -s "$T/diff" ] && diag "$(head -n 20 "$T/diff")"

# --- passwd tcb: the whole tcb state, as a tcb system needs it
ctl passwd tcb
ok $? "passwd tcb"
t "/etc/tcb exists, /etc/shadow is gone" test -d "$R/etc/tcb" -a ! -e "$R/etc/shadow"
like "$(grep '^shadow:' "$R/etc/nsswitch.conf")" "^shadow: tcb" "nsswitch.conf: shadow: tcb"
like "$(grep -v '^#' "$R/etc/pam.d/common-auth")" "pam_tcb.so" "common-auth uses pam_tcb"
unlike "$(grep -v '^#' "$R/etc/pam.d/common-auth")" "pam_unix" "and not pam_unix"
is "$(stat -c '%a %g' "$R/usr/bin/passwd")" "2711 $(gid_of shadow)" "passwd is root:shadow 2711 (no set-uid)"
like "$(cat "$R/var/lib/dpkg/statoverride")" "root shadow 2711 /usr/bin/passwd" "registered with dpkg-statoverride"
ctl passwd traditional
ok $? "passwd traditional"
cmp -s "$R/etc/pam.d/common-password" "$OWLET_BASE/etc/pam.d/common-password"
ok $? "Debian's own common-password is back byte for byte"
cmp -s "$R/etc/shadow" "$OWLET_BASE/etc/shadow"
ok $? "/etc/shadow is back byte for byte"
is "$(ctl passwd public 2>&1; echo $?)" 0 "alias: passwd public means traditional (exit 0)"

# --- the owlet profile: every facility to its default
ctl --defaults --quiet
ok $? "--defaults sets every facility to its owlet default"
out=$(ctl --audit)
ok $? "audit exits 0 when every privileged file has a facility"
like "$out" "0 set-uid, [0-9]+ set-gid, 0 with capabilities, 0 unknown" "owlet profile: zero set-uid files, zero capabilities"
ctl --check >/dev/null
ok $? "--check is clean after --defaults"

# --- drift and reapply
chmod 4755 "$R/usr/bin/chfn"
out=$(ctl --check); rc=$?
is "$rc" 1 "--check exits 1 after a manual chmod"
is "$out" "chfn: configured restricted, found public" "--check names the facility, the chosen and the found state"
ctl --check --json | perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); exit !(@$j == 1 && $j->[0]{facility} eq "chfn")'
ok $? "--check --json lists the drifted facility"
ctl --reapply --quiet && ctl --check >/dev/null
ok $? "--reapply puts the chosen state back; --check clean again"

# --- audit names what no facility manages
mkdir -p "$R/usr/local/bin" && cp "$R/usr/bin/true" "$R/usr/local/bin/planted" &&
    chmod 4755 "$R/usr/local/bin/planted"
out=$(ctl --audit); rc=$?
is "$rc" 1 "audit exits 1 with an unknown set-uid file"
like "$out" "/usr/local/bin/planted 4755 root:root UNKNOWN" "and names it"
ctl --audit --json | perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); exit !($j->{unknown} == 1 && $j->{setuid} == 1 && grep { $_->{path} eq "/usr/local/bin/planted" && !defined $_->{facility} } @{$j->{files}})'
ok $? "audit --json: the planted file, unknown, counted"
rm -f "$R/usr/local/bin/planted"
cp "$R/usr/bin/true" "$R/usr/bin/chsh.distrib" && chmod 2755 "$R/usr/bin/chsh.distrib"
like "$(ctl --audit)" "/usr/bin/chsh.distrib 2755 root:root chsh " "a dpkg-diverted PATH.distrib is counted under PATH's facility"
rm -f "$R/usr/bin/chsh.distrib"

# --- dump and restore
ctl --dump > "$T/dump"
ok $? "--dump"
like "$(cat "$T/dump")" "^passwd tcb$" "dump holds FACILITY STATE lines"
ctl --dump --json | perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); exit !($j->{passwd} eq "tcb" && $j->{ping} eq "dgramsocket")'
ok $? "--dump --json: an object of facility: state"
ctl su public >/dev/null && ctl ping public >/dev/null
ctl --restore "$T/dump"
ok $? "--restore"
is "$(state su) $(state ping)" "restricted dgramsocket" "restore put the dumped states back"

# --- ping6 is ping under Owl's other name
ctl ping6 public >/dev/null
ok $? "control ping6 public"
is "$(state ping) $(state ping6)" "public public" "switches and reads the one ping facility"
unlike "$(ctl)" "^ping6 " "the listing shows ping once"
ctl ping dgramsocket >/dev/null

# --- a facility whose program was removed: nothing to check or reapply
mv "$R/usr/bin/newgrp" "$T/newgrp"
out=$(ctl --check); rc=$?
is "$rc:$out" "0:" "--check skips a facility whose program is gone (its choice is kept)"
ctl --reapply
ok $? "--reapply skips it too"
mv "$T/newgrp" "$R/usr/bin/newgrp"
ctl --check >/dev/null
ok $? "back in place, still in the chosen state"

# --- a PAM file edited by hand is kept when a stack replaces it
ctl passwd traditional >/dev/null
echo "# local edit" >> "$R/etc/pam.d/common-auth"
sed -i 's/pam_unix.so nullok/pam_unix.so nullok_secure_typo/' "$R/etc/pam.d/common-auth"
cp "$R/etc/pam.d/common-auth" "$T/edited"
ctl passwd tcb >/dev/null
ok $? "passwd tcb over a hand-edited common-auth"
cmp -s "$T/edited" "$R/var/lib/owlet/control/pam/unix/common-auth" ||
    cmp -s "$T/edited" "$R/var/lib/owlet/control/pam-unmatched/common-auth"
ok $? "the edited file is saved under /var/lib/owlet/control"

# --- bad input: clear errors, previous state kept
out=$(ctl nope 2>&1); rc=$?
is "$rc:$out" "1:control: No such facility: nope" "unknown facility"
out=$(ctl ping sideways 2>&1); rc=$?
is "$rc:$out" "1:control: ping: Invalid mode: sideways" "unknown state"
is "$(state ping)" dgramsocket "state kept after an invalid request"
out=$(ctl sudo 2>&1); rc=$?
like "$rc:$out" "^1:control: sudo: not installed here" "facility of a program that is not installed"
mkdir -p "$R/etc/control.d/facilities"
printf 'summary x\nstate on\nfile /usr/bin/chfn root root 99999\n' > "$R/etc/control.d/facilities/broken"
out=$(ctl 2>&1 >/dev/null); rc=$?
is "$rc:$out" "1:control: $R/etc/control.d/facilities/broken:3: bad mode \"99999\" (octal, at most 7777)" "malformed facility file: file:line error, listing exits 1"
out=$(ctl chfn 2>/dev/null); rc=$?
is "$rc:$out" "0:restricted" "another facility still works"
printf 'summary x\nstate on\nline /etc/x word "no such token"\nstate off\n' > "$R/etc/control.d/facilities/broken"
like "$(ctl 2>&1 >/dev/null)" "broken:3: line value \"no such token\" does not contain the word word" "a line value that could never be read back is refused"
printf 'summary x\nstate on\nstate off\nfile /usr/bin/chfn root root 0700\n' > "$R/etc/control.d/facilities/broken"
like "$(ctl 2>&1 >/dev/null)" "broken:2: state on has no action" "a state without actions is refused"
printf 'summary x\nstate on\nsysctl net.ipv4.ping_group_range "${gid:nosuchgroup} 5"\nstate off\nfile /usr/bin/chfn root root 0700\n' > "$R/etc/control.d/facilities/broken"
out=$(ctl broken 2>&1); rc=$?
is "$rc:$out" "0:off" "a value naming a missing group does not hold, silently"
# a group to add while group(5) has a GID glibc reads as another one
# (4294968295 is 999 to glibc, the first GID the chooser would take)
cp -p "$R/etc/group" "$T/group.saved"
echo 'evil:x:4294968295:' >> "$R/etc/group"
n=$(wc -l < "$R/etc/group")
printf 'summary x\nstate on\ngroup owletnew\nfile /usr/bin/chfn root owletnew 0750\nstate off\nfile /usr/bin/chfn root root 0700\n' > "$R/etc/control.d/facilities/broken"
out=$(ctl broken on 2>&1); rc=$?
is "$rc" 1 "a GID that wraps to 999 in glibc: adding a group fails"
like "$out" "$R/etc/group:$n: malformed line \\(a GID" "and names the line"
tfail "no group was added" grep -q '^owletnew:' "$R/etc/group"
mv "$T/group.saved" "$R/etc/group"
printf 'summary x\nstate a\nfile /usr/bin/chfn root root 0700\nstate b\nfile /usr/bin/chfn root root 0700\n' > "$R/etc/control.d/facilities/broken"
out=$(ctl broken b 2>&1); rc=$?
is "$rc:$out" "1:control: broken: Requested b, got a" "a state that reads back as another: Requested b, got a"
rm "$R/etc/control.d/facilities/broken"
printf 'summary local\nstate on\nfile /usr/bin/chfn root root 0750\nstate off\nfile /usr/bin/chfn root root 0700\n' > "$R/etc/control.d/facilities/chfn"
is "$(ctl chfn list)" "on off" "a local facility file replaces the shipped one"
chmod 0666 "$R/etc/control.d/facilities/chfn"
like "$(ctl chfn list 2>&1)" "not root-owned or writable by others; ignored" "a writable facility file is refused"
rm "$R/etc/control.d/facilities/chfn"

# a symlink swapped in for a managed path
mv "$R/usr/bin/chsh" "$R/usr/bin/chsh.real"
ln -s chsh.real "$R/usr/bin/chsh"
out=$(ctl chsh public 2>&1); rc=$?
is "$rc" 1 "symlink in place of a managed file: refused"
like "$out" "usr/bin/chsh: is a symbolic link; refusing" "and says so"
is "$(stat -c %a "$R/usr/bin/chsh.real")" 700 "the link's target is untouched"
rm "$R/usr/bin/chsh" && mv "$R/usr/bin/chsh.real" "$R/usr/bin/chsh"
# a hard link would keep a set-ID copy elsewhere
ln "$R/usr/bin/chsh" "$R/usr/bin/chsh.copy"
like "$(ctl chsh public 2>&1)" "has 2 hard links" "a hard-linked managed file is refused"
rm "$R/usr/bin/chsh.copy"
# a directory on the way that someone else may write
chmod 0777 "$R/usr/lib/openssh"
like "$(ctl ssh-keysign public 2>&1)" "not root-owned or is writable by others; refusing" "a writable parent directory is refused"
chmod 0755 "$R/usr/lib/openssh"

# read-only file system: nothing changes
mount --bind "$R/usr/bin" "$R/usr/bin" && mount -o remount,bind,ro "$R/usr/bin"
out=$(ctl ping public 2>&1); rc=$?
is "$rc" 1 "read-only /usr/bin: switch fails"
like "$out" "Read-only file system" "with the system's reason"
is "$(state ping)" dgramsocket "previous state kept"
umount "$R/usr/bin"
# a later action fails: the earlier ones are rolled back
mount --bind "$R/etc/sysctl.d" "$R/etc/sysctl.d" && mount -o remount,bind,ro "$R/etc/sysctl.d"
out=$(ctl ping public 2>&1); rc=$?
is "$rc" 1 "read-only /etc/sysctl.d: switch fails after ping's mode changed"
is "$(stat -c '%a %g' "$R/usr/bin/ping") $(state ping)" "2711 $(gid_of _icmp) dgramsocket" "ping's mode was rolled back"
umount "$R/etc/sysctl.d"
# every kind of record is put back, newest first: a file's content (a
# line), a file's mode and the password scheme, then a missing file fails
if [ -d "$R/etc/tcb" ]; then to=files; else to=tcb; fi
scheme() { ls -d "$R/etc/tcb" "$R/etc/shadow" 2>/dev/null | sed "s|^$R||" | tr '\n' ' '; }
printf '%s\n' 'summary rollback of every record kind' 'state a' \
    'line /etc/login.defs OWLET_RB -' 'state b' \
    'line /etc/login.defs OWLET_RB "OWLET_RB b"' \
    'file /usr/bin/chfn root root 0751' "shadow $to" \
    'file /usr/bin/owlet-no-such-file root root 0755' > "$R/etc/control.d/facilities/rb"
cp "$R/etc/login.defs" "$T/login.defs.before"
chfn_before=$(stat -c '%a %u:%g' "$R/usr/bin/chfn")
scheme_before=$(scheme)
out=$(ctl rb b 2>&1); rc=$?
is "$rc" 1 "a switch whose last action fails exits 1"
like "$out" "owlet-no-such-file: missing" "and names the failing object"
cmp -s "$R/etc/login.defs" "$T/login.defs.before"; ok $? "rolled back: login.defs byte for byte"
is "$(stat -c '%a %u:%g' "$R/usr/bin/chfn")" "$chfn_before" "rolled back: chfn's owner and mode"
is "$(scheme)" "$scheme_before" "rolled back: the password scheme ($to undone)"
is "$(state rb)" a "rolled back: the facility reads its old state"
rm "$R/etc/control.d/facilities/rb"

# --- the order of a transition never passes through more privilege
# (not in a sanitizer build: LeakSanitizer aborts under ptrace, and control
# runs tcb_convert with a clean environment, so it cannot be told not to)
if [ -n "$OWLET_SANITIZE" ]; then
	ok 0 "# SKIP strace of the transition: plain build only"
	ok 0 "# SKIP"
else
ctl passwd traditional >/dev/null 2>&1
strace -f -e trace=fchmod,fchown -o "$T/trace" "$B/sbin/control" --root "$R" passwd tcb >/dev/null 2>&1
ok $? "passwd traditional -> tcb under strace"
seq=$(grep -E 'fch(mod|own)\([0-9]+, (0[0-7]+|0, 42)\)' "$T/trace" | grep -v 0600 |
    sed -E 's/.*(fch(mod|own))\([0-9]+, ([0-9, ]+)\).*/\1 \3/' | tr '\n' ';')
like "$seq" "fchmod 0711;fchown 0, 42;fchmod 02711;" "4755 root:root -> 0711 -> chown root:shadow -> 2711 (never 2711 root:root)"
fi

# --- conversions: control hands tcb_convert/tcb_unconvert the root it opened
# and the ETC/.pwd.lock lock it holds (issue 15).  A copy of control whose
# directory holds wrapper scripts for the two tools (control runs them from
# its own directory): they record their arguments, can swap the root's path
# just before the real tool runs, and can keep control waiting after it.
PROBE=$B/tests/bin/pamprobe
[ -x "$PROBE" ] || make -s -C "$TOP" B="$B" "$PROBE" >/dev/null 2>&1
W=$T/cbin MK=$T/mk
mkdir -p "$W" "$MK"
cp "$B/sbin/control" "$W/control"
for tool in tcb_convert tcb_unconvert; do
	cat > "$W/$tool" <<EOF
#!/bin/sh
echo "\$*" > $MK/$tool.args
[ ! -e $MK/swap ] || ln -sfn $T/decoy $T/link
$B/sbin/$tool "\$@"; rc=\$?
: > $MK/$tool.done
[ ! -e $MK/hold ] || sleep 2
exit \$rc
EOF
	chmod 0755 "$W/$tool"
done
waitfile() {
	_i=0
	while [ ! -e "$1" ] && [ "$_i" -lt 1000 ]; do sleep 0.01; _i=$((_i + 1)); done
	[ -e "$1" ]
}
ctl passwd traditional >/dev/null 2>&1

# The root's path is swapped (a symlink re-pointed; a writable parent of
# the root allows the same with directories) after control opened it.
mkroot "$T/decoy" 2
cp -a "$T/decoy/etc" "$T/decoy.etc"
ln -sfn "$R" "$T/link"
: > "$MK/swap"
"$W/control" --root "$T/link" passwd tcb >"$T/swap.out" 2>&1
is "$?" 0 "passwd tcb while the root's path is swapped under the tool"
rm -f "$MK/swap"
like "$(cat "$MK/tcb_convert.args")" "^--root /proc/self/fd/[0-9]+ --lock-fd [0-9]+$" \
    "the tool gets control's open root and its lock as descriptors"
t "the tool converted the root control opened" test -d "$R/etc/tcb" -a ! -e "$R/etc/shadow"
diff -r "$T/decoy.etc" "$T/decoy/etc" >/dev/null
ok $? "the tree swapped in is untouched"
ctl passwd traditional >/dev/null 2>&1

# To tcb: a pam_unix password change (Debian's module, as root) that waits
# for .pwd.lock while tcb_convert has run but /etc/shadow is not yet gone
# must not land in the deleted /etc/shadow with success.
mkdir -p "$T/pamconf"
echo 'password required pam_unix.so' > "$T/pamconf/chpw"
# held_switch OUT: control passwd tcb in the background, held after
# tcb_convert (the tool wrapper waits while $MK/hold exists); then
# released_switch waits for it and checks that it succeeded.
held_switch() {
	: > "$MK/hold"
	rm -f "$MK/tcb_convert.done"
	"$W/control" --root "$R" passwd tcb >"$1" 2>&1 &
	cpid=$!
	waitfile "$MK/tcb_convert.done"; ok $? "set-up: tcb_convert done, control kept waiting"
}
released_switch() {
	wait "$cpid"
	is "$?" 0 "passwd tcb succeeds"
	rm -f "$MK/hold"
}
held_switch "$T/hold.out"
old=$(cut -d: -f2 "$R/etc/tcb/daemon/shadow")
in_ns "$R" "$PROBE" -d "$T/pamconf" chpw daemon chauthtok 'N3w-pass.w0rd' \
    >"$T/probe.out" 2>&1
prc=$?
released_switch
new=$(cut -d: -f2 "$R/etc/tcb/daemon/shadow")
diag "pam_unix: exit $prc ($(tr '\n' ' ' < "$T/probe.out" | head -c 200))"
t "pam_unix's change landed in /etc/tcb or it failed (exit $prc)" \
    test "$prc" != 0 -o "$new" != "$old"
t "no /etc/shadow written after the switch" test ! -e "$R/etc/shadow"
ctl passwd traditional >/dev/null 2>&1; ok $? "back to traditional"
# The same with a shadow-utils writer (Debian's chage, as root): it waits
# in lckpwdf() too, then opens /etc/shadow with O_CREAT.
held_switch "$T/hold2.out"
in_ns "$R" /usr/bin/chage -M 77 daemon >"$T/chage.out" 2>&1
crc=$?
released_switch
max=$(cut -d: -f5 "$R/etc/tcb/daemon/shadow")
diag "shadow-utils chage: exit $crc ($(tr '\n' ' ' < "$T/chage.out" | head -c 200)), max $max"
t "chage's change landed in /etc/tcb or it failed (exit $crc)" \
    test "$crc" != 0 -o "$max" = 77
t "no /etc/shadow written after the switch" test ! -e "$R/etc/shadow"
rm -f "$R/etc/shadow" "$R/etc/shadow-"
ctl passwd traditional >/dev/null 2>&1; ok $? "back to traditional"

done_testing
