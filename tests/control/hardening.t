#!/bin/bash
# The kernel and system hardening facilities (issue 17) under --root, on a
# private copy (overlayfs) of the Debian base root with owlet installed:
# what stock Debian reads as, every state set and read back with the
# files it writes, --check clean after each switch, drift after a hand
# edit, going back leaving Debian's files byte for byte, the files and
# directories control made removed again, and the boot parameters in
# /etc/kernel/cmdline.  Nothing reaches /proc/sys: with --root, kernel
# settings are files only (tests/control/hardening-live.t covers the
# running system, in private namespaces).
. "$(dirname "$0")/../lib/root.sh"
. "$(dirname "$0")/../lib/image.sh"
need_root
owlet_root "$@"
ctl() { "$B/sbin/control" --root "$R" "$@"; }
state() { ctl "$1" 2>/dev/null; }
SYSCTL=$R/etc/sysctl.d/99-sysctl-control.conf
# sysctl_is KEY VALUE: the line control writes for KEY ("-": none)
sysctl_is() {
	_got=$(grep -E "^$(printf '%s' "$1" | sed 's/[.*]/\\&/g') = " "$SYSCTL" 2>/dev/null)
	if [ "$2" = - ]; then [ -z "$_got" ]; else [ "$_got" = "$1 = $2" ]; fi
}
# sysctls_are STATE KEY=VALUE...: every KEY's line, in one TAP line
sysctls_are() {
	_what=$1 _bad=
	shift
	for _kv; do sysctl_is "${_kv%%=*}" "${_kv#*=}" || _bad="$_bad ${_kv%%=*}"; done
	is "${_bad:-none}" none "$_what: $(echo "$@" | cut -c1-60)..."
}
set_ok() { ctl "$1" "$2" && [ "$(state "$1")" = "$2" ] && ctl --check >/dev/null; }
HARD="links dmesg ptrace bpf perf userfaultfd kexec modules ldisc sysrq oops
aslr userns coredump network proc tmp umask sshd"

# --- stock Debian reads as Debian's states; no boot facility without
# /etc/kernel/cmdline
out=$(ctl)
ok $? "control lists the facilities"
debian="links relaxed|dmesg root|ptrace public|bpf debian|perf restricted|userfaultfd restricted|kexec root|modules loadable|ldisc public|sysrq debian|oops debian|aslr debian|userns public|coredump restricted|network debian|proc public|tmp debian|umask public|sshd debian"
bad=
IFS='|'
for fs in $debian; do
	printf '%s\n' "$out" | grep -Eq "^${fs% *} +${fs#* } " || bad="$bad ${fs% *}"
done
unset IFS
is "${bad:-none}" none "stock Debian reads as Debian's state in each of the 19 facilities"
unlike "$out" "^(bootparams|iommu|lockdown|modsig|mitigations) " "the boot facilities need /etc/kernel/cmdline (none here)"
is "$(ctl network list)" "host router debian" "network: states host router debian"
like "$(ctl ptrace help)" "^children: only a parent its descendants" "ptrace help"

# --- every state of every facility: set, read back, --check clean; back
# to the stock state leaves the tree byte for byte (no trace of the files
# and directories control made)
manifest() {
	"$B/bin/seal" create -p "$R" -x /proc -x /sys -x /dev -x /run -x /tmp \
	    -x /etc/control.d -x /var/lib/owlet -x /var/lib/dpkg/statoverride \
	    -x /etc/group -x /etc/gshadow -x /etc/group- -x /etc/gshadow- \
	    -x /etc/.pwd.lock -x /etc/sysctl.d/99-sysctl-control.conf 2>/dev/null
}
before=$(manifest)
bad= n=0
for f in $HARD; do
	orig=$(state "$f")
	for s in $(ctl "$f" list) "$orig"; do
		n=$((n + 1))
		set_ok "$f" "$s" 2>"$T/err" || bad="$bad $f:$s($(head -n 1 "$T/err"))"
	done
done
is "${bad:-none}" none "every state set, read back, --check clean ($n switches)"
diff <(echo "$before") <(manifest) > "$T/diff"
is "$(grep -c '^[<>]' "$T/diff")" 0 "back in the stock states: the tree is byte-identical"
[ -s "$T/diff" ] && diag "$(head -n 20 "$T/diff")"
bad=
for p in etc/ssh/sshd_config.d/control.conf etc/security/limits.d/control-coredump.conf \
    etc/sysctl.d/after-boot etc/systemd/system/systemd-logind.service.d \
    etc/systemd/system/multi-user.target.d \
    etc/systemd/system/polkit.service.d; do
	[ ! -e "$R/$p" ] || bad="$bad $p"
done
is "${bad:-none}" none "the files and directories control made are gone"
like "$(cat "$R/var/lib/owlet/control/lines")" "^/etc/systemd/system/polkit.service.d"$'\t\t'"\\+\$" \
    "control recorded the directory it made (empty word, +)"

# --- what each state writes
set_ok links restricted
sysctls_are "links restricted" fs.protected_symlinks=1 fs.protected_hardlinks=1 fs.protected_fifos=2 fs.protected_regular=2
set_ok dmesg restricted; sysctls_are "dmesg restricted" kernel.dmesg_restrict=1 kernel.kptr_restrict=2
for s in public:0 children:1 admin:2 disabled:3; do
	set_ok ptrace "${s%:*}"; sysctls_are "ptrace ${s%:*}" "kernel.yama.ptrace_scope=${s#*:}"
done
set_ok ptrace children
set_ok bpf restricted; sysctls_are "bpf restricted" kernel.unprivileged_bpf_disabled=2 net.core.bpf_jit_harden=2
set_ok bpf locked; sysctls_are "bpf locked" kernel.unprivileged_bpf_disabled=1 net.core.bpf_jit_harden=2
set_ok perf user; sysctls_are "perf user" kernel.perf_event_paranoid=2
set_ok perf restricted; sysctls_are "perf restricted (Debian's value, written)" kernel.perf_event_paranoid=3
set_ok userfaultfd public; sysctls_are "userfaultfd public" vm.unprivileged_userfaultfd=1
set_ok kexec disabled; sysctls_are "kexec disabled" kernel.kexec_load_disabled=1
set_ok kexec root; sysctls_are "kexec root: no line (the kernel refuses 0 once set)" kernel.kexec_load_disabled=-
set_ok kexec disabled
set_ok ldisc restricted; sysctls_are "ldisc restricted" dev.tty.ldisc_autoload=0
set_ok sysrq reboot; sysctls_are "sysrq reboot" kernel.sysrq=176
set_ok oops limited; sysctls_are "oops limited" kernel.oops_limit=100 kernel.warn_limit=100
set_ok aslr max; sysctls_are "aslr max" vm.mmap_rnd_bits=32 vm.mmap_rnd_compat_bits=16 kernel.randomize_va_space=2
set_ok userns restricted; sysctls_are "userns restricted" kernel.unprivileged_userns_clone=0
set_ok coredump off
sysctls_are "coredump off" fs.suid_dumpable=0 'kernel.core_pattern=|/bin/false'
is "$(cat "$R/etc/security/limits.d/control-coredump.conf")" "* hard core 0" "coredump off: pam_limits forbids core files"
set_ok coredump restricted
sysctls_are "coredump restricted" kernel.core_pattern=-
t "coredump restricted: the limits file control made is gone" test ! -e "$R/etc/security/limits.d/control-coredump.conf"
set_ok network host
sysctls_are "network host" net.ipv4.conf.all.rp_filter=1 net.ipv4.conf.default.rp_filter=1 \
    net.ipv4.conf.all.accept_redirects=0 net.ipv4.conf.all.send_redirects=0 \
    net.ipv4.conf.default.accept_source_route=0 net.ipv4.conf.all.log_martians=1 \
    net.ipv4.tcp_syncookies=1 net.ipv4.icmp_echo_ignore_broadcasts=1 \
    net.ipv6.conf.all.accept_redirects=0 net.ipv6.conf.default.accept_source_route=0
sysctls_are "network host: redirects per interface (a * key for systemd-sysctl)" \
    'net.ipv4.conf.*.accept_redirects=0' 'net.ipv4.conf.*.send_redirects=0' 'net.ipv6.conf.*.accept_redirects=0'
set_ok network router
sysctls_are "network router" net.ipv4.conf.all.rp_filter=2 net.ipv4.conf.all.send_redirects=1 \
    'net.ipv4.conf.*.send_redirects=-' 'net.ipv4.conf.*.accept_redirects=0'
set_ok modules locked
is "$(cat "$R/etc/sysctl.d/after-boot/control.conf")" "kernel.modules_disabled = 1" \
    "modules locked: set by owlet-sysctl-after-boot.service, not at early boot"
t "... and not in the early file" sysctl_is kernel.modules_disabled -
t "the unit is installed" test -f "$R/lib/systemd/system/owlet-sysctl-after-boot.service"
is "$(cat "$R/etc/systemd/system/multi-user.target.d/control-modules.conf")" \
    "$(printf '[Unit]\nWants=owlet-sysctl-after-boot.service')" "... and multi-user.target wants it (drop-in)"
set_ok modules loadable
t "modules loadable: the directories control made are gone" \
    test ! -e "$R/etc/sysctl.d/after-boot" -a ! -e "$R/etc/systemd/system/multi-user.target.d"

# proc: the group, the fstab line, the daemons' drop-ins
set_ok proc restricted
ok $? "proc restricted"
gid=$(awk -F: '$1 == "proc" { print $3 }' "$R/etc/group")
t "group proc exists" test -n "$gid"
like "$(grep -v '^#' "$R/etc/fstab")" "^proc /proc proc rw,nosuid,nodev,noexec,relatime,hidepid=invisible,gid=$gid 0 0\$" \
    "fstab: /proc hidepid=invisible, gid=proc ($gid)"
for u in systemd-logind polkit; do
	is "$(cat "$R/etc/systemd/system/$u.service.d/control-proc.conf" 2>&1)" \
	    "$(printf '[Service]\nSupplementaryGroups=proc')" "$u gets group proc (drop-in)"
done
echo "[Service]" > "$R/etc/systemd/system/polkit.service.d/local.conf"
set_ok proc public
ok $? "proc public"
cmp -s "$R/etc/fstab" "$OWLET_BASE/etc/fstab"; ok $? "fstab is Debian's again, byte for byte"
t "logind's drop-in directory control made is gone" test ! -e "$R/etc/systemd/system/systemd-logind.service.d"
t "polkit's directory stays for the administrator's own drop-in" test -f "$R/etc/systemd/system/polkit.service.d/local.conf" -a ! -e "$R/etc/systemd/system/polkit.service.d/control-proc.conf"
rm -r "$R/etc/systemd/system/polkit.service.d"

set_ok tmp noexec
like "$(grep -v '^#' "$R/etc/fstab")" "^tmpfs /tmp tmpfs rw,nosuid,nodev,noexec,size=50%,nr_inodes=1m,mode=1777 0 0" "tmp noexec: tmpfs /tmp"
like "$(grep -v '^#' "$R/etc/fstab")" "^tmpfs /dev/shm tmpfs rw,nosuid,nodev,noexec 0 0" "... and /dev/shm nosuid,nodev,noexec"
set_ok tmp nosuid
unlike "$(grep -v '^#' "$R/etc/fstab")" "noexec" "tmp nosuid: exec allowed"

set_ok umask restricted
like "$(grep -E '^(UMASK|HOME_MODE)' "$R/etc/login.defs" | tr '\n' ' ')" "^UMASK 027 HOME_MODE 0700 \$" "umask restricted: UMASK 027, HOME_MODE 0700"
set_ok umask public
cmp -s "$R/etc/login.defs" "$OWLET_BASE/etc/login.defs"; ok $? "umask public: Debian's login.defs byte for byte (its commented HOME_MODE back)"

set_ok sshd restricted
conf=$R/etc/ssh/sshd_config.d/control.conf
like "$(cat "$conf")" "^PermitRootLogin prohibit-password\$" "sshd restricted: root by key only"
like "$(cat "$conf")" "^KexAlgorithms sntrup761x25519-sha512@openssh.com,curve25519-sha256" "... modern key exchange only"
like "$(grep -c -E '^(AllowAgentForwarding|AllowTcpForwarding|AllowStreamLocalForwarding|X11Forwarding) no$' "$conf")" "^4\$" "... no forwarding"
like "$(cat "$conf")" "^MaxAuthTries 3\$" "... MaxAuthTries 3"
like "$(grep -v '^#' "$R/etc/pam.d/sshd")" "pam_umask.so" "... SSH sessions get login.defs' UMASK"
ssh-keygen -q -t ed25519 -N '' -f "$R/etc/ssh/ssh_host_ed25519_key" >/dev/null 2>&1
out=$(chroot_run "$R" sh -c 'mkdir -p /run/sshd && /usr/sbin/sshd -T' 2>&1)
like "$out" "^ciphers chacha20-poly1305@openssh.com,aes256-gcm@openssh.com,aes128-gcm@openssh.com\$" \
    "sshd -T: OpenSSH reads the drop-in first and uses its ciphers"
like "$out" "^allowtcpforwarding no\$" "sshd -T: no TCP forwarding (over Debian's sshd_config)"
like "$out" "^x11forwarding no\$" "sshd -T: no X11 forwarding (Debian's sshd_config says yes)"
rm -f "$R"/etc/ssh/ssh_host_ed25519_key*
set_ok sshd forwarding
is "$(grep -c -E '^(AllowAgentForwarding|AllowTcpForwarding|AllowStreamLocalForwarding|X11Forwarding) yes$' "$conf")" 4 "sshd forwarding: forwarding allowed"

# --- drift: hand edits are found, --reapply puts the choice back
ctl --defaults --quiet
ok $? "--defaults: the owlet profile"
out=$(ctl)
bad=
for fs in links:restricted dmesg:restricted ptrace:children bpf:restricted kexec:disabled \
    ldisc:restricted sysrq:reboot oops:limited aslr:max userns:restricted \
    coredump:restricted network:host proc:restricted tmp:noexec umask:restricted sshd:restricted; do
	printf '%s\n' "$out" | grep -Eq "^${fs%:*} +${fs#*:} " || bad="$bad $fs"
done
is "${bad:-none}" none "the owlet defaults read back"
ctl --check >/dev/null
ok $? "--check clean after --defaults"
sed -i 's/^fs.protected_fifos = 2$/fs.protected_fifos = 1/' "$SYSCTL"
sed -i 's/^MaxAuthTries 3$/MaxAuthTries 10/' "$conf"
sed -i 's/^UMASK 027$/UMASK 077/' "$R/etc/login.defs"
sed -i 's/,noexec,size/,size/' "$R/etc/fstab"
out=$(ctl --check); rc=$?
is "$rc" 1 "--check exits 1 after hand edits"
like "$out" "^links: configured restricted, found relaxed\$" "a sysctl file edited: links reads relaxed"
like "$out" "^sshd: configured restricted, found unknown\$" "sshd's drop-in edited"
like "$out" "^umask: configured restricted, found unknown\$" "login.defs edited"
like "$out" "^tmp: configured noexec, found unknown\$" "fstab edited"
ctl --reapply --quiet && ctl --check >/dev/null
ok $? "--reapply puts every choice back; --check clean"

# --- boot parameters: tokens of /etc/kernel/cmdline
line='root=PARTUUID=0fc63daf-8483-4772-8e79-3d69d8477de4 rw console=tty0 console=ttyS0,115200'
mkdir -p "$R/etc/kernel" && printf '%s\n' "$line" > "$R/etc/kernel/cmdline"
out=$(ctl)
like "$out" "^bootparams +debian " "with /etc/kernel/cmdline: bootparams reads debian"
like "$out" "^lockdown +none .*\\)\$" "... lockdown none, no note under --root"
out=$(ctl --check); rc=$?
is "$rc" 1 "the boot choices that --defaults recorded are drift now that the file exists"
like "$out" "^bootparams: configured hardened, found debian\$" "... bootparams hardened, found debian"
ctl --reapply --quiet && ctl --check >/dev/null
ok $? "--reapply applies the recorded boot choices (as image/disk.sh does); --check clean"
is "$(cat "$R/etc/kernel/cmdline")" "$line slab_nomerge init_on_alloc=1 page_alloc.shuffle=1 randomize_kstack_offset=on vsyscall=none debugfs=off kfence.sample_interval=100 iommu=force iommu.strict=1 efi=disable_early_pci_dma" \
    "/etc/kernel/cmdline: the disk's tokens first, then the KSPP parameters, one line"
is "$(state bootparams) $(state iommu) $(state lockdown) $(state modsig) $(state mitigations) $(state pti) $(state init_on_free)" \
    "hardened strict none optional auto auto off" "boot facilities in their defaults"
for s in lockdown:integrity lockdown:confidentiality modsig:enforced mitigations:nosmt pti:on init_on_free:on; do
	set_ok "${s%:*}" "${s#*:}"
	ok $? "${s%:*} ${s#*:}"
done
like "$(cat "$R/etc/kernel/cmdline")" " lockdown=confidentiality module.sig_enforce=1 mitigations=auto,nosmt pti=on init_on_free=1\$" "lockdown, signatures, nosmt, pti and init_on_free appended"
bad=
for fs in bootparams:debian iommu:debian lockdown:none modsig:optional mitigations:auto pti:auto init_on_free:off; do
	set_ok "${fs%:*}" "${fs#*:}" || bad="$bad $fs"
done
is "${bad:-none}" none "every boot facility switched back to Debian's state"
is "$(cat "$R/etc/kernel/cmdline")" "$line" "every boot facility back to Debian's: the line as it was"
printf '%s\n' "$line init_on_alloc=0 page_alloc.shuffle=0 init_on_alloc=1" > "$R/etc/kernel/cmdline"
is "$(state bootparams)" unknown "two init_on_alloc tokens and page_alloc.shuffle=0: bootparams unknown"
set_ok bootparams hardened
like "$(cat "$R/etc/kernel/cmdline")" "^$line init_on_alloc=1 page_alloc.shuffle=1 slab_nomerge " \
    "a token is replaced where it stands, a second one of the same parameter dropped"
is "$(grep -o 'init_on_alloc=[0-9]*' "$R/etc/kernel/cmdline" | tr '\n' ' ')" "init_on_alloc=1 " "one init_on_alloc token left"
printf '%s\n' "$line init_on_free=0" > "$R/etc/kernel/cmdline"
is "$(state init_on_free)" off "an explicit init_on_free=0 reads as off"
printf '%s\n' "$line pti=auto" > "$R/etc/kernel/cmdline"
is "$(state pti)" auto "an explicit pti=auto reads as auto"
printf '%s\n' "$line mitigations=auto" > "$R/etc/kernel/cmdline"
is "$(state mitigations)" auto "an explicit mitigations=auto reads as auto"
mkdir -p "$R/etc/control.d/facilities"
printf 'state on\ncmdline pti off\n' > "$R/etc/control.d/facilities/bad"
like "$(ctl 2>&1 >/dev/null)" "bad:2: cmdline: \"off\" is not pti or pti=VALUE" "a token of another parameter is refused"
printf 'state on\ncmdline "a b" a\n' > "$R/etc/control.d/facilities/bad"
like "$(ctl 2>&1 >/dev/null)" "bad:2: cmdline: bad parameter name" "a bad parameter name is refused"
rm "$R/etc/control.d/facilities/bad"

# --- a switch that fails after making a directory: rolled back, gone
printf '%s\n' 'state a' 'line /etc/owlet-made/d/x.conf X -' 'state b' \
    'line /etc/owlet-made/d/x.conf X "X 1"' 'file /usr/bin/owlet-no-such-file root root 0755' \
    > "$R/etc/control.d/facilities/mk"
out=$(ctl mk b 2>&1); rc=$?
is "$rc" 1 "a switch whose last action fails exits 1"
t "the directories it made are removed by the rollback" test ! -e "$R/etc/owlet-made"
rm "$R/etc/control.d/facilities/mk"

done_testing
