/*
 * Who is the user and what hash do we hold for them.
 *
 * A hash from /etc/tcb counts only if the account owns its directory
 * (owner.c).  Verification runs crypt_rn() on a private crypt_data (wiped
 * after use) and compares in constant time.  Unknown users, locked hashes ('!', '*')
 * and empty hashes without nullok still cost one full hash computation with
 * the configured method (tcb_verify_dummy), so timing does not tell them
 * apart from a wrong password.
 */
#include <crypt.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include <security/pam_ext.h>

#include "owlet.h"
#include "pam_tcb.h"
#include "owner.h"

void
tcb_say(pam_handle_t *pamh, int flags, int style, const char *msg)
{
	if (!(flags & PAM_SILENT))
		pam_prompt(pamh, style, NULL, "%s", msg);
}

long
tcb_today(void)
{
	return (long)(time(NULL) / (24 * 60 * 60));
}

int
tcb_user_get(pam_handle_t *pamh, const struct tcb_opts *o, int want_sp,
    const char **name, struct tcb_user *u)
{
	struct passwd *pwres = NULL;
	struct spwd *spres = NULL;
	int rc, shadowed;

	rc = pam_get_user(pamh, name, NULL);
	if (rc != PAM_SUCCESS)
		return rc == PAM_CONV_AGAIN ? PAM_INCOMPLETE : rc;
	if (!*name || !owlet_name_ok(*name))
		return PAM_USER_UNKNOWN;
	u->have_pw = u->have_sp = 0;
	u->hash = NULL;
	u->hash_secret = 0;
	u->sp_errno = 0;
	rc = getpwnam_r(*name, &u->pw, u->pwbuf, sizeof(u->pwbuf), &pwres);
	if (!pwres)
		return rc == 0 || rc == ENOENT ? PAM_SUCCESS :
		    PAM_AUTHINFO_UNAVAIL;
	u->have_pw = 1;
	shadowed = tcb_pw_shadowed(u->pw.pw_passwd);
	if (!shadowed && o->passwd)
		u->hash = u->pw.pw_passwd;
	/* Aging (WANT_SP) comes from the shadow entry even when the hash
	 * does not, as upstream's account management reads it. */
	if (!want_sp && !(shadowed && o->shadow))
		return PAM_SUCCESS;
	errno = 0;
	rc = getspnam_r(*name, &u->sp, u->spbuf, sizeof(u->spbuf), &spres);
	if (spres && tcb_entry_owned(*name, u->pw.pw_uid) < 0) {
		pam_syslog(pamh, LOG_ALERT, "tcb entry of %s is not owned by "
		    "uid %u (a deleted account's?): ignored", *name,
		    (unsigned)u->pw.pw_uid);
		explicit_bzero(u->spbuf, sizeof(u->spbuf));
		u->sp_errno = EPERM;
	} else if (spres) {
		u->have_sp = 1;
		if (shadowed) {
			u->hash = u->sp.sp_pwdp;
			u->hash_secret = 1;
		}
	} else {
		u->sp_errno = rc ? rc : errno ? errno : ENOENT;
	}
	return PAM_SUCCESS;
}

void
tcb_user_wipe(struct tcb_user *u)
{
	explicit_bzero(u, sizeof(*u));
}

int
tcb_verify(const char *pass, const char *hash)
{
	switch (owlet_pass_matches(pass, hash)) {
	case 1:
		return PAM_SUCCESS;
	case 0:
		return PAM_AUTH_ERR;
	default:
		return PAM_BUF_ERR;
	}
}

void
tcb_verify_dummy(const struct tcb_opts *o, const char *pass)
{
	static const char rbytes[16] = {
		0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55,
		0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55,
	};
	struct crypt_data *cd;
	const char *prefix;
	unsigned long count;
	char *setting;

	(void)tcb_method(o, &prefix, &count);	/* best effort: timing only */
	setting = crypt_gensalt_ra(prefix, count, rbytes, sizeof(rbytes));
	if (!setting)
		setting = crypt_gensalt_ra(NULL, 0, rbytes, sizeof(rbytes));
	cd = calloc(1, sizeof(*cd));
	if (setting && cd)
		crypt_rn(pass ? pass : "", setting, cd, sizeof(*cd));
	if (cd) {
		explicit_bzero(cd, sizeof(*cd));
		free(cd);
	}
	free(setting);
}
