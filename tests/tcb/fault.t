#!/bin/bash
# Fault injection over tcb_convert and tcb_unconvert (DESIGN.md, Tests).
#
# For each tool: one run under faultinj.so with FAULT_LOG counts the C
# wrapped calls (open/write/fsync/rename/mkdir/chown/chmod/link families),
# then for N = 1..C the tool runs with FAULT_AT=N on a fresh copy of the
# prepared root.  After each run the whole ROOT/etc tree (paths, types,
# modes, owners, link counts, symlink targets, sha256 of contents; .pwd.lock
# ignored) must be exactly the old state with a non-zero exit, or exactly
# the state of a fault-free run with exit 0.  Never a mix, never debris.
#
# Everything happens under a temp dir through --root; nothing touches /etc.
. "$(dirname "$0")/../lib/root.sh"

need_root
SO=$B/tests/faultinj.so
CONVERT=$B/sbin/tcb_convert
UNCONVERT=$B/sbin/tcb_unconvert
[ -x "$CONVERT" ] && [ -x "$UNCONVERT" ] || skip_all "tcb tools not built"
if [ ! -f "$SO" ]; then
	make -s -C "$TOP" B="$B" "$SO" >/dev/null 2>&1 ||
		skip_all "cannot build $SO"
fi
tmpdir
NUSERS=5
TOOL_TIMEOUT=20

# manifest DIR: a canonical description of DIR/etc.
manifest() {
	(
		cd "$1/etc" || exit 1
		find . -path ./.pwd.lock -prune -o \
		    -printf '%p %y %m %U:%G %n %l\n' | LC_ALL=C sort
		find . -path ./.pwd.lock -prune -o -type f -print0 |
		    LC_ALL=C sort -z | xargs -0r sha256sum
	)
}

# runtool OUTDIR TOOL DIR [VAR=VALUE...]: run TOOL --root DIR with the shim
# preloaded and the given fault variables; exit status in $rc, stderr in
# OUTDIR/err.  env(1) sets LD_PRELOAD so that only the tool loads the shim
# (not timeout(1)).
runtool() {
	_o=$1 _tool=$2 _dir=$3
	shift 3
	timeout -k 5 "$TOOL_TIMEOUT" env LD_PRELOAD="$(preload "$SO")" "$@" \
	    "$_tool" --root "$_dir" >"$_o/out" 2>"$_o/err"
	rc=$?
}

# check_state: did the last run leave old state with exit != 0, or new state
# with exit 0?  Sets $verdict.
check_state() {	# MANIFEST_AFTER OLD NEW
	if [ "$rc" -ge 124 ]; then
		verdict="exit $rc (timeout or signal)"
		return 1
	fi
	if [ "$rc" -ne 0 ] && cmp -s "$1" "$2"; then
		verdict="exit $rc, old state"
		return 0
	fi
	if [ "$rc" -eq 0 ] && cmp -s "$1" "$3"; then
		verdict="exit 0, new state"
		return 0
	fi
	if cmp -s "$1" "$2"; then
		verdict="exit $rc but old state (failure not reported)"
	elif cmp -s "$1" "$3"; then
		verdict="exit $rc but new state (success reported as failure)"
	else
		verdict="exit $rc, MIXED state (neither old nor new)"
	fi
	return 1
}

total_runs=0
total_fail=0

# fault_loop NAME TOOL PREP: count, then fail each call in turn.
fault_loop() {
	_name=$1 _tool=$2 _prep=$3
	_w=$T/work.$_name
	mkdir -p "$T/o.$_name"
	manifest "$_prep" > "$T/old.$_name"

	# Fault-free run: the reference new state, and the call count.
	rm -rf "$_w"; cp -a "$_prep" "$_w"
	runtool "$T/o.$_name" "$_tool" "$_w" FAULT_LOG="$T/count.$_name"
	ok $rc "$_name: fault-free run under the shim exits 0"
	[ "$rc" -eq 0 ] || sed 's/^/#   /' "$T/o.$_name/err" >&2
	manifest "$_w" > "$T/new.$_name"
	! cmp -s "$T/old.$_name" "$T/new.$_name"
	ok $? "$_name: the run changes the tree (old and new distinguishable)"
	C=$(cat "$T/count.$_name" 2>/dev/null || echo 0)
	[ "$C" -gt 10 ]
	ok $? "$_name: $C wrapped calls counted (> 10)"

	# Sanity: a FAULT_AT past the last call must not disturb the tool.
	rm -rf "$_w"; cp -a "$_prep" "$_w"
	runtool "$T/o.$_name" "$_tool" "$_w" FAULT_AT=$((C + 1))
	manifest "$_w" > "$T/m.$_name"
	[ "$rc" -eq 0 ] && cmp -s "$T/m.$_name" "$T/new.$_name"
	ok $? "$_name: FAULT_AT=$((C + 1)) (past the end) gives the new state"

	_old=0 _new=0 _bad=0
	_n=1
	while [ "$_n" -le "$C" ]; do
		rm -rf "$_w"; cp -a "$_prep" "$_w"
		runtool "$T/o.$_name" "$_tool" "$_w" FAULT_AT=$_n
		manifest "$_w" > "$T/m.$_name"
		_call=$(sed -n 's/^faultinj: failing \([^ ]*\) #[0-9]*\(.*\)$/\1\2/p' \
		    "$T/o.$_name/err" | head -n 1)
		[ -n "$_call" ] || _call="no fault hit"
		if check_state "$T/m.$_name" "$T/old.$_name" "$T/new.$_name"; then
			ok 0 "$_name FAULT_AT=$_n ($_call): $verdict"
			case $verdict in *old*) _old=$((_old + 1)) ;;
			*) _new=$((_new + 1)) ;; esac
		else
			ok 1 "$_name FAULT_AT=$_n ($_call): $verdict"
			_bad=$((_bad + 1))
			{
				echo "tool stderr:"
				grep -v '^faultinj:' "$T/o.$_name/err"
				echo "diff old -> after:"
				diff "$T/old.$_name" "$T/m.$_name" | head -n 20
				echo "diff new -> after:"
				diff "$T/new.$_name" "$T/m.$_name" | head -n 20
			} | sed 's/^/#   /' >&2
		fi
		_n=$((_n + 1))
	done
	diag "$_name: C=$C calls; $C runs: $_old old state, $_new new state, $_bad violations"
	total_runs=$((total_runs + C))
	total_fail=$((total_fail + _bad))
}

# --- tcb_convert: a plain root with 5 users; group auth is added ---------
P1=$T/prep.convert
mkroot "$P1" "$NUSERS"

# Reference check of the fault-free result against the spec, so that the
# "new state" the loop compares with is itself right.
R=$T/ref.convert
cp -a "$P1" "$R"
"$CONVERT" --root "$R" >/dev/null 2>&1
ok $? "tcb_convert without the shim exits 0"
is "$(stat -c '%u:%g %a' "$R/etc/tcb" 2>&1)" "0:42 710" \
    "tcb_convert: /etc/tcb is root:shadow 0710"
bad=0
while IFS= read -r line; do
	u=${line%%:*}
	[ "$(cat "$R/etc/tcb/$u/shadow" 2>/dev/null)" = "$line" ] &&
	[ "$(wc -l < "$R/etc/tcb/$u/shadow")" = 1 ] || bad=$((bad + 1))
done < "$P1/etc/shadow"
is "$bad" 0 "tcb_convert: every tcb/USER/shadow holds exactly its line"
grep -q '^auth:' "$R/etc/group" && grep -q '^auth:' "$R/etc/gshadow"
ok $? "tcb_convert: group auth added to group and gshadow"
[ ! -e "$R/etc/.tcb.new" ]
ok $? "tcb_convert: no staging directory left"

fault_loop tcb_convert "$CONVERT" "$P1"

# TCB_AUTH_GROUP no: the tree uses group shadow, directories 2700 and
# files 0600 (group auth is still added, as tcb_convert always does).
P1b=$T/prep.convert-noauth
mkroot "$P1b" "$NUSERS"
sed -i 's/^TCB_AUTH_GROUP yes$/TCB_AUTH_GROUP no/' "$P1b/etc/login.defs"
fault_loop tcb_convert-noauth "$CONVERT" "$P1b"

# --- tcb_unconvert: converted root whose shadow is stale or missing ------
P2=$T/prep.unconvert
cp -a "$R" "$P2"
# Stale shadow: every user's hash differs from the tcb file, and one user
# is missing, so the rebuilt file is distinguishable from the old one.
sed -e 's/hash/OLDhash/' -e '/^u2:/d' "$R/etc/shadow" > "$P2/etc/shadow.tmp"
chown 0:42 "$P2/etc/shadow.tmp"
chmod 0640 "$P2/etc/shadow.tmp"
mv "$P2/etc/shadow.tmp" "$P2/etc/shadow"

R2=$T/ref.unconvert
cp -a "$P2" "$R2"
"$UNCONVERT" --root "$R2" >/dev/null 2>&1
ok $? "tcb_unconvert without the shim exits 0"
cmp -s "$R2/etc/shadow" "$P1/etc/shadow"
ok $? "tcb_unconvert: shadow rebuilt in passwd order from tcb"
is "$(stat -c '%u:%g %a' "$R2/etc/shadow" 2>&1)" "0:42 640" \
    "tcb_unconvert: shadow is root:shadow 0640"
is "$(stat -c '%a' "$R2/etc/tcb" 2>&1)" "700" \
    "tcb_unconvert: /etc/tcb left 0700 on success (restored only on failure)"

fault_loop tcb_unconvert "$UNCONVERT" "$P2"

# Same with no shadow at all (e.g. removed after conversion).
P3=$T/prep.unconvert-noshadow
cp -a "$R" "$P3"
rm -f "$P3/etc/shadow"
fault_loop tcb_unconvert-noshadow "$UNCONVERT" "$P3"

diag "fault injection: $total_runs runs, $total_fail violations"
plan "$_tap_n"
echo "# $((_tap_n - _tap_fail)) passed, $_tap_fail failed"
done_testing
