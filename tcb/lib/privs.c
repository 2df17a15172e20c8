/*
 * Dropping to a tcb user's file-system identity.
 *
 * Root processes (login, sshd, shadow-utils run by root) must not touch a
 * user's tcb directory with root's powers: the user owns that directory and
 * could plant links there.  tcb_drop_priv_r() switches only the file-system
 * IDs of the calling thread: fsuid := owner of /etc/tcb/NAME, fsgid := group
 * of /etc/tcb (shadow, which may traverse /etc/tcb), no supplementary groups.
 * Real and effective IDs are untouched, so the thread can switch back.
 *
 * All three changes are per-thread: setfsuid/setfsgid are per-thread in
 * Linux, and supplementary groups are cleared with the raw setgroups system
 * call (glibc's wrapper would change every thread of the process).  Each
 * change is verified by reading the ID back; a partial drop is rolled back so
 * the caller never keeps a half-dropped thread.  When not root, dropping is a
 * successful no-op: the SGID-shadow programs already run as the user.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "owlet.h"
#include "tcb.h"
#include "export.h"

/* Opaque is_dropped states; zero means "not dropped". */
#define STATE_NONROOT		0xdead000aU	/* not root: nothing changed */
#define STATE_DROPPED		0x1004000aU	/* groups cleared, fs IDs set */
#define STATE_DROPPED_KEEPGROUPS 0xbeef000aU	/* setgroups denied (userns) */

static int
raw_setgroups(size_t n, const gid_t *list)
{
	return (int)syscall(SYS_setgroups, n, list);
}

/* In an unprivileged user namespace setgroups is denied by design. */
static int
setgroups_denied(void)
{
	char buf[8] = "";
	int fd = open("/proc/self/setgroups", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n >= 4 && memcmp(buf, "deny", 4) == 0;
}

static int
set_fsuid_checked(uid_t uid)
{
	setfsuid(uid);
	return (uid_t)setfsuid((uid_t)-1) == uid ? 0 : -1;
}

static int
set_fsgid_checked(gid_t gid)
{
	setfsgid(gid);
	return (gid_t)setfsgid((gid_t)-1) == gid ? 0 : -1;
}

/* Owner of /etc/tcb/NAME and group of /etc/tcb. */
static int
tcb_ids(const char *name, uid_t *uid, gid_t *gid)
{
	char path[sizeof(TCB_DIR) + OWLET_NAME_MAX + 2];
	struct stat st;

	if (!name || !owlet_name_ok(name)) {
		errno = EINVAL;
		return -1;
	}
	if (stat(TCB_DIR, &st) < 0)
		return -1;
	*gid = st.st_gid;
	snprintf(path, sizeof(path), TCB_DIR "/%s", name);
	if (stat(path, &st) < 0)
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	*uid = st.st_uid;
	return 0;
}

TCB_EXPORT int
tcb_drop_priv_r(const char *name, struct tcb_privs *p)
{
	unsigned int state = STATE_DROPPED;
	uid_t uid;
	gid_t gid;
	int n, e;

	if (p->is_dropped) {
		errno = EINVAL;
		return -1;
	}
	if (geteuid() != 0) {
		p->is_dropped = STATE_NONROOT;
		return 0;
	}
	if (tcb_ids(name, &uid, &gid) < 0)
		return -1;
	n = getgroups(p->number_of_groups, p->grplist);
	if (n < 0)
		return -1;
	if (n > p->number_of_groups) {
		/* capacity 0: getgroups() only counted, saved nothing */
		errno = EINVAL;
		return -1;
	}
	if (raw_setgroups(0, NULL) < 0) {
		if (errno != EPERM || !setgroups_denied())
			return -1;
		state = STATE_DROPPED_KEEPGROUPS;
	}
	p->old_gid = (gid_t)setfsgid((gid_t)-1);
	p->old_uid = (uid_t)setfsuid((uid_t)-1);
	if (set_fsgid_checked(gid) < 0 || set_fsuid_checked(uid) < 0) {
		e = EPERM;
		goto rollback;
	}
	p->number_of_groups = n;
	p->is_dropped = state;
	return 0;
rollback:
	/* Undoing a partial drop only regains rights; if it fails the thread
	 * stays less privileged than before, never more. */
	setfsuid(p->old_uid);
	setfsgid(p->old_gid);
	if (state == STATE_DROPPED)
		raw_setgroups((size_t)n, p->grplist);
	errno = e;
	return -1;
}

TCB_EXPORT int
tcb_gain_priv_r(struct tcb_privs *p)
{
	switch (p->is_dropped) {
	case STATE_NONROOT:
		p->is_dropped = 0;
		return 0;
	case STATE_DROPPED:
	case STATE_DROPPED_KEEPGROUPS:
		break;
	default:
		errno = EINVAL;
		return -1;
	}
	if (set_fsuid_checked(p->old_uid) < 0 ||
	    set_fsgid_checked(p->old_gid) < 0)
		goto fail;
	if (p->is_dropped == STATE_DROPPED &&
	    raw_setgroups((size_t)p->number_of_groups, p->grplist) < 0)
		return -1;
	p->is_dropped = 0;
	return 0;
fail:
	errno = EPERM;
	return -1;
}

/*
 * The non-reentrant pair keeps its state per thread.  Its group buffer is
 * sized to the caller's actual group count (Linux allows 65536 groups, more
 * than the fixed TCB_NGROUPS of the _r interface's usual callers), and is
 * freed when the thread exits.
 */
static __thread struct tcb_privs tls_privs;
static __thread gid_t *tls_groups;
static __thread int tls_capacity;
static pthread_key_t groups_key;
static pthread_once_t groups_once = PTHREAD_ONCE_INIT;

static void
make_groups_key(void)
{
	pthread_key_create(&groups_key, free);
}

TCB_EXPORT int
tcb_drop_priv(const char *name)
{
	int n;

	if (tls_privs.is_dropped) {
		errno = EINVAL;
		return -1;
	}
	if (geteuid() == 0) {
		n = getgroups(0, NULL);
		if (n < 0)
			return -1;
		if (n + 1 > tls_capacity) {
			gid_t *g = realloc(tls_groups, (size_t)(n + 1) *
			    sizeof(*g));
			if (!g)
				return -1;
			tls_groups = g;
			tls_capacity = n + 1;
			pthread_once(&groups_once, make_groups_key);
			pthread_setspecific(groups_key, g);
		}
	}
	tls_privs.grplist = tls_groups;
	tls_privs.number_of_groups = tls_capacity;
	return tcb_drop_priv_r(name, &tls_privs);
}

TCB_EXPORT int
tcb_gain_priv(void)
{
	return tcb_gain_priv_r(&tls_privs);
}
