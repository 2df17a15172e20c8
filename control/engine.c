/*
 * States are never stored as truth: the current state of a facility is
 * derived from the system every time (the first state, in file order,
 * all of whose actions hold), exactly as Owl's control did.  What the
 * administrator chose is recorded separately (states.c) only to detect
 * drift and to reapply after package upgrades.
 *
 * A switch is a transaction: every object is recorded before it changes
 * (undo.c), the result is read back, and any failure — an action, the
 * read-back, the dpkg registration or the record of the choice — puts
 * every object back.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "ctl.h"

int
engine_available(struct ctl *c, const struct facility *f)
{
	struct stat st;

	return !f->requires || fstatat(c->rootfd, f->requires + 1, &st,
	    AT_SYMLINK_NOFOLLOW) == 0;
}

static int
act_holds(struct ctl *c, const struct facility *f, const struct act *a)
{
	switch (a->kind) {
	case ACT_GROUP:
		return group_holds(c, a);
	case ACT_FILE:
	case ACT_DIR:
		return file_holds(c, a);
	case ACT_LINE:
		return text_line_holds(c, a);
	case ACT_SYSCTL:
		return sysctl_holds(c, a);
	case ACT_PAM:
		return pam_holds(c, f, a);
	case ACT_SHADOW:
		return shadow_holds(c, a);
	}
	return -1;
}

static int
act_apply(struct ctl *c, const struct facility *f, const struct act *a)
{
	switch (a->kind) {
	case ACT_GROUP:
		return group_apply(c, a);
	case ACT_FILE:
	case ACT_DIR:
		return file_apply(c, a);
	case ACT_LINE:
		return text_line_apply(c, a);
	case ACT_SYSCTL:
		return sysctl_apply(c, a);
	case ACT_PAM:
		return pam_apply(c, f, a);
	case ACT_SHADOW:
		return shadow_apply(c, a);
	}
	return -1;
}

const char *
engine_status(struct ctl *c, const struct facility *f, int *err)
{
	const char *found = NULL;
	int i, j, rc = 1;

	*err = 0;
	c->detecting = 1;
	for (i = 0; i < f->nstate && !found; i++) {
		const struct state *s = &f->state[i];
		for (j = 0, rc = 1; j < s->nact && rc == 1; j++)
			rc = act_holds(c, f, &s->act[j]);
		if (rc < 0) {
			*err = 1;
			break;
		}
		if (rc == 1)
			found = s->name;
	}
	c->detecting = 0;
	return found;
}

static void
rollback(struct ctl *c, const struct facility *f)
{
	if (undo_rollback(c) < 0)
		warnx("%s: some objects could not be put back; run "
		    "`control %s` and check them", f->name, f->name);
}

int
engine_set(struct ctl *c, const struct facility *f, const char *state)
{
	const struct state *s = facility_state(f, state);
	const char *now;
	int i, err;

	if (!s) {
		warnx("%s: Invalid mode: %s", f->name, state);
		return -1;
	}
	now = engine_status(c, f, &err);
	if (err)
		return -1;
	if (!now || strcmp(now, state) != 0)
		for (i = 0; i < s->nact; i++)
			if (act_apply(c, f, &s->act[i]) < 0) {
				rollback(c, f);
				warnx("%s: could not switch to %s; previous "
				    "state kept", f->name, state);
				return -1;
			}
	now = engine_status(c, f, &err);
	if (err || !now || strcmp(now, state) != 0) {
		if (!err)
			warnx("%s: Requested %s, got %s", f->name, state,
			    now ? now : "unknown");
		rollback(c, f);
		return -1;
	}
	if (statoverride_register(c, s) < 0 ||
	    states_set(c, f->name, state) < 0) {
		rollback(c, f);
		warnx("%s: previous state kept", f->name);
		return -1;
	}
	undo_forget(c);
	return 0;
}
