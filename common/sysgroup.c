/*
 * System groups added as groupadd -r adds them: the highest GID in
 * OWLET_SYS_GID_MIN..MAX that group(5) does not use, a "NAME:x:GID:" line
 * in group(5) and a "NAME:!::" line in gshadow(5).  The callers hold the
 * shadow-utils lock (owlet_pwlock) from the scan to the last append, so
 * nobody changes the files between the GID choice and the replacement.
 *
 * A GID counts as used if any line could be read as claiming it: a reused
 * GID silently hands an existing group's files to the new group.  A line
 * without the member field counts.  A GID field that is not one plain
 * decimal id stops the scan as an error naming the line (EINVAL), as a
 * line too long or holding a NUL byte does (owlet_lines_next): glibc reads
 * "4294967338" (or " 42", "+42") as GID 42 and skips "42abc", and rather
 * than copy those rules the chooser refuses to guess.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "owlet.h"

int
owlet_sysgid_scan(int fd, struct owlet_sysgids *s, unsigned long *lineno)
{
	struct owlet_lines lr;
	char *line, *f[OWLET_GR_NF];
	size_t len;
	unsigned int v;
	int rc;

	memset(s->used, 0, sizeof(s->used));
	owlet_lines_init(&lr, fd);
	while ((rc = owlet_lines_next(&lr, &line, &len)) > 0) {
		/* NAME:PASSWORD:GID[:MEMBERS]; glibc skips a line with no or
		 * an empty GID field, so it claims nothing */
		if (owlet_split(line, f, OWLET_GR_NF) < 3 || f[2][0] == '\0')
			continue;
		if (owlet_parse_id(f[2], &v) < 0) {
			rc = -1;
			errno = EINVAL;
			break;
		}
		if (v <= OWLET_SYS_GID_MAX)
			s->used[v] = 1;
	}
	*lineno = lr.lineno;
	return rc;
}

const char *
owlet_sysgid_strerror(int err)
{
	switch (err) {
	case EINVAL:
		return "malformed line (a GID that is not a decimal number "
		    "up to 4294967294, or a NUL byte)";
	default:
		return owlet_db_strerror(err);
	}
}

int
owlet_sysgid_pick(struct owlet_sysgids *s, gid_t *gid)
{
	int g;

	for (g = OWLET_SYS_GID_MAX; g >= OWLET_SYS_GID_MIN; g--)
		if (!s->used[g]) {
			s->used[g] = 1;
			*gid = (gid_t)g;
			return 0;
		}
	errno = ENOSPC;
	return -1;
}

int
owlet_sysgroup_append(struct owlet_replace *r, int fd, int gshadow,
    const struct owlet_sysgroup *g, size_t ng)
{
	struct owlet_wbuf w;
	char buf[65536], line[OWLET_NAME_MAX + 32];
	ssize_t n;
	size_t i;
	int last_nl = 1, ll;

	if (lseek(fd, 0, SEEK_SET) < 0)
		goto fail;
	owlet_wbuf_init(&w, r->fd);
	while ((n = owlet_read_full(fd, buf, sizeof(buf))) > 0) {
		owlet_wbuf_put(&w, buf, (size_t)n);
		last_nl = buf[n - 1] == '\n';
	}
	if (n < 0)
		goto fail;
	if (!last_nl)
		owlet_wbuf_put(&w, "\n", 1);
	for (i = 0; i < ng; i++) {
		/* A ':' or newline in a name would forge fields or lines. */
		if (!owlet_name_ok(g[i].name)) {
			errno = EINVAL;
			goto fail;
		}
		if (gshadow)
			ll = snprintf(line, sizeof(line), "%s:!::\n",
			    g[i].name);
		else
			ll = snprintf(line, sizeof(line), "%s:x:%u:\n",
			    g[i].name, (unsigned)g[i].gid);
		owlet_wbuf_put(&w, line, (size_t)ll);
	}
	if (owlet_wbuf_flush(&w) < 0)
		goto fail;
	return owlet_replace_commit(r);
fail:
	owlet_replace_abort(r);
	return -1;
}
