# Private roots for tests.  Nothing here touches the host's /etc: a test
# builds a root under a temp dir and runs commands either with --root DIR or
# inside a private mount namespace where DIR/etc is bind-mounted over /etc.
. "$(dirname "$0")/../lib/tap.sh"

need_root() {
	[ "$(id -u)" = 0 ] || skip_all "needs root (private mount namespaces)"
	unshare -m true 2>/dev/null || skip_all "unshare -m not permitted here"
}

# need_tools WHAT NAME:PACKAGE...: skip the whole test (WHAT names it)
# unless every NAME, a command or an absolute path to a readable file, is
# there; the reason names the Debian packages of those missing.
need_tools() {
	_nt_what=$1 _nt_miss=
	shift
	for _nt; do
		case ${_nt%%:*} in
		/*) [ -r "${_nt%%:*}" ] ;;
		*) command -v "${_nt%%:*}" >/dev/null ;;
		esac || _nt_miss="$_nt_miss ${_nt#*:}"
	done
	[ -z "$_nt_miss" ] || skip_all "$_nt_what needs Debian packages:$_nt_miss (make deps)"
}

# tmpdir: a fresh directory removed at exit, readable by test users.
tmpdir() {
	T=$(mktemp -d /tmp/owlet-test.XXXXXX)
	chmod 0755 "$T"
	trap 'rm -rf "$T"' EXIT
}

# mkroot DIR [NUSERS]: a minimal Debian-like /etc under DIR with users
# u1..uN (uid 1000+i), root, and groups shadow (42) and users.
mkroot() {
	_r=$1 _n=${2:-3}
	mkdir -p "$_r/etc"
	cat > "$_r/etc/passwd" <<PW
root:x:0:0:root:/root:/bin/bash
daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
PW
	cat > "$_r/etc/group" <<GR
root:x:0:
daemon:x:1:
sys:x:3:
shadow:x:42:
users:x:100:
chkpwd:x:163:
nogroup:x:65534:
GR
	cat > "$_r/etc/gshadow" <<GS
root:*::
daemon:*::
sys:*::
shadow:*::
users:*::
chkpwd:*::
nogroup:*::
GS
	cat > "$_r/etc/shadow" <<SH
root:\$y\$j9T\$rootsalt\$rootHASHrootHASHrootHASHrootHASHroot:19000:0:99999:7:::
daemon:*:19000:0:99999:7:::
nobody:*:19000:0:99999:7:::
SH
	_i=1
	while [ "$_i" -le "$_n" ]; do
		echo "u$_i:x:$((1000 + _i)):100:User $_i:/home/u$_i:/bin/sh" >> "$_r/etc/passwd"
		echo "u$_i:\$y\$j9T\$salt$_i\$hash${_i}hash${_i}hash:$((19000 + _i)):0:99999:7:::" >> "$_r/etc/shadow"
		_i=$((_i + 1))
	done
	chmod 0640 "$_r/etc/shadow" "$_r/etc/gshadow"
	chgrp 42 "$_r/etc/shadow" "$_r/etc/gshadow"
	cat > "$_r/etc/nsswitch.conf" <<NS
passwd: files
group: files
shadow: tcb files
NS
	cat > "$_r/etc/login.defs" <<LD
# generated for owlet tests
ENCRYPT_METHOD YESCRYPT
TCB_AUTH_GROUP yes
LD
	cp /etc/ld.so.cache "$_r/etc/" 2>/dev/null || :
}

# in_ns DIR CMD...: run CMD in a private mount namespace whose /etc is
# DIR/etc; our NSS module is found through LD_LIBRARY_PATH.  In a
# sanitizer build CMD runs with the ASan runtime preloaded (preload).
in_ns() {
	_r=$1; shift
	LD_LIBRARY_PATH=$B/lib unshare -m --propagation private -- \
	    sh -c 'r=$1 p=$2; shift 2; mount --bind "$r/etc" /etc || exit
	    [ -z "$p" ] || export LD_PRELOAD="$p"; exec "$@"' in_ns "$_r" "$(preload)" "$@"
}

# user_cmd UID GID[,GID...]: the setpriv words that run a command as that
# user, for use inside in_ns (a shell function cannot be exec'ed there):
#   in_ns "$R" $(user_cmd 1001 42) getent shadow u1
user_cmd() {
	_g1=${2%%,*}
	case $2 in
	*,*) echo setpriv --reuid="$1" --regid="$_g1" --groups="${2#*,}" -- ;;
	*) echo setpriv --reuid="$1" --regid="$_g1" --clear-groups -- ;;
	esac
}

# as_user UID GID[,GID...] CMD...: run CMD with real and effective uid UID,
# gid the first GID and the rest as supplementary groups.
as_user() {
	_u=$1 _g=$2; shift 2
	_g1=${_g%%,*}
	case $_g in
	*,*) setpriv --reuid="$_u" --regid="$_g1" --groups="${_g#*,}" -- "$@" ;;
	*) setpriv --reuid="$_u" --regid="$_g1" --clear-groups -- "$@" ;;
	esac
}

# stage_sys STAGE: owlet installed under STAGE (make install DESTDIR) with
# the tcb state's modes: owlet's chage and a copy of Debian's
# /usr/bin/passwd set-gid shadow (root:shadow 2711, no set-uid), the helper
# dir root:chkpwd 0710 with tcb_chkpwd root:shadow 2711; plus pam_passwdqc
# and pwqgen/pwqcheck unpacked by make deps.  For use with in_sys.
stage_sys() {
	_s=$1 _ma=$(cc -print-multiarch) _x=$TOP/build/cache/extract
	make -C "$TOP" -s install DESTDIR="$_s" B="$B" >/dev/null 2>&1 || return 1
	[ -e "$_x/lib/$_ma/security/pam_passwdqc.so" ] || return 1
	cp "$_x/lib/$_ma/security/pam_passwdqc.so" "$_s/lib/$_ma/security/"
	mkdir -p "$_s/usr/bin"
	cp "$_x"/usr/bin/pwq* /usr/bin/passwd "$_s/usr/bin/"
	[ -x "$_s/usr/bin/chage" ] || return 1	# owlet's, from make install
	chown 0:42 "$_s/usr/bin/passwd" "$_s/usr/bin/chage"
	chmod 2711 "$_s/usr/bin/passwd" "$_s/usr/bin/chage"
	chown 0:163 "$_s/usr/libexec/chkpwd"
	chmod 0710 "$_s/usr/libexec/chkpwd"
	chown 0:42 "$_s/usr/libexec/chkpwd/tcb_chkpwd"
	chmod 2711 "$_s/usr/libexec/chkpwd/tcb_chkpwd"
	# Sanitizer build: Debian's passwd, set-gid, loads our instrumented
	# modules but ignores an LD_PRELOAD path; in secure mode the loader
	# preloads a bare name only from a system directory and only if the
	# file is set-uid.  The copies in the stage are (the mode bit means
	# nothing else for a library; the stage is private to the test).
	if [ -n "$OWLET_ASAN_RT" ]; then
		mkdir -p "$_s/usr/lib/$_ma"
		make -C "$TOP" -s B="$B" "$B/tests/lsan_off.so" >/dev/null 2>&1 &&
		cp "$OWLET_ASAN_RT" "$B/tests/lsan_off.so" "$_s/usr/lib/$_ma/" ||
		    return 1
		chmod 4644 "$_s/usr/lib/$_ma/${OWLET_ASAN_RT##*/}" \
		    "$_s/usr/lib/$_ma/lsan_off.so"
	fi
}

# in_sys DIR STAGE CMD...: like in_ns, and STAGE's files laid over the
# system's directories with overlayfs (read-only, private to the
# namespace), so that set-gid programs, which ignore LD_LIBRARY_PATH, load
# our NSS module, libtcb and PAM modules from the standard places.
# In a sanitizer build CMD gets the ASan runtime and lsan_off.so
# preloaded by their bare names, found in the overlay (see stage_sys), so
# that set-gid programs load them too.
in_sys() {
	_r=$1 _s=$2 _p=$(preload); shift 2
	if [ -n "$OWLET_ASAN_RT" ]; then	# the copies in the stage, by name
		_p=${_p//"$OWLET_ASAN_RT"/${OWLET_ASAN_RT##*/}}
		_p=${_p//"$B/tests/lsan_off.so"/lsan_off.so}
	fi
	unshare -m --propagation private -- sh -c '
	r=$1 s=$2 ma=$3 p=$4; shift 4
	mount --bind "$r/etc" /etc || exit 120
	lay() {	# lay TARGET LOWER...: overlay the existing LOWER dirs on TARGET
		t=$1; shift; lower=
		for d; do [ -d "$d" ] && lower="$lower$d:"; done
		[ -n "$lower" ] || return 0
		mount -t overlay overlay -o "lowerdir=$lower$t" "$t" || exit 121
	}
	lay "/usr/lib/$ma" "$s/lib/$ma" "$s/usr/lib/$ma"
	lay /usr/bin "$s/usr/bin"
	lay /usr/sbin "$s/usr/sbin"
	lay /usr/libexec "$s/usr/libexec"
	[ -z "$p" ] || export LD_PRELOAD="$p"
	exec "$@"' in_sys "$_r" "$_s" "$(cc -print-multiarch)" "$_p" "$@"
}

# stage_tcb_chage STAGE: put chage-tcbfix (Debian's shadow 4.13 built
# --with-tcb by tests/compat/shadow-utils.sh, with chage's set_user call
# moved before the database is opened) into STAGE as /usr/bin/chage,
# root:shadow 2711 like the staged passwd.  Builds it if needed (cached;
# exit 77 from the script = source not downloadable).  Returns the
# script's status.  The root needs USE_TCB yes and FORCE_SHADOW yes in
# its login.defs.
stage_tcb_chage() {
	_s=$1
	_sb=$(B=$B bash "$TOP/tests/compat/shadow-utils.sh" 2>/dev/null)
	_rc=$?
	[ "$_rc" = 0 ] || return "$_rc"
	_sb=$(printf '%s\n' "$_sb" | tail -n 1)
	[ -x "$_sb/chage-tcbfix" ] || return 1
	mkdir -p "$_s/usr/bin"
	cp "$_sb/chage-tcbfix" "$_s/usr/bin/chage" || return 1
	chown 0:42 "$_s/usr/bin/chage"
	chmod 2711 "$_s/usr/bin/chage"
}

# tcb_sysroot DIR: a root made by mkroot, converted to tcb and configured
# as a tcb system would be: /etc/shadow removed, nsswitch "shadow: tcb",
# USE_TCB and FORCE_SHADOW in login.defs (for shadow-utils --with-tcb),
# owlet's PAM stacks (common-*) and passwdqc.conf, /etc/pam.d/passwd
# including common-password (root:shadow 0640 as tcb_convert(8) asks).
# Set passwords before, with set_pass (it writes DIR/etc/shadow).
tcb_sysroot() {
	_r=$1
	"$B/sbin/tcb_convert" --root "$_r" || return 1
	rm -f "$_r/etc/shadow"
	sed -i 's/^shadow:.*/shadow: tcb/' "$_r/etc/nsswitch.conf"
	printf 'USE_TCB yes\nFORCE_SHADOW yes\n' >> "$_r/etc/login.defs"
	mkdir -p "$_r/etc/pam.d"
	cp "$TOP"/tcb/pam/conf/common-* "$_r/etc/pam.d/" || return 1
	cp "$TOP/tcb/pam/conf/passwdqc.conf" "$_r/etc/" || return 1
	echo '@include common-password' > "$_r/etc/pam.d/passwd"
	chown 0:42 "$_r/etc/pam.d/passwd"
	chmod 0640 "$_r/etc/pam.d/passwd"
}

# set_pass DIR USER PASS [PREFIX [COUNT]]: USER's hash in DIR/etc/shadow
# (before tcb_convert) becomes a hash of PASS (build/tests/bin/mkhash).
set_pass() {
	_h=$(printf '%s\n' "$3" | "$B/tests/bin/mkhash" ${4:+"$4"} ${5:+"$5"}) || return 1
	awk -F: -v OFS=: -v u="$2" -v h="$_h" '$1 == u { $2 = h } 1' \
	    "$1/etc/shadow" > "$1/etc/shadow.new" &&
	chmod 0640 "$1/etc/shadow.new" && chgrp 42 "$1/etc/shadow.new" &&
	mv "$1/etc/shadow.new" "$1/etc/shadow"
}

# need_stage STAGE: stage_sys STAGE for a test, or end it: skipped when
# make deps has not unpacked pam_passwdqc, failed (one TAP line) when
# staging itself fails.
need_stage() {
	[ -e "$TOP/build/cache/extract/lib/$(cc -print-multiarch)/security/pam_passwdqc.so" ] ||
		skip_all "pam_passwdqc not unpacked (make deps)"
	if ! stage_sys "$1"; then
		ok 1 "owlet staged with make install DESTDIR (stage_sys)"
		done_testing
	fi
}
