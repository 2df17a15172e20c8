/*
 * PAM stack choices.  A stack is a directory of complete files shipped in
 * /usr/share/owlet/pam/STACK/ (common-auth, ...), each meant to become
 * /etc/pam.d/NAME.  A file in /etc/pam.d "is" stack S when its active
 * lines use every module that tells S apart from the facility's other
 * stacks and none that belongs only to another one (for tcb against
 * unix: pam_tcb.so and not pam_unix.so).  Matching by modules rather than
 * bytes lets an administrator keep local additions (pam_systemd, a
 * pam_faildelay line) without the state turning unknown.
 *
 * Switching away from a stack saves the files as they were under
 * /var/lib/owlet/control/pam/STACK/; switching back restores that copy if
 * it still is that stack, else installs the shipped file.  So
 * `control passwd tcb` then `control passwd traditional` gives back
 * Debian's own pam-auth-update output byte for byte.
 */
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"
#include "owlet.h"

#define MODS_MAX	32
#define MOD_LEN		64
#define STACK_FILES_MAX	8

struct modset {
	int n;
	char m[MODS_MAX][MOD_LEN];
};

static int
mods_has(const struct modset *s, const char *m)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (strcmp(s->m[i], m) == 0)
			return 1;
	return 0;
}

static void
mods_add(struct modset *s, const char *m, size_t n)
{
	char buf[MOD_LEN];

	if (n == 0 || n >= MOD_LEN || s->n == MODS_MAX)
		return;
	memcpy(buf, m, n);
	buf[n] = '\0';
	if (!mods_has(s, buf))
		memcpy(s->m[s->n++], buf, n + 1);
}

/* The module of one PAM line ("type control module args"; control may
 * be a [bracketed list] containing blanks), its basename into S. */
static void
line_module(const char *l, size_t n, struct modset *s)
{
	const char *w[MODS_MAX], *base;
	size_t wl[MODS_MAX], i = 0, j;
	int nw = 0, k = 1;

	while (nw < MODS_MAX) {
		while (i < n && (l[i] == ' ' || l[i] == '\t'))
			i++;
		if (i >= n)
			break;
		for (j = i; j < n && l[j] != ' ' && l[j] != '\t'; j++)
			;
		w[nw] = l + i;
		wl[nw++] = j - i;
		i = j;
	}
	if (nw < 3 || w[0][0] == '#' || w[0][0] == '@')
		return;
	if (w[1][0] == '[')
		while (k < nw && w[k][wl[k] - 1] != ']')
			k++;
	if (++k >= nw)
		return;
	base = memrchr(w[k], '/', wl[k]);
	base = base ? base + 1 : w[k];
	mods_add(s, base, (size_t)(w[k] + wl[k] - base));
}

static void
mods_of(const char *data, size_t len, struct modset *s)
{
	const char *p = data, *end = data + len, *nl;

	s->n = 0;
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		line_module(p, nl ? (size_t)(nl - p) : (size_t)(end - p), s);
		p = nl ? nl + 1 : end;
	}
}

/* Read a shipped or saved stack file: ROOT/DIR/STACK/FILE. */
static int
read_stack_file(struct ctl *c, const char *dir, const char *stack,
    const char *file, char **data, size_t *len)
{
	char path[FAC_PATH_MAX];
	struct stat st;

	if (ctl_fmt(path, sizeof(path), "/%s/%s/%s", dir, stack, file) < 0)
		return -1;
	return text_read(c, path, data, len, &st);
}

static int
stack_mods(struct ctl *c, const char *stack, const char *file,
    struct modset *s)
{
	char *data;
	size_t len;
	int rc;

	s->n = 0;
	rc = read_stack_file(c, CTL_PAM_DIR, stack, file, &data, &len);
	if (rc != 0)
		return rc;
	mods_of(data, len, s);
	free(data);
	return 0;
}

/* Does DATA (an /etc/pam.d file) count as STACK among F's stacks?  1/0/-1 */
static int
is_stack(struct ctl *c, const struct facility *f, const char *stack,
    const char *file, const char *data, size_t len)
{
	struct modset own, other, cur;
	int i, j, k;

	if (stack_mods(c, stack, file, &own) != 0)
		return -1;
	mods_of(data, len, &cur);
	for (i = 0; i < f->nstate; i++)
		for (j = 0; j < f->state[i].nact; j++) {
			const struct act *a = &f->state[i].act[j];
			if (a->kind != ACT_PAM || strcmp(a->path, stack) == 0)
				continue;
			if (stack_mods(c, a->path, file, &other) < 0)
				return -1;
			for (k = 0; k < other.n; k++)
				if (!mods_has(&own, other.m[k]) &&
				    mods_has(&cur, other.m[k]))
					return 0;
			for (k = 0; k < own.n; k++)
				if (!mods_has(&other, own.m[k]) &&
				    !mods_has(&cur, own.m[k]))
					return 0;
		}
	return 1;
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* The file names of a shipped stack, sorted. */
static int
stack_files(struct ctl *c, const char *stack,
    char names[STACK_FILES_MAX][NAME_MAX + 1])
{
	char path[FAC_PATH_MAX];
	struct dirent *e;
	const char *base;
	int dfd, n = 0;
	DIR *d;

	if (ctl_fmt(path, sizeof(path), "/%s/%s/x", CTL_PAM_DIR, stack) < 0)
		return -1;
	dfd = ctl_open_parent(c, path, &base);
	if (dfd < 0) {
		warn("%s", ctl_path(c, path));
		return -1;
	}
	d = owlet_opendir_at(dfd);
	close(dfd);
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !owlet_name_ok(e->d_name))
			continue;
		if (n == STACK_FILES_MAX) {
			warnx("%s: more than %d files", ctl_path(c, path),
			    STACK_FILES_MAX);
			closedir(d);
			return -1;
		}
		snprintf(names[n++], NAME_MAX + 1, "%s", e->d_name);
	}
	closedir(d);
	qsort(names, (size_t)n, NAME_MAX + 1, cmp_names);
	return n;
}

static int
holds_file(struct ctl *c, const struct facility *f, const char *stack,
    const char *file)
{
	char path[FAC_PATH_MAX], *data;
	struct stat st;
	size_t len;
	int rc;

	if (ctl_fmt(path, sizeof(path), "/etc/pam.d/%s", file) < 0)
		return -1;
	if ((rc = text_read(c, path, &data, &len, &st)) != 0)
		return rc == 1 ? 0 : -1;
	rc = is_stack(c, f, stack, file, data, len);
	free(data);
	return rc;
}

int
pam_holds(struct ctl *c, const struct facility *f, const struct act *a)
{
	char names[STACK_FILES_MAX][NAME_MAX + 1];
	int i, n, rc;

	if ((n = stack_files(c, a->path, names)) < 0)
		return -1;
	for (i = 0; i < n; i++)
		if ((rc = holds_file(c, f, a->path, names[i])) != 1)
			return rc;
	return n > 0;
}

/* Keep the current FILE before replacing it: under the stack it is, so
 * that switching back restores it, or, if it is none of them (edited by
 * hand), under pam-unmatched/ so that nothing the administrator wrote is
 * lost. */
static int
save_current(struct ctl *c, const struct facility *f, const char *file,
    const char *data, size_t len)
{
	char dir[FAC_PATH_MAX];
	const char *as = NULL;
	int i, j, fd, rc;

	for (i = 0; i < f->nstate && !as; i++)
		for (j = 0; j < f->state[i].nact && !as; j++) {
			const struct act *a = &f->state[i].act[j];
			if (a->kind == ACT_PAM &&
			    is_stack(c, f, a->path, file, data, len) == 1)
				as = a->path;
		}
	if ((as ? ctl_fmt(dir, sizeof(dir), "%s/pam/%s", CTL_STATE_DIR, as) :
	    ctl_fmt(dir, sizeof(dir), "%s/pam-unmatched", CTL_STATE_DIR)) < 0)
		return -1;
	if ((fd = ctl_mkdirs(c, dir, 0700)) < 0) {
		warn("%s", ctl_path(c, dir));
		return -1;
	}
	rc = owlet_write_replace(fd, file, data, len, 0600, 0, 0);
	close(fd);
	if (rc < 0) {
		warn("cannot save %s/%s", ctl_path(c, dir), file);
		return -1;
	}
	return 0;
}

int
pam_apply(struct ctl *c, const struct facility *f, const struct act *a)
{
	char names[STACK_FILES_MAX][NAME_MAX + 1], path[FAC_PATH_MAX],
	    saved_dir[FAC_PATH_MAX];
	char *cur = NULL, *want = NULL;
	size_t curlen = 0, wantlen;
	struct stat st;
	int i, n, rc, had;

	if ((n = stack_files(c, a->path, names)) <= 0) {
		if (n == 0)
			warnx("%s/%s: empty PAM stack", ctl_path(c,
			    OWLET_DATADIR "/pam"), a->path);
		return -1;
	}
	snprintf(saved_dir, sizeof(saved_dir), "%s/pam", CTL_STATE_DIR);
	for (i = 0; i < n; i++, free(cur), free(want), cur = want = NULL) {
		if (ctl_fmt(path, sizeof(path), "/etc/pam.d/%s", names[i]) < 0)
			return -1;
		if ((had = text_read(c, path, &cur, &curlen, &st)) < 0)
			return -1;
		if (had == 0) {
			rc = is_stack(c, f, a->path, names[i], cur, curlen);
			if (rc < 0)
				goto fail;
			if (rc == 1)
				continue;
			if (save_current(c, f, names[i], cur, curlen) < 0)
				goto fail;
		}
		rc = read_stack_file(c, saved_dir, a->path, names[i], &want,
		    &wantlen);
		if (rc == 0 && is_stack(c, f, a->path, names[i], want,
		    wantlen) != 1) {
			free(want);
			rc = 1;
		}
		if (rc == 1)
			rc = read_stack_file(c, CTL_PAM_DIR, a->path, names[i],
			    &want, &wantlen);
		if (rc != 0) {
			want = NULL;
			goto fail;
		}
		if (text_write(c, path, cur, curlen, had == 0 ? &st : NULL,
		    0644, want, wantlen) < 0)
			goto fail;
	}
	return 0;
fail:
	free(cur);
	free(want);
	return -1;
}
