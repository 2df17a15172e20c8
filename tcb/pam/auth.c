/*
 * auth: pam_sm_authenticate, pam_sm_setcred.
 *
 * Results: PAM_SUCCESS, PAM_AUTH_ERR (wrong password, locked or empty hash
 * without nullok), PAM_USER_UNKNOWN (no such user, or a name that cannot
 * be one), PAM_AUTHINFO_UNAVAIL (the hash cannot be read), PAM_INCOMPLETE
 * (the application's conversation asked to come back), PAM_ABORT (bad
 * options), PAM_BUF_ERR.  A wrong password costs the configured fail delay.
 */
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <sys/auxv.h>
#include <unistd.h>
#include <security/pam_ext.h>

#include "owlet.h"
#include "pam_tcb.h"
#include "gate.h"

#define NEED_HELPER	(-1)	/* verify() cannot read the hash itself */
#define DATA_AUTH_RC	"pam_tcb:auth_rc"

struct verify_ctx {
	pam_handle_t *pamh;
	const struct tcb_opts *o;
	const char *pass;	/* NULL: only ask "empty hash?" */
};

/*
 * A set-ID caller whose real uid is not 0 (set-gid passwd, a set-uid su
 * or sudo run by a user) tests a guess against a secret hash only through
 * the guess gate: the same one-guess-per-delay limit per user as
 * tcb_chkpwd (gate.c).  Without it a user could run many such programs at
 * once and kill each one as soon as its answer is late.  A caller that is
 * not set-ID and still reads the hash (a daemon in group auth or shadow)
 * holds the hash itself and gains nothing from the gate; a hash from
 * passwd(5) is public; a root caller is trusted.
 */
static int
check_guess(pam_handle_t *pamh, const char *name, const struct tcb_user *u,
    const char *pass)
{
	struct tcb_gate gate;
	int rc;

	if (getuid() == 0 || !getauxval(AT_SECURE) || !u->hash_secret)
		return tcb_verify(pass, u->hash);
	if (tcb_gate_enter(&gate, name, u->pw.pw_uid) < 0) {
		pam_syslog(pamh, LOG_ERR, "cannot rate-limit guesses for %s: "
		    "%m", name);
		return PAM_AUTHINFO_UNAVAIL;
	}
	rc = tcb_verify(pass, u->hash);
	if (tcb_gate_leave(&gate, rc == PAM_SUCCESS) < 0)
		pam_syslog(pamh, LOG_ERR, "cannot reset the delay stamp of "
		    "%s: %m", name);
	return rc;
}

static int
verify(void *arg)
{
	struct verify_ctx *v = arg;
	struct tcb_user *u;
	const char *name;
	int rc;

	u = calloc(1, sizeof(*u));
	if (!u)
		return PAM_BUF_ERR;
	rc = tcb_user_get(v->pamh, v->o, 0, &name, u);
	if (rc != PAM_SUCCESS)
		goto out;
	if (!v->pass) {		/* nullok pre-check */
		rc = u->have_pw && u->hash && !*u->hash ? PAM_SUCCESS :
		    PAM_AUTH_ERR;
		goto out;
	}
	if (!u->have_pw) {
		tcb_verify_dummy(v->o, v->pass);
		rc = PAM_USER_UNKNOWN;
	} else if (!u->hash) {
		if (v->o->helper && u->pw.pw_uid != 0 &&
		    getuid() == u->pw.pw_uid && geteuid() == u->pw.pw_uid) {
			rc = NEED_HELPER;
		} else {
			pam_syslog(v->pamh, LOG_ALERT,
			    "Credentials for user %s unknown", name);
			tcb_verify_dummy(v->o, v->pass);
			rc = PAM_AUTHINFO_UNAVAIL;
		}
	} else if (!*u->hash || *u->hash == '*' || *u->hash == '!') {
		tcb_verify_dummy(v->o, v->pass);
		rc = PAM_AUTH_ERR;
	} else {
		rc = check_guess(v->pamh, name, u, v->pass);
	}
out:
	tcb_user_wipe(u);
	free(u);
	return rc;
}

static void
log_result(pam_handle_t *pamh, const struct tcb_opts *o, const char *what,
    int rc, const char *pass)
{
	const void *ruser = NULL, *user = NULL;

	pam_get_item(pamh, PAM_USER, &user);
	pam_get_item(pamh, PAM_RUSER, &ruser);
	if (rc == PAM_SUCCESS) {
		pam_syslog(pamh, LOG_INFO, "Authentication passed for %s "
		    "from %s(uid=%u)%s", user ? (const char *)user : "",
		    ruser ? (const char *)ruser : "", (unsigned)getuid(), what);
		return;
	}
	if (o->blank_nolog && pass && !*pass)
		return;
	pam_syslog(pamh, LOG_NOTICE, "Authentication failed for %s from "
	    "%s(uid=%u)%s", user ? (const char *)user : "",
	    ruser ? (const char *)ruser : "", (unsigned)getuid(), what);
}

/* The whole check, shared with the password-change preliminary phase. */
int
tcb_authenticate(pam_handle_t *pamh, const struct tcb_opts *o, int item,
    const char *prompt, const char *what)
{
	struct verify_ctx v = { pamh, o, NULL };
	const char *pass = NULL, *name;
	int rc;

	rc = pam_get_user(pamh, &name, NULL);
	if (rc != PAM_SUCCESS)
		return rc == PAM_CONV_AGAIN ? PAM_INCOMPLETE : rc;
	if (!name || !owlet_name_ok(name))
		return PAM_USER_UNKNOWN;
	if (o->nullok && tcb_call(o, verify, &v) == PAM_SUCCESS)
		return PAM_SUCCESS;	/* empty hash, no prompt */
	rc = pam_get_authtok(pamh, item, &pass, prompt);
	if (rc != PAM_SUCCESS)
		return rc == PAM_CONV_AGAIN ? PAM_INCOMPLETE : rc;
	if (!o->nodelay)
		pam_fail_delay(pamh, PAM_TCB_FAIL_DELAY);
	v.pass = pass;
	rc = tcb_call(o, verify, &v);
	if (rc == NEED_HELPER)
		rc = tcb_helper_verify(pamh, o, name, pass);
	log_result(pamh, o, what, rc, pass);
	return rc;
}

static void
free_rc(pam_handle_t *pamh, void *data, int status)
{
	free(data);
}

PAM_EXPORT int
pam_sm_authenticate(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	struct tcb_opts o;
	int rc, *saved;

	rc = tcb_opts_get(pamh, argc, argv, &o);
	if (rc != PAM_SUCCESS)
		return rc;
	rc = tcb_authenticate(pamh, &o, PAM_AUTHTOK, NULL, "");
	if (o.likeauth && (saved = malloc(sizeof(*saved)))) {
		*saved = rc;
		if (pam_set_data(pamh, DATA_AUTH_RC, saved, free_rc) !=
		    PAM_SUCCESS)
			free(saved);
	}
	return rc;
}

PAM_EXPORT int
pam_sm_setcred(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	struct tcb_opts o;
	const void *saved = NULL;
	int rc;

	rc = tcb_opts_get(pamh, argc, argv, &o);
	if (rc != PAM_SUCCESS)
		return rc;
	if (o.likeauth && pam_get_data(pamh, DATA_AUTH_RC, &saved) ==
	    PAM_SUCCESS && saved)
		return *(const int *)saved;
	return PAM_SUCCESS;
}
