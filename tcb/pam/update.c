/*
 * Writing a new hash.
 *
 * tcb (write_to=tcb): the thread drops to the user's fs IDs first (a no-op
 * when the caller already is the user, e.g. passwd set-gid shadow), takes
 * the user's lock, and replaces /etc/tcb/USER/shadow through a new file in
 * the same directory: created O_EXCL, owner and mode copied on the fd,
 * fsynced, renamed over the old one, directory fsynced.  At every instant
 * the user has the old entry or the new one.  Nothing outside the user's
 * own directory is touched and no other user waits.
 *
 * shadow/passwd: the same replacement of the whole file under the global
 * /etc/.pwd.lock, taken with owlet_pwlock, never glibc's lckpwdf(), which
 * would arm SIGALRM in the application's process; only root can do it.
 * When a new hash goes to shadow or tcb while passwd still holds a hash,
 * passwd's field becomes "x".
 *
 * The file handling is common/shadowedit.c and tcb/edit/shadowlock.c,
 * shared with chage(1); this file maps its failures to PAM codes and log
 * lines.
 */
#include <errno.h>
#include <pwd.h>
#include <shadow.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <security/pam_ext.h>

#include "owlet.h"
#include "shadowlock.h"
#include "tcb.h"
#include "pam_tcb.h"
#include "owner.h"

/* NAME's entry with HASH, and for shadow(5) files the last change day. */
static void
edit_init(struct owlet_edit *ed, int shadow, const char *hash, char *day,
    size_t daylen)
{
	memset(ed, 0, sizeof(*ed));
	ed->field[1] = hash;
	if (shadow) {
		snprintf(day, daylen, "%ld", tcb_today());
		ed->field[2] = day;
	}
}

static int
update_tcb(pam_handle_t *pamh, const char *name, uid_t uid, const char *hash)
{
	struct owlet_edit ed;
	struct owlet_edit_status st;
	char path[sizeof(TCB_DIR) + OWLET_NAME_MAX + 8], day[24];
	int rc = PAM_SUCCESS;

	edit_init(&ed, 1, hash, day, sizeof(day));
	ed.flags = OWLET_EDIT_ONE_LINE;
	if (owlet_edit_tcb(name, uid, &ed, &st) == 0)
		return PAM_SUCCESS;
	snprintf(path, sizeof(path), TCB_FMT, name);
	errno = st.err;
	switch (st.failed) {
	case OWLET_EDIT_DONE:
		break;
	case OWLET_EDIT_NOMEM:
		return PAM_BUF_ERR;
	case OWLET_EDIT_NOTROOT:	/* not a tcb step */
	case OWLET_EDIT_DROP:
		pam_syslog(pamh, LOG_ERR, "cannot drop privileges to %s: %m",
		    name);
		return PAM_CRED_INSUFFICIENT;
	case OWLET_EDIT_OPEN:
	case OWLET_EDIT_LOCK:
		rc = st.err == EACCES ? PAM_CRED_INSUFFICIENT :
		    st.failed == OWLET_EDIT_OPEN ? PAM_AUTHTOK_ERR :
		    PAM_AUTHTOK_LOCK_BUSY;
		pam_syslog(pamh, LOG_ERR, "cannot lock %s: %m", path);
		break;
	case OWLET_EDIT_WRITE:
		rc = PAM_AUTHTOK_ERR;
		pam_syslog(pamh, LOG_ERR, "Failed to update %s: %m", path);
		break;
	}
	if (st.regain_err) {
		errno = st.regain_err;
		pam_syslog(pamh, LOG_CRIT, "cannot regain privileges: %m");
		rc = PAM_AUTHTOK_ERR;
	}
	return rc;
}

static int
update_etc(pam_handle_t *pamh, const char *file, const char *name,
    const char *hash)
{
	struct owlet_edit ed;
	struct owlet_edit_status st;
	char day[24];

	edit_init(&ed, strcmp(file, "shadow") == 0, hash, day, sizeof(day));
	if (owlet_edit_etc(file, name, &ed, &st) == 0)
		return PAM_SUCCESS;
	errno = st.err;
	switch (st.failed) {
	case OWLET_EDIT_NOTROOT:
		return PAM_CRED_INSUFFICIENT;
	case OWLET_EDIT_LOCK:
		pam_syslog(pamh, LOG_ERR, "cannot lock the password files");
		return PAM_AUTHTOK_LOCK_BUSY;
	default:
		pam_syslog(pamh, LOG_ERR, "Failed to update /etc/%s: %m", file);
		return PAM_AUTHTOK_ERR;
	}
}

int
tcb_update(pam_handle_t *pamh, const struct tcb_opts *o, const char *name,
    const struct tcb_user *u, const char *hash)
{
	int rc, fix_passwd = !tcb_pw_shadowed(u->pw.pw_passwd);

	/* Refuse before writing anything when passwd cannot follow. */
	if (o->write_to != WRITE_PASSWD && fix_passwd && geteuid() != 0)
		return PAM_CRED_INSUFFICIENT;
	switch (o->write_to) {
	case WRITE_TCB:
		rc = update_tcb(pamh, name, u->pw.pw_uid, hash);
		break;
	case WRITE_SHADOW:
		rc = update_etc(pamh, "shadow", name, hash);
		break;
	default:
		return update_etc(pamh, "passwd", name, hash);
	}
	if (rc == PAM_SUCCESS && fix_passwd)
		rc = update_etc(pamh, "passwd", name, "x");
	return rc;
}
