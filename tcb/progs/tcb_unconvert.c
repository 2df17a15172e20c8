/*
 * tcb_unconvert: rebuild /etc/shadow from /etc/tcb.
 *
 * The new shadow file is written in passwd(5) order to a temp file, fsynced
 * and renamed over ETC/shadow (root:shadow 0640): the old file or the new
 * one, never neither.  /etc/tcb is only read.
 *
 * No password change may be lost: a change made while we run either lands
 * in the new /etc/shadow or fails loudly.  The writers (pam_tcb and chage
 * through owlet_edit_tcb, Debian's shadow-utils --with-tcb, tcb_chkpwd's
 * stamp) all run with the user's fsuid, without CAP_DAC_OVERRIDE, and all
 * take the user's lock through lckpwdf_tcb(), which opens
 * /etc/tcb/USER/shadow.lock BY PATH and, once locked, checks that the path
 * still reaches the file it locked (tcb/lib/lock.c).  So:
 *  1. lock_out removes group access to /etc/tcb: from then on no writer can
 *     open or re-check any path under it (a writer's open directory fd
 *     does not help it: the lock must be taken by path and re-checked);
 *  2. for each user, we take and release a read lock on the existing
 *     USER/shadow.lock (never creating one) around reading the entry.  A
 *     writer holding the lock is waited for and its result read; one that
 *     locks later fails its re-check and reports an error; a missing lock
 *     file means nobody holds one (creating it needs the path).
 * A user who keeps their lock held (a stopped passwd) makes us fail after
 * 15 s, naming the user: nothing is lost then either.
 *
 * On success /etc/tcb keeps its group access removed: it is now a stale
 * copy, and giving writers back their way in would let a change land there
 * instead of in /etc/shadow (control removes /etc/tcb next).  On every
 * failure the mode is restored, including SIGINT/SIGTERM/SIGHUP/SIGQUIT
 * (blocked and polled).
 *
 * The tcb files sit in directories their users own: the directory is
 * opened O_NOFOLLOW, the lock file O_NOFOLLOW|O_NONBLOCK and must be a
 * regular file, and the shadow file must be a regular single-link file
 * owned by that user, holding exactly one valid line for that user.  A
 * passwd user with password "x" and no tcb entry, or a tcb entry with no
 * passwd user, is reported by name; without --force nothing is written.
 */
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "owlet.h"
#include "tool.h"

#define USER_LOCK_WAIT_MS	15000	/* as lckpwdf_tcb waits */

struct unconv {
	struct tool t;
	int force;
	int tcbfd;
	mode_t tcbmode;
	int locked_out;
	struct owlet_replace r;
	struct owlet_wbuf w;
	unsigned long copied, missing, users;
};

static void
usage(void)
{
	fprintf(stderr,
	    "usage: tcb_unconvert [--root DIR] [--lock-fd N] [--force]\n");
	exit(2);
}

/* NAME's lock, held while we read (see the top comment): the fd to close,
 * -2 when there is no lock file, -1 on error (printed). */
static int
lock_user(struct unconv *u, int dirfd, const char *name)
{
	char what[OWLET_NAME_MAX + 24];
	struct stat st;
	int fd;

	snprintf(what, sizeof(what), "tcb/%s/shadow.lock", name);
	fd = openat(dirfd, "shadow.lock", O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		if (errno == ENOENT)
			return -2;
		warn("%s", tool_path(&u->t, what));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		warnx("%s: not a regular file", tool_path(&u->t, what));
		close(fd);
		return -1;
	}
	if (owlet_lock_wait(fd, F_RDLCK, USER_LOCK_WAIT_MS) < 0) {
		if (errno == EAGAIN)
			warnx("%s: still locked after %d s (a password change "
			    "of %s in progress?)", tool_path(&u->t, what),
			    USER_LOCK_WAIT_MS / 1000, name);
		else
			warn("%s", tool_path(&u->t, what));
		close(fd);
		return -1;
	}
	return fd;
}

/* Copy NAME's tcb line to the new shadow file; 1 copied, 0 absent, -1 bad. */
static int
copy_entry(struct unconv *u, const char *name, uid_t uid)
{
	char file[OWLET_NAME_MAX + 8], data[OWLET_TCB_FILE_MAX + 1], what[96];
	size_t nlen = strlen(name), len;
	struct stat st;
	ssize_t n;
	int dirfd, lockfd, fd = -1, rc = -1;

	snprintf(file, sizeof(file), "%s/shadow", name);
	snprintf(what, sizeof(what), "tcb/%s", file);
	dirfd = owlet_open_dir(u->tcbfd, name);
	if (dirfd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		warn("%s/%s", tool_path(&u->t, "tcb"), name);
		return -1;
	}
	lockfd = lock_user(u, dirfd, name);
	if (lockfd == -1)
		goto out;
	fd = owlet_open_trusted(dirfd, "shadow", OWLET_TCB_FILE_MAX, &st);
	if (fd < 0) {
		if (errno == ENOENT)
			rc = 0;
		else if (errno == ELOOP || errno == EINVAL)
			warnx("%s: not a regular file with one link",
			    tool_path(&u->t, what));
		else
			warn("%s", tool_path(&u->t, what));
		goto out;
	}
	if (st.st_uid != uid) {
		warnx("%s: owned by uid %u, not by %s (uid %u)",
		    tool_path(&u->t, what), (unsigned)st.st_uid, name,
		    (unsigned)uid);
		goto out;
	}
	n = owlet_read_full(fd, data, sizeof(data));
	if (n < 0) {
		warn("%s", tool_path(&u->t, what));
		goto out;
	}
	len = (size_t)n;
	if (len == 0 || data[len - 1] != '\n' ||
	    memchr(data, '\n', len - 1) || len - 1 <= nlen ||
	    memcmp(data, name, nlen) != 0 || data[nlen] != ':' ||
	    owlet_shadow_check(data, len - 1) < 0) {
		warnx("%s: not exactly one valid shadow line for %s",
		    tool_path(&u->t, what), name);
		goto out;
	}
	owlet_wbuf_put(&u->w, data, len);
	u->copied++;
	rc = 1;
out:
	explicit_bzero(data, sizeof(data));
	if (fd >= 0)
		close(fd);
	if (lockfd >= 0)
		close(lockfd);	/* releases the lock: the entry is copied */
	close(dirfd);
	return rc;
}

static int
copy_all(struct unconv *u)
{
	struct owlet_lines lr;
	char *line, *name, *pw;
	size_t len;
	uid_t uid;
	int fd, rc, bad = 0;

	fd = openat(u->t.etcfd, "passwd", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		warn("%s", tool_path(&u->t, "passwd"));
		return -1;
	}
	owlet_lines_init(&lr, fd);
	while ((rc = owlet_lines_next(&lr, &line, &len)) > 0) {
		if ((lr.lineno & 1023) == 0 && tool_interrupted()) {
			bad = 1;
			break;
		}
		if (line[0] == '+' || line[0] == '-')
			continue;
		if (owlet_passwd_parse(line, &name, &pw, &uid) < 0) {
			warnx("%s:%lu: malformed entry",
			    tool_path(&u->t, "passwd"), lr.lineno);
			bad = 1;
			break;
		}
		u->users++;
		switch (copy_entry(u, name, uid)) {
		case -1:
			bad = 1;
			break;
		case 0:
			if (strcmp(pw, "x") != 0)
				break;	/* password kept in passwd itself */
			warnx("%s:%lu: user %s has no tcb entry",
			    tool_path(&u->t, "passwd"), lr.lineno, name);
			u->missing++;
			break;
		}
		if (bad)
			break;
	}
	if (rc < 0) {
		if (errno == E2BIG)
			warnx("%s:%lu: line too long",
			    tool_path(&u->t, "passwd"), lr.lineno);
		else
			warn("%s:%lu", tool_path(&u->t, "passwd"), lr.lineno);
	}
	close(fd);
	return rc < 0 || bad ? -1 : 0;
}

/*
 * Orphan check, error path only: the count of user entries in /etc/tcb
 * differs from the count copied, so name the ones passwd lacks.  A set of
 * 64-bit name hashes (8 bytes per passwd user) finds them in one pass.
 */
static uint64_t
name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ULL;
	return h | 1;	/* 0 marks an empty slot */
}

static int
report_orphans(struct unconv *u)
{
	struct owlet_lines lr;
	struct dirent *de;
	char *line, *name, *pw;
	size_t len, size = 16, i;
	uint64_t *set, h;
	uid_t uid;
	DIR *d;
	int fd, found = 0;

	while (size < u->users * 2)
		size *= 2;
	set = calloc(size, sizeof(*set));
	fd = openat(u->t.etcfd, "passwd", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (!set || fd < 0) {
		warn("cannot name the orphaned tcb entries");
		free(set);
		if (fd >= 0)
			close(fd);
		return 0;
	}
	owlet_lines_init(&lr, fd);
	while (owlet_lines_next(&lr, &line, &len) > 0)
		if (owlet_passwd_parse(line, &name, &pw, &uid) == 0) {
			h = name_hash(name);
			for (i = h & (size - 1); set[i] && set[i] != h;
			    i = (i + 1) & (size - 1))
				;
			set[i] = h;
		}
	close(fd);
	d = owlet_opendir_at(u->tcbfd);
	while (d && (de = readdir(d))) {
		if (!owlet_name_ok(de->d_name))
			continue;
		h = name_hash(de->d_name);
		for (i = h & (size - 1); set[i] && set[i] != h;
		    i = (i + 1) & (size - 1))
			;
		if (!set[i]) {
			warnx("%s/%s: no such user in %s",
			    tool_path(&u->t, "tcb"), de->d_name,
			    tool_path(&u->t, "passwd"));
			found++;
		}
	}
	if (d)
		closedir(d);
	free(set);
	return found;
}

static unsigned long
count_tcb_users(struct unconv *u)
{
	struct dirent *de;
	unsigned long n = 0;
	DIR *d = owlet_opendir_at(u->tcbfd);

	if (!d)
		return (unsigned long)-1;
	while ((de = readdir(d)))
		if (owlet_name_ok(de->d_name))
			n++;
	closedir(d);
	return n;
}

/* Remove group access to /etc/tcb for the run (see the top comment). */
static int
lock_out(struct unconv *u)
{
	struct stat st;

	u->tcbfd = owlet_open_dir(u->t.etcfd, "tcb");
	if (u->tcbfd < 0 || fstat(u->tcbfd, &st) < 0) {
		warn("%s", tool_path(&u->t, "tcb"));
		return -1;
	}
	if (st.st_uid != 0) {
		warnx("%s: not owned by root", tool_path(&u->t, "tcb"));
		return -1;
	}
	u->tcbmode = st.st_mode & 07777;
	if (fchmod(u->tcbfd, u->tcbmode & ~(mode_t)070) < 0) {
		warn("%s", tool_path(&u->t, "tcb"));
		return -1;
	}
	u->locked_out = 1;
	return 0;
}

/*
 * Give /etc/tcb its mode back (failure only: see the top comment).  Failing
 * here would leave password changes impossible, so try twice, and make the
 * failure the tool's exit status.
 */
static int
unlock_out(struct unconv *u)
{
	if (!u->locked_out)
		return 0;
	u->locked_out = 0;
	if (fchmod(u->tcbfd, u->tcbmode) == 0 ||
	    fchmod(u->tcbfd, u->tcbmode) == 0)
		return 0;
	warn("cannot restore mode %04o of %s; run: chmod %04o %s",
	    (unsigned)u->tcbmode, tool_path(&u->t, "tcb"),
	    (unsigned)u->tcbmode, tool_path(&u->t, "tcb"));
	return -1;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "root", required_argument, NULL, 'R' },
		{ "lock-fd", required_argument, NULL, 'L' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static struct unconv u = { .tcbfd = -1, .r = { .fd = -1 } };
	const char *root = NULL;
	unsigned long in_tcb;
	gid_t shadow_gid;
	int ch, rc, ok = 0, started = 0, lockfd = -1;

	while ((ch = getopt_long(argc, argv, "R:fh", opts, NULL)) != -1) {
		switch (ch) {
		case 'R': root = optarg; break;
		case 'L': lockfd = tool_lock_fd(optarg); break;
		case 'f': u.force = 1; break;
		default: usage();
		}
	}
	if (optind != argc)
		usage();
	tool_start();
	if (tool_open(&u.t, root, lockfd) < 0)
		goto out;
	switch (owlet_group_gid(u.t.etcfd, "shadow", &shadow_gid)) {
	case 1:
		break;
	case 0:
		warnx("%s: no group shadow", tool_path(&u.t, "group"));
		goto out;
	default:
		warn("%s", tool_path(&u.t, "group"));
		goto out;
	}
	if (lock_out(&u) < 0)
		goto out;
	if (owlet_replace_begin(&u.r, u.t.etcfd, "shadow", 0640, 0,
	    shadow_gid) < 0) {
		warn("cannot create a temporary file in %s/etc", u.t.root);
		goto out;
	}
	started = 1;
	owlet_wbuf_init(&u.w, u.r.fd);
	if (copy_all(&u) < 0)
		goto out;
	in_tcb = count_tcb_users(&u);
	if (in_tcb == (unsigned long)-1) {
		warn("%s", tool_path(&u.t, "tcb"));
		goto out;
	}
	if (in_tcb < u.copied) {
		warnx("%s: duplicate users", tool_path(&u.t, "passwd"));
		goto out;
	}
	if ((in_tcb > u.copied && report_orphans(&u) > 0 && !u.force) ||
	    (u.missing > 0 && !u.force)) {
		warnx("nothing written; fix the entries above or use --force");
		goto out;
	}
	if (tool_interrupted())
		goto out;
	if (owlet_wbuf_flush(&u.w) < 0) {
		warn("cannot write %s", tool_path(&u.t, "shadow"));
		goto out;
	}
	started = 0;
	rc = owlet_replace_commit(&u.r);
	if (rc < 0) {
		warn("cannot write %s", tool_path(&u.t, "shadow"));
		goto out;
	}
	if (rc > 0)
		warn("fsync %s/etc", u.t.root);
	ok = 1;
out:
	if (started)
		owlet_replace_abort(&u.r);
	explicit_bzero(u.w.buf, sizeof(u.w.buf));
	if (!ok && unlock_out(&u) < 0)
		ok = 0;
	if (u.tcbfd >= 0)
		close(u.tcbfd);
	tool_close(&u.t);
	return ok ? 0 : 1;
}
