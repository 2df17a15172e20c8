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
	case ACT_CMDLINE:
		return cmdline_holds(c, a);
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
	case ACT_CMDLINE:
		return cmdline_apply(c, a);
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

/*
 * What the administrator must be told with the state.  A facility all of
 * whose actions are kernel settings that the running kernel lacks is
 * unavailable: its state is what its files say, for another kernel.  In
 * a container, a facility with a global kernel setting is the host's.
 * Neither is drift.  A state with boot parameters that the running
 * kernel was not started with takes effect at the next boot.
 */
enum engine_note
engine_note(struct ctl *c, const struct facility *f, const char *state)
{
	const struct state *s;
	int i, j, sysctls = 0, missing = 0, others = 0, host = 0;

	for (i = 0; i < f->nstate; i++)
		for (j = 0; j < f->state[i].nact; j++) {
			const struct act *a = &f->state[i].act[j];
			if (a->kind != ACT_SYSCTL) {
				others++;
				continue;
			}
			sysctls++;
			host |= c->container && sysctl_file_only(c, a->path);
			missing += !sysctl_available(c, a->path);
		}
	if (host)
		return NOTE_HOST;
	if (sysctls && missing == sysctls && !others)
		return NOTE_UNAVAILABLE;
	if (state && (s = facility_state(f, state)))
		for (j = 0; j < s->nact; j++)
			if (s->act[j].kind == ACT_CMDLINE &&
			    cmdline_pending(c, &s->act[j]))
				return NOTE_NEXT_BOOT;
	return NOTE_NONE;
}

const char *
engine_show(struct ctl *c, const struct facility *f, int *err,
    enum engine_note *note)
{
	const char *st;

	*note = engine_note(c, f, NULL);
	c->hostview = *note == NOTE_HOST;
	st = engine_status(c, f, err);
	c->hostview = 0;
	if (*note == NOTE_NONE && st)
		*note = engine_note(c, f, st);
	return st;
}

const char *
engine_note_word(enum engine_note note)
{
	switch (note) {
	case NOTE_UNAVAILABLE:
		return "unavailable";
	case NOTE_HOST:
		return "host";
	case NOTE_NEXT_BOOT:
		return "next-boot";
	case NOTE_NONE:
		break;
	}
	return NULL;
}

const char *
engine_note_text(enum engine_note note)
{
	switch (note) {
	case NOTE_UNAVAILABLE:
		return "unavailable: the running kernel has none of its settings";
	case NOTE_HOST:
		return "set by the host: this system is a container";
	case NOTE_NEXT_BOOT:
		return "takes effect at the next boot (the running kernel was "
		    "started with other parameters)";
	case NOTE_NONE:
		break;
	}
	return NULL;
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
