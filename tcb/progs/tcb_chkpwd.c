/*
 * tcb_chkpwd: tell a process whether a password is its own user's.
 *
 * Installed set-gid shadow (in a directory only group chkpwd may enter),
 * run by pam_tcb when the calling process cannot read its own tcb entry,
 * e.g. a screen locker running as the user.  Threat model: the caller is
 * any local user and controls our fds, environment, argv, rlimits and
 * signals.  So: fd 0 must be open for reading and fd 1 for writing, and
 * neither may be a terminal (the protocol is not for people typing
 * guesses); every other fd is closed,
 * the environment is emptied, input is bounded and parsed strictly
 * (chkpwd_request.c), only the account whose uid is our real uid can be
 * checked, and the group privilege is dropped (and the drop verified) as
 * soon as the hash has been read.
 *
 * Guessing is limited to one password per FAIL_DELAY_SEC per user, however
 * many helpers run at once and whether or not they are killed early.  The
 * user's tcb lock serialises the helpers, and the lock file's mtime is a
 * "not before" stamp: before a password is hashed, the stamp is moved
 * FAIL_DELAY_SEC into the future; a right password moves it back to now,
 * a wrong one is answered only after the delay.  A caller that kills a
 * helper as soon as the answer is late (a wrong password) gains nothing:
 * the next helper waits for the stamp first.  The caller cannot move the
 * stamp itself: without group shadow it cannot reach /etc/tcb.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <shadow.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "owlet.h"
#include "tcb.h"
#include "chkpwd_request.h"

#define FAIL_DELAY_SEC	2
#define NSEC		1000000000LL

/* Is FD open in a mode that allows ACC (O_RDONLY or O_WRONLY)? */
static int
fd_usable(int fd, int acc)
{
	int fl = fcntl(fd, F_GETFL);

	return fl >= 0 && ((fl & O_ACCMODE) == acc ||
	    (fl & O_ACCMODE) == O_RDWR);
}

static void
sanitize(void)
{
	/* No caller-chosen locale, library path or TZ reaches us. */
	clearenv();
	umask(077);
	/* 0 and 1 carry the protocol.  For a set-gid program the C library
	 * has already put a write-only /dev/full on a closed 0 and a
	 * read-only /dev/null on a closed 1 or 2; the access modes catch
	 * that, and a closed 2 (not set-gid) gets /dev/null so that nothing
	 * we open later can land on it. */
	if (!fd_usable(0, O_RDONLY) || !fd_usable(1, O_WRONLY))
		_exit(1);
	if (fcntl(2, F_GETFD) < 0 &&
	    open("/dev/null", O_RDWR | O_NOCTTY) != 2)
		_exit(1);
	closefrom(3);
	signal(SIGPIPE, SIG_IGN);
	openlog("tcb_chkpwd", LOG_PID | LOG_NDELAY, LOG_AUTHPRIV);
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

/*
 * The stamp: LOCK's file (held by us), opened again for its mtime.  It
 * must be the user's own regular file; anything else fails closed.
 */
static int
stamp_open(const char *lock, uid_t uid)
{
	struct stat st;
	int fd;

	fd = open(lock, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
	    O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != uid ||
	    st.st_nlink != 1) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

/* Wait until the stamp has passed (never longer than one delay, whatever
 * the clock did), then move it FAIL_DELAY_SEC ahead. */
static int
stamp_wait_and_arm(int fd)
{
	struct timespec ts[2];
	struct stat st;
	long long t, now;

	if (fstat(fd, &st) < 0)
		return -1;
	t = st.st_mtim.tv_sec * NSEC + st.st_mtim.tv_nsec;
	now = now_ns(CLOCK_REALTIME);
	if (t > now)
		pause_ns(t - now < FAIL_DELAY_SEC * NSEC ? t - now :
		    FAIL_DELAY_SEC * NSEC);
	clock_gettime(CLOCK_REALTIME, &ts[1]);
	ts[1].tv_sec += FAIL_DELAY_SEC;
	ts[0].tv_sec = 0;
	ts[0].tv_nsec = UTIME_OMIT;	/* atime */
	return futimens(fd, ts);
}

static void
stamp_clear(int fd)
{
	if (futimens(fd, NULL) < 0)
		syslog(LOG_ERR, "cannot reset the delay stamp: %m");
}

static int
check(const struct chkpwd_request *r, uid_t uid)
{
	char file[sizeof(TCB_DIR) + OWLET_NAME_MAX + 16];
	char lock[sizeof(file) + 8];
	struct passwd *pw;
	struct spwd *sp;
	char *hash = NULL;
	int ok = 0, stamp;

	pw = getpwnam(r->name);
	if (!pw || pw->pw_uid != uid) {
		syslog(LOG_NOTICE, "uid %u may not check user %s",
		    (unsigned)uid, r->name);
		drop_group();
		return 0;
	}
	snprintf(file, sizeof(file), TCB_FMT, r->name);
	snprintf(lock, sizeof(lock), TCB_FMT ".lock", r->name);
	if (lckpwdf_tcb(file) < 0) {
		syslog(LOG_NOTICE, "cannot lock %s: %m", file);
		drop_group();
		return 0;
	}
	stamp = stamp_open(lock, uid);
	if (stamp < 0 || stamp_wait_and_arm(stamp) < 0) {
		syslog(LOG_ERR, "cannot use %s as delay stamp: %m", lock);
		drop_group();
		goto fail;
	}
	if (strcmp(pw->pw_passwd, "x") == 0) {
		sp = getspnam(r->name);
		if (sp) {
			hash = strdup(sp->sp_pwdp);
			explicit_bzero(sp->sp_pwdp, strlen(sp->sp_pwdp));
		} else {
			syslog(LOG_ALERT, "no shadow entry for %s", r->name);
		}
	} else {
		hash = strdup(pw->pw_passwd);
	}
	endspent();
	drop_group();
	if (hash && !*hash)
		ok = r->nullok;
	else if (hash)
		ok = owlet_pass_matches(r->pass, hash) == 1;
	if (hash) {
		explicit_bzero(hash, strlen(hash));
		free(hash);
	}
	if (ok) {
		stamp_clear(stamp);
		goto out;
	}
fail:
	syslog(LOG_NOTICE, "authentication failure for %s (uid=%u)",
	    r->name, (unsigned)uid);
	pause_ns(FAIL_DELAY_SEC * NSEC);	/* while holding the lock */
out:
	if (stamp >= 0)
		close(stamp);
	ulckpwdf_tcb();
	return ok;
}

int
main(void)
{
	static char buf[CHKPWD_REQUEST_MAX + 1];
	struct chkpwd_request r;
	enum chkpwd_req_status st;
	uid_t uid = getuid();
	ssize_t n;
	int ok = 0, reply;

	sanitize();
	if (isatty(0) || isatty(1)) {
		syslog(LOG_NOTICE, "inappropriate use by uid %u",
		    (unsigned)uid);
		drop_group();
		pause_ns(FAIL_DELAY_SEC * NSEC);
		return 1;
	}
	/* One byte more than the longest request, to see an overlong one. */
	n = owlet_read_full(0, buf, sizeof(buf));
	st = n < 0 ? CHKPWD_REQ_SHORT :
	    chkpwd_request_parse(buf, (size_t)n, &r);
	if (st != CHKPWD_REQ_OK) {
		syslog(LOG_NOTICE, "malformed request from uid %u: %s",
		    (unsigned)uid, chkpwd_request_error(st));
		drop_group();
		pause_ns(FAIL_DELAY_SEC * NSEC);
	} else {
		ok = check(&r, uid);
	}
	explicit_bzero(buf, sizeof(buf));
	reply = ok ? TCB_MAGIC : 1;
	if (owlet_write_full(1, &reply, sizeof(reply)) < 0)
		return 1;
	return ok ? 0 : 1;
}
