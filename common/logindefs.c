/*
 * login.defs(5) keys, read as shadow-utils does: "KEY value" with leading
 * blanks allowed and '#' comment lines; the value is one word.  Booleans
 * are "yes"/"no" (case-insensitive); anything else is an error naming the
 * line.  An absent key or file is "not set".
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "owlet.h"

int
owlet_logindefs_get(int etcfd, const char *key, char *val, size_t vlen,
    unsigned long *lineno)
{
	struct owlet_lines lr;
	size_t klen = strlen(key), len;
	char *line;
	int fd, rc, found = 0;

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
		if (end[strspn(end, " \t")] != '\0' || end == v ||
		    (size_t)(end - v) >= vlen) {
			*lineno = lr.lineno;
			close(fd);
			errno = EINVAL;
			return -1;
		}
		memcpy(val, v, (size_t)(end - v));
		val[end - v] = '\0';
		*lineno = lr.lineno;
		found = 1;	/* the last occurrence wins, as in getdef */
	}
	close(fd);
	return rc < 0 ? -1 : found;
}

int
owlet_logindefs_bool(int etcfd, const char *key, unsigned long *lineno)
{
	char v[8];
	int rc = owlet_logindefs_get(etcfd, key, v, sizeof(v), lineno);

	if (rc <= 0)
		return rc;
	if (strcasecmp(v, "yes") == 0)
		return 1;
	if (strcasecmp(v, "no") == 0)
		return 0;
	errno = EINVAL;
	return -1;
}
