/*
 * The password-hash scheme: /etc/tcb (one file per user) or /etc/shadow.
 * The conversions are owlet's own tcb_convert and tcb_unconvert (each
 * atomic: staged tree or temp file, one rename), run from control's own
 * directory with --root.  The old form is removed only after the new one
 * is complete, so an interruption leaves both (which reads as neither
 * state and is refused here until an administrator looks) but never
 * neither.  A stale /etc/shadow or shadow- next to /etc/tcb would keep
 * every old hash readable by group shadow, so both go.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctl.h"
#include "owlet.h"

/* 1 tcb, 0 shadow, -1 both or neither or an error (message in *WHY). */
static int
scheme(struct ctl *c, const char **why)
{
	struct stat st;
	int tcb, shadow;

	tcb = fstatat(c->rootfd, "etc/tcb", &st, AT_SYMLINK_NOFOLLOW) == 0;
	if (tcb && !S_ISDIR(st.st_mode)) {
		*why = "/etc/tcb is not a directory";
		return -1;
	}
	shadow = fstatat(c->rootfd, "etc/shadow", &st, AT_SYMLINK_NOFOLLOW) == 0;
	if (tcb && shadow) {
		*why = "both /etc/tcb and /etc/shadow exist (an interrupted "
		    "conversion?): run tcb_convert --incremental or "
		    "tcb_unconvert by hand";
		return -1;
	}
	if (!tcb && !shadow) {
		*why = "neither /etc/tcb nor /etc/shadow exists";
		return -1;
	}
	return tcb;
}

int
shadow_holds(struct ctl *c, const struct act *a)
{
	const char *why;

	return scheme(c, &why) == a->tcb;
}

/* Convert to tcb (1) or back to /etc/shadow (0); records no undo. */
static int
shadow_switch(struct ctl *c, int to_tcb)
{
	int etcfd, rc;

	rc = ctl_run_tool(c, to_tcb ? "tcb_convert" : "tcb_unconvert");
	if (rc != 0) {
		warnx("%s/%s failed (exit %d)", c->bindir,
		    to_tcb ? "tcb_convert" : "tcb_unconvert", rc);
		return -1;
	}
	etcfd = owlet_open_dir(c->rootfd, "etc");
	if (etcfd < 0)
		return -1;
	if (to_tcb) {
		if (unlinkat(etcfd, "shadow", 0) < 0) {
			warn("%s", ctl_path(c, "/etc/shadow"));
			owlet_rmtree(etcfd, "tcb");
			rc = -1;
		} else if (unlinkat(etcfd, "shadow-", 0) < 0 && errno != ENOENT)
			warn("%s", ctl_path(c, "/etc/shadow-"));
	} else if (owlet_rmtree(etcfd, "tcb") < 0) {
		/* both forms now exist: safe, and refused until looked at */
		warn("%s", ctl_path(c, "/etc/tcb"));
		rc = -1;
	}
	fsync(etcfd);
	close(etcfd);
	return rc;
}

/* Undo: back to the scheme in the record's flag (1 tcb, 0 shadow). */
static int
revert_switch(struct ctl *c, const struct undo_rec *r)
{
	return shadow_switch(c, r->flag);
}

int
shadow_apply(struct ctl *c, const struct act *a)
{
	const char *why;
	int now = scheme(c, &why);

	if (now < 0) {
		warnx("%s: %s", ctl_path(c, "/etc"), why);
		return -1;
	}
	if (now == a->tcb)
		return 0;
	if (undo_push(c, revert_switch, "password scheme", NULL, NULL, 0,
	    NULL, now) < 0)
		return -1;
	return shadow_switch(c, a->tcb);
}
