/*
 * System groups that states need (_icmp for ping, wheel for su, chkpwd
 * for the tcb_chkpwd gate).  A missing group is added as groupadd -r
 * would: the highest free GID in 101..999, a line in group(5) and, when
 * the system has one, gshadow(5), both replaced atomically under the
 * shadow-utils lock.  Rolling back a switch keeps an added group: an
 * empty group grants nothing, and removing one that a file may already
 * use would leave a dangling GID.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"
#include "owlet.h"

#define SYS_GID_MIN	101
#define SYS_GID_MAX	999

int
group_holds(struct ctl *c, const struct act *a)
{
	gid_t gid;
	int etcfd, rc;

	etcfd = owlet_open_dir(c->rootfd, "etc");
	if (etcfd < 0)
		return -1;
	rc = owlet_group_gid(etcfd, a->path, &gid);
	close(etcfd);
	return rc;
}

/* The highest system GID no line of DATA uses, or -1. */
static long
free_gid(const char *data)
{
	static unsigned char used[SYS_GID_MAX + 1];
	const char *p = data, *c;
	unsigned long v;
	long g;

	memset(used, 0, sizeof(used));
	for (; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p)) {
		/* name:password:GID: */
		if (!(c = strchr(p, ':')) || !(c = strchr(c + 1, ':')))
			continue;
		v = strtoul(c + 1, NULL, 10);
		if (v <= SYS_GID_MAX)
			used[v] = 1;
	}
	for (g = SYS_GID_MAX; g >= SYS_GID_MIN; g--)
		if (!used[g])
			return g;
	return -1;
}

static int
append(struct ctl *c, int etcfd, const char *file, const char *data,
    size_t len, const struct stat *st, const char *line)
{
	size_t ll = strlen(line), nl = len && data[len - 1] != '\n';
	char *buf = malloc(len + nl + ll);
	int rc;

	if (!buf) {
		warnx("out of memory");
		return -1;
	}
	memcpy(buf, data, len);
	if (nl)
		buf[len] = '\n';
	memcpy(buf + len + nl, line, ll);
	rc = owlet_write_replace(etcfd, file, buf, len + nl + ll,
	    st->st_mode & 07777, st->st_uid, st->st_gid);
	free(buf);
	if (rc < 0)
		warn("cannot replace %s", ctl_path(c, file[0] == 'g' &&
		    file[1] == 's' ? "/etc/gshadow" : "/etc/group"));
	return rc < 0 ? -1 : 0;
}

int
group_apply(struct ctl *c, const struct act *a)
{
	char *grp = NULL, *gsh = NULL, line[128];
	size_t glen, slen;
	struct stat gst, sst;
	int etcfd, lockfd = -1, rc = -1, has_gshadow;
	gid_t gid;
	long g;

	etcfd = owlet_open_dir(c->rootfd, "etc");
	if (etcfd < 0) {
		warn("%s", ctl_path(c, "/etc"));
		return -1;
	}
	if ((lockfd = owlet_pwlock(etcfd)) < 0) {
		warn("cannot lock %s", ctl_path(c, "/etc/.pwd.lock"));
		goto out;
	}
	if (owlet_group_gid(etcfd, a->path, &gid) == 1) {
		rc = 0;
		goto out;
	}
	if (owlet_read_file(etcfd, "group", CTL_TEXT_MAX, &grp, &glen,
	    &gst) < 0) {
		warn("%s", ctl_path(c, "/etc/group"));
		goto out;
	}
	has_gshadow = owlet_read_file(etcfd, "gshadow", CTL_TEXT_MAX, &gsh,
	    &slen, &sst) == 0;
	if (!has_gshadow && errno != ENOENT) {
		warn("%s", ctl_path(c, "/etc/gshadow"));
		goto out;
	}
	if ((g = free_gid(grp)) < 0) {
		warnx("%s: no free system GID in %d..%d for group %s",
		    ctl_path(c, "/etc/group"), SYS_GID_MIN, SYS_GID_MAX,
		    a->path);
		goto out;
	}
	/* gshadow first: a group line without its gshadow line is what
	 * grpck complains about; the reverse is invisible. */
	snprintf(line, sizeof(line), "%s:!::\n", a->path);
	if (has_gshadow && append(c, etcfd, "gshadow", gsh, slen, &sst,
	    line) < 0)
		goto out;
	snprintf(line, sizeof(line), "%s:x:%ld:\n", a->path, g);
	if (append(c, etcfd, "group", grp, glen, &gst, line) < 0)
		goto out;
	rc = 0;
out:
	free(grp);
	free(gsh);
	if (lockfd >= 0)
		close(lockfd);
	close(etcfd);
	return rc;
}
