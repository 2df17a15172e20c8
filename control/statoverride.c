/*
 * Persistence across package upgrades: dpkg applies the owner, group and
 * mode of a dpkg-statoverride entry whenever it unpacks that path, so the
 * chosen state of every file and directory is registered there.  Two
 * Debian facts shape this (control.md 5): the path must be the one the
 * package records (/bin/su, not /usr/bin/su, on merged-/usr bookworm), so
 * the installed-file lists are searched for either spelling; and paths
 * that no package ships (owlet's own helpers when installed by hand) have
 * nothing to keep and are skipped.  What statoverride cannot hold
 * (capabilities, config lines, sysctls) is put back by `control
 * --reapply` from the apt hook.
 *
 * The database is rewritten atomically under dpkg's own lock, and only
 * when an entry changes.
 */
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ctl.h"
#include "owlet.h"

#define DPKG_DIR	"var/lib/dpkg"
#define LOCK_WAIT_S	30

struct want {
	const struct act *a;
	char alias[FAC_PATH_MAX + 1];	/* /bin/x for /usr/bin/x */
	const char *dpkg_path;		/* the spelling a package records */
};

static void
alias_of(const char *path, char *out, size_t len)
{
	static const char *const merged[] = { "/usr/bin/", "/usr/sbin/",
	    "/usr/lib/", "/usr/lib64/" };
	size_t i;

	out[0] = '\0';
	for (i = 0; i < sizeof(merged) / sizeof(merged[0]); i++)
		if (strncmp(path, merged[i], strlen(merged[i])) == 0) {
			snprintf(out, len, "%s", path + 4);
			return;
		}
}

/* Which spelling of each wanted path some *.list of dpkg records. */
static int
find_dpkg_paths(struct ctl *c, struct want *w, int n)
{
	struct owlet_lines *lr;
	struct dirent *e;
	char *line;
	size_t len, nl;
	int dfd, fd, i, rc = 0;
	DIR *d;

	dfd = owlet_open_dir(c->rootfd, DPKG_DIR "/info");
	if (dfd < 0 || !(d = owlet_opendir_at(dfd))) {
		if (dfd >= 0)
			close(dfd);
		return -1;
	}
	lr = malloc(sizeof(*lr));
	while (lr && (e = readdir(d))) {
		nl = strlen(e->d_name);
		if (nl < 6 || strcmp(e->d_name + nl - 5, ".list") != 0)
			continue;
		fd = openat(dfd, e->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		owlet_lines_init(lr, fd);
		while (owlet_lines_next(lr, &line, &len) > 0)
			for (i = 0; i < n; i++) {
				if (w[i].dpkg_path)
					continue;
				if (strcmp(line, w[i].a->path) == 0)
					w[i].dpkg_path = w[i].a->path;
				else if (w[i].alias[0] &&
				    strcmp(line, w[i].alias) == 0)
					w[i].dpkg_path = w[i].alias;
			}
		close(fd);
	}
	if (!lr)
		rc = -1;
	free(lr);
	closedir(d);
	close(dfd);
	return rc;
}

/* dpkg's database lock (fcntl, as dpkg takes it), waiting a while. */
static int
lock_dpkg(struct ctl *c, int dpkgfd)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int fd, i;

	fd = openat(dpkgfd, "lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
	    0640);
	if (fd < 0)
		return -1;
	for (i = 0; i < LOCK_WAIT_S * 10; i++) {
		if (fcntl(fd, F_SETLK, &fl) == 0)
			return fd;
		if (errno != EACCES && errno != EAGAIN)
			break;
		nanosleep(&(struct timespec){ 0, 100000000 }, NULL);
	}
	warnx("%s: dpkg database is locked (is apt or dpkg running?)",
	    ctl_path(c, "/" DPKG_DIR "/lock"));
	close(fd);
	return -1;
}

static int
put_entry(char *o, const struct want *w)
{
	return sprintf(o, "%s %s %o %s\n", w->a->owner, w->a->group,
	    (unsigned)w->a->mode, w->dpkg_path);
}

/* DATA without the entries of W's paths, plus the wanted entries. */
static char *
new_database(const char *data, size_t len, const struct want *w, int n)
{
	size_t size = len + (size_t)n * (FAC_PATH_MAX + 2 * FAC_NAME_MAX + 16) + 1;
	char *out = malloc(size), *o = out;
	const char *p = data, *end = data + len, *eol, *path;
	int i, drop, done[FAC_ACTS_MAX] = { 0 };

	if (!out)
		return NULL;
	while (p < end) {
		eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		/* "owner group mode path": the path is what follows the
		 * third blank */
		path = p;
		for (i = 0; i < 3 && path; i++) {
			path = memchr(path, ' ', (size_t)(eol - path));
			path = path ? path + 1 : NULL;
		}
		/* an entry for a wanted path is replaced where it stands,
		 * so an unchanged database compares equal */
		drop = 0;
		for (i = 0; path && i < n; i++)
			if (w[i].dpkg_path &&
			    (size_t)(eol - path) == strlen(w[i].dpkg_path) &&
			    memcmp(path, w[i].dpkg_path, (size_t)(eol - path)) == 0) {
				if (!done[i])
					o += put_entry(o, &w[i]);
				done[i] = drop = 1;
			}
		if (!drop) {
			memcpy(o, p, (size_t)(eol - p));
			o += eol - p;
			*o++ = '\n';
		}
		p = eol + 1;
	}
	for (i = 0; i < n; i++)
		if (w[i].dpkg_path && !done[i])
			o += put_entry(o, &w[i]);
	*o = '\0';
	return out;
}

int
statoverride_register(struct ctl *c, const struct state *s)
{
	struct want w[FAC_ACTS_MAX];
	char *data = NULL, *out = NULL;
	size_t len = 0;
	struct stat st;
	int i, n = 0, dpkgfd, lockfd = -1, rc = -1, have;

	for (i = 0; i < s->nact; i++)
		if (s->act[i].kind == ACT_FILE || s->act[i].kind == ACT_DIR) {
			w[n].a = &s->act[i];
			w[n].dpkg_path = NULL;
			alias_of(s->act[i].path, w[n].alias,
			    sizeof(w[n].alias));
			n++;
		}
	if (n == 0)
		return 0;
	dpkgfd = owlet_open_dir(c->rootfd, DPKG_DIR);
	if (dpkgfd < 0)
		return 0;	/* not a dpkg system: nothing to keep */
	if (find_dpkg_paths(c, w, n) < 0) {
		close(dpkgfd);
		return 0;
	}
	for (have = i = 0; i < n; i++)
		have |= w[i].dpkg_path != NULL;
	if (!have || (lockfd = lock_dpkg(c, dpkgfd)) < 0) {
		close(dpkgfd);
		return have ? -1 : 0;
	}
	have = owlet_read_file(dpkgfd, "statoverride", CTL_TEXT_MAX, &data,
	    &len, &st);
	if (have < 0 && errno != ENOENT) {
		warn("%s", ctl_path(c, "/" DPKG_DIR "/statoverride"));
		goto out;
	}
	if (have < 0) {
		st.st_mode = 0644;
		st.st_uid = st.st_gid = 0;
	}
	if (!(out = new_database(data ? data : "", len, w, n))) {
		warnx("out of memory");
		goto out;
	}
	if (data && strlen(out) == len && memcmp(out, data, len) == 0) {
		rc = 0;
		goto out;
	}
	/* recorded for undo: a later failure of the switch takes the
	 * registration back with everything else */
	if (undo_content(c, "/" DPKG_DIR "/statoverride", have < 0 ? NULL : data,
	    len, &st) < 0)
		goto out;
	if (owlet_write_replace(dpkgfd, "statoverride", out, strlen(out),
	    st.st_mode & 07777, st.st_uid, st.st_gid) < 0)
		warn("cannot replace %s", ctl_path(c, "/" DPKG_DIR "/statoverride"));
	else
		rc = 0;
out:
	free(data);
	free(out);
	close(lockfd);
	close(dpkgfd);
	return rc;
}
