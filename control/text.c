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
 *
 * Going back must give back the administrator's file, not a normalised
 * one: the first time control rewrites WORD's lines of a file it records
 * what was there (the raw active line, the raw commented line it revived,
 * or nothing) in /var/lib/owlet/control/lines.  A later value that the
 * recorded line already expresses is written as that raw line; "-" puts
 * the recorded comment back, or deletes a line control itself appended.
 * So `control passwd tcb; control passwd traditional` restores
 * nsswitch.conf and login.defs byte for byte.
 *
 * A file that did not exist is created, and so are the directories on
 * the way to it (a systemd drop-in directory); each is recorded as made
 * by control (an empty word, record "+").  When a later switch leaves
 * such a file without any line, it is removed, and so are the recorded
 * directories that it leaves empty: going back leaves no trace.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
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
    const struct stat *oldst, mode_t newmode, const char *data, size_t len)
{
	struct stat fresh = { .st_mode = newmode, .st_uid = 0, .st_gid = 0 };
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
		switch (ctl_expand(c, a->alt[i], want, sizeof(want))) {
		case -2:
			continue;	/* its group does not exist: no match */
		case -1:
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
	if (n == 0)
		return o->p || (o->p = calloc(1, 1)) ? 0 : -1;
	if (o->len + n + 1 > o->cap) {
		size_t cap = (o->len + n + 1) * 2;
		char *p = realloc(o->p, cap);
		if (!p)
			return -1;
		o->p = p;
		o->cap = cap;
	}
	if (!o->p)
		return -1;
	memcpy(o->p + o->len, s, n);
	o->len += n;
	return 0;
}

/*
 * DATA with WORD's active lines rewritten into O: the first becomes FIRST
 * (NULL: treated like the others), the others are commented out, or
 * deleted with DROP.  With FIRST and no active line, the first commented
 * line mentioning WORD is replaced, else FIRST is appended.  0 or -1.
 */
static int
edit_lines(const char *data, size_t len, const char *word, const char *first,
    int drop, struct obuf *o)
{
	const char *p, *end = data + len, *l, *revive = NULL;
	size_t n, from;
	int done = 0, rc = 0;

	/* pass 1: is there an active line, or a commented one to revive? */
	if (first) {
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
		if (mine && first && !done) {
			rc |= put(o, first, strlen(first));
			done = 1;
		} else if (mine && k == 1 && drop)
			continue;
		else if (mine && k == 1) {
			rc |= put(o, "# ", 2);
			rc |= put(o, l, n);
		} else
			rc |= put(o, l, n);
		rc |= put(o, "\n", 1);
	}
	if (first && !done) {
		rc |= put(o, first, strlen(first));
		rc |= put(o, "\n", 1);
	}
	if (rc)
		errno = ENOMEM;
	return rc ? -1 : 0;
}

/* What WORD's lines of DATA were, as recorded: '=' raw active line, '#'
 * raw commented line, '-' none. */
static int
origin_of(const char *data, size_t len, const char *word, char *out,
    size_t olen)
{
	const char *p = data, *end = data + len, *l, *comment = NULL;
	size_t n, from, cn = 0;

	while ((l = next_line(&p, end, &n))) {
		int k = line_kind(l, n, &from);
		if (k == 1 && has_word(l, n, from, word)) {
			if (n + 2 > olen)
				return -1;
			snprintf(out, olen, "=%.*s", (int)n, l);
			return 0;
		}
		if (k == 2 && !comment && has_word(l, n, from, word)) {
			comment = l;
			cn = n;
		}
	}
	if (comment && cn + 2 > olen)
		return -1;
	if (comment)
		snprintf(out, olen, "#%.*s", (int)cn, comment);
	else
		snprintf(out, olen, "-");
	return 0;
}

#define ORIGINS	CTL_STATE_DIR "/lines"

/* The recorded origin of PATH's WORD lines into OUT: 1, 0 none, -1. */
static int
origin_get(struct ctl *c, const char *path, const char *word, char *out,
    size_t olen)
{
	char *data, *p, *nl;
	size_t len, pl = strlen(path), wl = strlen(word);
	struct stat st;
	int rc;

	if ((rc = text_read(c, "/" ORIGINS, &data, &len, &st)) != 0)
		return rc == 1 ? 0 : -1;
	rc = 0;
	for (p = data; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			break;
		if (strncmp(p, path, pl) == 0 && p[pl] == '\t' &&
		    strncmp(p + pl + 1, word, wl) == 0 && p[pl + 1 + wl] == '\t') {
			snprintf(out, olen, "%.*s", (int)(nl - (p + pl + wl + 2)),
			    p + pl + wl + 2);
			rc = 1;
			break;
		}
	}
	free(data);
	return rc;
}

static int
origin_add(struct ctl *c, const char *path, const char *word,
    const char *origin)
{
	struct obuf o = { NULL, 0, 0 };
	struct stat st;
	char *data = NULL;
	size_t len = 0;
	int rc, fd;

	if ((rc = text_read(c, "/" ORIGINS, &data, &len, &st)) < 0)
		return -1;
	if ((rc == 0 && put(&o, data, len)) || put(&o, path, strlen(path)) ||
	    put(&o, "\t", 1) || put(&o, word, strlen(word)) ||
	    put(&o, "\t", 1) || put(&o, origin, strlen(origin)) ||
	    put(&o, "\n", 1)) {
		warnx("out of memory");
		rc = -1;
		goto out;
	}
	rc = -1;
	if ((fd = ctl_mkdirs(c, CTL_STATE_DIR, 0700)) >= 0) {
		rc = owlet_write_replace(fd, "lines", o.p, o.len, 0600, 0, 0) < 0 ?
		    -1 : 0;
		close(fd);
	}
	if (rc < 0)
		warn("%s", ctl_path(c, "/" ORIGINS));
out:
	free(data);
	free(o.p);
	return rc;
}

/* Did control create PATH (a file or directory)?  1, 0, -1. */
static int
made_by_control(struct ctl *c, const char *path)
{
	char rec[8];
	int rc = origin_get(c, path, "", rec, sizeof(rec));

	return rc == 1 ? rec[0] == '+' : rc;
}

static int
mark_made(struct ctl *c, const char *path)
{
	int rc = made_by_control(c, path);

	return rc != 0 ? (rc < 0 ? -1 : 0) : origin_add(c, path, "", "+");
}

/* Undo of a directory made here, and of its removal. */
static int
revert_mkdir(struct ctl *c, const struct undo_rec *r)
{
	const char *base;
	int dfd, rc;

	if ((dfd = ctl_open_parent(c, r->path, &base)) < 0)
		return errno == ENOENT ? 0 : -1;
	rc = unlinkat(dfd, base, AT_REMOVEDIR) < 0 && errno != ENOENT ? -1 : 0;
	close(dfd);
	return rc;
}

static int
revert_rmdir(struct ctl *c, const struct undo_rec *r)
{
	const char *base;
	int dfd, rc;

	if ((dfd = ctl_open_parent(c, r->path, &base)) < 0)
		return -1;
	rc = mkdirat(dfd, base, 0755) < 0 && errno != EEXIST ? -1 : 0;
	close(dfd);
	return rc;
}

/* Create the missing directories on the way to PATH, root 0755, each
 * through ctl_open_parent's checks of the directories above it. */
static int
make_parents(struct ctl *c, const char *path)
{
	char dir[FAC_PATH_MAX + 1];
	const char *slash, *base;
	int dfd, rc;

	for (slash = strchr(path + 1, '/'); slash;
	    slash = strchr(slash + 1, '/')) {
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
		if ((dfd = ctl_open_parent(c, dir, &base)) < 0)
			goto fail;
		rc = mkdirat(dfd, base, 0755);
		close(dfd);
		if (rc < 0 && errno == EEXIST)
			continue;
		if (rc < 0)
			goto fail;
		if (undo_push(c, revert_mkdir, NULL, dir, NULL, 0, NULL, 0) < 0 ||
		    mark_made(c, dir) < 0)
			return -1;
	}
	return 0;
fail:
	warn("%s", ctl_path(c, dir));
	return -1;
}

/* PATH, made by control, lost its last line: remove it (DATA, LEN and
 * ST for undo), then the directories control made that it leaves empty. */
static int
remove_made(struct ctl *c, const char *path, const char *data, size_t len,
    const struct stat *st)
{
	char dir[FAC_PATH_MAX + 1];
	const char *base;
	char *slash;
	int dfd, rc;

	if ((dfd = ctl_open_parent(c, path, &base)) < 0 ||
	    undo_content(c, path, data, len, st) < 0 ||
	    unlinkat(dfd, base, 0) < 0) {
		warn("cannot remove %s", ctl_path(c, path));
		if (dfd >= 0)
			close(dfd);
		return -1;
	}
	close(dfd);
	snprintf(dir, sizeof(dir), "%s", path);
	while ((slash = strrchr(dir, '/')) && slash != dir) {
		*slash = '\0';
		if ((rc = made_by_control(c, dir)) <= 0)
			return rc;
		if ((dfd = ctl_open_parent(c, dir, &base)) < 0)
			return -1;
		rc = unlinkat(dfd, base, AT_REMOVEDIR);
		close(dfd);
		if (rc < 0)	/* not empty: someone else's files stay */
			return errno == ENOTEMPTY || errno == EEXIST ? 0 : -1;
		if (undo_push(c, revert_rmdir, NULL, dir, NULL, 0, NULL, 0) < 0)
			return -1;
	}
	return 0;
}

static int
same_words(const char *a, const char *b)
{
	static char na[OWLET_LINE_MAX + 1], nb[OWLET_LINE_MAX + 1];

	normalize(a, strlen(a), na, sizeof(na));
	normalize(b, strlen(b), nb, sizeof(nb));
	return strcmp(na, nb) == 0;
}

/* Set FILE's WORD lines to WANT (NULL: none active), preferring the
 * administrator's own recorded text (see the top of this file). */
int
text_set_lines(struct ctl *c, const char *path, const char *word,
    const char *want)
{
	struct obuf o = { NULL, 0, 0 };
	char origin[OWLET_LINE_MAX + 2];
	const char *first = want, *base = "";
	struct stat st;
	char *data = NULL;
	size_t len = 0;
	int rc, had, drop = 0;

	if ((had = text_read(c, path, &data, &len, &st)) < 0)
		return -1;
	if (had == 1 && !want)
		return 0;	/* no file, no such line */
	if (had == 0)
		base = data;
	else if (make_parents(c, path) < 0 || mark_made(c, path) < 0)
		goto fail;
	if ((rc = origin_get(c, path, word, origin, sizeof(origin))) < 0)
		goto fail;
	if (rc == 0) {
		if (origin_of(base, had == 0 ? len : 0, word, origin,
		    sizeof(origin)) < 0) {
			warnx("%s: the line with %s is longer than %d bytes; "
			    "refusing to edit it", ctl_path(c, path), word,
			    OWLET_LINE_MAX);
			goto fail;
		}
		if (origin_add(c, path, word, origin) < 0)
			goto fail;
	}
	if (want && origin[0] == '=' && same_words(origin + 1, want))
		first = origin + 1;
	else if (!want && origin[0] == '#')
		first = origin + 1;
	else if (!want && origin[0] == '-')
		drop = 1;
	if (edit_lines(base, had == 0 ? len : 0, word, first, drop, &o) < 0 ||
	    put(&o, "", 0) < 0) {
		warnx("out of memory");
		goto fail;
	}
	if (had == 0 && o.len == 0 && (rc = made_by_control(c, path)) != 0)
		rc = rc < 0 ? -1 : remove_made(c, path, data, len, &st);
	else
		rc = text_write(c, path, data, len, had == 0 ? &st : NULL, 0644,
		    o.p, o.len);
	free(data);
	free(o.p);
	return rc;
fail:
	free(data);
	free(o.p);
	return -1;
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
