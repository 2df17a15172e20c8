#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "owlet.h"
#include "specread.h"

struct specread {
	FILE *fp;
	const char *name;
	unsigned long lineno;
	char *line;		/* logical line (continuations joined) */
	size_t cap;
	char *cwd;		/* relative form: current directory path */
	size_t cwdlen, cwdcap;
	struct seal_entry defaults;	/* /set */
	int caps;
	int seen_root;
	int warned_digest;
};

#define FAIL(r, ...) do { \
	warnx("%s:%lu: %s", (r)->name, (r)->lineno, __VA_ARGS__); \
	return -1; \
} while (0)

struct specread *
specread_open(FILE *fp, const char *name)
{
	struct specread *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->fp = fp;
	r->name = name;
	r->cap = 4096;
	r->line = malloc(r->cap);
	r->cwdcap = 4096;
	r->cwd = malloc(r->cwdcap);
	if (!r->line || !r->cwd) {
		specread_close(r);
		return NULL;
	}
	strcpy(r->cwd, ".");
	r->cwdlen = 1;
	return r;
}

void
specread_close(struct specread *r)
{
	if (r) {
		free(r->line);
		free(r->cwd);
		seal_entry_free(&r->defaults);
		free(r);
	}
}

int
specread_tracks_caps(const struct specread *r)
{
	return r->caps;
}

/* Read one logical line; 1 ok, 0 EOF, -1 error. */
static int
read_line(struct specread *r)
{
	size_t len = 0;
	int c, joined = 0;

	r->lineno++;	/* errors name the physical line being read */
	for (;;) {
		c = getc(r->fp);
		if (c == EOF) {
			if (ferror(r->fp))
				FAIL(r, strerror(errno));
			if (len == 0 && !joined)
				return 0;
			break;
		}
		if (c == '\0')
			FAIL(r, "NUL byte");
		if (c == '\n') {
			/* an odd number of trailing backslashes continues */
			size_t bs = 0;
			while (bs < len && r->line[len - 1 - bs] == '\\')
				bs++;
			if (bs % 2 == 1) {
				r->line[len - 1] = ' ';
				joined = 1;
				r->lineno++;
				continue;
			}
			break;
		}
		if (len + 1 >= SEAL_LINE_MAX)
			FAIL(r, "line too long");
		if (len + 1 >= r->cap) {
			char *n = realloc(r->line, r->cap * 2);
			if (!n)
				FAIL(r, "out of memory");
			r->line = n;
			r->cap *= 2;
		}
		r->line[len++] = (char)c;
	}
	r->line[len] = '\0';
	return 1;
}

/* Strip a comment: '#' not preceded by a backslash. */
static void
strip_comment(char *s)
{
	char *p;

	for (p = s; *p; p++) {
		if (*p == '\\' && p[1]) {
			p++;
			continue;
		}
		if (*p == '#') {
			*p = '\0';
			return;
		}
	}
}

static int
parse_u64(const char *s, uint64_t *v)
{
	return owlet_num(s, 0, UINT64_MAX, 0, v);
}

static int
parse_hex(const char *s, unsigned char *out, size_t n)
{
	size_t i;

	if (s[0] == '0' && s[1] == 'x')	/* NetBSD tolerates it */
		s += 2;
	if (strlen(s) != 2 * n)
		return -1;
	for (i = 0; i < 2 * n; i++) {
		int c = s[i], v;

		if (c >= '0' && c <= '9')
			v = c - '0';
		else if (c >= 'a' && c <= 'f')
			v = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v = c - 'A' + 10;
		else
			return -1;
		if (i % 2 == 0)
			out[i / 2] = (unsigned char)(v << 4);
		else
			out[i / 2] |= (unsigned char)v;
	}
	return 0;
}

static const char *const ignored_keywords[] = {
	"flags", "tags", "contents", "content", "inode", "resdevice", NULL
};
static const char *const unchecked_digests[] = {
	"cksum", "md5", "md5digest", "sha1", "sha1digest", "rmd160",
	"rmd160digest", "ripemd160digest", "sha384", "sha384digest",
	"sha512", "sha512digest", NULL
};

static int
in_list(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (strcmp(*list, s) == 0)
			return 1;
	return 0;
}

/* Apply one "kw=value" or flag word to E. */
static int
apply(struct specread *r, struct seal_entry *e, char *tok)
{
	char *v = strchr(tok, '='), msg[160];
	uint64_t n;

	if (!v) {
		if (strcmp(tok, "optional") == 0)
			e->keys |= K_OPTIONAL;
		else if (strcmp(tok, "ignore") == 0)
			e->keys |= K_IGNORE;
		else if (strcmp(tok, "nochange") == 0)
			e->keys |= K_NOCHANGE;
		else {
			snprintf(msg, sizeof(msg), "unknown keyword: %.64s",
			    tok);
			FAIL(r, msg);
		}
		return 0;
	}
	*v++ = '\0';
	if (strcmp(tok, "type") == 0) {
		e->type = seal_type_parse(v);
		if (e->type == T_NONE)
			FAIL(r, "bad type");
		e->keys |= K_TYPE;
	} else if (strcmp(tok, "mode") == 0) {
		uint64_t m;
		if (owlet_num(v, 0, 07777, OWLET_NUM_OCTAL, &m) < 0)
			FAIL(r, "bad mode (octal modes only)");
		e->mode = (mode_t)m;
		e->keys |= K_MODE;
	} else if (strcmp(tok, "uid") == 0 || strcmp(tok, "gid") == 0) {
		if (owlet_num(v, 0, OWLET_ID_MAX, 0, &n) < 0)
			FAIL(r, "bad id");
		if (tok[0] == 'u') {
			e->uid = (uid_t)n;
			e->keys |= K_UID;
		} else {
			e->gid = (gid_t)n;
			e->keys |= K_GID;
		}
	} else if (strcmp(tok, "uname") == 0 || strcmp(tok, "gname") == 0) {
		char *dst = tok[0] == 'u' ? e->uname : e->gname;
		if (seal_unvis(v) < 0 || strlen(v) > 32 || !*v)
			FAIL(r, "bad name");
		strcpy(dst, v);
		e->keys |= tok[0] == 'u' ? K_UNAME : K_GNAME;
	} else if (strcmp(tok, "size") == 0) {
		if (parse_u64(v, &e->size) < 0)
			FAIL(r, "bad size");
		e->keys |= K_SIZE;
	} else if (strcmp(tok, "nlink") == 0) {
		if (parse_u64(v, &e->nlink) < 0)
			FAIL(r, "bad nlink");
		e->keys |= K_NLINK;
	} else if (strcmp(tok, "time") == 0) {
		char *dot = strchr(v, '.');
		uint64_t s, ns = 0;
		if (dot)
			*dot = '\0';
		if (parse_u64(v, &s) < 0 || (dot && (parse_u64(dot + 1, &ns) <
		    0 || ns > 999999999)) || s > INT64_MAX)
			FAIL(r, "bad time");
		e->mtime.tv_sec = (time_t)s;
		e->mtime.tv_nsec = (long)ns;	/* an integer count of ns */
		e->keys |= K_TIME;
	} else if (strcmp(tok, "link") == 0) {
		if (seal_unvis(v) < 0)
			FAIL(r, "bad escape in link");
		free(e->link);
		e->link = strdup(v);
		if (!e->link)
			FAIL(r, "out of memory");
		e->keys |= K_LINK;
	} else if (strcmp(tok, "sha256digest") == 0 ||
	    strcmp(tok, "sha256") == 0) {
		if (parse_hex(v, e->sha256, 32) < 0)
			FAIL(r, "bad sha256 digest");
		e->keys |= K_SHA256;
	} else if (strcmp(tok, "capability") == 0) {
		unsigned char raw[64];
		size_t len = strlen(v);
		if (len == 0 || len % 2 || len > 128 ||
		    parse_hex(v, raw, len / 2) < 0)
			FAIL(r, "bad capability");
		strcpy(e->caps, v);
		for (char *p = e->caps; *p; p++)
			if (*p >= 'A' && *p <= 'F')
				*p = (char)(*p - 'A' + 'a');
		e->keys |= K_CAPS;
	} else if (strcmp(tok, "device") == 0) {
		char *f1 = strchr(v, ','), *f2;
		uint64_t maj, min;
		if (!f1 || !(f2 = strchr(f1 + 1, ',')) || strchr(f2 + 1, ','))
			FAIL(r, "bad device (format,major,minor)");
		*f1 = *f2 = '\0';
		if ((strcmp(v, "linux") && strcmp(v, "native")) ||
		    parse_u64(f1 + 1, &maj) < 0 || parse_u64(f2 + 1, &min) < 0)
			FAIL(r, "bad device (format,major,minor)");
		e->rdev_major = maj;
		e->rdev_minor = min;
		e->keys |= K_DEVICE;
	} else if (in_list(ignored_keywords, tok)) {
		/* meaningless on Linux, or libarchive bookkeeping */
	} else if (in_list(unchecked_digests, tok)) {
		if (!r->warned_digest++)
			warnx("%s:%lu: %s is not checked; only sha256 is",
			    r->name, r->lineno, tok);
	} else {
		snprintf(msg, sizeof(msg), "unknown keyword: %.64s", tok);
		FAIL(r, msg);
	}
	return 0;
}

static int
set_cwd(struct specread *r, const char *path)
{
	size_t len = strlen(path);

	if (len + 1 > r->cwdcap) {
		char *n = realloc(r->cwd, len + 1);
		if (!n)
			FAIL(r, "out of memory");
		r->cwd = n;
		r->cwdcap = len + 1;
	}
	memcpy(r->cwd, path, len + 1);
	r->cwdlen = len;
	return 0;
}

static int
copy_defaults(struct specread *r, struct seal_entry *e)
{
	*e = r->defaults;
	e->path = NULL;
	e->link = NULL;
	if (r->defaults.link && !(e->link = strdup(r->defaults.link)))
		FAIL(r, "out of memory");
	return 0;
}

static int
unset(struct specread *r, char *tok)
{
	static const struct { const char *k; unsigned bit; } map[] = {
		{ "type", K_TYPE }, { "mode", K_MODE }, { "uid", K_UID },
		{ "gid", K_GID }, { "uname", K_UNAME }, { "gname", K_GNAME },
		{ "size", K_SIZE }, { "link", K_LINK }, { "nlink", K_NLINK },
		{ "time", K_TIME }, { "sha256digest", K_SHA256 },
		{ "sha256", K_SHA256 }, { "capability", K_CAPS },
		{ "device", K_DEVICE }, { "optional", K_OPTIONAL },
		{ "ignore", K_IGNORE }, { "nochange", K_NOCHANGE },
	};
	size_t i;

	if (strcmp(tok, "all") == 0) {
		seal_entry_free(&r->defaults);
		memset(&r->defaults, 0, sizeof(r->defaults));
		return 0;
	}
	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(tok, map[i].k) == 0) {
			r->defaults.keys &= ~map[i].bit;
			return 0;
		}
	if (in_list(ignored_keywords, tok) || in_list(unchecked_digests, tok))
		return 0;
	FAIL(r, "unknown keyword in /unset");
}

/* "./a/b": no empty, "." or ".." component after the leading ".". */
static int
bad_components(const char *path)
{
	const char *p = path + 1;

	while (*p == '/') {
		const char *c = p + 1, *end = strchr(c, '/');
		size_t len = end ? (size_t)(end - c) : strlen(c);

		if (len == 0 || (len == 1 && c[0] == '.') ||
		    (len == 2 && c[0] == '.' && c[1] == '.'))
			return 1;
		p = c + len;
	}
	return *p != '\0';
}

int
specread_next(struct specread *r, struct seal_entry *e)
{
	char *tok, *save, *name;
	int rc;

	for (;;) {
		rc = read_line(r);
		if (rc <= 0)
			return rc;
		if (r->lineno == 1 && strncmp(r->line, "#mtree", 6) == 0)
			continue;
		if (strcmp(r->line, "#seal capability") == 0) {
			r->caps = 1;
			continue;
		}
		strip_comment(r->line);
		name = strtok_r(r->line, " \t", &save);
		if (!name)
			continue;
		if (strcmp(name, "/set") == 0 || strcmp(name, "/unset") == 0) {
			int set = name[1] == 's';
			while ((tok = strtok_r(NULL, " \t", &save)))
				if ((set ? apply(r, &r->defaults, tok) :
				    unset(r, tok)) < 0)
					return -1;
			continue;
		}
		if (strcmp(name, "..") == 0) {
			char *slash = strrchr(r->cwd, '/');
			if (!slash)
				FAIL(r, "\"..\" above the root");
			*slash = '\0';
			r->cwdlen = (size_t)(slash - r->cwd);
			continue;
		}
		break;
	}
	if (copy_defaults(r, e) < 0)
		return -1;
	int full = strchr(name, '/') != NULL;	/* classified before decoding */
	if (seal_unvis(name) < 0) {
		seal_entry_free(e);
		FAIL(r, "bad escape in name");
	}
	if (!*name || (!full && (strcmp(name, "..") == 0 ||
	    strchr(name, '/')))) {
		seal_entry_free(e);
		FAIL(r, "bad name");
	}
	while ((tok = strtok_r(NULL, " \t", &save)))
		if (apply(r, e, tok) < 0) {
			seal_entry_free(e);
			return -1;
		}
	if (!(e->keys & K_TYPE)) {
		seal_entry_free(e);
		FAIL(r, "entry without type");
	}
	if (full) {
		const char *p = strncmp(name, "./", 2) == 0 ? name + 2 : name;
		size_t len = strlen(p);

		while (len > 0 && p[len - 1] == '/')
			len--;
		e->path = malloc(len + 3);
		if (e->path)
			snprintf(e->path, len + 3, len ? "./%.*s" : ".",
			    (int)len, p);
		if (e->path && bad_components(e->path)) {
			seal_entry_free(e);
			FAIL(r, "empty, \".\" or \"..\" path component");
		}
	} else if (strcmp(name, ".") == 0) {
		if (r->seen_root) {
			seal_entry_free(e);
			FAIL(r, "second \".\" entry");
		}
		r->seen_root = 1;
		e->path = strdup(".");
		if (e->path && e->type == T_DIR && set_cwd(r, ".") < 0) {
			seal_entry_free(e);
			return -1;
		}
	} else {
		size_t len = r->cwdlen + 1 + strlen(name) + 1;
		e->path = malloc(len);
		if (e->path)
			snprintf(e->path, len, "%s/%s", r->cwd, name);
		if (e->path && e->type == T_DIR && set_cwd(r, e->path) < 0) {
			seal_entry_free(e);
			return -1;
		}
	}
	if (!e->path)
		FAIL(r, "out of memory");
	return 1;
}
