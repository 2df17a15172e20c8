#!/bin/sh
# make demo: convert a generated sample root to tcb and look at it through
# real glibc NSS in a private mount namespace.  The host's /etc is never
# touched: everything happens under build/demo.
set -eu
B=${B:-build}
B=$(cd "$B" && pwd)
[ "$(id -u)" = 0 ] || { echo "demo: run as root (it uses a private mount namespace)" >&2; exit 1; }
R=$B/demo
rm -rf "$R"
mkdir -p "$R/etc"
chmod 0755 "$R"
cat > "$R/etc/passwd" <<'PW'
root:x:0:0:root:/root:/bin/bash
daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin
alice:x:1000:1000:Alice:/home/alice:/bin/bash
bob:x:1001:1001:Bob:/home/bob:/bin/bash
PW
printf 'root:x:0:\ndaemon:x:1:\nsys:x:3:\nalice:x:1000:\nbob:x:1001:\n' > "$R/etc/group"
cat > "$R/etc/shadow" <<'SH'
root:$y$j9T$F5Jx5fExrKuPp53xLKQ..1$X3DX6M94c7o.9agCG9G317fhZg9SqC.5i5rd.RhAtQ7:19700:0:99999:7:::
daemon:*:19700:0:99999:7:::
alice:$y$j9T$rVt1.zZ4VxU6TzS5pZs0K/$0fTbZ9Q7sWa1p0lR3d3oVZmVQEJ8p9ZQvU0g8kjH2Q5:19701:0:99999:7:::
bob:!:19702:0:99999:7:::
SH
printf 'TCB_AUTH_GROUP yes\n' > "$R/etc/login.defs"
printf 'passwd: files\ngroup: files\nshadow: tcb\n' > "$R/etc/nsswitch.conf"
cp /etc/ld.so.cache "$R/etc/" 2>/dev/null || :

echo "== tcb_convert --root $R"
"$B/sbin/tcb_convert" --root "$R"
echo "== the new tree (owners by number: the sample's groups are not the host's)"
find "$R/etc/tcb" -printf '%M %4U:%-4G %P\n' | sort -k3
echo "== groups added to the sample's /etc/group"
grep -E '^(shadow|auth):' "$R/etc/group"
echo "== getent shadow through glibc with 'shadow: tcb' (private namespace)"
LD_LIBRARY_PATH=$B/lib unshare -m --propagation private -- \
    sh -c 'mount --bind "$0/etc" /etc && getent shadow' "$R"
echo "== tcb_unconvert rebuilds the same /etc/shadow"
cp "$R/etc/shadow" "$R/shadow.before"
rm "$R/etc/shadow"
"$B/sbin/tcb_unconvert" --root "$R"
cmp "$R/shadow.before" "$R/etc/shadow" && echo "identical"
