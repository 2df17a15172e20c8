/*
 * The undo log of one switch.  Each object is recorded before its first
 * change, by the module that changes it, with that module's function to
 * put it back (file.c: owner, mode, capabilities, through its
 * privilege-monotone transition; shadow.c: the password scheme; sysctl.c:
 * a live value); whole-file contents (text.c, statoverride.c) are put
 * back here.  Rollback replays the records newest first, so every object
 * ends as it was before the switch began.  This file calls no module:
 * the dependencies run one way, modules -> undo.
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

struct undo {
	struct undo *next;
	undo_revert_fn *revert;
	const char *what;		/* for messages; NULL: rec.path */
	struct undo_rec rec;
};

int
undo_push(struct ctl *c, undo_revert_fn *revert, const char *what,
    const char *path, const void *data, size_t len, const struct stat *st,
    int flag)
{
	struct undo *u = calloc(1, sizeof(*u));

	if (!u || (data && !(u->rec.data = malloc(len + 1)))) {
		free(u);
		warnx("out of memory");
		return -1;
	}
	u->revert = revert;
	u->what = what;
	snprintf(u->rec.path, sizeof(u->rec.path), "%s", path ? path : "");
	if (data) {
		memcpy(u->rec.data, data, len);
		u->rec.data[len] = '\0';
	}
	u->rec.len = len;
	if (st)
		u->rec.st = *st;
	u->rec.flag = flag;
	u->next = c->undo;
	c->undo = u;
	return 0;
}

/* flag: the file existed (data is its content), else remove it. */
static int
revert_content(struct ctl *c, const struct undo_rec *r)
{
	const char *base;
	int dfd, rc;

	dfd = ctl_open_parent(c, r->path, &base);
	if (dfd < 0)
		return -1;
	if (r->flag)
		rc = owlet_write_replace(dfd, base, r->data, r->len,
		    r->st.st_mode & 07777, r->st.st_uid, r->st.st_gid) < 0 ?
		    -1 : 0;
	else
		rc = unlinkat(dfd, base, 0) < 0 && errno != ENOENT ? -1 : 0;
	close(dfd);
	return rc;
}

int
undo_content(struct ctl *c, const char *path, const char *data, size_t len,
    const struct stat *st)
{
	return undo_push(c, revert_content, NULL, path, data, len, st,
	    data != NULL);
}

static void
undo_free(struct undo *u)
{
	free(u->rec.data);
	free(u);
}

int
undo_rollback(struct ctl *c)
{
	struct undo *u;
	int rc = 0;

	while ((u = c->undo)) {
		c->undo = u->next;
		if (u->revert(c, &u->rec) < 0) {
			warn("%s: could not put back",
			    u->what ? u->what : ctl_path(c, u->rec.path));
			rc = -1;
		}
		undo_free(u);
	}
	return rc;
}

void
undo_forget(struct ctl *c)
{
	struct undo *u;

	while ((u = c->undo)) {
		c->undo = u->next;
		undo_free(u);
	}
}
