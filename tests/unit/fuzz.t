#!/bin/bash
# The libFuzzer targets of tests/fuzz build (make fuzz-build) and survive a
# short run (20000 inputs each) from their seed corpora: exit 0 and no
# crash, leak, timeout or out-of-memory file.  Long runs: make fuzz.
. "$(dirname "$0")/../lib/tap.sh"

[ -z "$OWLET_SANITIZE" ] ||
	skip_all "the fuzz targets carry ASan and UBSan in every build: the plain make check ran them"
command -v clang >/dev/null 2>&1 || skip_all "clang not installed (make deps)"
T=$(mktemp -d /tmp/owlet-fuzz.XXXXXX)
trap 'rm -rf "$T"' EXIT
# libFuzzer's runtime comes with libclang-rt-14-dev.
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' > "$T/probe.c"
clang -fsanitize=fuzzer -o "$T/probe" "$T/probe.c" >/dev/null 2>&1 ||
	skip_all "clang cannot link libFuzzer programs (libclang-rt-14-dev)"

# The fragment is named on the command line too, so this works whether or
# not the top Makefile includes it (fuzz.mk guards against a second read).
fmake() {
	make -s --no-print-directory -C "$TOP" -f Makefile -f tests/fuzz/fuzz.mk \
	    B="$B" "$@"
}
targets=$(fmake fuzz-list 2>/dev/null)
[ -n "$targets" ] || { plan 1; ok 1 "make fuzz-list names the targets"; done_testing; }
plan $((1 + 4 * $(echo $targets | wc -w)))

fmake fuzz-build > "$T/build.log" 2>&1
rc=$?
ok $rc "make fuzz-build"
[ $rc -eq 0 ] || diag "$(tail -20 "$T/build.log")"

for t in $targets; do
	bin=$B/fuzz/fuzz_$t seeds=$TOP/tests/fuzz/corpus/$t
	n=$(find "$seeds" -type f 2>/dev/null | wc -l)
	[ "$n" -ge 5 ]; ok $? "$t: seed corpus ($n inputs)"
	mkdir -p "$T/$t/corpus" "$T/$t/art"
	dict=
	[ ! -f "$TOP/tests/fuzz/$t.dict" ] || dict=-dict=$TOP/tests/fuzz/$t.dict
	(cd "$T/$t" && "$bin" -runs=20000 -seed=1 -timeout=10 $dict \
	    -artifact_prefix="$T/$t/art/" corpus "$seeds") > "$T/$t.log" 2>&1
	rc=$?
	is "$rc" 0 "$t: 20000 runs, exit 0"
	[ $rc -eq 0 ] || diag "$(grep -E 'ERROR|SUMMARY|#[0-9]+ in ' "$T/$t.log" | head -20)"
	grep -q '^Done 20000 runs' "$T/$t.log"; ok $? "$t: all runs done"
	is "$(ls "$T/$t/art")" "" "$t: no crash, leak, timeout or oom file"
done

done_testing
