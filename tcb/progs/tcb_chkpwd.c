/*
 * tcb_chkpwd: tell a process whether a password is its own user's.
 *
 * Installed set-gid shadow (in a directory only group chkpwd may enter),
 * run by pam_tcb when the calling process cannot read its own tcb entry,
 * e.g. a screen locker running as the user.  Threat model: the caller is
 * any local user and controls our fds, environment, argv, rlimits and
 * signals.  So: fds 0-2 must be pipes we were given (a terminal is refused,
 * the protocol is not for people), every other fd is closed, the
 * environment is emptied, input is bounded, only the account whose uid is
 * our real uid can be checked, the group privilege is dropped (and the drop
 * verified) as soon as the hash has been read, and every failure costs a
 * fixed delay served while holding the user's tcb lock, so one user gets
 * at most one guess per delay however many helpers they start.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <shadow.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "owlet.h"
#include "tcb.h"
#include "chkpwd.h"

#define FAIL_DELAY_SEC	2

struct request {
	int nullok;
	char *name, *pass;
	char buf[CHKPWD_REQUEST_MAX + 1];
};

static void
sanitize(void)
{
	int fd;

	/* No caller-chosen locale, library path or TZ reaches us. */
	clearenv();
	umask(077);
	for (fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0)
			_exit(1);	/* the protocol needs 0 and 1 */
	closefrom(3);
	signal(SIGPIPE, SIG_IGN);
	openlog("tcb_chkpwd", LOG_PID | LOG_NDELAY, LOG_AUTHPRIV);
}

/* Parse the request: flag word, name NUL, password NUL, nothing more. */
static int
read_request(struct request *r)
{
	ssize_t n = owlet_read_full(0, r->buf, sizeof(r->buf));
	char *end, *p;

	if (n < 0 || n == (ssize_t)sizeof(r->buf) || n < CHKPWD_FLAG_LEN + 2)
		return -1;
	end = r->buf + n;
	r->buf[CHKPWD_FLAG_LEN - 1] = '\0';
	r->nullok = strcmp(r->buf, "nullok") == 0;
	r->name = r->buf + CHKPWD_FLAG_LEN;
	p = memchr(r->name, '\0', (size_t)(end - r->name));
	if (!p || p + 1 >= end)
		return -1;
	r->pass = p + 1;
	p = memchr(r->pass, '\0', (size_t)(end - r->pass));
	if (!p || p + 1 != end)
		return -1;
	return owlet_name_ok(r->name) ? 0 : -1;
}

/* Give up the set-gid group for good and prove it. */
static void
drop_group(void)
{
	gid_t g = getgid(), rg, eg, sg;

	if (setresgid(g, g, g) < 0 || getresgid(&rg, &eg, &sg) < 0 ||
	    rg != g || eg != g || sg != g) {
		syslog(LOG_CRIT, "cannot drop group privileges");
		_exit(1);
	}
}

static int
check(const struct request *r, uid_t uid)
{
	char lock[sizeof(TCB_DIR) + OWLET_NAME_MAX + 16];
	struct passwd *pw;
	struct spwd *sp;
	char *hash = NULL;
	int ok = 0;

	pw = getpwnam(r->name);
	if (!pw || pw->pw_uid != uid) {
		syslog(LOG_NOTICE, "uid %u may not check user %s",
		    (unsigned)uid, r->name);
		drop_group();
		return 0;
	}
	snprintf(lock, sizeof(lock), TCB_FMT, r->name);
	if (lckpwdf_tcb(lock) < 0) {
		syslog(LOG_NOTICE, "cannot lock %s: %m", lock);
		drop_group();
		return 0;
	}
	if (strcmp(pw->pw_passwd, "x") == 0) {
		sp = getspnam(r->name);
		if (sp)
			hash = strdup(sp->sp_pwdp);
		else
			syslog(LOG_ALERT, "no shadow entry for %s", r->name);
	} else {
		hash = strdup(pw->pw_passwd);
	}
	endspent();
	drop_group();
	if (hash && !*hash)
		ok = r->nullok;
	else if (hash)
		ok = owlet_pass_matches(r->pass, hash) == 1;
	if (!ok) {
		syslog(LOG_NOTICE, "authentication failure for %s (uid=%u)",
		    r->name, (unsigned)uid);
		sleep(FAIL_DELAY_SEC);	/* while holding the lock */
	}
	ulckpwdf_tcb();
	if (hash) {
		explicit_bzero(hash, strlen(hash));
		free(hash);
	}
	return ok;
}

int
main(void)
{
	static struct request r;
	uid_t uid = getuid();
	int ok = 0, reply;

	sanitize();
	if (isatty(0) || isatty(1)) {
		syslog(LOG_NOTICE, "inappropriate use by uid %u",
		    (unsigned)uid);
		drop_group();
		sleep(FAIL_DELAY_SEC);
		return 1;
	}
	if (read_request(&r) < 0) {
		syslog(LOG_NOTICE, "malformed request from uid %u",
		    (unsigned)uid);
		drop_group();
		sleep(FAIL_DELAY_SEC);
	} else {
		ok = check(&r, uid);
	}
	explicit_bzero(&r, sizeof(r));
	reply = ok ? TCB_MAGIC : 1;
	owlet_write_full(1, &reply, sizeof(reply));
	return ok ? 0 : 1;
}
