/*
 * The locked wrappers around owlet_edit_file (common/shadowedit.c): one
 * user's tcb file, edited with that user's fs IDs under the user's own
 * lock, and /etc files under the global /etc/.pwd.lock.  Needs libtcb.
 *
 * The global lock is owlet_pwlock (common/pwlock.c), not glibc's
 * lckpwdf(3): these functions run inside pam_tcb, in a PAM application's
 * process, and lckpwdf installs its own SIGALRM handler and calls alarm(),
 * which cancels any ITIMER_REAL the application has armed.  owlet_pwlock
 * takes the same fcntl lock on the same file by polling, so shadow-utils
 * and lckpwdf callers still exclude us and we them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "owlet.h"
#include "shadowlock.h"
#include "tcb.h"

static int
failed(struct owlet_edit_status *st, enum owlet_edit_step step)
{
	st->failed = step;
	st->err = errno;
	return -1;
}

int
owlet_edit_tcb(const char *name, uid_t owner, const struct owlet_edit *ed,
    struct owlet_edit_status *st)
{
	struct tcb_privs privs = { 0 };
	char path[sizeof(TCB_DIR) + OWLET_NAME_MAX + 8];
	int n, dirfd = -1, rc = -1;

	st->failed = OWLET_EDIT_DONE;
	st->err = st->regain_err = 0;
	if (!owlet_name_ok(name)) {
		errno = EINVAL;
		return failed(st, OWLET_EDIT_DROP);
	}
	n = getgroups(0, NULL);
	privs.grplist = calloc((size_t)(n > 0 ? n : 1), sizeof(gid_t));
	privs.number_of_groups = n > 0 ? n : 1;
	if (!privs.grplist) {
		errno = ENOMEM;
		return failed(st, OWLET_EDIT_NOMEM);
	}
	/* From here on, until the gain below, every file system access is
	 * made with the user's fsuid: see the threat model above. */
	if (tcb_drop_priv_r(name, &privs) < 0) {
		failed(st, OWLET_EDIT_DROP);
		free(privs.grplist);
		return -1;
	}
	snprintf(path, sizeof(path), TCB_DIR "/%s", name);
	dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		failed(st, OWLET_EDIT_OPEN);
		goto out;
	}
	snprintf(path, sizeof(path), TCB_FMT, name);
	if (lckpwdf_tcb(path) < 0) {
		failed(st, OWLET_EDIT_LOCK);
		goto out;
	}
	if (owlet_edit_file(dirfd, "shadow", OWLET_TCB_FILE_MAX, owner, name,
	    ed) == 0)
		rc = 0;
	else
		failed(st, OWLET_EDIT_WRITE);
	ulckpwdf_tcb();
out:
	if (dirfd >= 0)
		close(dirfd);
	if (tcb_gain_priv_r(&privs) < 0) {
		st->regain_err = errno ? errno : EINVAL;
		rc = -1;
	}
	free(privs.grplist);
	return rc;
}

int
owlet_edit_etc(const char *file, const char *name, const struct owlet_edit *ed,
    struct owlet_edit_status *st)
{
	int etcfd, lockfd = -1, rc = -1;

	st->failed = OWLET_EDIT_DONE;
	st->err = st->regain_err = 0;
	if (geteuid() != 0) {
		errno = EPERM;
		return failed(st, OWLET_EDIT_NOTROOT);
	}
	etcfd = open("/etc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (etcfd < 0)
		return failed(st, OWLET_EDIT_OPEN);
	lockfd = owlet_pwlock(etcfd);
	if (lockfd < 0)
		failed(st, OWLET_EDIT_LOCK);
	else if (owlet_edit_file(etcfd, file, OWLET_DB_FILE_MAX, (uid_t)-1,
	    name, ed) == 0)
		rc = 0;
	else
		failed(st, OWLET_EDIT_WRITE);
	if (lockfd >= 0)
		close(lockfd);
	close(etcfd);
	return rc;
}
