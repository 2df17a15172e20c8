#!/bin/bash
# The cached Debian base (make rootfs) and the test helpers of
# tests/lib/image.sh.
#   - make rootfs with the same inputs again is a no-op (< 1 s, base
#     untouched);
#   - the base: policy-rc.d absent (it only exists during the build), no
#     apt lists or .debs left inside, the server set installed;
#   - base_overlay gives a writable copy: a changed file, a new file, a
#     deleted file and a chmod are seen in the overlay while the base's
#     files stay byte-identical (sha256, mode) and nothing is added to it;
#   - chroot_run in the overlay: dpkg-query finds openssh-server cron
#     iputils-ping; /proc is the new pid namespace's; /dev is private and
#     minimal; /run (but for lock/) and /tmp are empty tmpfs; a process
#     left running by CMD is gone afterwards;
#   - no mount leaks: the host namespace's mount points are the same
#     before and after, and nothing is mounted under the temp dir or the
#     base.
. "$(dirname "$0")/../lib/root.sh"
. "$(dirname "$0")/../lib/image.sh"
need_root
need_plain_build
need_base
tmpdir

mounts() { awk '{ print $5 }' /proc/self/mountinfo | sort; }
before=$(mounts)

# make rootfs again: current, so nothing is rebuilt.
stamp0=$(stat -c %i.%Y "$OWLET_BASE")
s=$(date +%s%N)
make -s -C "$TOP" B="$B" rootfs >/dev/null 2>&1
ok $? "make rootfs again succeeds"
ms=$((($(date +%s%N) - s) / 1000000))
ok $((ms >= 1000)) "make rootfs again is a no-op: ${ms} ms"
is "$(stat -c %i.%Y "$OWLET_BASE")" "$stamp0" "the base directory is the same one"

tfail "no policy-rc.d in the base" test -e "$OWLET_BASE/usr/sbin/policy-rc.d"
is "$(find "$OWLET_BASE/var/lib/apt/lists" "$OWLET_BASE/var/cache/apt" -type f | wc -l)" 0 \
    "no apt lists or cached .debs inside the base"
tfail "no resolv.conf of the build host in the base" test -e "$OWLET_BASE/etc/resolv.conf"

files="etc/passwd etc/motd etc/ssh/sshd_config usr/bin/dpkg usr/bin/ping"
sums() {
	for f in $files; do
		printf '%s %s ' "$f" "$(stat -c %a.%u.%g.%h "$OWLET_BASE/$f")"
		sha256sum < "$OWLET_BASE/$f"
	done
	find "$OWLET_BASE" -xdev | wc -l
}
sums0=$(sums)

inner() {	# inner DIR: runs in a private mount namespace
	d=$1
	base_overlay "$d" || exit 1
	echo "owlet-test:x:4242:4242::/:/bin/false" >> "$d/etc/passwd"
	echo new > "$d/etc/owlet-new"
	rm "$d/etc/motd"
	chmod 0700 "$d/usr/bin/dpkg"
	echo "passwd=$(grep -c owlet-test "$d/etc/passwd")"
	echo "new=$(cat "$d/etc/owlet-new")"
	echo "motd=$(test -e "$d/etc/motd" && echo present || echo gone)"
	echo "dpkgmode=$(stat -c %a "$d/usr/bin/dpkg")"
	echo "query=$(chroot_run "$d" dpkg-query -W -f='${Package} ${Status}\n' \
	    openssh-server cron iputils-ping | grep -c ' ok installed$')"
	echo "pids=$(chroot_run "$d" sh -c 'echo /proc/[0-9]*' | wc -w)"
	echo "dev=$(chroot_run "$d" sh -c 'ls -A /dev | tr "\n" " "' </dev/null)"
	echo "devnull=$(chroot_run "$d" sh -c 'echo x > /dev/null && head -c 4 /dev/urandom | wc -c')"
	echo "pts=$(chroot_run "$d" sh -c 'test -c /dev/pts/ptmx && echo yes')"
	echo "runtmp=$(chroot_run "$d" sh -c 'echo $(ls -A /run) $(ls -A /tmp) $(stat -f -c %T /run /tmp)')"
	echo "writes=$(chroot_run "$d" sh -c 'echo y > /tmp/y && echo z > /run/z && cat /tmp/y /run/z | tr -d "\n"')"
	# A background process left by CMD dies with its pid namespace.
	chroot_run "$d" sh -c 'sleep 31337 & echo $! > /owlet-sleep'
	echo "hostsleep=$(pgrep -f '^sleep 31337$' | wc -l)"
	echo "hostmounts=$(awk -v d="$d/" 'index($5 "/", d) == 1' /proc/self/mountinfo | wc -l)"
}
export -f inner
out=$(private_ns inner "$T/r")
ok $? "overlay and chroot_run in a private namespace"
get() { printf '%s\n' "$out" | sed -n "s/^$1=//p"; }

is "$(get passwd)" 1 "overlay: an appended line is seen"
is "$(get new)" new "overlay: a new file is seen"
is "$(get motd)" gone "overlay: a deleted file is gone"
is "$(get dpkgmode)" 700 "overlay: a chmod is seen"
is "$(sums)" "$sums0" "the base's files are byte-identical (sha256, mode, owner, links) and no entry was added"
is "$(get query)" 3 "chroot_run: dpkg-query -W openssh-server cron iputils-ping"
is "$(get pids)" 2 "chroot_run: a new pid namespace (CMD sees itself and the set-up shell)"
is "$(get dev)" "fd full null ptmx pts random shm stderr stdin stdout tty urandom zero " \
    "chroot_run: a minimal /dev"
is "$(get devnull)" 4 "chroot_run: /dev/null and /dev/urandom work"
is "$(get pts)" yes "chroot_run: a devpts instance with ptmx"
is "$(get runtmp)" "lock tmpfs tmpfs" "chroot_run: /run (but for lock/) and /tmp are empty tmpfs"
is "$(get writes)" yz "chroot_run: /run and /tmp are writable"
is "$(get hostsleep)" 0 "chroot_run: a process left behind by CMD is killed"
is "$(get hostmounts)" 1 "inside the namespace only the overlay itself is mounted under DIR after chroot_run"

is "$(mounts)" "$before" "no mount leaked into the test's namespace"
is "$(awk -v t="$T" -v b="$OWLET_BASE" 'index($5, t) == 1 || index($5, b) == 1' /proc/self/mountinfo | wc -l)" 0 \
    "nothing mounted under the temp dir or the base"
tfail "the overlay's mount point is an empty directory outside the namespace" \
    test -e "$T/r/etc"

# base_overlay outside a private namespace refuses (when this test runs in
# pid 1's namespace, as prove normally does).
if [ "$(readlink /proc/self/ns/mnt)" = "$(readlink /proc/1/ns/mnt)" ]; then
	tfail "base_overlay refuses to mount in pid 1's namespace" base_overlay "$T/x"
	is "$(mounts)" "$before" "and mounts nothing"
fi

done_testing
