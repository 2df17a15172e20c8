#!/bin/bash
# control(8) on the running system (no --root) for the hardening rules of
# issue 17: a kernel setting the running kernel lacks is unavailable, not
# drift; in a container the kernel's global settings are the host's
# (shown as the host set them, never drift, set in files only); boot
# parameters that the running kernel was not started with take effect at
# the next boot.  Also the network facility, live, in a network namespace
# of its own.
#
# Safety: control runs in private mount and network namespaces where
# /etc is a private tree (mkroot), /var and /run are empty tmpfs mounts,
# /proc/cmdline is a file of the test, and /proc/sys is read-only except
# /proc/sys/net, which belongs to the private network namespace: no
# global kernel setting of this machine can be written, and the test's
# own facilities only ever name keys that do not exist or cannot be
# written (kernel.ostype).
. "$(dirname "$0")/../lib/root.sh"
need_root
tmpdir
L=$T/live
mkroot "$L" 1
mkdir -p "$L/etc/control.d/facilities" "$L/etc/kernel"
chmod 0700 "$L/etc/control.d"
cp "$TOP/facilities/network" "$TOP/facilities/bootparams" "$L/etc/control.d/facilities/"
fac() { printf '%s\n' "$2" > "$L/etc/control.d/facilities/$1"; }
# a key no kernel has
fac absent 'summary a setting no kernel has
state on
sysctl kernel.owlet_no_such_key 1
state off
sysctl kernel.owlet_no_such_key 0 -'
# a setting this kernel lacks beside one of the network namespace
fac partial 'summary one setting missing, one present
state on
sysctl kernel.owlet_no_such_key 1
sysctl net.ipv4.conf.all.log_martians 1
state off
sysctl kernel.owlet_no_such_key 0 -
sysctl net.ipv4.conf.all.log_martians 0'
# a global key that cannot be written (kernel.ostype is 0444)
fac hostkey 'summary a global key
state other
sysctl kernel.ostype Plan9
state linux
sysctl kernel.ostype Linux -'
echo 'root=/dev/vda rw console=ttyS0' > "$L/etc/kernel/cmdline"
echo 'BOOT_IMAGE=/vmlinuz root=/dev/vda rw console=ttyS0' > "$T/cmdline"

# live [container|containerenv|container-env] SCRIPT: run the sh SCRIPT
# as described above, as process 1 of a pid namespace of its own (control
# tells a chroot from the root of process 1: here it is the same);
# "container" adds /run/systemd/container, "containerenv"
# /run/.containerenv (podman), "container-env" puts container= into the
# environment of process 1.  control is $CTL there.
live() {
	_c= _e=
	case $1 in
	container) _c=1; shift ;;
	container-env) _e=container=owlet-test; shift ;;
	containerenv) _c=podman; shift ;;
	esac
	L=$L T=$T C=$_c CTL="$B/sbin/control" unshare -m -n -p --fork --mount-proc \
	    --propagation private -- env $_e sh -c '
	set -e
	mount --bind /proc/sys /proc/sys
	mount -o remount,bind,ro /proc/sys
	mount --bind /proc/sys/net /proc/sys/net
	mount -o remount,bind,rw /proc/sys/net
	mount --bind "$L/etc" /etc
	mount -t tmpfs -o mode=0755 tmpfs /var
	mount -t tmpfs -o mode=0755 tmpfs /run
	mount --bind "$T/cmdline" /proc/cmdline
	case $C in
	podman) : > /run/.containerenv ;;
	?*) mkdir /run/systemd; echo owlet-test > /run/systemd/container ;;
	esac
	[ ! -d /usr/share/owlet ] || mount -t tmpfs tmpfs /usr/share/owlet
	set +e
	eval "$1"' live "$1" 2>&1
}

# The safety net holds: a global key cannot be written here.
out=$(live 'grep -E " /proc/sys(/net)? " /proc/self/mounts | cut -d" " -f2,4 | cut -d, -f1')
is "$out" "/proc/sys ro
/proc/sys/net rw" "set-up: /proc/sys is read-only in the test's namespaces, but for the network namespace's"

# --- a setting the running kernel lacks: unavailable, not drift
out=$(live '$CTL; echo rc=$?')
like "$out" "^absent +off +\\(on off\\) unavailable\$" "listing: absent reads off, noted unavailable"
like "$out" "^partial +unknown +\\(on off\\)\$" "partial (one key present): no note"
like "$out" "rc=0" "listing exits 0"
out=$(live '$CTL absent on; echo rc=$?; $CTL absent; cat /etc/sysctl.d/99-sysctl-control.conf;
	$CTL --check; echo check=$?')
like "$out" "^rc=0\$" "control absent on: exit 0 (no /proc/sys file to write)"
like "$out" "^on\$" "... read back from the file"
like "$out" "absent: unavailable: the running kernel has none of its settings" "... noted unavailable"
like "$out" "^kernel.owlet_no_such_key = 1\$" "... set in /etc/sysctl.d for another kernel"
like "$out" "^check=0\$" "--check clean"
sed -i 's/owlet_no_such_key = 1/owlet_no_such_key = 7/' "$L/etc/sysctl.d/99-sysctl-control.conf"
out=$(live '$CTL absent; $CTL --check; echo check=$?; $CTL --json')
like "$out" "^unknown\$" "a hand-edited file: absent reads unknown"
like "$out" "^check=0\$" "... and is still no drift: the kernel has nothing to enforce"
printf '%s\n' "$out" | sed -n '/^\[/,$p' | perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); exit !(grep { $_->{facility} eq "absent" && $_->{note} eq "unavailable" } @$j)'
ok $? "--json: note \"unavailable\""
out=$(live '$CTL partial on; echo rc=$?; $CTL partial; cat /proc/sys/net/ipv4/conf/all/log_martians;
	$CTL --check; echo check=$?; echo 0 > /proc/sys/net/ipv4/conf/all/log_martians; $CTL --check')
like "$out" "^rc=0\$" "partial on: the missing key in the file, the present one in the kernel"
like "$out" "^on\$" "... read back: on (the missing key by its file alone)"
like "$out" "^1\$" "... log_martians is 1 in the network namespace"
like "$out" "^check=0\$" "... --check clean"
like "$out" "^partial: configured on, found unknown\$" "the present key changed behind control's back: drift"

# (each call of live has a network namespace of its own: choices start afresh)
rm -f "$L/etc/control.d/states"
# --- the network facility on a running system, per network namespace
out=$(live '$CTL network host; echo rc=$?; $CTL network; $CTL --check; echo check=$?
	for k in ipv4/conf/all/rp_filter ipv4/conf/default/accept_redirects ipv4/conf/all/send_redirects \
	    ipv4/conf/all/log_martians ipv6/conf/all/accept_redirects ipv4/conf/default/accept_source_route; do
		printf "%s=%s\n" $k $(cat /proc/sys/net/$k); done
	echo 0 > /proc/sys/net/ipv4/conf/all/rp_filter; $CTL network; $CTL --check
	$CTL --reapply --quiet; echo reapply=$?; cat /proc/sys/net/ipv4/conf/all/rp_filter
	$CTL network router; $CTL network; cat /proc/sys/net/ipv4/conf/all/rp_filter
	$CTL network debian; $CTL network; cat /proc/sys/net/ipv4/conf/all/accept_redirects')
like "$out" "^rc=0\$" "network host, live"
is "$(printf '%s\n' "$out" | grep -c -E '^(ipv4/conf/all/rp_filter=1|ipv4/conf/default/accept_redirects=0|ipv4/conf/all/send_redirects=0|ipv4/conf/all/log_martians=1|ipv6/conf/all/accept_redirects=0|ipv4/conf/default/accept_source_route=0)$')" 6 \
    "... the kernel runs every value (rp_filter, redirects, martians, source routing; IPv4 and IPv6)"
like "$out" "^host\$" "... read back from the kernel"
like "$out" "^check=0\$" "... --check clean"
like "$out" "^network: configured host, found unknown\$" "rp_filter set to 0 by hand: drift"
like "$out" "^reapply=0\$" "--reapply"
is "$(printf '%s\n' "$out" | sed -n '/^reapply=/{n;p}')" 1 "... rp_filter is 1 again"
like "$out" "^router\$" "network router, read back"
like "$out" "^2\$" "... loose reverse-path filter"
like "$out" "^debian\$" "network debian, read back"

rm -f "$L/etc/control.d/states"
# --- in a container: the host's kernel settings
out=$(live container '$CTL hostkey; $CTL --json; $CTL hostkey other; echo rc=$?; cat /proc/sys/kernel/ostype
	grep ostype /etc/sysctl.d/99-sysctl-control.conf; $CTL hostkey; $CTL --check; echo check=$?
	$CTL --reapply; echo reapply=$?')
like "$out" "^linux\$" "container: hostkey shows the host's value (kernel.ostype Linux)"
like "$out" "hostkey: set by the host: this system is a container" "... noted as set by the host"
printf '%s\n' "$out" | sed -n '/^\[/,/^\]/p' | perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); exit !(grep { $_->{facility} eq "hostkey" && $_->{note} eq "host" && $_->{state} eq "linux" } @$j)'
ok $? "--json: state linux, note \"host\""
like "$out" "^rc=0\$" "control hostkey other in a container: exit 0"
like "$out" "^kernel.ostype = Plan9\$" "... set in /etc/sysctl.d (for the day it boots its own kernel)"
is "$(printf '%s\n' "$out" | grep -c '^linux$')" 2 "... the host's value still shown"
like "$out" "^check=0\$" "--check: the host's setting is not drift"
like "$out" "^reapply=0\$" "--reapply does not try to change it"
out=$(live container-env '$CTL hostkey')
like "$out" "hostkey: set by the host: this system is a container" "container= in the environment of process 1: a container too"
like "$out" "^linux\$" "... the host's value shown"
out=$(live containerenv '$CTL hostkey; $CTL hostkey other; echo rc=$?')
like "$out" "hostkey: set by the host: this system is a container" "/run/.containerenv (podman, a RUN step of an image build): a container too"
like "$out" "^rc=0\$" "... where a switch of a global key exits 0"
out=$(live container '$CTL absent; $CTL network host; echo rc=$?; cat /proc/sys/net/ipv4/conf/all/rp_filter')
like "$out" "absent: set by the host" "a key no kernel has: the host's too, in a container"
like "$out" "^rc=0\$" "network host in a container: the network namespace is the container's own"
like "$out" "^1\$" "... rp_filter set live in it"
rm -f "$L/etc/sysctl.d/99-sysctl-control.conf"

rm -f "$L/etc/control.d/states"
# --- boot parameters: the file, and the kernel's /proc/cmdline
out=$(live '$CTL bootparams hardened; echo rc=$?; ls /run/owlet; $CTL bootparams; $CTL --check; echo check=$?; $CTL')
like "$out" "^rc=0\$" "bootparams hardened on the running system"
like "$out" "^esp-update.stale\$" "... flagged for the boot entries (owlet-esp-update.path)"
like "$out" "^hardened\$" "... reads hardened (the file)"
like "$out" "bootparams: takes effect at the next boot" "... noted: the running kernel has none of it"
like "$out" "^check=0\$" "... and that is not drift"
like "$out" "^bootparams +hardened +\\(hardened debian\\) next-boot\$" "listing: note next-boot"
echo "BOOT_IMAGE=/vmlinuz $(cat "$L/etc/kernel/cmdline")" > "$T/cmdline"
out=$(live '$CTL bootparams')
is "$out" hardened "booted with them: hardened, no note"
out=$(live container '$CTL bootparams')
is "$out" hardened "in a container /proc/cmdline is the host's: no note"
out=$(live container '$CTL bootparams debian; echo rc=$?; ls -d /run/owlet 2>/dev/null')
is "$out" "rc=0" "... a switch there flags no boot entry update (no kernel of its own)"

done_testing
