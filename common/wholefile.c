/*
 * Whole-file read and atomic whole-file replacement, for small
 * configuration files that are edited in memory (control's config lines,
 * PAM stacks, group files).  Reads go through owlet_open_trusted (no
 * symlink, regular file, one link, size bound); writes through
 * owlet_replace_* (at every instant the old or the new file).
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "owlet.h"

int
owlet_read_file(int dirfd, const char *name, off_t max, char **data,
    size_t *len, struct stat *st)
{
	ssize_t n;
	char *buf;
	int fd, e;

	fd = owlet_open_trusted(dirfd, name, max, st);
	if (fd < 0)
		return -1;
	buf = malloc((size_t)st->st_size + 1);
	if (!buf) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	/* Read one byte more than fstat said: a file growing under us is
	 * an error, not a silent truncation. */
	n = owlet_read_full(fd, buf, (size_t)st->st_size + 1);
	e = errno;
	close(fd);
	if (n != st->st_size) {
		free(buf);
		errno = n < 0 ? e : EAGAIN;
		return -1;
	}
	buf[n] = '\0';
	*data = buf;
	*len = (size_t)n;
	return 0;
}

int
owlet_write_replace(int dirfd, const char *name, const void *data,
    size_t len, mode_t mode, uid_t uid, gid_t gid)
{
	struct owlet_replace r;

	if (owlet_replace_begin(&r, dirfd, name, mode, uid, gid) < 0)
		return -1;
	if (owlet_write_full(r.fd, data, len) < 0) {
		owlet_replace_abort(&r);
		return -1;
	}
	return owlet_replace_commit(&r);
}
