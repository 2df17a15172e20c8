/* session: log the opening and closing of sessions, as pam_unix does. */
#include <pwd.h>
#include <syslog.h>
#include <unistd.h>
#include <security/pam_ext.h>
#include <security/pam_modutil.h>

#include "owlet.h"
#include "pam_tcb.h"

static int
session_user(pam_handle_t *pamh, int argc, const char **argv,
    const char **name)
{
	struct tcb_opts o;
	int rc;

	rc = tcb_opts_get(pamh, argc, argv, &o);
	if (rc != PAM_SUCCESS)
		return rc;
	if (pam_get_item(pamh, PAM_USER, (const void **)name) != PAM_SUCCESS ||
	    !*name || !owlet_name_ok(*name)) {
		pam_syslog(pamh, LOG_ERR, "session: no valid user name");
		return PAM_SESSION_ERR;
	}
	return PAM_SUCCESS;
}

PAM_EXPORT int
pam_sm_open_session(pam_handle_t *pamh, int flags, int argc,
    const char **argv)
{
	const void *ruser = NULL;
	const char *name;
	int rc;

	rc = session_user(pamh, argc, argv, &name);
	if (rc != PAM_SUCCESS)
		return rc;
	/* Not getpwnam(): its static result is the application's too, and
	 * the application may be threaded; pam_modutil_getpwnam keeps the
	 * result as PAM data of this handle. */
	if (!pam_modutil_getpwnam(pamh, name)) {
		pam_syslog(pamh, LOG_ERR, "session: unknown user %s", name);
		return PAM_SESSION_ERR;
	}
	pam_get_item(pamh, PAM_RUSER, &ruser);
	pam_syslog(pamh, LOG_INFO, "Session opened for %s by %s(uid=%u)",
	    name, ruser ? (const char *)ruser : "", (unsigned)getuid());
	return PAM_SUCCESS;
}

PAM_EXPORT int
pam_sm_close_session(pam_handle_t *pamh, int flags, int argc,
    const char **argv)
{
	const char *name;
	int rc;

	rc = session_user(pamh, argc, argv, &name);
	if (rc != PAM_SUCCESS)
		return rc;
	pam_syslog(pamh, LOG_INFO, "Session closed for %s", name);
	return PAM_SUCCESS;
}
