/*
 * Atomic replacement of a file: at every instant DIR/NAME is either the
 * complete old file or the complete new one.  The temp file is created
 * with mode 0 (nobody can open it meanwhile), its owner is set before its
 * mode (chown may clear set-ID bits), its data are fsynced before the
 * rename, and the directory is fsynced after it so the rename is durable.
 *
 * The new file is written unnamed (O_TMPFILE) where the file system and
 * /proc allow, and gets a name only once it is complete, just before the
 * rename: a writer killed while writing (SIGKILL, or SIGXFSZ from a tiny
 * RLIMIT_FSIZE that a user sets before running set-gid passwd) leaves
 * nothing behind, so a user cannot fill /etc/tcb with partial files.
 * Elsewhere a named temp file (O_EXCL, random name) is used, and removed
 * on every error path we live through.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "owlet.h"

static int
temp_name(struct owlet_replace *r)
{
	unsigned int rnd;

	if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
		return -1;
	if (snprintf(r->tmp, sizeof(r->tmp), ".%.32s.%08x", r->name, rnd) >=
	    (int)sizeof(r->tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* An unnamed file in DIRFD, if O_TMPFILE works there and /proc lets us
 * name it later (linkat of /proc/self/fd/N needs no privilege). */
static int
open_unnamed(int dirfd)
{
	if (access("/proc/self/fd", X_OK) < 0)
		return -1;
	return openat(dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0);
}

int
owlet_replace_begin(struct owlet_replace *r, int dirfd, const char *name,
    mode_t mode, uid_t uid, gid_t gid)
{
	int tries;

	r->dirfd = dirfd;
	r->name = name;
	r->tmp[0] = '\0';
	r->fd = open_unnamed(dirfd);
	for (tries = 0; r->fd < 0 && tries < 16; tries++) {
		if (temp_name(r) < 0)
			return -1;
		r->fd = openat(dirfd, r->tmp, O_WRONLY | O_CREAT | O_EXCL |
		    O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0);
		if (r->fd < 0 && errno != EEXIST)
			break;
	}
	if (r->fd < 0) {
		r->tmp[0] = '\0';
		return -1;
	}
	if (fchown(r->fd, uid, gid) < 0 || fchmod(r->fd, mode) < 0) {
		owlet_replace_abort(r);
		return -1;
	}
	return 0;
}

/* Give the complete unnamed file on FD a temp name in the directory. */
static int
link_unnamed(struct owlet_replace *r, int fd)
{
	char proc[32];
	int tries;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	for (tries = 0; tries < 16; tries++) {
		if (temp_name(r) < 0)
			break;
		if (linkat(AT_FDCWD, proc, r->dirfd, r->tmp,
		    AT_SYMLINK_FOLLOW) == 0)
			return 0;
		if (errno != EEXIST)
			break;
	}
	r->tmp[0] = '\0';
	return -1;
}

int
owlet_replace_commit(struct owlet_replace *r)
{
	int fd = r->fd, unnamed = !r->tmp[0];
	int e;

	r->fd = -1;
	if (fsync(fd) < 0 || (unnamed && link_unnamed(r, fd) < 0)) {
		e = errno;
		close(fd);
		goto fail;
	}
	if (close(fd) < 0 ||
	    renameat(r->dirfd, r->tmp, r->dirfd, r->name) < 0) {
		e = errno;
		goto fail;
	}
	/* The new file is in place; only durability remains.  A failed
	 * directory fsync is reported as 1: the replacement has happened. */
	return fsync(r->dirfd) < 0 ? 1 : 0;
fail:
	if (r->tmp[0])
		unlinkat(r->dirfd, r->tmp, 0);
	errno = e;
	return -1;
}

void
owlet_replace_abort(struct owlet_replace *r)
{
	int e = errno;

	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	if (r->tmp[0])
		unlinkat(r->dirfd, r->tmp, 0);
	errno = e;
}
