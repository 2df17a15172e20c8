#!/bin/bash
# seal create/verify: determinism, every kind of change detected, specs of
# NetBSD mtree and bsdtar accepted, ours accepted by NetBSD mtree, bad input.
. "$(dirname "$0")/../lib/tap.sh"
SEAL=$B/bin/seal
T=$(mktemp -d /tmp/owlet-seal.XXXXXX)
trap 'rm -rf "$T"' EXIT

# A tree with every type, odd names, hard links, set-ID bits.
mk_tree() {
	rm -rf "$1"; mkdir -p "$1/d1/sub" "$1/d2" "$1/empty"
	(cd "$1" &&
	echo hello > a && ln a hard && ln -s a lnk && ln -s /nowhere dangling &&
	printf 'x' > 'space name' && printf 'y' > 'hash#star*q?[b' &&
	printf 'z' > "$(printf 'ctl\001\tnl\nend')" && printf 'u' > "$(printf 'utf\303\251')" &&
	mkfifo fifo && head -c 300000 /dev/urandom > d1/big && : > d2/zero &&
	echo s > d1/sub/suid && chmod 4755 d1/sub/suid && chmod 2750 d2 &&
	chmod 1777 empty)
	if [ "$(id -u)" = 0 ]; then
		mknod "$1/d1/null" c 1 3
		chown 1:1 "$1/d1/f" 2>/dev/null || { echo f > "$1/d1/f"; chown 1:1 "$1/d1/f"; }
	fi
}
R=$T/r
mk_tree "$R"

$SEAL create -p "$R" -o "$T/spec"; ok $? "create"
$SEAL create -p "$R" > "$T/spec2"
cmp -s "$T/spec" "$T/spec2"; ok $? "same tree, same bytes"
$SEAL create -p "$R" -j 1 > "$T/spec3"
cmp -s "$T/spec" "$T/spec3"; ok $? "one thread or many, same bytes"
cp -a "$R" "$T/copy"
$SEAL create -p "$T/copy" > "$T/spec4"
cmp -s "$T/spec" "$T/spec4"; ok $? "a copy of the tree gives the same bytes"
like "$(head -1 "$T/spec")" '^#mtree$' "#mtree header, no date/host/user"
tfail "no volatile data (no time= by default)" grep -q ' time=' "$T/spec"
like "$(grep '^suid ' "$T/spec")" "mode=4755" "set-uid bit recorded"
like "$(grep '^hash' "$T/spec")" '^hash\\043star\\052q\\077\\133b ' "glob and # escaped in octal"
like "$(grep -c 'nlink=2' "$T/spec")" '^2$' "hard links carry nlink"
$SEAL verify -f "$T/spec" -p "$R" > "$T/out"; ok $? "verify of the unchanged tree: exit 0"
is "$(cat "$T/out")" "" "and no output"

# Every kind of change, each on a fresh copy: exit 2 and the right report.
change() {	# change DESC PATTERN CMD (run inside the copy)
	local c=$T/c out rc
	rm -rf "$c"; cp -a "$R" "$c"
	(cd "$c" && eval "$3")
	out=$($SEAL verify -f "$T/spec" -p "$c" 2>&1); rc=$?
	is "$rc" 2 "$1: exit 2"
	like "$out" "$2" "$1: reported"
}
change "content" '^\./d1/big: sha256digest \(' 'printf X | dd of=d1/big bs=1 seek=1000 conv=notrunc 2>/dev/null'
change "content, same size and mtime" '^\./a: sha256digest' 'm=$(stat -c %y a); printf jello > a; echo >> a; touch -d "$m" a'
change "mode" '^\./a: permissions \(0644, 0600\)' 'chmod 600 a'
change "set-uid bit added" '^\./d2/zero: permissions \(0644, 4644\)' 'chmod u+s d2/zero'
change "set-gid removed" '^\./d2: permissions \(2750, 0750\)' 'chmod g-s d2'
change "owner" '^\./a: uid \(0, 2\)' 'chown 2 a'
change "group" '^\./a: gid \(0, 3\)' 'chgrp 3 a'
change "symlink retargeted" '^\./lnk: link \(a, hard\)' 'ln -sfn hard lnk'
change "file added" '^\./new: extra' 'touch new'
change "directory added (one line)" '^\./newdir: extra$' 'mkdir -p newdir/x/y && touch newdir/x/y/z'
change "file removed" '^\./d2/zero: missing' 'rm d2/zero'
change "directory removed (one line)" '^\./d1/sub: missing$' 'rm -r d1/sub'
change "type changed" '^\./fifo: type \(fifo, file\)' 'rm fifo && touch fifo'
change "file became a directory" '^\./a: type \(file, dir\)' 'rm a && mkdir a'
change "size" '^\./d2/zero: size \(0, 1\)' 'echo > d2/zero'
change "hard link broken" '^\./a: nlink \(2, 1\)' 'rm hard'
if command -v setcap >/dev/null && [ "$(id -u)" = 0 ]; then
	change "capability added" '^\./a: capability \(none, 0' 'setcap cap_net_raw+ep a'
else
	ok 0 "# SKIP capability added: setcap unavailable"; ok 0 "# SKIP"
fi
out=$($SEAL verify --json -f "$T/spec" -p "$T/c" 2>&1)
like "$out" '"extra": 0' "--json report parses as a summary"

# One JSON string rule (common/escape.c): well-formed UTF-8 passes as is,
# control characters are \u escapes, a byte of no UTF-8 sequence is the
# lone surrogate \udcXX (Python's surrogateescape gives the bytes back).
J=$T/j; rm -rf "$J"; mkdir "$J"
$SEAL create -p "$J" > "$T/jspec"
(cd "$J" && touch "$(printf 'utf\303\251')" "$(printf 'bad\377x\300\257')" \
    "$(printf 'ctl\001\033[2J\r\nend\302\233')")
$SEAL verify --json -f "$T/jspec" -p "$J" > "$T/j.json"
is "$?" 2 "verify --json on a tree with odd names: exit 2"
is "$(grep -c "$(printf 'utf\303\251')" "$T/j.json")" 1 "a UTF-8 name passes through unescaped"
is "$(LC_ALL=C grep -caP '[\x00-\x09\x0b-\x1f\x7f]' "$T/j.json")" 0 "no raw control byte"
python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
got = sorted(d["path"].encode("utf-8", "surrogateescape") for d in j["differences"])
want = sorted([b"./utf\xc3\xa9", b"./bad\xffx\xc0\xaf", b"./ctl\x01\x1b[2J\r\nend\xc2\x9b"])
sys.exit(0 if got == want else 1)' "$T/j.json"
ok $? "the report parses (python3 json) and gives every name back byte for byte"
like "$(cat "$T/j.json")" 'ctl\\u0001\\u001b\[2J\\u000d\\u000aend\\u009b' "control characters (C0 and C1) as \\u escapes"
like "$(cat "$T/j.json")" 'bad\\udcffx\\udcc0\\udcaf' "invalid bytes (and an overlong form) as \\udcXX"
# text: a link target is any bytes, never written raw
rm -rf "$T/c"; cp -a "$R" "$T/c"; ln -sfn "$(printf 'x\033[2J\r\nfake\377')" "$T/c/lnk"
out=$($SEAL verify -f "$T/spec" -p "$T/c" 2>&1)
is "$(printf '%s\n' "$out" | LC_ALL=C grep -caP '[\x00-\x09\x0b-\x1f\x7f-\xff]')" 0 \
    "text report: no control byte from a link target"
like "$out" '^\./lnk: link \(a, x\\x1b\[2J\\x0d\\x0afake\\xff\)$' "the target escaped as \\xHH"
# a message naming a spec's entry writes it in the spec's escaped form
mkdir -p "$T/dup" && printf '#mtree\n./x\\033[2Jy type=file\n./a type=file\n./x\\033[2Jy type=file\n' > "$T/dup.spec"
out=$($SEAL verify -f "$T/dup.spec" -p "$T/dup" 2>&1)
is "$out" "seal: $T/dup.spec: duplicate entry ./x\\033\\1332Jy" "a duplicate entry is named escaped"

# Interoperability.
mtree -f "$T/spec" -p "$R" >/dev/null 2>&1 || true
$SEAL create --portable -p "$R" > "$T/portable"
tfail "--portable writes no capability keyword" grep -q 'capability' "$T/portable"
out=$(mtree -f "$T/portable" -p "$R" 2>&1); rc=$?
is "$rc:$out" "0:" "NetBSD mtree verifies our --portable spec silently"
mtree -c -K sha256 -p "$R" > "$T/netbsd.spec" 2>/dev/null
out=$($SEAL verify -f "$T/netbsd.spec" -p "$R" 2>&1); rc=$?
is "$rc:$out" "0:" "we accept NetBSD mtree -c's spec (files-first order, C-style escapes)"
(cd "$R" && bsdtar --format=mtree --options=sha256 -cf - .) > "$T/bsdtar.spec" 2>/dev/null
out=$($SEAL verify -f "$T/bsdtar.spec" -p "$R" 2>&1); rc=$?
is "$rc:$out" "0:" "we accept bsdtar's full-path, unsorted spec"
rm -rf "$T/c"; cp -a "$R" "$T/c"; chmod 600 "$T/c/a"
$SEAL verify -f "$T/bsdtar.spec" -p "$T/c" >/dev/null 2>&1
is "$?" 2 "and detect a change against it"

# Bad specs: clear error naming the line, exit 1, no differences printed.
bad() {	# bad DESC PATTERN CONTENT
	printf '%s' "$3" > "$T/bad"
	out=$($SEAL verify -f "$T/bad" -p "$R" 2>&1); rc=$?
	is "$rc" 1 "$1: exit 1"
	like "$out" "$2" "$1: message"
}
bad "garbled line" 'bad:2: unknown keyword: garbage' $'#mtree\n. type=dir garbage\n'
bad "truncated keyword" 'bad:2: bad mode' $'#mtree\n. type=dir mode=\n'
bad "unknown keyword" 'bad:3: unknown keyword: colour' $'#mtree\n. type=dir\na type=file colour=red\n'
bad "bad escape" 'bad:3: bad escape in name' $'#mtree\n. type=dir\na\\q type=file\n'
bad "entry without type" 'bad:3: entry without type' $'#mtree\n. type=dir\na mode=0644\n'
bad "bad digest" 'bad:3: bad sha256' $'#mtree\n. type=dir\na type=file sha256digest=12\n'
bad ".. above the root" 'bad:3: ".." above the root' $'#mtree\n. type=dir\n..\n..\n'
bad "dot-dot in a full path" 'bad:2: empty, "." or ".." path component' $'#mtree\n./a/../b type=file\n'
{ printf '#mtree\n. type=dir\n'; head -c 1048576 /dev/zero | tr '\0' a; printf ' type=file\n'; } > "$T/long"
out=$($SEAL verify -f "$T/long" -p "$R" 2>&1); rc=$?
is "$rc" 1 "1 MiB line: exit 1"
like "$out" 'long:3: line too long' "1 MiB line: message"
printf '#mtree\n. type=dir\n\0a type=file\n' > "$T/nul"
$SEAL verify -f "$T/nul" -p "$R" >/dev/null 2>&1; is "$?" 1 "NUL byte: exit 1"
$SEAL verify -f "$T/nonexistent" -p "$R" >/dev/null 2>&1; is "$?" 1 "missing spec file: exit 1"
$SEAL create -k nosuchkey -p "$R" >/dev/null 2>&1; is "$?" 1 "unknown -k keyword: exit 1"

# A tree's etc/passwd is read line by line whole: a 9,000-byte line whose
# tail (past 8 KiB) reads "evil:x:0:..." must not become an entry naming
# uid 0 (fgets into 8 KiB made it one).  seal refuses the tree's database,
# naming the line, rather than describe files with names it cannot trust.
mkdir -p "$T/evil/etc"
{ printf 'longuser:x:1234:1234:'; head -c $((8191 - 21)) /dev/zero | tr '\0' a
  printf 'evil:x:0:0::/:/bin/sh\n'
  printf 'nobody:x:65534:65534::/:/bin/sh\n'; } > "$T/evil/etc/passwd"
printf 'root:x:0:\n' > "$T/evil/etc/group"
is "$(sed -n 1p "$T/evil/etc/passwd" | wc -c)" 8213 "the long line is 8,212 bytes and a newline"
out=$($SEAL create -p "$T/evil" 2>&1); rc=$?
is "$rc" 1 "a passwd line over 8 KiB: exit 1"
like "$out" "evil/etc/passwd:1: line too long" "a passwd line over 8 KiB: message names file:line"
unlike "$out" "uname=evil" "uid 0 is never named evil"
$SEAL create -p "$T/evil" -o "$T/evil.spec" 2>/dev/null
t "-o: no spec and no temp file left" test ! -e "$T/evil.spec" -a ! -e "$T/evil.spec.tmp"
$SEAL verify -f /dev/null -p "$T/evil" >/dev/null 2>&1
is "$?" 1 "verify refuses the tree's passwd too"
# a group line too long, the same
{ printf 'big:x:4242:'; head -c 9000 /dev/zero | tr '\0' m; printf '\nevil:x:0:\n'; } > "$T/evil/etc/group"
sed -i 2,3d "$T/evil/etc/passwd"; sed -i '1c root:x:0:0::/:/bin/sh' "$T/evil/etc/passwd"
out=$($SEAL create -p "$T/evil" 2>&1); rc=$?
is "$rc" 1 "a group line over 8 KiB: exit 1"
like "$out" "evil/etc/group:1: line too long" "a group line over 8 KiB: message names file:line"
printf 'root:x:0:\n' > "$T/evil/etc/group"
out=$($SEAL create -p "$T/evil" 2>&1); rc=$?
is "$rc" 0 "the same tree with sane files: exit 0"
like "$out" "^\. type=dir .*uname=root gname=root" "and uid 0 is root"

# -x excludes, -o is atomic.
$SEAL create -p "$R" -x d1 -x ./a > "$T/excl"
tfail "-x excludes a subtree" grep -q '^big ' "$T/excl"
tfail "-x excludes a file" grep -q '^a ' "$T/excl"
# verify --exclude leaves the path out on both sides: a file and a
# subtree gone from the tree, a file added, are not reported (./hard is
# ./a's hard link: its link count changes).
cp -a "$R" "$T/xtree"
$SEAL create -p "$T/xtree" > "$T/xtree.spec"
rm -rf "$T/xtree/d1" "$T/xtree/a"
echo new > "$T/xtree/added"
out=$($SEAL verify -f "$T/xtree.spec" -p "$T/xtree" --exclude d1 --exclude /a \
    --exclude ./added --exclude hard 2>&1)
is "$?:$out" "0:" "verify --exclude: a removed file, a removed subtree and an added file are not reported"
out=$($SEAL verify -f "$T/xtree.spec" -p "$T/xtree" --exclude d1 2>&1)
like "$out" "a: missing" "... and without their --exclude, they are"
rm -rf "$T/xtree" "$T/xtree.spec"
$SEAL create -p "$T/nonexistent" -o "$T/out.spec" 2>/dev/null
ok $(( $? != 0 ? 0 : 1 )) "create of a missing tree fails"
tfail "and leaves no spec behind" test -e "$T/out.spec"
tfail "nor a temp file" test -e "$T/out.spec.tmp"

# gname= of a group whose entry needs more than 4 KiB (1000 members):
# getgrgid_r's ERANGE is retried with a bigger buffer, the name not lost.
# The host's databases are read, so in a private mount namespace with our
# own /etc.
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	mkdir -p "$T/big/etc" "$T/big/tree"
	cp /etc/passwd /etc/nsswitch.conf "$T/big/etc/"
	cp /etc/ld.so.cache "$T/big/etc/" 2>/dev/null
	{ cat /etc/group
	  printf 'owletbig:x:4242:%s\n' "$(seq -f 'member%g' 1 1000 | paste -sd,)"
	} > "$T/big/etc/group"
	echo x > "$T/big/tree/f"
	chgrp 4242 "$T/big/tree/f"
	out=$(unshare -m --propagation private -- sh -c \
	    'mount --bind "$1/etc" /etc && exec "$2" create -p "$1/tree"' \
	    sh "$T/big" "$SEAL" | grep '^f ')
	like "$out" ' gid=4242 uname=root gname=owletbig ' \
	    "gname of a group whose entry exceeds 4 KiB"
fi

done_testing
