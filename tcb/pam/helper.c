/*
 * Running tcb_chkpwd for a caller that cannot read its own tcb entry (a
 * screen locker running as the user, without group shadow).  The helper is
 * set-gid shadow and checks only the account of its real uid.  The request
 * travels over a pipe, never argv or the environment; the helper gets an
 * empty environment and only fds 0-2.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>
#include <security/pam_ext.h>

#include "owlet.h"
#include "pam_tcb.h"
#include "chkpwd.h"

static void
run_helper(const char *path, int in, int out)
{
	static char *const env[] = { NULL };
	char *const args[] = { (char *)PAM_TCB_HELPER, NULL };

	if (dup2(in, 0) < 0 || dup2(out, 1) < 0)
		_exit(1);
	if (in > 1)
		close(in);
	if (out > 1)
		close(out);
	closefrom(3);
	execve(path, args, env);
	_exit(1);
}

int
tcb_helper_verify(pam_handle_t *pamh, const struct tcb_opts *o,
    const char *name, const char *pass)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	struct sigaction old_pipe, old_chld;
	char req[CHKPWD_REQUEST_MAX];
	size_t nlen = strlen(name), plen = strlen(pass), len;
	int to[2] = { -1, -1 }, from[2] = { -1, -1 }, reply = 0, status = 1;
	int rc = PAM_AUTH_ERR;
	pid_t pid;

	if (nlen > OWLET_NAME_MAX || plen > CHKPWD_PASS_MAX)
		return PAM_AUTH_ERR;
	memset(req, 0, CHKPWD_FLAG_LEN);
	memcpy(req, o->nullok ? "nullok" : "nonull", 6);
	memcpy(req + CHKPWD_FLAG_LEN, name, nlen + 1);
	memcpy(req + CHKPWD_FLAG_LEN + nlen + 1, pass, plen + 1);
	len = CHKPWD_FLAG_LEN + nlen + 1 + plen + 1;

	if (pipe2(to, O_CLOEXEC) < 0 || pipe2(from, O_CLOEXEC) < 0)
		goto out;
	sigaction(SIGPIPE, &ign, &old_pipe);
	sigaction(SIGCHLD, &dfl, &old_chld);
	pid = fork();
	if (pid == 0)
		run_helper(o->helper, to[0], from[1]);
	close(to[0]);
	close(from[1]);
	to[0] = from[1] = -1;
	if (pid > 0) {
		owlet_write_full(to[1], req, len);
		close(to[1]);
		to[1] = -1;
		if (owlet_read_full(from[0], &reply, sizeof(reply)) !=
		    sizeof(reply))
			reply = 0;
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
		    reply == TCB_MAGIC)
			rc = PAM_SUCCESS;
	} else {
		pam_syslog(pamh, LOG_CRIT, "fork: %m");
	}
	sigaction(SIGPIPE, &old_pipe, NULL);
	sigaction(SIGCHLD, &old_chld, NULL);
out:
	explicit_bzero(req, sizeof(req));
	for (int i = 0; i < 2; i++) {
		if (to[i] >= 0)
			close(to[i]);
		if (from[i] >= 0)
			close(from[i]);
	}
	return rc;
}
