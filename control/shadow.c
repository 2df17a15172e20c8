/*
 * The password-hash scheme: /etc/tcb (one file per user) or /etc/shadow.
 * The conversions are owlet's own tcb_convert and tcb_unconvert (each
 * atomic: staged tree or temp file, one rename), run from control's own
 * directory with --root.  The old form is removed only after the new one
 * is complete, so an interruption leaves both (which reads as neither
 * state and is refused here until an administrator looks) but never
 * neither.  A stale /etc/shadow or shadow- next to /etc/tcb would keep
 * every old hash readable by group shadow, so both go.
 *
 * No password change may be lost across the switch: a change made
 * meanwhile lands in the new form or fails loudly.  The ETC/.pwd.lock lock
 * (an OFD lock, common/pwlock.c) is held from before the tool reads the
 * old form until the old form is gone, and handed to the tool (--lock-fd).
 * To tcb: the writers of /etc/shadow (pam_unix, shadow-utils) take the
 * same lock with lckpwdf() and read the file only under it (pam_unix
 * re-verifies the old password and rebuilds /etc/shadow from the current
 * one).  One that waits for us therefore gets the lock only once
 * /etc/shadow is gone: its fopen("/etc/shadow") fails and passwd exits
 * non-zero, it cannot write into a file that tcb no longer reads.  The
 * lock must not be dropped between tcb_convert and the unlink: a waiter
 * would take it there and its change would be deleted with the file.
 * shadow-utils, unlike pam_unix, opens /etc/shadow with O_CREAT: one that
 * waited for the lock would write a new /etc/shadow nobody reads and exit
 * 0.  glibc's lckpwdf() gives up after 15 s, so while a process is blocked
 * on the lock (/proc/locks) we keep it, up to WAITER_GRACE_MS: shadow-utils
 * then fails ("cannot lock"), pam_unix retries and fails as above.  (A tool
 * that saw /etc/shadow at its start but asks for the lock only after we
 * released it is not covered; that window is the tool's own start-up.)
 * Back to shadow: the tcb writers use per-user locks, which tcb_unconvert
 * takes itself (see there); the global lock keeps shadow-utils out, and a
 * writer waiting for it writes the new, authoritative /etc/shadow.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
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

#define WAITER_GRACE_MS	16000	/* > lckpwdf()'s 15 s */

/* Is a process blocked waiting for a lock on the file of ST?  Matched by
 * inode number only: an overlay reports another st_dev than /proc/locks,
 * and a false match costs a delay, nothing else. */
static int
lock_waited_for(const struct stat *st)
{
	char line[256], *tok, *save;
	unsigned int maj, min;
	unsigned long ino;
	int found = 0, n;
	FILE *f = fopen("/proc/locks", "re");

	if (!f)
		return 0;
	/* "1: -> POSIX  ADVISORY  WRITE 123 00:2d:4567 0 EOF" */
	while (!found && fgets(line, sizeof(line), f)) {
		if (!strstr(line, " -> "))
			continue;
		for (tok = strtok_r(line, " \t\n", &save); tok;
		    tok = strtok_r(NULL, " \t\n", &save))
			if (sscanf(tok, "%x:%x:%lu%n", &maj, &min, &ino,
			    &n) == 3 && tok[n] == '\0' && ino == st->st_ino)
				found = 1;
	}
	fclose(f);
	return found;
}

/* Keep the lock while somebody waits for it (see the top comment). */
static void
outwait_waiters(int lockfd)
{
	struct timespec nap = { 0, 100 * 1000 * 1000 };
	struct stat st;
	int waited;

	if (fstat(lockfd, &st) < 0)
		return;
	for (waited = 0; waited < WAITER_GRACE_MS && lock_waited_for(&st);
	    waited += 100)
		nanosleep(&nap, NULL);
}

/* Convert to tcb (1) or back to /etc/shadow (0); records no undo. */
static int
shadow_switch(struct ctl *c, int to_tcb)
{
	int etcfd, lockfd, rc;

	etcfd = owlet_open_dir(c->rootfd, "etc");
	if (etcfd < 0) {
		warn("%s", ctl_path(c, "/etc"));
		return -1;
	}
	lockfd = owlet_pwlock(etcfd);
	if (lockfd < 0) {
		warn("cannot lock %s", ctl_path(c, "/etc/.pwd.lock"));
		close(etcfd);
		return -1;
	}
	rc = ctl_run_tool(c, to_tcb ? "tcb_convert" : "tcb_unconvert", lockfd);
	if (rc != 0) {
		warnx("%s/%s failed (exit %d)", c->bindir,
		    to_tcb ? "tcb_convert" : "tcb_unconvert", rc);
		close(lockfd);
		close(etcfd);
		return -1;
	}
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
	if (to_tcb && rc == 0)
		outwait_waiters(lockfd);
	close(lockfd);		/* only now may a waiting writer go on */
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
