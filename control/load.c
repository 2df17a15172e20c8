/*
 * Facility files: shipped ones in /usr/share/owlet/facilities/ (the
 * build's OWLET_DATADIR), local
 * ones in /etc/control.d/facilities/ (a local file replaces the shipped
 * one of the same name).  As in Owl, a name containing a dot is not a
 * facility (dpkg leaves *.dpkg-old, *.dpkg-dist; editors leave *~ too).
 * A facility file must be a root-owned regular file that nobody else can
 * write, in a directory that is safe the same way: it decides what
 * control will do as root.
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

#define FAC_MAX		128

static const char *const fac_dirs[] = {
	OWLET_DATADIR "/facilities",
	"/etc/control.d/facilities",	/* later wins */
};

static int
load_one(struct ctl *c, int dfd, const char *dir, const char *name)
{
	char source[FAC_PATH_MAX + OWLET_ESC_LEN(NAME_MAX) + 1],
	    esc[OWLET_ESC_LEN(NAME_MAX)], msg[FAC_PATH_MAX + 256];
	struct facility f = { 0 };
	struct stat st;
	char *data;
	size_t len;
	int i;

	/* a file name may hold any byte: escaped in every message */
	owlet_esc(esc, sizeof(esc), name);
	snprintf(source, sizeof(source), "%s/%s", ctl_path(c, dir), esc);
	if (!facility_name_ok(name)) {
		warnx("%s: not a facility name; ignored", source);
		return -1;
	}
	if (owlet_read_file(dfd, name, FAC_FILE_MAX, &data, &len, &st) < 0) {
		if (errno == EINVAL || errno == ELOOP)
			warnx("%s: not a regular single-link file", source);
		else
			warn("%s", source);
		return -1;
	}
	if (st.st_uid != 0 || (st.st_mode & 022)) {
		warnx("%s: not root-owned or writable by others; ignored",
		    source);
		free(data);
		return -1;
	}
	if (facility_parse(&f, name, source, data, len, msg, sizeof(msg)) < 0) {
		warnx("%s", msg);
		free(data);
		return -1;
	}
	free(data);
	for (i = 0; i < c->nfac; i++)
		if (strcmp(c->fac[i].name, name) == 0) {
			facility_free(&c->fac[i]);
			c->fac[i] = f;
			return 0;
		}
	if (c->nfac == FAC_MAX) {
		warnx("%s: more than %d facilities", source, FAC_MAX);
		facility_free(&f);
		return -1;
	}
	c->fac[c->nfac++] = f;
	return 0;
}

static int
cmp_fac(const void *a, const void *b)
{
	return strcmp(((const struct facility *)a)->name,
	    ((const struct facility *)b)->name);
}

int
load_facilities(struct ctl *c)
{
	char probe[FAC_PATH_MAX];
	struct dirent *e;
	const char *base;
	size_t i;
	int dfd, rc = 0;
	DIR *d;

	c->fac = calloc(FAC_MAX, sizeof(*c->fac));
	if (!c->fac) {
		warnx("out of memory");
		return -1;
	}
	for (i = 0; i < sizeof(fac_dirs) / sizeof(fac_dirs[0]); i++) {
		snprintf(probe, sizeof(probe), "%s/x", fac_dirs[i]);
		dfd = ctl_open_parent(c, probe, &base);
		if (dfd < 0) {
			if (errno == ENOENT)
				continue;
			warn("%s", ctl_path(c, fac_dirs[i]));
			rc = -1;
			continue;
		}
		if (!(d = owlet_opendir_at(dfd))) {
			warn("%s", ctl_path(c, fac_dirs[i]));
			close(dfd);
			rc = -1;
			continue;
		}
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.' || strchr(e->d_name, '.') ||
			    strchr(e->d_name, '~'))
				continue;
			if (load_one(c, dfd, fac_dirs[i], e->d_name) < 0)
				rc = -1;
		}
		closedir(d);
		close(dfd);
	}
	/* An empty list is never the answer: a mistyped --root, or a
	 * package missing, must not read as "nothing to check". */
	if (c->nfac == 0 && rc == 0) {
		warnx("no facility files in %s or %s", ctl_path(c, fac_dirs[0]),
		    ctl_path(c, fac_dirs[1]));
		rc = -1;
	}
	qsort(c->fac, (size_t)c->nfac, sizeof(*c->fac), cmp_fac);
	for (i = 0; i < (size_t)c->nfac; i++) {
		const struct facility *t;
		if (!c->fac[i].same_as)
			continue;
		t = find_facility(c, c->fac[i].same_as);
		if (!t || t->same_as) {
			warnx("%s: same-as %s: no such facility with states",
			    c->fac[i].source, c->fac[i].same_as);
			rc = -1;
		}
	}
	return rc;
}

struct facility *
find_facility(struct ctl *c, const char *name)
{
	int i, hops;

	/* same-as is one hop: load_facilities refuses chains */
	for (hops = 0; hops < 2; hops++) {
		for (i = 0; i < c->nfac; i++)
			if (strcmp(c->fac[i].name, name) == 0)
				break;
		if (i == c->nfac)
			return NULL;
		if (!c->fac[i].same_as)
			return &c->fac[i];
		name = c->fac[i].same_as;
	}
	return NULL;
}
