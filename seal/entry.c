/* One spec entry: names of types, the line format, the canonical order. */
#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "seal.h"

static const char *const type_names[] = {
	[T_NONE] = "none", [T_FILE] = "file", [T_DIR] = "dir",
	[T_LINK] = "link", [T_BLOCK] = "block", [T_CHAR] = "char",
	[T_FIFO] = "fifo", [T_SOCKET] = "socket",
};

const char *
seal_type_name(enum seal_type t)
{
	return t <= T_SOCKET ? type_names[t] : "none";
}

enum seal_type
seal_type_parse(const char *s)
{
	int t;

	for (t = T_FILE; t <= T_SOCKET; t++)
		if (strcmp(s, type_names[t]) == 0)
			return (enum seal_type)t;
	return T_NONE;
}

void
seal_entry_warn(const struct seal_entry *e)
{
	/* the name as in a spec: no byte of it reaches the terminal raw */
	char *vis = seal_vis_dup(e->path);

	warnx("%s: %s", vis ? vis : "(a name; out of memory)",
	    e->error == EAGAIN ? "changed while being read" :
	    strerror(e->error));
	free(vis);
}

void
seal_entry_free(struct seal_entry *e)
{
	free(e->path);
	free(e->link);
	e->path = e->link = NULL;
}

static const char *
last_component(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/*
 * Keywords always in this order, numbers in fixed formats (mode as 0NNNN,
 * nanoseconds with 9 digits, lowercase hex): the same tree gives the same
 * bytes.  Volatile data never appears: no atime/ctime, no directory size
 * or link count.
 */
void
seal_entry_write(FILE *out, const struct seal_entry *e, unsigned keys)
{
	static const char hex[] = "0123456789abcdef";
	unsigned k = e->keys & keys;
	char digest[65];
	int i;

	seal_vis(out, last_component(e->path));
	fprintf(out, " type=%s", seal_type_name(e->type));
	if (k & K_MODE)
		fprintf(out, " mode=%04o", (unsigned)(e->mode & 07777));
	if (k & K_UID)
		fprintf(out, " uid=%u", (unsigned)e->uid);
	if (k & K_GID)
		fprintf(out, " gid=%u", (unsigned)e->gid);
	if ((k & K_UNAME) && e->uname[0]) {
		fputs(" uname=", out);
		seal_vis(out, e->uname);
	}
	if ((k & K_GNAME) && e->gname[0]) {
		fputs(" gname=", out);
		seal_vis(out, e->gname);
	}
	if ((k & K_SIZE) && e->type == T_FILE)
		fprintf(out, " size=%" PRIu64, e->size);
	if ((k & K_NLINK) && e->type != T_DIR && e->nlink > 1)
		fprintf(out, " nlink=%" PRIu64, e->nlink);
	if (k & K_TIME)
		fprintf(out, " time=%lld.%09ld", (long long)e->mtime.tv_sec,
		    e->mtime.tv_nsec);
	if ((k & K_LINK) && e->type == T_LINK && e->link) {
		fputs(" link=", out);
		seal_vis(out, e->link);
	}
	if ((k & K_DEVICE) && (e->type == T_BLOCK || e->type == T_CHAR))
		fprintf(out, " device=linux,%" PRIu64 ",%" PRIu64,
		    e->rdev_major, e->rdev_minor);
	if ((k & K_SHA256) && e->type == T_FILE) {
		for (i = 0; i < 32; i++) {
			digest[2 * i] = hex[e->sha256[i] >> 4];
			digest[2 * i + 1] = hex[e->sha256[i] & 15];
		}
		digest[64] = '\0';
		fprintf(out, " sha256digest=%s", digest);
	}
	if ((k & K_CAPS) && e->caps[0])
		fprintf(out, " capability=%s", e->caps);
	putc('\n', out);
}

/* Next component of *P: its start and length; advances *P. */
static size_t
component(const char **p, const char **start)
{
	const char *s = *p, *e;

	while (*s == '/')
		s++;
	e = strchr(s, '/');
	if (!e)
		e = s + strlen(s);
	*start = s;
	*p = e;
	return (size_t)(e - s);
}

int
seal_path_cmp(const char *a, const char *b)
{
	for (;;) {
		const char *ca, *cb;
		size_t la = component(&a, &ca), lb = component(&b, &cb);
		int c;

		if (la == 0 || lb == 0)
			return (la != 0) - (lb != 0);	/* ancestor first */
		c = memcmp(ca, cb, la < lb ? la : lb);
		if (c)
			return c;
		if (la != lb)
			return la < lb ? -1 : 1;
	}
}
