/*
 * Atomic replacement of a file: at every instant DIR/NAME is either the
 * complete old file or the complete new one.  The temp file is created
 * O_EXCL with mode 0 (nobody can open it meanwhile), its owner is set before
 * its mode (chown may clear set-ID bits), its data are fsynced before the
 * rename, and the directory is fsynced after it so the rename is durable.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "owlet.h"

int
owlet_replace_begin(struct owlet_replace *r, int dirfd, const char *name,
    mode_t mode, uid_t uid, gid_t gid)
{
	unsigned int rnd;
	int tries;

	r->dirfd = dirfd;
	r->name = name;
	r->fd = -1;
	for (tries = 0; tries < 16; tries++) {
		if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
			return -1;
		if (snprintf(r->tmp, sizeof(r->tmp), ".%.32s.%08x", name,
		    rnd) >= (int)sizeof(r->tmp)) {
			errno = ENAMETOOLONG;
			return -1;
		}
		r->fd = openat(dirfd, r->tmp, O_WRONLY | O_CREAT | O_EXCL |
		    O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0);
		if (r->fd >= 0 || errno != EEXIST)
			break;
	}
	if (r->fd < 0)
		return -1;
	if (fchown(r->fd, uid, gid) < 0 || fchmod(r->fd, mode) < 0) {
		owlet_replace_abort(r);
		return -1;
	}
	return 0;
}

int
owlet_replace_commit(struct owlet_replace *r)
{
	int fd = r->fd;
	int e;

	r->fd = -1;
	if (fsync(fd) < 0) {
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
	unlinkat(r->dirfd, r->tmp, 0);
	errno = e;
}
