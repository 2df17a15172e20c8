#!/bin/bash
# libtcb: ABI, privilege dropping, per-user locking and tcb_is_suspect,
# driven through tests/bin/tcbprobe in a private mount namespace.
. "$(dirname "$0")/../lib/root.sh"
. "$(dirname "$0")/../lib/tcbtree.sh"
need_root

P=$B/tests/bin/tcbprobe
LIB=$B/lib/libtcb.so.0
if [ ! -x "$P" ] || [ ! -f "$LIB" ]; then
	plan 1; ok 1 "tcbprobe and libtcb.so.0 built (run make check)"
	done_testing
fi
plan 93

tmpdir
R=$T/root
mkroot "$R" 4
mktcb "$R" auth
# u2: the 2700 USER:shadow layout, so u1's fs IDs (u1, shadow) cannot reach it
tcb_user "$R" u2 1002 shadow "$(grep '^u2:' "$R/etc/shadow")"
# u3's directory is owned by 1234 (not its passwd uid) and sits in a bucket
chown 1234 "$R/etc/tcb/u3"
mkdir -m 0711 "$R/etc/tcb/:1K"; chgrp 42 "$R/etc/tcb/:1K"
mv "$R/etc/tcb/u3" "$R/etc/tcb/:1K/u3"; ln -s :1K/u3 "$R/etc/tcb/u3"
: > "$R/etc/tcb/plainfile"

pr() { in_ns "$R" "$@"; }
G3="setpriv --groups=1,2,3"
L1=/etc/tcb/u1/shadow
# nth N TEXT: line N of TEXT
nth() { printf '%s\n' "$2" | sed -n "$1p"; }
IDS0="ids fsuid=0 fsgid=0 groups=1,2,3"
IDSU1="ids fsuid=1001 fsgid=42 groups="

# --- 1. ABI -------------------------------------------------------------------
like "$(readelf -d "$LIB")" 'SONAME.*\[libtcb\.so\.0\]' "SONAME is libtcb.so.0"
is "$(readlink "$LIB")" libtcb.so.0.9.8 "libtcb.so.0 -> libtcb.so.0.9.8"
syms=$(nm -D --defined-only "$LIB" | awk '$2 != "A" {print $2, $3}' | sort | tr '\n' ' ')
want="T lckpwdf_tcb@@TCB_0.9.8 T tcb_drop_priv@@TCB_0.9.8 T tcb_drop_priv_r@@TCB_0.9.8 T tcb_gain_priv@@TCB_0.9.8 T tcb_gain_priv_r@@TCB_0.9.8 T tcb_is_suspect@@TCB_0.9.8 T ulckpwdf_tcb@@TCB_0.9.8 "
is "$syms" "$want" "exactly the seven functions are exported, all at TCB_0.9.8"
is "$(nm -D --defined-only "$LIB" | awk '$2 == "A" {print $3}')" TCB_0.9.8 "the only version node is TCB_0.9.8"
is "$(objdump -T "$P" | grep -c 'TCB_0\.9\.8')" 7 "a program linked against it binds all seven at TCB_0.9.8"
abi=$("$P" abi)
is "$(nth 1 "$abi")" "abi size=24 grplist=0 number_of_groups=8 old_gid=12 old_uid=16 is_dropped=20" \
	"struct tcb_privs: 24 bytes, offsets 0,8,12,16,20"
is "$(nth 2 "$abi")" "abi TCB_DIR=/etc/tcb TCB_FMT=/etc/tcb/%s/shadow TCB_NGROUPS=1024" \
	"macros TCB_DIR, TCB_FMT, TCB_NGROUPS"
like "$(PKG_CONFIG_PATH=$B/lib pkg-config --libs tcb)" '(^| )-ltcb( |$)' "pkg-config module tcb gives -ltcb"
is "$(PKG_CONFIG_PATH=$B/lib pkg-config --modversion tcb)" 0.9.8 "pkg-config version 0.9.8"

# --- 2. dropping as root ------------------------------------------------------
o=$(pr $G3 "$P" ids drop u1 ids open $L1 open /etc/tcb/u2/shadow open /etc/tcb \
	@ids gain ids open /etc/tcb/u2/shadow)
is "$(nth 1 "$o")" "$IDS0" "before: fsuid 0, fsgid 0, groups 1,2,3"
is "$(nth 2 "$o")" "drop 0" "tcb_drop_priv(u1) succeeds"
is "$(nth 3 "$o")" "$IDSU1" "dropped: fsuid = owner of /etc/tcb/u1, fsgid = group of /etc/tcb, no groups"
is "$(nth 4 "$o")" "open ok" "dropped: can open /etc/tcb/u1/shadow"
is "$(nth 5 "$o")" "open EACCES" "dropped: cannot open /etc/tcb/u2/shadow"
is "$(nth 6 "$o")" "open EACCES" "dropped: cannot open (list) /etc/tcb"
is "$(nth 7 "$o")" "@$IDS0" "another thread keeps fsuid 0 and its groups"
is "$(nth 8 "$o")" "gain 0" "tcb_gain_priv succeeds"
is "$(nth 9 "$o")" "$IDS0" "gained: fsuid 0, fsgid 0 and exactly groups 1,2,3 again"
is "$(nth 10 "$o")" "open ok" "gained: root can open u2's file again"

o=$(pr $G3 "$P" @drop u1 @ids ids @open /etc/tcb/u1/shadow open /etc/tcb/u2/shadow @gain @ids)
is "$o" "@drop 0
@$IDSU1
$IDS0
@open ok
open ok
@gain 0
@$IDS0" "drop in a second thread leaves the main thread root"

o=$(pr $G3 "$P" drop u3 ids gain drop u1 drop u1 ids gain gain ids)
is "$(nth 1 "$o")" "drop 0" "drop to a bucketed user (symlinked dir)"
is "$(nth 2 "$o")" "ids fsuid=1234 fsgid=42 groups=" "fsuid is the owner of the user's dir (1234), not the passwd uid"
is "$(nth 4 "$o")" "drop 0" "drop after gain works again"
is "$(nth 5 "$o")" "drop -1 EINVAL" "double drop: -1 EINVAL"
is "$(nth 6 "$o")" "$IDSU1" "the failed second drop changed nothing"
is "$(nth 7 "$o")" "gain 0" "one gain undoes the drop"
is "$(nth 8 "$o")" "gain -1 EINVAL" "second gain: -1 EINVAL"
is "$(nth 9 "$o")" "$IDS0" "identity intact after the extra gain"

o=$(pr $G3 "$P" gain @drop u1 gain @gain)
is "$o" "gain -1 EINVAL
@drop 0
gain -1 EINVAL
@gain 0" "gain without drop: EINVAL; the drop state is per thread"

chgrp 3 "$R/etc/tcb"
is "$(pr "$P" drop u1 ids gain | sed -n 2p)" "ids fsuid=1001 fsgid=3 groups=" \
	"fsgid follows the group of /etc/tcb (sys during tcb_unconvert)"
chgrp 42 "$R/etc/tcb"

for n in nosuch; do
	is "$(pr $G3 "$P" drop "$n" ids)" "drop -1 ENOENT
$IDS0" "drop for a missing user: -1 ENOENT, nothing changed"
done
for n in ../x ../tcb/u1 a/b u1/. .. . '' :1K; do
	like "$(pr $G3 "$P" drop "$n" ids | tr '\n' ' ')" "^drop -1 E[A-Z]+ $IDS0 \$" \
		"drop for bad name '$n': -1, nothing changed"
done
like "$(pr $G3 "$P" drop plainfile ids | tr '\n' ' ')" "^drop -1 ENOTDIR $IDS0 \$" \
	"drop for a plain file /etc/tcb/plainfile: -1 ENOTDIR"
is "$(pr $G3 "$P" drop "$(printf 'a%.0s' $(seq 40))" | cut -c1-7)" "drop -1" "drop for a 40-byte name: -1"
is "$(pr $G3 "$P" dropnull ids | tr '\n' ' ')" "dropnull -1 EINVAL $IDS0 " "drop for a NULL name: -1 EINVAL, no crash"

# Many groups: more than TCB_NGROUPS (1024) must still drop and restore.
many=$(seq -s, 1 1500)
o=$(pr setpriv --groups="$many" "$P" drop u1 ids gain ids)
is "$(nth 1 "$o")" "drop 0" "drop with 1500 supplementary groups"
is "$(nth 2 "$o")" "$IDSU1" "all 1500 groups cleared"
is "$(nth 4 "$o")" "ids fsuid=0 fsgid=0 groups=$many" "all 1500 groups restored in order"

# --- 3. non-root callers ------------------------------------------------------
NR="setpriv --reuid=1001 --regid=100 --groups=42"
IDSNR="ids fsuid=1001 fsgid=100 groups=42"
o=$(pr $NR "$P" ids drop u2 ids open /etc/tcb/u2/shadow open $L1 gain ids gain drop nosuch gain drop u1 drop u1 gain dropr u2 0 gainr)
is "$o" "$IDSNR
drop 0
$IDSNR
open EACCES
open ok
gain 0
$IDSNR
gain -1 EINVAL
drop 0
gain 0
drop 0
drop -1 EINVAL
gain 0
dropr 0
gainr 0" "non-root: drop and gain succeed and change nothing; double drop/gain still EINVAL"

# --- 4. the _r pair and the caller's group buffer -----------------------------
o=$(pr $G3 "$P" dropr u1 2 ids dropr u1 0 ids dropr u1 -1 ids dropr u1 3 ids dropr u1 3 gainr ids gainr)
is "$(nth 1 "$o")" "dropr -1 EINVAL" "_r: buffer for 2 groups with 3 groups: -1 EINVAL"
is "$(nth 2 "$o")" "$IDS0" "_r: nothing changed (fsuid 0, groups intact)"
like "$(nth 3 "$o")" "^dropr -1 " "_r: buffer capacity 0 with 3 groups: -1"
is "$(nth 4 "$o")" "$IDS0" "_r: nothing changed after capacity 0"
like "$(nth 5 "$o")" "^dropr -1 " "_r: negative capacity: -1"
is "$(nth 6 "$o")" "$IDS0" "_r: nothing changed after negative capacity"
is "$(nth 7 "$o")" "dropr 0" "_r: exactly 3 entries suffice"
is "$(nth 8 "$o")" "$IDSU1" "_r: dropped"
is "$(nth 9 "$o")" "dropr -1 EINVAL" "_r: double drop: -1 EINVAL"
is "$(nth 10 "$o")" "gainr 0" "_r: gain"
is "$(nth 11 "$o")" "$IDS0" "_r: groups 1,2,3 restored"
is "$(nth 12 "$o")" "gainr -1 EINVAL" "_r: gain without drop: -1 EINVAL"
o=$(pr setpriv --clear-groups "$P" dropr u1 0 ids gainr ids)
is "$o" "dropr 0
$IDSU1
gainr 0
ids fsuid=0 fsgid=0 groups=" "_r: capacity 0 is fine for a process without groups"

# --- 5. lckpwdf_tcb / ulckpwdf_tcb --------------------------------------------
o=$(pr "$P" unlock lock $L1 lock $L1 unlock unlock)
like "$(nth 1 "$o")" "^unlock -1 " "ulckpwdf_tcb without a lock: -1"
like "$(nth 2 "$o")" "^lock 0 ms=[0-9]{1,2}\$" "lckpwdf_tcb uncontended: 0, at once"
like "$(nth 3 "$o")" "^lock -1 .* ms=[0-9]{1,2}\$" "second lckpwdf_tcb in the same thread: -1 at once"
is "$(nth 4 "$o")" "unlock 0" "ulckpwdf_tcb: 0"
like "$(nth 5 "$o")" "^unlock -1 " "second ulckpwdf_tcb: -1"
t "the lock file stays after unlock" test -f "$R/etc/tcb/u1/shadow.lock"
is "$(stat -c '%u %a' "$R/etc/tcb/u1/shadow.lock")" "0 600" "lock file created mode 0600"
rm -f "$R/etc/tcb/u1/shadow.lock"
is "$(pr "$P" drop u1 lock $L1 gain unlock | tr '\n' ' ' | sed 's/ms=[0-9]*/ms/')" \
	"drop 0 lock 0 ms gain 0 unlock 0 " "lock taken as the dropped user, held across gain"
is "$(stat -c '%u:%g %a' "$R/etc/tcb/u1/shadow.lock")" "1001:$TCB_AUTH_GID 600" \
	"lock file owned by the user, group inherited from the setgid dir, mode 0600"
is "$(pr "$P" lock /etc/tcb/nosuch/shadow | cut -d' ' -f1-3)" "lock -1 ENOENT" "lock in a missing dir: -1 ENOENT"
is "$(pr "$P" itimer lock $L1 unlock itimerget | sed -n 4p)" "itimer running handler kept alarms 0" \
	"the caller's ITIMER_REAL and SIGALRM handler are left alone"

# A holds the lock for 1 s then exits; B waits and gets it.
rm -f "$T"/m*
pr "$P" lock $L1 touch "$T/m1" sleep 1000 > "$T/a1" &
o=$(pr "$P" waitfile "$T/m1" lock $L1)
wait
like "$(cat "$T/a1")" "^lock 0" "process A took the lock"
like "$o" "^lock 0 ms=" "process B got the lock after A exited"
ms=${o##*ms=}
ok $(( ms < 900 || ms > 5000 )) "B waited about 1 s (${ms} ms)"

# Classic POSIX fcntl locks (Openwall builds) and ours exclude each other.
pr "$P" lock $L1 touch "$T/m2" sleep 1500 > "$T/a2" &
o=$(pr "$P" waitfile "$T/m2" posixlock $L1.lock)
wait
like "$o" "^posixlock -1 (EAGAIN|EACCES)\$" "while held, a classic fcntl F_SETLK from another process fails"
is "$(pr "$P" posixlock $L1.lock)" "posixlock 0" "after release the classic lock succeeds"
pr "$P" posixlock $L1.lock touch "$T/m3" sleep 1000 > "$T/a3" &
o=$(pr "$P" waitfile "$T/m3" lock $L1)
wait
is "$(cat "$T/a3")" "posixlock 0" "a process holds a classic fcntl lock"
ms=${o##*ms=}
like "$o" "^lock 0 ms=" "lckpwdf_tcb gets the lock once the classic holder exits"
ok $(( ms < 900 || ms > 5000 )) "lckpwdf_tcb waited for the classic lock (${ms} ms)"

# The lock belongs to the lckpwdf_tcb call, not to the process as classic
# fcntl locks do: another thread's classic lock conflicts with it, and
# closing some other fd of the lock file does not release it.
o=$(pr "$P" lock $L1 @posixlock $L1.lock unlock)
like "$(nth 2 "$o")" "^@posixlock -1 (EAGAIN|EACCES)\$" "a classic lock from another thread of the holder conflicts"
rm -f "$T/m4"
pr "$P" lock $L1 open $L1.lock touch "$T/m4" sleep 1000 > "$T/a4" &
o=$(pr "$P" waitfile "$T/m4" posixlock $L1.lock)
wait
like "$o" "^posixlock -1 (EAGAIN|EACCES)\$" "the holder opening and closing the lock file again keeps the lock"

# Planted lock files.
ln -s "$T/planted" "$R/etc/tcb/u4/shadow.lock"
like "$(pr "$P" lock /etc/tcb/u4/shadow)" "^lock -1 ELOOP" "a symlink planted as shadow.lock is refused"
t "the symlink's target was not created" test ! -e "$T/planted"
rm "$R/etc/tcb/u4/shadow.lock"; mkfifo "$R/etc/tcb/u4/shadow.lock"
like "$(pr timeout 5 "$P" lock /etc/tcb/u4/shadow)" "^lock -1 " "a FIFO planted as shadow.lock is refused, no hang"
rm "$R/etc/tcb/u4/shadow.lock"; mkdir "$R/etc/tcb/u4/shadow.lock"
like "$(pr "$P" lock /etc/tcb/u4/shadow)" "^lock -1 " "a directory as shadow.lock is refused"
rmdir "$R/etc/tcb/u4/shadow.lock"
like "$(pr "$P" drop u1 lock /etc/tcb/u2/shadow gain)" "lock -1 EACCES" \
	"dropped to u1, cannot create u2's lock file"

# --- 6. tcb_is_suspect ---------------------------------------------------------
S=$T/s
mkdir -m 0755 "$S"
echo x > "$S/rootfile"
echo x > "$S/u1file"; chown 1001 "$S/u1file"
echo x > "$S/u2file"; chown 1002 "$S/u2file"
echo x > "$S/linked"; ln "$S/linked" "$S/linked2"
mkdir "$S/dir"; mkfifo "$S/fifo"
is "$(pr "$P" suspect "$S/rootfile")" "suspect 0" "regular root-owned file: not suspect"
# The owner rule applies only to a non-root fsuid (Openwall's tools check
# user-owned files after regaining root): with fsuid 0 any owner passes.
is "$(pr "$P" suspect "$S/u1file")" "suspect 0" "file owned by 1001 while fsuid is 0: not suspect (owner rule off for root)"
is "$(pr "$P" suspect "$S/dir")" "suspect -1" "directory: suspect"
is "$(pr "$P" suspect "$S/fifo")" "suspect -1" "FIFO: suspect"
is "$(pr "$P" suspect "$S/linked")" "suspect -1" "file with 2 links: suspect"
is "$(pr "$P" suspect /dev/null)" "suspect -1" "character device: suspect"
o=$(pr "$P" drop u1 suspect "$S/u1file" suspect "$S/rootfile" suspect "$S/u2file" suspect $L1 gain suspect $L1)
is "$o" "drop 0
suspect 0
suspect 0
suspect -1
suspect 0
gain 0
suspect 0" "dropped to u1: u1's and root's files pass, u2's is suspect; after gain u1's shadow passes"
is "$(pr setpriv --reuid=1001 --regid=100 --clear-groups "$P" suspect "$S/u1file" suspect "$S/u2file" suspect "$S/rootfile")" \
	"suspect 0
suspect -1
suspect 0" "non-root caller: own and root's files pass, another user's is suspect"

done_testing
