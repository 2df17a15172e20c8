# Helpers for the pam_tcb tests: real Linux-PAM (pamtester, and the
# pam_confdir probe with a scripted conversation) against private roots made
# by root.sh, with PAM service files naming build/lib/security/pam_tcb.so by
# absolute path, and a private /dev/log to capture what modules log.
. "$(dirname "$0")/../lib/root.sh"

PAM_TCB=$B/lib/security/pam_tcb.so
PROBE=$B/tests/bin/pam_confdir
MKHASH=$B/tests/bin/mkhash
PASSWDQC=$TOP/build/cache/extract/lib/$(cc -print-multiarch 2>/dev/null ||
    echo x86_64-linux-gnu)/security/pam_passwdqc.so

# need_pam: root, namespaces, the module, the probe and pamtester.
need_pam() {
	need_root
	[ -e "$PAM_TCB" ] || skip_all "$PAM_TCB not built"
	[ -x "$PROBE" ] || skip_all "$PROBE not built (make check builds it)"
	[ -x "$MKHASH" ] || skip_all "$MKHASH not built"
	command -v pamtester >/dev/null || skip_all "pamtester not installed"
}

# today: days since the epoch, as shadow(5) counts them.
today() { echo $(($(date +%s) / 86400)); }

# mkhash PASS [PREFIX [COUNT]]: a libxcrypt hash of PASS.
mkhash() { _p=$1; shift; printf '%s\n' "$_p" | "$MKHASH" "$@"; }

# pam_root DIR N: mkroot DIR N, converted to tcb (DIR/etc/tcb/uI/shadow),
# with DIR/etc/pam.d holding only a denying "other" service.
pam_root() {
	mkroot "$1" "$2" && "$B/sbin/tcb_convert" --root "$1" &&
	    mkdir -p "$1/etc/pam.d" && printf '%s\n' "auth required pam_deny.so" \
	    "account required pam_deny.so" "password required pam_deny.so" \
	    "session required pam_deny.so" > "$1/etc/pam.d/other"
}

# set_entry DIR USER FIELDS: USER's tcb file becomes "USER:FIELDS" (the
# eight fields after the name), in place: owner and mode are kept.
set_entry() { printf '%s:%s\n' "$2" "$3" > "$1/etc/tcb/$2/shadow"; }

# set_hash DIR USER HASH: only the hash of USER's tcb entry changes.
set_hash() {
	_f=$1/etc/tcb/$2/shadow
	awk -F: -v OFS=: -v h="$3" '{ $2 = h; print }' "$_f" > "$_f.new" &&
	    cat "$_f.new" > "$_f" && rm -f "$_f.new"
}

# pam_svc DIR SERVICE LINE...: write DIR/etc/pam.d/SERVICE, one line per
# argument; @TCB@ stands for the module's absolute path, @QC@ for the
# unpacked pam_passwdqc.so.
pam_svc() {
	_r=$1 _s=$2; shift 2
	mkdir -p "$_r/etc/pam.d"
	: > "$_r/etc/pam.d/$_s"
	for _l; do
		printf '%s\n' "$_l" | sed -e "s|@TCB@|$PAM_TCB|g" \
		    -e "s|@QC@|$PASSWDQC|g" >> "$_r/etc/pam.d/$_s"
	done
}

# tcb_svc DIR SERVICE OPTIONS...: pam_tcb.so OPTIONS alone (required) in
# all four management groups.
tcb_svc() {
	_r=$1 _s=$2; shift 2
	pam_svc "$_r" "$_s" "auth required @TCB@ $*" \
	    "account required @TCB@ $*" "password required @TCB@ $*" \
	    "session required @TCB@ $*"
}

# probe DIR ARGS...: the probe as root inside DIR's namespace; stdout and
# stderr together.  probe_as UID GID[,GID] DIR ARGS...: as that user.
probe() { _r=$1; shift; in_ns "$_r" "$PROBE" "$@" 2>&1; }
probe_as() {
	_u=$1 _g=$2 _r=$3; shift 3
	in_ns "$_r" $(user_cmd "$_u" "$_g") "$PROBE" "$@" 2>&1
}

# codes OUTPUT: only the "OP PAM_X" result lines of probe output, joined
# by spaces ("auth PAM_SUCCESS acct PAM_SUCCESS").
codes() {
	printf '%s\n' "$1" | grep -E '^(start|set_item|auth|setcred|acct|open|close|chauthtok) ' |
	    tr '\n' ' ' | sed 's/ $//'
}
# msgs OUTPUT: the conversation lines only (prompts, errors, infos).
msgs() {
	printf '%s\n' "$1" | grep -E '^(echo_off|echo_on|error|info|prompt-unanswered|conv-again)' |
	    tr '\n' '|' | sed 's/|$//'
}

# with_syslog LOG DIR CMD...: like in_ns DIR CMD (DIR/etc over /etc, our
# libraries on LD_LIBRARY_PATH), in a private mount namespace whose /dev is
# a fresh tmpfs holding the usual device nodes (bind-mounted from the real
# /dev, first bound to a scratch dir next to LOG, so LOG needs a directory
# part) and a datagram socket /dev/log; a perl listener appends every
# message it receives to LOG, one per line.  The host's /dev is never
# written.  Returns CMD's status.  CMD alone gets LD_PRELOAD (preload).
_SYSLOG_PL='
use IO::Socket::UNIX;
my ($path, $log) = @ARGV;
my $s = IO::Socket::UNIX->new(Type => SOCK_DGRAM, Local => $path)
    or die "bind $path: $!\n";
chmod 0666, $path;
open(my $out, ">>", $log) or die "$log: $!\n";
$out->autoflush(1);
open(my $ready, ">", "$path.ready") and close($ready);
alarm 300;	# never outlive a stuck test
my $m;
while (defined($s->recv($m, 65536))) {
	last if $m eq "owlet-syslog-end";
	$m =~ s/\0$//;
	$m =~ s/\n/ /g;
	print $out $m, "\n";
}
'
with_syslog() {
	_log=$1 _r=$2; shift 2
	: > "$_log"
	chmod 0644 "$_log"
	LD_LIBRARY_PATH=$B/lib unshare -m --propagation private -- sh -c '
	pl=$1 log=$2 r=$3 pre=$4; shift 4
	mount --bind "$r/etc" /etc || exit 120
	save=$(mktemp -d "${log%/*}/dev.XXXXXX") || exit 120
	mount --rbind /dev "$save" || exit 120
	mount -t tmpfs -o mode=0755,nosuid tmpfs /dev || exit 120
	for n in null zero full random urandom tty; do
		[ -e "$save/$n" ] || continue
		: > "/dev/$n" && mount --bind "$save/$n" "/dev/$n" || exit 120
	done
	mkdir /dev/pts /dev/shm || exit 120
	[ -e "$save/pts/ptmx" ] && mount --bind "$save/pts" /dev/pts
	ln -s pts/ptmx /dev/ptmx && ln -s /proc/self/fd /dev/fd &&
	    ln -s fd/0 /dev/stdin && ln -s fd/1 /dev/stdout &&
	    ln -s fd/2 /dev/stderr || exit 120
	umount -l "$save" && rmdir "$save" || exit 120
	perl -e "$pl" /dev/log "$log" &
	lpid=$!
	i=0
	while [ ! -e /dev/log.ready ] && [ $i -lt 100 ]; do
		sleep 0.05; i=$((i + 1))
	done
	[ -e /dev/log.ready ] || { kill $lpid; exit 121; }
	if [ -n "$pre" ]; then LD_PRELOAD=$pre "$@"; else "$@"; fi
	rc=$?
	perl -MIO::Socket::UNIX -e "IO::Socket::UNIX->new(Type => SOCK_DGRAM,
	    Peer => q(/dev/log))->send(q(owlet-syslog-end));"
	wait $lpid
	exit $rc' with_syslog "$_SYSLOG_PL" "$_log" "$_r" "$(preload)" "$@"
}
