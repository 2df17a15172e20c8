/*
 * owlet-setup check: pwck for a tcb system.  Every passwd entry is well
 * formed and unique; with /etc/tcb, every user whose password field is
 * "x" has /etc/tcb/USER/shadow (a regular single-link file owned by the
 * user, holding exactly one valid shadow line for that user, in a
 * directory the user owns), and every tcb directory has a passwd user.
 * UID-0 accounts are listed, since each one is a root login.  One line per
 * problem; exit status 1 if there is any.
 */
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "owlet.h"
#include "setup.h"

#define USERS_MAX	100000

struct user {
	char name[OWLET_NAME_MAX + 1];
	uid_t uid;
	int shadowed;	/* password field "x" */
};

static int
by_name(const void *a, const void *b)
{
	return strcmp(((const struct user *)a)->name,
	    ((const struct user *)b)->name);
}

static int __attribute__((format(printf, 2, 3)))
problem(int *n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	return ++*n;
}

static int
check_tcb_user(struct setup *s, int tfd, const struct user *u, int *n)
{
	char *data, *nl;
	struct stat st;
	size_t len;
	int ufd;

	ufd = owlet_open_dir(tfd, u->name);
	if (ufd < 0 || fstat(ufd, &st) < 0)
		return problem(n, "%s/tcb/%s: missing (passwd says \"x\")",
		    setup_path(s, "/etc"), u->name);
	if (st.st_uid != u->uid)
		problem(n, "%s/tcb/%s: directory not owned by the user",
		    setup_path(s, "/etc"), u->name);
	if (owlet_read_file(ufd, "shadow", OWLET_TCB_FILE_MAX, &data, &len,
	    &st) < 0) {
		close(ufd);
		return problem(n, "%s/tcb/%s/shadow: missing, or not a regular "
		    "single-link file", setup_path(s, "/etc"), u->name);
	}
	close(ufd);
	if (st.st_uid != u->uid)
		problem(n, "%s/tcb/%s/shadow: not owned by the user",
		    setup_path(s, "/etc"), u->name);
	nl = memchr(data, '\n', len);
	if (!nl || (size_t)(nl - data) + 1 != len ||
	    owlet_shadow_check(data, (size_t)(nl - data)) < 0 ||
	    strncmp(data, u->name, strlen(u->name)) != 0 ||
	    data[strlen(u->name)] != ':')
		problem(n, "%s/tcb/%s/shadow: not exactly one valid line for "
		    "the user", setup_path(s, "/etc"), u->name);
	explicit_bzero(data, len);
	free(data);
	return 0;
}

static void
check_tcb(struct setup *s, struct user *u, size_t nu, int *n)
{
	char esc[OWLET_ESC_LEN(NAME_MAX)];
	struct dirent *e;
	struct user key;
	size_t i;
	DIR *d;
	int tfd = owlet_open_dir(s->etcfd, "tcb");

	if (tfd < 0) {
		problem(n, "%s: cannot open", setup_path(s, "/etc/tcb"));
		return;
	}
	for (i = 0; i < nu; i++)
		if (u[i].shadowed)
			check_tcb_user(s, tfd, &u[i], n);
	if ((d = owlet_opendir_at(tfd))) {
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			/* any byte but '/' and NUL: escaped before printing */
			owlet_esc(esc, sizeof(esc), e->d_name);
			if (strlen(e->d_name) >= sizeof(key.name)) {
				problem(n, "%s/tcb/%s: name too long for a user",
				    setup_path(s, "/etc"), esc);
				continue;
			}
			memcpy(key.name, e->d_name, strlen(e->d_name) + 1);
			if (!bsearch(&key, u, nu, sizeof(*u), by_name))
				problem(n, "%s/tcb/%s: no such user in passwd",
				    setup_path(s, "/etc"), esc);
		}
		closedir(d);
	}
	close(tfd);
}

struct scan {
	struct setup *s;
	struct user *u;
	size_t nu;
	int n;
};

static int
scan_one(void *arg, unsigned long lineno, char **f, int nf)
{
	struct scan *c = arg;
	const char *path = setup_path(c->s, "/etc/passwd");
	unsigned int uid;

	if (nf != 7 || !owlet_name_ok(f[0]) || owlet_parse_id(f[2], &uid) < 0) {
		problem(&c->n, "%s:%lu: malformed entry", path, lineno);
		return 0;
	}
	if (c->nu == USERS_MAX) {
		problem(&c->n, "%s:%lu: too many entries to check", path, lineno);
		return 1;
	}
	snprintf(c->u[c->nu].name, sizeof(c->u[c->nu].name), "%s", f[0]);
	c->u[c->nu].uid = uid;
	c->u[c->nu].shadowed = strcmp(f[1], "x") == 0;
	if (uid == 0)
		printf("%s:%lu: %s has UID 0 (a root login)\n", path, lineno,
		    f[0]);
	c->nu++;
	return 0;
}

int
check_accounts(struct setup *s)
{
	struct scan c = { s, calloc(USERS_MAX, sizeof(struct user)), 0, 0 };
	size_t i;

	if (!c.u) {
		warnx("out of memory");
		return -1;
	}
	if (etc_passwd_each(s, scan_one, &c) < 0)
		c.n++;
	qsort(c.u, c.nu, sizeof(*c.u), by_name);
	for (i = 1; i < c.nu; i++)
		if (strcmp(c.u[i].name, c.u[i - 1].name) == 0)
			problem(&c.n, "%s: duplicate user %s",
			    setup_path(s, "/etc/passwd"), c.u[i].name);
	if (shadow_is_tcb(s))
		check_tcb(s, c.u, c.nu, &c.n);
	printf("%zu users, %d problem%s\n", c.nu, c.n, c.n == 1 ? "" : "s");
	free(c.u);
	return c.n ? 1 : 0;
}
