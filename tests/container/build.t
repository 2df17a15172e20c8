#!/bin/bash
# make container (image/container.sh) read from outside, without running
# a container (that is oci.t and system.t): the OCI layouts and archives
# (index, manifest, config, annotations, digests), the signed specs of the
# layers, a byte-identical rebuild of every output (with OWLET_REBUILD=1),
# and bad input (one-line errors, nothing under a final name).
. "$(dirname "$0")/../lib/root.sh"
. "$(dirname "$0")/../lib/image.sh"
. "$(dirname "$0")/../lib/container.sh"
container_needs
tmpdir
need_container
O=$B/image
N=$O/owlet-bookworm
version=$(sed -n '1s/^[^ ]* (\([^)]*\)).*/\1/p' "$TOP/debian/changelog")
epoch=$(sed -n 's/^epoch=\([0-9]*\).*/\1/p' "$N.container.stamp")
created=$(date -u -d "@$epoch" +%Y-%m-%dT%H:%M:%SZ)

# field JSON KEY: the first string value of KEY in the JSON text
field() { grep -o "\"$2\":\"[^\"]*\"" <<<"$1" | head -n 1 | sed 's/.*:"\(.*\)"/\1/'; }
# blob LAYOUT DIGEST: the blob's path, checked against its digest
blob() {
	_f=$1/blobs/sha256/${2#sha256:}
	[ "$(sha256sum < "$_f" | cut -d' ' -f1)" = "${2#sha256:}" ] && echo "$_f"
}

for flavour in system base; do
	L=$N-$flavour.oci
	t "$flavour: an OCI image layout (oci-layout 1.0.0)" grep -q '"imageLayoutVersion":"1.0.0"' "$L/oci-layout"
	index=$(cat "$L/index.json")
	like "$index" "\"org.opencontainers.image.ref.name\":\"$version\"" "$flavour: index.json names the image $version"
	mf=$(blob "$L" "$(field "$index" digest)")
	ok $? "$flavour: the manifest's digest matches its bytes"
	manifest=$(cat "$mf")
	is "$(field "$manifest" org.opencontainers.image.version)" "$version" "$flavour: annotation version"
	like "$(field "$manifest" org.opencontainers.image.revision)" '^[0-9a-f]{40}(-dirty)?$' "$flavour: annotation revision"
	is "$(field "$manifest" org.opencontainers.image.created)" "$created" "$flavour: annotation created = SOURCE_DATE_EPOCH"
	cf=$(blob "$L" "$(grep -o '"config":{[^}]*}' <<<"$manifest" | grep -o 'sha256:[0-9a-f]*')")
	ok $? "$flavour: the config's digest matches its bytes"
	config=$(cat "$cf")
	lg=$(grep -o '"layers":\[{[^}]*}' <<<"$manifest")
	is "$(field "$lg" mediaType)" application/vnd.oci.image.layer.v1.tar+gzip "$flavour: one gzip layer"
	lf=$(blob "$L" "$(field "$lg" digest)")
	ok $? "$flavour: the layer's digest matches its bytes"
	diff_id=$(gzip -dc "$lf" | sha256sum | cut -d' ' -f1)
	like "$config" "\"diff_ids\":\\[\"sha256:$diff_id\"\\]" "$flavour: the config's diff_id is the uncompressed layer's"
	is "$(field "$config" created)" "$created" "$flavour: the config's created = SOURCE_DATE_EPOCH"
	case $flavour in
	system) cmd='["/sbin/init"]' ;;
	base) cmd='["/bin/bash"]' ;;
	esac
	is "$(grep -o '"Cmd":\[[^]]*\]' <<<"$config")" "\"Cmd\":$cmd" "$flavour: command $cmd"
	tar -tf "$N-$flavour.oci.tar" | sed 's|/$||' | LC_ALL=C sort > "$T/archive.list"
	(cd "$L" && find . | LC_ALL=C sort) > "$T/layout.list"
	t "$flavour: the oci-archive holds the layout" cmp -s "$T/archive.list" "$T/layout.list"

	# the signed spec names the layer
	sig=$(minisign -Vm "$N-$flavour.mtree" -x "$N-$flavour.mtree.minisig" -p "$O/owlet.pub" 2>&1)
	like "$sig" "Signature and comment signature verified" "$flavour: the layer's spec is signed by the image key"
	like "$sig" "layer sha256:$diff_id gzip sha256:$(basename "$lf")" "... its trusted comment names the layer's digests"
	mkdir -p "$T/layer"
	tar -xpzf "$lf" --numeric-owner --xattrs --xattrs-include='*' --acls -C "$T/layer"
	t "$flavour: the unpacked layer verifies against the spec (seal verify)" \
	    "$B/bin/seal" verify -P "$O/owlet.pub" -x "$N-$flavour.mtree.minisig" -f "$N-$flavour.mtree" -p "$T/layer"
	rm -rf "$T/layer"
done
# the base flavour: what it holds and lacks
list=$(gzip -dc "$(oci_blob "$N-base.oci" layer)" | tar -t)
for f in ./usr/sbin/control ./usr/bin/seal ./etc/tcb/root/shadow ./usr/bin/ping; do
	like "$list" "^${f//./\\.}\$" "base: has ${f#.}"
done
for f in ./lib/systemd/systemd ./usr/sbin/sshd ./usr/sbin/cron ./boot/vmlinuz; do
	unlike "$list" "^${f//./\\.}" "base: no ${f#.}"
done
like "$(cat "$N-base.audit.json")" '"setuid": 0, "setgid": [0-9]+, "caps": 0, "unknown": 0' \
    "base: control --audit: 0 set-uid, 0 capabilities, 0 unknown"

# --- reproducible; current outputs are not rebuilt ------------------------------------
outs="$N-system.oci.tar $N-base.oci.tar $N-system.mtree $N-system.mtree.minisig
$N-base.mtree $N-base.mtree.minisig $N-system.tar.xz $N-system.meta.tar.xz
$(ls "$O"/owlet-bookworm_*_amd64.tar.zst)"
# shellcheck disable=SC2086
sha256sum $outs > "$T/sums"
exec 5<&- 7<&-	# need_container's shared locks: container.sh takes container.lock exclusively
out=$(B=$B sh "$TOP/image/container.sh" 2>&1)
like "$out" "up to date" "make container with nothing changed rebuilds nothing"
if rebuild_wanted; then
	rm -f "$N.container.stamp"
	t0=$(date +%s)
	out=$(B=$B sh "$TOP/image/container.sh" 2>&1)
	ok $? "make container again from scratch ($(($(date +%s) - t0)) s)"
	[ -s "$N.container.stamp" ] || diag "$out"
	# shellcheck disable=SC2086
	sha256sum $outs > "$T/sums2"
	out=$(diff "$T/sums" "$T/sums2")
	ok $? "... gives byte-identical outputs (OCI archives, specs, signatures, LXC, Proxmox)"
	[ -z "$out" ] || diag "$out"
else
	skip "make container again from scratch: byte-identical outputs" "OWLET_REBUILD=1 runs it"
fi

# --- bad input ---------------------------------------------------------------------------
# (--tree with another NAME: the built outputs stay for the other tests)
bad() {	# bad DESC REGEX ENV... -- ARGS...: container.sh fails with one line matching REGEX
	_d=$1 _re=$2
	shift 2
	_env=()
	while [ "$1" != -- ]; do _env+=("$1"); shift; done
	shift
	_out=$(env "${_env[@]}" B="$B" sh "$TOP/image/container.sh" "$@" 2>&1)
	_rc=$?
	[ "$_rc" -ne 0 ] && [ "$(wc -l <<<"$_out")" -eq 1 ] && grep -Eq -- "$_re" <<<"$_out"
	ok $? "$_d"
	if [ "$_rc" = 0 ] || [ "$(wc -l <<<"$_out")" != 1 ]; then diag "rc $_rc: $_out"; fi
}
bad "--tree NAME with other characters" "^container.sh: --tree: NAME must be" -- --tree "$OWLET_BASE" 'Bad/Name'
bad "--tree of a directory that is not a Debian root" "^container.sh: $T: not a Debian root" -- --tree "$T" owlet-bad
bad "SOURCE_DATE_EPOCH not a number" "^container.sh: SOURCE_DATE_EPOCH must be" SOURCE_DATE_EPOCH=yesterday -- \
    --tree "$OWLET_BASE" owlet-bad
mkdir -p "$T/nozstd"
for p in sh env id sha256sum cut sed dirname cat printf git date mkdir gzip xz tar; do
	_p=$(command -v "$p") && ln -sf "$_p" "$T/nozstd/$p"
done
bad "a missing tool names its Debian package" "zstd not found: install the Debian package zstd" \
    PATH="$T/nozstd" -- --tree "$OWLET_BASE" owlet-bad
# An interrupted build: killed while it copies and tars.
(B=$B sh "$TOP/image/container.sh" --tree "$OWLET_BASE" owlet-bad >/dev/null 2>&1 &
 pid=$!; sleep 4; kill -TERM "$pid"; wait "$pid")
sleep 1
is "$(find "$O" -maxdepth 1 -name 'owlet-bad*')" "" "nothing under a final name after failures and an interrupted build"
is "$(ls -d "$O/container.work" 2>/dev/null)" "" "... and no work directory left"
done_testing
