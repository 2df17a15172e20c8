#!/bin/bash
# seal benchmark: create/verify throughput on a page-cached tree against
# the machine's SHA-256 ceiling and against bsdtar, NetBSD mtree and AIDE,
# all measured in this run; peak RSS on a 1,000,000-file tree.  Also the
# kernel's share (bench/readfloor: the open/xattr/read/close of every file
# without hashing, CPU time of one thread) and what that leaves attainable:
# ceiling time plus the floor spread over the CPUs.
#   SEAL_FILES=30000        files in the data tree (about 2 GB)
#   SEAL_RSS_FILES=1000000  files in the RSS tree (0 to skip)
#   SEAL_RUNS=3             runs per fast command (median taken)
set -u
B=${B:-build}
SEAL=$B/bin/seal
MKTREE=$B/bench/mktree
READFLOOR=$B/bench/readfloor
FILES=${SEAL_FILES:-30000}
RSS_FILES=${SEAL_RSS_FILES:-1000000}
RUNS=${SEAL_RUNS:-3}
W=$(mktemp -d /tmp/owlet-sealbench.XXXXXX)
trap 'rm -rf "$W"' EXIT
fail=0

now() { date +%s.%N; }
# median of the wall times of RUNS runs of a command
timed() {
	local i t0 ts=()
	for ((i = 0; i < RUNS; i++)); do
		t0=$(now); "$@" >/dev/null 2>&1; ts+=("$(echo "$(now) - $t0" | bc)")
	done
	printf '%s\n' "${ts[@]}" | sort -n | sed -n "$(( (RUNS + 1) / 2 ))p"
}
once() { local t0; t0=$(now); "$@" >/dev/null 2>&1; echo "$(now) - $t0" | bc; }
check() {	# check NAME VALUE OP TARGET
	if [ "$(echo "$2 $3 $4" | bc)" = 1 ]; then r=PASS; else r=FAIL; fail=1; fi
	printf '  %-44s %8.2f  (target %s %s)  %s\n' "$1" "$2" "$3" "$4" "$r"
}

echo "seal benchmark: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
mkdir "$W/tree"
"$MKTREE" "$W/tree" "$FILES"
bytes=$(du -sb "$W/tree" | cut -f1)
nfiles=$(find "$W/tree" -type f | wc -l)
cat $(find "$W/tree" -type f) > /dev/null	# warm the page cache
gb() { echo "scale=3; $bytes / $1 / 1000000000" | bc; }
printf 'tree: %d files, %.2f GB, page-cached\n' "$nfiles" "$(echo "$bytes / 10^9" | bc -l)"
single=$(openssl speed -evp sha256 -bytes 16384 -seconds 2 2>/dev/null |
    awk '/^sha256/ { v = $NF; sub(/k$/, "", v); print v * 1000 / 1e9 }')
printf 'one core hashes %s GB/s; the vCPUs scale as the -multi figure shows\n\n' "$single"

# The ceiling: aggregate SHA-256 rate of all cores at 16 KiB blocks.
ceil=$(openssl speed -multi "$(nproc)" -evp sha256 -bytes 16384 -seconds 3 2>/dev/null |
    awk '/^sha256/ { v = $NF; sub(/k$/, "", v); print v * 1000 / 1e9 }')
# readfloor's CPU seconds (user + sys), median of RUNS
floor=$(for ((i = 0; i < RUNS; i++)); do "$READFLOOR" "$W/tree" | awk '{ print $3 + $4 }'; done |
    sort -n | sed -n "$(( (RUNS + 1) / 2 ))p")
ncpu=$(nproc)
# attainable GB/s: hashing at the ceiling plus the floor's CPU time spread
# over all CPUs (the best any tool reading files through the kernel can do)
attain=$(echo "scale=3; $bytes / ($bytes / ($ceil * 10^9) + $floor / $ncpu) / 10^9" | bc -l)
t_create=$(timed "$SEAL" create -p "$W/tree" -o "$W/spec")
"$SEAL" create -p "$W/tree" -o "$W/spec"
t_verify=$(timed "$SEAL" verify -f "$W/spec" -p "$W/tree")
t_bsdtar=$(cd "$W/tree" && timed bsdtar --format=mtree --options=sha256 -cf /dev/null .)
t_mtree=$(once mtree -c -K sha256 -p "$W/tree")
# AIDE with the equivalent sha256-only rule: its default (one worker), and
# with one worker per CPU.
aide_conf() {
	printf 'database_out=file:%s/aide.db\ngzip_dbout=no\n%sH = sha256\n%s/tree H\n' \
	    "$W" "$1" "$W" > "$W/aide.conf"
}
aide_conf ""
t_aide=$(once aide --init -c "$W/aide.conf")
aide_conf "num_workers=$(nproc)
"
t_aide_n=$(once aide --init -c "$W/aide.conf")

printf '%-40s %8s %10s\n' command "wall s" "GB/s"
row() { printf '%-40s %8.2f %10.3f\n' "$1" "$2" "$(gb "$2")"; }
printf '%-40s %8s %10.3f\n' "SHA-256 ceiling (openssl speed -multi)" - "$ceil"
printf '%-40s %8.2f %10s\n' "kernel floor, 1 thread (CPU s)" "$floor" -
printf '%-40s %8s %10.3f\n' "attainable (ceiling + floor / CPUs)" - "$attain"
row "seal create" "$t_create"
row "seal verify" "$t_verify"
row "bsdtar --format=mtree sha256" "$t_bsdtar"
row "mtree -c -K sha256 (NetBSD)" "$t_mtree"
row "aide --init (sha256, default 1 worker)" "$t_aide"
row "aide --init (sha256, $(nproc) workers)" "$t_aide_n"
echo
echo "ratios (same run):"
check "seal create / ceiling" "$(echo "$(gb "$t_create") / $ceil" | bc -l)" '>=' 0.85
check "attainable / ceiling (info: kernel's share)" "$(echo "$attain / $ceil" | bc -l)" '>=' 0
check "seal create / attainable (info)" "$(echo "$(gb "$t_create") / $attain" | bc -l)" '>=' 0
check "seal create vs bsdtar (speedup)" "$(echo "$t_bsdtar / $t_create" | bc -l)" '>=' 1.2
check "seal create vs mtree -c (speedup)" "$(echo "$t_mtree / $t_create" | bc -l)" '>=' 5
check "seal create vs aide --init (speedup)" "$(echo "$t_aide / $t_create" | bc -l)" '>=' 8
check "seal create vs aide, $(nproc) workers (info)" "$(echo "$t_aide_n / $t_create" | bc -l)" '>=' 0
check "seal verify time / create time" "$(echo "$t_verify / $t_create" | bc -l)" '<=' 1.15

if [ "$RSS_FILES" -gt 0 ]; then
	mkdir "$W/many"
	(cd "$W/many" && for ((d = 0; d < (RSS_FILES + 999) / 1000; d++)); do
		mkdir "d$d"; (cd "d$d" && seq -f "f%g" 1 1000 | xargs touch)
	done)
	rss=$( { /usr/bin/time -f %M "$SEAL" create -p "$W/many" -o "$W/many.spec"; } 2>&1 | tail -1)
	rssv=$( { /usr/bin/time -f %M "$SEAL" verify -f "$W/many.spec" -p "$W/many"; } 2>&1 | tail -1)
	echo
	echo "peak RSS, $(grep -c type=file "$W/many.spec") files:"
	check "seal create peak RSS (MiB)" "$(echo "$rss / 1024" | bc -l)" '<=' 64
	check "seal verify peak RSS (MiB)" "$(echo "$rssv / 1024" | bc -l)" '<=' 64
fi
exit $fail
