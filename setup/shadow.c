/*
 * Shadow entries of the root being set up, in whichever scheme it uses:
 * /etc/tcb/USER/shadow (the tcb(5) layout of owlet_tcb_layout, which
 * tcb_convert uses too) or a line of /etc/shadow.  Every write is an atomic
 * replacement; /etc files are changed under the shadow-utils lock, which
 * the caller holds.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "owlet.h"
#include "setup.h"

int
shadow_is_tcb(struct setup *s)
{
	struct stat st;

	return fstatat(s->etcfd, "tcb", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISDIR(st.st_mode);
}

static long
today(void)
{
	return (long)(time(NULL) / 86400);
}

int
shadow_set_hash(struct setup *s, const char *user, uid_t uid,
    const char *hash)
{
	struct owlet_edit ed = { .flags = OWLET_EDIT_SHADOW_LINE };
	char day[24];
	int dfd, rc;

	snprintf(day, sizeof(day), "%ld", today());
	ed.field[1] = hash;
	ed.field[2] = day;
	if (!shadow_is_tcb(s)) {
		if (owlet_edit_file(s->etcfd, "shadow", OWLET_DB_FILE_MAX,
		    (uid_t)-1, user, &ed) < 0) {
			warn("%s: %s", setup_path(s, "/etc/shadow"), user);
			return -1;
		}
		return 0;
	}
	ed.flags = OWLET_EDIT_ONE_LINE;
	dfd = openat(s->etcfd, "tcb", O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (dfd >= 0) {
		int udfd = owlet_open_dir(dfd, user);
		close(dfd);
		dfd = udfd;
	}
	rc = dfd < 0 ? -1 : owlet_edit_file(dfd, "shadow", OWLET_TCB_FILE_MAX,
	    uid, user, &ed);
	if (rc < 0)
		warn("%s/%s/shadow", setup_path(s, "/etc/tcb"), user);
	if (dfd >= 0)
		close(dfd);
	return rc;
}

static int
tcb_layout(struct setup *s, gid_t *gid, mode_t *dirmode, mode_t *filemode)
{
	struct owlet_tcb_layout l;
	unsigned long line;

	if (owlet_tcb_layout(s->etcfd, &l, &line) < 0) {
		warnx("%s:%lu: bad TCB_AUTH_GROUP", setup_path(s,
		    "/etc/login.defs"), line);
		return -1;
	}
	if (owlet_group_gid(s->etcfd, l.group, gid) != 1) {
		warnx("%s: no group %s", setup_path(s, "/etc/group"), l.group);
		return -1;
	}
	*dirmode = l.dirmode;
	*filemode = l.filemode;
	return 0;
}

int
shadow_add(struct setup *s, const char *user, uid_t uid, const char *hash)
{
	char line[OWLET_LINE_MAX];
	mode_t dmode, fmode;
	gid_t gid;
	int tfd, ufd, n, rc;

	n = snprintf(line, sizeof(line), "%s:%s:%ld:0:99999:7:::\n", user,
	    hash, today());
	if (n < 0 || (size_t)n >= sizeof(line))
		return -1;
	if (!shadow_is_tcb(s))
		return etc_append(s, "shadow", line);
	if (tcb_layout(s, &gid, &dmode, &fmode) < 0)
		return -1;
	tfd = owlet_open_dir(s->etcfd, "tcb");
	if (tfd < 0) {
		warn("%s", setup_path(s, "/etc/tcb"));
		return -1;
	}
	/* made root-only first, opened up once the file is complete */
	if (mkdirat(tfd, user, 0700) < 0 ||
	    (ufd = owlet_open_dir(tfd, user)) < 0) {
		warn("%s/%s", setup_path(s, "/etc/tcb"), user);
		close(tfd);
		return -1;
	}
	rc = owlet_write_replace(ufd, "shadow", line, (size_t)n, fmode, uid,
	    gid) < 0 || fchown(ufd, uid, gid) < 0 || fchmod(ufd, dmode) < 0 ?
	    -1 : 0;
	if (rc < 0) {
		warn("%s/%s/shadow", setup_path(s, "/etc/tcb"), user);
		owlet_rmtree(tfd, user);
	}
	close(ufd);
	close(tfd);
	return rc;
}

int
shadow_del(struct setup *s, const char *user)
{
	int tfd, rc;

	if (!shadow_is_tcb(s))
		return etc_remove(s, "shadow", user);
	tfd = owlet_open_dir(s->etcfd, "tcb");
	rc = tfd < 0 ? -1 : owlet_rmtree(tfd, user);
	if (rc < 0)
		warn("%s/%s", setup_path(s, "/etc/tcb"), user);
	if (tfd >= 0)
		close(tfd);
	return rc;
}
