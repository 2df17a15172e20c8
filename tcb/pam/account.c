/*
 * account: pam_sm_acct_mgmt.  Aging is read from the shadow database (the
 * shadow option is implied) and judged by tcb_aging(); messages go to the
 * user through the conversation unless PAM_SILENT.  With the fork option
 * the entry is read in a child and only the verdict comes back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <security/pam_ext.h>

#include "pam_tcb.h"
#include "owner.h"

#define VERDICT_NO_USER		(-1)
#define VERDICT_NO_AGING	(-2)
#define VERDICT_NO_SHADOW	(-3)
#define VERDICT_DAYS_MAX	(1 << 20)

struct acct_ctx {
	pam_handle_t *pamh;
	const struct tcb_opts *o;
};

/* The verdict as one int: enum tcb_aging | days << 8, or a VERDICT_*. */
static int
judge(void *arg)
{
	struct acct_ctx *a = arg;
	struct tcb_user *u;
	const char *name;
	long days;
	int v;

	u = calloc(1, sizeof(*u));
	if (!u)
		return VERDICT_NO_SHADOW;
	if (tcb_user_get(a->pamh, a->o, 1, &name, u) != PAM_SUCCESS ||
	    !u->have_pw)
		v = VERDICT_NO_USER;
	else if (a->o->passwd && !tcb_pw_shadowed(u->pw.pw_passwd))
		v = VERDICT_NO_AGING;
	else if (!u->have_sp)
		v = VERDICT_NO_SHADOW;
	else {
		v = (int)tcb_aging(&u->sp, tcb_today(), &days);
		if (days > VERDICT_DAYS_MAX)
			days = VERDICT_DAYS_MAX;
		v |= (int)days << 8;
	}
	tcb_user_wipe(u);
	free(u);
	return v;
}

PAM_EXPORT int
pam_sm_acct_mgmt(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	struct tcb_opts o;
	struct acct_ctx a = { pamh, &o };
	const void *user = NULL;
	const char *name;
	char msg[128];
	int rc, v, days;

	rc = tcb_opts_get(pamh, argc, argv, &o);
	if (rc != PAM_SUCCESS)
		return rc;
	o.shadow = 1;
	/* Ask for a missing user name here, not in judge(): with fork that
	 * runs in a child, and the answer would never reach PAM_USER. */
	rc = pam_get_user(pamh, &name, NULL);
	if (rc == PAM_CONV_AGAIN)
		return PAM_INCOMPLETE;
	if (rc != PAM_SUCCESS) {
		pam_syslog(pamh, LOG_ALERT, "Unable to identify user");
		return PAM_USER_UNKNOWN;
	}
	v = tcb_call(&o, judge, &a);
	pam_get_item(pamh, PAM_USER, &user);
	if (!user)
		user = "";
	switch (v) {
	case VERDICT_NO_USER:
		pam_syslog(pamh, LOG_ALERT, "Unable to identify user");
		return PAM_USER_UNKNOWN;
	case VERDICT_NO_AGING:
		return PAM_SUCCESS;
	case VERDICT_NO_SHADOW:
		pam_syslog(pamh, LOG_ALERT, "Unable to get shadow entry of %s",
		    (const char *)user);
		return PAM_CRED_INSUFFICIENT;
	}
	days = v >> 8;
	switch ((enum tcb_aging)(v & 0xff)) {
	case AGING_ACCOUNT_EXPIRED:
	case AGING_INACTIVE:
		pam_syslog(pamh, LOG_NOTICE, "Account %s has expired (%s)",
		    (const char *)user, (v & 0xff) == AGING_INACTIVE ?
		    "failed to change password" : "account expired");
		tcb_say(pamh, flags, PAM_ERROR_MSG, "Your account has expired; "
		    "please contact your system administrator.");
		return PAM_ACCT_EXPIRED;
	case AGING_CHANGE_ENFORCED:
		pam_syslog(pamh, LOG_NOTICE, "Expired password for %s "
		    "(administrator enforced)", (const char *)user);
		tcb_say(pamh, flags, PAM_ERROR_MSG, "You are required to change "
		    "your password immediately (administrator enforced).");
		return PAM_NEW_AUTHTOK_REQD;
	case AGING_PASSWORD_EXPIRED:
		pam_syslog(pamh, LOG_NOTICE, "Expired password for %s "
		    "(password aged)", (const char *)user);
		tcb_say(pamh, flags, PAM_ERROR_MSG, "You are required to change "
		    "your password immediately (password expired).");
		return PAM_NEW_AUTHTOK_REQD;
	case AGING_WARN:
		pam_syslog(pamh, LOG_INFO, "Password for %s will expire in %d "
		    "day(s)", (const char *)user, days);
		snprintf(msg, sizeof(msg), "Warning: your password will expire "
		    "in %d day%s.", days, days == 1 ? "" : "s");
		tcb_say(pamh, flags, PAM_TEXT_INFO, msg);
		return PAM_SUCCESS;
	case AGING_OK:
		return PAM_SUCCESS;
	}
	return PAM_ABORT;
}
