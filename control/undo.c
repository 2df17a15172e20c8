/*
 * The undo log of one switch.  Each object is recorded before its first
 * change; rollback replays the records newest first, so every object ends
 * as it was before the switch began.  Attribute rollback goes through
 * file_transition, so it is privilege-monotone too.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "ctl.h"
#include "owlet.h"

enum undo_kind { U_ATTRS, U_CONTENT, U_SHADOW, U_SYSCTL };

struct undo {
	struct undo *next;
	enum undo_kind kind;
	char path[FAC_PATH_MAX + 1];	/* object, or sysctl key */
	struct stat st;
	char *data;			/* U_ATTRS: caps xattr, U_CONTENT:
					 * file data, U_SYSCTL: value */
	size_t len;
	int flag;			/* U_CONTENT: existed, U_SHADOW:
					 * was tcb */
};

static int
push(struct ctl *c, enum undo_kind kind, const char *path,
    const void *data, size_t len, const struct stat *st, int flag)
{
	struct undo *u = calloc(1, sizeof(*u));

	if (!u || (data && !(u->data = malloc(len + 1)))) {
		free(u);
		warnx("out of memory");
		return -1;
	}
	u->kind = kind;
	snprintf(u->path, sizeof(u->path), "%s", path ? path : "");
	if (data) {
		memcpy(u->data, data, len);
		u->data[len] = '\0';
	}
	u->len = len;
	if (st)
		u->st = *st;
	u->flag = flag;
	u->next = c->undo;
	c->undo = u;
	return 0;
}

int
undo_attrs(struct ctl *c, const char *path, int fd, const struct stat *st)
{
	char caps[256];
	ssize_t n;

	n = fgetxattr(fd, "security.capability", caps, sizeof(caps));
	if (n < 0 && errno != ENODATA && errno != ENOTSUP) {
		warn("%s: cannot read capabilities", ctl_path(c, path));
		return -1;
	}
	return push(c, U_ATTRS, path, n > 0 ? caps : NULL,
	    n > 0 ? (size_t)n : 0, st, 0);
}

int
undo_content(struct ctl *c, const char *path, const char *data, size_t len,
    const struct stat *st)
{
	return push(c, U_CONTENT, path, data, len, st, data != NULL);
}

int
undo_shadow(struct ctl *c, int was_tcb)
{
	return push(c, U_SHADOW, NULL, NULL, 0, NULL, was_tcb);
}

int
undo_live_sysctl(struct ctl *c, const char *key, const char *value)
{
	return push(c, U_SYSCTL, key, value, strlen(value), NULL, 0);
}

static int
restore_attrs(struct ctl *c, const struct undo *u)
{
	const char *base;
	struct stat st;
	int dfd, fd, rc = -1;

	dfd = ctl_open_parent(c, u->path, &base);
	if (dfd < 0)
		return -1;
	fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC | O_NOCTTY);
	close(dfd);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) == 0 && (st.st_mode & S_IFMT) ==
	    (u->st.st_mode & S_IFMT) && st.st_ino == u->st.st_ino)
		rc = file_transition(fd, &st, u->st.st_mode & 07777,
		    u->st.st_uid, u->st.st_gid, NULL, u->data, u->len);
	else
		errno = ESTALE;
	close(fd);
	return rc;
}

static int
restore_content(struct ctl *c, const struct undo *u)
{
	const char *base;
	int dfd, rc;

	dfd = ctl_open_parent(c, u->path, &base);
	if (dfd < 0)
		return -1;
	if (u->flag)
		rc = owlet_write_replace(dfd, base, u->data, u->len,
		    u->st.st_mode & 07777, u->st.st_uid, u->st.st_gid) < 0 ?
		    -1 : 0;
	else
		rc = unlinkat(dfd, base, 0) < 0 && errno != ENOENT ? -1 : 0;
	close(dfd);
	return rc;
}

int
undo_rollback(struct ctl *c)
{
	struct undo *u;
	int rc = 0, r;

	while ((u = c->undo)) {
		c->undo = u->next;
		switch (u->kind) {
		case U_ATTRS:
			r = restore_attrs(c, u);
			break;
		case U_CONTENT:
			r = restore_content(c, u);
			break;
		case U_SHADOW:
			r = shadow_switch(c, u->flag);
			break;
		case U_SYSCTL:
			r = sysctl_write_live(u->path, u->data);
			break;
		default:
			r = -1;
		}
		if (r < 0) {
			warn("%s: could not put back",
			    u->kind == U_SHADOW ? "password scheme" :
			    ctl_path(c, u->path));
			rc = -1;
		}
		free(u->data);
		free(u);
	}
	return rc;
}

void
undo_forget(struct ctl *c)
{
	struct undo *u;

	while ((u = c->undo)) {
		c->undo = u->next;
		free(u->data);
		free(u);
	}
}
