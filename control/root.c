/*
 * Reaching objects under the root, and the root's own users and groups.
 * Names are resolved from ROOT/etc/passwd and ROOT/etc/group, never
 * through NSS: with --root the host's databases say nothing about the
 * image, and NSS modules are code we do not want to run as root here.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctl.h"
#include "owlet.h"

const char *
ctl_path(const struct ctl *c, const char *path)
{
	return owlet_root_path(c->root, path);
}

int
ctl_fmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* A directory we may act below: root-owned, nobody else can rename
 * entries in it.  The root directory itself is the caller's choice. */
static int
dir_safe(int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -1;
	if (!S_ISDIR(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022)) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

int
ctl_open_parent(struct ctl *c, const char *path, const char **base)
{
	char comp[NAME_MAX + 1];
	const char *p = path + 1, *slash;
	int fd, nfd;

	if (path[0] != '/') {
		errno = EINVAL;
		return -1;
	}
	fd = fcntl(c->rootfd, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return -1;
	while ((slash = strchr(p, '/'))) {
		size_t n = (size_t)(slash - p);
		if (n == 0 || n > NAME_MAX) {
			close(fd);
			errno = EINVAL;
			return -1;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		nfd = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		if (nfd < 0) {
			/* O_NOFOLLOW|O_DIRECTORY on a symlink fails ENOTDIR;
			 * say what it is. */
			struct stat st;
			int e = errno;
			if (e == ENOTDIR && fstatat(fd, comp, &st,
			    AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
				e = ELOOP;
			close(fd);
			errno = e;
			return -1;
		}
		close(fd);
		if (dir_safe(nfd) < 0) {
			int e = errno;
			close(nfd);
			errno = e;
			return -1;
		}
		fd = nfd;
		p = slash + 1;
	}
	*base = p;
	return fd;
}

int
ctl_mkdirs(struct ctl *c, const char *rel, mode_t mode)
{
	char comp[NAME_MAX + 1];
	const char *p = rel;
	int fd, nfd;

	fd = fcntl(c->rootfd, F_DUPFD_CLOEXEC, 3);
	while (fd >= 0 && *p) {
		size_t n = strcspn(p, "/");
		if (n == 0 || n > NAME_MAX) {
			close(fd);
			errno = EINVAL;
			return -1;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		if (mkdirat(fd, comp, mode) < 0 && errno != EEXIST) {
			close(fd);
			return -1;
		}
		nfd = owlet_open_dir(fd, comp);
		close(fd);
		if (nfd >= 0 && dir_safe(nfd) < 0) {
			close(nfd);
			errno = EPERM;
			return -1;
		}
		fd = nfd;
		p += n;
		if (*p == '/')
			p++;
	}
	return fd;
}

/*
 * Find NAME (by=0) or ID (by=1) in ROOT/etc/FILE (passwd or group, id in
 * field 3).  1 found, 0 not, -1 error (*LINENO: the line read last, 0 if
 * the file could not be opened).
 */
static int
db_lookup(struct ctl *c, const char *file, int by_id, const char *name,
    unsigned int *id, char *namebuf, size_t namelen, unsigned long *lineno)
{
	struct owlet_dbent e;
	struct owlet_db *db;
	int etcfd, rc, err;

	*lineno = 0;
	etcfd = owlet_open_dir(c->rootfd, "etc");
	if (etcfd < 0)
		return -1;
	db = owlet_db_open(etcfd, file);
	err = errno;
	close(etcfd);
	if (!db) {
		errno = err;
		return -1;
	}
	rc = owlet_db_find(db, by_id ? NULL : name, by_id ? *id : 0, &e);
	err = errno;
	if (rc == 1 && by_id)
		snprintf(namebuf, namelen, "%s", e.f[0]);
	else if (rc == 1)
		*id = e.id;
	*lineno = owlet_db_lineno(db);
	owlet_db_close(db);
	errno = err;
	return rc;
}

static int
lookup_id(struct ctl *c, const char *file, const char *name, unsigned int *id)
{
	const char *path = ctl_path(c, file[0] == 'p' ? "/etc/passwd" :
	    "/etc/group");
	unsigned long lineno;
	int rc = db_lookup(c, file, 0, name, id, NULL, 0, &lineno);

	if (rc == 0 && !c->detecting)
		warnx("%s: no %s named %s", ctl_path(c, "/etc/"),
		    file[0] == 'p' ? "user" : "group", name);
	else if (rc < 0 && lineno)
		warnx("%s:%lu: %s", path, lineno, owlet_db_strerror(errno));
	else if (rc < 0)
		warn("%s", path);
	return rc == 1 ? 0 : -1;
}

int
ctl_uid(struct ctl *c, const char *name, uid_t *uid)
{
	unsigned int v;

	if (lookup_id(c, "passwd", name, &v) < 0)
		return -1;
	*uid = v;
	return 0;
}

int
ctl_gid(struct ctl *c, const char *name, gid_t *gid)
{
	unsigned int v;

	if (lookup_id(c, "group", name, &v) < 0)
		return -1;
	*gid = v;
	return 0;
}

static const char *
id_name(struct ctl *c, const char *file, unsigned int id, char *buf,
    size_t len)
{
	unsigned long lineno;

	if (db_lookup(c, file, 1, NULL, &id, buf, len, &lineno) != 1)
		snprintf(buf, len, "%u", id);
	return buf;
}

const char *
ctl_user_name(struct ctl *c, uid_t uid, char *buf, size_t len)
{
	return id_name(c, "passwd", uid, buf, len);
}

const char *
ctl_group_name(struct ctl *c, gid_t gid, char *buf, size_t len)
{
	return id_name(c, "group", gid, buf, len);
}

int
ctl_expand(struct ctl *c, const char *text, char *out, size_t len)
{
	char name[OWLET_NAME_MAX + 1];
	const char *p = text, *end;
	size_t used = 0;
	unsigned int id;
	uid_t u;
	gid_t g;
	int n;

	while (*p) {
		if (*p != '$') {
			if (used + 1 >= len)
				goto toolong;
			out[used++] = *p++;
			continue;
		}
		/* parse.c admitted only ${gid:NAME} and ${uid:NAME} */
		end = strchr(p, '}');
		n = snprintf(name, sizeof(name), "%.*s", (int)(end - p - 6),
		    p + 6);
		if (n < 0 || (size_t)n >= sizeof(name))
			goto toolong;
		if (p[2] == 'g') {
			if (ctl_gid(c, name, &g) < 0)
				return -2;
			id = g;
		} else {
			if (ctl_uid(c, name, &u) < 0)
				return -2;
			id = u;
		}
		n = snprintf(out + used, len - used, "%u", id);
		if (n < 0 || (size_t)n >= len - used)
			goto toolong;
		used += (size_t)n;
		p = end + 1;
	}
	out[used] = '\0';
	return 0;
toolong:
	warnx("value too long after expansion: %s", text);
	return -1;
}

/*
 * The child gets the root as the directory we opened, not as a name: it is
 * passed as an inherited descriptor and named /proc/self/fd/N, a link that
 * resolves to that very directory whatever happens to its path meanwhile
 * (with --root, a writable parent of the root could otherwise swap another
 * tree in between our open and the child's).  LOCKFD, if >= 0, is our open
 * ETC/.pwd.lock, handed over the same way (see shadow.c).
 */
int
ctl_run_tool(struct ctl *c, const char *prog, int lockfd)
{
	char path[PATH_MAX + 64], rootarg[32], lockarg[16];
	char *argv[6], *envp[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL };
	pid_t pid;
	int status, n = 0;

	snprintf(path, sizeof(path), "%s/%s", c->bindir, prog);
	snprintf(rootarg, sizeof(rootarg), "/proc/self/fd/%d", c->rootfd);
	snprintf(lockarg, sizeof(lockarg), "%d", lockfd);
	argv[n++] = (char *)prog;
	if (c->root[0]) {
		argv[n++] = "--root";
		argv[n++] = rootarg;
	}
	if (lockfd >= 0) {
		argv[n++] = "--lock-fd";
		argv[n++] = lockarg;
	}
	argv[n] = NULL;
	pid = fork();
	if (pid < 0) {
		warn("fork");
		return -1;
	}
	if (pid == 0) {
		if ((c->root[0] && fcntl(c->rootfd, F_SETFD, 0) < 0) ||
		    (lockfd >= 0 && fcntl(lockfd, F_SETFD, 0) < 0)) {
			warn("fcntl");
			_exit(127);
		}
		execve(path, argv, envp);
		warn("%s", path);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			warn("waitpid");
			return -1;
		}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}
