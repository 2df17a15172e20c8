#!/bin/bash
# owlet_num / owlet_num_n (common/number.c): one digit string of the base,
# nothing else, in MIN..MAX, no overflow; the leading-zero flag.
. "$(dirname "$0")/../lib/root.sh"

U=$B/tests/bin/unitprobe
if [ ! -x "$U" ]; then
	plan 1; ok 1 "unitprobe built (run make check)"; done_testing
fi

# num MIN MAX FLAGS INPUT EXPECTED: one table row
num() { is "$("$U" num "$1" "$2" "$3" "$4")" "$5" "[$1..$2 $3] '$4' -> $5"; }
ID=4294967294
U64=18446744073709551615

# --- decimal ids: the glibc-wraps cases are errors, not other ids
num 0 $ID - 0 0
num 0 $ID - 42 42
num 0 $ID - 0042 42
num 0 $ID - 000000000000000000000042 42
num 0 $ID - $ID $ID
num 0 $ID - 4294967295 "bad ERANGE"
num 0 $ID - 4294967338 "bad ERANGE"
num 0 $ID - 4294968295 "bad ERANGE"
num 0 $ID - 18446744073709551616 "bad ERANGE"
num 0 $ID - 18446744073709551658 "bad ERANGE"
num 0 $ID - 99999999999999999999999999999999 "bad ERANGE"
num 0 $U64 - $U64 $U64
num 0 $U64 - 18446744073709551616 "bad ERANGE"
num 0 $U64 - 184467440737095516150 "bad ERANGE"
# --- not numbers at all
for s in '' ' 42' '42 ' '+42' '-42' '-0' '42abc' 'abc' '0x10' '1e3' \
    "$(printf '4\t2')" '٤٢' '99999999999999999999999x'; do
	num 0 $ID - "$s" "bad EINVAL"
done
# --- min/max
num 1 256 - 0 "bad ERANGE"
num 1 256 - 1 1
num 1 256 - 256 256
num 1 256 - 257 "bad ERANGE"
# --- octal (modes)
num 0 07777 o 644 420
num 0 07777 o 0644 420
num 0 07777 o 7777 4095
num 0 07777 o 10000 "bad ERANGE"
num 0 07777 o 8 "bad EINVAL"
num 0 07777 o 0o644 "bad EINVAL"
# --- the leading-zero rule (chage's day counts refuse "010")
num 0 2147483647 z 0 0
num 0 2147483647 z 10 10
num 0 2147483647 z 010 "bad EINVAL"
num 0 2147483647 z 00 "bad EINVAL"
num 0 2147483647 z 2147483647 2147483647
num 0 2147483647 z 2147483648 "bad ERANGE"
num 0 2147483647 - 007 7

# --- table: every 1- and 2-character string over a small alphabet agrees
# with a reference written in the shell (decimal, 0..99)
bad=0
for a in '' 0 1 9 a - + ' '; do
	for b in 0 5 9 x :; do
		s=$a$b
		if [[ $s =~ ^[0-9]+$ ]]; then want=$((10#$s)); else want="bad EINVAL"; fi
		got=$("$U" num 0 99 - "$s")
		[ "$got" = "$want" ] || { bad=1; diag "'$s': got $got, want $want"; }
	done
done
ok $bad "all 45 short strings parse as the shell reference says"
done_testing
