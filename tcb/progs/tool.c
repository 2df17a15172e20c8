#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "owlet.h"
#include "tool.h"

static sigset_t fatal_signals;

void
tool_start(void)
{
	if (getuid() != 0 || geteuid() != 0)
		errx(1, "only root can do this");
	umask(077);
	/*
	 * A signal arriving midway must not leave a half-built tree or a
	 * locked-out /etc/tcb: block the usual ones and poll for them at
	 * safe points (tool_interrupted), where the tool cleans up.
	 */
	sigemptyset(&fatal_signals);
	sigaddset(&fatal_signals, SIGINT);
	sigaddset(&fatal_signals, SIGTERM);
	sigaddset(&fatal_signals, SIGHUP);
	sigaddset(&fatal_signals, SIGQUIT);
	sigprocmask(SIG_BLOCK, &fatal_signals, NULL);
}

int
tool_interrupted(void)
{
	sigset_t pending;
	int i;

	if (sigpending(&pending) < 0)
		return 0;
	for (i = 1; i < NSIG; i++)
		if (sigismember(&fatal_signals, i) && sigismember(&pending, i)) {
			warnx("interrupted by signal %d, undoing", i);
			return 1;
		}
	return 0;
}

const char *
tool_path(const struct tool *t, const char *etcrel)
{
	static char buf[2][PATH_MAX];
	static int which;

	which ^= 1;
	snprintf(buf[which], sizeof(buf[which]), "%s/etc/%s", t->root, etcrel);
	return buf[which];
}

int
tool_lock_fd(const char *arg)
{
	unsigned int v;

	if (owlet_parse_id(arg, &v) < 0 || v < 3 || v > INT_MAX)
		errx(2, "--lock-fd %s: not a file descriptor number", arg);
	return (int)v;
}

int
tool_open(struct tool *t, const char *root, int lockfd)
{
	size_t len;

	t->root = root ? root : "";
	len = strlen(t->root);
	while (len > 0 && t->root[len - 1] == '/')	/* "DIR/" and "/" */
		len--;
	static char rootbuf[PATH_MAX];
	snprintf(rootbuf, sizeof(rootbuf), "%.*s", (int)len, t->root);
	t->root = rootbuf;
	t->rootfd = t->etcfd = t->lockfd = -1;

	t->rootfd = open(*t->root ? t->root : "/", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC);
	if (t->rootfd < 0) {
		warn("%s", *t->root ? t->root : "/");
		return -1;
	}
	t->etcfd = owlet_open_dir(t->rootfd, "etc");
	if (t->etcfd < 0) {
		warn("%s/etc", t->root);
		return -1;
	}
	t->lockfd = lockfd >= 0 ? owlet_pwlock_inherit(t->etcfd, lockfd) :
	    owlet_pwlock(t->etcfd);
	if (t->lockfd < 0) {
		if (errno == EINVAL)
			warnx("cannot lock %s: not a regular file",
			    tool_path(t, ".pwd.lock"));
		else if (errno == EBADF)
			warnx("--lock-fd %d: not an open, writable %s", lockfd,
			    tool_path(t, ".pwd.lock"));
		else
			warn("cannot lock %s", tool_path(t, ".pwd.lock"));
		return -1;
	}
	return 0;
}

void
tool_close(struct tool *t)
{
	if (t->lockfd >= 0)
		close(t->lockfd);
	if (t->etcfd >= 0)
		close(t->etcfd);
	if (t->rootfd >= 0)
		close(t->rootfd);
}
