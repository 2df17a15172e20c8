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
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "owlet.h"
#include "tool.h"

#define SYS_GID_MIN	101
#define SYS_GID_MAX	999
#define DEBIAN_SHADOW_GID 42

static const char *const group_files[] = { "group", "gshadow" };

static int
scan_groups(struct tool *t, struct tool_groups *g, unsigned char *used)
{
	struct owlet_lines lr;
	char *line, *f[4];
	size_t len;
	unsigned int gid;
	int fd, rc;

	fd = openat(t->etcfd, "group", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		warn("%s", tool_path(t, "group"));
		return -1;
	}
	owlet_lines_init(&lr, fd);
	while ((rc = owlet_lines_next(&lr, &line, &len)) > 0) {
		if (owlet_split(line, f, 4) != 4 ||
		    owlet_parse_id(f[2], &gid) < 0)
			continue;
		if (gid <= SYS_GID_MAX)
			used[gid] = 1;
		if (g->add_shadow && strcmp(f[0], "shadow") == 0) {
			g->shadow = gid;
			g->add_shadow = 0;
		} else if (g->add_auth && strcmp(f[0], "auth") == 0) {
			g->auth = gid;
			g->add_auth = 0;
		}
	}
	if (rc < 0)
		warn("%s:%lu", tool_path(t, "group"), lr.lineno);
	close(fd);
	return rc;
}

static int
free_gid(unsigned char *used, gid_t *gid)
{
	int i;

	for (i = SYS_GID_MAX; i >= SYS_GID_MIN; i--)
		if (!used[i]) {
			used[i] = 1;
			*gid = (gid_t)i;
			return 0;
		}
	warnx("no free system group id in %d..%d", SYS_GID_MIN, SYS_GID_MAX);
	return -1;
}

int
tool_groups_plan(struct tool *t, struct tool_groups *g)
{
	unsigned char used[SYS_GID_MAX + 1] = { 0 };

	g->add_shadow = g->add_auth = 1;
	g->committed = 0;
	if (scan_groups(t, g, used) < 0)
		return -1;
	if (g->add_shadow) {
		if (!used[DEBIAN_SHADOW_GID]) {
			used[DEBIAN_SHADOW_GID] = 1;
			g->shadow = DEBIAN_SHADOW_GID;
		} else if (free_gid(used, &g->shadow) < 0)
			return -1;
	}
	if (g->add_auth && free_gid(used, &g->auth) < 0)
		return -1;
	return 0;
}

static void
backup_name(char *buf, size_t size, const char *file)
{
	snprintf(buf, size, ".%s.tcb-old", file);
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

/* Replace ETC/FILE by its old content plus LINES, keeping owner and mode. */
static int
append_lines(struct tool *t, const char *file, const char *lines)
{
	struct owlet_replace r;
	struct owlet_wbuf w;
	struct stat st;
	char buf[65536], bak[64];
	ssize_t n;
	int fd, rc = 0, last_nl = 1;

	fd = openat(t->etcfd, file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		warn("%s", tool_path(t, file));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	backup_name(bak, sizeof(bak), file);
	unlinkat(t->etcfd, bak, 0);
	if (linkat(t->etcfd, file, t->etcfd, bak, 0) < 0 ||
	    owlet_replace_begin(&r, t->etcfd, file, st.st_mode & 07777,
	    st.st_uid, st.st_gid) < 0) {
		warn("%s", tool_path(t, file));
		close(fd);
		unlinkat(t->etcfd, bak, 0);
		return -1;
	}
	owlet_wbuf_init(&w, r.fd);
	while ((n = owlet_read_full(fd, buf, sizeof(buf))) > 0) {
		owlet_wbuf_put(&w, buf, (size_t)n);
		last_nl = buf[n - 1] == '\n';
	}
	close(fd);
	if (!last_nl)
		owlet_wbuf_put(&w, "\n", 1);
	owlet_wbuf_put(&w, lines, strlen(lines));
	if (n < 0 || owlet_wbuf_flush(&w) < 0 ||
	    (rc = owlet_replace_commit(&r)) < 0) {
		warn("cannot write %s", tool_path(t, file));
		if (r.fd >= 0)
			owlet_replace_abort(&r);
		restore(t, file);
		return -1;
	}
	if (rc > 0)
		warn("fsync %s/etc", t->root);
	return 0;
}

int
tool_groups_commit(struct tool *t, struct tool_groups *g)
{
	char lines[2][128];
	size_t i;

	if (!g->add_shadow && !g->add_auth)
		return 0;
	lines[0][0] = lines[1][0] = '\0';
	if (g->add_shadow) {
		snprintf(lines[0], sizeof(lines[0]), "shadow:x:%u:\n",
		    (unsigned)g->shadow);
		strcat(lines[1], "shadow:!::\n");
	}
	if (g->add_auth) {
		snprintf(lines[0] + strlen(lines[0]), sizeof(lines[0]) -
		    strlen(lines[0]), "auth:x:%u:\n", (unsigned)g->auth);
		strcat(lines[1], "auth:!::\n");
	}
	for (i = 0; i < 2; i++) {
		if (i == 1 && faccessat(t->etcfd, "gshadow", F_OK,
		    AT_SYMLINK_NOFOLLOW) < 0)
			break;	/* no gshadow on this system */
		if (append_lines(t, group_files[i], lines[i]) < 0) {
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
