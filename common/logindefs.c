/*
 * login.defs boolean keys, read as shadow-utils does: "KEY value" with
 * leading blanks allowed, '#' comments; "yes"/"no" (case-insensitive);
 * anything else is an error naming the line.  Absent key or file: no.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "owlet.h"

int
owlet_logindefs_bool(int etcfd, const char *key, unsigned long *lineno)
{
	struct owlet_lines lr;
	size_t klen = strlen(key), len;
	char *line;
	int fd, rc, result = 0;

	*lineno = 0;
	fd = openat(etcfd, "login.defs", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	owlet_lines_init(&lr, fd);
	while ((rc = owlet_lines_next(&lr, &line, &len)) > 0) {
		char *p = line + strspn(line, " \t"), *v, *end;

		if (strncmp(p, key, klen) != 0 || (p[klen] != ' ' &&
		    p[klen] != '\t'))
			continue;
		v = p + klen + strspn(p + klen, " \t");
		end = v + strcspn(v, " \t");
		if (end[strspn(end, " \t")] != '\0')
			goto bad;
		*end = '\0';
		if (strcasecmp(v, "yes") == 0)
			result = 1;
		else if (strcasecmp(v, "no") == 0)
			result = 0;
		else
			goto bad;
	}
	*lineno = lr.lineno;
	close(fd);
	return rc < 0 ? -1 : result;
bad:
	*lineno = lr.lineno;
	close(fd);
	errno = EINVAL;
	return -1;
}
