#!/bin/bash
# make container's OCI images under podman (rootful, private storage and
# namespaces: tests/lib/container.sh), issue 16:
#   - each flavour's oci-archive loads, with its annotations as labels;
#   - inside each: no set-uid file, no file capability, ping as uid 65534
#     works with --sysctl net.ipv4.ping_group_range (the _icmp group) and
#     is refused without it, control --check is clean;
#   - a Containerfile FROM the base flavour that installs Debian's sudo (a
#     set-uid program) from copied-in .debs builds, and the result has no
#     set-uid file: owlet's dpkg hook runs inside image builds too.
. "$(dirname "$0")/../lib/root.sh"
. "$(dirname "$0")/../lib/image.sh"
. "$(dirname "$0")/../lib/container.sh"
container_ns "$@"

version=$(sed -n '1s/^[^ ]* (\([^)]*\)).*/\1/p' "$TOP/debian/changelog")
# What runs inside: "find=", "getcap=" sections, status lines.
inside='find / -xdev -perm /4000 -print; echo "find=$?"
getcap -r / 2>/dev/null; echo "getcap=$?"'

for flavour in system base; do
	archive=$B/image/owlet-bookworm-$flavour.oci.tar
	id=$(pod_load "$archive")
	ok $? "$flavour: podman loads the oci-archive"
	[ -n "$id" ] || { diag "$(pod pull "oci-archive:$archive" 2>&1 | tail -n 3)"; continue; }
	eval "id_$flavour=\$id"
	labels=$(pod image inspect -f '{{json .Labels}}' "$id")
	like "$labels" "\"org.opencontainers.image.version\":\"$version\"" "$flavour: version $version among its labels"
	like "$labels" '"org.opencontainers.image.revision":"[0-9a-f]{40}(-dirty)?"' "... the source revision"
	like "$labels" '"org.opencontainers.image.created":"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z"' "... the creation time"

	out=$(pod_run "$id" sh -c "$inside" 2>&1)
	is "$out" "find=0"$'\n'"getcap=0" "$flavour: no set-uid file (find -perm /4000) and no file capability (getcap -r /)"

	icmp=$(pod_run "$id" getent group _icmp | cut -d: -f3)
	like "$icmp" '^[0-9]+$' "$flavour: group _icmp exists ($icmp)"
	sysctl=(--sysctl "net.ipv4.ping_group_range=$icmp $icmp")
	out=$(pod_run --user 65534:65534 "${sysctl[@]}" "$id" ping -c 1 -W 2 127.0.0.1 2>&1)
	ok $? "$flavour: ping as uid 65534 with --sysctl net.ipv4.ping_group_range=\"$icmp $icmp\""
	like "$out" "1 received" "... gets its echo reply"
	out=$(pod_run --user 65534:65534 "$id" ping -c 1 -W 2 127.0.0.1 2>&1) && rc=0 || rc=1
	ok $((1 - rc)) "$flavour: ping as uid 65534 is refused without the sysctl"
	like "$out" "Operation not permitted" "... (no ICMP socket: $(tail -n 1 <<<"$out"))"
	stat=$(pod_run "$id" stat -c '%a %U:%G' /usr/bin/ping)
	is "$stat" "2711 root:_icmp" "$flavour: ping is set-gid _icmp, not set-uid"

	out=$(pod_run "${sysctl[@]}" "$id" control --check 2>&1)
	ok $? "$flavour: control --check is clean (with the runtime's ping sysctl)"
	[ -z "$out" ] || diag "$out"
	out=$(pod_run "$id" control --check 2>&1)
	rc=$?
	ok $rc "$flavour: control --check is clean without the sysctl (the runtime's value, reported)"
	[ "$rc" = 0 ] || diag "$out"
done

# --- FROM the base flavour: apt-get installs a set-uid program -----------------
if [ -z "${id_base:-}" ]; then
	ok 1 "the base flavour loaded (for the Containerfile)"
	done_testing
fi
pod tag "$id_base" localhost/owlet-base:test
pod_run "$id_base" cat /var/lib/dpkg/status > "$T/status"
mkdir -p "$T/ctx/debs"
if ! BASE_DEBS_STATUS=$T/status base_debs "$T/ctx/debs" sudo 2>"$T/debs.err"; then
	ok 1 "Debian's sudo and its dependencies for the base flavour (apt-get download on the host)"
	diag "$(cat "$T/debs.err")"
	done_testing
fi
cat > "$T/ctx/Containerfile" <<'EOF'
FROM localhost/owlet-base:test
COPY debs/ /var/tmp/debs/
RUN apt-get install -q -y --no-install-recommends /var/tmp/debs/*.deb && rm -rf /var/tmp/debs
EOF
out=$(pod build --cgroup-parent="$POD_CG/build" --network=none --ulimit nofile=1024:1024 \
    --ulimit nproc=1024:1024 -t localhost/owlet-sudo:test "$T/ctx" 2>&1)
rc=$?
ok $rc "a Containerfile FROM the base flavour installs Debian's sudo ($(cd "$T/ctx/debs" && echo *.deb))"
[ "$rc" = 0 ] || diag "$(tail -n 15 <<<"$out")"
! grep -q '^control' <<<"$out"
rc=$?
ok $rc "... and owlet's dpkg hook reports no error in the build (sysctls are the runtime's)"
[ "$rc" = 0 ] || diag "$(grep '^control' <<<"$out" | sort -u)"
# shellcheck disable=SC2016 # dpkg-query's format
out=$(pod_run localhost/owlet-sudo:test sh -c \
    'dpkg-query -W -f="\${Status}\n" sudo; stat -c "%a %U:%G" /usr/bin/sudo; echo find:; find / -xdev -perm /4000 -print')
is "$(sed -n 1p <<<"$out")" "install ok installed" "... sudo is installed in the result"
is "$(sed -n '/^find:$/,$p' <<<"$out")" "find:" \
    "... which has no set-uid file: sudo is $(sed -n 2p <<<"$out") (owlet's dpkg hook ran in the build)"
like "$(pod_run localhost/owlet-sudo:test control --audit 2>&1)" "^0 set-uid, [0-9]+ set-gid, 0 with capabilities, 0 unknown" \
    "... control --audit in the result: 0 set-uid, 0 capabilities, 0 unknown"
done_testing
