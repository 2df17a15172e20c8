/*
 * The tree walk, in canonical order (see seal.h), relative to directory
 * fds: every directory is opened O_DIRECTORY|O_NOFOLLOW from its parent's
 * fd and every entry is examined with fstatat(AT_SYMLINK_NOFOLLOW), so a
 * symlink is recorded, never followed.  Regular files are opened
 * O_NOFOLLOW|O_NONBLOCK (|O_NOATIME when permitted) and handed, with their
 * fd, to the caller for hashing; the fd is fstat'ed and must be the inode
 * the walk saw.  Memory: one sorted name list per directory level.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "seal.h"
#include "walk.h"

struct name {
	char *s;
	unsigned char d_type;
};

struct frame {
	int dfd;
	char *path;		/* "./a/b" */
	struct name *names;
	size_t n, i;
};

static int
name_cmp(const void *x, const void *y)
{
	const struct name *a = x, *b = y;

	return strcmp(a->s, b->s);
}

static void
free_names(struct frame *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		free(f->names[i].s);
	free(f->names);
	f->names = NULL;
	f->n = f->i = 0;
}

/* Read and sort a directory's names (without "." and ".."). */
static int
read_dir(struct frame *f)
{
	size_t cap = 64;
	struct dirent *de;
	int fd;
	DIR *d;

	fd = openat(f->dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	f->names = malloc(cap * sizeof(*f->names));
	if (!f->names) {
		closedir(d);
		return -1;
	}
	while ((errno = 0, de = readdir(d))) {
		if (de->d_name[0] == '.' && (!de->d_name[1] ||
		    (de->d_name[1] == '.' && !de->d_name[2])))
			continue;
		if (f->n == cap) {
			struct name *nn = realloc(f->names, 2 * cap *
			    sizeof(*nn));
			if (!nn)
				goto fail;
			f->names = nn;
			cap *= 2;
		}
		f->names[f->n].s = strdup(de->d_name);
		if (!f->names[f->n].s)
			goto fail;
		f->names[f->n++].d_type = de->d_type;
	}
	if (errno)
		goto fail;
	closedir(d);
	qsort(f->names, f->n, sizeof(*f->names), name_cmp);
	return 0;
fail:
	closedir(d);
	free_names(f);
	return -1;
}

static enum seal_type
type_of(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFREG: return T_FILE;
	case S_IFDIR: return T_DIR;
	case S_IFLNK: return T_LINK;
	case S_IFBLK: return T_BLOCK;
	case S_IFCHR: return T_CHAR;
	case S_IFIFO: return T_FIFO;
	case S_IFSOCK: return T_SOCKET;
	}
	return T_NONE;
}

static void
fill(struct seal_entry *e, const struct stat *st)
{
	e->type = type_of(st->st_mode);
	e->mode = st->st_mode & 07777;
	e->uid = st->st_uid;
	e->gid = st->st_gid;
	e->size = (uint64_t)st->st_size;
	e->nlink = (uint64_t)st->st_nlink;
	e->mtime = st->st_mtim;
	e->rdev_major = major(st->st_rdev);
	e->rdev_minor = minor(st->st_rdev);
	e->keys = K_TYPE | K_MODE | K_UID | K_GID | K_UNAME | K_GNAME |
	    K_TIME | K_NLINK;
	if (e->type == T_FILE)
		e->keys |= K_SIZE | K_SHA256 | K_CAPS;
	if (e->type == T_LINK)
		e->keys |= K_LINK;
	if (e->type == T_BLOCK || e->type == T_CHAR)
		e->keys |= K_DEVICE;
}

static int
open_file(int dfd, const char *name)
{
	int flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
	int fd;

	fd = openat(dfd, name, flags | O_NOATIME);
	if (fd < 0 && errno == EPERM)	/* O_NOATIME needs ownership */
		fd = openat(dfd, name, flags);
	return fd;
}

/*
 * Stat NAME.  A name readdir calls a regular file is opened first and the
 * open fd is fstat'ed (one call fewer than fstatat+open+fstat, and no
 * window between them); anything else, or a name that is no longer a
 * regular file, goes through fstatat and is never opened: opening a device
 * can have side effects.  *FD is the open regular file or -1.
 */
static int
stat_entry(int dfd, const struct name *n, int want_fd, struct stat *st,
    int *fd)
{
	*fd = -1;
	if (want_fd && n->d_type == DT_REG) {
		*fd = open_file(dfd, n->s);
		if (*fd >= 0) {
			if (fstat(*fd, st) == 0 && S_ISREG(st->st_mode))
				return 0;
			close(*fd);
			*fd = -1;
		}
	}
	if (fstatat(dfd, n->s, st, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	if (want_fd && S_ISREG(st->st_mode)) {
		struct stat fst;

		*fd = open_file(dfd, n->s);
		if (*fd < 0)
			return -1;
		if (fstat(*fd, &fst) < 0 || fst.st_dev != st->st_dev ||
		    fst.st_ino != st->st_ino) {
			close(*fd);
			*fd = -1;
			errno = EAGAIN;	/* replaced between stat and open */
			return -1;
		}
	}
	return 0;
}

static char *
join(const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);
	char *p = malloc(a + b + 2);

	if (p) {
		memcpy(p, dir, a);
		p[a] = '/';
		memcpy(p + a + 1, name, b + 1);
	}
	return p;
}

static int
excluded(const struct walk_opts *o, const char *path)
{
	size_t i;

	for (i = 0; i < o->nexclude; i++)
		if (strcmp(path + 2, o->exclude[i]) == 0)	/* skip "./" */
			return 1;
	return 0;
}

/* Emit one entry of frame F; push a frame if it is a directory. */
static int
visit(const struct walk_opts *o, struct frame *stack, size_t *depth,
    const struct name *n)
{
	const char *name = n->s;
	struct frame *f = &stack[*depth - 1];
	struct seal_entry e = { 0 };
	struct stat st;
	int fd = -1;

	e.path = join(f->path, name);
	if (!e.path)
		return -1;
	if (excluded(o, e.path)) {
		free(e.path);
		return 0;
	}
	if (stat_entry(f->dfd, n, (o->keys & (K_SHA256 | K_CAPS)) != 0, &st,
	    &fd) < 0) {
		e.error = errno;
		if (errno == ENOENT) {	/* vanished: not part of the tree */
			free(e.path);
			return 0;
		}
	} else {
		fill(&e, &st);
	}
	if (!e.error && e.type == T_LINK) {
		char buf[4096 + 1];
		ssize_t len = readlinkat(f->dfd, name, buf, sizeof(buf) - 1);

		if (len < 0)
			e.error = errno;
		else {
			buf[len] = '\0';
			e.link = strdup(buf);
		}
	}
	if (!e.error && e.type == T_DIR) {
		struct frame *nf;
		int dfd;

		if (*depth == WALK_DEPTH_MAX) {
			e.error = ELOOP;
		} else if ((dfd = openat(f->dfd, name, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC)) < 0) {
			e.error = errno;
		} else {
			nf = &stack[(*depth)++];
			memset(nf, 0, sizeof(*nf));
			nf->dfd = dfd;
			nf->path = strdup(e.path);
			if (!nf->path || read_dir(nf) < 0) {
				e.error = errno ? errno : ENOMEM;
				close(dfd);
				free(nf->path);
				(*depth)--;
			}
		}
	}
	return o->fn(o->ctx, &e, fd, WALK_ENTRY);
}

int
seal_walk(const struct walk_opts *o)
{
	struct frame *stack;
	struct seal_entry root = { 0 };
	struct stat st;
	size_t depth = 0;
	int rc = 0;

	stack = calloc(WALK_DEPTH_MAX, sizeof(*stack));
	if (!stack)
		return -1;
	stack[0].dfd = open(o->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (stack[0].dfd < 0 || fstat(stack[0].dfd, &st) < 0) {
		free(stack);
		return -1;
	}
	root.path = strdup(".");
	fill(&root, &st);
	stack[0].path = strdup(".");
	if (!root.path || !stack[0].path || read_dir(&stack[0]) < 0) {
		free(root.path);	/* not handed to o->fn yet */
		rc = -1;
		goto out;
	}
	depth = 1;
	if (o->fn(o->ctx, &root, -1, WALK_ENTRY) < 0) {
		rc = -1;
		goto out;
	}
	while (depth > 0 && rc == 0) {
		struct frame *f = &stack[depth - 1];

		if (f->i == f->n) {
			free_names(f);
			close(f->dfd);
			free(f->path);
			depth--;
			rc = o->fn(o->ctx, NULL, -1, WALK_LEAVE);
			continue;
		}
		rc = visit(o, stack, &depth, &f->names[f->i++]);
	}
out:
	while (depth > 0) {
		struct frame *f = &stack[--depth];
		free_names(f);
		close(f->dfd);
		free(f->path);
	}
	free(stack);
	return rc;
}
