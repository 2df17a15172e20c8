#!/bin/bash
# The privilege matrix (issue 8): every set-ID program and helper of the
# owlet profile, run by an unprivileged user who controls everything a
# local user controls, must neither gain nor leak anything and must fail
# cleanly.
#
# Programs: tcb_chkpwd (set-gid shadow, in the 0710 chkpwd dir), Debian's
# passwd and owlet's chage (set-gid shadow) on a private tcb root with
# owlet staged over the system dirs (in_sys); then, in an overlay of the
# built image (make image), every set-ID file the image has: the same
# three as the image ships them (passwd is shadow-utils built with tcb),
# ping (set-gid _icmp), crontab (set-gid crontab) and ssh-agent (set-gid
# _ssh); a set-ID file the matrix does not cover fails the test.
#
# Conditions (tests/bin/hostile_exec builds them; the user's own execve
# runs the program, no capability is left):
#   env       LD_PRELOAD / LD_AUDIT / LD_LIBRARY_PATH naming a library that
#             writes a marker file when loaded (also under the names of
#             NSS modules glibc dlopens), LD_DEBUG(_OUTPUT), LD_SHOW_AUXV,
#             GCONV_PATH, LOCPATH, NLSPATH, TZ and HOSTALIASES pointing at
#             /etc/tcb/root/shadow, MALLOC_*, junk GLIBC_TUNABLES, PATH with
#             a dir of marker programs first (sh, editor, sendmail, ...),
#             IFS=/, USER=root, ENV/BASH_ENV, SHELL/EDITOR/PAGER; cwd and
#             HOME a dir of symlinks to /etc/tcb/root/shadow and friends
#   tunables  GLIBC_TUNABLES in the shape of CVE-2023-4911
#   argv      ... and argv filled to 16 KiB below ARG_MAX
#   envbig    ... and the environment filled to 16 KiB below ARG_MAX
#   fds       ... and fds 0, 1, 2 closed
#   fsize     ... and RLIMIT_FSIZE 1024 (ulimit -f 1)
#   nofile    ... and RLIMIT_NOFILE 4 (one fd beyond stdio)
#   stop      ... and SIGSTOP, a look from a process of the same user
#             (/proc/PID/mem, environ, fd/, ptrace), SIGCONT
#   kill      ... and SIGKILL 50 ms in
# Each run is checked for: a clean exit (or the signal we sent) of the
# expected kind; no marker from the library and no marker program run
# with a privileged group; no hash, secret or loader output on stdout and
# stderr; password, group, tcb (and cron spool) files byte-identical
# (owner, mode, inode, mtime); no file created with another owner or group
# where the user points, no core dump.  Positive controls show that each
# probe fires on a program that is not set-ID.  Then the runs meant to
# change something: a password change under the hostile environment,
# with RLIMIT_FSIZE below one shadow line, killed at many instants (the
# user's entry is always the old or the new one), crontab -e with a
# hostile editor.  Known failures are TAP TODO lines naming the cause.
# PM_KEEP=1 keeps the temp dir (its path is printed) for inspection.
. "$(dirname "$0")/../lib/root.sh"
. "$(dirname "$0")/../lib/image.sh"
need_root
HX0=$B/tests/bin/hostile_exec
[ -x "$HX0" ] && [ -x "$B/tests/bin/mkhash" ] ||
	skip_all "test programs not built (run make check)"
command -v cc >/dev/null || skip_all "no C compiler for the marker library"

# Part 2 mounts an overlay of the image: the whole test runs in a private
# mount namespace.
if [ -z "${PM_IN_NS:-}" ]; then
	exec env PM_IN_NS=1 unshare -m --propagation private -- "$0" "$@"
fi
tmpdir
trap 'umount -l "$T/img" 2>/dev/null; [ -n "${PM_KEEP:-}" ] || rm -rf "$T"' EXIT
[ -z "${PM_KEEP:-}" ] || diag "PM_KEEP: outputs kept in $T (image runs: $T/overlay.*/upper/pm)"

# A TODO line (TAP): a known failure, reported without failing the test.
todo() {	# todo STATUS DESC REASON
	_tap_n=$((_tap_n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $_tap_n - $2 # TODO $3"
	else echo "not ok $_tap_n - $2 # TODO $3"; fi
}
field() { printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | tail -n 1; }

# --- the probes --------------------------------------------------------------

# The marker library: loaded by any means (preload, audit, a search path,
# dlopen), its constructor writes MARKDIR/ctor.PID with the process's
# executable and ids; as an audit library, MARKDIR/audit.PID.
cat > "$T/pmevil.c" <<'EOF'
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
static void mark(const char *how)
{
	char path[4096], buf[8192], exe[1024], *p, *nl;
	ssize_t n;
	int fd, in;

	snprintf(path, sizeof(path), "%s/%s.%d", MARKDIR, how, (int)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0)
		return;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	dprintf(fd, "exe: %s\n", exe);
	in = open("/proc/self/status", O_RDONLY);
	n = in >= 0 ? read(in, buf, sizeof(buf) - 1) : -1;
	buf[n > 0 ? n : 0] = '\0';
	for (p = buf; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			break;
		if (!strncmp(p, "Uid:", 4) || !strncmp(p, "Gid:", 4) ||
		    !strncmp(p, "Groups:", 7))
			(void)!write(fd, p, (size_t)(nl - p + 1));
	}
	close(fd);
}
__attribute__((constructor)) static void pm_ctor(void) { mark("ctor"); }
unsigned int la_version(unsigned int v) { mark("audit"); return v; }
EOF

# setup_w W MARKDIR: the probe tree under W as seen from outside, for
# paths MARKDIR (the same tree as the programs under test see it):
#   W/bin      hostile_exec (runnable by the test users)
#   W/evil     the marker library as pmevil.so, libpmevil.so and the names
#              of NSS modules glibc dlopens; gconv-modules naming it
#   W/hostile  marker programs under common names (found through PATH)
#   W/home     the user's HOME and cwd: symlinks to secrets
#   W/mark     where markers land (1777)
#   W/out      one dir per run
setup_w() {
	local w=$1 md=$2 n
	mkdir -p "$w/bin" "$w/evil" "$w/hostile" "$w/home" "$w/mark" "$w/out" "$w/in"
	chmod 0755 "$w" "$w/bin" "$w/evil" "$w/hostile" "$w/out" "$w/in"
	chmod 1777 "$w/mark"
	cp "$HX0" "$w/bin/hostile_exec"
	cc -shared -fPIC -O2 -DMARKDIR="\"$md/mark\"" -o "$w/evil/pmevil.so" "$T/pmevil.c" ||
		return 1
	for n in libpmevil.so libnss_tcb.so.2 libnss_systemd.so.2 libnss_compat.so.2 \
	    libnss_db.so.2 libnss_dns.so.2 libnss_myhostname.so.2 libnss_resolve.so.2 \
	    libnss_mymachines.so.2 libnss_nis.so.2 PMEVIL.so; do
		cp "$w/evil/pmevil.so" "$w/evil/$n"
	done
	printf 'module INTERNAL PMEVIL// PMEVIL 1\nmodule PMEVIL// INTERNAL PMEVIL 1\nalias UTF-8// PMEVIL//\nalias ANSI_X3.4-1968// PMEVIL//\n' \
	    > "$w/evil/gconv-modules"
	cat > "$w/hostile/marker" <<EOF
#!/bin/sh
# A program a hostile PATH or EDITOR makes a privileged program run:
# records its name, arguments and ids.
n=\${0##*/}
{ echo "exe: \$0 \$*"; /bin/grep -E '^(Uid|Gid|Groups):' /proc/\$\$/status; } \\
    > "$md/mark/path.\$n.\$\$" 2>/dev/null
case \$n in
editor) [ -z "\$1" ] || { sleep 1.1; echo '* * * * * echo PMCRON' >> "\$1"; } ;;
editor-swap) [ -z "\$1" ] || { rm -f "\$1"; ln -s /var/spool/cron/crontabs/root "\$1"; } ;;
esac
exit 0
EOF
	chmod 0755 "$w/hostile/marker"
	for n in sh bash dash true false id cat ls env editor editor-swap vi vim \
	    nano sensible-editor select-editor pager less more sendmail mail \
	    unix_chkpwd tcb_chkpwd chage passwd nscd logger run-parts xauth \
	    ssh-askpass getent ping crontab ssh-agent env.sh; do
		ln -s marker "$w/hostile/$n"
	done
	# cwd and HOME: links to what the user must not read or write.
	ln -s /etc/tcb/root/shadow "$w/home/link-root-shadow"
	ln -s /etc/tcb/root/shadow "$w/home/.pam_environment"
	ln -s /etc/tcb/root/shadow "$w/home/.selected_editor"
	ln -s /etc/tcb "$w/home/link-tcb"
	ln -s /etc/shadow "$w/home/link-etc-shadow"
	ln -s /etc/tcb/root/shadow "$w/home/mtrace"
	ln -s /etc/tcb/root/shadow "$w/home/core"
	ln -s /var/spool/cron/crontabs/root "$w/home/link-root-crontab"
	ln -s /etc/tcb/root/shadow.lock "$w/home/lddebug"
}

# hostile_env W MARKDIR-BASE [PRELOAD-PREFIX]: the environment of every run
# (W as the programs see it).
hostile_env() {
	local w=$1 pre=${2:-}
	cat <<EOF
LD_PRELOAD=$pre$w/evil/pmevil.so:libpmevil.so
LD_AUDIT=$w/evil/pmevil.so
LD_LIBRARY_PATH=$w/evil
LD_DEBUG=all
LD_DEBUG_OUTPUT=$w/home/lddebug
LD_SHOW_AUXV=1
GCONV_PATH=$w/evil
CHARSET=PMEVIL
LOCPATH=$w/evil
NLSPATH=$w/evil/%N
LANG=C
TZ=/etc/tcb/root/shadow
TZDIR=/etc/tcb/root
TMPDIR=$w/home
HOSTALIASES=$w/home/link-root-shadow
RESOLV_HOST_CONF=$w/home/link-root-shadow
RES_OPTIONS=debug ndots:15
LOCALDOMAIN=evil.invalid
MALLOC_CHECK_=3
MALLOC_PERTURB_=165
MALLOC_TRACE=$w/home/mtrace
GLIBC_TUNABLES=glibc.malloc.check=3:glibc.rtld.nns=64:glibc.malloc.tcache_count=99999:junk.junk=junk:=:glibc.cpu.hwcaps=-AVX2_Usable
PATH=$w/hostile:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
IFS=/
HOME=$w/home
USER=root
LOGNAME=root
SHELL=$w/hostile/sh
EDITOR=$w/hostile/editor
VISUAL=$w/hostile/editor
PAGER=$w/hostile/pager
ENV=$w/hostile/env.sh
BASH_ENV=$w/hostile/env.sh
POSIXLY_CORRECT=1
SSH_ASKPASS=$w/hostile/ssh-askpass
SSH_ASKPASS_REQUIRE=force
DISPLAY=:0
EOF
	# Sanitizer build: the runtime by bare name first (stage_sys) and
	# the sanitizers' own settings.
	[ -z "${ASAN_OPTIONS:-}" ] || echo "ASAN_OPTIONS=$ASAN_OPTIONS"
	[ -z "${UBSAN_OPTIONS:-}" ] || echo "UBSAN_OPTIONS=$UBSAN_OPTIONS"
	[ -z "${LSAN_OPTIONS:-}" ] || echo "LSAN_OPTIONS=$LSAN_OPTIONS"
}
# The tunables string of CVE-2023-4911 ("Looney Tunables").
looney() {
	printf 'GLIBC_TUNABLES=glibc.malloc.mxfast=glibc.malloc.mxfast='
	head -c 3000 /dev/zero | tr '\0' A
	printf '\n'
}

# The driver: runs as root in the namespace (or chroot) the programs live
# in; for each row of ROWS (tab-separated: name, uid, gid, groups, probe
# options, program and arguments) it records the state before and after,
# runs the program as the user through hostile_exec, with cwd W/home,
# and collects markers, foreign files and core dumps.  A row "!sleep N"
# waits N seconds.
cat > "$T/driver.sh" <<'EOF'
#!/bin/bash
W=$1 ROWS=$2
manifest() {
	local f
	for f in /etc/passwd /etc/group /etc/gshadow /etc/shadow; do
		[ -e "$f" ] || continue
		stat -c '%n %F %a %u %g %h %s %i %Y' "$f"
		sha256sum < "$f"
	done
	# The guess gate's stamp (USER/shadow.gate, created and moved by a
	# password check) is state of the checkers, not of the accounts.
	find /etc/tcb $EXTRA_STATE ! -name shadow.gate \
	    -printf '%p %y %m %U %G %n %s %i\n' | sort
	find /etc/tcb $EXTRA_STATE -type f ! -name '*.lock' ! -name shadow.gate \
	    -printf '%p %T@\n' | sort
	find /etc/tcb $EXTRA_STATE -type f ! -name shadow.gate -exec sha256sum {} + | sort
}
while IFS='	' read -r name uid gid groups opts prog; do
	case $name in '' | '#'*) continue ;; '!sleep') sleep "$uid"; continue ;; esac
	d=$W/out/$name
	rm -rf "$d" "$W"/mark/*
	mkdir -p "$d"
	chown "$uid:$gid" "$d"
	manifest > "$d/before"
	touch "$d/stamp"
	sleep 0.01
	if [ "$groups" != - ]; then g=--groups=$groups; else g=--clear-groups; fi
	# shellcheck disable=SC2086 # options and arguments are words
	# stdout and stderr are pipes (as under a terminal or a PAM
	# conversation), so that RLIMIT_FSIZE bites on files only.
	mkfifo "$d/err.fifo"
	cat "$d/err.fifo" > "$d/err" &
	(cd "$W/home" && exec setpriv --reuid="$uid" --regid="$gid" "$g" -- \
	    "$W/bin/hostile_exec" -r "$d/report" $opts -- $prog) 2> "$d/err.fifo" |
	    cat > "$d/out"
	wait
	rm -f "$d/err.fifo"
	sleep 0.05	# what the program left behind finishes
	manifest > "$d/after"
	for f in "$W"/mark/*; do
		[ -e "$f" ] && { echo "== ${f##*/}"; cat "$f"; }
	done > "$d/marks"
	find "$W/home" "$W/mark" "$W/hostile" "$W/evil" "$W/out" $EXTRA_DIRS \
	    -mindepth 1 -newer "$d/stamp" \( ! -uid "$uid" -o ! -gid "$gid" \) \
	    ! -path "$d/out" ! -path "$d/err" ! -path "$d/before" ! -path "$d/after" \
	    ! -path "$d/marks" ! -path "$d/stamp" ! -path "$d/foreign" ! -path "$d/err.fifo" \
	    -printf '%p %U:%G %m\n' > "$d/foreign" 2>/dev/null
	find "$W" $EXTRA_DIRS -perm /6000 -printf '%p %U:%G %m set-ID\n' >> "$d/foreign" 2>/dev/null
	find "$W/home" -name 'core*' -type f > "$d/cores"
	[ -z "$ROW_HOOK" ] || "$ROW_HOOK" "$d"
done < "$ROWS"
EOF

# --- rows and their checks --------------------------------------------------
declare -A EXP PGID PGRP NOSTATE
# row FILE NAME EXPECT UID GID GROUPS OPTS PROG...: a run for the driver
# (GROUPS: supplementary groups, comma-separated, or "" for none).
# EXPECT: ok0 (exit 0: still does its job), fail (a non-zero exit, no
# signal), clean (any exit, no signal), killed (by our SIGKILL, or an exit
# before it), noexec (the user's execve fails with EACCES).
row() {
	local f=$1 n=$2
	EXP[$n]=$3 PGID[$n]=$5 PGRP[$n]=$6
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$2" "$4" "$5" "${6:--}" "$7" "${*:8}" >> "$f"
}
# scenario options for hostile_exec (W as the programs see it)
scen() {	# scen W NAME
	local w=$1 e="-E $1/in/env.hostile"
	case $2 in
	env) echo "$e" ;;
	tunables) echo "$e -E $w/in/env.looney" ;;
	argv) echo "$e -A max" ;;
	envbig) echo "$e -X max" ;;
	fds) echo "$e -c 012" ;;
	fsize) echo "$e -f 1024" ;;
	nofile) echo "$e -n 4" ;;
	stop) echo "$e -s 20:STOP -P 40 -s 300:CONT" ;;
	kill) echo "$e -s 50:KILL" ;;
	esac
}
SCENARIOS="env tunables argv envbig fds fsize nofile stop kill"

# privmarks DIR GID GROUPS: markers showing injected code, or a marker
# program run with a group other than the user's.
privmarks() {
	awk -v g="$2" -v grp=",${3#-},$2," '
	/^== / { f = $2; if (f ~ /^(ctor|audit)\./) print f " (injected code ran)"; next }
	/^Gid:/ { if ($2 != g || $3 != g || $4 != g || $5 != g)
		print f " gid " $2 "/" $3 "/" $4 "/" $5 }
	/^Groups:/ { for (i = 2; i <= NF; i++) if (index(grp, "," $i ",") == 0)
		print f " group " $i }' "$1/marks" | sort -u
}
# check O NAME: the five assertions of one run (outputs under O/NAME).
check() {
	local d=$1/$2 n=$2 exp=${EXP[$2]} rep st c bad leak what
	rep=$(cat "$d/report" 2>/dev/null)
	st=$(field status "$rep")
	touch "$d/out" "$d/err" "$d/marks" "$d/before" "$d/after" "$d/foreign" "$d/cores"
	c=1
	case $exp in
	ok0) [ "$st" = exit:0 ] && c=0; what="still works, exits 0" ;;
	noexec) [ "$rep" = exec=EACCES ] && c=0; what="cannot even be executed" ;;
	fail) [[ $st =~ ^exit:[1-9][0-9]*$ ]] && c=0; what="fails cleanly" ;;
	clean) [[ $st =~ ^exit:[0-9]+$ ]] && c=0; what="exits cleanly" ;;
	killed) [[ $st =~ ^(signal:KILL|exit:[0-9]+)$ ]] && c=0
		what="killed by our SIGKILL (or done before it), nothing else" ;;
	esac
	ok $c "$n: $what (${rep:-no report})"
	[ $c = 0 ] || diag "stderr: $(head -c 600 "$d/err" | tr '\n' ' ')"
	bad=$(privmarks "$d" "${PGID[$n]}" "${PGRP[$n]}")
	is "$bad" "" "$n: no injected code ran, no program ran with a privileged group"
	leak=$(grep -aoE '\$(y|gy|7|2b|5|6|1)\$[^:]{0,12}|AT_SECURE|AT_RANDOM|calling init|symbol=|PMSECRET[-a-z]*|rootHASH' \
	    "$d/out" "$d/err" 2>/dev/null | head -n 3)
	is "$leak" "" "$n: no hash, secret or loader output on stdout/stderr"
	if [ -z "${NOSTATE[$n]:-}" ]; then
		diff "$d/before" "$d/after" > "$d/diff"
		ok $? "$n: passwd, group, tcb files (and cron spool) unchanged"
		[ -s "$d/diff" ] && diag "$(head -n 6 "$d/diff")"
	fi
	bad=$(cat "$d/foreign" "$d/cores" 2>/dev/null)
	[ "$(field core "$rep")" = 1 ] && bad="$bad core dumped"
	is "$bad" "" "$n: no file created with another owner or group, no core dump"
}
# peekdenied O NAME: the look at the stopped program found nothing.
peekdenied() {
	local rep
	rep=$(cat "$1/$2/report" 2>/dev/null)
	like "$(field peek "$rep")" '^mem:EACCES,environ:EACCES,fd:EACCES,ptrace:EPERM$' \
	    "$2: a process of the same user cannot read its memory, environment or fds, nor trace it (gid $(field gid "$rep"))"
}

# ============================================================================
# Part 1: tcb_chkpwd, passwd, chage on a private tcb root (in_sys)
# ============================================================================
S=$T/stage R=$T/r W=$T/w O=$T/w/out
need_stage "$S"
mkroot "$R" 3
RPW='Root-Pass-Phrase-9921' PW1='Old-u1-Passw0rd-Xq' PW2='Second-User-Pass-77'
PWA='Tr0ub4dor-Horse-Battery&9' PWB='Quiet-Lamp-Orbit-41!x'
set_pass "$R" root "$RPW"
set_pass "$R" u1 "$PW1"
set_pass "$R" u2 "$PW2"
tcb_sysroot "$R"; ok $? "a 3-user tcb root (owlet's PAM stacks, passwdqc) and owlet staged"
setup_w "$W" "$W"; ok $? "probes: marker library (cc -shared), marker programs, symlinks in HOME"
chown 1001:100 "$W/home"
SANPRE=
[ -z "$OWLET_ASAN_RT" ] || SANPRE=${OWLET_ASAN_RT##*/}:lsan_off.so:
hostile_env "$W" "$SANPRE" > "$W/in/env.hostile"
looney > "$W/in/env.looney"
cp /usr/bin/passwd "$W/bin/passwd.plain"	# the same program, not set-gid
chmod 0755 "$W/bin/passwd.plain"
H=/usr/libexec/chkpwd/tcb_chkpwd
printf 'nonull\0\0u1\0%s\0' "$PW1" > "$W/in/req.u1"
printf 'nonull\0\0u1\0%s\0' "wrong-guess" > "$W/in/req.u1.wrong"
printf '%s\n' "wrong-current-pw" "$PWA" "$PWA" > "$W/in/passwd.wrong"
drive() { in_sys "$R" "$S" bash "$T/driver.sh" "$W" "$1" < /dev/null; }
# Warm-up: the helper creates u1's lock file; it is part of the baseline.
printf 'warmup\t1001\t100\t163\t-i %s\t%s\n' "$W/in/req.u1" "$H" > "$W/rows.0"
drive "$W/rows.0"
is "$(field status "$(cat "$O/warmup/report")")" exit:0 "tcb_chkpwd answers u1 (warm-up, lock file created)"

# --- positive controls: each probe fires on a program that is not set-ID
: > "$W/rows.pc"
row "$W/rows.pc" pc.preload clean 1001 100 "" "-E $W/in/env.hostile" "$W/bin/passwd.plain"
row "$W/rows.pc" pc.libpath clean 1001 100 "" "-e LD_LIBRARY_PATH=$W/evil" /usr/bin/getent shadow u1
row "$W/rows.pc" pc.path clean 1001 100 "" "-E $W/in/env.hostile" /usr/bin/env id
row "$W/rows.pc" pc.peek clean 1001 100 "" "-i $W/in/passwd.wrong -D 600 -P 200" /usr/bin/cat
drive "$W/rows.pc"
like "$(cat "$O/pc.preload/marks")" '== ctor\.' "control: LD_PRELOAD loads the marker library into a plain copy of passwd"
like "$(cat "$O/pc.preload/marks")" '== audit\.' "control: LD_AUDIT loads it as an audit library"
like "$(cat "$O/pc.preload/out")" 'AT_RANDOM' "control: LD_SHOW_AUXV prints the auxiliary vector"
ls "$W"/home/lddebug.* >/dev/null 2>&1; ok $? "control: LD_DEBUG_OUTPUT writes where the user points"
rm -f "$W"/home/lddebug.*
like "$(cat "$O/pc.libpath/marks")" '== ctor\.' "control: LD_LIBRARY_PATH makes getent load the marker as libnss_tcb.so.2"
like "$(cat "$O/pc.path/marks")" '== path\.id\.' "control: a hostile PATH runs the marker program as id"
like "$(field peek "$(cat "$O/pc.peek/report")")" '^mem:ok,environ:ok,fd:ok,ptrace:ok$' \
    "control: a process of the same user can read and trace a plain program"

# --- the matrix ---------------------------------------------------------------
F=$W/rows.1
: > "$F"
for s in $SCENARIOS; do
	o=$(scen "$W" $s)
	# tcb_chkpwd, the right password: answers as usual unless it cannot
	# (stdin/stdout closed, no fd for /etc/passwd).
	case $s in fds) e=fail ;; nofile) e=clean ;; kill) e=killed ;; *) e=ok0 ;; esac
	row "$F" "chkpwd.$s" $e 1001 100 163 "$o -i $W/in/req.u1" "$H"
	# passwd, a wrong current password: refused.
	case $s in kill) e=killed ;; *) e=fail ;; esac
	row "$F" "passwd.$s" $e 1001 100 "" "$o -i $W/in/passwd.wrong" /usr/bin/passwd
	# chage -l for oneself: works unless it cannot.
	case $s in fds | argv) e=fail ;; nofile) e=clean ;; kill) e=killed ;; *) e=ok0 ;; esac
	row "$F" "chage.$s" $e 1001 100 "" "$o" /usr/bin/chage -l u1
done
o=$(scen "$W" env)
# tcb_chkpwd waits out the delay stamp a killed or failed helper left
# (with its group, before reading the hash): give it time to pass, so
# that the look falls into this helper's own failure delay.
printf '!sleep\t2.2\n' >> "$F"
row "$F" chkpwd.wrong fail 1001 100 163 "$o -i $W/in/req.u1.wrong -s 300:STOP -P 400 -s 600:CONT" "$H"
row "$F" chkpwd.other fail 1002 100 163 "$o -i $W/in/req.u1" "$H"
row "$F" chkpwd.nogate noexec 1001 100 "" "$o -i $W/in/req.u1" "$H"
row "$F" passwd.u2 fail 1001 100 "" "$o -i $W/in/passwd.wrong" /usr/bin/passwd u2
row "$F" passwd.root fail 1001 100 "" "$o -i $W/in/passwd.wrong" /usr/bin/passwd root
row "$F" passwd.prompt fail 1001 100 "" "$o -i $W/in/passwd.wrong -D 1200 -P 300" /usr/bin/passwd
row "$F" passwd.status clean 1001 100 "" "$o" /usr/bin/passwd -S u2
row "$F" chage.u2 fail 1001 100 "" "$o" /usr/bin/chage -l u2
row "$F" chage.root fail 1001 100 "" "$o" /usr/bin/chage -l root
row "$F" chage.dotdot fail 1001 100 "" "$o" /usr/bin/chage -l ../u2
row "$F" chage.set fail 1001 100 "" "$o" /usr/bin/chage -M 1 u1
row "$F" chage.setroot fail 1001 100 "" "$o" /usr/bin/chage -E 0 root
drive "$F"
while IFS='	' read -r n _; do
	[ "$n" = '!sleep' ] || check "$O" "$n"
done < "$F"
for n in passwd.prompt chkpwd.wrong; do
	peekdenied "$O" $n
done
is "$(field gid "$(cat "$O/chkpwd.wrong/report")")" "100/100/100/100" \
    "chkpwd.wrong: during the failure delay the helper has no group privilege left"
is "$(head -c 4 "$O/chkpwd.env/out" | od -An -tx4 | tr -d ' ')" 0a00ff7f \
    "chkpwd.env: the reply is TCB_MAGIC, hostile environment or not"
for s in $SCENARIOS; do
	[ "$(stat -c %s "$O/chkpwd.$s/out")" -le 4 ] || echo "$s"
done > "$T/chkout"
is "$(cat "$T/chkout")" "" "tcb_chkpwd never writes more than its 4-byte reply"
like "$(cat "$O/chage.env/out")" 'Maximum number of days between password change[[:space:]]*: 99999' \
    "chage.env: chage -l u1 shows u1's aging, hostile environment or not"
like "$(cat "$O/chage.set/err")" 'Permission denied' "chage.set: a user may not change aging"
like "$(cat "$O/passwd.u2/err")" 'You may not view or modify password information for u2' \
    "passwd.u2: passwd's own refusal"

# --- runs meant to change something ------------------------------------------
U1=$R/etc/tcb/u1/shadow
others() { find "$R/etc/tcb" -path "$R/etc/tcb/u1" -prune -o -type f -printf '%p %i %s %T@\n' | sort; sha256sum "$R"/etc/tcb/{root,u2,u3}/shadow "$R/etc/passwd"; }
valid_u1() { grep -Eqx 'u1:\$y\$[./0-9A-Za-z]+\$[./0-9A-Za-z]+\$[./0-9A-Za-z]{43}:[0-9]+:0:99999:7:::' "$U1"; }
debris() { ls -A "$R/etc/tcb/u1" | grep -vx -e shadow -e shadow.lock -e shadow.gate; }
others0=$(others)
cur=$PW1
# change NAME EXTRA-OPTS: u1 changes cur to the other of PWA/PWB; sets
# changed=1 when u1's file now holds a new entry.
change() {
	local new=$PWA before
	[ "$cur" = "$PWA" ] && new=$PWB
	printf '%s\n' "$cur" "$new" "$new" > "$W/in/passwd.change"
	before=$(sha256sum < "$U1")
	NOSTATE[$1]=1
	: > "$W/rows.c"
	row "$W/rows.c" "$1" clean 1001 100 "" "$(scen "$W" env) -i $W/in/passwd.change $2" /usr/bin/passwd
	drive "$W/rows.c"
	changed=0
	if [ "$(sha256sum < "$U1")" != "$before" ]; then changed=1; cur=$new; fi
}
change passwd.change ""
is "$(field status "$(cat "$O/passwd.change/report")") $changed" "exit:0 1" \
    "passwd.change: u1 changes its password under the hostile environment"
valid_u1; ok $? "passwd.change: u1's file holds one valid new entry"
is "$(privmarks "$O/passwd.change" 100 "")" "" "passwd.change: no injected code ran, no program ran with a privileged group"
is "$(others)" "$others0" "passwd.change: every other tcb file and /etc/passwd unchanged"
is "$(debris)" "" "passwd.change: nothing but shadow, shadow.lock and shadow.gate in u1's dir"

# RLIMIT_FSIZE below one shadow line: the write cannot complete.
change passwd.xfsz "-f 16"
st=$(field status "$(cat "$O/passwd.xfsz/report")")
is "$changed" 0 "passwd.xfsz (RLIMIT_FSIZE 16, SIGXFSZ default): u1's entry unchanged ($st)"
valid_u1; ok $? "passwd.xfsz: u1's file still one valid entry"
is "$(others)" "$others0" "passwd.xfsz: every other tcb file unchanged"
# The new file is written unnamed (O_TMPFILE, common/atomic.c): a writer
# killed mid-write leaves nothing, however often a user tries.
is "$(debris)" "" "passwd.xfsz: no partial temp file left in u1's dir"
find "$R/etc/tcb/u1" -name '.shadow.*' -delete
change passwd.xfsz-ign "-f 16 -I XFSZ"
st=$(field status "$(cat "$O/passwd.xfsz-ign/report")")
[[ $st =~ ^exit:[1-9][0-9]*$ ]]; ok $? "passwd.xfsz-ign (SIGXFSZ ignored): a clean failure ($st)"
is "$changed" 0 "passwd.xfsz-ign: u1's entry unchanged"
is "$(debris)" "" "passwd.xfsz-ign: the temp file removed (EFBIG handled)"
like "$(cat "$O/passwd.xfsz-ign/err")" 'passwd' "passwd.xfsz-ign: passwd says it failed"

# SIGKILL at many instants of a change: old or new entry, never neither.
bad= n=0 killed=0 left=0
# A change takes about 100 ms here (two yescrypt hashes); the instants
# cover it densely.  Under the sanitizers, every third instant: a killed
# process runs no more code for ASan to check, and the plain pass covers
# the instants densely (each costs ~4 s there).
step=6
[ -z "$OWLET_SANITIZE" ] || step=18
for ms in $(seq 4 "$step" 130); do
	change passwd.kill$ms "-s $ms:KILL"
	n=$((n + 1))
	[ "$(field status "$(cat "$O/passwd.kill$ms/report")")" = signal:KILL ] && killed=$((killed + 1))
	valid_u1 || bad="$bad $ms"
	[ "$(others)" = "$others0" ] || bad="$bad $ms(others)"
	left=$((left + $(debris | wc -l)))
	find "$R/etc/tcb/u1" -name '.shadow.*' -delete
done
is "$bad" "" "passwd killed at $n instants ($killed while running): u1's file always one valid entry, others untouched"
# Only a kill between naming the complete file and the rename (two
# system calls) could leave one; none of these instants should.
is "$left" 0 "passwd killed mid-change: no temp file left in u1's dir"
change passwd.after ""
is "$changed" 1 "after the kills u1 still changes its password (no stale lock)"
if command -v pamtester >/dev/null; then
	printf '@include common-auth\n' > "$R/etc/pam.d/pm-auth"
	printf '%s\n' "$cur" | in_sys "$R" "$S" pamtester pm-auth u1 authenticate >/dev/null 2>&1
	ok $? "u1 authenticates with the password the last change set"
fi

# ============================================================================
# Part 2: every set-ID program of the built image (overlay, chroot)
# ============================================================================
if [ -n "$OWLET_SANITIZE" ]; then
	diag "part 2 skipped: the image's programs are the plain build (need_plain_build)"
	done_testing
fi
# make image (a rebuild from the cached base: seconds), then a shared lock
# on $B/image/lock, which keeps a concurrent make image from replacing
# build/image/root under the overlay; if one replaced it meanwhile, again.
img=
for try in 1 2 3; do
	if ! make -s -C "$TOP" B="$B" image > "$T/make-image.log" 2>&1; then
		img="make image failed: $(tail -n 1 "$T/make-image.log")"
		sleep 5
		continue
	fi
	exec 7<"$B/image/lock"
	flock -s 7
	[ -x "$OWLET_IMAGE/usr/bin/passwd" ] && { img=ok; break; }
	img="build/image/root vanished after make image"
	exec 7<&-
done
if [ "$img" != ok ]; then
	ok 1 "the image built by make image ($img)"
	done_testing
fi
IR=$T/img
base_overlay "$IR" "$OWLET_IMAGE"; ok $? "an overlay of the image built by make image"
gid_of() { awk -F: -v g="$1" '$1 == g { print $3 }' "$IR/etc/group"; }
# Every set-ID file of the image; no set-uid file.
(cd "$IR" && find . -xdev -type f -perm /6000 -printf '/%P %m %U %G\n' | sort) > "$T/setid"
is "$(awk '$2 ~ /^[4-7]/' "$T/setid")" "" "the image has no set-uid file"
COVERED="/usr/bin/chage /usr/bin/crontab /usr/bin/passwd /usr/bin/ping /usr/bin/ssh-agent /usr/libexec/chkpwd/tcb_chkpwd"
is "$(awk '{ print $1 }' "$T/setid" | tr '\n' ' ')" "$COVERED " \
    "every set-gid file of the image is in the matrix: $COVERED"
is "$(awk '$1 == "/usr/bin/ping" { print $2, $4 }' "$T/setid")" "2711 $(gid_of _icmp)" "ping: set-gid _icmp"
is "$(awk '$1 == "/usr/bin/crontab" { print $2, $4 }' "$T/setid")" "2755 $(gid_of crontab)" "crontab: set-gid crontab"

IW=/pm
setup_w "$IR$IW" "$IW"; ok $? "probes in the image"
hostile_env "$IW" > "$IR$IW/in/env.hostile"
looney > "$IR$IW/in/env.looney"
APW='Maple-Violin-Tundra-58'
printf 'nonull\0\0alice\0%s\0' "$APW" > "$IR$IW/in/req.alice"
printf '%s\n' "wrong-current-pw" "$PWA" "$PWA" > "$IR$IW/in/passwd.wrong"
printf '* * * * * echo PMSECRET-alice-file\n' > "$IR$IW/in/cron.alice"
chmod 0644 "$IR$IW"/in/*
CHK=$(gid_of chkpwd)
F=$T/rows.img
: > "$F"
for s in $SCENARIOS; do
	o=$(scen "$IW" $s)
	case $s in fds) e=fail ;; nofile) e=clean ;; kill) e=killed ;; *) e=ok0 ;; esac
	row "$F" "img.chkpwd.$s" $e 1001 1001 "$CHK" "$o -i $IW/in/req.alice" "$H"
	case $s in kill) e=killed ;; *) e=fail ;; esac
	row "$F" "img.passwd.$s" $e 1001 1001 "" "$o -i $IW/in/passwd.wrong" /usr/bin/passwd
	case $s in fds | argv) e=fail ;; nofile) e=clean ;; kill) e=killed ;; *) e=ok0 ;; esac
	row "$F" "img.chage.$s" $e 1001 1001 "" "$o" /usr/bin/chage -l alice
	case $s in argv) e=fail ;; kill) e=killed ;; fds | fsize | nofile) e=clean ;; *) e=ok0 ;; esac
	row "$F" "img.ping.$s" $e 1001 1001 "" "$o" /usr/bin/ping -c 2 -i 0.2 -W 1 127.0.0.1
	case $s in kill) e=killed ;; *) e=fail ;; esac
	row "$F" "img.crontab.$s" $e 1001 1001 "" "$o" /usr/bin/crontab -l
	case $s in kill) e=killed ;; *) e=clean ;; esac
	row "$F" "img.ssh-agent.$s" $e 1001 1001 "" "$o" /usr/bin/ssh-agent sh -c true
done
o=$(scen "$IW" env)
row "$F" img.crontab.uroot fail 1001 1001 "" "$o" /usr/bin/crontab -u root -l
row "$F" img.crontab.uroot-set fail 1001 1001 "" "$o" /usr/bin/crontab -u root $IW/in/cron.alice
row "$F" img.crontab.link fail 1001 1001 "" "$o" /usr/bin/crontab $IW/home/link-root-crontab
row "$F" img.crontab.linkshadow fail 1001 1001 "" "$o" /usr/bin/crontab $IW/home/link-root-shadow
row "$F" img.crontab.edit clean 1001 1001 "" "-e EDITOR=$IW/hostile/editor-swap -e VISUAL=$IW/hostile/editor-swap $o" /usr/bin/crontab -e
row "$F" img.crontab.editok ok0 1001 1001 "" "$o" /usr/bin/crontab -e
NOSTATE[img.crontab.editok]=1
printf 'nonull\0\0alice\0wrong-guess\0' > "$IR$IW/in/req.alice.wrong"
printf '!sleep\t2.2\n' >> "$F"
row "$F" img.chkpwd.wrong fail 1001 1001 "$CHK" "$o -i $IW/in/req.alice.wrong -s 300:STOP -P 400 -s 600:CONT" "$H"
row "$F" img.passwd.prompt fail 1001 1001 "" "$o -i $IW/in/passwd.wrong -D 1200 -P 300" /usr/bin/passwd
row "$F" img.ping.run ok0 1001 1001 "" "$o -P 100" /usr/bin/ping -c 3 -i 0.2 -W 1 127.0.0.1
# Inside: users, passwords, a secret in root's crontab, ping's sysctl in
# this network namespace (control ping dgramsocket), then the driver.
cat > "$IR$IW/setup.sh" <<EOF
set -e
groupadd -g 1001 alice
useradd -m -u 1001 -g 1001 -s /bin/sh alice
printf '%s\n' 'alice:$APW' | chpasswd
printf '# PMSECRET-root-crontab\n' | crontab -u root -
sha256sum < /var/spool/cron/crontabs/root > $IW/rootcron.0
control ping dgramsocket >/dev/null
chown -R 1001:1001 $IW/home
EXTRA_STATE=/var/spool/cron/crontabs EXTRA_DIRS="/tmp /var/tmp" exec bash $IW/driver.sh $IW $IW/rows
EOF
cp "$T/driver.sh" "$IR$IW/driver.sh"
cp "$F" "$IR$IW/rows"
CHROOT_UNSHARE=-n chroot_run "$IR" sh "$IW/setup.sh" > "$T/img.log" 2>&1 < /dev/null
rc=$?
ok $rc "in the image: alice, passwords, root's crontab, ping dgramsocket, then the runs"
[ "$rc" = 0 ] || diag "$(grep . "$T/img.log" | tail -n 5)"
IO=$IR$IW/out
while IFS='	' read -r n _; do
	[ "$n" = '!sleep' ] || check "$IO" "$n"
done < "$F"
for n in img.chkpwd.wrong img.passwd.prompt img.ping.run; do
	peekdenied "$IO" $n
done
is "$(field gid "$(cat "$IO/img.chkpwd.wrong/report" 2>/dev/null)")" "1001/1001/1001/1001" \
    "img.chkpwd.wrong: during the failure delay the helper has no group privilege left"
diag "ping keeps its set-gid group while it runs (iputils): gid $(field gid "$(cat "$IO/img.ping.run/report" 2>/dev/null)")"
like "$(cat "$IO/img.ping.env/out")" '2 packets transmitted, 2 received' \
    "img.ping.env: ping works as alice under the hostile environment"
like "$(cat "$IO/img.ssh-agent.env/marks")" '== path\.sh\.' \
    "img.ssh-agent.env: the command ran from the hostile PATH (as alice, checked above)"
is "$(sha256sum < "$IR/var/spool/cron/crontabs/root")" "$(cat "$IR$IW/rootcron.0")" "root's crontab unchanged after all runs"
like "$(cat "$IO/img.crontab.editok/marks")" '== path\.editor\.' "img.crontab.editok: crontab -e ran the user's EDITOR"
a=$IR/var/spool/cron/crontabs/alice
is "$(stat -c '%u %a' "$a" 2>&1) $(grep -c PMCRON "$a" 2>/dev/null)" "1001 600 1" \
    "img.crontab.editok: alice's crontab installed, hers, 0600, the editor's line"
! grep -q PMSECRET "$a" 2>/dev/null; ok $? "alice's crontab never got root's crontab (editor-swap, link)"

done_testing
