# Hand-built /etc/tcb trees for tests (sourced after root.sh).  Everything
# happens under a private root DIR made by mkroot; nothing touches /etc.
#
#   tcb_init DIR              /etc/tcb root:shadow 0710, group auth added
#   tcb_user DIR NAME UID LAYOUT LINE
#                             /etc/tcb/NAME holding LINE as its shadow file;
#                             LAYOUT auth: NAME:auth 2710 + 0640,
#                             LAYOUT shadow: NAME:shadow 2700 + 0600
#   mktcb DIR [LAYOUT]        tcb_init, then one entry per line of
#                             DIR/etc/shadow (uid from DIR/etc/passwd)
TCB_SHADOW_GID=42
TCB_AUTH_GID=160

tcb_init() {
	grep -q '^auth:' "$1/etc/group" ||
		echo "auth:x:$TCB_AUTH_GID:" >> "$1/etc/group"
	mkdir -p "$1/etc/tcb"
	chown 0:$TCB_SHADOW_GID "$1/etc/tcb"
	chmod 0710 "$1/etc/tcb"
}

tcb_user() {
	_d=$1/etc/tcb/$2
	mkdir -p "$_d"
	printf '%s\n' "$5" > "$_d/shadow"
	case $4 in
	auth)	chown "$3:$TCB_AUTH_GID" "$_d" "$_d/shadow"
		chmod 2710 "$_d"; chmod 0640 "$_d/shadow" ;;
	shadow)	chown "$3:$TCB_SHADOW_GID" "$_d" "$_d/shadow"
		chmod 2700 "$_d"; chmod 0600 "$_d/shadow" ;;
	*)	echo "tcb_user: bad layout $4" >&2; return 1 ;;
	esac
}

mktcb() {
	tcb_init "$1"
	while IFS= read -r _line; do
		_name=${_line%%:*}
		_uid=$(awk -F: -v n="$_name" '$1 == n { print $3 }' "$1/etc/passwd")
		tcb_user "$1" "$_name" "${_uid:-0}" "${2:-auth}" "$_line"
	done < "$1/etc/shadow"
}
