/* Colon-separated databases: passwd(5), group(5). */
#include <errno.h>
#include <string.h>

#include "owlet.h"

int
owlet_split(char *line, char **field, int nf)
{
	int n = 0;

	while (n < nf) {
		field[n++] = line;
		line = strchr(line, ':');
		if (!line)
			break;
		*line++ = '\0';
	}
	return line ? nf + 1 : n;	/* nf + 1: more fields than asked */
}

int
owlet_parse_id(const char *s, unsigned int *id)
{
	uint64_t v;

	if (owlet_num(s, 0, OWLET_ID_MAX, 0, &v) < 0)
		return -1;
	*id = (unsigned int)v;
	return 0;
}

int
owlet_passwd_parse(char *line, char **name, char **pw, uid_t *uid)
{
	char *f[7];
	unsigned int id, gid;

	if (owlet_split(line, f, 7) != 7 || !owlet_name_ok(f[0]) ||
	    owlet_parse_id(f[2], &id) < 0 || owlet_parse_id(f[3], &gid) < 0) {
		errno = EINVAL;
		return -1;
	}
	*name = f[0];
	*pw = f[1];
	*uid = id;
	return 0;
}
