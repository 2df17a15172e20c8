#!/bin/bash
# pam_tcb sessions: open and close succeed for a known user; an unknown
# user or a name that cannot be one is a session error.
. "$(dirname "$0")/../lib/pam.sh"
need_pam
tmpdir

R=$T/r
pam_root "$R" 2 >/dev/null || { echo "Bail out! cannot build a root"; exit 1; }
for mode in "" fork; do
	m=${mode:+[fork] }
	tcb_svc "$R" owlet $mode
	out=$(probe "$R" -u u1 open close)
	is "$(codes "$out") | $(msgs "$out")" "open PAM_SUCCESS close PAM_SUCCESS | " \
	    "${m}known user: open and close, nothing shown"
	out=$(probe "$R" -u root open close)
	is "$(codes "$out")" "open PAM_SUCCESS close PAM_SUCCESS" "${m}root"
	out=$(probe_as 1001 42 "$R" -u u1 open close)
	is "$(codes "$out")" "open PAM_SUCCESS close PAM_SUCCESS" "${m}as the user itself"
	out=$(probe "$R" -u nosuch open)
	is "$(codes "$out")" "open PAM_SESSION_ERR" "${m}unknown user: open fails"
	for bad in ../x a/b .x "$(printf 'a%.0s' $(seq 40))"; do
		out=$(probe "$R" -u "$bad" open close)
		is "$(codes "$out")" "open PAM_SESSION_ERR close PAM_SESSION_ERR" \
		    "${m}bad name '$bad': open and close fail"
	done
done
in_ns "$R" pamtester owlet u1 open_session close_session >/dev/null 2>&1
ok $? "pamtester: open_session close_session"
in_ns "$R" pamtester owlet nosuch open_session >/dev/null 2>&1
ok $((! $?)) "pamtester: unknown user cannot open a session"

done_testing
