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
 * shadow/passwd: the same replacement of the whole file under glibc's
 * lckpwdf(); only root can do it.  When a new hash goes to shadow or tcb
 * while passwd still holds a hash, passwd's field becomes "x".
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <shadow.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <security/pam_ext.h>

#include "owlet.h"
#include "tcb.h"
#include "pam_tcb.h"

#define DB_FILE_MAX	((off_t)1 << 40)

static void
put_verbatim(struct owlet_wbuf *w, const char *line, size_t len)
{
	owlet_wbuf_put(w, line, len);
	owlet_wbuf_put(w, "\n", 1);
}

/* Copy LINE to W, with NAME's password field (and, for shadow, the last
 * change day) replaced.  Returns 1 if the line was NAME's. */
static int
put_line(struct owlet_wbuf *w, const char *line, size_t len, const char *name,
    size_t nlen, int shadow, const char *hash, long today)
{
	const char *end = line + len, *rest;
	char day[24];

	if (len <= nlen || memcmp(line, name, nlen) != 0 || line[nlen] != ':' ||
	    !(rest = memchr(line + nlen + 1, ':', len - nlen - 1))) {
		put_verbatim(w, line, len);
		return 0;
	}
	owlet_wbuf_put(w, line, nlen + 1);
	owlet_wbuf_put(w, hash, strlen(hash));
	if (shadow) {	/* the old last-change field goes too */
		const char *r2 = memchr(rest + 1, ':', (size_t)(end - rest - 1));

		rest = r2 ? r2 : end;
		snprintf(day, sizeof(day), ":%ld", today);
		owlet_wbuf_put(w, day, strlen(day));
	}
	put_verbatim(w, rest, (size_t)(end - rest));
	return 1;
}

/*
 * Replace DIRFD/FILE with a copy in which NAME's entry has HASH.  OWNER, if
 * not -1, is the uid the old file must have.  0, or -1 with errno (ENOENT:
 * NAME has no entry; EINVAL: suspicious or malformed file).
 */
static int
rewrite(int dirfd, const char *file, off_t max, uid_t owner, const char *name,
    int shadow, const char *hash, int single)
{
	struct owlet_replace r;
	struct owlet_lines *lr = NULL;
	struct owlet_wbuf *w = NULL;
	size_t nlen = strlen(name), len;
	struct stat st;
	char *line;
	int fd, rc, found = 0, lines = 0, e = 0;
	long today = tcb_today();

	fd = owlet_open_trusted(dirfd, file, max, &st);
	if (fd < 0)
		return -1;
	if (owner != (uid_t)-1 && st.st_uid != owner) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	lr = malloc(sizeof(*lr));
	w = malloc(sizeof(*w));
	if (!lr || !w) {
		e = ENOMEM;
		goto out_nofile;
	}
	if (owlet_replace_begin(&r, dirfd, file, st.st_mode & 07777, st.st_uid,
	    st.st_gid) < 0) {
		e = errno;
		goto out_nofile;
	}
	owlet_wbuf_init(w, r.fd);
	owlet_lines_init(lr, fd);
	while ((rc = owlet_lines_next(lr, &line, &len)) > 0) {
		lines++;
		if (single && owlet_shadow_check(line, len) < 0) {
			rc = -1;
			errno = EINVAL;
			break;
		}
		if (!found)
			found = put_line(w, line, len, name, nlen, shadow, hash,
			    today);
		else
			put_verbatim(w, line, len);
	}
	if (rc < 0)
		e = errno;
	else if (!found)
		e = ENOENT;
	else if (single && lines != 1)
		e = EINVAL;
	if (e == 0 && owlet_wbuf_flush(w) < 0)
		e = errno;
	if (e)
		owlet_replace_abort(&r);
	else if (owlet_replace_commit(&r) < 0)
		e = errno;
out_nofile:
	if (lr)
		explicit_bzero(lr, sizeof(*lr));
	if (w)
		explicit_bzero(w, sizeof(*w));
	free(lr);
	free(w);
	close(fd);
	errno = e;
	return e ? -1 : 0;
}

static int
update_tcb(pam_handle_t *pamh, const char *name, uid_t uid, const char *hash)
{
	struct tcb_privs privs = { 0 };
	char path[sizeof(TCB_DIR) + OWLET_NAME_MAX + 8];
	int n, dirfd = -1, rc = PAM_AUTHTOK_ERR;

	n = getgroups(0, NULL);
	privs.grplist = calloc((size_t)(n > 0 ? n : 1), sizeof(gid_t));
	privs.number_of_groups = n > 0 ? n : 1;
	if (!privs.grplist)
		return PAM_BUF_ERR;
	if (tcb_drop_priv_r(name, &privs) < 0) {
		pam_syslog(pamh, LOG_ERR, "cannot drop privileges to %s: %m",
		    name);
		free(privs.grplist);
		return PAM_CRED_INSUFFICIENT;
	}
	snprintf(path, sizeof(path), TCB_DIR "/%s", name);
	dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	snprintf(path, sizeof(path), TCB_FMT, name);
	if (dirfd < 0 || lckpwdf_tcb(path) < 0) {
		rc = errno == EACCES ? PAM_CRED_INSUFFICIENT :
		    dirfd < 0 ? PAM_AUTHTOK_ERR : PAM_AUTHTOK_LOCK_BUSY;
		pam_syslog(pamh, LOG_ERR, "cannot lock %s: %m", path);
		goto out;
	}
	if (rewrite(dirfd, "shadow", OWLET_TCB_FILE_MAX, uid, name, 1, hash,
	    1) == 0)
		rc = PAM_SUCCESS;
	else
		pam_syslog(pamh, LOG_ERR, "Failed to update %s: %m", path);
	ulckpwdf_tcb();
out:
	if (dirfd >= 0)
		close(dirfd);
	if (tcb_gain_priv_r(&privs) < 0) {
		pam_syslog(pamh, LOG_CRIT, "cannot regain privileges: %m");
		rc = PAM_AUTHTOK_ERR;
	}
	free(privs.grplist);
	return rc;
}

static int
update_etc(pam_handle_t *pamh, const char *file, const char *name,
    const char *hash)
{
	int etcfd, rc = PAM_AUTHTOK_ERR;

	if (geteuid() != 0)
		return PAM_CRED_INSUFFICIENT;
	if (lckpwdf() < 0) {
		pam_syslog(pamh, LOG_ERR, "cannot lock the password files");
		return PAM_AUTHTOK_LOCK_BUSY;
	}
	etcfd = open("/etc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (etcfd >= 0 && rewrite(etcfd, file, DB_FILE_MAX, (uid_t)-1, name,
	    strcmp(file, "shadow") == 0, hash, 0) == 0)
		rc = PAM_SUCCESS;
	else
		pam_syslog(pamh, LOG_ERR, "Failed to update /etc/%s: %m", file);
	if (etcfd >= 0)
		close(etcfd);
	ulckpwdf();
	return rc;
}

int
tcb_update(pam_handle_t *pamh, const struct tcb_opts *o, const char *name,
    const struct tcb_user *u, const char *hash)
{
	int rc, fix_passwd = strcmp(u->pw.pw_passwd, "x") != 0 &&
	    strcmp(u->pw.pw_passwd, "*NP*") != 0;

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
