#!/bin/sh
# bench/audit.sh: control --audit against the usual administrator's way
# (find -perm /6000 plus getcap -r), both over the same "full Debian
# root": this machine's own /usr, /etc, /var and /opt bind-mounted under a
# temp dir in a private mount namespace (everything Debian installed,
# without /home, /tmp and the project's build trees).  Read-only: nothing
# is changed.  Prints the file count, each time (best of RUNS, warm
# cache) and the ratio; the issue's target is <= 5 s.
set -eu
B=${B:-build}
RUNS=${RUNS:-3}
[ "$(id -u)" = 0 ] || { echo "bench/audit.sh: needs root (mount namespace)" >&2; exit 1; }
exec unshare -m --propagation private -- sh -c '
set -eu
B=$1 RUNS=$2
F=$(mktemp -d /tmp/owlet-audit.XXXXXX)
for d in usr etc var opt; do
	[ -d "/$d" ] || continue
	mkdir "$F/$d" && mount --bind -o ro "/$d" "$F/$d"
done
best() {	# best CMD...: the smallest wall time of RUNS runs, in seconds
	b=
	for i in $(seq "$RUNS"); do
		s=$(date +%s.%N); "$@" >/dev/null 2>&1 || :; e=$(date +%s.%N)
		b=$(awk -v s="$s" -v e="$e" -v b="$b" \
		    "BEGIN { t = e - s; print (b == \"\" || t < b) ? t : b }")
	done
	printf "%.3f" "$b"
}
peer() { find "$F" -xdev -type f -perm /6000; getcap -r "$F" 2>/dev/null; }
n=$(find "$F" -xdev | wc -l)
"$B/sbin/control" --root "$F" --audit >/dev/null 2>&1 || :	# warm the cache
a=$(best "$B/sbin/control" --root "$F" --audit)
p=$(best peer)
echo "audit: $n entries under /usr /etc /var /opt"
echo "control --audit     ${a} s"
echo "find -perm + getcap ${p} s"
awk -v a="$a" -v p="$p" "BEGIN { printf \"ratio (peer/control): %.2fx; target: control <= 5 s: %s\\n\", p / a, a <= 5 ? \"PASS\" : \"FAIL\" }"
' audit "$(cd "$B" && pwd)" "$RUNS"
