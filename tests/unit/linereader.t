#!/bin/bash
# owlet_lines_next (common/linereader.c): bounded line reader.  The bound is
# OWLET_LINE_MAX = 8192 bytes per line counting its newline, i.e. at most
# 8191 characters -- the same bound libnss_tcb puts on a tcb file.
. "$(dirname "$0")/../lib/root.sh"

U=$B/tests/bin/unitprobe
if [ ! -x "$U" ]; then
	plan 1; ok 1 "unitprobe built (run make check)"; done_testing
fi
plan 22

tmpdir
rep() { head -c "$1" /dev/zero | tr '\0' "${2:-a}"; }
lines() { timeout 10 "$U" lines "$1" | tr '\n' ' '; }

f=$T/f
{ rep 8191; echo; } > "$f"
is "$(wc -c < "$f")" 8192 "fixture: a line of 8192 bytes with its newline"
is "$(lines "$f")" "1 8191 eof " "a line of exactly 8192 bytes (8191 + newline) is read"
{ rep 8192; echo; } > "$f"
is "$(lines "$f")" "err 1 E2BIG " "a line of 8193 bytes (8192 + newline): E2BIG"
rep 8191 > "$f"
is "$(lines "$f")" "1 8191 eof " "a last line of 8191 bytes without newline is returned"
rep 8192 > "$f"
is "$(lines "$f")" "err 1 E2BIG " "a last line of 8192 bytes without newline: E2BIG"
{ echo short; rep 9000; echo; echo after; } > "$f"
is "$(lines "$f")" "1 5 err 2 E2BIG " "E2BIG names the long line (2), after the good one"
rep 100000 > "$f"
is "$(lines "$f")" "err 1 E2BIG " "a 100000-byte line: E2BIG, not split"

printf 'abc\0def\n' > "$f"
is "$(lines "$f")" "err 1 EINVAL " "a NUL byte inside a line: EINVAL"
printf 'ok\nabc\0' > "$f"
is "$(lines "$f")" "1 2 err 2 EINVAL " "a NUL byte in a last line without newline: EINVAL"
printf '\0\n' > "$f"
is "$(lines "$f")" "err 1 EINVAL " "a line that is just a NUL: EINVAL"

: > "$f"
is "$(lines "$f")" "eof " "empty file: no lines"
printf '\n\n' > "$f"
is "$(lines "$f")" "1 0 2 0 eof " "two empty lines"
printf 'a\nbc' > "$f"
is "$(lines "$f")" "1 1 2 2 eof " "last line without newline is returned"
printf 'a\n\n' > "$f"
is "$(lines "$f")" "1 1 2 0 eof " "a final empty line is a line"
printf 'a\r\n' > "$f"
is "$(lines "$f")" "1 2 eof " "CR is content (only LF ends a line)"

# Lines straddling buffer refills: exact contents must come back.
{ rep 8191 a; echo; rep 8191 b; echo; echo c; rep 8190 d; echo; rep 4096 e; echo; rep 4095 f; echo; rep 8191 g; } > "$f"
is "$(lines "$f")" "1 8191 2 8191 3 1 4 8190 5 4096 6 4095 7 8191 eof " "long lines across refills: lengths"
{ cat "$f"; echo; } > "$f.want"
timeout 10 "$U" cat "$f" > "$f.got"
t "long lines across refills: contents" cmp "$f.want" "$f.got"

# Many random lines (lengths 0..8191), compared byte for byte.
perl -e 'srand(42); for (1..2000) { my $n = int(rand() ** 3 * 8192);
	print join("", map { chr(33 + int(rand(90))) } 1..$n), "\n" }' > "$f"
is "$(wc -l < "$f")" 2000 "fixture: 2000 random lines"
timeout 10 "$U" cat "$f" > "$f.got"
t "2000 random lines of up to 8191 bytes read back exactly" cmp "$f" "$f.got"
is "$(timeout 10 "$U" lines "$f" | tail -1)" eof "... and the reader ends with EOF"
got=$(timeout 10 "$U" lines "$f" | sed '$d' | awk '{print $2}' | md5sum)
want=$(LC_ALL=C awk '{print length($0)}' "$f" | md5sum)
is "$got" "$want" "... with the right length for every line"
# A pipe delivers short reads.
mkfifo "$T/p"
( for i in 1 2 3; do printf 'part%d' "$i"; sleep 0.05; done; echo; echo tail ) > "$T/p" &
is "$(lines "$T/p")" "1 15 2 4 eof " "a line arriving in pieces through a pipe"
wait

done_testing
