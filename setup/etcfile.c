/*
 * Whole-entry edits of the account databases of the root being set up:
 * append a line, remove one user's lines.  Files are read in full (size
 * bounded), rebuilt in memory and replaced atomically with their owner
 * and mode: at every instant the old or the new file.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "owlet.h"
#include "setup.h"

static int
read_etc(struct setup *s, const char *file, char **data, size_t *len,
    struct stat *st)
{
	char path[64];

	snprintf(path, sizeof(path), "/etc/%s", file);
	if (owlet_read_file(s->etcfd, file, OWLET_DB_FILE_MAX, data, len,
	    st) < 0) {
		warn("%s", setup_path(s, path));
		return -1;
	}
	return 0;
}

static int
write_etc(struct setup *s, const char *file, const char *data, size_t len,
    const struct stat *st)
{
	char path[64];

	snprintf(path, sizeof(path), "/etc/%s", file);
	if (owlet_write_replace(s->etcfd, file, data, len, st->st_mode & 07777,
	    st->st_uid, st->st_gid) < 0) {
		warn("cannot replace %s", setup_path(s, path));
		return -1;
	}
	return 0;
}

int
etc_append(struct setup *s, const char *file, const char *line)
{
	size_t len, ll = strlen(line), nl;
	struct stat st;
	char *data, *out;
	int rc;

	if (read_etc(s, file, &data, &len, &st) < 0)
		return -1;
	nl = len && data[len - 1] != '\n';
	if (!(out = malloc(len + nl + ll))) {
		warnx("out of memory");
		free(data);
		return -1;
	}
	memcpy(out, data, len);
	if (nl)
		out[len] = '\n';
	memcpy(out + len + nl, line, ll);
	rc = write_etc(s, file, out, len + nl + ll, &st);
	free(out);
	free(data);
	return rc;
}

int
etc_remove(struct setup *s, const char *file, const char *name)
{
	size_t len, nl = strlen(name), o = 0;
	struct stat st;
	char *data, *out, *p, *eol;
	int rc;

	if (read_etc(s, file, &data, &len, &st) < 0)
		return -1;
	if (!(out = malloc(len + 1))) {
		warnx("out of memory");
		free(data);
		return -1;
	}
	for (p = data; p < data + len; p = eol) {
		eol = memchr(p, '\n', (size_t)(data + len - p));
		eol = eol ? eol + 1 : data + len;
		if (strncmp(p, name, nl) == 0 && p[nl] == ':')
			continue;
		memcpy(out + o, p, (size_t)(eol - p));
		o += (size_t)(eol - p);
	}
	rc = write_etc(s, file, out, o, &st);
	free(out);
	free(data);
	return rc;
}

int
etc_passwd_each(struct setup *s, int (*fn)(void *, unsigned long, char **,
    int), void *arg)
{
	struct owlet_dbent e;
	struct owlet_db *db;
	int rc;

	db = owlet_db_open(s->etcfd, "passwd");
	if (!db) {
		warn("%s", setup_path(s, "/etc/passwd"));
		return -1;
	}
	while ((rc = owlet_db_next(db, &e)) > 0)
		if ((rc = fn(arg, e.lineno, e.f, e.nf)) != 0)
			break;
	if (rc < 0)	/* fn returns 0 or 1 */
		warnx("%s:%lu: %s", setup_path(s, "/etc/passwd"),
		    owlet_db_lineno(db), owlet_db_strerror(errno));
	owlet_db_close(db);
	return rc;
}

struct find {
	const char *name;
	uid_t *uid;
	char *home;
	size_t homelen;
};

static int
find_one(void *arg, unsigned long lineno, char **f, int nf)
{
	struct find *q = arg;
	unsigned int v;

	if (nf != 7 || strcmp(f[0], q->name) != 0 ||
	    owlet_parse_id(f[2], &v) < 0)
		return 0;
	*q->uid = v;
	if (q->home)
		snprintf(q->home, q->homelen, "%s", f[5]);
	return 1;
}

int
etc_passwd_find(struct setup *s, const char *name, uid_t *uid, char *home,
    size_t homelen)
{
	struct find q = { name, uid, home, homelen };

	return etc_passwd_each(s, find_one, &q);
}
