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
