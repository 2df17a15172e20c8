/*
 * The groups tcb needs: "shadow" (may traverse /etc/tcb) and "auth" (may
 * read every tcb file, with TCB_AUTH_GROUP).  Missing ones are added as
 * system groups, shadow preferably with Debian's GID 42, others with the
 * highest free GID in 101..999 as groupadd -r does.  group(5) and gshadow(5)
 * are replaced atomically; the old files are kept as hard links until the
 * caller's whole operation succeeded, so a later failure can put them back.
 */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "owlet.h"
#include "tool.h"

#define DEBIAN_SHADOW_GID 42

static const char *const group_files[] = { "group", "gshadow" };

static void
backup_name(char *buf, size_t size, const char *file)
{
	snprintf(buf, size, ".%s.tcb-old", file);
}

static int
pick_gid(struct owlet_sysgids *gids, gid_t *gid)
{
	if (owlet_sysgid_pick(gids, gid) < 0) {
		warnx("no free system group id in %d..%d", OWLET_SYS_GID_MIN,
		    OWLET_SYS_GID_MAX);
		return -1;
	}
	return 0;
}

/* If group(5) has NAME: its gid into *GID, and *ADD cleared. */
static int
find_group(struct tool *t, const char *name, gid_t *gid, int *add)
{
	int rc = owlet_group_gid(t->etcfd, name, gid);

	if (rc < 0) {
		warn("%s", tool_path(t, "group"));
		return -1;
	}
	if (rc == 1)
		*add = 0;
	return 0;
}

int
tool_groups_plan(struct tool *t, struct tool_groups *g)
{
	struct owlet_sysgids gids;
	struct stat st;
	unsigned long lineno;
	char bak[64];
	size_t i;
	int fd, rc;

	g->add_shadow = g->add_auth = 1;
	g->committed = 0;
	/* A backup left by a run that died is a second link to the file
	 * (which owlet_open_trusted refuses) or an older version of it. */
	for (i = 0; i < sizeof(group_files) / sizeof(group_files[0]); i++) {
		backup_name(bak, sizeof(bak), group_files[i]);
		unlinkat(t->etcfd, bak, 0);
	}
	fd = owlet_open_trusted(t->etcfd, "group", OWLET_DB_FILE_MAX, &st);
	if (fd < 0) {
		warn("%s", tool_path(t, "group"));
		return -1;
	}
	rc = owlet_sysgid_scan(fd, &gids, &lineno);
	close(fd);
	if (rc < 0) {
		warnx("%s:%lu: %s", tool_path(t, "group"), lineno,
		    owlet_sysgid_strerror(errno));
		return -1;
	}
	if (find_group(t, "shadow", &g->shadow, &g->add_shadow) < 0 ||
	    find_group(t, "auth", &g->auth, &g->add_auth) < 0)
		return -1;
	if (g->add_shadow) {
		if (!gids.used[DEBIAN_SHADOW_GID]) {
			gids.used[DEBIAN_SHADOW_GID] = 1;
			g->shadow = DEBIAN_SHADOW_GID;
		} else if (pick_gid(&gids, &g->shadow) < 0)
			return -1;
	}
	if (g->add_auth && pick_gid(&gids, &g->auth) < 0)
		return -1;
	return 0;
}

/*
 * Put the kept old FILE back.  If the new file never replaced it, both names
 * are links to one inode and rename() does nothing: the unlink cleans up.
 */
static void
restore(struct tool *t, const char *file)
{
	char bak[64];

	backup_name(bak, sizeof(bak), file);
	if (renameat(t->etcfd, bak, t->etcfd, file) < 0 && errno != ENOENT)
		warn("cannot restore %s from %s", tool_path(t, file),
		    tool_path(t, bak));
	unlinkat(t->etcfd, bak, 0);
}

/*
 * Replace ETC/FILE by its old content plus the lines of the NG groups G,
 * keeping owner and mode and the old file as the backup link.  0 done,
 * 1 no such file and OPTIONAL, -1 failed (printed; the old file is back).
 */
static int
append_lines(struct tool *t, size_t file, int optional,
    const struct owlet_sysgroup *g, size_t ng)
{
	const char *name = group_files[file];
	struct owlet_replace r;
	struct stat st;
	char bak[64];
	int fd, rc;

	backup_name(bak, sizeof(bak), name);
	unlinkat(t->etcfd, bak, 0);
	fd = owlet_open_trusted(t->etcfd, name, OWLET_DB_FILE_MAX, &st);
	if (fd < 0 && optional && errno == ENOENT)
		return 1;
	if (fd < 0) {
		warn("%s", tool_path(t, name));
		return -1;
	}
	if (linkat(t->etcfd, name, t->etcfd, bak, 0) < 0 ||
	    owlet_replace_begin(&r, t->etcfd, name, st.st_mode & 07777,
	    st.st_uid, st.st_gid) < 0) {
		warn("%s", tool_path(t, name));
		close(fd);
		unlinkat(t->etcfd, bak, 0);
		return -1;
	}
	rc = owlet_sysgroup_append(&r, fd, file == 1, g, ng);
	close(fd);
	if (rc < 0) {
		warn("cannot write %s", tool_path(t, name));
		restore(t, name);
		return -1;
	}
	if (rc > 0)
		warn("fsync %s/etc", t->root);
	return 0;
}

int
tool_groups_commit(struct tool *t, struct tool_groups *g)
{
	struct owlet_sysgroup add[2];
	size_t i, n = 0;
	int rc;

	if (g->add_shadow)
		add[n++] = (struct owlet_sysgroup){ "shadow", g->shadow };
	if (g->add_auth)
		add[n++] = (struct owlet_sysgroup){ "auth", g->auth };
	if (n == 0)
		return 0;
	for (i = 0; i < 2; i++) {
		/* gshadow is optional: no gshadow on this system */
		if ((rc = append_lines(t, i, i == 1, add, n)) > 0)
			break;
		if (rc < 0) {
			tool_groups_rollback(t, g);
			return -1;
		}
		g->committed = (int)i + 1;
	}
	return 0;
}

void
tool_groups_rollback(struct tool *t, struct tool_groups *g)
{
	int i;

	for (i = 0; i < g->committed; i++)
		restore(t, group_files[i]);
	g->committed = 0;
	fsync(t->etcfd);
}

void
tool_groups_done(struct tool *t, struct tool_groups *g)
{
	char bak[64];
	int i;

	for (i = 0; i < g->committed; i++) {
		backup_name(bak, sizeof(bak), group_files[i]);
		unlinkat(t->etcfd, bak, 0);
	}
	g->committed = 0;
}
