/*
 * uid/gid to names for uname=/gname=.  A tree that carries its own
 * etc/passwd and etc/group (an image) is described with ITS names, not the
 * host's; otherwise the host's databases are asked, once per id.
 */
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Load ROOT/etc/FILE (passwd or group) if the tree has one. */
static void
load_tree(struct idmap *m, const char *root, const char *file)
{
	char path[4096], line[OWLET_LINE_MAX], *f[4];
	unsigned id;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/etc/%s", root, file);
	fp = fopen(path, "re");
	if (!fp)
		return;
	m->from_tree = 1;
	while (fgets(line, sizeof(line), fp)) {
		line[strcspn(line, "\n")] = '\0';
		if (owlet_split(line, f, 4) >= 3 &&
		    owlet_parse_id(f[2], &id) == 0 && strlen(f[0]) <= 32)
			add(m, id, f[0], 1);
	}
	fclose(fp);
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
}

struct idmap *
seal_idmap_new(const char *root, int group)
{
	struct idmap *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->group = group;
	if (root)
		load_tree(m, root, group ? "group" : "passwd");
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
	const char *s = seal_idmap_lookup(m, id);
	char buf[4096];

	if (s || m->from_tree)
		return s ? s : "";
	if (m->group) {
		struct group g, *r = NULL;
		getgrgid_r(id, &g, buf, sizeof(buf), &r);
		add(m, id, r && strlen(r->gr_name) <= 32 ? r->gr_name : "",
		    r != NULL);
		qsort(m->v, m->n, sizeof(*m->v), by_id);
	} else {
		struct passwd p, *r = NULL;
		getpwuid_r(id, &p, buf, sizeof(buf), &r);
		add(m, id, r && strlen(r->pw_name) <= 32 ? r->pw_name : "",
		    r != NULL);
		qsort(m->v, m->n, sizeof(*m->v), by_id);
	}
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
