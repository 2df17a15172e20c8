/*
 * Start-up of a program that a less trusted user runs with privileges
 * (set-gid tcb_chkpwd and chage) or that root runs with whatever the
 * caller left behind (control).
 *
 * Threat model: the caller controls our fds, environment, umask, signal
 * dispositions and rlimits.  A closed 0, 1 or 2 would be taken by our next
 * open() and receive our output or a file's contents (glibc fills them
 * for set-ID programs, with /dev/full and /dev/null, but not for root
 * running us directly); an inherited fd >= 3 may be a file or socket the
 * caller wants us to leak into a child; the environment carries locale,
 * TZ and the like; a small RLIMIT_FSIZE or a dead reader would kill us
 * half-way through a write instead of letting us report the error.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "owlet.h"

/* Is FD open in a mode that allows ACC (O_RDONLY or O_WRONLY)? */
static int
fd_usable(int fd, int acc)
{
	int fl = fcntl(fd, F_GETFL);

	return fl >= 0 && ((fl & O_ACCMODE) == acc ||
	    (fl & O_ACCMODE) == O_RDWR);
}

int
owlet_start(unsigned flags, mode_t mask)
{
	int fd;

	/* A pipe protocol on 0 and 1: /dev/full on 0 or a read-only
	 * /dev/null on 1 (glibc's fillers) fail the access-mode check. */
	if ((flags & OWLET_START_PROTO) &&
	    (!fd_usable(0, O_RDONLY) || !fd_usable(1, O_WRONLY)))
		return -1;
	for (fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 &&
		    open("/dev/null", O_RDWR | O_NOCTTY) != fd)
			return -1;
	umask(mask);
	if (flags & OWLET_START_ROOT_TOOL)
		return 0;
	closefrom(3);
	clearenv();
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
	return 0;
}

int
owlet_drop_group(void)
{
	gid_t g = getgid(), rg, eg, sg;

	if (setresgid(g, g, g) < 0 || getresgid(&rg, &eg, &sg) < 0 ||
	    rg != g || eg != g || sg != g)
		return -1;
	return 0;
}
