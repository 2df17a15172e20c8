/*
 * The guess gate: at most one password guess per TCB_GATE_DELAY_SEC per
 * user reaches that user's hash, for every caller that is not root.
 *
 * Threat model: a local user (or anyone holding a user's shell) wants to
 * test guesses of a password quickly.  Every program that checks a
 * password for a caller whose real uid is not 0 is a way in: tcb_chkpwd,
 * and pam_tcb inside set-gid passwd, chage or a set-uid su/sudo.  The
 * caller runs as many of them as it likes, in parallel, and kills each one
 * as soon as its answer is late (a wrong password is answered only after
 * the failure delay, a right one at once).  So the limit cannot be a sleep
 * in the checking process: it must be state that survives the process.
 *
 * The state is the user's own tcb lock file, /etc/tcb/USER/shadow.lock.
 * The user's tcb lock (lckpwdf_tcb) serialises the checks, and the lock
 * file's mtime is a "not before" stamp.  Before a guess is hashed the
 * stamp is moved TCB_GATE_DELAY_SEC into the future; a right guess moves
 * it back to now.  A checker that is killed after arming the stamp leaves
 * it armed, so the next one waits for it: the guesses that reach the hash
 * are at least TCB_GATE_DELAY_SEC apart, however many checkers run.  The
 * caller cannot move the stamp itself: without group shadow it cannot
 * reach /etc/tcb, and the set-gid programs that give it that group touch
 * the stamp only here.
 *
 * Files are opened with the user's file-system IDs (tcb_drop_priv), as
 * every access to a user's tcb directory is: the user owns it.  The stamp
 * must be a regular file with one link owned by the user; anything else
 * fails closed.  A root caller (login, sshd, su run by root) never comes
 * here: pam_tcb passes it through, as Owl's does.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "owlet.h"
#include "tcb.h"
#include "gate.h"

#define NSEC	1000000000LL

static long long
now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * NSEC + ts.tv_nsec;
}

/* Sleep NS nanoseconds on the monotonic clock, whatever interrupts us. */
static void
pause_ns(long long ns)
{
	long long end = now_ns(CLOCK_MONOTONIC) + ns;
	struct timespec ts = { (time_t)(end / NSEC), (long)(end % NSEC) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	    EINTR)
		;
}

/* The stamp: the lock file (held by us), opened again for its mtime. */
static int
stamp_open(const char *lock, uid_t owner)
{
	struct stat st;
	int fd;

	fd = open(lock, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
	    O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_uid != owner || st.st_nlink != 1) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

/* Wait until the stamp has passed (never longer than one delay, whatever
 * the clock did), then move it TCB_GATE_DELAY_SEC ahead. */
static int
stamp_wait_and_arm(int fd)
{
	struct timespec ts[2];
	struct stat st;
	long long t, now, max = TCB_GATE_DELAY_SEC * NSEC;

	if (fstat(fd, &st) < 0)
		return -1;
	t = st.st_mtim.tv_sec * NSEC + st.st_mtim.tv_nsec;
	now = now_ns(CLOCK_REALTIME);
	if (t > now)
		pause_ns(t - now < max ? t - now : max);
	clock_gettime(CLOCK_REALTIME, &ts[1]);
	ts[1].tv_sec += TCB_GATE_DELAY_SEC;
	ts[0].tv_sec = 0;
	ts[0].tv_nsec = UTIME_OMIT;	/* atime */
	return futimens(fd, ts);
}

void
tcb_gate_delay(void)
{
	pause_ns(TCB_GATE_DELAY_SEC * NSEC);
}

int
tcb_gate_enter(struct tcb_gate *g, const char *name, uid_t owner)
{
	char file[sizeof(TCB_DIR) + OWLET_NAME_MAX + 16];
	char lock[sizeof(file) + 8];
	int e = 0;

	g->stamp = -1;
	g->locked = 0;
	if (!owlet_name_ok(name)) {
		errno = EINVAL;
		return -1;
	}
	snprintf(file, sizeof(file), TCB_FMT, name);
	snprintf(lock, sizeof(lock), TCB_FMT ".lock", name);
	if (tcb_drop_priv(name) < 0)
		return -1;
	if (lckpwdf_tcb(file) < 0) {
		e = errno;
		goto out;
	}
	g->locked = 1;
	g->stamp = stamp_open(lock, owner);
	if (g->stamp < 0 || stamp_wait_and_arm(g->stamp) < 0)
		e = errno;
out:
	if (tcb_gain_priv() < 0 && !e)
		e = errno ? errno : EPERM;
	if (e) {
		tcb_gate_leave(g, 0);
		errno = e;
		return -1;
	}
	return 0;
}

int
tcb_gate_leave(struct tcb_gate *g, int right)
{
	int rc = 0;

	/* A right guess needs no delay for the next one; a wrong or
	 * unfinished one leaves the stamp armed. */
	if (right && g->stamp >= 0 && futimens(g->stamp, NULL) < 0)
		rc = -1;
	if (g->stamp >= 0)
		close(g->stamp);
	if (g->locked)
		ulckpwdf_tcb();
	g->stamp = -1;
	g->locked = 0;
	return rc;
}
