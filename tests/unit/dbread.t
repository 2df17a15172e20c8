#!/bin/bash
# owlet_db_* (common/dbread.c): passwd/group lines read whole, fields and
# ids as the rest of owlet reads them; a long line is an error naming it.
. "$(dirname "$0")/../lib/root.sh"

U=$B/tests/bin/unitprobe
if [ ! -x "$U" ]; then
	plan 1; ok 1 "unitprobe built (run make check)"; done_testing
fi
tmpdir

printf '%s\n' 'root:x:0:0:root:/root:/bin/bash' 'u1:x:1001:100::/home/u1:/bin/sh' \
    'short:x:5' 'extra:x:6:6:::/bin/sh:more' 'wrap:x:4294967338:0::/:/bin/sh' \
    'badgid:x:7:+7::/:/bin/sh' '' > "$T/passwd"
is "$("$U" db "$T/passwd")" "1 7 1 0 root
2 7 1 1001 u1
3 3 0 5 short
4 8 0 6 extra
5 7 0 0 wrap
6 7 0 7 badgid
7 1 0 0 
eof" "passwd: fields, ids, well-formed flag per line"

printf '%s\n' 'root:x:0:' 'shadow:x:42:a,b' 'nomembers:x:43' 'neg:x:-1:' > "$T/group"
is "$("$U" db "$T/group")" "1 4 1 0 root
2 4 1 42 shadow
3 3 0 43 nomembers
4 4 0 0 neg
eof" "group: four fields"

{ printf 'long:x:1:1:'; head -c 9000 /dev/zero | tr '\0' a
  printf 'evil:x:0:0::/:/bin/sh\nafter:x:2:2::/:/bin/sh\n'; } > "$T/passwd"
is "$("$U" db "$T/passwd")" "err 1 E2BIG" "a 9,000-byte line is an error at line 1, never split"
printf 'a:x:1:1::/:/bin/sh\nb:x:\0:2::/:/bin/sh\n' > "$T/passwd"
is "$("$U" db "$T/passwd")" "1 7 1 1 a
err 2 EINVAL" "a NUL byte is an error naming its line"
done_testing
