#!/bin/bash
# libnss_tcb through real glibc (getent, getspnam, getspnam_r, getspent) in
# a private mount namespace over a hand-built /etc/tcb tree.
. "$(dirname "$0")/../lib/root.sh"
. "$(dirname "$0")/../lib/tcbtree.sh"
need_root

SP=$B/tests/bin/spprobe
NSS=$B/lib/libnss_tcb.so.2
if [ ! -x "$SP" ] || [ ! -f "$NSS" ]; then
	plan 1; ok 1 "spprobe and libnss_tcb.so.2 built (run make check)"
	done_testing
fi
plan 97

tmpdir
R=$T/root
mkroot "$R" 8
# Only our module: results cannot come from /etc/shadow through "files".
sed -i 's/^shadow:.*/shadow: tcb/' "$R/etc/nsswitch.conf"
mktcb "$R" auth
# u1 and u5 use the TCB_AUTH_GROUP=no layout (USER:shadow 2700, 0600).
tcb_user "$R" u1 1001 shadow "$(grep '^u1:' "$R/etc/shadow")"
tcb_user "$R" u5 1005 shadow "$(grep '^u5:' "$R/etc/shadow")"
# u7 lives in a TCB_SYMLINKS bucket: /etc/tcb/u7 -> :1K/u7
mkdir -m 0711 "$R/etc/tcb/:1K"
chgrp 42 "$R/etc/tcb/:1K"
mv "$R/etc/tcb/u7" "$R/etc/tcb/:1K/u7"
ln -s ":1K/u7" "$R/etc/tcb/u7"
cp "$R/etc/shadow" "$T/expect"	# every entry enumeration must list

ns() { in_ns "$R" "$@"; }
# lookup NAME: getent's output (stderr dropped) and exit status "rc=N"
lookup() { _o=$(ns timeout 5 getent -s tcb shadow -- "$1" 2>/dev/null); echo "$_o rc=$?"; }
# entry NAME UID LINE: a directory NAME in the auth layout
entry() { tcb_user "$R" "$1" "$2" auth "$3"; }
line() { grep "^$1:" "$R/etc/shadow"; }

# --- 1. lookups and enumeration return exactly what is stored -----------
for u in u1 u2 u5 u7 root daemon; do
	is "$(lookup "$u")" "$(line "$u") rc=0" "getent returns the stored line of $u"
done
is "$(lookup nosuch)" " rc=2" "getent: missing user is not found (exit 2)"
is "$(ns "$SP" nam u3)" "$(line u3)" "getspnam(u3) fills every field"
is "$(ns "$SP" namr u8 4096)" "$(line u8)" "getspnam_r(u8) fills every field"
enum=$(ns getent -s tcb shadow | sort)
is "$enum" "$(sort "$T/expect")" "getent enumeration lists exactly the stored entries"
is "$(ns "$SP" ent | sort)" "$(sort "$T/expect")" "getspent enumeration lists exactly the stored entries"
is "$(ns "$SP" ent | sort | uniq -d)" "" "no entry enumerated twice"

# --- 2. buffer sizes ------------------------------------------------------
u1len=$(line u1 | tr -d '\n' | wc -c)
is "$(ns "$SP" namr u1 10)" "rc ERANGE" "getspnam_r with a 10-byte buffer: ERANGE"
is "$(ns "$SP" namr u1 "$u1len")" "rc ERANGE" "getspnam_r with a buffer one byte short: ERANGE"
is "$(ns "$SP" namr u1 $((u1len + 1)))" "$(line u1)" "getspnam_r with exactly enough buffer succeeds"
is "$(ns "$SP" namr u1 0)" "rc ERANGE" "getspnam_r with a 0-byte buffer: ERANGE"
longhash=\$6\$$(head -c 1500 /dev/zero | tr '\0' 'x')$(head -c 497 /dev/zero | tr '\0' 'Y')
longline="longuser:$longhash:19500:0:99999:7:::"
entry longuser 2000 "$longline"
echo "$longline" >> "$T/expect"
is "${#longhash}" 2000 "the long hash field is 2000 characters"
is "$(lookup longuser)" "$longline rc=0" "getent (glibc retries getspnam) returns a 2000-char hash"
is "$(ns "$SP" nam longuser)" "$longline" "getspnam returns the long entry"
is "$(ns "$SP" namr longuser 1024)" "rc ERANGE" "getspnam_r of the long entry with 1024 bytes: ERANGE"
is "$(ns "$SP" namr longuser 4096)" "$longline" "getspnam_r of the long entry with 4096 bytes"
# A file of exactly 8192 bytes (8191-char line + newline) is the largest.
# "maxuser:$6$" + 8161 + ":19500:0:99999:7:::" = 11 + 8161 + 19 = 8191
maxline="maxuser:\$6\$$(head -c 8161 /dev/zero | tr '\0' 'm'):19500:0:99999:7:::"
entry maxuser 2001 "$maxline"
echo "$maxline" >> "$T/expect"
is "$(wc -c < "$R/etc/tcb/maxuser/shadow")" 8192 "maxuser's file is 8192 bytes"
is "$(lookup maxuser)" "$maxline rc=0" "a file of exactly 8192 bytes is accepted"

# --- 3. names and contents that must not be found ------------------------
# Bad names, each with a directory holding a valid line for that name,
# so only the name check can refuse them.
n32=abcdefghijklmnopqrstuvwxyz012345
n33=${n32}6
entry "$n32" 2002 "$n32:*:19000:0:99999:7:::"
echo "$n32:*:19000:0:99999:7:::" >> "$T/expect"
entry "$n33" 2003 "$n33:*:19000:0:99999:7:::"
entry .hidden 2004 ".hidden:*:19000:0:99999:7:::"
entry -dash 2005 "-dash:*:19000:0:99999:7:::"
is "$(lookup "$n32")" "$n32:*:19000:0:99999:7::: rc=0" "a 32-byte name is found"
is "$(lookup "$n33")" " rc=2" "a 33-byte name is not found (dir and entry exist)"
is "$(lookup .hidden)" " rc=2" "a name with a leading '.' is not found (dir and entry exist)"
is "$(lookup -dash)" " rc=2" "a name with a leading '-' is not found"
is "$(lookup ..)" " rc=2" "'..' (would be /etc/shadow) is not found"
is "$(lookup .)" " rc=2" "'.' is not found"
is "$(lookup u1/.)" " rc=2" "'u1/.' (path exists) is not found"
is "$(lookup ../tcb/u1)" " rc=2" "'../tcb/u1' (path exists) is not found"
is "$(lookup ':1K/u7')" " rc=2" "a bucket path ':1K/u7' is not found"
is "$(ns "$SP" nam '')" "notfound 0" "the empty name is not found (glibc: errno 0)"
is "$(ns "$SP" namr '' 1024)" "notfound" "getspnam_r of the empty name: not found"
# Contents.
entry mism 2006 "$(line u6)"
is "$(lookup mism)" " rc=2" "a file holding another user's entry is not found"
entry u0 2033 "$(line u6)"
is "$(lookup u0)" " rc=2" "a file holding the entry of a same-length name is not found"
entry u6x 2007 "u6xy:*:19000:0:99999:7:::"
is "$(lookup u6x)" " rc=2" "a file whose name is longer (prefix match) is not found"
entry u6y 2008 "u6:*:19000:0:99999:7:::"
is "$(lookup u6y)" " rc=2" "a file whose name is a prefix of the user's is not found"
entry two 2009 "$(printf 'two:*:19000:0:99999:7:::\ntwo:*:19000:0:99999:7:::')"
is "$(lookup two)" " rc=2" "a file with two lines is not found"
entry comment 2010 "$(printf '# note\ncomment:*:19000:0:99999:7:::')"
is "$(lookup comment)" " rc=2" "a comment line before the entry: not found"
entry trail 2011 ""
printf 'trail:*:19000:0:99999:7:::\n\n' > "$R/etc/tcb/trail/shadow"
is "$(lookup trail)" " rc=2" "an empty line after the entry: not found"
entry badnum 2012 "badnum:*:19x00:0:99999:7:::"
is "$(lookup badnum)" " rc=2" "a non-digit in a numeric field: not found"
entry negnum 2013 "negnum:*:19000:-1:99999:7:::"
is "$(lookup negnum)" " rc=2" "a negative numeric field: not found"
entry bignum 2014 "bignum:*:99999999999999999999:0:99999:7:::"
is "$(lookup bignum)" " rc=2" "an overflowing numeric field: not found"
entry eight 2015 "eight:*:19000:0:99999:7::"
is "$(lookup eight)" " rc=2" "8 fields: not found"
entry ten 2016 "ten:*:19000:0:99999:7::::"
is "$(lookup ten)" " rc=2" "10 fields: not found"
entry empty 2017 ""
: > "$R/etc/tcb/empty/shadow"
is "$(lookup empty)" " rc=2" "an empty file: not found"
is "$(ns "$SP" namr empty 1024)" "notfound" "getspnam_r of an empty file: not found (no false success)"
entry nuls 2018 ""
printf 'nuls:*:19000:0:99999:7:::\0\n' > "$R/etc/tcb/nuls/shadow"
is "$(lookup nuls)" " rc=2" "a NUL byte in the file: not found"
entry nonl 2019 ""
printf 'nonl:*:19000::::::' > "$R/etc/tcb/nonl/shadow"
echo "nonl:*:19000::::::" >> "$T/expect"
is "$(lookup nonl)" "nonl:*:19000:::::: rc=0" "an entry without final newline and empty fields is found"
is "$(ns "$SP" namr nonl 64)" "nonl:*:19000::::::" "empty numeric fields read back as empty (-1)"
entry nohash 2020 "nohash::19000:0:99999:7:::"
echo "nohash::19000:0:99999:7:::" >> "$T/expect"
is "$(lookup nohash)" "nohash::19000:0:99999:7::: rc=0" "an empty hash field is returned as is"

# --- 4. planted files: symlink, hard link, FIFO, directory, device, big ---
printf 'symrel:*:19000:0:99999:7:::\n' > "$T/elsewhere"
entry symrel 2021 "symrel:*:19000:0:99999:7:::"
mv "$R/etc/tcb/symrel/shadow" "$R/etc/tcb/symrel/real"
ln -s real "$R/etc/tcb/symrel/shadow"
is "$(lookup symrel)" " rc=2" "shadow as a symlink to a valid file in the same dir: not found"
entry symabs 2022 ""
printf 'symabs:*:19000:0:99999:7:::\n' > "$T/elsewhere"
ln -sf "$T/elsewhere" "$R/etc/tcb/symabs/shadow"
is "$(lookup symabs)" " rc=2" "shadow as a symlink to a valid file elsewhere: not found"
entry hard 2023 "hard:*:19000:0:99999:7:::"
ln "$R/etc/tcb/hard/shadow" "$R/etc/tcb/hard/shadow-"
is "$(stat -c %h "$R/etc/tcb/hard/shadow")" 2 "hard's shadow has 2 links"
is "$(lookup hard)" " rc=2" "shadow with link count 2: not found"
entry fifo 2024 ""
rm "$R/etc/tcb/fifo/shadow"; mkfifo -m 0640 "$R/etc/tcb/fifo/shadow"
start=$SECONDS
is "$(lookup fifo)" " rc=2" "shadow as a FIFO: not found, no hang (not rc=124)"
ok $(( SECONDS - start > 3 )) "the FIFO lookup returned at once"
entry isdir 2025 ""
rm "$R/etc/tcb/isdir/shadow"; mkdir "$R/etc/tcb/isdir/shadow"
is "$(lookup isdir)" " rc=2" "shadow as a directory: not found"
entry chr 2026 ""
rm "$R/etc/tcb/chr/shadow"; mknod "$R/etc/tcb/chr/shadow" c 1 3
is "$(lookup chr)" " rc=2" "shadow as a character device (/dev/null): not found"
entry big 2027 "big:\$6\$$(head -c 8185 /dev/zero | tr '\0' b):19000:0:99999:7:::"
is "$(wc -c < "$R/etc/tcb/big/shadow")" 8212 "big's file is over 8192 bytes"
is "$(lookup big)" " rc=2" "a file over 8192 bytes: not found"
big1line="big1:\$6\$$(head -c 8165 /dev/zero | tr '\0' b):19000:0:99999:7:::"
entry big1 2028 "$big1line"
is "$(wc -c < "$R/etc/tcb/big1/shadow")" 8193 "big1's file is 8193 bytes"
is "$(lookup big1)" " rc=2" "a file of 8193 bytes: not found"
entry sparse 2029 "sparse:*:19000:0:99999:7:::"
truncate -s 1G "$R/etc/tcb/sparse/shadow"
is "$(lookup sparse)" " rc=2" "a valid line followed by a 1 GiB hole: not found, quickly"
# Directory of the user is a symlink to somewhere only root could reach:
# still found (buckets use this) -- only the last component is checked.
is "$(lookup u7)" "$(line u7) rc=0" "a bucketed user (dir symlink) is found"

# --- 5. enumeration skips every bad entry and continues -------------------
printf 'junk:*:19000:0:99999:7:::\n' > "$R/etc/tcb/junk"
mkdir -m 2710 "$R/etc/tcb/nodir"
entry .foo 2030 ".foo:*:19000:0:99999:7:::"
entry aaa-bad 2031 "aaa-bad:*:x:0:99999:7:::"
entry zzz-bad 2032 "zzz-bad:*:19000:0:99999:7"
ln -s nowhere "$R/etc/tcb/dangling"
# The readdir order is hashed; with this many bad entries some are certain
# to come between good ones.  Show where they fell.
echo "# readdir order: $(ls -f "$R/etc/tcb" | tr '\n' ' ')"
ngood=$(wc -l < "$T/expect")
enum=$(ns timeout 10 getent -s tcb shadow)
is "$(echo "$enum" | wc -l)" "$ngood" "enumeration lists all $ngood good entries despite the bad ones"
is "$(echo "$enum" | sort)" "$(sort "$T/expect")" "enumeration lists exactly the good entries"
is "$(echo "$enum" | cut -d: -f1 | grep -c '^u[1-8]$')" 8 "all of u1..u8 are listed"
is "$(echo "$enum" | grep -c -e '^junk:' -e '^\.foo:' -e '-bad:' -e '^mism:' -e '^u0:' -e "^$n33:")" 0 "none of the bad entries is listed"
is "$(echo "$enum" | grep -c '^u6:')" 1 "u6 is listed once (not also for dirs mism and u0)"
is "$(ns timeout 10 "$SP" ent | sort)" "$(sort "$T/expect")" "getspent through the probe: the same set"
entr=$(ns timeout 10 "$SP" entr 64)
like "$(echo "$entr" | grep -c '^rc ERANGE$')" '^[1-9]' "getspent_r with a 64-byte buffer gets ERANGE"
is "$(echo "$entr" | grep -v '^rc ' | sort)" "$(sort "$T/expect")" "after each ERANGE the same entry comes again: none lost"
is "$(echo "$entr" | grep '^rc ' | grep -v ERANGE)" "" "no error but ERANGE in enumeration"

# --- 6. non-root callers --------------------------------------------------
nogrp="setpriv --reuid=1001 --regid=100 --clear-groups"
sup42="setpriv --reuid=1001 --regid=100 --groups=42"
eg42="setpriv --reuid=1001 --regid=42 --clear-groups"
u2sup42="setpriv --reuid=1002 --regid=100 --groups=42"
u3auth="setpriv --reuid=1003 --regid=100 --groups=42,$TCB_AUTH_GID"
nr() { _w=$1; shift; _o=$(ns $_w timeout 5 getent -s tcb shadow "$@" 2>/dev/null); echo "$_o rc=$?"; }
is "$(nr "$nogrp" u1)" " rc=2" "u1 without group shadow: own entry not found"
like "$(ns $nogrp "$SP" nam u1)" '^notfound EACCES$' "u1 without group shadow: getspnam fails with EACCES"
tfail "u1 without group shadow cannot list /etc/tcb" ns $nogrp ls /etc/tcb
is "$(nr "$sup42" u1)" "$(line u1) rc=0" "u1 with supplementary group shadow reads its own entry (2700 layout)"
is "$(nr "$sup42" u2)" " rc=2" "u1 with group shadow cannot read u2's entry"
is "$(nr "$sup42" u5)" " rc=2" "u1 with group shadow cannot read u5's entry (2700 layout)"
like "$(ns $sup42 "$SP" nam u2)" '^notfound' "getspnam(u2) as u1 fails"
tfail "u1 with group shadow cannot list /etc/tcb" ns $sup42 ls /etc/tcb
is "$(ns $sup42 "$SP" ent; echo "rc=$?")" "rc=0" "u1 with group shadow enumerates nothing"
is "$(nr "$eg42" u1)" "$(line u1) rc=0" "u1 with egid shadow reads its own entry"
is "$(nr "$eg42" u2)" " rc=2" "u1 with egid shadow cannot read u2's entry"
tfail "u1 with egid shadow cannot list /etc/tcb" ns $eg42 ls /etc/tcb
is "$(nr "$u2sup42" u2)" "$(line u2) rc=0" "u2 with group shadow reads its own entry (2710 user:auth layout)"
is "$(nr "$u2sup42" u1)" " rc=2" "u2 with group shadow cannot read u1's entry"
is "$(nr "$u3auth" u2)" "$(line u2) rc=0" "groups shadow+auth read another user's 0640 auth entry"
is "$(nr "$u3auth" u1)" " rc=2" "groups shadow+auth cannot read a 0600 shadow-layout entry"

# --- 7. threads -------------------------------------------------------------
grep -E '^(u[1-8]|root|daemon|nobody):' "$T/expect" > "$T/threads"
is "$(ns timeout 30 "$SP" threads "$T/threads" 8 2000)" "threads ok 16000" \
	"8 threads x 2000 getspnam_r lookups: every result correct"

# --- 8. the shared object's interface ---------------------------------------
syms=$(nm -D --defined-only "$NSS" | awk '{print $NF}' | sort | tr '\n' ' ')
is "$syms" "_nss_tcb_endspent _nss_tcb_getspent_r _nss_tcb_getspnam_r _nss_tcb_setspent " \
	"libnss_tcb.so.2 exports exactly the four _nss_tcb_* functions"
like "$(readelf -d "$NSS")" 'SONAME.*\[libnss_tcb\.so\.2\]' "SONAME is libnss_tcb.so.2"
is "$(nm -D --defined-only "$NSS" | awk '{print $2}' | sort -u | tr '\n' ' ')" "T " \
	"all exported symbols are functions"
like "$(readelf -d "$NSS" | grep NEEDED)" 'libc\.so\.6' "links libc"
is "$(readelf -d "$NSS" | grep NEEDED | grep -c libtcb)" 0 "does not need libtcb (no privilege juggling)"

done_testing
