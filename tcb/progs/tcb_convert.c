/*
 * tcb_convert: create /etc/tcb from /etc/shadow.
 *
 * Crash safety: the whole tree is built under ETC/.tcb.new (root, 0700 until
 * published), synced to disk, and published with one rename(2) to ETC/tcb.
 * Any failure removes the partial tree and puts back group(5)/gshadow(5) if
 * groups were added: the system is in the old state or the new one.
 * ETC/shadow is only read.  A crash before the rename leaves only the
 * ignored .tcb.new, which the next run removes.
 *
 * Memory: the tools stream.  Pass 1 stages one directory + file per shadow
 * line (mode 0: "no passwd entry seen yet"; mkdir's EEXIST is the duplicate
 * check); pass 2 streams passwd and gives each staged user its owner and
 * mode; a count comparison finds shadow lines with no passwd user.  The file
 * system is the index, so memory does not grow with the number of users.
 *
 * --incremental stages only users missing from an existing ETC/tcb, under
 * ETC/tcb/:incoming (':' names are reserved, never seen as users), and moves
 * each into place with its own rename: every user appears complete or not.
 */
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "owlet.h"
#include "tool.h"

#define STAGE_NEW	".tcb.new"
#define STAGE_INCOMING	":incoming"

struct conv {
	struct tool t;
	struct tool_groups g;
	int incremental;
	gid_t dirgid;		/* group of user dirs and files */
	mode_t dirmode, filemode;
	int tcbfd;		/* existing ETC/tcb (--incremental) */
	int stagefd;
	unsigned long staged, owned;
};

static void
usage(void)
{
	fprintf(stderr,
	    "usage: tcb_convert [--root DIR] [--lock-fd N] [--incremental]\n");
	exit(2);
}

static int
open_db(struct conv *c, const char *file)
{
	int fd = openat(c->t.etcfd, file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		warn("%s", tool_path(&c->t, file));
	return fd;
}

static void
line_error(struct conv *c, const char *file, unsigned long lineno, int e)
{
	const char *path = tool_path(&c->t, file);

	if (e == E2BIG)
		warnx("%s:%lu: line too long", path, lineno);
	else if (e == EINVAL)
		warnx("%s:%lu: NUL byte in line", path, lineno);
	else {
		errno = e;
		warn("%s", path);
	}
}

/* Pass 1: one staged directory and file per shadow line. */
static int
stage_one(struct conv *c, char *line, size_t len, unsigned long lineno)
{
	const char *path = tool_path(&c->t, "shadow");
	char name[OWLET_NAME_MAX + 1], file[OWLET_NAME_MAX + 8];
	size_t nlen = strcspn(line, ":");
	int fd, rc;

	if (len == 0 || line[0] == '#' || line[0] == '+' || line[0] == '-') {
		warnx("%s:%lu: unsupported line (blank, comment or NIS entry)",
		    path, lineno);
		return -1;
	}
	if (!owlet_name_ok_n(line, nlen)) {
		warnx("%s:%lu: invalid user name", path, lineno);
		return -1;
	}
	memcpy(name, line, nlen);
	name[nlen] = '\0';
	if (owlet_shadow_check(line, len) < 0) {
		warnx("%s:%lu: malformed entry for %s (need 9 fields, numeric "
		    "aging fields)", path, lineno, name);
		return -1;
	}
	if (c->incremental && faccessat(c->tcbfd, name, F_OK,
	    AT_SYMLINK_NOFOLLOW) == 0)
		return 0;	/* already converted */
	if (mkdirat(c->stagefd, name, 0) < 0) {
		if (errno == EEXIST)
			warnx("%s:%lu: duplicate user %s", path, lineno, name);
		else
			warn("%s:%lu: cannot stage %s", path, lineno, name);
		return -1;
	}
	snprintf(file, sizeof(file), "%s/shadow", name);
	fd = openat(c->stagefd, file, O_WRONLY | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, 0);
	if (fd < 0) {
		warn("cannot stage %s", name);
		return -1;
	}
	line[len] = '\n';	/* the reader's NUL stands where '\n' was */
	rc = owlet_write_full(fd, line, len + 1);
	line[len] = '\0';
	if (rc < 0 || close(fd) < 0) {
		warn("cannot stage %s", name);
		if (rc < 0)
			close(fd);
		return -1;
	}
	c->staged++;
	return 0;
}

/* Pass 2: owner and mode from passwd for every staged user. */
static int
own_one(struct conv *c, char *line, size_t len, unsigned long lineno)
{
	const char *path = tool_path(&c->t, "passwd");
	char file[OWLET_NAME_MAX + 8], *name, *pw;
	struct stat st;
	uid_t uid;

	if (line[0] == '+' || line[0] == '-')
		return 0;	/* NIS compat entries have no local shadow */
	if (owlet_passwd_parse(line, &name, &pw, &uid) < 0) {
		warnx("%s:%lu: malformed entry", path, lineno);
		return -1;
	}
	if (fstatat(c->stagefd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return 0;	/* no shadow entry, or already in tcb */
		warn("%s", name);
		return -1;
	}
	if ((st.st_mode & 07777) != 0) {
		warnx("%s:%lu: duplicate user %s", path, lineno, name);
		return -1;
	}
	snprintf(file, sizeof(file), "%s/shadow", name);
	/* chown before chmod: chown clears set-ID bits */
	if (fchownat(c->stagefd, name, uid, c->dirgid, AT_SYMLINK_NOFOLLOW) < 0 ||
	    fchmodat(c->stagefd, name, c->dirmode, 0) < 0 ||
	    fchownat(c->stagefd, file, uid, c->dirgid, AT_SYMLINK_NOFOLLOW) < 0 ||
	    fchmodat(c->stagefd, file, c->filemode, 0) < 0) {
		warn("cannot set owner of %s", name);
		return -1;
	}
	c->owned++;
	return 0;
}

/* Run FN on every line of ETC/FILE; stop at the first failure. */
static int
for_each_line(struct conv *c, const char *file,
    int (*fn)(struct conv *, char *, size_t, unsigned long))
{
	struct owlet_lines lr;
	char *line;
	size_t len;
	int fd, rc;

	fd = open_db(c, file);
	if (fd < 0)
		return -1;
	owlet_lines_init(&lr, fd);
	while ((rc = owlet_lines_next(&lr, &line, &len)) > 0)
		if (fn(c, line, len, lr.lineno) < 0 ||
		    ((lr.lineno & 1023) == 0 && tool_interrupted()))
			break;
	if (rc < 0)
		line_error(c, file, lr.lineno, errno);
	close(fd);
	return rc == 0 ? 0 : -1;
}

/* Error path only: name the shadow lines whose user is not in passwd. */
static void
report_orphans(struct conv *c)
{
	struct dirent *de;
	struct stat st;
	DIR *d = owlet_opendir_at(c->stagefd);

	if (!d) {
		warnx("%lu shadow entries have no passwd entry",
		    c->staged - c->owned);
		return;
	}
	while ((de = readdir(d)))
		if (owlet_name_ok(de->d_name) &&
		    fstatat(c->stagefd, de->d_name, &st,
		    AT_SYMLINK_NOFOLLOW) == 0 && (st.st_mode & 07777) == 0)
			warnx("%s: user %s has no entry in %s",
			    tool_path(&c->t, "shadow"), de->d_name,
			    tool_path(&c->t, "passwd"));
	closedir(d);
}

static int
read_config(struct conv *c)
{
	struct owlet_tcb_layout l;
	unsigned long lineno;
	int auth, links;

	auth = owlet_tcb_layout(c->t.etcfd, &l, &lineno);
	links = auth < 0 ? 0 :
	    owlet_logindefs_bool(c->t.etcfd, "TCB_SYMLINKS", &lineno);
	if (auth < 0 || links < 0) {
		if (errno == EINVAL)
			warnx("%s:%lu: value must be yes or no",
			    tool_path(&c->t, "login.defs"), lineno);
		else
			warn("%s", tool_path(&c->t, "login.defs"));
		return -1;
	}
	if (links) {
		warnx("%s: TCB_SYMLINKS is not supported",
		    tool_path(&c->t, "login.defs"));
		return -1;
	}
	if (tool_groups_plan(&c->t, &c->g) < 0)
		return -1;
	c->dirgid = l.auth ? c->g.auth : c->g.shadow;
	c->dirmode = l.dirmode;
	c->filemode = l.filemode;
	return 0;
}

/* Make an empty private staging directory PARENT/NAME. */
static int
make_stage(struct conv *c, int parent, const char *name)
{
	if (owlet_rmtree(parent, name) < 0 || mkdirat(parent, name, 0700) < 0) {
		warn("cannot create %s", tool_path(&c->t, name));
		return -1;
	}
	c->stagefd = owlet_open_dir(parent, name);
	if (c->stagefd < 0) {
		warn("cannot open %s", tool_path(&c->t, name));
		unlinkat(parent, name, AT_REMOVEDIR);
		return -1;
	}
	return 0;
}

static int
publish_new(struct conv *c)
{
	if (fchown(c->stagefd, 0, c->g.shadow) < 0 ||
	    fchmod(c->stagefd, OWLET_TCB_DIR_MODE) < 0 ||
	    syncfs(c->stagefd) < 0) {
		warn("%s", tool_path(&c->t, STAGE_NEW));
		return -1;
	}
	if (tool_groups_commit(&c->t, &c->g) < 0)
		return -1;
	if (renameat2(c->t.etcfd, STAGE_NEW, c->t.etcfd, "tcb",
	    RENAME_NOREPLACE) < 0) {
		warn("cannot rename %s to %s", tool_path(&c->t, STAGE_NEW),
		    tool_path(&c->t, "tcb"));
		return -1;
	}
	if (fsync(c->t.etcfd) < 0)
		warn("fsync %s/etc", c->t.root);
	return 0;
}

static int
publish_incoming(struct conv *c)
{
	struct dirent *de;
	DIR *d;
	int rc = 0;

	if (syncfs(c->stagefd) < 0) {
		warn("syncfs");
		return -1;
	}
	if (tool_groups_commit(&c->t, &c->g) < 0)
		return -1;
	d = owlet_opendir_at(c->stagefd);
	if (!d) {
		warn("%s", STAGE_INCOMING);
		return -1;
	}
	while ((de = readdir(d)))
		if (owlet_name_ok(de->d_name) && renameat2(c->stagefd,
		    de->d_name, c->tcbfd, de->d_name, RENAME_NOREPLACE) < 0) {
			warn("cannot add %s", de->d_name);
			rc = -1;
			break;
		}
	closedir(d);
	if (fsync(c->tcbfd) < 0)
		warn("fsync %s", tool_path(&c->t, "tcb"));
	return rc;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "root", required_argument, NULL, 'R' },
		{ "lock-fd", required_argument, NULL, 'L' },
		{ "incremental", no_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct conv c = { .tcbfd = -1, .stagefd = -1 };
	const char *root = NULL, *stage;
	int stage_parent, ch, ok = 0, lockfd = -1;

	while ((ch = getopt_long(argc, argv, "R:ih", opts, NULL)) != -1) {
		switch (ch) {
		case 'R': root = optarg; break;
		case 'L': lockfd = tool_lock_fd(optarg); break;
		case 'i': c.incremental = 1; break;
		default: usage();
		}
	}
	if (optind != argc)
		usage();
	tool_start();
	if (tool_open(&c.t, root, lockfd) < 0 || read_config(&c) < 0)
		goto out;

	if (c.incremental) {
		c.tcbfd = owlet_open_dir(c.t.etcfd, "tcb");
		if (c.tcbfd < 0) {
			warn("%s", tool_path(&c.t, "tcb"));
			goto out;
		}
		stage_parent = c.tcbfd;
		stage = STAGE_INCOMING;
	} else {
		if (faccessat(c.t.etcfd, "tcb", F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
			warnx("%s exists; remove it first or use --incremental",
			    tool_path(&c.t, "tcb"));
			goto out;
		}
		stage_parent = c.t.etcfd;
		stage = STAGE_NEW;
	}
	if (make_stage(&c, stage_parent, stage) < 0)
		goto out;
	if (for_each_line(&c, "shadow", stage_one) < 0 ||
	    for_each_line(&c, "passwd", own_one) < 0)
		goto cleanup;
	if (c.owned != c.staged) {
		report_orphans(&c);
		goto cleanup;
	}
	if (tool_interrupted())
		goto cleanup;
	if ((c.incremental ? publish_incoming(&c) : publish_new(&c)) < 0)
		goto cleanup;
	ok = 1;
cleanup:
	if (!ok)
		tool_groups_rollback(&c.t, &c.g);
	else
		tool_groups_done(&c.t, &c.g);
	if (c.stagefd >= 0)
		close(c.stagefd);
	if ((!ok || c.incremental) && owlet_rmtree(stage_parent, stage) < 0)
		warn("cannot remove %s", stage);
out:
	if (c.tcbfd >= 0)
		close(c.tcbfd);
	tool_close(&c.t);
	return ok ? 0 : 1;
}
