# Helpers for the scripts that tests/system/*.t run INSIDE an overlay of
# the built image, with chroot_run and CHROOT_UNSHARE=-n (own mount, pid,
# uts, ipc and network namespaces: sshd and cron started here listen and
# die there).  Only the image's own programs are used.  The test copies
# this file into the overlay as $OUT/inside.sh, and its script (bash)
# begins with
#     . /var/tmp/owlet-system/inside.sh
# Results go to $OUT, a directory of the overlay, so that the test reads
# them from outside once chroot_run has returned (/tmp inside is a tmpfs
# of the chroot's own mount namespace, invisible from outside).
OUT=/var/tmp/owlet-system

# step NAME CMD...: run CMD (stdin as given), its stdout and stderr to
# $OUT/NAME.out, its exit status to $OUT/NAME.rc.
step() {
	_sn=$1; shift
	"$@" >"$OUT/$_sn.out" 2>&1
	echo $? >"$OUT/$_sn.rc"
}

# boot: what booting the image does before sshd and cron start, limited
# to this network namespace: SSH host keys (owlet-ssh-keygen.service),
# /run/sshd (tmpfiles.d), and the image's net.* keys (systemd-sysctl,
# for those only: ping_group_range, control network's; the other keys of
# sysctl.d are not per network namespace and would reach the host's
# kernel).  The
# client's known_hosts names the new host key for ports 22 and 2222.
boot() {
	# the unit's own command ($$ is systemd's quoting of $)
	_kg=$(sed -n 's/^ExecStart=//p' /etc/systemd/system/owlet-ssh-keygen.service |
	    sed 's/\$\$/$/g')
	eval "$_kg" >/dev/null || return 1
	[ -d /run/sshd ] || mkdir -m 0755 /run/sshd || return 1
	/lib/systemd/systemd-sysctl --prefix=net. || return 1
	_k=$(cat /etc/ssh/ssh_host_ed25519_key.pub) || return 1
	printf '127.0.0.1 %s\n[127.0.0.1]:2222 %s\n' "$_k" "$_k" >"$OUT/known_hosts"
}

# start_sshd [OPTION...]: the image's sshd with its own configuration on
# 127.0.0.1 port 22, logging to /var/log/auth.log; OPTIONs are added
# (-o Port=2222 -E FILE for a second instance).  Returns once it listens.
start_sshd() {
	/usr/sbin/sshd -E /var/log/auth.log -o ListenAddress=127.0.0.1 "$@"
}

# cssh ARG...: the image's ssh client, strict about the host key (known
# from boot), never asking anything on a terminal.
cssh() {
	ssh -o UserKnownHostsFile="$OUT/known_hosts" -o StrictHostKeyChecking=yes \
	    -o GlobalKnownHostsFile=/dev/null -o ConnectTimeout=10 -o LogLevel=ERROR "$@"
}

# ssh_pw PASS [SSH-ARG...] USER@HOST [CMD]: log in with a password through
# keyboard-interactive (PAM).  ssh asks the PAM prompts through SSH_ASKPASS
# (SSH_ASKPASS_REQUIRE=force: even without a terminal or a display),
# answered with PASS; every prompt is logged to $OUT/askpass.log.  One
# prompt is allowed, so a wrong password fails at once.  stdin goes to CMD.
ssh_pw() {
	( umask 077; printf '%s\n' "$1" >"$OUT/askpass.pw" )
	shift
	SSH_ASKPASS=$OUT/askpass SSH_ASKPASS_REQUIRE=force setsid -w \
	    ssh -o UserKnownHostsFile="$OUT/known_hosts" -o StrictHostKeyChecking=yes \
	    -o GlobalKnownHostsFile=/dev/null -o ConnectTimeout=10 -o LogLevel=ERROR \
	    -o PreferredAuthentications=keyboard-interactive -o PubkeyAuthentication=no \
	    -o NumberOfPasswordPrompts=1 "$@"
}

# ssh_key KEY [SSH-ARG...] USER@HOST [CMD]: log in with the key KEY only.
ssh_key() {
	_kf=$1; shift
	cssh -o BatchMode=yes -o IdentitiesOnly=yes -o PreferredAuthentications=publickey \
	    -i "$_kf" "$@"
}

[ -d "$OUT" ] || mkdir -m 0700 "$OUT"
cat >"$OUT/askpass" <<'EOF'
#!/bin/sh
printf '%s\n' "$*" >>/var/tmp/owlet-system/askpass.log
cat /var/tmp/owlet-system/askpass.pw
EOF
chmod 0700 "$OUT/askpass"
