/*
 * The global lock shared with shadow-utils and glibc's lckpwdf(3): a write
 * lock on the whole of ETC/.pwd.lock.  We poll a non-blocking lock instead of
 * arming SIGALRM as glibc does, so the caller's timers and signal handlers
 * are left alone.  Classic fcntl locks, so lckpwdf() callers exclude us.
 */
#include <errno.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "owlet.h"

#define PWLOCK_WAIT_MS	15000

int
owlet_pwlock(int etcfd)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	struct timespec nap = { 0, 10 * 1000 * 1000 };
	int fd, waited = 0, e;

	fd = openat(etcfd, ".pwd.lock", O_WRONLY | O_CREAT | O_NOFOLLOW |
	    O_CLOEXEC | O_NOCTTY, 0600);
	if (fd < 0)
		return -1;
	while (fcntl(fd, F_SETLK, &fl) < 0) {
		e = errno;
		if ((e != EACCES && e != EAGAIN && e != EINTR) ||
		    waited >= PWLOCK_WAIT_MS) {
			close(fd);
			errno = e == EACCES ? EAGAIN : e;
			return -1;
		}
		nanosleep(&nap, NULL);
		waited += 10;
	}
	return fd;
}
