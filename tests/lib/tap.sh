# Minimal TAP producer for shell tests run by prove.
# Usage: . "$(dirname "$0")/../lib/tap.sh"; plan N; ok COND "desc"; ...
_tap_n=0
_tap_fail=0
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
B=${B:-$TOP/build}
[ -d "$B" ] || B=$TOP/$B

# A sanitizer build (make SANITIZE=1) leaves $B/sanitize, which names the
# shared ASan runtime (OWLET_ASAN_RT).  Every report of an instrumented
# process (ours, or a system program with the runtime preloaded) goes to a
# file in OWLET_SANLOG, whatever the process's exit status or stderr
# redirection; done_testing fails the test when one was written.  Leak
# reports inside system programs are suppressed one by one in
# tests/lib/lsan.supp; leaks in our code never are.  A test that re-executes
# itself (in a namespace) keeps the directory it inherited.
OWLET_SANITIZE= OWLET_ASAN_RT= OWLET_SAN_PRELOAD=
if [ -f "$B/sanitize" ]; then
	. "$B/sanitize"
	if [ -z "${OWLET_SANLOG:-}" ] || [ ! -d "$OWLET_SANLOG" ]; then
		OWLET_SANLOG=$(mktemp -d /tmp/owlet-san.XXXXXX)
		chmod 1777 "$OWLET_SANLOG"	# test users' processes report too
		export ASAN_OPTIONS="log_path=$OWLET_SANLOG/report:detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
		export UBSAN_OPTIONS="log_path=$OWLET_SANLOG/report:print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
		export LSAN_OPTIONS="suppressions=$TOP/tests/lib/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
	fi
	export OWLET_SANLOG
else
	OWLET_SANLOG=
fi

# preload [SO...]: an LD_PRELOAD value with SO... and, in a sanitizer
# build, the ASan runtime first (it must be the first object loaded, before
# an uninstrumented program dlopens our NSS or PAM module), then
# $B/tests/lsan_off.so (tests/lib/lsan_off.c: no leak check in a process
# without owlet code, or one that cannot be checked) and OWLET_SAN_PRELOAD.
# Empty, or $LD_PRELOAD unchanged, without SO and outside a sanitizer build.
preload() {
	_pl=$OWLET_ASAN_RT
	[ -z "$_pl" ] || [ ! -f "$B/tests/lsan_off.so" ] ||
		_pl=$_pl:$B/tests/lsan_off.so
	_pl=$_pl${OWLET_SAN_PRELOAD:+:$OWLET_SAN_PRELOAD}
	for _so in "${@:-${LD_PRELOAD:-}}"; do
		[ -n "$_so" ] && _pl=${_pl:+$_pl:}$_so
	done
	printf '%s' "$_pl"
}

# need_plain_build: skip a test that runs owlet's programs inside a
# chroot of a Debian root (the image, the packages): there a sanitizer
# build's programs cannot load their runtime, and the same C code is run
# under ASan by the tests that drive it from the host.
need_plain_build() {
	[ -z "$OWLET_SANITIZE" ] ||
		skip_all "runs owlet inside a chroot: plain build only (the same code runs under ASan in the host-side tests)"
}

_tap_planned=
plan() { echo "1..$1"; _tap_planned=1; }
# The test's name in messages and OWLET_TAP_TIMES: its path, with "@san"
# for the sanitizer build (make check CHECK_SANITIZED=1 runs both).
_tap_name=${0#"$TOP"/}${OWLET_SANITIZE:+@san}
skip_all() { _san_check || exit 1; echo "1..0 # SKIP $*"; exit 0; }
diag() { printf '%s\n' "$@" | sed 's/^/# /' >&2; }	# every line a comment

# ok STATUS DESC: STATUS is an exit code (0 = pass).  With OWLET_TAP_TIMES
# set to a file, each result is also appended to it with the time (epoch
# seconds) and the test's name: where a long test spends its time.
ok() {
	_tap_n=$((_tap_n + 1))
	[ -z "${OWLET_TAP_TIMES:-}" ] ||
		printf '%s %s %s %s\n' "$(date +%s)" "$_tap_name" "$_tap_n" "$2" >> "$OWLET_TAP_TIMES"
	if [ "$1" -eq 0 ]; then
		echo "ok $_tap_n - $2"
	else
		echo "not ok $_tap_n - $2"
		# on stderr too: prove -j shows a test's stderr, not its TAP
		printf '# not ok %s - %s (%s)\n' "$_tap_n" "$2" "$_tap_name" >&2
		_tap_fail=$((_tap_fail + 1))
	fi
}
# skip DESC REASON: a check not run here, and why (TAP SKIP).
skip() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $1 # SKIP $2"; }
# todo STATUS DESC REASON: ok, marked TODO (TAP): a failure is expected
# until REASON is done, and fails neither the test nor the run (prove
# counts a pass as "unexpectedly succeeded").
todo() {
	_tap_n=$((_tap_n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $_tap_n - $2 # TODO $3"
	else echo "not ok $_tap_n - $2 # TODO $3"; fi
}
# t DESC CMD...: run CMD, pass if it exits 0.
t() { _d=$1; shift; "$@" >/dev/null 2>&1; ok $? "$_d"; }
# tfail DESC CMD...: pass if CMD exits non-zero.
tfail() { _d=$1; shift; if "$@" >/dev/null 2>&1; then ok 1 "$_d"; else ok 0 "$_d"; fi; }
# is GOT WANT DESC
is() {
	if [ "$1" = "$2" ]; then ok 0 "$3"; else
		ok 1 "$3"; diag "got:  '$1'" "want: '$2'"; fi
}
# like GOT REGEX DESC
like() {
	if printf '%s' "$1" | grep -Eq -- "$2"; then ok 0 "$3"; else
		ok 1 "$3"; diag "got:  '$1'" "want match: '$2'"; fi
}
# re_ok TEXT ERE DESC: passes when the whole multi-line TEXT matches ERE
# (bash's =~; ${nl} is a newline), for answers of several commands.
re_ok() {
	[[ $1 =~ $2 ]]
	ok $? "$3"
	[[ $1 =~ $2 ]] || diag "got: '$1'"
}
nl=$'\n'
# unlike GOT REGEX DESC: passes when GOT does not match
unlike() {
	if printf '%s' "$1" | grep -Eq -- "$2"; then
		ok 1 "$3"; diag "got:  '$1'" "want no match: '$2'"
	else ok 0 "$3"; fi
}
# _san_check: in a sanitizer build, fails (status 1) and shows the reports
# when a process wrote one; removes OWLET_SANLOG.
_san_check() {
	[ -n "$OWLET_SANLOG" ] && [ -d "$OWLET_SANLOG" ] || return 0
	_sl=$(find "$OWLET_SANLOG" -type f | sort)
	for _f in $_sl; do
		diag "sanitizer report ${_f##*/}:"
		head -c 8000 "$_f" | sed 's/^/# /' >&2
	done
	rm -rf "$OWLET_SANLOG"
	[ -z "$_sl" ]
}
# done_testing: prints the plan if none was given, exits 1 on any failure.
done_testing() {
	_san_check || { diag "sanitizer reports: failing"; _tap_fail=$((_tap_fail + 1)); }
	[ -n "$_tap_planned" ] || echo "1..$_tap_n"
	exit $((_tap_fail > 0))
}
