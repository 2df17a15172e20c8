#!/bin/bash
# pam_tcb account management: shadow(5) aging judged against today, the
# messages shown to the user (none with PAM_SILENT), unknown users, entries
# that cannot be read, the passwd option, and the fork option.
. "$(dirname "$0")/../lib/pam.sh"
need_pam
tmpdir

R=$T/r
pam_root "$R" 4 >/dev/null || { echo "Bail out! cannot build a root"; exit 1; }
D=$(today)
H=$(mkhash Acct-pass-1)
EXPIRED="error Your account has expired; please contact your system administrator."
ENFORCED="error You are required to change your password immediately (administrator enforced)."
AGED="error You are required to change your password immediately (password expired)."
warn() { echo "info Warning: your password will expire in $1."; }

# u3: a user in /etc/passwd without any shadow entry.
echo "u9:x:1009:100::/:/bin/sh" >> "$R/etc/passwd"
# u4: the hash in /etc/passwd, an expired tcb entry (used only without the
# passwd option).
sed -i "s|^u4:x:|u4:$H:|" "$R/etc/passwd"
set_entry "$R" u4 "$H:$((D - 10)):0:99999:7::$((D - 1)):"

# aging DESC FIELDS WANT_CODE WANT_MSGS: u1's entry is "u1:H:FIELDS"
# (lstchg:min:max:warn:inact:expire:reserved), then account management.
aging() {
	local desc=$1 fields=$2 want=$3 wmsg=$4 out
	set_entry "$R" u1 "$H:$fields"
	out=$(probe "$R" -u u1 acct)
	is "$(codes "$out") | $(msgs "$out")" "acct $want | $wmsg" "$m$desc"
	if [ -n "$wmsg" ]; then
		out=$(probe "$R" -u u1 acct:silent)
		is "$(codes "$out") | $(msgs "$out")" "acct $want | " \
		    "$m$desc, PAM_SILENT: no message"
	fi
}

for mode in "" fork; do
	m=${mode:+[fork] }
	tcb_svc "$R" owlet nodelay $mode
	aging "no aging" "$((D - 1)):0:99999:7:::" PAM_SUCCESS ""
	aging "account expires today" "$((D - 1)):0:99999:7::$D:" PAM_ACCT_EXPIRED "$EXPIRED"
	aging "account expired yesterday" "$((D - 1)):0:99999:7::$((D - 1)):" PAM_ACCT_EXPIRED "$EXPIRED"
	aging "account expires tomorrow" "$((D - 1)):0:99999:7::$((D + 1)):" PAM_SUCCESS ""
	aging "expiry day 0 (1970)" "$((D - 1)):0:99999:7::0:" PAM_ACCT_EXPIRED "$EXPIRED"
	aging "inactive: lstchg+max+inact < today" "$((D - 50)):0:30:7:10::" PAM_ACCT_EXPIRED "$EXPIRED"
	aging "inactivity ends today: password expired only" "$((D - 40)):0:30:7:10::" \
	    PAM_NEW_AUTHTOK_REQD "$AGED"
	aging "lstchg 0: change enforced" "0:0:99999:7:::" PAM_NEW_AUTHTOK_REQD "$ENFORCED"
	aging "lstchg 0 beats inactivity" "0:0:30:7:10::" PAM_NEW_AUTHTOK_REQD "$ENFORCED"
	aging "password expired" "$((D - 40)):0:30:7:::" PAM_NEW_AUTHTOK_REQD "$AGED"
	aging "password expired yesterday" "$((D - 31)):0:30:7:::" PAM_NEW_AUTHTOK_REQD "$AGED"
	aging "password expires today: warned, 0 days" "$((D - 30)):0:30:7:::" PAM_SUCCESS "$(warn "0 days")"
	aging "warn period: 5 days left" "$((D - 25)):0:30:7:::" PAM_SUCCESS "$(warn "5 days")"
	aging "warn period: 1 day left" "$((D - 29)):0:30:7:::" PAM_SUCCESS "$(warn "1 day")"
	aging "first warning day: 6 days left" "$((D - 24)):0:30:7:::" PAM_SUCCESS "$(warn "6 days")"
	aging "7 days left with warn 7: not yet" "$((D - 23)):0:30:7:::" PAM_SUCCESS ""
	aging "before the warn period" "$((D - 22)):0:30:7:::" PAM_SUCCESS ""
	aging "warn empty: no warning" "$((D - 25)):0:30::::" PAM_SUCCESS ""
	aging "warn 0: no warning" "$((D - 25)):0:30:0:::" PAM_SUCCESS ""
	aging "max empty: never expires" "$((D - 1000)):0::7:1::" PAM_SUCCESS ""
	aging "empty lstchg: aging off" ":0:1:7:1::" PAM_SUCCESS ""
	aging "empty lstchg: expiry date still applies" ":0:30:7::$((D - 1)):" PAM_ACCT_EXPIRED "$EXPIRED"
	aging "huge max does not overflow" "$((D - 1)):0:9223372036854775806:7:9223372036854775806::" PAM_SUCCESS ""
	aging "lstchg in the future" "$((D + 100)):0:30:7:::" PAM_SUCCESS ""

	out=$(probe "$R" -u nosuch acct)
	is "$(codes "$out") | $(msgs "$out")" "acct PAM_USER_UNKNOWN | " "${m}unknown user"
	for bad in ../x a/b "$(printf 'a%.0s' $(seq 40))"; do
		out=$(probe "$R" -u "$bad" acct)
		is "$(codes "$out")" "acct PAM_USER_UNKNOWN" "${m}bad name '$bad'"
	done
	out=$(probe "$R" -u u9 acct)
	is "$(codes "$out")" "acct PAM_CRED_INSUFFICIENT" "${m}no shadow entry"
	out=$(probe "$R" -u u4 acct)
	is "$(codes "$out")" "acct PAM_ACCT_EXPIRED" "${m}hash in passwd, no passwd option: shadow aging"
	tcb_svc "$R" owlet nodelay passwd $mode
	out=$(probe "$R" -u u4 acct)
	is "$(codes "$out") | $(msgs "$out")" "acct PAM_SUCCESS | " \
	    "${m}passwd option, hash in passwd: no aging"
	set_entry "$R" u1 "$H:$((D - 1)):0:99999:7::$((D - 1)):"
	out=$(probe "$R" -u u1 acct)
	is "$(codes "$out")" "acct PAM_ACCT_EXPIRED" "${m}passwd option, 'x' in passwd: shadow aging"
	# The user itself, with group shadow: its own entry, same verdicts.
	tcb_svc "$R" owlet nodelay $mode
	set_entry "$R" u1 "$H:$((D - 25)):0:30:7:::"
	out=$(probe_as 1001 42 "$R" -u u1 acct)
	is "$(codes "$out") | $(msgs "$out")" "acct PAM_SUCCESS | $(warn "5 days")" \
	    "${m}as the user with group shadow: warned"
	set_entry "$R" u1 "$H:0:0:99999:7:::"
	out=$(probe_as 1001 42 "$R" -u u1 acct)
	is "$(codes "$out")" "acct PAM_NEW_AUTHTOK_REQD" "${m}as the user: change enforced"
	out=$(probe_as 1001 100 "$R" -u u1 acct)
	is "$(codes "$out")" "acct PAM_CRED_INSUFFICIENT" \
	    "${m}as the user without group shadow: entry unreadable"
	# No PAM_USER yet: the user name is asked once, by the caller (with
	# fork not in the child), so the rest of the stack knows it.
	tcb_svc "$R" owlet nodelay $mode
	set_entry "$R" u2 "$H:$((D - 1)):0:99999:7:::"
	out=$(probe "$R" -a u2 acct open)
	is "$(codes "$out") | $(msgs "$out")" "acct PAM_SUCCESS open PAM_SUCCESS | echo_on login:" \
	    "${m}user name asked once and kept for the session"
	out=$(probe "$R" -a @CONV_AGAIN@ -a u2 acct acct)
	is "$(codes "$out")" "acct PAM_INCOMPLETE acct PAM_SUCCESS" \
	    "${m}PAM_CONV_AGAIN for the user name: PAM_INCOMPLETE, then resumed"
done

# pamtester: the result reaches the application.
tcb_svc "$R" owlet nodelay
set_entry "$R" u2 "$H:$((D - 1)):0:99999:7::$((D - 1)):"
in_ns "$R" pamtester owlet u2 acct_mgmt >/dev/null 2>&1
ok $((! $?)) "pamtester: expired account refused"
set_entry "$R" u2 "$H:$((D - 1)):0:99999:7:::"
in_ns "$R" pamtester owlet u2 acct_mgmt >/dev/null 2>&1
ok $? "pamtester: valid account accepted"

done_testing
