/*
 * Owner, mode and capabilities of one file or directory.
 *
 * Kernel facts that fix the order of a transition (control.md 1.7): a
 * chown by root clears S_ISUID (and S_ISGID with group-execute) and always
 * deletes security.capability; chmod keeps capabilities.  So a change goes
 *   1. strip set-ID bits and every permission the target lacks,
 *   2. drop capabilities the target does not have,
 *   3. chown, 4. chmod to the target mode, 5. set the target capabilities,
 * and every intermediate state is at most as privileged as both the old
 * and the new one (public 4755 root:root -> tcb 2711 root:shadow passes
 * through 0711 root:root and 0711 root:shadow, never 2711 root:root).
 *
 * The object is opened once, by fd, from a safe parent (ctl_open_parent);
 * a symlink, a second hard link (a set-ID program linked elsewhere would
 * keep its bits there) or a wrong file type is refused.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "ctl.h"

#define XATTR_CAPS	"security.capability"

/* Open the object of A; 1 opened, 0 missing, -1 error (printed). */
static int
open_object(struct ctl *c, const struct act *a, int *fdp, struct stat *st)
{
	const char *base;
	int dfd, fd;

	dfd = ctl_open_parent(c, a->path, &base);
	if (dfd < 0) {
		if (errno == ENOENT)
			return 0;
		if (errno == EPERM)
			warnx("%s: a directory on the way is not root-owned or "
			    "is writable by others; refusing",
			    ctl_path(c, a->path));
		else if (errno == ELOOP)
			warnx("%s: symbolic link on the way; refusing",
			    ctl_path(c, a->path));
		else
			warn("%s", ctl_path(c, a->path));
		return -1;
	}
	fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC | O_NOCTTY | (a->kind == ACT_DIR ? O_DIRECTORY : 0));
	if (fd < 0) {
		int e = errno;
		struct stat lst;
		int link = e == ELOOP || (e == ENOTDIR &&
		    fstatat(dfd, base, &lst, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISLNK(lst.st_mode));
		close(dfd);
		if (e == ENOENT)
			return 0;
		if (link)
			warnx("%s: is a symbolic link; refusing",
			    ctl_path(c, a->path));
		else {
			errno = e;
			warn("%s", ctl_path(c, a->path));
		}
		return -1;
	}
	close(dfd);
	if (fstat(fd, st) < 0) {
		warn("%s", ctl_path(c, a->path));
		close(fd);
		return -1;
	}
	if (a->kind == ACT_FILE && !S_ISREG(st->st_mode)) {
		warnx("%s: not a regular file; refusing", ctl_path(c, a->path));
		close(fd);
		return -1;
	}
	if (a->kind == ACT_FILE && st->st_nlink != 1) {
		warnx("%s: has %lu hard links (a copy elsewhere would keep its "
		    "privilege); refusing", ctl_path(c, a->path),
		    (unsigned long)st->st_nlink);
		close(fd);
		return -1;
	}
	*fdp = fd;
	return 1;
}

/* 1 if the capabilities on FD are exactly TEXT (NULL: none), 0 if not. */
static int
caps_match(int fd, const char *text)
{
	cap_t cur, want;
	int same;

	if (!text)
		return fgetxattr(fd, XATTR_CAPS, NULL, 0) < 0 &&
		    errno == ENODATA;
	cur = cap_get_fd(fd);
	if (!cur)
		return 0;
	want = cap_from_text(text);
	same = want && cap_compare(cur, want) == 0;
	cap_free(cur);
	if (want)
		cap_free(want);
	return same;
}

static int
target_ids(struct ctl *c, const struct act *a, uid_t *uid, gid_t *gid)
{
	return ctl_uid(c, a->owner, uid) < 0 || ctl_gid(c, a->group, gid) < 0 ?
	    -1 : 0;
}

int
file_holds(struct ctl *c, const struct act *a)
{
	struct stat st;
	uid_t uid;
	gid_t gid;
	int fd, rc;

	if ((rc = open_object(c, a, &fd, &st)) <= 0)
		return rc;
	rc = 0;
	if (target_ids(c, a, &uid, &gid) == 0 && st.st_uid == uid &&
	    st.st_gid == gid && (st.st_mode & 07777) == a->mode &&
	    (a->kind == ACT_DIR || caps_match(fd, a->caps)))
		rc = 1;
	close(fd);
	return rc;
}

/* Move the object on FD from ST to the target in a privilege-monotone
 * order (above); CAPS is raw security.capability xattr data (NULL/0:
 * none) or, if CAPTEXT is set, the text form. */
static int
file_transition(int fd, const struct stat *st, mode_t mode, uid_t uid,
    gid_t gid, const char *captext, const void *caps, size_t caplen)
{
	mode_t cur = st->st_mode & 07777;
	mode_t safe = cur & mode & 01777;
	int has_caps = fgetxattr(fd, XATTR_CAPS, NULL, 0) >= 0;
	cap_t want = NULL;
	int rc = -1;

	if (captext && !(want = cap_from_text(captext)))
		return -1;
	if (safe != cur && fchmod(fd, safe) < 0)
		goto out;
	if (has_caps && fremovexattr(fd, XATTR_CAPS) < 0 && errno != ENODATA)
		goto out;
	if ((st->st_uid != uid || st->st_gid != gid) &&
	    fchown(fd, uid, gid) < 0)
		goto out;
	/* always: a chown may have cleared bits that the target keeps */
	if (fchmod(fd, mode) < 0)
		goto out;
	if (want && cap_set_fd(fd, want) < 0)
		goto out;
	if (caps && caplen &&
	    fsetxattr(fd, XATTR_CAPS, caps, caplen, 0) < 0)
		goto out;
	rc = 0;
out:
	if (want) {
		int e = errno;
		cap_free(want);
		errno = e;
	}
	return rc;
}

/* Undo: the same object (type and inode) back to the recorded owner,
 * mode and capabilities, through the same transition. */
static int
revert_attrs(struct ctl *c, const struct undo_rec *r)
{
	const char *base;
	struct stat st;
	int dfd, fd, rc = -1;

	dfd = ctl_open_parent(c, r->path, &base);
	if (dfd < 0)
		return -1;
	fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC | O_NOCTTY);
	close(dfd);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) ==
	    (r->st.st_mode & S_IFMT) && st.st_ino == r->st.st_ino)
		rc = file_transition(fd, &st, r->st.st_mode & 07777,
		    r->st.st_uid, r->st.st_gid, NULL, r->data, r->len);
	else
		errno = ESTALE;
	close(fd);
	return rc;
}

/* Record the object on FD (at PATH, attributes ST) for revert_attrs. */
static int
record_attrs(struct ctl *c, const char *path, int fd, const struct stat *st)
{
	char caps[256];
	ssize_t n;

	n = fgetxattr(fd, XATTR_CAPS, caps, sizeof(caps));
	if (n < 0 && errno != ENODATA && errno != ENOTSUP) {
		warn("%s: cannot read capabilities", ctl_path(c, path));
		return -1;
	}
	return undo_push(c, revert_attrs, NULL, path, n > 0 ? caps : NULL,
	    n > 0 ? (size_t)n : 0, st, 0);
}

int
file_apply(struct ctl *c, const struct act *a)
{
	struct stat st;
	uid_t uid;
	gid_t gid;
	int fd, rc;

	if ((rc = open_object(c, a, &fd, &st)) <= 0) {
		if (rc == 0)
			warnx("%s: missing", ctl_path(c, a->path));
		return -1;
	}
	if (target_ids(c, a, &uid, &gid) < 0 ||
	    record_attrs(c, a->path, fd, &st) < 0) {
		close(fd);
		return -1;
	}
	if (file_transition(fd, &st, a->mode, uid, gid, a->caps, NULL, 0) < 0) {
		warn("%s: cannot set %s %s %04o%s%s", ctl_path(c, a->path),
		    a->owner, a->group, (unsigned)a->mode,
		    a->caps ? " " : "", a->caps ? a->caps : "");
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}
