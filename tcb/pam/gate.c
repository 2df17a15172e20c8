/*
 * The guess gate: at most one password guess per TCB_GATE_DELAY_SEC per
 * user reaches that user's hash, for every set-ID caller whose real uid
 * is not 0.
 *
 * Threat model: a local user (or anyone holding a user's shell) wants to
 * test guesses of a password quickly.  Every set-ID program that checks a
 * password for such a caller is a way in: tcb_chkpwd, and pam_tcb inside
 * set-gid passwd or a set-uid su/sudo.  The caller runs as many of them as
 * it likes, in parallel, kills each one as soon as its answer is late (a
 * wrong password is answered only after the failure delay, a right one at
 * once), and may stop (SIGSTOP) any of them at any instant.  So the limit
 * cannot be a sleep in the checking process, and it must not be a lock
 * held for long: a stopped holder would keep it.
 *
 * The state is the mtime of the user's own /etc/tcb/USER/shadow.gate, a
 * "not before" stamp.  Before a guess is hashed, one short step moves the
 * stamp TCB_GATE_DELAY_SEC into the future if it has passed (or says how
 * long to wait if it has not); a right guess moves it back to now.  The
 * step runs under an OFD lock on the gate file, held for a few system
 * calls and never across a sleep or a hash, so that two checkers cannot
 * both take one slot.  A checker killed after the step leaves the stamp
 * armed: the guesses that reach the hash are at least TCB_GATE_DELAY_SEC
 * apart, however many checkers run.  The gate file is not the writers'
 * lock (shadow.lock): a checker stopped inside its step can hold up only
 * other checks of the same account, never a password change (root's
 * included) or tcb_unconvert.  When the caller is the account itself
 * (set-gid passwd, tcb_chkpwd) that is only itself; for a set-uid root
 * caller (su, sudo), which may check another account, the step runs in a
 * child whose user IDs are all 0, in a session of its own, which the user
 * can neither signal nor stop from a terminal.
 *
 * The caller cannot move the stamp: without group shadow it cannot reach
 * /etc/tcb.  Files are opened with the account's file-system IDs
 * (tcb_drop_priv), as every access to a user's tcb directory is: the user
 * owns it.  The gate file must be a regular file with one link owned by
 * the account; anything else fails closed, and so does an account without
 * a tcb directory.  A stamp further ahead than one delay (the clock was
 * set back) is pulled back to one delay.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "owlet.h"
#include "tcb.h"
#include "gate.h"

#define NSEC		1000000000LL
#define DELAY_NS	(TCB_GATE_DELAY_SEC * NSEC)
#define GATE_WAIT_NS	(15 * NSEC)	/* then give up, as lckpwdf_tcb */
#define LOCK_POLL_NS	(10 * 1000 * 1000)

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

void
tcb_gate_delay(void)
{
	pause_ns(DELAY_NS);
}

static int
set_stamp(int fd, long long t)
{
	struct timespec ts[2] = {
		{ 0, UTIME_OMIT },	/* atime */
		{ (time_t)(t / NSEC), (long)(t % NSEC) }
	};

	return futimens(fd, ts);
}

/*
 * The compare-and-arm step on the open gate file FD: 0 armed (a guess may
 * be hashed now), > 0 nanoseconds to wait before the next step, -1 error.
 */
static long long
step(int fd)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	struct stat st;
	long long t, now, rc = -1;
	int e = 0;

	if (fcntl(fd, F_OFD_SETLK, &fl) < 0)
		return errno == EAGAIN || errno == EACCES ? LOCK_POLL_NS : -1;
	now = now_ns(CLOCK_REALTIME);
	if (fstat(fd, &st) < 0) {
		e = errno;
		goto out;
	}
	t = st.st_mtim.tv_sec * NSEC + st.st_mtim.tv_nsec;
	if (t > now + DELAY_NS) {	/* the clock went back */
		t = now + DELAY_NS;
		if (set_stamp(fd, t) < 0) {
			e = errno;
			goto out;
		}
	}
	if (t > now)
		rc = t - now;
	else if (set_stamp(fd, now + DELAY_NS) < 0)
		e = errno;
	else
		rc = 0;
out:
	fl.l_type = F_UNLCK;
	fcntl(fd, F_OFD_SETLK, &fl);
	errno = e;
	return rc;
}

/*
 * The step for a set-uid root caller: in a child that the user cannot
 * signal (all user IDs 0) nor reach from a terminal (its own session).
 * The child shares FD's open file description, and with it the lock.
 */
static long long
step_unstoppable(int fd)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL }, old;
	long long rc = -1;
	int p[2], status, e = EIO;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	sigaction(SIGCHLD, &dfl, &old);
	pid = fork();
	if (pid == 0) {
		uid_t r, eu, s;

		close(p[0]);
		if (setsid() < 0 || setresuid(0, 0, 0) < 0 ||
		    getresuid(&r, &eu, &s) < 0 || r || eu || s)
			_exit(1);
		rc = step(fd);
		e = errno;
		if (owlet_write_full(p[1], &rc, sizeof(rc)) < 0 ||
		    owlet_write_full(p[1], &e, sizeof(e)) < 0)
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	if (pid > 0 && (owlet_read_full(p[0], &rc, sizeof(rc)) != sizeof(rc) ||
	    owlet_read_full(p[0], &e, sizeof(e)) != sizeof(e)))
		rc = -1;
	if (pid > 0)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	close(p[0]);
	sigaction(SIGCHLD, &old, NULL);
	errno = e;
	return rc;
}

/* NAME's gate file, opened (created if need be) with NAME's fs IDs. */
static int
gate_open(const char *name, uid_t owner)
{
	char path[sizeof(TCB_DIR) + OWLET_NAME_MAX + sizeof("/shadow.gate")];
	struct stat st;
	int fd, e = 0;

	snprintf(path, sizeof(path), TCB_DIR "/%s/shadow.gate", name);
	if (tcb_drop_priv(name) < 0)
		return -1;
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK |
	    O_NOCTTY | O_CLOEXEC, 0600);
	if (fd < 0)
		e = errno;
	else if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_uid != owner || st.st_nlink != 1)
		e = EPERM;
	if (tcb_gain_priv() < 0 && !e)
		e = errno ? errno : EPERM;
	if (e) {
		if (fd >= 0)
			close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

int
tcb_gate_enter(struct tcb_gate *g, const char *name, uid_t owner)
{
	int unstoppable = geteuid() == 0 && getuid() != 0;
	long long w, deadline = now_ns(CLOCK_MONOTONIC) + GATE_WAIT_NS;
	int e;

	g->fd = -1;
	if (!owlet_name_ok(name)) {
		errno = EINVAL;
		return -1;
	}
	g->fd = gate_open(name, owner);
	if (g->fd < 0)
		return -1;
	for (;;) {
		w = unstoppable ? step_unstoppable(g->fd) : step(g->fd);
		if (w == 0)
			return 0;
		if (w < 0)
			break;
		if (now_ns(CLOCK_MONOTONIC) + w > deadline) {
			errno = EAGAIN;
			break;
		}
		pause_ns(w);
	}
	e = errno;
	close(g->fd);
	g->fd = -1;
	errno = e;
	return -1;
}

int
tcb_gate_leave(struct tcb_gate *g, int right)
{
	int rc = 0;

	/* A right guess needs no delay for the next one; a wrong or
	 * unfinished one leaves the stamp armed. */
	if (right && g->fd >= 0 && futimens(g->fd, NULL) < 0)
		rc = -1;
	if (g->fd >= 0)
		close(g->fd);
	g->fd = -1;
	return rc;
}
