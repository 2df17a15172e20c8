/*
 * The global lock shared with shadow-utils and glibc's lckpwdf(3): a write
 * lock on the whole of ETC/.pwd.lock.  We poll a non-blocking lock instead of
 * arming SIGALRM as glibc does, so the caller's timers and signal handlers
 * are left alone.
 *
 * Open file description (OFD) locks, not classic ones: the two kinds
 * conflict with each other, so lckpwdf() callers (pam_unix, shadow-utils)
 * still exclude us and we them; but an OFD lock belongs to the open file
 * description, not to the process.  That lets control hold the lock across
 * a whole conversion and hand it to tcb_convert/tcb_unconvert (the child
 * inherits the descriptor: owlet_pwlock_inherit), and closing some other fd
 * of the file does not drop it as it would a classic lock.
 *
 * The root may be hostile (--root on an image somebody else prepared): the
 * lock file is opened O_NOFOLLOW|O_NONBLOCK (a FIFO must not hang root's
 * tools) and must be a regular file, else EINVAL.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "owlet.h"

#define PWLOCK_WAIT_MS	15000

int
owlet_lock_wait(int fd, short type, unsigned int ms)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET };
	struct timespec nap = { 0, 10 * 1000 * 1000 };
	unsigned int waited = 0;
	int e;

	while (fcntl(fd, F_OFD_SETLK, &fl) < 0) {
		e = errno;
		if ((e != EACCES && e != EAGAIN && e != EINTR) ||
		    waited >= ms) {
			errno = e == EACCES ? EAGAIN : e;
			return -1;
		}
		nanosleep(&nap, NULL);
		waited += 10;
	}
	return 0;
}

/* ETC/.pwd.lock, opened for locking (creating it as lckpwdf does). */
static int
open_lockfile(int etcfd, struct stat *st)
{
	int fd, e;

	fd = openat(etcfd, ".pwd.lock", O_WRONLY | O_CREAT | O_NOFOLLOW |
	    O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0600);
	if (fd < 0) {
		if (errno == ENXIO)	/* a FIFO nobody reads */
			errno = EINVAL;
		return -1;
	}
	if (fstat(fd, st) < 0)
		e = errno;
	else if (!S_ISREG(st->st_mode))
		e = EINVAL;
	else
		return fd;
	close(fd);
	errno = e;
	return -1;
}

int
owlet_pwlock(int etcfd)
{
	struct stat st;
	int fd, e;

	fd = open_lockfile(etcfd, &st);
	if (fd < 0)
		return -1;
	if (owlet_lock_wait(fd, F_WRLCK, PWLOCK_WAIT_MS) < 0) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/*
 * FD was inherited from a caller that says it holds ETC/.pwd.lock on it.
 * Trust nothing: FD must be the same file as ETC/.pwd.lock, and we lock it
 * ourselves.  Locking the description the caller locked succeeds at once
 * (a lock never conflicts with its own owner); any other FD simply waits
 * for the lock like owlet_pwlock.  Returns FD (now close-on-exec) or -1.
 */
int
owlet_pwlock_inherit(int etcfd, int fd)
{
	struct stat st, own;
	int fl;

	if (fstatat(etcfd, ".pwd.lock", &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    fstat(fd, &own) < 0)
		return -1;
	fl = fcntl(fd, F_GETFL);
	if (!S_ISREG(own.st_mode) || own.st_dev != st.st_dev ||
	    own.st_ino != st.st_ino || fl < 0 ||
	    (fl & O_ACCMODE) == O_RDONLY) {
		errno = EBADF;
		return -1;
	}
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0 ||
	    owlet_lock_wait(fd, F_WRLCK, PWLOCK_WAIT_MS) < 0)
		return -1;
	return fd;
}
