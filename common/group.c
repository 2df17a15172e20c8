#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "owlet.h"

int
owlet_group_gid(int etcfd, const char *group, gid_t *gid)
{
	struct owlet_lines lr;
	char *line, *f[4];
	size_t len;
	int fd, rc;

	fd = openat(etcfd, "group", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	owlet_lines_init(&lr, fd);
	while ((rc = owlet_lines_next(&lr, &line, &len)) > 0) {
		if (owlet_split(line, f, 4) != 4 || strcmp(f[0], group) != 0)
			continue;
		unsigned int v;
		if (owlet_parse_id(f[2], &v) < 0)
			continue;
		*gid = v;
		close(fd);
		return 1;
	}
	close(fd);
	return rc < 0 ? -1 : 0;
}
