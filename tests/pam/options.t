#!/bin/bash
# pam_tcb options (tcb.md section 4): every documented option is accepted
# in all four management groups; an unknown word, a bad value or a valued
# option repeated with another value makes every group return PAM_ABORT
# without talking to the user.
. "$(dirname "$0")/../lib/pam.sh"
need_pam
tmpdir

R=$T/r
pam_root "$R" 2 >/dev/null || { echo "Bail out! cannot build a root"; exit 1; }
GOOD=Opt-good-1
set_hash "$R" u1 "$(mkhash "$GOOD")"

# One handle: auth (right password), account, session open/close, then a
# password change by root whose retype does not match: it reaches the
# point where the new token is read and stops before any write.
OPS="auth acct open close chauthtok"
ANS="-a $GOOD -a New-pass-A1 -a New-pass-B2"
WANT="auth PAM_SUCCESS acct PAM_SUCCESS open PAM_SUCCESS close PAM_SUCCESS chauthtok PAM_TRY_AGAIN"

accepted() {	# accepted WANT OPTION...
	local want=$1 out; shift
	tcb_svc "$R" owlet shadow nodelay "$@"
	out=$(probe "$R" -u u1 $ANS $OPS)
	is "$(codes "$out")" "$want" "option accepted: $*"
}

before=$(cat "$R"/etc/tcb/*/shadow "$R/etc/passwd" "$R/etc/shadow" | sha256sum)
for opt in debug audit nullok try_first_pass authtok_type=X shadow passwd \
    write_to=tcb write_to=shadow write_to=passwd 'prefix=$y$' 'prefix=$6$' \
    'prefix=$2b$' md5 count=0 count=5 plain_crypt fork \
    helper=/usr/libexec/chkpwd/tcb_chkpwd helper= likeauth nodelay nolog \
    openlog noopenlog blank_nolog; do
	accepted "$WANT" "$opt"
done
# use_first_pass: no PAM_AUTHTOK item, so neither the password check nor
# the new-password read may prompt; use_authtok: only the new one.
accepted "auth PAM_AUTH_ERR acct PAM_SUCCESS open PAM_SUCCESS close PAM_SUCCESS chauthtok PAM_AUTHTOK_ERR" use_first_pass
accepted "auth PAM_SUCCESS acct PAM_SUCCESS open PAM_SUCCESS close PAM_SUCCESS chauthtok PAM_AUTHTOK_ERR" use_authtok
# Valued options may repeat with the same value; md5 is prefix=$1$.
accepted "$WANT" 'prefix=$6$' 'prefix=$6$'
accepted "$WANT" md5 'prefix=$1$'
accepted "$WANT" write_to=tcb write_to=tcb
accepted "$WANT" count=7 count=7
# Everything at once.
accepted "$WANT" debug audit nullok try_first_pass authtok_type=X shadow \
    passwd write_to=tcb 'prefix=$6$' count=5000 plain_crypt fork \
    helper=/nonexistent likeauth nodelay nolog openlog noopenlog blank_nolog
is "$(cat "$R"/etc/tcb/*/shadow "$R/etc/passwd" "$R/etc/shadow" | sha256sum)" \
    "$before" "no option run changed a password database"

# authtok_type=X reaches libpam's prompts.
tcb_svc "$R" owlet shadow nodelay authtok_type=UNIX
out=$(probe "$R" -u u1 -a New-pass-A1 -a New-pass-B2 chauthtok)
like "$(msgs "$out")" "^echo_off New UNIX password: \|echo_off Retype new UNIX password: " \
    "authtok_type=UNIX: prompts name the type"

# Refused: PAM_ABORT from auth, setcred, account, session and password,
# and no prompt or message at all.
ABORT="auth PAM_ABORT setcred PAM_ABORT acct PAM_ABORT open PAM_ABORT close PAM_ABORT chauthtok PAM_ABORT"
refused() {
	local out
	tcb_svc "$R" owlet shadow nodelay "$@"
	out=$(probe "$R" -u u1 -a "$GOOD" -a New-pass-A1 -a New-pass-A1 \
	    auth setcred acct open close chauthtok)
	is "$(codes "$out")" "$ABORT" "refused in every group: $*"
	is "$(msgs "$out")" "" "refused without a prompt: $*"
}
refused bogus
refused write_to=foo
refused write_to=
refused prefix=bogus
refused 'prefix='
refused 'prefix=$'
refused 'prefix=$y'
refused 'prefix=$Y$'
refused count=abc
refused count=
refused count=-1
refused count=5x
refused count=99999999999999999999
refused 'prefix=$y$' 'prefix=$6$'
refused md5 'prefix=$6$'
refused write_to=tcb write_to=shadow
refused count=5 count=6
refused helper=/a helper=/b
refused helper=relative/path
# Spelled right, but libxcrypt cannot hash with it: refused at parse time,
# not after the user typed a new password twice.
refused 'prefix=$zz$'
refused 'prefix=$$'
refused 'prefix=$y$' count=100
refused 'prefix=$2b$' count=99
refused md5 count=5
# Debian pam_unix options are not pam_tcb options.
refused obscure
refused yescrypt
refused sha512
refused rounds=5
refused nullok_secure
refused Debug
# A bad word anywhere in the list, between good ones.
refused debug bogus nullok
is "$(cat "$R"/etc/tcb/*/shadow "$R/etc/passwd" "$R/etc/shadow" | sha256sum)" \
    "$before" "no refused run changed a password database"

done_testing
