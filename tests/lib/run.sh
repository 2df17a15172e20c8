#!/bin/sh
# tests/lib/run.sh TEST: how make check's prove runs a test (--exec).
# TEST is a test script (tests/DIR/NAME.t), run against the build that B
# names, or BUILD:SCRIPT, run against the build directory BUILD instead:
# make check CHECK_SANITIZED=1 lists the suite once for each build in one
# prove run, so that the sanitizer build's tests fill the CPU time that
# the plain build's VM and image tests leave idle (tests/tests.mk).
# OWLET_PLAIN_B keeps the build that make check names (B from make) for
# what both passes share.
case $1 in
*:*)
	OWLET_PLAIN_B=${B:-}
	export OWLET_PLAIN_B
	B=$(cd "${1%%:*}" 2>/dev/null && pwd) || {
		echo "run.sh: ${1%%:*}: no such build directory" >&2
		exit 2
	}
	export B
	set -- "${1#*:}"
	;;
esac
exec bash "$1"
