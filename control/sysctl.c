/*
 * Kernel settings.  The persistent form is a "KEY = VALUE" line in
 * /etc/sysctl.d/99-sysctl-control.conf (after every packaged file in
 * systemd-sysctl's order, so it wins over packaged defaults, and before
 * the administrator's /etc/sysctl.conf); "-" means control sets nothing.
 * When control acts on the running system (no --root), the value also
 * goes to /proc/sys at once and the running value must agree for the
 * state to hold: net.ipv4.ping_group_range is per network namespace, and
 * the test of a state is what the kernel enforces now, not what a file
 * promises.
 *
 * Where the kernel is someone else's, a key is a file only: in a chroot
 * (an image build runs on the build host's kernel) every key but the
 * net.* keys of a private network namespace; in a container every key
 * but the net.* keys it may write (container_owns): the host or the
 * runtime sets them.  A key the running kernel does
 * not have (no /proc/sys file: Yama not built in, a key newer than the
 * kernel, a Debian-only key on another kernel) has nothing to enforce or
 * contradict: it holds by its file alone and is set in the file only.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"
#include "owlet.h"

#define SYSCTL_FILE	"/" CTL_SYSCTL_FILE
#define VALUE_MAX	256

static void
proc_path(const char *key, char *buf, size_t len)
{
	size_t i;

	snprintf(buf, len, "/proc/sys/%s", key);
	for (i = strlen("/proc/sys/"); buf[i]; i++)
		if (buf[i] == '.')
			buf[i] = '/';
}

/* A key of a network namespace; every other key is the kernel's. */
static int
per_netns(const char *key)
{
	return strncmp(key, "net.", 4) == 0;
}

/*
 * A key a container sets itself: one of its own network namespace, where
 * the runtime left /proc/sys writable (LXC, nspawn).  Under podman or
 * docker /proc/sys is read-only: there every key is the runtime's (its
 * --sysctl flags), like the host's global ones.
 */
static int
container_owns(const char *key)
{
	char path[256];

	if (!per_netns(key))
		return 0;
	proc_path(key, path, sizeof(path));
	return access(path, W_OK) == 0;
}

int
sysctl_file_only(const struct ctl *c, const char *key)
{
	if (!c->live)
		return 1;
	if (c->chroot)
		return !(c->netns && per_netns(key));
	return c->container && !container_owns(key);
}

int
sysctl_available(const struct ctl *c, const char *key)
{
	char path[256];

	if (sysctl_file_only(c, key))
		return 1;
	proc_path(key, path, sizeof(path));
	return access(path, F_OK) == 0 || errno != ENOENT;
}

/* The running value, blanks normalised; 0 or -1. */
static int
read_live(const char *key, char *out, size_t len)
{
	char path[256], raw[VALUE_MAX];
	ssize_t n;
	size_t i, o = 0;
	int fd;

	proc_path(key, path, sizeof(path));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = owlet_read_full(fd, raw, sizeof(raw) - 1);
	close(fd);
	if (n < 0)
		return -1;
	for (i = 0; i < (size_t)n && o + 1 < len; i++) {
		int blank = raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n';
		if (!blank)
			out[o++] = raw[i];
		else if (o && out[o - 1] != ' ')
			out[o++] = ' ';
	}
	while (o && out[o - 1] == ' ')
		o--;
	out[o] = '\0';
	return 0;
}

/* Write VALUE to /proc/sys/KEY. */
static int
sysctl_write_live(const char *key, const char *value)
{
	char path[256];
	int fd, rc;

	proc_path(key, path, sizeof(path));
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	rc = owlet_write_full(fd, value, strlen(value));
	if (close(fd) < 0)
		rc = -1;
	return rc;
}

/* Undo: the recorded live value back to /proc/sys/KEY. */
static int
revert_live(struct ctl *c, const struct undo_rec *r)
{
	return sysctl_write_live(r->path, r->data);
}

/* A copy of A whose values are the whole "KEY = VALUE" lines. */
static void
as_lines(const struct act *a, struct act *l,
    char buf[FAC_ALTS_MAX][FAC_TEXT_MAX + 1])
{
	int i;

	*l = *a;
	for (i = 0; i < a->nalt; i++) {
		if (!a->alt[i])
			continue;
		snprintf(buf[i], FAC_TEXT_MAX + 1, "%s = %s", a->path, a->alt[i]);
		l->alt[i] = buf[i];
	}
}

static int live_is_one_of(struct ctl *c, const struct act *a,
    const char *live, int none_ok);

int
sysctl_holds(struct ctl *c, const struct act *a)
{
	char buf[FAC_ALTS_MAX][FAC_TEXT_MAX + 1], live[VALUE_MAX];
	struct act l;
	int rc;

	/* A container's own view of the host's settings: the running
	 * value alone, whatever the container's files say. */
	if (c->hostview && c->container && !container_owns(a->path)) {
		if (read_live(a->path, live, sizeof(live)) < 0)
			return errno == ENOENT ? 1 : -1;
		return live_is_one_of(c, a, live, 1);
	}
	as_lines(a, &l, buf);
	rc = text_lines_hold(c, &l, SYSCTL_FILE, a->path);
	if (rc != 1 || sysctl_file_only(c, a->path) || !a->alt[0])
		return rc;
	/* The file holds one of the values; the kernel must run one of
	 * them too (a value, not "-": absence says nothing of the kernel). */
	if (read_live(a->path, live, sizeof(live)) < 0) {
		if (errno == ENOENT)
			return 1;	/* not in this kernel: the file decides */
		warn("/proc/sys: %s", a->path);
		return -1;
	}
	return live_is_one_of(c, a, live, 0);
}

/* LIVE equals one of A's values (1/0/-1); with NONE_OK, an action with
 * only "-" holds whatever runs. */
static int
live_is_one_of(struct ctl *c, const struct act *a, const char *live,
    int none_ok)
{
	char want[VALUE_MAX];
	int rc, values = 0;

	for (rc = 0; rc < a->nalt; rc++) {
		if (!a->alt[rc])
			continue;
		values++;
		switch (ctl_expand(c, a->alt[rc], want, sizeof(want))) {
		case -2:
			continue;
		case -1:
			return -1;
		}
		if (strcmp(live, want) == 0)
			return 1;
	}
	return none_ok && values == 0;
}

int
sysctl_apply(struct ctl *c, const struct act *a)
{
	char value[VALUE_MAX], line[FAC_TEXT_MAX + 1] = "", old[VALUE_MAX];

	if (a->alt[0] && ctl_expand(c, a->alt[0], value, sizeof(value)) < 0)
		return -1;
	if (a->alt[0])
		snprintf(line, sizeof(line), "%s = %s", a->path, value);
	/* text.c makes /etc/sysctl.d if missing */
	if (text_set_lines(c, SYSCTL_FILE, a->path, a->alt[0] ? line : NULL) < 0)
		return -1;
	if (sysctl_file_only(c, a->path) || !a->alt[0])
		return 0;
	if (read_live(a->path, old, sizeof(old)) < 0) {
		if (errno == ENOENT)
			return 0;	/* not in this kernel: the file is all */
		warn("/proc/sys: %s", a->path);
		return -1;
	}
	if (undo_push(c, revert_live, NULL, a->path, old, strlen(old), NULL,
	    0) < 0 ||
	    sysctl_write_live(a->path, value) < 0) {
		warn("/proc/sys: cannot set %s = %s", a->path, value);
		return -1;
	}
	return 0;
}
