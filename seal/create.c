/*
 * seal create: walk, hash in parallel, write the spec in walk order.
 * Output is a pure function of the tree: no header with date, host or user
 * (those belong in the signature's trusted comment).
 */
#include <err.h>
#include <errno.h>
#include <string.h>

#include "seal.h"
#include "hashq.h"
#include "idmap.h"
#include "cmd.h"

struct create_ctx {
	FILE *out;
	unsigned keys;
	struct idmap *users, *groups;
	int depth;
	int errors;
};

static void
emit(void *arg, struct seal_entry *e, enum walk_event ev)
{
	struct create_ctx *c = arg;
	int failed = 0;

	if (ev == WALK_LEAVE) {
		if (--c->depth > 0)
			fputs("..\n", c->out);
		return;
	}
	if (e->error) {
		seal_entry_warn(e);
		c->errors++;
		e->keys &= ~(unsigned)(K_SHA256 | K_CAPS);
	}
	if (c->keys & K_UNAME)
		snprintf(e->uname, sizeof(e->uname), "%s",
		    seal_idmap_need(c->users, e->uid, &failed));
	if (c->keys & K_GNAME)
		snprintf(e->gname, sizeof(e->gname), "%s",
		    seal_idmap_need(c->groups, e->gid, &failed));
	c->errors += failed;
	seal_entry_write(c->out, e, c->keys);
	if (e->type == T_DIR) {
		if (e->error && c->depth > 0)
			fputs("..\n", c->out);	/* not entered */
		else
			c->depth++;
	}
}

static int
push(void *arg, struct seal_entry *e, int fd, enum walk_event ev)
{
	return hashq_push(arg, e, fd, ev);
}

int
seal_create(const struct seal_args *a)
{
	struct create_ctx c = { .keys = a->keys };
	struct walk_opts w = {
		.root = a->root, .keys = a->keys, .exclude = a->exclude,
		.nexclude = a->nexclude, .fn = push,
	};
	struct hashq *q;
	int rc;

	c.out = a->out;
	c.users = seal_idmap_new(a->root, 0);
	c.groups = c.users ? seal_idmap_new(a->root, 1) : NULL;
	if (!c.groups) {
		seal_idmap_free(c.users);
		return 1;	/* seal_idmap_new said why */
	}
	q = hashq_new(a->threads, a->keys, emit, &c);
	if (!q)
		err(1, "out of memory");
	w.ctx = q;
	fputs("#mtree\n", c.out);
	if (a->keys & K_CAPS)	/* absent capability= then means "none" */
		fputs("#seal capability\n", c.out);
	rc = seal_walk(&w);
	if (rc < 0)
		warn("%s", a->root);
	hashq_finish(q);
	seal_idmap_free(c.users);
	seal_idmap_free(c.groups);
	if (fflush(c.out) != 0 || ferror(c.out)) {
		warn("write error");
		return 1;
	}
	return rc < 0 || c.errors ? 1 : 0;
}
