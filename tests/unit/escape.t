#!/bin/bash
# common/escape.c: the text rule (owlet_esc) and the JSON string writer
# (owlet_json_put) that control, seal and owlet-setup print names with.
. "$(dirname "$0")/../lib/tap.sh"

U=$B/tests/bin/unitprobe
if [ ! -x "$U" ]; then
	plan 1; ok 1 "unitprobe built (run make check)"; done_testing
fi

# --- text: printable ASCII as is, backslash doubled, other bytes \xHH
is "$("$U" esc 'plain /path-1_x' 64)" '15:plain /path-1_x' "printable ASCII passes"
is "$("$U" esc "$(printf 'a\\b\033[2J\r\nz\177\200\377')" 64)" \
    '32:a\\b\x1b[2J\x0d\x0az\x7f\x80\xff' "backslash doubled, every other byte \\xHH"
is "$("$U" esc "$(printf 'caf\303\251')" 64)" '11:caf\xc3\xa9' "UTF-8 too: the text is ASCII"
# bounded: the longest prefix that fits, never half an escape
is "$("$U" esc 'ab\c' 5)" '5:ab\\' "a buffer of exactly the length + 1 holds it all"
is "$("$U" esc 'ab\c' 4)" '5:ab' "one byte short: the escape is left out whole"
is "$("$U" esc "$(printf 'a\033b')" 5)" '6:a' "a \\xHH escape is never cut"
is "$("$U" esc x 1)" '1:' "a buffer of 1 holds the empty string"
is "$("$U" esc x 0)" '1:' "a buffer of 0 is not written"

# --- JSON: every single byte and the edge cases of UTF-8 give back the
# exact bytes (Python's json, surrogateescape), and no raw control byte
python3 - "$U" <<'PY'
import json, subprocess, sys
cases = [bytes([b]) for b in range(1, 256)] + [
    b"caf\xc3\xa9", b"\xe2\x82\xac", b"\xf0\x9f\x98\x80", b"\xf4\x8f\xbf\xbf",
    b"\xc0\xaf", b"\xc1\xbf", b"\xe0\x80\xaf", b"\xf0\x80\x80\xaf",  # overlong
    b"\xed\xa0\x80", b"\xed\xbf\xbf",                                # surrogates
    b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80",                        # > U+10FFFF
    b"\xe2\x82", b"x\xe2", b"\xc3", b"\x80\x80",                     # cut, stray
    b"\xc2\x80\xc2\x9f\xc2\xa0", b"\xe2\x80\xa8\xe2\x80\xa9",        # C1, U+2028/9
    b'"\\/\x1b[2J\r\n',
]
out = subprocess.run([sys.argv[1], "json"] + cases, capture_output=True,
                     check=True).stdout
lines = out.split(b"\n")[:-1]
bad = []
for want, line in zip(cases, lines):
    if any(c < 0x20 or c == 0x7f for c in line):
        bad.append(("raw control byte", want, line))
        continue
    got = json.loads(line.decode("utf-8")).encode("utf-8", "surrogateescape")
    if got != want:
        bad.append(("not reversible", want, line))
for b in bad[:5]:
    print("#", b)
sys.exit(1 if bad or len(lines) != len(cases) else 0)
PY
ok $? "JSON: 255 single bytes and 21 UTF-8 edge cases parse and give back their bytes"
is "$("$U" json "$(printf 'caf\303\251 \342\202\254')")" "\"$(printf 'caf\303\251 \342\202\254')\"" \
    "well-formed UTF-8 passes through unescaped"
is "$("$U" json "$(printf '\302\233\342\200\250\001\177')")" '"\u009b\u2028\u0001\u007f"' \
    "C1, U+2028, C0 and DEL as \\u escapes"
is "$("$U" json "$(printf '\300\257\355\240\200\377')")" '"\udcc0\udcaf\udced\udca0\udc80\udcff"' \
    "overlong forms, encoded surrogates and invalid bytes as \\udcXX, byte by byte"

done_testing
