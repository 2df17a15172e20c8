#!/bin/bash
# VM test, issue 19: the disk of `make disk` booted on a real kernel (qemu,
# TCG when there is no KVM), reached over SSH with root's key passed as a
# systemd credential.  One boot of VM "a" carries most checks, then a
# reboot of "a"; VM "b" boots beside it from the same image only to show
# that each instance makes its own machine-id and host keys.
#   - boot: PID 1 systemd, is-system-running = running, no failed unit,
#     the root partition and file system grown to a disk larger than the
#     image, hostname from the system.hostname credential (b) or owlet (a);
#   - the promises: no set-uid file, no file capability, control --check
#     clean, every sysctl control sets reads back from /proc/sys;
#   - a user (alice) pings 127.0.0.1 and the VM's address; changes her
#     password with passwd(1) on an SSH terminal (passwdqc refuses a weak
#     one first), logs in with the new one, not the old; journald records
#     her uid for a logger(1) line;
#   - hardening (issue 17): /proc/cmdline holds /etc/kernel/cmdline, /proc
#     hidepid=invisible with group proc (logind in it), tmpfs /tmp and
#     /dev/shm noexec; as alice: only her processes in /proc, dmesg, a hard
#     link to a root file and ptrace of a non-child refused; root's password
#     refused over SSH, sshd -T shows no forwarding;
#   - seal verify of the running root against the disk's signed spec
#     reports only first-boot paths, and flags a planted file;
#   - a Debian package shipping a set-uid program (sudo, fetched on the
#     host) installed with dpkg leaves no set-uid file;
#   - after a reboot: the same host key, machine-id, the new password and
#     the states.
# The boot-to-SSH times are printed.
. "$(dirname "$0")/../lib/root.sh"
. "$(dirname "$0")/../lib/image.sh"
. "$(dirname "$0")/../lib/vm.sh"
need_root
need_plain_build
need_vm_tools
tmpdir
need_disk

P1='Quiet-Harbor-Lamp-42'	# passphrases passwdqc accepts
P2='Violet-Canyon-Drum-77'
WEAK='abc123xy'			# too short for owlet's policy (15)

# sudo's .deb, fetched by the host's apt (the VM has no network).
debs=$B/cache/vm-debs
mkdir -p "$debs"
[ -n "$(ls "$debs"/sudo_*.deb 2>/dev/null)" ] ||
	(cd "$debs" && apt-get download -qq sudo >/dev/null 2>&1) || :
sudo_deb=$(ls "$debs"/sudo_*.deb 2>/dev/null | head -n 1)

vm_boot a "$OWLET_DISK" 3G || { ok 1 "qemu starts"; done_testing; }
# b: no key for root, its console on a socket, driven in the background.
VM_KEY=none VM_CONSOLE=1 VM_CREDS="--credential system.hostname=owlet-b" \
    vm_boot b "$OWLET_DISK" || { ok 1 "qemu starts (b)"; done_testing; }
PB='Amber-Kettle-Window-93'
vm_console b "$WEAK" "$PB" > "$T/b.console" 2>&1 &
console_pid=$!
vm_wait_ssh a
ok $? "root logs in over SSH with the key given as a credential"
diag "boot to SSH: $VM_BOOT_SECONDS s (TCG: ${VM_TIMEOUT} s allowed)"
boot_a=$VM_BOOT_SECONDS

# --- b: without a key, the console asks for a root password -------------------
wait "$console_pid"
rc=$?
ok $rc "b, booted without a key: the console asks for a root password, root logs in with it, b powers off"
[ "$rc" = 0 ] || diag "$(tr -d '\r' < "$T/b.console" | tail -n 25)"
console=$(tr -d '\r' < "$T/b.console")
like "$console" "weak password for root" "... after passwdqc refused a weak one"
# (only lines of the three forms: the kernel's messages and systemd's
# status lines, when the login came before the boot's end, appear
# between them on the console)
id_b=$(sed -n '/==ID==$/,/^==END==$/p' <<<"$console" | sed '1d;$d' |
    grep -E '^([0-9a-f]{32}|SHA256:[^ ]+|owlet[a-z0-9.-]*)$')
id_cmd='cat /etc/machine-id; ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub | cut -d" " -f2; hostname'
id_a=$(vm_ssh a "$id_cmd")
# re_ok STRING REGEX DESC: like, on the whole (multi-line) string
re_ok "$id_a" "^[0-9a-f]{32}${nl}SHA256:[^ ]+${nl}owlet\$" "a: machine-id, host key and hostname owlet"
re_ok "$id_b" "^[0-9a-f]{32}${nl}SHA256:[^ ]+${nl}owlet-b\$" "b: hostname from the system.hostname credential"
isnt_line() { [ "$(sed -n "$1p" <<<"$id_a")" != "$(sed -n "$1p" <<<"$id_b")" ]; }
isnt_line 1
ok $? "the two instances have different machine-ids"
isnt_line 2
ok $? "... and different SSH host keys"

# --- the running system ----------------------------------------------------
is "$(vm_ssh a 'cat /proc/1/comm')" systemd "PID 1 is systemd"
is "$(vm_ssh a 'systemctl is-system-running --wait')" running "systemctl is-system-running: running"
is "$(vm_ssh a 'systemctl --failed --no-legend --plain')" "" "no failed unit"
is "$(vm_ssh a 'cat /proc/cmdline' | grep -o 'console=[^ ]*' | tr '\n' ' ')" \
    "console=tty0 console=ttyS0,115200 " "screen and serial console on the kernel command line"
grown=$(vm_ssh a 'lsblk -bnro SIZE,MOUNTPOINTS | awk "\$2 == \"/\" { print \$1 }"; df -B1 --output=size / | tail -n 1')
part=$(sed -n 1p <<<"$grown") fs=$(sed -n 2p <<<"$grown")
[ "${part:-0}" -gt $((2700 * 1048576)) ] && [ "${fs:-0}" -gt $((2600 * 1048576)) ]
ok $? "root partition and ext4 grown to a 3G disk at first boot (partition $part, fs $fs bytes)"

vm_no_setuid a
out=$(vm_ssh a 'control --check; echo "rc=$?"')
like "$out" 'rc=0$' "control --check: no drift"
# Every key of control's sysctl file, read back from /proc/sys: in root's
# shell (bash) alone, as a fork per key takes half a minute under TCG
# (dash would not do: its read takes a byte per read(2), and a file like
# ping_group_range answers only the first).
sysctls=$(vm_ssh a 'n=0; for f in /etc/sysctl.d/*control*.conf; do
	while IFS= read -r l; do
		case $l in "#"* | "") continue ;; esac
		set -f; set -- ${l%%=*}; k=$1; set -- ${l#*=}; v=$*; set +f
		# a key with "*" (network: every interface) is each file it matches
		for p in /proc/sys/${k//.//}; do
			live=; read -r live < "$p"; set -f; set -- $live; live=$*; set +f
			n=$((n + 1))
			[ "$live" = "$v" ] || echo "DRIFT $p: file $v, live $live"
		done
	done < "$f"
done; echo "keys=$n"')
like "$sysctls" '^keys=[1-9][0-9]*$' "every sysctl control sets reads back from /proc/sys ($(tail -n 1 <<<"$sysctls"))"

# --- kernel and system hardening (issue 17) -----------------------------------
# Every token of /etc/kernel/cmdline (the boot parameter facilities) is on
# the running kernel's command line, and control shows no next-boot note.
out=$(vm_ssh a 'n=0; for t in $(cat /etc/kernel/cmdline); do n=$((n + 1));
	case " $(cat /proc/cmdline) " in *" $t "*) ;; *) echo "MISSING $t" ;; esac; done
	echo "tokens=$n"; control | grep -c next-boot')
re_ok "$out" "^tokens=[1-9][0-9]*${nl}0\$" "/proc/cmdline holds every token of /etc/kernel/cmdline, no next-boot note ($(head -n 1 <<<"$out"))"
out=$(vm_ssh a 'g=$(getent group proc | cut -d: -f3); echo "gid=$g"
	findmnt -rno FSTYPE,OPTIONS /proc; findmnt -rno FSTYPE,OPTIONS /tmp; findmnt -rno FSTYPE,OPTIONS /dev/shm
	systemctl show -P SupplementaryGroups systemd-logind.service')
gid=$(sed -n 's/^gid=//p' <<<"$out")
[[ $(sed -n 2p <<<"$out") =~ ^proc\ .*hidepid=invisible && $(sed -n 2p <<<"$out") =~ gid=$gid(,|$) ]]
ok $? "/proc mounted hidepid=invisible,gid=proc ($(sed -n 2p <<<"$out"))"
for n in 3:/tmp 4:/dev/shm; do
	o=$(sed -n "${n%%:*}p" <<<"$out")
	[[ $o =~ ^tmpfs\  && ,${o#* }, =~ ,nosuid, && ,${o#* }, =~ ,nodev, && ,${o#* }, =~ ,noexec, ]]
	ok $? "${n#*:}: tmpfs nosuid,nodev,noexec ($o)"
done
# (the image has no D-Bus, so logind starts only where one is installed)
is "$(sed -n 5p <<<"$out")" proc "systemd-logind would run with group proc (its drop-in)"

# AppArmor, as on a default Debian system: the kernel's LSM on, Debian's
# profiles loaded (apparmor.service), some of them enforcing.
out=$(vm_ssh a 'cat /sys/module/apparmor/parameters/enabled; systemctl is-active apparmor.service
	grep -c "(enforce)" /sys/kernel/security/apparmor/profiles')
re_ok "$out" "^Y${nl}active${nl}[1-9][0-9]*\$" "AppArmor enabled, Debian's profiles loaded ($(tail -n 1 <<<"$out") enforcing)"

# --- seal verify of the live root (before the test changes anything) -------
vm_ssh a 'mkdir -p /run/owlet-test'
for f in owlet-bookworm.disk.mtree owlet-bookworm.disk.mtree.minisig owlet.pub; do
	vm_ssh a "cat > /run/owlet-test/$f" < "$B/image/$f"
done
vm_seal_check a "the disk's signed spec" /run/owlet-test/owlet.pub \
    /run/owlet-test/owlet-bookworm.disk.mtree.minisig /run/owlet-test/owlet-bookworm.disk.mtree

# --- a user ------------------------------------------------------------------
vm_ssh a "useradd -m -s /bin/bash alice && printf 'alice:%s\n' '$P1' | chpasswd >/dev/null"
ok $? "useradd alice, chpasswd"
out=$(vm_ssh a 'runuser -u alice -- ping -c1 -W5 127.0.0.1 >/dev/null && echo lo;
	a=$(hostname -I | cut -d" " -f1); runuser -u alice -- ping -c1 -W5 "$a" >/dev/null && echo "$a"')
re_ok "$out" "^lo${nl}10\\.0\\.2\\.[0-9]+\$" "alice pings 127.0.0.1 and the VM's DHCP address without set-uid ($(tail -n 1 <<<"$out"))"
is "$(vm_ssh_pw a alice "$P1" 'id -un')" alice "alice logs in over SSH with her password (pam_tcb)"

out=$(vm_pty_passwd a alice "$P1" "$WEAK" 2>&1)
rc=$?
isnt() { [ "$1" != "$2" ]; ok $? "$3"; }
isnt "$rc" 0 "passwd on an SSH terminal refuses a weak new password"
like "$out" "Weak password" "... with passwdqc's reason"
out=$(vm_pty_passwd a alice "$P1" "$P2" 2>&1)
ok $? "passwd on an SSH terminal changes alice's password"
like "$out" "updated successfully" "... and says so"
is "$(vm_ssh_pw a alice "$P2" 'id -un')" alice "alice logs in with the new password"
vm_ssh_pw a alice "$P1" true </dev/null >/dev/null 2>&1
isnt $? 0 "... and no longer with the old one"

# As alice: Owl's restrictions, as the kernel enforces them now.
out=$(vm_ssh a 'runuser -u alice -- sh -c "test -e /proc/1 && echo pid1-visible
	for d in /proc/[0-9]*; do stat -c %U \$d; done 2>/dev/null | sort | uniq -c"')
re_ok "$out" "^ *[0-9]+ alice\$" "alice sees only her own processes in /proc, not pid 1 (hidepid=invisible: $(tr -s ' ' <<<"$out"))"
out=$(vm_ssh a 'runuser -u alice -- dmesg >/dev/null 2>&1; echo "dmesg=$?"
	runuser -u alice -- ln /etc/passwd /home/alice/passwd-link 2>&1; echo "ln=$?"
	p=$(runuser -u alice -- sh -c "sleep 120 >/dev/null 2>&1 & echo \$!")
	runuser -u alice -- sh -c "exec 3</proc/$p/mem" 2>/dev/null; echo "ptrace=$?"
	runuser -u alice -- sh -c "sleep 120 >/dev/null 2>&1 & c=\$!; exec 3</proc/\$c/mem && echo child-ok; kill \$c"
	kill "$p"')
like "$out" '^dmesg=[1-9]' "alice: dmesg is refused (kernel.dmesg_restrict)"
like "$out" 'Operation not permitted' "alice: a hard link to root's /etc/passwd is refused (fs.protected_hardlinks)"
like "$out" '^ln=[1-9]' "... failing"
like "$out" '^ptrace=[1-9]' "alice: ptrace access to her own non-child process is refused (Yama ptrace_scope 1)"
like "$out" '^child-ok$' "... and allowed to her own child"
# root's "*" is not modifiable through PAM (pam_tcb, as Owl's): owlet-setup
vm_ssh a "printf '%s\n%s\n' '$P1' '$P1' | owlet-setup --stdin root-password >/dev/null"
ok $? "root gets a password (owlet-setup root-password)"
vm_ssh_pw a root "$P1" true </dev/null >/dev/null 2>&1
isnt $? 0 "a root login by password over SSH is refused (control sshd: root by key only)"
vm_ssh a 'passwd -l root >/dev/null'
out=$(vm_ssh a 'sshd -T | grep -E "^(permitrootlogin|allowtcpforwarding|allowagentforwarding|x11forwarding|maxauthtries) "' | sort | tr '\n' ' ')
is "$out" "allowagentforwarding no allowtcpforwarding no maxauthtries 3 permitrootlogin without-password x11forwarding no " \
    "sshd -T: root by key only, no forwarding, 3 tries"

tag=owlet-vm-$$
vm_ssh_pw a alice "$P2" "logger -t $tag hello" </dev/null
uid=$(vm_ssh a 'id -u alice')
j=$(vm_ssh a "journalctl -t $tag -o verbose --no-pager | grep -E '^ *_UID='")
like "$j" "^ *_UID=$uid\$" "journald records alice's uid ($uid) for her logger line"

# --- a set-uid package through dpkg ------------------------------------------
if [ -n "$sudo_deb" ]; then
	vm_ssh a 'cat > /run/owlet-test/sudo.deb' < "$sudo_deb"
	out=$(vm_ssh a 'dpkg -i /run/owlet-test/sudo.deb >/dev/null 2>&1; echo "rc=$?"; stat -c "%a %U:%G" /usr/bin/sudo; find / -xdev -perm /4000 -print')
	re_ok "$out" "^rc=0${nl}[0-7]+ root:root\$" "dpkg -i of Debian's sudo leaves no set-uid file (the profile's state holds through dpkg): $(sed -n 2p <<<"$out")"
	is "$(vm_ssh a 'dpkg -L sudo | grep -E "/LC_MESSAGES/|^/usr/share/man/man8/sudo.8" | while read -r f; do [ -e "$f" ] && echo "$f"; done')" \
	    /usr/share/man/man8/sudo.8.gz "dpkg left out sudo's message catalogues, not its English manual page"
else
	ok 1 "apt-get download sudo on the host (for the dpkg check)"
fi

# --- reboot --------------------------------------------------------------------
vm_stop a
ok $? "a powers off"
vm_boot a "$OWLET_DISK" && vm_wait_ssh a
ok $? "a boots again (same host key: ssh checks it against the first boot's)"
diag "boot to SSH after a reboot: $VM_BOOT_SECONDS s (first boot $boot_a s)"
is "$(vm_ssh a "$id_cmd")" "$id_a" "machine-id, host key and hostname kept across the reboot"
is "$(vm_ssh_pw a alice "$P2" 'id -un')" alice "alice's new password still works"
out=$(vm_ssh a 'control --check; echo "rc=$?"; find / -xdev -perm /4000 -print')
like "$out" 'rc=0$' "control --check clean after the reboot, no set-uid file"
# Two boot parameter switches in a row: the boot entry follows both
# (owlet-esp-update.path), then the hardened line again.
entry_follows='for i in $(seq 60); do
	o=$(tr -s " \n" "  " < /etc/kernel/cmdline | sed "s/ *\$//")
	grep -qsxF "options $o" /boot/efi/loader/entries/owlet-*.conf && { echo follows; exit 0; }
	sleep 1; done; grep -h ^options /boot/efi/loader/entries/owlet-*.conf'
out=$(vm_ssh a "control bootparams debian && control iommu debian && control | grep -c next-boot; $entry_follows" 2>/dev/null)
re_ok "$out" "^2${nl}follows\$" "control bootparams debian, iommu debian: next-boot, the boot entry follows both"
# A switch that systemd does not see as a change (made while the path
# unit does not watch, as while esp-update runs): control's flag alone
# brings the entry up to date once the unit watches again.
out=$(vm_ssh a "systemctl stop owlet-esp-update.path && control pti on && systemctl start owlet-esp-update.path && ($entry_follows); ls -A /run/owlet" 2>/dev/null)
is "$out" follows "a switch while the path unit does not watch: the entry follows (control's flag, taken)"
out=$(vm_ssh a "control bootparams hardened && control iommu strict && control pti auto && control | grep -c next-boot; $entry_follows" 2>/dev/null)
re_ok "$out" "^0${nl}follows\$" "... and back to hardened, strict, pti auto: the entry is the running line again"
# (no second power-off: vm_cleanup kills the VM, whose overlay goes too)
done_testing
