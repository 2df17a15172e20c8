/*
 * Configuration lines.  A `line FILE WORD TEXT` action owns the active
 * (uncommented) lines of FILE that contain WORD as a blank-separated
 * word: it holds when there is exactly one and it reads TEXT (blanks
 * normalised), or, for "-", when there is none.  Setting it rewrites only
 * those lines: the first becomes TEXT, others are commented out; with no
 * such line a commented one mentioning WORD is replaced (so Debian's
 * "# auth required pam_wheel.so" is switched on in place), else TEXT is
 * appended.  "-" comments the lines out.  Every other byte is kept, and
 * the file is replaced atomically with its owner and mode.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"
#include "owlet.h"

int
text_read(struct ctl *c, const char *path, char **data, size_t *len,
    struct stat *st)
{
	const char *base;
	int dfd, rc;

	dfd = ctl_open_parent(c, path, &base);
	if (dfd < 0) {
		if (errno == ENOENT)
			return 1;
		warn("%s", ctl_path(c, path));
		return -1;
	}
	rc = owlet_read_file(dfd, base, CTL_TEXT_MAX, data, len, st);
	close(dfd);
	if (rc < 0 && errno == ENOENT)
		return 1;
	if (rc < 0) {
		if (errno == EINVAL || errno == ELOOP)
			warnx("%s: not a regular single-link file; refusing",
			    ctl_path(c, path));
		else
			warn("%s", ctl_path(c, path));
		return -1;
	}
	return 0;
}

int
text_write(struct ctl *c, const char *path, const char *old, size_t oldlen,
    const struct stat *oldst, const char *data, size_t len)
{
	struct stat fresh = { .st_mode = 0644, .st_uid = 0, .st_gid = 0 };
	const struct stat *st = oldst ? oldst : &fresh;
	const char *base;
	int dfd, rc;

	dfd = ctl_open_parent(c, path, &base);
	if (dfd < 0) {
		warn("%s", ctl_path(c, path));
		return -1;
	}
	if (undo_content(c, path, oldst ? old : NULL, oldlen, st) < 0) {
		close(dfd);
		return -1;
	}
	rc = owlet_write_replace(dfd, base, data, len, st->st_mode & 07777,
	    st->st_uid, st->st_gid);
	close(dfd);
	if (rc < 0) {
		warn("cannot replace %s", ctl_path(c, path));
		return -1;
	}
	return 0;
}

/* Next line of [P, END): sets *N (without '\n'); returns the line. */
static const char *
next_line(const char **p, const char *end, size_t *n)
{
	const char *l = *p, *nl;

	if (l >= end)
		return NULL;
	nl = memchr(l, '\n', (size_t)(end - l));
	*n = nl ? (size_t)(nl - l) : (size_t)(end - l);
	*p = l + *n + (nl != NULL);
	return l;
}

static size_t
skip_blanks(const char *l, size_t n, size_t i)
{
	while (i < n && (l[i] == ' ' || l[i] == '\t'))
		i++;
	return i;
}

/* Does L[from, n) contain WORD as a blank-separated word? */
static int
has_word(const char *l, size_t n, size_t from, const char *word)
{
	size_t wl = strlen(word), i = from, j;

	while ((i = skip_blanks(l, n, i)) < n) {
		for (j = i; j < n && l[j] != ' ' && l[j] != '\t'; j++)
			;
		if (j - i == wl && memcmp(l + i, word, wl) == 0)
			return 1;
		i = j;
	}
	return 0;
}

/* 1 active, 2 commented (with *FROM after the '#'s), 0 blank. */
static int
line_kind(const char *l, size_t n, size_t *from)
{
	size_t i = skip_blanks(l, n, 0);

	if (i == n)
		return 0;
	if (l[i] != '#') {
		*from = i;
		return 1;
	}
	while (i < n && l[i] == '#')
		i++;
	*from = i;
	return 2;
}

/* The words of L joined by single blanks, into OUT (bounded). */
static void
normalize(const char *l, size_t n, char *out, size_t outlen)
{
	size_t i = 0, j, o = 0;

	while ((i = skip_blanks(l, n, i)) < n) {
		for (j = i; j < n && l[j] != ' ' && l[j] != '\t'; j++)
			;
		if (o && o + 1 < outlen)
			out[o++] = ' ';
		while (i < j && o + 1 < outlen)
			out[o++] = l[i++];
		i = j;
	}
	out[o] = '\0';
}

/* How many active lines contain WORD; the first one, normalised. */
static int
count_lines(const char *data, size_t len, const char *word, char *first,
    size_t flen)
{
	const char *p = data, *end = data + len, *l;
	size_t n, from;
	int count = 0;

	first[0] = '\0';
	while ((l = next_line(&p, end, &n)))
		if (line_kind(l, n, &from) == 1 && has_word(l, n, from, word) &&
		    count++ == 0)
			normalize(l, n, first, flen);
	return count;
}

/* 1 if DATA (NULL: missing file) has WORD's lines as one of A's values. */
static int
lines_match(struct ctl *c, const struct act *a, const char *data,
    size_t len, const char *word, int *err)
{
	char first[FAC_TEXT_MAX + 1], want[FAC_TEXT_MAX + 1],
	    norm[FAC_TEXT_MAX + 1];
	int i, count = data ? count_lines(data, len, word, first,
	    sizeof(first)) : 0;

	for (i = 0; i < a->nalt; i++) {
		if (!a->alt[i]) {
			if (count == 0)
				return 1;
			continue;
		}
		if (count != 1)
			continue;
		if (ctl_expand(c, a->alt[i], want, sizeof(want)) < 0) {
			*err = 1;
			return 0;
		}
		normalize(want, strlen(want), norm, sizeof(norm));
		if (strcmp(norm, first) == 0)
			return 1;
	}
	return 0;
}

struct obuf {
	char *p;
	size_t len, cap;
};

static int
put(struct obuf *o, const char *s, size_t n)
{
	if (o->len + n + 1 > o->cap) {
		size_t cap = (o->len + n + 1) * 2;
		char *p = realloc(o->p, cap);
		if (!p)
			return -1;
		o->p = p;
		o->cap = cap;
	}
	memcpy(o->p + o->len, s, n);
	o->len += n;
	return 0;
}

/*
 * DATA with WORD's lines set to WANT (NULL: commented out); result in
 * *OUT (malloc'ed).  0 or -1 (ENOMEM).
 */
static int
edit_lines(const char *data, size_t len, const char *word, const char *want,
    struct obuf *o)
{
	const char *p, *end = data + len, *l, *revive = NULL;
	size_t n, from;
	int done = 0, rc = 0;

	/* pass 1: is there an active line, or a commented one to revive? */
	if (want) {
		int active = 0;
		for (p = data; (l = next_line(&p, end, &n));) {
			int k = line_kind(l, n, &from);
			if (k == 1 && has_word(l, n, from, word))
				active = 1;
			else if (k == 2 && !revive && has_word(l, n, from, word))
				revive = l;
		}
		if (active)
			revive = NULL;
	}
	for (p = data; (l = next_line(&p, end, &n));) {
		int k = line_kind(l, n, &from);
		int mine = (k == 1 && has_word(l, n, from, word)) || l == revive;
		if (mine && want && !done) {
			rc |= put(o, want, strlen(want));
			done = 1;
		} else if (mine && k == 1) {
			rc |= put(o, "# ", 2);
			rc |= put(o, l, n);
		} else
			rc |= put(o, l, n);
		rc |= put(o, "\n", 1);
	}
	if (want && !done) {
		rc |= put(o, want, strlen(want));
		rc |= put(o, "\n", 1);
	}
	if (rc)
		errno = ENOMEM;
	return rc ? -1 : 0;
}

/* Set FILE's WORD lines to A's first value (WANT already expanded). */
int
text_set_lines(struct ctl *c, const char *path, const char *word,
    const char *want)
{
	struct obuf o = { NULL, 0, 0 };
	struct stat st;
	char *data = NULL;
	size_t len = 0;
	int rc;

	if ((rc = text_read(c, path, &data, &len, &st)) < 0)
		return -1;
	if (rc == 1 && !want)
		return 0;	/* no file, no such line */
	if (edit_lines(rc == 1 ? "" : data, rc == 1 ? 0 : len, word, want,
	    &o) < 0 || put(&o, "", 0) < 0) {
		warnx("out of memory");
		free(data);
		free(o.p);
		return -1;
	}
	rc = text_write(c, path, data, len, rc == 1 ? NULL : &st, o.p, o.len);
	free(data);
	free(o.p);
	return rc;
}

int
text_lines_hold(struct ctl *c, const struct act *a, const char *path,
    const char *word)
{
	struct stat st;
	char *data = NULL;
	size_t len = 0;
	int rc, err = 0;

	if ((rc = text_read(c, path, &data, &len, &st)) < 0)
		return -1;
	rc = lines_match(c, a, rc == 1 ? NULL : data, len, word, &err);
	free(data);
	return err ? -1 : rc;
}

int
text_line_holds(struct ctl *c, const struct act *a)
{
	return text_lines_hold(c, a, a->path, a->token);
}

int
text_line_apply(struct ctl *c, const struct act *a)
{
	char want[FAC_TEXT_MAX + 1];

	if (a->alt[0] && ctl_expand(c, a->alt[0], want, sizeof(want)) < 0)
		return -1;
	return text_set_lines(c, a->path, a->token, a->alt[0] ? want : NULL);
}
