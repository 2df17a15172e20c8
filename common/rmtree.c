/*
 * Recursive removal relative to a directory fd.  Symlinks are removed, never
 * followed; subdirectories are opened O_NOFOLLOW|O_DIRECTORY.  Bounded depth
 * (tcb trees are at most three levels deep: :NM/:NK/USER/file).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "owlet.h"

#define RMTREE_DEPTH	8

static int
rmtree_at(int dirfd, const char *name, int depth)
{
	struct dirent *de;
	DIR *d;
	int fd, rc = 0;

	if (unlinkat(dirfd, name, 0) == 0)
		return 0;
	if (errno == ENOENT)
		return 0;
	if (errno != EISDIR && errno != EPERM)
		return -1;
	if (depth >= RMTREE_DEPTH) {
		errno = ELOOP;
		return -1;
	}
	fd = owlet_open_dir(dirfd, name);
	if (fd < 0)
		return -1;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -1;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (rmtree_at(fd, de->d_name, depth + 1) < 0)
			rc = -1;
	}
	closedir(d);
	if (rc == 0 && unlinkat(dirfd, name, AT_REMOVEDIR) < 0)
		rc = -1;
	return rc;
}

int
owlet_rmtree(int dirfd, const char *name)
{
	return rmtree_at(dirfd, name, 0);
}
