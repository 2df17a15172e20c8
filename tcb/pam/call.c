#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include <security/pam_modules.h>

#include "owlet.h"
#include "pam_tcb.h"

int
tcb_call(const struct tcb_opts *o, int (*fn)(void *), void *arg)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL }, old;
	int fds[2], result = PAM_ABORT, status;
	pid_t pid;

	if (!o->fork)
		return fn(arg);
	if (pipe2(fds, O_CLOEXEC) < 0)
		return PAM_ABORT;
	/* The application may reap children itself; ours must be ours. */
	sigaction(SIGCHLD, &dfl, &old);
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		result = fn(arg);
		owlet_write_full(fds[1], &result, sizeof(result));
		_exit(0);
	}
	close(fds[1]);
	if (pid > 0) {
		if (owlet_read_full(fds[0], &result, sizeof(result)) !=
		    sizeof(result))
			result = PAM_ABORT;
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			result = PAM_ABORT;
	}
	close(fds[0]);
	sigaction(SIGCHLD, &old, NULL);
	return result;
}
