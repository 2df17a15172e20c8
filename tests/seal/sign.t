#!/bin/bash
# seal keygen/sign/verify -P: minisign's formats both ways (minisign 0.11
# verifies our signatures and uses our keys, we verify and use its), signify
# signatures (detached, embedded), the signature checked before the spec is
# parsed, and every kind of bad key or signature refused with exit 1.
. "$(dirname "$0")/../lib/tap.sh"
SEAL=$B/bin/seal
command -v minisign >/dev/null 2>&1 || skip_all "minisign not installed (make deps)"
command -v signify-openbsd >/dev/null 2>&1 || skip_all "signify-openbsd not installed (make deps)"
T=$(mktemp -d /tmp/owlet-sign.XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
umask 022
unset SEAL_PASSFD
# Cheap scrypt for our own encrypted keys (stored in the file, so minisign
# decrypts them with the same parameters): N=2^11, r=8, p=1.
LOW="SEAL_SCRYPT_OPSLIMIT=65536 SEAL_SCRYPT_MEMLIMIT=16777216"

# run CMD...: exit status in $rc, output in $T/out and $T/err.
run() { "$@" > "$T/out" 2> "$T/err"; rc=$?; }
# bad DESC REGEX CMD...: exit 1, REGEX on stderr, nothing on stdout.
bad() {
	local d=$1 re=$2; shift 2
	run "$@"
	is "$rc" 1 "$d: exit 1"
	like "$(cat "$T/err")" "$re" "$d: says why"
	is "$(cat "$T/out")" "" "$d: no output (spec not parsed)"
}
# pass PASSPHRASE CMD...: run CMD with the passphrase on descriptor 3.
pass() { local p=$1; shift; SEAL_PASSFD=3 "$@" 3<<< "$p"; }
# Binary surgery on base64 lines: b64dec LINE FILE, b64enc FILE.
b64dec() { printf '%s' "$1" | base64 -d > "$2"; }
b64enc() { base64 -w0 < "$1"; }
# patch FILE OFFSET BYTES(printf format)
patch() { printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none; }

echo hello > f
mkdir -p tree/d && echo one > tree/d/a && echo two > tree/b

# --- keygen -W -------------------------------------------------------------
run $SEAL keygen -W -p w.pub -s w.key
is "$rc" 0 "keygen -W"
is "$(cat out)" "$(sed -n 2p w.pub)" "keygen prints the public key line"
like "$(sed -n 1p w.pub)" '^untrusted comment: minisign public key [0-9A-F]{1,16}$' \
	"public key comment as minisign's"
like "$(sed -n 2p w.pub)" '^RW[A-Za-z0-9+/]{54}$' "public key: 56 base64 chars, 'Ed'"
is "$(wc -l < w.pub)" 2 "public key: 2 lines"
like "$(sed -n 2p w.key)" '^RWQAAEIy[A-Za-z0-9+/=]{204}$' "secret key: 'Ed', no KDF, 'B2', 158 bytes"
is "$(stat -c %a w.key)" 600 "secret key mode 0600"
is "$(stat -c %a w.pub)" 644 "public key mode 0644 (umask)"
cp w.pub w.pub.orig; cp w.key w.key.orig
bad "keygen over an existing pair" 'w\.key: already exists' $SEAL keygen -W -p w.pub -s w.key
cmp -s w.key w.key.orig && cmp -s w.pub w.pub.orig; ok $? "existing keys untouched"
run $SEAL keygen -W -f -p w2.pub -s w.key
r=$rc; cmp -s w.key w.key.orig; changed=$?
[ $r -eq 0 ] && [ $changed -ne 0 ]; ok $? "-f overwrites"
cp w.key.orig w.key
ls -a | grep -q '^\.w\.' ; [ $? -ne 0 ]; ok $? "no temp files left behind"

# --- seal sign, minisign verifies ------------------------------------------
run $SEAL sign -s w.key f
is "$rc" 0 "sign with an unencrypted key"
is "$(sed -n 1p f.minisig)" "untrusted comment: signature from seal secret key" "untrusted comment"
like "$(sed -n 2p f.minisig)" '^RU[A-Za-z0-9+/]{97}=$' "prehashed 'ED' signature, 74 bytes"
like "$(sed -n 3p f.minisig)" "^trusted comment: timestamp:[0-9]+	file:f	hashed\$" \
	"default trusted comment"
is "$(wc -l < f.minisig)" 4 "4 lines"
run minisign -V -p w.pub -m f
is "$rc" 0 "minisign -V accepts our signature"
like "$(cat out)" 'Trusted comment: timestamp:' "minisign shows our trusted comment"
run minisign -V -P "$(sed -n 2p w.pub)" -m f
is "$rc" 0 "minisign -V -P (key string) too"
run $SEAL sign -s w.key -t "release 1.0	build 7" -x f.t f
run minisign -V -p w.pub -m f -x f.t
like "$(cat out)" 'Trusted comment: release 1.0	build 7$' "-t trusted comment, -x sigfile"
echo hellO > f2
run minisign -V -p w.pub -m f2 -x f.minisig
is "$rc" 1 "minisign: our signature does not fit another file"
bad "sign: trusted comment with a newline" 'trusted comment must be one line' \
	$SEAL sign -s w.key -t "$(printf 'a\nb')" -x f.x f
bad "sign: missing file" 'nofile' $SEAL sign -s w.key nofile
touch "$(printf 'bad\033name')"
bad "sign: control characters in the name" 'name has control characters' \
	$SEAL sign -s w.key "$(printf 'bad\033name')"
run $SEAL sign -s w.key -t ok "$(printf 'bad\033name')"
is "$rc" 0 "... fine with -t"

# --- encrypted keys (SEAL_PASSFD) ------------------------------------------
run env $LOW SEAL_PASSFD=3 $SEAL keygen -p e.pub -s e.key 3<<< "correct horse"
is "$rc" 0 "keygen with a passphrase (SEAL_PASSFD)"
b64dec "$(sed -n 2p e.key)" e.bin
is "$(head -c 6 e.bin)" "EdScB2" "secret key: KDF 'Sc', checksum 'B2'"
is "$(od -An -tu8 -j38 -N16 e.bin | xargs)" "65536 16777216" \
	"scrypt limits stored in the key file"
run pass "correct horse" $SEAL sign -s e.key -x f.e f
is "$rc" 0 "sign with the right passphrase"
run minisign -V -p e.pub -m f -x f.e
is "$rc" 0 "minisign verifies it"
bad "sign with a wrong passphrase" 'e\.key: wrong passphrase' \
	pass "correct horsE" $SEAL sign -s e.key -x f.e2 f
[ ! -e f.e2 ]; ok $? "... and writes no signature"
bad "no terminal, no SEAL_PASSFD" 'no terminal' setsid -w $SEAL sign -s e.key -x f.e2 f
bad "passphrase too long" 'passphrase too long' \
	pass "$(head -c 2000 /dev/zero | tr '\0' x)" $SEAL sign -s e.key -x f.e2 f
bad "keygen: empty passphrase" 'empty passphrase' \
	env $LOW SEAL_PASSFD=3 $SEAL keygen -p e0.pub -s e0.key 3<<< ""
bad "keygen: bad scrypt limit" 'SEAL_SCRYPT_OPSLIMIT: not a decimal' \
	env SEAL_SCRYPT_OPSLIMIT=12k SEAL_PASSFD=3 $SEAL keygen -p e0.pub -s e0.key 3<<< "x"
bad "keygen: absurd scrypt limits" 'scrypt limits' \
	env SEAL_SCRYPT_OPSLIMIT=99999999999999 SEAL_PASSFD=3 $SEAL keygen -p e0.pub -s e0.key 3<<< "x"
[ ! -e e0.key ] && [ ! -e e0.pub ]; ok $? "... and no key files"
# minisign uses our encrypted key (passphrase on its stdin).
run minisign -S -s e.key -m f -x f.me <<< "correct horse"
is "$rc" 0 "minisign -S with our encrypted key"
run minisign -V -p e.pub -m f -x f.me
is "$rc" 0 "... verifies"
# scrypt limits in libsodium's other branch (N from mem, p = 32).
run env SEAL_SCRYPT_OPSLIMIT=1048576 SEAL_SCRYPT_MEMLIMIT=1048576 SEAL_PASSFD=3 \
	$SEAL keygen -p p.pub -s p.key 3<<< "pp"
run minisign -S -s p.key -m f -x f.mp <<< "pp"
is "$rc" 0 "minisign decrypts our key with N=2^10, p=32"
# A corrupt encrypted key: one flipped byte in the key id.
cp e.bin ec.bin; patch ec.bin 55 '\001'
{ echo "untrusted comment: x"; b64enc ec.bin; echo; } > ec.key
bad "corrupt encrypted key" 'ec\.key: wrong passphrase' \
	pass "correct horse" $SEAL sign -s ec.key -x f.e2 f
# A corrupt unencrypted key: the public half does not fit the seed.
b64dec "$(sed -n 2p w.key)" w.bin; cp w.bin wc.bin; patch wc.bin 130 '\377'
{ echo "untrusted comment: x"; b64enc wc.bin; echo; } > wc.key
bad "corrupt unencrypted key" 'wc\.key: corrupt secret key' $SEAL sign -s wc.key -x f.e2 f

# --- keys made by minisign -------------------------------------------------
minisign -G -W -p m.pub -s m.key > /dev/null
run $SEAL sign -s m.key -x f.sm f
is "$rc" 0 "seal sign with a minisign -W key"
run minisign -V -p m.pub -m f -x f.sm
is "$rc" 0 "... minisign verifies"
# minisign's default encryption: scrypt with 1 GiB (a few seconds, once).
printf 'pw 1\npw 1\n' | minisign -G -p me.pub -s me.key > /dev/null 2>&1
run pass "pw 1" $SEAL sign -s me.key -x f.sme f
is "$rc" 0 "seal sign with a minisign encrypted key (N=2^20, 1 GiB)"
run minisign -V -p me.pub -m f -x f.sme
is "$rc" 0 "... minisign verifies"
signify-openbsd -G -n -p sg.pub -s sg.sec
bad "a signify secret key" 'sg\.sec: bad secret key file: a signify secret key' \
	$SEAL sign -s sg.sec -x f.e2 f

# --- seal verify -P: the full flow -----------------------------------------
$SEAL create -p tree -o spec
run $SEAL sign -s w.key spec
is "$rc" 0 "sign a spec"
run $SEAL verify -P w.pub -f spec -p tree
is "$rc" 0 "verify -P: signature and tree good, exit 0"
is "$(cat out)" "" "no output on stdout"
like "$(cat err)" 'Trusted comment: timestamp:[0-9]+	file:spec	hashed' \
	"trusted comment shown on stderr"
run $SEAL verify -P "$(sed -n 2p w.pub)" -f spec -p tree
is "$rc" 0 "-P with the base64 key itself"
run $SEAL verify -P w.pub -f spec -p tree --json
like "$(cat out)" '"differences": \[\]' "--json with -P"
echo three > tree/b
run $SEAL verify -P w.pub -f spec -p tree
is "$rc" 2 "signature good, tree changed: exit 2"
like "$(cat out)" '^\./b: ' "and the difference reported"
echo two > tree/b
run $SEAL verify -P w.pub -f spec -p tree
is "$rc" 0 "tree restored: exit 0"
# Tampered spec: never parsed.  A changed tree and a line the parser would
# refuse show it: no difference reported, no parse error.
cp spec spec.good; cp spec.minisig spec.minisig.good
echo three > tree/b
printf 'bogus line type=nonsense\n' >> spec
bad "spec tampered (line added)" 'spec\.minisig: signature verification failed' \
	$SEAL verify -P w.pub -f spec -p tree
tfail "... no parse error" grep -q 'spec:[0-9]' err
echo two > tree/b
cp spec.good spec
o=$(head -c 31 spec | tail -c 1); [ "$o" = X ] && n=Y || n=X
patch spec 30 "$n"
cmp -s spec spec.good; [ $? -eq 1 ] && [ "$(stat -c %s spec)" = "$(stat -c %s spec.good)" ]
ok $? "(one byte of the spec changed)"
bad "spec tampered (one byte)" 'signature verification failed' \
	$SEAL verify -P w.pub -f spec -p tree
cp spec.good spec

# --- verify: signatures made by minisign and signify -----------------------
run minisign -S -s m.key -m spec -x spec.m < /dev/null
run $SEAL verify -P m.pub -x spec.m -f spec -p tree
is "$rc" 0 "verify a minisign -S (prehashed) signature"
like "$(cat err)" 'Trusted comment: timestamp:.*file:spec	hashed' "... its trusted comment"
run minisign -S -l -s m.key -m spec -x spec.l < /dev/null
run $SEAL verify -P m.pub -x spec.l -f spec -p tree
is "$rc" 0 "verify a minisign -S -l (legacy 'Ed') signature"
like "$(sed -n 2p spec.l)" '^RW' "... which is legacy"
signify-openbsd -S -s sg.sec -m spec -x spec.s
run $SEAL verify -P sg.pub -x spec.s -f spec -p tree
is "$rc" 0 "verify a signify signature (detached)"
like "$(cat err)" 'signify' "... said to be signify's"
mv spec.minisig spec.minisig.hold; cp spec.s spec.sig
run $SEAL verify -P sg.pub -f spec -p tree
is "$rc" 0 "default SPEC.sig when SPEC.minisig is absent"
rm spec.sig
bad "no signature at all" 'spec\.minisig: no signature' $SEAL verify -P sg.pub -f spec -p tree
mv spec.minisig.hold spec.minisig
signify-openbsd -S -e -s sg.sec -m spec -x spec.e
run $SEAL verify -P sg.pub -e -f spec.e -p tree
is "$rc" 0 "verify a signify embedded signature (-e)"
cp spec.e spec.et; printf '#\n' >> spec.et
bad "embedded: message tampered" 'spec\.et: signature verification failed' \
	$SEAL verify -P sg.pub -e -f spec.et -p tree
bad "signify signature, other key" 'key ID' $SEAL verify -P w.pub -x spec.s -f spec -p tree
run minisign -V -p sg.pub -m spec -x spec.minisig
is "$rc" 1 "(sanity: minisign sees the key mismatch too)"
sed 's/$/\r/' spec.minisig > spec.crlf
run $SEAL verify -P w.pub -x spec.crlf -f spec -p tree
is "$rc" 0 "CRLF line ends accepted (trailing CR stripped)"

# --- verify: bad keys and signatures ---------------------------------------
bad "wrong public key" 'signed by key ID [0-9A-F]+, but the public key m\.pub has key ID' \
	$SEAL verify -P m.pub -f spec -p tree
# Same key id, another key.
b64dec "$(sed -n 2p w.pub)" wp.bin; b64dec "$(sed -n 2p m.pub)" mp.bin
{ head -c 10 wp.bin; tail -c 32 mp.bin; } > x.bin
{ echo "untrusted comment: x"; b64enc x.bin; echo; } > x.pub
bad "right key id, wrong key" 'spec\.minisig: signature verification failed' \
	$SEAL verify -P x.pub -f spec -p tree
sig() { cp spec.minisig.good spec.minisig; }	# restore
sig; sed -i '3s/timestamp:/timestamp:1/' spec.minisig
bad "trusted comment tampered" 'trusted comment signature verification failed' \
	$SEAL verify -P w.pub -f spec -p tree
# One byte of the file signature (base64 char 40 of line 2 changed).
sig; l=$(sed -n 2p spec.minisig); c=${l:40:1}; [ "$c" = A ] && n=B || n=A
sed -i "2s/^\(.\{40\}\)./\1$n/" spec.minisig
bad "signature byte tampered" 'signature verification failed' \
	$SEAL verify -P w.pub -f spec -p tree
sig; l=$(sed -n 4p spec.minisig); c=${l:10:1}; [ "$c" = A ] && n=B || n=A
sed -i "4s/^\(.\{10\}\)./\1$n/" spec.minisig
bad "global signature byte tampered" 'trusted comment signature verification failed' \
	$SEAL verify -P w.pub -f spec -p tree
sig; head -c 150 spec.minisig.good > spec.minisig
bad "truncated signature file" 'spec\.minisig: bad signature file' \
	$SEAL verify -P w.pub -f spec -p tree
sig; head -2 spec.minisig.good > spec.minisig
bad "prehashed signature without trusted comment" 'trusted comment missing' \
	$SEAL verify -P w.pub -f spec -p tree
sig; sed -i '2s/^..../!!!!/' spec.minisig
bad "garbage base64" 'spec\.minisig: bad signature file: invalid base64' \
	$SEAL verify -P w.pub -f spec -p tree
sig; sed -i '2s/=$//' spec.minisig
bad "base64 without its padding" 'base64 line has the wrong length' \
	$SEAL verify -P w.pub -f spec -p tree
sig; b64dec "$(sed -n 2p spec.minisig)" s.bin; patch s.bin 1 'x'
{ sed -n 1p spec.minisig.good; b64enc s.bin; echo; sed -n 3,4p spec.minisig.good; } > spec.minisig
bad "wrong signature algorithm bytes" 'unsupported signature algorithm' \
	$SEAL verify -P w.pub -f spec -p tree
cp wp.bin xa.bin; patch xa.bin 0 'X'
{ echo "untrusted comment: x"; b64enc xa.bin; echo; } > xa.pub
sig
bad "wrong public key algorithm bytes" 'xa\.pub: bad public key file: unsupported public key algorithm' \
	$SEAL verify -P xa.pub -f spec -p tree
{ echo "untrusted comment: x"; head -c 1048576 /dev/zero | tr '\0' A; echo; } > big.pub
bad "1 MiB line in a key file" 'big\.pub: public key too large' \
	$SEAL verify -P big.pub -f spec -p tree
{ head -3 spec.minisig.good; head -c 1048576 /dev/zero | tr '\0' A; echo; } > spec.minisig
bad "1 MiB line in a signature file" 'signature too large' \
	$SEAL verify -P w.pub -f spec -p tree
sig; sed -i '3s/trusted comment: /trusted comment: a\rb/' spec.minisig
bad "CR inside a line" 'carriage return inside a line' \
	$SEAL verify -P w.pub -f spec -p tree
sig; echo extra >> spec.minisig
bad "a fifth line" 'unexpected data after the last line' \
	$SEAL verify -P w.pub -f spec -p tree
sig; sed -i '1s/untrusted/Untrusted/' spec.minisig
bad "untrusted comment prefix" 'untrusted comment' \
	$SEAL verify -P w.pub -f spec -p tree
sig; sed -i '3s/^trusted comment: //' spec.minisig
bad "trusted comment prefix" 'third line does not start' \
	$SEAL verify -P w.pub -f spec -p tree
sig
bad "missing public key file" 'nokey\.pub' $SEAL verify -P nokey.pub -f spec -p tree
printf 'untrusted comment: x\n' > short.pub
bad "public key file without a key line" 'short\.pub: bad public key file' \
	$SEAL verify -P short.pub -f spec -p tree
bad "signature file given with -x missing" 'nosig' $SEAL verify -P w.pub -x nosig -f spec -p tree
bad "-x without -P" 'need a public key' $SEAL verify -x spec.minisig -f spec -p tree
run $SEAL verify -P w.pub -f spec -p tree
is "$rc" 0 "the restored signature verifies again"

done_testing
