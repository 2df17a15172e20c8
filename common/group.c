#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "owlet.h"

int
owlet_group_gid(int etcfd, const char *group, gid_t *gid)
{
	struct owlet_lines lr;
	char *line, *f[4], *end;
	size_t len;
	int fd, rc;

	fd = openat(etcfd, "group", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	owlet_lines_init(&lr, fd);
	while ((rc = owlet_lines_next(&lr, &line, &len)) > 0) {
		if (owlet_split(line, f, 4) != 4 || strcmp(f[0], group) != 0)
			continue;
		errno = 0;
		unsigned long v = strtoul(f[2], &end, 10);
		if (*f[2] == '\0' || *end != '\0' || errno || v >= (gid_t)-1)
			continue;
		*gid = (gid_t)v;
		close(fd);
		return 1;
	}
	close(fd);
	return rc < 0 ? -1 : 0;
}
