/*
 * seal verify: compare a tree with a spec.
 *
 * The tree is walked (and hashed in parallel) in canonical order and
 * merged with the spec's entries in the same order, so memory stays small
 * whatever the size of the tree.  A spec in another order (NetBSD mtree -c,
 * bsdtar) is first loaded and sorted.  Every difference is reported:
 * changed attributes, missing entries (not "optional"), extra entries.
 * Exit status: 0 identical, 2 differences, 1 errors (unreadable spec or
 * files).  Unlike mtree(8), missing and extra entries make the status 2.
 */
#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "seal.h"
#include "cmd.h"
#include "hashq.h"
#include "idmap.h"
#include "specread.h"
#include "owlet.h"

/* The spec as a stream of entries in canonical order. */
struct source {
	struct specread *r;	/* streaming, or NULL */
	struct seal_entry *v;	/* loaded and sorted */
	size_t n, i;
	int error;
};

struct verify_ctx {
	struct source *src;
	struct seal_entry cur;
	int have_cur, eof;
	int caps_tracked;
	struct idmap *users, *groups;
	char *skip;		/* tree subtree not to report */
	char *spec_skip;	/* spec subtree already reported missing */
	const char **exclude;	/* --exclude: "etc/x", no "./" */
	size_t nexclude;
	unsigned long changed, missing, extra, errors;
	int json, first;
	FILE *out;
};

static int
entry_cmp(const void *x, const void *y)
{
	const struct seal_entry *a = x, *b = y;

	return seal_path_cmp(a->path, b->path);
}

static int
source_next(struct source *s, struct seal_entry *e)
{
	int rc;

	if (!s->r) {
		if (s->i == s->n)
			return 0;
		*e = s->v[s->i];
		memset(&s->v[s->i++], 0, sizeof(*e));
		return 1;
	}
	rc = specread_next(s->r, e);
	if (rc < 0)
		s->error = 1;
	return rc;
}

static int
under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, ".") == 0)
		return 1;
	return strncmp(path, dir, n) == 0 && path[n] == '/';
}

/* An --exclude path, or below one: the walk leaves the tree's out, and
 * the spec's must go too (else they would read as missing). */
static int
spec_excluded(const struct verify_ctx *c, const char *path)
{
	size_t i, n;

	if (path[0] != '.' || path[1] != '/')
		return 0;	/* "." itself */
	for (i = 0; i < c->nexclude; i++) {
		n = strlen(c->exclude[i]);
		if (strncmp(path + 2, c->exclude[i], n) == 0 &&
		    (path[n + 2] == '\0' || path[n + 2] == '/'))
			return 1;
	}
	return 0;
}

static void
report(struct verify_ctx *c, const char *path, const char *kind,
    const char *key, const char *expected, const char *found)
{
	if (c->json) {
		fputs(c->first ? "\n  {" : ",\n  {", c->out);
		c->first = 0;
		fputs("\"path\": ", c->out);
		owlet_json_put(c->out, path);
		fprintf(c->out, ", \"kind\": \"%s\"", kind);
		if (key) {
			fprintf(c->out, ", \"keyword\": \"%s\", \"expected\": ",
			    key);
			owlet_json_put(c->out, expected);
			fputs(", \"found\": ", c->out);
			owlet_json_put(c->out, found);
		}
		putc('}', c->out);
		return;
	}
	seal_vis(c->out, path);
	if (key) {
		/* a link target is any bytes: the text rule of owlet_esc */
		fprintf(c->out, ": %s (", key);
		owlet_esc_put(c->out, expected);
		fputs(", ", c->out);
		owlet_esc_put(c->out, found);
		fputs(")\n", c->out);
	} else
		fprintf(c->out, ": %s\n", kind);
}

#define DIFF(key, fmt, a, b) do { \
	char x_[160], y_[160]; \
	snprintf(x_, sizeof(x_), fmt, a); \
	snprintf(y_, sizeof(y_), fmt, b); \
	report(c, t->path, "changed", key, x_, y_); \
	n++; \
} while (0)

static void
hex(char *out, const unsigned char *d, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", d[i]);
}

/* Compare the attributes the spec entry S names with tree entry T. */
static void
compare(struct verify_ctx *c, const struct seal_entry *s,
    const struct seal_entry *t)
{
	unsigned k = s->keys;
	int n = 0, failed = 0;

	if (k & K_NOCHANGE)
		return;
	if (s->type != t->type) {
		DIFF("type", "%s", seal_type_name(s->type),
		    seal_type_name(t->type));
		c->changed++;
		return;
	}
	if ((k & K_MODE) && s->mode != t->mode)
		DIFF("permissions", "%04o", (unsigned)s->mode, (unsigned)t->mode);
	if ((k & K_UID) && s->uid != t->uid)
		DIFF("uid", "%u", (unsigned)s->uid, (unsigned)t->uid);
	if ((k & K_GID) && s->gid != t->gid)
		DIFF("gid", "%u", (unsigned)s->gid, (unsigned)t->gid);
	if (k & K_UNAME) {
		const char *name = seal_idmap_need(c->users, t->uid, &failed);
		if (!failed && strcmp(s->uname, name) != 0)
			DIFF("uname", "%s", s->uname, name);
	}
	if (k & K_GNAME) {
		const char *name = seal_idmap_need(c->groups, t->gid, &failed);
		if (!failed && strcmp(s->gname, name) != 0)
			DIFF("gname", "%s", s->gname, name);
	}
	c->errors += failed;
	if ((k & K_SIZE) && t->type == T_FILE && s->size != t->size)
		DIFF("size", "%" PRIu64, s->size, t->size);
	if ((k & K_NLINK) && t->type != T_DIR && s->nlink != t->nlink)
		DIFF("nlink", "%" PRIu64, s->nlink, t->nlink);
	if ((k & K_TIME) && (s->mtime.tv_sec != t->mtime.tv_sec ||
	    s->mtime.tv_nsec != t->mtime.tv_nsec)) {
		char x[64], y[64];
		snprintf(x, sizeof(x), "%lld.%09ld",
		    (long long)s->mtime.tv_sec, s->mtime.tv_nsec);
		snprintf(y, sizeof(y), "%lld.%09ld",
		    (long long)t->mtime.tv_sec, t->mtime.tv_nsec);
		report(c, t->path, "changed", "time", x, y);
		n++;
	}
	if ((k & K_LINK) && t->type == T_LINK &&
	    strcmp(s->link ? s->link : "", t->link ? t->link : "") != 0) {
		report(c, t->path, "changed", "link", s->link ? s->link : "",
		    t->link ? t->link : "");
		n++;
	}
	if ((k & K_DEVICE) && (t->type == T_BLOCK || t->type == T_CHAR) &&
	    (s->rdev_major != t->rdev_major || s->rdev_minor != t->rdev_minor)) {
		char x[64], y[64];
		snprintf(x, sizeof(x), "%" PRIu64 ",%" PRIu64, s->rdev_major,
		    s->rdev_minor);
		snprintf(y, sizeof(y), "%" PRIu64 ",%" PRIu64, t->rdev_major,
		    t->rdev_minor);
		report(c, t->path, "changed", "device", x, y);
		n++;
	}
	if ((k & K_SHA256) && t->type == T_FILE && !t->error &&
	    memcmp(s->sha256, t->sha256, 32) != 0) {
		char x[65], y[65];
		hex(x, s->sha256, 32);
		hex(y, t->sha256, 32);
		report(c, t->path, "changed", "sha256digest", x, y);
		n++;
	}
	if (t->type == T_FILE && ((k & K_CAPS) || c->caps_tracked) &&
	    strcmp(k & K_CAPS ? s->caps : "", t->caps) != 0) {
		report(c, t->path, "changed", "capability",
		    k & K_CAPS ? s->caps : "none", t->caps[0] ? t->caps : "none");
		n++;
	}
	if (n)
		c->changed++;
}

static int
advance(struct verify_ctx *c)
{
	if (c->have_cur)
		seal_entry_free(&c->cur);
	c->have_cur = 0;
	while (!c->eof) {
		int rc = source_next(c->src, &c->cur);
		if (rc <= 0) {
			c->eof = 1;
			return rc;
		}
		if (c->spec_skip && under(c->cur.path, c->spec_skip)) {
			seal_entry_free(&c->cur);
			continue;	/* below a directory reported missing */
		}
		if (spec_excluded(c, c->cur.path)) {
			seal_entry_free(&c->cur);
			continue;	/* out of the comparison, as in the walk */
		}
		c->have_cur = 1;
		return 1;
	}
	return 0;
}

static void
set_skip(char **slot, const char *path)
{
	free(*slot);
	*slot = strdup(path);
}

static void
missing(struct verify_ctx *c)
{
	if (!(c->cur.keys & K_OPTIONAL)) {
		report(c, c->cur.path, "missing", NULL, NULL, NULL);
		c->missing++;
	}
	if (c->cur.type == T_DIR)
		set_skip(&c->spec_skip, c->cur.path);
}

static void
emit(void *arg, struct seal_entry *t, enum walk_event ev)
{
	struct verify_ctx *c = arg;
	int cmp;

	if (ev == WALK_LEAVE)
		return;
	if (c->skip && under(t->path, c->skip))
		return;
	if (t->error) {
		seal_entry_warn(t);
		c->errors++;
	}
	for (;;) {
		if (!c->have_cur && advance(c) <= 0) {
			cmp = 1;	/* spec exhausted: extra */
			break;
		}
		cmp = seal_path_cmp(c->cur.path, t->path);
		if (cmp >= 0)
			break;
		missing(c);
		advance(c);
	}
	if (cmp > 0) {
		report(c, t->path, "extra", NULL, NULL, NULL);
		c->extra++;
		if (t->type == T_DIR)
			set_skip(&c->skip, t->path);
		return;
	}
	compare(c, &c->cur, t);
	if (c->cur.type == T_DIR && (c->cur.keys & K_IGNORE))
		set_skip(&c->skip, t->path);
	advance(c);
}

static int
push(void *arg, struct seal_entry *e, int fd, enum walk_event ev)
{
	return hashq_push(arg, e, fd, ev);
}

/* Is the spec already in canonical order?  (One parsing pass.) */
static int
spec_sorted(FILE *fp, const char *name, int *caps)
{
	struct specread *r = specread_open(fp, name);
	struct seal_entry e, prev = { 0 };
	int rc, sorted = 1;

	if (!r)
		return -1;
	while ((rc = specread_next(r, &e)) > 0) {
		if (prev.path && seal_path_cmp(prev.path, e.path) >= 0)
			sorted = 0;
		seal_entry_free(&prev);
		prev = e;
	}
	seal_entry_free(&prev);
	*caps = specread_tracks_caps(r);
	specread_close(r);
	return rc < 0 ? -1 : sorted;
}

static int
load_sorted(struct source *s, FILE *fp, const char *name)
{
	struct specread *r = specread_open(fp, name);
	size_t cap = 1024, i;
	int rc;

	s->v = malloc(cap * sizeof(*s->v));
	if (!r || !s->v)
		err(1, NULL);
	while ((rc = specread_next(r, &s->v[s->n])) > 0) {
		if (++s->n == cap) {
			cap *= 2;
			s->v = realloc(s->v, cap * sizeof(*s->v));
			if (!s->v)
				err(1, NULL);
		}
	}
	specread_close(r);
	if (rc < 0)
		return -1;
	qsort(s->v, s->n, sizeof(*s->v), entry_cmp);
	for (i = 1; i < s->n; i++)
		if (seal_path_cmp(s->v[i - 1].path, s->v[i].path) == 0) {
			char *vis = seal_vis_dup(s->v[i].path);

			warnx("%s: duplicate entry %s", name,
			    vis ? vis : "(out of memory)");
			free(vis);
			return -1;
		}
	return 0;
}

int
seal_verify(const struct seal_args *a, FILE *spec)
{
	struct verify_ctx c = { .out = stdout, .json = a->json, .first = 1,
	    .exclude = a->exclude, .nexclude = a->nexclude };
	struct source src = { 0 };
	struct walk_opts w = { .root = a->root, .keys = K_SHA256 | K_CAPS,
	    .exclude = a->exclude, .nexclude = a->nexclude, .fn = push };
	struct hashq *q;
	int sorted, rc;

	sorted = spec_sorted(spec, a->spec, &c.caps_tracked);
	if (sorted < 0 || fseek(spec, 0, SEEK_SET) < 0)
		return 1;
	if (sorted) {
		src.r = specread_open(spec, a->spec);
		if (!src.r)
			err(1, NULL);
	} else if (load_sorted(&src, spec, a->spec) < 0) {
		while (src.n)
			seal_entry_free(&src.v[--src.n]);
		free(src.v);
		return 1;
	}
	c.src = &src;
	c.users = seal_idmap_new(a->root, 0);
	c.groups = c.users ? seal_idmap_new(a->root, 1) : NULL;
	if (!c.groups) {
		seal_idmap_free(c.users);
		specread_close(src.r);
		free(src.v);
		return 1;	/* seal_idmap_new said why */
	}
	q = hashq_new(a->threads, K_SHA256 | K_CAPS, emit, &c);
	if (!q)
		err(1, NULL);
	w.ctx = q;
	if (c.json)
		fputs("{\"differences\": [", c.out);
	rc = seal_walk(&w);
	if (rc < 0)
		warn("%s", a->root);
	hashq_finish(q);
	while (c.have_cur || advance(&c) > 0) {
		missing(&c);
		advance(&c);
	}
	if (c.json)
		fprintf(c.out, "%s], \"changed\": %lu, \"missing\": %lu, "
		    "\"extra\": %lu, \"errors\": %lu}\n", c.first ? "" : "\n",
		    c.changed, c.missing, c.extra, c.errors + (rc < 0) +
		    src.error);
	specread_close(src.r);
	free(src.v);
	free(c.skip);
	free(c.spec_skip);
	seal_idmap_free(c.users);
	seal_idmap_free(c.groups);
	if (rc < 0 || c.errors || src.error)
		return 1;
	return c.changed || c.missing || c.extra ? 2 : 0;
}
