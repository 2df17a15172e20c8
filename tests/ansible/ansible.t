#!/bin/bash
# contrib/ansible: the owlet role run by ansible-playbook (site.yml) against
# two hosts, h1 and h2, each a private copy (overlayfs) of the Debian base
# root with python3 and python3-apt added, reached through the chroot
# connection plugin (community.general.chroot).  Its chroot program is
# image/chroot.sh (fresh /proc, /dev, /run, /tmp and pid namespace for
# every command), entered in a network namespace of the host's own, so a
# sysctl that control sets (ping_group_range) belongs to that host.  The
# whole test runs in private mount and network namespaces: nothing is
# mounted in the machine's namespace, no sysctl of the machine changes,
# and ansible's files on the controller are under $T.
#   run 1 installs the .debs (apt deb=), applies owlet's profile plus
#     owlet_facilities (passwd tcb converts), deploys the key, makes the
#     seal baselines; control --check is clean on both; both "clean";
#   run 2, on h1 only (the hosts are alike: one shows idempotence at half
#     the cost), changes nothing (PLAY RECAP changed=0);
#   the baselines are signed on the controller; on h2 chfn is made
#     set-uid, /etc/pam.d/chfn edited and a set-uid file added;
#   run 3 does not fail; its report says "clean" for h1 (now verified
#     with the signature) and lists for h2 exactly the three drifts;
#   run 4, chfn set-uid again, with --check and owlet_fail_on_drift=true:
#     h2 fails with its drift and the switch it would make, nothing changes;
#   run 5, on h1 only, with the packages of a newer version upgrades it
#     (all six together through apt-get), keeping every state; h2 is
#     left as it was.
# KEEPLOG=DIR keeps the output of each ansible-playbook run in DIR.
. "$(dirname "$0")/../lib/root.sh"
. "$(dirname "$0")/../lib/image.sh"
need_root
[ -f "$B/sanitize" ] &&
	skip_all "make deb builds its own packages; nothing sanitized runs here"
command -v ansible-playbook >/dev/null || skip_all "ansible missing (make deps)"
# (ansible's files in a temp dir, not in ~/.ansible)
_h=$(mktemp -d)
HOME=$_h ANSIBLE_LOCAL_TEMP=$_h ansible-doc -t connection community.general.chroot \
    >/dev/null 2>&1
_rc=$?
rm -rf "$_h"
[ $_rc = 0 ] ||
	skip_all "no community.general.chroot connection plugin (Debian's ansible package)"
command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null ||
	skip_all "dpkg-dev or debhelper missing (make deps)"
[ -x "$B/bin/seal" ] || skip_all "build first (make all): the controller signs with \$B/bin/seal"

# Outside the namespaces (the network is needed once, to fetch the .debs
# of python3, python3-apt and libsodium23 into $B/cache/debs and Debian's
# shadow source into $B/cache/apt).
if [ -z "${OWLET_IN_NS:-}" ]; then
	need_base
	tmpdir
	if ! base_debs "$T/pydebs" python3 python3-apt libsodium23 2>"$T/pydebs.err"; then
		ok 1 "the .debs of python3, python3-apt and libsodium23 for the hosts"
		diag "$(cat "$T/pydebs.err")"
		done_testing
	fi
	# Debian's shadow source for owlet-shadow-tcb, which make deb builds
	# (in the namespace below, without a network)
	if ! B=$B bash "$TOP/tests/compat/shadow-utils.sh" --fetch >/dev/null 2>"$T/fetch.err"; then
		ok 1 "Debian's shadow source package for owlet-shadow-tcb"
		diag "$(cat "$T/fetch.err")"
		done_testing
	fi
	trap - EXIT
	exec 9</proc/self/ns/net	# this machine's network namespace, to look at
	exec env OWLET_IN_NS=1 T="$T" unshare -m -n --propagation private -- "$0" "$@"
fi
H=$T/hosts
cleanup() {
	for h in h1 h2; do umount -l "$H/$h" 2>/dev/null; umount "$T/net/$h" 2>/dev/null; done
	umount -l "$T/prep/mnt" 2>/dev/null; umount -l "$T/prep" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
t0=$(date +%s)

# --- the packages and the hosts -------------------------------------------------
need_debs "$T/debs"
# the files the machine's own PAM and NSS depend on, to compare at the end
etc_sum() { cat /etc/nsswitch.conf /etc/login.defs /etc/pam.d/common-* 2>/dev/null | md5sum; }
etc0=$(etc_sum)
# the machine's own ping_group_range (fd 9: its network namespace)
machine_range() { nsenter --net=/proc/self/fd/9 cat /proc/sys/net/ipv4/ping_group_range; }
gr0=$(machine_range)

# prep: the base with python3, python3-apt, libsodium23 and a user alice;
# h1 and h2 are overlays of it
if ! base_overlay "$T/prep" || ! mount --bind "$T/pydebs" "$T/prep/mnt"; then
	ok 1 "an overlay of the base root"
	done_testing
fi
out=$(CHROOT_UNSHARE=-n chroot_run "$T/prep" /bin/sh -c \
    'apt-get install -qq --no-install-recommends /mnt/*.deb >/dev/null && useradd -m -s /bin/sh alice &&
    echo "alice:Corr3ct-Horse-Battery-Staple" | chpasswd && echo prep-ok' 2>&1)
like "$out" prep-ok "python3, python3-apt, libsodium23 and a user in the hosts' lower layer"
umount "$T/prep/mnt"
mkdir -p "$T/net"
for h in h1 h2; do
	base_overlay "$H/$h" "$T/prep" && echo "$h" > "$H/$h/etc/hostname" &&
	    : > "$T/net/$h" && unshare --net="$T/net/$h" true ||
		{ ok 1 "host $h"; done_testing; }
done

# ansible_chroot_exe: image/chroot.sh in the host's network namespace
cat > "$T/chroot-exe" <<EOF
#!/bin/sh
CHROOT_NETNS=private exec nsenter --net="$T/net/\$(basename "\$1")" -- \
    sh "$TOP/image/chroot.sh" "\$@"
EOF
chmod 0755 "$T/chroot-exe"
# on HOST: run a shell script in the host as ansible does
on() { "$T/chroot-exe" "$H/$1" /bin/sh -c "$2" 2>&1; }

cat > "$T/inventory" <<EOF
[owlet]
h1 ansible_host=$H/h1
h2 ansible_host=$H/h2

[owlet:vars]
ansible_connection=community.general.chroot
ansible_chroot_exe=$T/chroot-exe
ansible_python_interpreter=/usr/bin/python3
owlet_deb_dir=$T/debs
owlet_seal_dir=$T/seal
owlet_seal_pubkey_file=$T/key/owlet.pub
owlet_facilities={"passwd": "tcb", "ping": "dgramsocket", "su": "restricted", "crontab": "restricted"}
EOF
mkdir -p "$T/key" "$T/home"
: > "$T/ansible.cfg"	# none of the machine's or the work tree's
"$B/bin/seal" keygen -W -f -p "$T/key/owlet.pub" -s "$T/key/owlet.sec" >/dev/null 2>&1
ok $? "a seal key pair for the controller"

# play [ARGS...]: site.yml against both hosts; output in $T/play.N.
# stdin is /dev/null: ansible refuses a non-blocking stdin, and the one
# inherited from CI was left O_NONBLOCK by an earlier step (CI stop 23).
n=0
play() {
	n=$((n + 1))
	HOME=$T/home ANSIBLE_CONFIG=$T/ansible.cfg ANSIBLE_LOCAL_TEMP=$T/home/tmp \
	    ANSIBLE_NOCOLOR=1 ANSIBLE_PIPELINING=1 ANSIBLE_HOST_KEY_CHECKING=0 \
	    ansible-playbook -i "$T/inventory" "$TOP/contrib/ansible/site.yml" "$@" \
	    </dev/null >"$T/play.$n" 2>&1
	_rc=$?
	[ -z "${KEEPLOG:-}" ] || cp "$T/play.$n" "$KEEPLOG/"
	return $_rc
}
# recap HOST FIELD: FIELD=N of HOST in the PLAY RECAP of the last play
recap() {
	sed -n '/^PLAY RECAP/,$p' "$T/play.$n" |
	    sed -n "s/^$1 *:.* $2=\([0-9]*\).*/\1/p"
}
# report HOST: the lines of HOST's drift report in the last play
report() {
	awk -v h="$1" '/^TASK \[owlet : Report drift per host\]/ { on = 1; next }
	    on && /^TASK|^PLAY/ { on = 0 }
	    on && $0 ~ "^ok: \\[" h "\\]" { mine = 1; next }
	    on && /^ok: \[/ { mine = 0 }
	    on && mine && /^        "/ { sub(/^ *"/, ""); sub(/",?$/, ""); print }' "$T/play.$n"
}
show() { diag "$(tail -n 60 "$T/play.$n")"; }
# task_items TASK RESULT: how many items of TASK (its name) in the last
# play say RESULT (a regular expression: "changed: \[h1\]")
task_items() {
	awk -v t="TASK [owlet : $1]" 'index($0, t) == 1 { on = 1; next } /^TASK / { on = 0 } on' \
	    "$T/play.$n" | grep -c "^$2 => (item="
}

# --- run 1: converge ---------------------------------------------------------------
ta=$(date +%s)
play
rc=$?
ok $rc "run 1: ansible-playbook site.yml succeeds ($(($(date +%s) - ta)) s)"
[ $rc = 0 ] || show
is "$(recap h1 failed) $(recap h2 failed)" "0 0" "run 1: no task failed on h1 or h2"
c1=$(recap h1 changed) c2=$(recap h2 changed)
t "run 1: both hosts changed (h1 $c1, h2 $c2)" test "${c1:-0}" -gt 0 -a "${c2:-0}" -gt 0
for h in h1 h2; do
	out=$(on $h 'dpkg-query -W -f="\${Package} \${Status}\n" libtcb0 owlet-shadow-tcb libnss-tcb libpam-tcb owlet-control seal |
	    grep -c "ok installed$"; control passwd; control ping; control su;
	    control crontab; control chfn; control --check && echo check-clean;
	    test -s /etc/tcb/alice/shadow && ! test -e /etc/shadow && echo tcb-ok;
	    stat -c "%a %U:%G" /usr/bin/passwd; cat /proc/sys/net/ipv4/ping_group_range
	    useradd -m probe && test -s /etc/tcb/probe/shadow && echo useradd-tcb-ok; userdel -r probe')
	is "$(printf '%s\n' "$out" | head -n 6 | tr '\n' ' ')" \
	    "6 tcb dgramsocket restricted restricted restricted " \
	    "$h: 6 packages; passwd tcb, ping dgramsocket, su and crontab restricted (asked), chfn restricted (owlet's default)"
	like "$out" check-clean "$h: control --check is clean"
	like "$out" tcb-ok "$h: converted: alice's hash in /etc/tcb, no /etc/shadow"
	like "$out" useradd-tcb-ok "$h: useradd (owlet-shadow-tcb's) makes /etc/tcb/USER"
	like "$out" "2711 root:shadow" "$h: passwd set-gid shadow"
	gid=$(awk -F: '$1 == "_icmp" { print $3 }' "$H/$h/etc/group")
	like "$out" "^${gid}[[:space:]]+${gid}$" "$h: ping_group_range is _icmp's, in $h's own network namespace"
	t "$h: /etc/owlet/seal.pub is the controller's key" cmp "$H/$h/etc/owlet/seal.pub" "$T/key/owlet.pub"
	is "$(ls "$T/seal/$h" 2>/dev/null | tr '\n' ' ')" "etc-pam.d.mtree usr-bin.mtree usr-sbin.mtree " \
	    "$h: its seal baselines are kept on the controller"
	like "$(report $h | head -n 1)" "^$h: clean " "run 1: $h reported clean"
done
like "$(report h1 | head -n 1)" "facilities wanted, [1-9][0-9]* switched, 3 sealed paths" \
    "run 1: the report counts the switches and sealed paths"
is "$(grep -c 'WARNING' "$T/play.$n")" 0 "run 1: ansible printed no warning"
is "$(machine_range)" "$gr0" "this machine's ping_group_range is unchanged"

# --- run 2: idempotence --------------------------------------------------------------
play --limit h1
rc=$?
ok $rc "run 2 (h1): succeeds"
[ $rc = 0 ] || show
is "$(recap h1 changed) $(recap h1 failed)" "0 0" "run 2: PLAY RECAP changed=0 on h1, nothing failed"
is "$(report h1 | head -n 1 | cut -d' ' -f2)" clean "run 2: h1 reported clean"
[ "$(recap h1 changed)" = 0 ] || diag "$(grep -B3 '^changed:' "$T/play.$n" | head -n 40)"

# --- sign the baselines, plant drift on h2 -------------------------------------------
for f in "$T"/seal/h*/*.mtree; do
	"$B/bin/seal" sign -s "$T/key/owlet.sec" "$f" </dev/null >/dev/null 2>&1 || echo "$f"
done > "$T/unsigned"
is "$(cat "$T/unsigned")" "" "the controller signs the six baselines"
out=$(on h2 'chmod u+s /usr/bin/chfn && echo "# drift" >> /etc/pam.d/chfn &&
    install -m 4755 /bin/true /usr/local/bin/sneaky && echo planted')
like "$out" planted "drift planted on h2: chfn set-uid, /etc/pam.d/chfn edited, a set-uid file added"

# --- run 3: the drift report -----------------------------------------------------------
play
rc=$?
ok $rc "run 3: drift does not fail the play (owlet_fail_on_drift false)"
[ $rc = 0 ] || show
r1=$(report h1) r2=$(report h2)
like "$(printf '%s\n' "$r1" | head -n 1)" "^h1: clean " "run 3: h1 is clean"
is "$(printf '%s\n' "$r1" | grep -c .)" 1 "run 3: h1's report has no finding"
is "$(recap h1 changed)" 1 "run 3: h1's only change is one task..."
is "$(task_items 'Seal: copy their signatures' 'changed: \[h1\]')" 3 "... that copied the three signatures"
like "$(printf '%s\n' "$r2" | head -n 1)" "^h2: DRIFT " "run 3: h2 reports DRIFT"
like "$r2" "control: chfn configured restricted, found unknown \(before this run\)" \
    "h2: chfn out of its chosen state"
like "$r2" "switched: chfn unknown -> restricted" "h2: and switched back"
like "$r2" "seal /etc/pam.d \(signed\): /etc/pam.d/chfn changed sha256digest" \
    "h2: the edited /etc/pam.d/chfn (verified against the signed spec)"
like "$r2" "audit: /usr/local/bin/sneaky 4755 root:root has no facility" "h2: the new set-uid file"
is "$(printf '%s\n' "$r2" | grep -cv 'signed): /etc/pam.d/chfn changed size')" 5 \
    "h2: nothing else (verdict, 4 findings, size of chfn aside)"
[ "$(printf '%s\n' "$r2" | grep -cv 'signed): /etc/pam.d/chfn changed size')" = 5 ] || diag "$r2"
! grep -q 'seal /usr/bin (signed)' "$T/play.$n"
ok $? "no seal line for /usr/bin: chfn was switched back before seal verified it"
out=$(on h2 'stat -c %a /usr/bin/chfn; control --check && echo check-clean')
like "$out" "^700" "h2: chfn is 0700 again"

# --- run 4: --check, owlet_fail_on_drift ------------------------------------------------------
out=$(on h2 'chmod u+s /usr/bin/chfn && echo planted')
like "$out" planted "chfn made set-uid on h2 again"
play --check -e owlet_fail_on_drift=true
rc=$?
t "run 4: --check with owlet_fail_on_drift=true fails the play (rc $rc)" test "$rc" -ne 0
is "$(recap h1 failed) $(recap h2 failed)" "0 1" "run 4: h2 failed, h1 did not"
is "$(recap h1 changed) $(recap h2 changed)" "0 0" "run 4: nothing changed (check mode)"
r2=$(report h2)
like "$(printf '%s\n' "$r2" | head -n 1)" "^h2: DRIFT " "run 4: h2 reports its drift"
like "$r2" "control: chfn configured restricted, found unknown$" "run 4: chfn still out of its state"
like "$r2" "would switch: chfn unknown -> restricted" "run 4: and would be switched back"
like "$r2" "seal /usr/bin \(signed\): /usr/bin/chfn changed permissions \(0700, found 4700\)" \
    "run 4: seal sees chfn's mode too"
is "$(on h2 'stat -c %a /usr/bin/chfn')" 4700 "run 4: chfn left as it was"
like "$(report h1 | head -n 1)" "^h1: clean " "run 4: h1 clean"

# --- run 5: an upgrade -------------------------------------------------------------------
V1=$(dpkg-parsechangelog -l "$TOP/debian/changelog" -S Version)
V2=$DEB_NEXT
need_debs "$T/debs2" next
play --limit h1 -e owlet_deb_dir="$T/debs2"
rc=$?
ok $rc "run 5 (h1): owlet_deb_dir with version $V2: succeeds"
[ $rc = 0 ] || show
is "$(grep -A3 '^TASK \[owlet : Install or upgrade' "$T/play.$n" | grep -c '^changed: \[h1\]')" 1 \
    "run 5: h1's packages upgraded together through apt-get"
versions='dpkg-query -W -f="\${Version} \${db:Status-Status}\n" libtcb0 owlet-shadow-tcb libnss-tcb libpam-tcb owlet-control seal | sort -u'
out=$(on h1 "$versions; control passwd; control chfn; control --check && echo check-clean")
is "$(printf '%s\n' "$out" | tr '\n' ' ')" "$V2 installed tcb restricted check-clean " \
    "h1: all six at $V2, passwd tcb and chfn restricted kept, control --check clean"
is "$(on h2 "$versions")" "$V1 installed" "h2 (not in --limit): still at $V1"
is "$(report h1 | grep -c '^control:\|^audit:\|^switched:')" 0 "run 5: h1 reports no control or audit finding"

is "$(etc_sum)" "$etc0" "this machine's nsswitch.conf, login.defs and common-* are unchanged"
diag "runtime $(($(date +%s) - t0)) s"
done_testing
