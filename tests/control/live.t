#!/bin/bash
# control(8) acting on a running system: a copy of the Debian base root
# with owlet installed, entered with chroot in private mount, pid and
# network namespaces (image/chroot.sh), where control runs without --root
# and its sysctls reach the kernel of that network namespace.  Real
# iputils ping, real su with real PAM, a real apt run firing the hook.
. "$(dirname "$0")/../lib/root.sh"
. "$(dirname "$0")/../lib/image.sh"
need_root
need_plain_build
owlet_root "$@"
install -m 0755 "$B/tests/bin/icmpsock" "$R/usr/local/bin/icmpsock"
# inside: run a script in the root, in a new network namespace (lo up)
inside() { CHROOT_UNSHARE=-n chroot_run "$R" /bin/sh -c "$1" 2>&1; }
inside 'useradd -m -u 1001 -s /bin/sh alice && useradd -m -u 1002 -s /bin/sh bob' >/dev/null
ok $? "users alice and bob"
# runuser, not setpriv: setpriv keeps root's capabilities (PR_SET_KEEPCAPS)
# until its own execve, so the kernel's exec permission check would pass
# even for a 0700 root-only program.
ALICE='runuser -u alice --'

# --- ping dgramsocket: ping works for a user with no set-uid bit and no
# capability; another program of the same user gets no ICMP socket
out=$(inside "control ping dgramsocket && control ping &&
	stat -c '%a %U:%G' /usr/bin/ping && getcap /usr/bin/ping &&
	cat /proc/sys/net/ipv4/ping_group_range &&
	$ALICE ping -c1 -W2 127.0.0.1 >/dev/null && echo ping-ok;
	$ALICE icmpsock")
like "$out" "^dgramsocket" "control ping dgramsocket, read back"
like "$out" "2711 root:_icmp" "ping is root:_icmp 2711 (set-gid only)"
unlike_caps=$(printf '%s\n' "$out" | grep -c cap_net_raw)
is "$unlike_caps" 0 "ping has no file capability"
gid=$(awk -F: '$1 == "_icmp" { print $3 }' "$R/etc/group")
like "$out" "$gid[[:space:]]+$gid" "net.ipv4.ping_group_range covers _icmp ($gid) only"
like "$out" "ping-ok" "a user's ping -c1 127.0.0.1 works"
like "$out" "EACCES" "a user's own program cannot open an ICMP datagram socket"

# --- ping public: no privilege at all, every user may ping
out=$(inside "control ping public && stat -c '%a %U:%G' /usr/bin/ping &&
	getcap /usr/bin/ping; $ALICE ping -c1 -W2 127.0.0.1 >/dev/null &&
	echo ping-ok; $ALICE icmpsock")
like "$out" "^755 root:root" "ping public: 0755 root:root"
is "$(printf '%s\n' "$out" | grep -c cap_net_raw)" 0 "and no capability"
like "$out" "ping-ok" "a user's ping works"
like "$out" "^ok$" "any program of the user may open an ICMP datagram socket"

# --- ping restricted: users cannot ping
out=$(inside "control ping restricted && $ALICE ping -c1 -W2 127.0.0.1; echo rc=\$?")
unlike "$out" "rc=0" "ping restricted: a user's ping fails"
like "$out" "Permission denied" "with permission denied"

# --- raw-caps, Debian's default, for going back
out=$(inside "control ping raw-caps && getcap /usr/bin/ping &&
	$ALICE ping -c1 -W2 127.0.0.1 >/dev/null && echo ping-ok")
like "$out" "cap_net_raw=ep" "ping raw-caps: cap_net_raw is back"
like "$out" "ping-ok" "and a user's ping works through it"

# --- su
PASS='Corr3ct-Horse-Battery'
inside "echo 'root:$PASS' | chpasswd" >/dev/null
ok $? "root has a password"
out=$(inside "control su restricted && $ALICE su -c 'id -u' root </dev/null; echo rc=\$?")
unlike "$out" "rc=0" "su restricted: a user cannot execute su"
like "$out" "su: Permission denied" "(the kernel refuses the exec)"
like "$(cat "$R/var/lib/dpkg/statoverride")" "root root 700 /bin/su" "registered under the path dpkg records (/bin/su)"
out=$(inside "control su wheel && usermod -aG wheel alice &&
	echo '$PASS' | $ALICE su -c 'id -u' root; echo alice-rc=\$?;
	echo '$PASS' | runuser -u bob -- su -c 'id -u' root; echo bob-rc=\$?")
like "$out" "alice-rc=0" "su wheel: a member of wheel becomes root with the password"
like "$out" "^(Password: )?0$" "(and runs as uid 0)"
like "$out" "bob-rc=1" "a non-member is refused with the right password"

# --- persistence: a package upgrade keeps the chosen state
deb=$(ls "$B"/cache/rootfs/debs/apt/iputils-ping_*.deb 2>/dev/null | head -n 1)
if [ -n "$deb" ]; then
	cp "$deb" "$R/tmp.iputils-ping.deb"
	out=$(inside "control ping dgramsocket &&
		apt-get install -y --reinstall -o Debug::NoLocking=1 /tmp.iputils-ping.deb >/dev/null 2>&1;
		echo apt-rc=\$?; control ping; getcap /usr/bin/ping;
		control --check && echo check-clean")
	rm -f "$R/tmp.iputils-ping.deb"
	like "$out" "apt-rc=0" "apt reinstalls iputils-ping (its postinst runs setcap)"
	like "$out" "dgramsocket" "ping is still dgramsocket after the upgrade (statoverride + dpkg hook)"
	is "$(printf '%s\n' "$out" | grep -c cap_net_raw)" 0 "the capability the postinst added was removed by control --reapply"
	like "$out" "check-clean" "--check is clean"
else
	ok 1 "iputils-ping .deb in the rootfs cache"
fi

# --- a chroot that shares the network namespace of the kernel's init (an
# image build): control writes no /proc/sys.  Checked in a network
# namespace made outside the chroot, which it cannot tell from the
# host's: a wrong write lands there, never on this machine.
out=$(unshare -n sh -c 'sh "$1/image/chroot.sh" "$2" control ping public >/dev/null 2>&1;
	echo rc=$?; cat /proc/sys/net/ipv4/ping_group_range' _ "$TOP" "$R")
like "$out" "rc=0" "in a chroot without a network namespace of its own, control ping public works"
like "$out" "1[[:space:]]+0\$" "... without writing /proc/sys (the new namespace's range stays 1 0)"
like "$(cat "$R/etc/sysctl.d/99-sysctl-control.conf")" "ping_group_range = 0 2147483647" \
    "... and sets the range in /etc/sysctl.d for the next boot"

# --- --defaults records the choice of a program not installed yet
out=$(inside "test -e /usr/bin/sudo || echo no-sudo; control --defaults --quiet; echo rc=\$?;
	grep '^sudo ' /etc/control.d/states; control --check >/dev/null && echo check-clean")
like "$out" "no-sudo" "sudo is not installed in the base"
like "$out" "rc=0" "control --defaults"
like "$out" "^sudo restricted\$" "... records sudo restricted, applied by the dpkg hook when a package brings sudo"
like "$out" "check-clean" "... and --check ignores it while sudo is absent"

done_testing
