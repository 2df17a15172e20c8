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
#include <unistd.h>

#include "ctl.h"
#include "owlet.h"

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

/* Replace ETC/group or ETC/gshadow (open on FD as *ST) by itself plus
 * G's line. */
static int
append(struct ctl *c, int etcfd, int gshadow, int fd, const struct stat *st,
    const struct owlet_sysgroup *g)
{
	struct owlet_replace r;

	if (owlet_replace_begin(&r, etcfd, gshadow ? "gshadow" : "group",
	    st->st_mode & 07777, st->st_uid, st->st_gid) < 0 ||
	    owlet_sysgroup_append(&r, fd, gshadow, g, 1) < 0) {
		warn("cannot replace %s", ctl_path(c, gshadow ?
		    "/etc/gshadow" : "/etc/group"));
		return -1;
	}
	return 0;
}

int
group_apply(struct ctl *c, const struct act *a)
{
	struct owlet_sysgroup g = { a->path, 0 };
	struct owlet_sysgids gids;
	struct stat gst, sst;
	unsigned long lineno;
	int etcfd, lockfd = -1, gfd = -1, sfd = -1, rc = -1;
	gid_t gid;

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
	if ((gfd = owlet_open_trusted(etcfd, "group", CTL_TEXT_MAX,
	    &gst)) < 0) {
		warn("%s", ctl_path(c, "/etc/group"));
		goto out;
	}
	if (owlet_sysgid_scan(gfd, &gids, &lineno) < 0) {
		warnx("%s:%lu: %s", ctl_path(c, "/etc/group"), lineno,
		    owlet_sysgid_strerror(errno));
		goto out;
	}
	/* No gshadow is a system without one; any other failure stops us
	 * before anything is written. */
	sfd = owlet_open_trusted(etcfd, "gshadow", CTL_TEXT_MAX, &sst);
	if (sfd < 0 && errno != ENOENT) {
		warn("%s", ctl_path(c, "/etc/gshadow"));
		goto out;
	}
	if (owlet_sysgid_pick(&gids, &g.gid) < 0) {
		warnx("%s: no free system GID in %d..%d for group %s",
		    ctl_path(c, "/etc/group"), OWLET_SYS_GID_MIN,
		    OWLET_SYS_GID_MAX, a->path);
		goto out;
	}
	/* gshadow first: a group line without its gshadow line is what
	 * grpck complains about; the reverse is invisible. */
	if (sfd >= 0 && append(c, etcfd, 1, sfd, &sst, &g) < 0)
		goto out;
	if (append(c, etcfd, 0, gfd, &gst, &g) < 0)
		goto out;
	rc = 0;
out:
	if (sfd >= 0)
		close(sfd);
	if (gfd >= 0)
		close(gfd);
	if (lockfd >= 0)
		close(lockfd);
	close(etcfd);
	return rc;
}
