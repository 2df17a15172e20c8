#!/bin/sh
# tests/fuzz/run.sh DIR TARGET...: run each built libFuzzer target
# DIR/fuzz_TARGET on its working corpus DIR/corpus/TARGET (seeded from
# tests/fuzz/corpus/TARGET, with tests/fuzz/TARGET.dict if there is one),
# for FUZZ_RUNS inputs if set, else for FUZZ_SECONDS seconds (300).  Logs go
# to DIR/logs/TARGET.log, crashes, leaks and timeouts to DIR/artifacts/.
# Prints, and writes to DIR/results.md, one Markdown table row per target:
# executions, seconds (wall), executions per second, peak RSS, corpus size and
# the verdict.  Exit 1 if a target failed.  Used by `make fuzz`.
set -u
dir=$1
shift
mkdir -p "$dir/logs" "$dir/artifacts"
if [ -n "${FUZZ_RUNS:-}" ]; then
	limit="-runs=$FUZZ_RUNS"
else
	limit="-max_total_time=${FUZZ_SECONDS:-300}"
fi
out=$dir/results.md
{
	echo "| target | executions | seconds | exec/s | peak RSS (MB) | corpus | result |"
	echo "|---|---:|---:|---:|---:|---:|---|"
} > "$out"
head -2 "$out"
status=0
for t in "$@"; do
	corpus=$dir/corpus/$t log=$dir/logs/$t.log
	mkdir -p "$corpus"
	dict=
	[ ! -f "tests/fuzz/$t.dict" ] || dict=-dict=tests/fuzz/$t.dict
	t0=$(date +%s%N)
	"$dir/fuzz_$t" $limit -print_final_stats=1 $dict \
	    -artifact_prefix="$dir/artifacts/$t-" "$corpus" \
	    "tests/fuzz/corpus/$t" > "$log" 2>&1
	rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	stat() { sed -n "s/^stat::$1: *//p" "$log" | tail -1; }
	units=$(stat number_of_executed_units)
	if [ $rc -eq 0 ]; then
		verdict=ok
	else
		verdict="FAIL (exit $rc, see $log)"
		status=1
	fi
	row="| $t | ${units:-?} | $((ms / 1000)).$((ms % 1000 / 100)) |"
	row="$row $(( ${units:-0} * 1000 / (ms ? ms : 1) )) | $(stat peak_rss_mb) |"
	row="$row $(find "$corpus" -type f | wc -l) | $verdict |"
	echo "$row" | tee -a "$out"
done
exit $status
