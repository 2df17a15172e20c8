#!/bin/bash
# Static analysis (make lint, mk/lint.mk): cppcheck and clang's scan-build
# report nothing beyond the justified entries of tests/static/*.supp.
# scan-build builds everything again in build-scan (about two minutes on
# two CPUs); the fuzz targets are left to make lint (SCAN_FUZZ=0:
# mk/lint.mk says why).  Not repeated by the sanitizer suite: the
# analysis does not depend on how the tree under test was built.
. "$(dirname "$0")/../lib/tap.sh"

[ -z "$OWLET_SANITIZE" ] ||
	skip_all "sanitizer build: make lint runs with the plain make check"
command -v cppcheck >/dev/null 2>&1 || skip_all "cppcheck not installed (make deps)"
command -v scan-build >/dev/null 2>&1 || command -v scan-build-14 >/dev/null 2>&1 ||
	skip_all "scan-build not installed (make deps)"
T=$(mktemp -d /tmp/owlet-static.XXXXXX)
trap 'rm -rf "$T"' EXIT
plan 2

lint() { make -s --no-print-directory -C "$TOP" -j2 "$@"; }

lint lint-cppcheck > "$T/cppcheck" 2>&1
rc=$?
ok $rc "cppcheck --enable=warning,portability: no finding beyond tests/static/cppcheck.supp"
[ $rc -eq 0 ] || head -40 "$T/cppcheck" | sed 's/^/# /' >&2

lint lint-scan SCAN_B="$TOP/build-scan" SCAN_FUZZ=0 > "$T/scan" 2>&1
rc=$?
ok $rc "scan-build: no finding beyond tests/static/scan-build.supp"
# the unsuppressed findings come first, then the summary
grep -E '^[^ ]+:[0-9]+: [a-z]+\.|^scan-build: [0-9]+ findings|^stale suppression' "$T/scan" |
	grep -v '(suppressed)$' | head -40 | while IFS= read -r l; do diag "$l"; done
[ $rc -eq 0 ] || grep -qE '^scan-build: [0-9]+ findings' "$T/scan" ||
	tail -20 "$T/scan" | sed 's/^/# /' >&2

done_testing
