/*
 * control --audit: every set-uid, set-gid and file-capability file under
 * the root, each mapped to the facility that manages it.  One pass over
 * the tree with openat/fstatat (no per-file process, no path re-walk
 * except the xattr read of executables), staying off pseudo and network
 * filesystems: /proc and /sys say nothing about what is installed, and
 * a hung NFS server must not hang an audit run from cron.
 *
 * Threat model: any user can create set-ID files (set-uid to
 * themselves), as many as their quota and the inodes allow, under any
 * name, wherever they can write: /tmp, /dev/shm, /run/user/UID, their
 * home.  These are walked too (a planted set-ID program is what an
 * audit is for), so the audit must hold whatever users plant: each
 * finding is printed as soon as it is found, with no cap and no memory
 * that grows with their number, so no number of user files can push an
 * unknown root-owned one out of the report; every name is escaped
 * (owlet_esc, owlet_json_put), so no name can forge a line of it; and
 * what the walk could not look at (an unreadable directory, a path too
 * long or too deep) is an error that fails the run, never a silent skip.
 */
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "ctl.h"
#include "owlet.h"

#define DEPTH_MAX	128
#define DEPTH_MAX_S	"128"

#ifndef CIFS_SUPER_MAGIC
#define CIFS_SUPER_MAGIC	0xff534d42
#endif
#ifndef SMB2_SUPER_MAGIC
#define SMB2_SUPER_MAGIC	0xfe534d42
#endif
#ifndef FUSE_SUPER_MAGIC
#define FUSE_SUPER_MAGIC	0x65735546
#endif
#ifndef V9FS_MAGIC
#define V9FS_MAGIC		0x01021997
#endif

struct walk {
	struct ctl *c;
	int json;
	unsigned long n;	/* files printed */
	unsigned long suid, sgid, caps, unknown, unknown_root;
	int errors;
	char path[PATH_MAX];
};

/* One line on stderr naming W's current path, escaped; ERRNUM 0: none. */
static void
walk_error(struct walk *w, int errnum, const char *what)
{
	char esc[OWLET_ESC_LEN(PATH_MAX)];

	owlet_esc(esc, sizeof(esc), w->path[0] ? w->path : "/");
	if (errnum)
		warnx("%s: %s", esc, what ? what : strerror(errnum));
	else
		warnx("%s: %s", esc, what);
	w->errors = 1;
}

/* Filesystems not to descend into: pseudo (no installed files) and
 * remote (not ours to audit, and may hang); 1 skip, 0 walk, -1 error.
 * Everything else is walked, the tmpfs mounts users write to included. */
static int
skip_fs(int fd)
{
	static const long skip[] = { PROC_SUPER_MAGIC, SYSFS_MAGIC,
	    DEVPTS_SUPER_MAGIC, CGROUP_SUPER_MAGIC, CGROUP2_SUPER_MAGIC,
	    DEBUGFS_MAGIC, SECURITYFS_MAGIC, TRACEFS_MAGIC, BPF_FS_MAGIC,
	    PSTOREFS_MAGIC, NFS_SUPER_MAGIC, CIFS_SUPER_MAGIC,
	    SMB2_SUPER_MAGIC, FUSE_SUPER_MAGIC, V9FS_MAGIC };
	struct statfs sf;
	size_t i;

	if (fstatfs(fd, &sf) < 0)
		return -1;
	for (i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
		if ((long)sf.f_type == skip[i])
			return 1;
	return 0;
}

/* The facility that manages PATH, if any.  A dpkg diversion's
 * PATH.distrib (Debian's program moved aside for owlet's, e.g. chage)
 * belongs to the facility of PATH: dpkg gives it the statoverride mode of
 * PATH when the package is upgraded. */
static const struct facility *
manager(struct ctl *c, const char *path)
{
	static const char distrib[] = ".distrib";
	size_t n = strlen(path), dl = sizeof(distrib) - 1;
	char base[PATH_MAX];
	int i, j, k;

	if (n > dl && strcmp(path + n - dl, distrib) == 0 && n - dl < sizeof(base)) {
		memcpy(base, path, n - dl);
		base[n - dl] = '\0';
		path = base;
	}

	for (i = 0; i < c->nfac; i++)
		for (j = 0; j < c->fac[i].nstate; j++)
			for (k = 0; k < c->fac[i].state[j].nact; k++) {
				const struct act *a = &c->fac[i].state[j].act[k];
				if (a->kind == ACT_FILE &&
				    strcmp(a->path, path) == 0)
					return &c->fac[i];
			}
	return NULL;
}

static void
print_text(struct walk *w, const struct stat *st, const char *caps,
    const struct facility *m, const char *state)
{
	char u[64], g[64];

	owlet_esc_put(stdout, w->path);
	printf(" %04o ", (unsigned)(st->st_mode & 07777));
	owlet_esc_put(stdout, ctl_user_name(w->c, st->st_uid, u, sizeof(u)));
	putchar(':');
	owlet_esc_put(stdout, ctl_group_name(w->c, st->st_gid, g, sizeof(g)));
	printf("%s%s ", caps ? " " : "", caps ? caps : "");
	if (m)
		printf("%s %s\n", m->name, state ? state : "unknown");
	else
		printf("UNKNOWN (no facility)\n");
}

static void
print_json(struct walk *w, const struct stat *st, const char *caps,
    const struct facility *m, const char *state)
{
	char u[64], g[64];

	printf("%s\n    {\"path\": ", w->n ? "," : "");
	owlet_json_put(stdout, w->path);
	printf(", \"mode\": \"%04o\", \"owner\": ",
	    (unsigned)(st->st_mode & 07777));
	owlet_json_put(stdout, ctl_user_name(w->c, st->st_uid, u, sizeof(u)));
	printf(", \"group\": ");
	owlet_json_put(stdout, ctl_group_name(w->c, st->st_gid, g, sizeof(g)));
	printf(", \"setuid\": %s, \"setgid\": %s, \"caps\": ",
	    st->st_mode & S_ISUID ? "true" : "false",
	    st->st_mode & S_ISGID ? "true" : "false");
	owlet_json_put(stdout, caps);
	printf(", \"facility\": ");
	owlet_json_put(stdout, m ? m->name : NULL);
	printf(", \"state\": ");
	owlet_json_put(stdout, m ? (state ? state : "unknown") : NULL);
	printf("}");
}

/* The privileged file W->path (NAME in DFD): count and print it now. */
static void
report(struct walk *w, const struct stat *st, const char *caps)
{
	const struct facility *m = manager(w->c, w->path);
	const char *state;
	int err;

	state = m ? engine_status(w->c, m, &err) : NULL;
	w->suid += !!(st->st_mode & S_ISUID);
	w->sgid += !!(st->st_mode & S_ISGID);
	w->caps += caps != NULL;
	w->unknown += !m;
	w->unknown_root += !m && st->st_uid == 0;
	if (w->json)
		print_json(w, st, caps, m, state);
	else
		print_text(w, st, caps, m, state);
	w->n++;
}

static void
record(struct walk *w, int dfd, const char *name, const struct stat *st)
{
	char proc[64 + NAME_MAX];
	char raw[256];
	char *text = NULL;
	cap_t cap;
	int has_caps = 0, fd;

	/* Capabilities only matter on executables; read them by the
	 * directory fd, not by re-walking the path. */
	if (st->st_mode & 0111) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d/%s", dfd, name);
		has_caps = lgetxattr(proc, "security.capability", raw,
		    sizeof(raw)) > 0;
	}
	if (!has_caps && !(st->st_mode & (S_ISUID | S_ISGID)))
		return;
	if (!has_caps) {
		report(w, st, NULL);
		return;
	}
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
	    O_NOCTTY);
	if (fd >= 0 && (cap = cap_get_fd(fd))) {
		text = cap_to_text(cap, NULL);
		cap_free(cap);
	}
	if (fd >= 0)
		close(fd);
	report(w, st, text ? text : "(unreadable)");
	if (text)
		cap_free(text);
}

static void
walk_dir(struct walk *w, int dfd, dev_t dev, int depth)
{
	size_t plen = strlen(w->path);
	struct dirent *e;
	struct stat st;
	DIR *d;
	int cfd, skip;

	if (depth > DEPTH_MAX) {
		walk_error(w, 0, "deeper than " DEPTH_MAX_S " levels; "
		    "not descending");
		return;
	}
	if (!(d = owlet_opendir_at(dfd))) {
		walk_error(w, errno, NULL);
		return;
	}
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (e->d_type == DT_LNK || e->d_type == DT_FIFO ||
		    e->d_type == DT_SOCK || e->d_type == DT_CHR ||
		    e->d_type == DT_BLK)
			continue;
		if (plen + 1 + strlen(e->d_name) >= sizeof(w->path)) {
			walk_error(w, 0, "holds a name too long for a path; "
			    "not looked at");
			continue;
		}
		snprintf(w->path + plen, sizeof(w->path) - plen, "/%s",
		    e->d_name);
		if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno != ENOENT)
				walk_error(w, errno, NULL);
			continue;
		}
		if (S_ISREG(st.st_mode))
			record(w, dfd, e->d_name, &st);
		else if (S_ISDIR(st.st_mode)) {
			cfd = openat(dfd, e->d_name, O_RDONLY | O_DIRECTORY |
			    O_NOFOLLOW | O_CLOEXEC);
			if (cfd < 0) {
				if (errno != ENOENT)
					walk_error(w, errno, NULL);
				continue;
			}
			if (st.st_dev == dev || (skip = skip_fs(cfd)) == 0)
				walk_dir(w, cfd, st.st_dev, depth + 1);
			else if (skip < 0)
				walk_error(w, errno, NULL);
			close(cfd);
		}
	}
	w->path[plen] = '\0';
	closedir(d);
}

int
audit_run(struct ctl *c, int json)
{
	struct walk w = { .c = c, .json = json };
	struct stat st;

	if (fstat(c->rootfd, &st) < 0) {
		warn("%s", c->root[0] ? c->root : "/");
		return -1;
	}
	if (json) {
		printf("{\"root\": ");
		owlet_json_put(stdout, c->root[0] ? c->root : "/");
		printf(", \"files\": [");
	}
	walk_dir(&w, c->rootfd, st.st_dev, 0);
	if (json)
		printf("\n  ], \"setuid\": %lu, \"setgid\": %lu, \"caps\": %lu, "
		    "\"unknown\": %lu, \"unknown_root\": %lu, \"complete\": %s}\n",
		    w.suid, w.sgid, w.caps, w.unknown, w.unknown_root,
		    w.errors ? "false" : "true");
	else {
		printf("%lu set-uid, %lu set-gid, %lu with capabilities, "
		    "%lu unknown", w.suid, w.sgid, w.caps, w.unknown);
		/* among files users planted, the ones only root can make */
		if (w.unknown_root != w.unknown)
			printf(" (%lu owned by root)", w.unknown_root);
		printf("%s\n", w.errors ? ", incomplete (errors above)" : "");
	}
	return w.unknown || w.errors ? 1 : 0;
}
