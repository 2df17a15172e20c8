/*
 * password: pam_sm_chauthtok.
 *
 * "Root mode" (real uid 0, not an expired-password change at login) skips
 * the old password and aging rules.  Otherwise the preliminary phase asks
 * for and verifies the current password and refuses a change that aging
 * forbids; the update phase takes the new password (from a stacked policy
 * module with use_authtok, or by prompting), hashes it and writes it with
 * tcb_update().  A rejected new password is cleared before the next try, so
 * a retry really asks again (upstream re-tested the same token).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <security/pam_ext.h>

#include "owlet.h"
#include "pam_tcb.h"

#define NEW_TOKEN_TRIES	3

/* Aging rules for a non-root change: PAM_SUCCESS or the refusal. */
static int
aging_allows(pam_handle_t *pamh, int flags, const struct tcb_user *u)
{
	enum tcb_aging a;
	long days, today = tcb_today();

	if (!u->have_sp)
		return PAM_SUCCESS;
	a = tcb_aging(&u->sp, today, &days);
	if (a == AGING_ACCOUNT_EXPIRED || a == AGING_INACTIVE) {
		tcb_say(pamh, flags, PAM_ERROR_MSG, "Your account has expired; "
		    "please contact your system administrator.");
		return PAM_ACCT_EXPIRED;
	}
	if (tcb_too_early(&u->sp, today)) {
		tcb_say(pamh, flags, PAM_ERROR_MSG,
		    "You must wait longer to change your password.");
		return PAM_AUTHTOK_ERR;
	}
	return PAM_SUCCESS;
}

static int
get_new_token(pam_handle_t *pamh, int flags, const struct tcb_opts *o,
    const char *old, const char **new)
{
	int tries = o->use_authtok || o->use_first_pass ? 1 : NEW_TOKEN_TRIES;
	int rc = PAM_AUTHTOK_ERR;

	while (tries-- > 0) {
		rc = pam_get_authtok(pamh, PAM_AUTHTOK, new, NULL);
		if (rc != PAM_SUCCESS)
			return rc == PAM_CONV_AGAIN ? PAM_INCOMPLETE : rc;
		if (!**new) {
			tcb_say(pamh, flags, PAM_ERROR_MSG,
			    "No password has been supplied.");
			rc = PAM_AUTHTOK_ERR;
		} else if (old && strcmp(*new, old) == 0) {
			tcb_say(pamh, flags, PAM_ERROR_MSG,
			    "The password has not been changed.");
			rc = PAM_AUTHTOK_ERR;
		} else {
			return PAM_SUCCESS;
		}
		if (o->debug)
			pam_syslog(pamh, LOG_DEBUG, "new password rejected");
		pam_set_item(pamh, PAM_AUTHTOK, NULL);
	}
	return rc;
}

static int
update(pam_handle_t *pamh, int flags, const struct tcb_opts *o,
    const char *name, const struct tcb_user *u, int root_mode)
{
	const void *old = NULL, *ruser = NULL;
	const char *new;
	char *hash;
	int rc;

	if (!root_mode) {
		rc = aging_allows(pamh, flags, u);
		if (rc != PAM_SUCCESS)
			return rc;
		pam_get_item(pamh, PAM_OLDAUTHTOK, &old);
	}
	rc = get_new_token(pamh, flags, o, old, &new);
	if (rc != PAM_SUCCESS)
		return rc;
	hash = tcb_hash_new(pamh, o, new);
	if (!hash)
		return PAM_AUTHTOK_ERR;
	rc = tcb_update(pamh, o, name, u, hash);
	tcb_free_str(hash);
	if (rc == PAM_SUCCESS) {
		pam_get_item(pamh, PAM_RUSER, &ruser);
		pam_syslog(pamh, LOG_INFO, "Password for %s changed by "
		    "%s(uid=%u)", name, ruser ? (const char *)ruser : "",
		    (unsigned)getuid());
	}
	return rc;
}

static int
prelim(pam_handle_t *pamh, int flags, const struct tcb_opts *o,
    const char *name, const struct tcb_user *u, int root_mode)
{
	char msg[80];
	int rc;

	if (root_mode || (o->nullok && u->hash && !*u->hash))
		return PAM_SUCCESS;
	snprintf(msg, sizeof(msg), "Changing password for %s.", name);
	tcb_say(pamh, flags, PAM_TEXT_INFO, msg);
	rc = tcb_authenticate(pamh, o, PAM_OLDAUTHTOK, "Current password: ",
	    ", for password management");
	if (rc != PAM_SUCCESS)
		return rc;
	return aging_allows(pamh, flags, u);
}

PAM_EXPORT int
pam_sm_chauthtok(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	struct tcb_opts o;
	struct tcb_user *u;
	const char *name;
	int rc, root_mode;

	rc = tcb_opts_get(pamh, argc, argv, &o);
	if (rc != PAM_SUCCESS)
		return rc;
	if (!(flags & (PAM_PRELIM_CHECK | PAM_UPDATE_AUTHTOK)))
		return PAM_ABORT;
	o.shadow = 1;	/* the entry we are about to rewrite must be read */
	root_mode = getuid() == 0 && !(flags & PAM_CHANGE_EXPIRED_AUTHTOK);
	u = calloc(1, sizeof(*u));
	if (!u)
		return PAM_BUF_ERR;
	rc = tcb_user_get(pamh, &o, 1, &name, u);
	if (rc != PAM_SUCCESS)
		goto out;
	rc = PAM_USER_UNKNOWN;
	if (!u->have_pw || (o.write_to != WRITE_PASSWD &&
	    (strcmp(u->pw.pw_passwd, "x") == 0) && !u->have_sp))
		goto out;
	if (u->hash && u->hash[0] == '*' && strcmp(u->hash, "*NP*") != 0) {
		pam_syslog(pamh, LOG_NOTICE, "%s has no modifiable password",
		    name);
		tcb_say(pamh, flags, PAM_ERROR_MSG, "You do not have a modifiable "
		    "password.");
		rc = PAM_AUTHTOK_ERR;
		goto out;
	}
	if (flags & PAM_PRELIM_CHECK)
		rc = prelim(pamh, flags, &o, name, u, root_mode);
	else
		rc = update(pamh, flags, &o, name, u, root_mode);
out:
	tcb_user_wipe(u);
	free(u);
	return rc;
}
