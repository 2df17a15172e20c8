/*
 * Bounded reads and atomic writes for key and signature files.  A file is
 * read once, into memory, and everything after works on that copy: what
 * was checked is what is used, whatever happens to the file meanwhile.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "owlet.h"
#include "sigio.h"

const char *
sig_basename(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

int
sig_exists(const char *path)
{
	struct stat st;

	return fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

int
sig_read_file(const char *path, size_t max, const char *what,
    int quiet_enoent, char **bufp, size_t *lenp)
{
	size_t cap, len = 0;
	struct stat st;
	char *buf = NULL, *nb;
	ssize_t n;
	int fd, e;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		e = errno;
		if (!(quiet_enoent && e == ENOENT))
			warn("%s: cannot open %s", path, what);
		errno = e;
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		warn("%s", path);
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		warnx("%s: %s is a directory", path, what);
		goto fail;
	}
	/* The size is a hint only (pipes, files that grow): the bound is
	 * enforced on what is actually read. */
	cap = 4096;
	if (S_ISREG(st.st_mode) && st.st_size >= 0 &&
	    (unsigned long long)st.st_size < max)
		cap = (size_t)st.st_size + 1;
	if (cap > max + 1)
		cap = max + 1;
	for (;;) {
		if (len == cap || !buf) {
			if (buf)
				cap = cap > (max + 1) / 2 ? max + 1 : cap * 2;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				warn("%s", path);
				goto fail;
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			warn("%s: read error", path);
			goto fail;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > max) {
			warnx("%s: %s too large (more than %zu bytes)", path,
			    what, max);
			goto fail;
		}
	}
	close(fd);
	buf[len] = '\0';
	*bufp = buf;
	*lenp = len;
	return 0;
fail:
	e = errno;
	if (buf) {
		explicit_bzero(buf, len);
		free(buf);
	}
	close(fd);
	errno = e;
	return -1;
}

/* Open the directory holding PATH; *BASE points at the last component. */
static int
open_parent(const char *path, const char **base)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int fd;

	*base = slash ? slash + 1 : path;
	if (**base == '\0' || strcmp(*base, ".") == 0 ||
	    strcmp(*base, "..") == 0) {
		errno = EISDIR;
		return -1;
	}
	if (!slash)
		return open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dir = strndup(path, slash == path ? 1 : (size_t)(slash - path));
	if (!dir)
		return -1;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	return fd;
}

int
sig_write_file(const char *path, const void *data, size_t len, mode_t mode,
    int noreplace)
{
	struct owlet_replace r;
	const char *base;
	int dirfd, e;

	dirfd = open_parent(path, &base);
	if (dirfd < 0) {
		warn("%s", path);
		return -1;
	}
	/* Owner and group as created: -1 leaves them to the kernel. */
	if (owlet_replace_begin(&r, dirfd, base, mode, (uid_t)-1,
	    (gid_t)-1) < 0) {
		warn("%s", path);
		close(dirfd);
		return -1;
	}
	if (owlet_write_full(r.fd, data, len) < 0)
		goto fail;
	if (!noreplace) {
		if (owlet_replace_commit(&r) < 0) {
			warn("%s", path);
			close(dirfd);
			return -1;
		}
		close(dirfd);
		return 0;
	}
	/* No replacement: renameat2(RENAME_NOREPLACE), or link(2) where the
	 * file system lacks it; both fail with EEXIST atomically.  An
	 * unnamed file (O_TMPFILE: owlet_replace_begin left r.tmp empty) is
	 * linked in under its final name, which fails the same way. */
	if (fsync(r.fd) < 0)
		goto fail;
	if (!r.tmp[0]) {
		char proc[32];

		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", r.fd);
		if (linkat(AT_FDCWD, proc, dirfd, base, AT_SYMLINK_FOLLOW) < 0)
			goto fail;
	} else if (renameat2(dirfd, r.tmp, dirfd, base,
	    RENAME_NOREPLACE) < 0) {
		if (errno != EINVAL && errno != ENOSYS)
			goto fail;
		if (linkat(dirfd, r.tmp, dirfd, base, 0) < 0)
			goto fail;
		unlinkat(dirfd, r.tmp, 0);
	}
	close(r.fd);
	fsync(dirfd);
	close(dirfd);
	return 0;
fail:
	e = errno;
	owlet_replace_abort(&r);
	close(dirfd);
	errno = e;
	if (e == EEXIST)
		warnx("%s: already exists (use -f to overwrite)", path);
	else
		warn("%s", path);
	return -1;
}
