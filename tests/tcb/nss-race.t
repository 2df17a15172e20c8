#!/bin/bash
# Regression: a lookup racing a password change.  A writer replaces
# /etc/tcb/u1/shadow by rename() in a tight loop (as pam_tcb does) while
# 4 threads look u1 up through glibc; a lookup that opened the old file
# just before the rename sees link count 0, which must not read as a
# planted hard link: every lookup has to return the entry.
. "$(dirname "$0")/../lib/root.sh"
need_root
tmpdir
R=$T/r
mkroot "$R" 2
"$B/sbin/tcb_convert" --root "$R" || { ok 1 "convert"; done_testing; }
printf 'passwd: files\ngroup: files\nshadow: tcb\n' > "$R/etc/nsswitch.conf"
grep '^u1:' "$R/etc/shadow" > "$T/u1.line"
d=$R/etc/tcb/u1
(
	end=$(( $(date +%s) + 4 ))
	while [ "$(date +%s)" -lt "$end" ]; do
		for i in 1 2 3 4 5 6 7 8 9 10; do
			cp -p "$d/shadow" "$d/.new" && mv -f "$d/.new" "$d/shadow"
		done
	done
) &
wpid=$!
out=$(in_ns "$R" "$B/tests/bin/spprobe" threads "$T/u1.line" 4 20000)
kill "$wpid" 2>/dev/null; wait "$wpid" 2>/dev/null
like "$out" '^threads ok' "80,000 lookups during constant replacement all found the entry"
is "$(cat "$d/shadow")" "$(cat "$T/u1.line")" "entry intact"
done_testing
