/*
 * control --audit: every set-uid, set-gid and file-capability file under
 * the root, each mapped to the facility that manages it.  One pass over
 * the tree with openat/fstatat (no per-file process, no path re-walk
 * except the xattr read of executables), staying off pseudo and network
 * filesystems: /proc and /sys say nothing about what is installed, and
 * a hung NFS server must not hang an audit run from cron.
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
#include "json.h"
#include "owlet.h"

#define DEPTH_MAX	128
#define FOUND_MAX	4096

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

struct found {
	char *path;
	struct stat st;
	char *caps;		/* text form, NULL: none */
};

struct walk {
	struct ctl *c;
	struct found *f;
	int n;
	int errors;
	char path[PATH_MAX];
};

/* Filesystems not to descend into: pseudo (no installed files) and
 * remote (not ours to audit, and may hang). */
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
		return 1;
	for (i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
		if ((long)sf.f_type == skip[i])
			return 1;
	return 0;
}

static void
record(struct walk *w, int dfd, const char *name, const struct stat *st)
{
	char proc[64 + NAME_MAX];
	char raw[256];
	struct found *f;
	cap_t cap;
	int has_caps = 0;

	/* Capabilities only matter on executables; read them by the
	 * directory fd, not by re-walking the path. */
	if (st->st_mode & 0111) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d/%s", dfd, name);
		has_caps = lgetxattr(proc, "security.capability", raw,
		    sizeof(raw)) > 0;
	}
	if (!has_caps && !(st->st_mode & (S_ISUID | S_ISGID)))
		return;
	if (w->n == FOUND_MAX) {
		warnx("more than %d privileged files; stopping", FOUND_MAX);
		w->errors = 1;
		return;
	}
	f = &w->f[w->n++];
	f->path = strdup(w->path);
	f->st = *st;
	f->caps = NULL;
	if (has_caps) {
		int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
		    O_CLOEXEC | O_NOCTTY);
		if (fd >= 0 && (cap = cap_get_fd(fd))) {
			char *text = cap_to_text(cap, NULL);
			if (text) {
				f->caps = strdup(text);
				cap_free(text);
			}
			cap_free(cap);
		}
		if (fd >= 0)
			close(fd);
		if (!f->caps)
			f->caps = strdup("(unreadable)");
	}
	if (!f->path) {
		warnx("out of memory");
		w->errors = 1;
		w->n--;
	}
}

static void
walk_dir(struct walk *w, int dfd, dev_t dev, int depth)
{
	size_t plen = strlen(w->path);
	struct dirent *e;
	struct stat st;
	DIR *d;
	int cfd;

	if (depth > DEPTH_MAX) {
		warnx("%s: deeper than %d levels; not descending",
		    w->path, DEPTH_MAX);
		w->errors = 1;
		return;
	}
	if (!(d = owlet_opendir_at(dfd))) {
		warn("%s", w->path[0] ? w->path : "/");
		w->errors = 1;
		return;
	}
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (e->d_type == DT_LNK || e->d_type == DT_FIFO ||
		    e->d_type == DT_SOCK || e->d_type == DT_CHR ||
		    e->d_type == DT_BLK)
			continue;
		if (plen + 1 + strlen(e->d_name) >= sizeof(w->path))
			continue;
		snprintf(w->path + plen, sizeof(w->path) - plen, "/%s",
		    e->d_name);
		if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno != ENOENT) {
				warn("%s", w->path);
				w->errors = 1;
			}
			continue;
		}
		if (S_ISREG(st.st_mode))
			record(w, dfd, e->d_name, &st);
		else if (S_ISDIR(st.st_mode)) {
			cfd = openat(dfd, e->d_name, O_RDONLY | O_DIRECTORY |
			    O_NOFOLLOW | O_CLOEXEC);
			if (cfd < 0) {
				warn("%s", w->path);
				w->errors = 1;
				continue;
			}
			if (st.st_dev == dev || !skip_fs(cfd))
				walk_dir(w, cfd, st.st_dev, depth + 1);
			close(cfd);
		}
	}
	w->path[plen] = '\0';
	closedir(d);
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
print_text(struct ctl *c, const struct found *f, const struct facility *m,
    const char *state)
{
	char u[64], g[64];

	printf("%s %04o %s:%s%s%s ", f->path, (unsigned)(f->st.st_mode & 07777),
	    ctl_user_name(c, f->st.st_uid, u, sizeof(u)),
	    ctl_group_name(c, f->st.st_gid, g, sizeof(g)),
	    f->caps ? " " : "", f->caps ? f->caps : "");
	if (m)
		printf("%s %s\n", m->name, state ? state : "unknown");
	else
		printf("UNKNOWN (no facility)\n");
}

static void
print_json(struct ctl *c, const struct found *f, const struct facility *m,
    const char *state, int first)
{
	char u[64], g[64];

	printf("%s\n    {\"path\": ", first ? "" : ",");
	json_str(f->path);
	printf(", \"mode\": \"%04o\", \"owner\": ",
	    (unsigned)(f->st.st_mode & 07777));
	json_str(ctl_user_name(c, f->st.st_uid, u, sizeof(u)));
	printf(", \"group\": ");
	json_str(ctl_group_name(c, f->st.st_gid, g, sizeof(g)));
	printf(", \"setuid\": %s, \"setgid\": %s, \"caps\": ",
	    f->st.st_mode & S_ISUID ? "true" : "false",
	    f->st.st_mode & S_ISGID ? "true" : "false");
	json_str(f->caps);
	printf(", \"facility\": ");
	json_str(m ? m->name : NULL);
	printf(", \"state\": ");
	json_str(m ? (state ? state : "unknown") : NULL);
	printf("}");
}

int
audit_run(struct ctl *c, int json)
{
	struct walk w = { .c = c };
	struct stat st;
	int i, unknown = 0, suid = 0, sgid = 0, caps = 0, err;

	w.f = calloc(FOUND_MAX, sizeof(*w.f));
	if (!w.f || fstat(c->rootfd, &st) < 0) {
		warnx("out of memory");
		free(w.f);
		return -1;
	}
	walk_dir(&w, c->rootfd, st.st_dev, 0);
	if (json) {
		printf("{\"root\": ");
		json_str(c->root[0] ? c->root : "/");
		printf(", \"files\": [");
	}
	for (i = 0; i < w.n; i++) {
		const struct facility *m = manager(c, w.f[i].path);
		const char *state = m ? engine_status(c, m, &err) : NULL;
		suid += !!(w.f[i].st.st_mode & S_ISUID);
		sgid += !!(w.f[i].st.st_mode & S_ISGID);
		caps += w.f[i].caps != NULL;
		unknown += !m;
		if (json)
			print_json(c, &w.f[i], m, state, i == 0);
		else
			print_text(c, &w.f[i], m, state);
	}
	if (json)
		printf("\n  ], \"setuid\": %d, \"setgid\": %d, \"caps\": %d, "
		    "\"unknown\": %d, \"complete\": %s}\n", suid, sgid, caps,
		    unknown, w.errors ? "false" : "true");
	else
		printf("%d set-uid, %d set-gid, %d with capabilities, "
		    "%d unknown\n", suid, sgid, caps, unknown);
	for (i = 0; i < w.n; i++) {
		free(w.f[i].path);
		free(w.f[i].caps);
	}
	free(w.f);
	return unknown || w.errors ? 1 : 0;
}
