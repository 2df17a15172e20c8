/*
 * Kernel boot parameters.  The kernel command line of a disk image is
 * the one line of /etc/kernel/cmdline (owlet's esp-update copies it into
 * the boot loader's entries; systemd's kernel-install reads it too).  A
 * `cmdline NAME TOKEN|-` action owns the tokens of that line whose
 * parameter name (the part before '=') is NAME: it holds when there is
 * exactly one and it is TOKEN, or, for "-", when there is none.  Setting
 * it puts TOKEN in place of the first such token (or at the end) and
 * drops the others; "-" drops them all.  Every other token is kept, in
 * its order; the file is written as its tokens joined by single blanks.
 *
 * A parameter acts only when the kernel boots.  The state of a facility
 * is therefore what the file says, on the running system too; when the
 * running kernel was started with other tokens of NAME (/proc/cmdline),
 * the state is noted as taking effect at the next boot, which is not
 * drift.  In a chroot, under --root and in a container the running
 * kernel is not this root's: nothing is compared.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"
#include "owlet.h"

#define CMDLINE_FILE	"/" CTL_CMDLINE_FILE
#define ESP_FLAG_DIR	"run/owlet"
#define ESP_FLAG	"esp-update.stale"
#define PROC_CMDLINE_MAX	8192	/* COMMAND_LINE_SIZE is 2048 on x86 */

static int
is_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

/* The next token of [*P, END): its start, length in *N; NULL at the end. */
static const char *
next_token(const char **p, const char *end, size_t *n)
{
	const char *t = *p;

	while (t < end && is_blank(*t))
		t++;
	if (t == end)
		return NULL;
	for (*n = 0; t + *n < end && !is_blank(t[*n]); (*n)++)
		;
	*p = t + *n;
	return t;
}

/* Is the token T (N bytes) one of parameter NAME? */
static int
of_param(const char *t, size_t n, const char *name)
{
	size_t nl = strlen(name);

	return n >= nl && memcmp(t, name, nl) == 0 && (n == nl || t[nl] == '=');
}

/*
 * The tokens of NAME in DATA (LEN bytes; NULL: none), joined by single
 * blanks into OUT; their number, or -1 if OUT is too small.
 */
static int
param_tokens(const char *data, size_t len, const char *name, char *out,
    size_t olen)
{
	const char *p = data, *end = data ? data + len : NULL, *t;
	size_t n, used = 0;
	int count = 0;

	out[0] = '\0';
	while (data && (t = next_token(&p, end, &n))) {
		if (!of_param(t, n, name))
			continue;
		if (used + n + 2 > olen)
			return -1;
		if (count++)
			out[used++] = ' ';
		memcpy(out + used, t, n);
		used += n;
		out[used] = '\0';
	}
	return count;
}

int
cmdline_holds(struct ctl *c, const struct act *a)
{
	char mine[FAC_TEXT_MAX + 1];
	struct stat st;
	char *data = NULL;
	size_t len = 0;
	int i, rc, count;

	if ((rc = text_read(c, CMDLINE_FILE, &data, &len, &st)) < 0)
		return -1;
	count = param_tokens(rc == 0 ? data : NULL, len, a->path, mine,
	    sizeof(mine));
	free(data);
	for (i = 0; i < a->nalt; i++) {
		if (!a->alt[i] && count == 0)
			return 1;
		if (a->alt[i] && count == 1 && strcmp(a->alt[i], mine) == 0)
			return 1;
	}
	return 0;
}

/* Is the running kernel this root's (not a chroot's, a container's)? */
static int
kernel_is_ours(const struct ctl *c)
{
	return c->live && !c->chroot && !c->container;
}

/*
 * A line written on the running system is also flagged for the boot
 * entries: owlet-esp-update.path starts esp-update when the file changes
 * (PathChanged=), but systemd stops watching while esp-update runs and
 * never looks back, so a second switch made meanwhile would reach the
 * ESP only at the next kernel update.  The flag is level-triggered
 * (PathExists=, checked again when the service ends); esp-update removes
 * it before it reads the file.  /run is root's: a failure is reported,
 * the switch itself stands.
 */
static void
flag_boot_entries(struct ctl *c)
{
	int dfd, fd = -1;

	if (!kernel_is_ours(c))
		return;
	if ((dfd = ctl_mkdirs(c, ESP_FLAG_DIR, 0755)) >= 0) {
		fd = openat(dfd, ESP_FLAG, O_WRONLY | O_CREAT | O_NOFOLLOW |
		    O_CLOEXEC, 0644);
		close(dfd);
	}
	if (fd < 0)
		warn("/%s/%s: the boot entries may not follow; run "
		    "/usr/lib/owlet/esp-update", ESP_FLAG_DIR, ESP_FLAG);
	else
		close(fd);
}

int
cmdline_apply(struct ctl *c, const struct act *a)
{
	const char *p, *end, *t, *want = a->alt[0];
	struct stat st;
	char *data = NULL, *out;
	size_t len = 0, n, used = 0;
	int had, done = 0, rc;

	if ((had = text_read(c, CMDLINE_FILE, &data, &len, &st)) < 0)
		return -1;
	if (had == 1 && !want)
		return 0;
	if (!(out = malloc(len + (want ? strlen(want) : 0) + 3))) {
		free(data);
		warnx("out of memory");
		return -1;
	}
	p = data;
	end = had == 0 ? data + len : NULL;
	while (had == 0 && (t = next_token(&p, end, &n))) {
		if (of_param(t, n, a->path)) {
			if (!want || done)
				continue;
			t = want;
			n = strlen(want);
			done = 1;
		}
		if (used)
			out[used++] = ' ';
		memcpy(out + used, t, n);
		used += n;
	}
	if (want && !done) {
		if (used)
			out[used++] = ' ';
		memcpy(out + used, want, strlen(want));
		used += strlen(want);
	}
	out[used++] = '\n';
	rc = text_write(c, CMDLINE_FILE, data, len, had == 0 ? &st : NULL, 0644,
	    out, used);
	free(data);
	free(out);
	if (rc == 0)
		flag_boot_entries(c);
	return rc;
}

/* The running kernel's command line into BUF: 0, or -1 (errno). */
static int
read_proc_cmdline(char *buf, size_t len, size_t *n)
{
	ssize_t r;
	int fd;

	fd = open("/proc/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	r = owlet_read_full(fd, buf, len);
	close(fd);
	if (r < 0)
		return -1;
	*n = (size_t)r;
	return 0;
}

int
cmdline_pending(struct ctl *c, const struct act *a)
{
	char mine[FAC_TEXT_MAX + 1], running[FAC_TEXT_MAX + 1];
	char *proc, *data = NULL;
	struct stat st;
	size_t len = 0, plen;
	int rc, pending = 0;

	if (!kernel_is_ours(c))
		return 0;
	if (!(proc = malloc(PROC_CMDLINE_MAX)))
		return 0;
	if (read_proc_cmdline(proc, PROC_CMDLINE_MAX, &plen) == 0 &&
	    (rc = text_read(c, CMDLINE_FILE, &data, &len, &st)) >= 0) {
		/* too many tokens of NAME on either side: say so, it is
		 * not what any state writes */
		pending = param_tokens(rc == 0 ? data : NULL, len, a->path,
		    mine, sizeof(mine)) < 0 ||
		    param_tokens(proc, plen, a->path, running,
		    sizeof(running)) < 0 || strcmp(mine, running) != 0;
	}
	free(data);
	free(proc);
	return pending;
}
