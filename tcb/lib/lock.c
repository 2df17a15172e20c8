/*
 * Per-user locking: a write lock on the whole of FILE.lock, the file shadow-
 * utils and pam_tcb lock before rewriting /etc/tcb/USER/shadow.  The caller
 * has dropped to the user (tcb_drop_priv) so the lock file, created in the
 * user's own directory, is owned by the user.  There is no global lock:
 * users never wait for each other.
 *
 * Upstream waits in F_SETLKW under a SIGALRM interval timer, which zeroes the
 * caller's ITIMER_REAL and borrows its SIGALRM disposition.  We poll an open
 * file description lock instead, with the same ~15 s limit.  OFD locks and
 * classic fcntl locks conflict with each other, so we still exclude (and are
 * excluded by) Openwall builds of shadow-utils and pam_tcb.  The lock lives
 * in this thread's state (one lock at a time per thread).
 *
 * Once locked, the path must still lead to the file we locked: tcb_unconvert
 * first removes group access to /etc/tcb, then takes and releases every
 * user's lock while it copies that user's entry.  A writer that opened the
 * lock file before that but locks only after tcb_unconvert passed its user
 * would otherwise write a change that is never copied (and then removed
 * with /etc/tcb).  The re-check by path fails for it (EACCES: the caller's
 * fsuid is the user's, without group access), so it fails loudly instead.
 * A lock file replaced meanwhile (ours then guards nothing) is retried.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tcb.h"
#include "export.h"

#define LOCK_WAIT_NS	(15LL * 1000 * 1000 * 1000)
#define LOCK_POLL_NS	(5 * 1000 * 1000)

static __thread int lock_fd = -1;

static long long
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int
wait_for_lock(int fd)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	struct timespec nap = { 0, LOCK_POLL_NS };
	long long deadline = now_ns() + LOCK_WAIT_NS;

	for (;;) {
		if (fcntl(fd, F_OFD_SETLK, &fl) == 0)
			return 0;
		if (errno != EAGAIN && errno != EACCES && errno != EINTR)
			return -1;
		if (now_ns() >= deadline) {
			errno = EINTR;	/* what upstream reports on time-out */
			return -1;
		}
		nanosleep(&nap, NULL);
	}
}

TCB_EXPORT int
lckpwdf_tcb(const char *file)
{
	char path[PATH_MAX];
	struct stat st, now;
	int fd, e, tries = 0;

	if (lock_fd >= 0) {
		errno = EALREADY;
		return -1;
	}
	if (snprintf(path, sizeof(path), "%s.lock", file) >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
again:
	fd = open(path, O_CREAT | O_WRONLY | O_NOCTTY | O_NONBLOCK |
	    O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0) {
		e = errno;
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		e = EINVAL;
		goto fail;
	}
	if (wait_for_lock(fd) < 0) {
		e = errno;
		goto fail;
	}
	if (lstat(path, &now) < 0) {
		e = errno;
		goto fail;
	}
	if (now.st_dev != st.st_dev || now.st_ino != st.st_ino) {
		close(fd);
		if (++tries < 3)
			goto again;
		errno = EAGAIN;
		return -1;
	}
	lock_fd = fd;
	return 0;
fail:
	close(fd);
	errno = e;
	return -1;
}

TCB_EXPORT int
ulckpwdf_tcb(void)
{
	int fd = lock_fd;

	if (fd < 0) {
		errno = ENOLCK;
		return -1;
	}
	lock_fd = -1;
	return close(fd);	/* closing the description releases the lock */
}
