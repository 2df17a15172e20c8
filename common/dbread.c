/*
 * The one reader of passwd(5) and group(5) files: iterate, find by name,
 * find by id.  Root's tools (control, owlet-setup, tcb_convert, seal)
 * decide who owns what from these files, often of a root another party
 * prepared (--root, an image), so the reader keeps two invariants:
 *
 * - A line is read whole or not at all (owlet_lines_*): a line longer than
 *   OWLET_LINE_MAX or holding a NUL byte is an error naming the line, never
 *   split into pieces whose tail could read as an entry of its own
 *   ("...:evil:x:0:0::/:/bin/sh").
 * - An id is one spelling of one number (owlet_parse_id): "4294967338",
 *   " 42" or "+42", which glibc reads as 42, are not ids here, so an entry
 *   is never matched under a different id than the system gives it.
 *   Callers that choose a free id treat such a line as an error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "owlet.h"

struct owlet_db {
	int fd;
	int nf;			/* OWLET_PW_NF or OWLET_GR_NF */
	struct owlet_lines lr;
};

struct owlet_db *
owlet_db_open(int etcfd, const char *file)
{
	struct owlet_db *db;
	int fd, e;

	db = malloc(sizeof(*db));
	if (!db)
		return NULL;
	fd = openat(etcfd, file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		free(db);
		errno = e;
		return NULL;
	}
	db->fd = fd;
	db->nf = strcmp(file, "group") == 0 || strcmp(file, "gshadow") == 0 ?
	    OWLET_GR_NF : OWLET_PW_NF;
	owlet_lines_init(&db->lr, fd);
	return db;
}

unsigned long
owlet_db_lineno(const struct owlet_db *db)
{
	return db->lr.lineno;
}

int
owlet_db_next(struct owlet_db *db, struct owlet_dbent *e)
{
	unsigned int gid;
	char *line;
	size_t len;
	int rc;

	rc = owlet_lines_next(&db->lr, &line, &len);
	if (rc <= 0)
		return rc;
	memset(e, 0, sizeof(*e));
	e->lineno = db->lr.lineno;
	e->nf = owlet_split(line, e->f, db->nf);
	e->id_ok = e->nf >= 3 && owlet_parse_id(e->f[2], &e->id) == 0;
	e->ok = e->nf == db->nf && e->id_ok &&
	    (db->nf != OWLET_PW_NF || owlet_parse_id(e->f[3], &gid) == 0);
	return 1;
}

const char *
owlet_db_strerror(int err)
{
	switch (err) {
	case E2BIG:
		return "line too long";
	case EINVAL:
		return "NUL byte in the line";
	default:
		return strerror(err);
	}
}

void
owlet_db_close(struct owlet_db *db)
{
	if (db) {
		close(db->fd);
		free(db);
	}
}

int
owlet_db_find(struct owlet_db *db, const char *name, unsigned int id,
    struct owlet_dbent *e)
{
	int rc;

	while ((rc = owlet_db_next(db, e)) > 0)
		if (e->ok && (name ? strcmp(e->f[0], name) == 0 : e->id == id))
			return 1;
	return rc;
}
