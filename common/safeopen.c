/*
 * Opening files that a less trusted user may have influenced (a tcb user
 * owns the directory holding their shadow file).  The last component is
 * opened O_NOFOLLOW|O_NONBLOCK (no symlink, no FIFO hang), then the open fd
 * is checked: a regular file with one link (no hard link to somebody else's
 * file) and bounded size.  No path is stat()ed before open (no TOCTOU).
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "owlet.h"

/*
 * A link count of 0 is not an attack: the file was replaced by rename()
 * between our open and fstat (password changes do exactly that).  Open
 * again to read the current version; give up with EAGAIN if a writer keeps
 * winning the race.
 */
#define REPLACED_RETRIES	16

int
owlet_open_trusted(int dirfd, const char *name, off_t max, struct stat *st)
{
	int fd, e, tries = 0;

again:
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -1;
	if (fstat(fd, st) < 0) {
		e = errno;
		goto fail;
	}
	if (S_ISREG(st->st_mode) && st->st_nlink == 0) {
		close(fd);
		if (++tries < REPLACED_RETRIES)
			goto again;
		errno = EAGAIN;
		return -1;
	}
	if (!S_ISREG(st->st_mode) || st->st_nlink != 1) {
		e = EINVAL;
		goto fail;
	}
	if (st->st_size > max) {
		e = EFBIG;
		goto fail;
	}
	return fd;
fail:
	close(fd);
	errno = e;
	return -1;
}

int
owlet_open_dir(int dirfd, const char *name)
{
	return openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
}

DIR *
owlet_opendir_at(int dirfd)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;

	if (fd < 0)
		return NULL;
	d = fdopendir(fd);
	if (!d)
		close(fd);
	return d;
}
