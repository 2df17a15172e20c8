/*
 * uid/gid to names for uname=/gname=.  A tree that carries its own
 * etc/passwd and etc/group (an image) is described with ITS names, not the
 * host's; otherwise the host's databases are asked, once per id.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "owlet.h"
#include "idmap.h"

struct idname {
	unsigned id;
	char name[33];
	int known;
};

struct idmap {
	struct idname *v;
	size_t n, cap;
	int from_tree;
	int group;
};

static int
by_id(const void *a, const void *b)
{
	const struct idname *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static int
by_id_then_line(const void *a, const void *b)
{
	const struct idname *x = a, *y = b;
	int c = by_id(a, b);

	return c ? c : (x->known > y->known) - (x->known < y->known);
}

/* Append; the caller restores the order (sort_ids) before lookups. */
static int
add(struct idmap *m, unsigned id, const char *name, int known)
{
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 64;
		struct idname *v = realloc(m->v, cap * sizeof(*v));
		if (!v)
			return -1;
		m->v = v;
		m->cap = cap;
	}
	m->v[m->n].id = id;
	m->v[m->n].known = known;
	snprintf(m->v[m->n].name, sizeof(m->v[m->n].name), "%s", name);
	m->n++;
	return 0;
}

/*
 * Load ROOT/etc/FILE (passwd or group) if the tree has one: 0, or -1 after
 * a message naming the file (and line).  The tree may come from anyone
 * (an image, a mounted disk); its lines are read whole by owlet_db_*, so
 * a 9,000-byte line whose tail reads "evil:x:0:..." is an error, not an
 * entry naming uid 0.
 */
static int
load_tree(struct idmap *m, const char *root, const char *file)
{
	char path[4096];
	struct owlet_dbent e;
	struct owlet_db *db;
	int etcfd, rc;

	snprintf(path, sizeof(path), "%s/etc", root);
	etcfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	db = etcfd < 0 ? NULL : owlet_db_open(etcfd, file);
	if (etcfd >= 0)
		close(etcfd);
	if (!db) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;	/* the host's databases answer */
		warn("%s/%s", path, file);
		return -1;
	}
	m->from_tree = 1;
	while ((rc = owlet_db_next(db, &e)) > 0)
		if (e.ok && strlen(e.f[0]) <= 32 &&
		    add(m, e.id, e.f[0], 1) < 0) {
			warn("%s/%s", path, file);
			owlet_db_close(db);
			return -1;
		}
	if (rc < 0) {
		warnx("%s/%s:%lu: %s", path, file, owlet_db_lineno(db),
		    owlet_db_strerror(errno));
		owlet_db_close(db);
		return -1;
	}
	owlet_db_close(db);
	if (m->n == 0)
		return 0;	/* qsort on a NULL base is undefined */
	/* the first line naming an id wins, as in getpwuid: known = line */
	for (size_t i = 0; i < m->n; i++)
		m->v[i].known = (int)(i + 1);
	qsort(m->v, m->n, sizeof(*m->v), by_id_then_line);
	size_t w = 0;
	for (size_t i = 0; i < m->n; i++) {
		if (w > 0 && m->v[w - 1].id == m->v[i].id)
			continue;	/* sorted by id, then file order */
		m->v[w++] = m->v[i];
	}
	m->n = w;
	return 0;
}

struct idmap *
seal_idmap_new(const char *root, int group)
{
	struct idmap *m = calloc(1, sizeof(*m));

	if (!m) {
		warn("%s", group ? "group map" : "user map");
		return NULL;
	}
	m->group = group;
	if (root && load_tree(m, root, group ? "group" : "passwd") < 0) {
		seal_idmap_free(m);
		return NULL;
	}
	return m;
}

const char *
seal_idmap_lookup(struct idmap *m, unsigned id)
{
	struct idname key = { .id = id }, *r;

	if (m->n == 0)
		return NULL;	/* bsearch on a NULL base is undefined */
	r = bsearch(&key, m->v, m->n, sizeof(*m->v), by_id);
	if (!r)
		return NULL;
	return r->known ? r->name : "";
}

const char *
seal_idmap_name(struct idmap *m, unsigned id)
{
	const char *s = seal_idmap_lookup(m, id), *name = NULL;
	struct group g, *gr = NULL;
	struct passwd p, *pw = NULL;
	size_t len = 4096;
	char *buf = NULL, *nb;
	int rc = 0;

	if (s || m->from_tree)
		return s ? s : "";
	/* ERANGE: the entry does not fit (a group with many members); retry
	 * with a bigger buffer rather than record the id as nameless. */
	do {
		if (!(nb = realloc(buf, len))) {
			free(buf);
			errno = ENOMEM;
			return NULL;
		}
		buf = nb;
		if (m->group)
			rc = getgrgid_r(id, &g, buf, len, &gr);
		else
			rc = getpwuid_r(id, &p, buf, len, &pw);
		len *= 2;
	} while (rc == ERANGE && len <= 1024 * 1024);
	if (gr)
		name = gr->gr_name;
	else if (pw)
		name = pw->pw_name;
	rc = add(m, id, name && strlen(name) <= 32 ? name : "", name != NULL);
	free(buf);
	if (rc < 0) {
		errno = ENOMEM;
		return NULL;
	}
	qsort(m->v, m->n, sizeof(*m->v), by_id);
	return seal_idmap_lookup(m, id);
}

void
seal_idmap_free(struct idmap *m)
{
	if (m) {
		free(m->v);
		free(m);
	}
}

const char *
seal_idmap_need(struct idmap *m, unsigned id, int *failed)
{
	const char *s = seal_idmap_name(m, id);

	if (s)
		return s;
	warn("name of %s %u", m->group ? "gid" : "uid", id);
	*failed = 1;
	return "";
}
