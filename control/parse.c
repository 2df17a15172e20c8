/*
 * Facility file parser: pure (no I/O), bounded, used by control and by the
 * libFuzzer target.  Every value is validated here so that the engine can
 * rely on it: absolute canonical paths, user/group names, octal modes,
 * capability text that libcap accepts, sysctl keys that map to one
 * /proc/sys path.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>

#include "facility.h"
#include "owlet.h"

#define WORDS_MAX	64	/* help and summary texts are words too */

struct parser {
	struct facility *f;
	struct state *cur;
	const char *source;
	unsigned long lineno;
	char *err;
	size_t errlen;
};

static int __attribute__((format(printf, 2, 3)))
fail(struct parser *p, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(p->err, p->errlen, "%s:%lu: ", p->source, p->lineno);
	if (n < 0 || (size_t)n >= p->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static char *
dup_or_fail(struct parser *p, const char *s)
{
	char *d = strdup(s);

	if (!d)
		fail(p, "out of memory");
	return d;
}

/* 1 to MAX of [a-z0-9_] (and [A-Z] with UPPER), '-' and '.' after the
 * first: facility and state names, kernel parameter names. */
static int
name_word_ok(const char *s, size_t max, int upper)
{
	size_t i;

	if (!s[0] || strlen(s) > max)
		return 0;
	for (i = 0; s[i]; i++) {
		char c = s[i];
		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    c == '_' || (upper && c >= 'A' && c <= 'Z'))
			continue;
		if (i > 0 && (c == '-' || c == '.'))
			continue;
		return 0;
	}
	return 1;
}

int
facility_name_ok(const char *s)
{
	return name_word_ok(s, FAC_NAME_MAX, 0);
}

static int
builtin_word(const char *s)
{
	return strcmp(s, "list") == 0 || strcmp(s, "status") == 0 ||
	    strcmp(s, "help") == 0 || strcmp(s, "summary") == 0;
}

static int
text_ok(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;

	if (strlen(s) > FAC_TEXT_MAX)
		return 0;
	for (; *u; u++)
		if (*u < 0x20 || *u == 0x7f)
			return 0;
	return 1;
}

/* An absolute path without empty, "." or ".." components, not "/". */
static int
path_ok(const char *s)
{
	const char *c;
	size_t n;

	if (s[0] != '/' || !s[1] || strlen(s) > FAC_PATH_MAX || !text_ok(s))
		return 0;
	for (c = s + 1;; c += n + 1) {
		n = strcspn(c, "/");
		if (n == 0 || (n == 1 && c[0] == '.') ||
		    (n == 2 && c[0] == '.' && c[1] == '.'))
			return 0;
		if (!c[n])
			return 1;
	}
}

/* sysctl keys: dot-separated words of [a-z0-9_-]. */
static int
sysctl_key_ok(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > 128 || s[0] == '.' || s[n - 1] == '.')
		return 0;
	for (i = 0; i < n; i++) {
		char c = s[i];
		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    c == '_' || c == '-')
			continue;
		if (c == '.' && s[i + 1] != '.')
			continue;
		return 0;
	}
	return 1;
}

/* Kernel parameter names: [A-Za-z0-9_][A-Za-z0-9_.-]*, as in
 * init_on_alloc, iommu.strict or module.sig_enforce. */
static int
kparam_ok(const char *s)
{
	return name_word_ok(s, 64, 1);
}

/* A token of the kernel command line for parameter NAME: NAME itself
 * or NAME=VALUE, one word of printable ASCII without quotes. */
static int
kparam_token_ok(const char *name, const char *tok)
{
	size_t n = strlen(name);
	const char *v;

	if (strncmp(tok, name, n) != 0 || (tok[n] && tok[n] != '='))
		return 0;
	if (!tok[n])
		return 1;
	for (v = tok + n + 1; *v; v++)
		if (*v <= ' ' || *v >= 0x7f || *v == '"')
			return 0;
	return tok[n + 1] != '\0' && strlen(tok) <= 256;
}

/* Text with ${gid:NAME} / ${uid:NAME} references, each NAME valid. */
static int
expansions_ok(const char *s)
{
	const char *p, *end;
	char name[OWLET_NAME_MAX + 1];
	size_t n;

	for (p = s; (p = strchr(p, '$')); p = end + 1) {
		if (strncmp(p, "${gid:", 6) != 0 && strncmp(p, "${uid:", 6) != 0)
			return 0;
		end = strchr(p, '}');
		if (!end)
			return 0;
		n = (size_t)(end - (p + 6));
		if (n == 0 || n > OWLET_NAME_MAX)
			return 0;
		memcpy(name, p + 6, n);
		name[n] = '\0';
		if (!owlet_name_ok(name))
			return 0;
	}
	return 1;
}

static int
parse_mode(const char *s, mode_t *mode)
{
	uint64_t v;

	if (owlet_num(s, 0, 07777, OWLET_NUM_OCTAL, &v) < 0)
		return -1;
	*mode = (mode_t)v;
	return 0;
}

static int
caps_ok(const char *s)
{
	cap_t c;

	if (strlen(s) > FAC_TEXT_MAX || strchr(s, '\n'))
		return 0;
	c = cap_from_text(s);
	if (!c)
		return 0;
	cap_free(c);
	return 1;
}

/*
 * Split LINE into words in place: blanks separate, "..." quotes (with \"
 * and \\ escapes), a word starting with # ends the line.  Returns the
 * number of words or -1 (message set).
 */
static int
split_words(struct parser *p, char *line, char **w)
{
	static char none[1];
	char *r = line, *o;
	int n = 0, i;

	/* Words past the count are empty strings, never garbage or NULL:
	 * a directive that reads one word too far sees "" and refuses it. */
	for (i = 0; i < WORDS_MAX; i++)
		w[i] = none;

	for (;;) {
		while (*r == ' ' || *r == '\t')
			r++;
		if (!*r || *r == '#')
			return n;
		if (n == WORDS_MAX)
			return fail(p, "too many words");
		w[n++] = o = r;
		if (*r == '"') {
			r++;
			while (*r != '"') {
				if (!*r)
					return fail(p, "unterminated quote");
				if (*r == '\\' && (r[1] == '"' || r[1] == '\\'))
					r++;
				else if (*r == '\\')
					return fail(p, "bad escape \\%c", r[1] ? r[1] : ' ');
				*o++ = *r++;
			}
			r++;
			if (*r && *r != ' ' && *r != '\t')
				return fail(p, "text after closing quote");
		} else {
			while (*r && *r != ' ' && *r != '\t') {
				if (*r == '"')
					return fail(p, "quote inside a word");
				*o++ = *r++;
			}
		}
		if (*r)
			r++;
		*o = '\0';
	}
}

static int
set_once(struct parser *p, char **slot, const char *what, const char *val)
{
	if (*slot)
		return fail(p, "second %s", what);
	*slot = dup_or_fail(p, val);
	return *slot ? 0 : -1;
}

static int
join_words(struct parser *p, char **slot, const char *what, char **w, int n)
{
	char buf[FAC_TEXT_MAX + 1];
	size_t used = 0, l;
	int i;

	if (n < 1)
		return fail(p, "%s needs text", what);
	for (i = 0; i < n; i++) {
		l = strlen(w[i]);
		if (used + l + (i > 0) > FAC_TEXT_MAX)
			return fail(p, "%s longer than %d bytes", what, FAC_TEXT_MAX);
		if (i > 0)
			buf[used++] = ' ';
		memcpy(buf + used, w[i], l);
		used += l;
	}
	buf[used] = '\0';
	if (!text_ok(buf))
		return fail(p, "control character in %s", what);
	return set_once(p, slot, what, buf);
}

static int
new_state(struct parser *p, char **w, int n)
{
	struct facility *f = p->f;
	struct state *s;

	if (n != 2)
		return fail(p, "usage: state NAME");
	if (!facility_name_ok(w[1]) || builtin_word(w[1]))
		return fail(p, "bad state name \"%s\"", w[1]);
	if (facility_state(f, w[1]))
		return fail(p, "state %s defined twice", w[1]);
	if (f->nstate == FAC_STATES_MAX)
		return fail(p, "more than %d states", FAC_STATES_MAX);
	s = &f->state[f->nstate];
	memset(s, 0, sizeof(*s));
	s->lineno = p->lineno;
	if (!(s->name = dup_or_fail(p, w[1])))
		return -1;
	f->nstate++;
	p->cur = s;
	return 0;
}

static int
values(struct parser *p, struct act *a, char **w, int n, int is_sysctl)
{
	int i;

	if (n < 1)
		return fail(p, "missing value");
	if (n > FAC_ALTS_MAX)
		return fail(p, "more than %d alternatives", FAC_ALTS_MAX);
	for (i = 0; i < n; i++) {
		if (strcmp(w[i], "-") == 0) {
			a->alt[a->nalt++] = NULL;
			continue;
		}
		if (!w[i][0] || !text_ok(w[i]) || !expansions_ok(w[i]))
			return fail(p, "bad value \"%s\"", w[i]);
		if (is_sysctl && strchr(w[i], '='))
			return fail(p, "bad value \"%s\"", w[i]);
		if (!(a->alt[a->nalt++] = dup_or_fail(p, w[i])))
			return -1;
	}
	return 0;
}

/* sysctl KEY VALUE|- ..., cmdline NAME TOKEN|- ...: a name that OK
 * accepts, then the values. */
static int
named_values(struct parser *p, struct act *a, char **w, int n,
    int (*ok)(const char *), const char *usage, const char *what)
{
	if (n < 3)
		return fail(p, "usage: %s", usage);
	if (!ok(w[1]))
		return fail(p, "%s: bad %s \"%s\"", w[0], what, w[1]);
	if (!(a->path = dup_or_fail(p, w[1])))
		return -1;
	return values(p, a, w + 2, n - 2, a->kind == ACT_SYSCTL);
}

static int
file_act(struct parser *p, struct act *a, char **w, int n)
{
	const char *what = a->kind == ACT_FILE ? "file" : "dir";
	int maxw = a->kind == ACT_FILE ? 6 : 5;

	if (n < 5 || n > maxw)
		return fail(p, a->kind == ACT_FILE ?
		    "usage: file PATH OWNER GROUP MODE [CAPS]" :
		    "usage: dir PATH OWNER GROUP MODE");
	if (!path_ok(w[1]))
		return fail(p, "%s: bad path \"%s\"", what, w[1]);
	if (!owlet_name_ok(w[2]))
		return fail(p, "bad owner \"%s\"", w[2]);
	if (!owlet_name_ok(w[3]))
		return fail(p, "bad group \"%s\"", w[3]);
	if (parse_mode(w[4], &a->mode) < 0)
		return fail(p, "bad mode \"%s\" (octal, at most 7777)", w[4]);
	if (n == 6 && !caps_ok(w[5]))
		return fail(p, "bad capabilities \"%s\"", w[5]);
	if (!(a->path = dup_or_fail(p, w[1])) ||
	    !(a->owner = dup_or_fail(p, w[2])) ||
	    !(a->group = dup_or_fail(p, w[3])) ||
	    (n == 6 && !(a->caps = dup_or_fail(p, w[5]))))
		return -1;
	return 0;
}

static int
new_act(struct parser *p, char **w, int n)
{
	struct state *s = p->cur;
	struct act *a;
	int i;

	if (!s)
		return fail(p, "%s before the first state", w[0]);
	if (s->nact == FAC_ACTS_MAX)
		return fail(p, "more than %d actions in state %s",
		    FAC_ACTS_MAX, s->name);
	a = &s->act[s->nact++];
	memset(a, 0, sizeof(*a));
	a->lineno = p->lineno;
	if (strcmp(w[0], "file") == 0 || strcmp(w[0], "dir") == 0) {
		a->kind = w[0][0] == 'f' ? ACT_FILE : ACT_DIR;
		return file_act(p, a, w, n);
	}
	if (strcmp(w[0], "group") == 0) {
		a->kind = ACT_GROUP;
		if (n != 2 || !owlet_name_ok(w[1]))
			return fail(p, "usage: group NAME");
		return (a->path = dup_or_fail(p, w[1])) ? 0 : -1;
	}
	if (strcmp(w[0], "line") == 0) {
		a->kind = ACT_LINE;
		if (n < 4)
			return fail(p, "usage: line FILE WORD TEXT|- ...");
		if (!path_ok(w[1]))
			return fail(p, "line: bad path \"%s\"", w[1]);
		if (!w[2][0] || !text_ok(w[2]) || strchr(w[2], ' '))
			return fail(p, "line: bad word \"%s\"", w[2]);
		if (!(a->path = dup_or_fail(p, w[1])) ||
		    !(a->token = dup_or_fail(p, w[2])))
			return -1;
		return values(p, a, w + 3, n - 3, 0);
	}
	if (strcmp(w[0], "sysctl") == 0) {
		a->kind = ACT_SYSCTL;
		return named_values(p, a, w, n, sysctl_key_ok,
		    "sysctl KEY VALUE|- ...", "key");
	}
	if (strcmp(w[0], "cmdline") == 0) {
		a->kind = ACT_CMDLINE;
		if (named_values(p, a, w, n, kparam_ok,
		    "cmdline NAME TOKEN|- ...", "parameter name") < 0)
			return -1;
		for (i = 0; i < a->nalt; i++)
			if (a->alt[i] && !kparam_token_ok(a->path, a->alt[i]))
				return fail(p, "cmdline: \"%s\" is not %s or "
				    "%s=VALUE (one word)", a->alt[i], a->path,
				    a->path);
		return 0;
	}
	if (strcmp(w[0], "pam") == 0) {
		a->kind = ACT_PAM;
		if (n != 2 || !facility_name_ok(w[1]))
			return fail(p, "usage: pam STACK");
		return (a->path = dup_or_fail(p, w[1])) ? 0 : -1;
	}
	if (strcmp(w[0], "shadow") == 0) {
		a->kind = ACT_SHADOW;
		if (n != 2 || (strcmp(w[1], "tcb") && strcmp(w[1], "files")))
			return fail(p, "usage: shadow tcb|files");
		a->tcb = strcmp(w[1], "tcb") == 0;
		return 0;
	}
	s->nact--;
	return fail(p, "unknown keyword \"%s\"", w[0]);
}

static int
new_alias(struct parser *p, char **w, int n)
{
	struct facility *f = p->f;
	int i;

	if (n != 3 || !facility_name_ok(w[1]) || !facility_name_ok(w[2]) ||
	    builtin_word(w[1]))
		return fail(p, "usage: alias NAME STATE");
	for (i = 0; i < f->nalias; i++)
		if (strcmp(f->alias[i].from, w[1]) == 0)
			return fail(p, "alias %s defined twice", w[1]);
	if (f->nalias == FAC_ALIASES_MAX)
		return fail(p, "more than %d aliases", FAC_ALIASES_MAX);
	if (!(f->alias[f->nalias].from = dup_or_fail(p, w[1])))
		return -1;
	if (!(f->alias[f->nalias].to = dup_or_fail(p, w[2]))) {
		free(f->alias[f->nalias].from);
		return -1;
	}
	f->nalias++;
	return 0;
}

static int
one_line(struct parser *p, char *line)
{
	struct facility *f = p->f;
	char *w[WORDS_MAX];
	int n;

	if ((n = split_words(p, line, w)) <= 0)
		return n;
	if (strcmp(w[0], "state") == 0)
		return new_state(p, w, n);
	if (strcmp(w[0], "help") == 0) {
		if (!p->cur)
			return fail(p, "help before the first state (use summary)");
		return join_words(p, &p->cur->help, "help", w + 1, n - 1);
	}
	if (strcmp(w[0], "summary") == 0)
		return join_words(p, &f->summary, "summary", w + 1, n - 1);
	if (strcmp(w[0], "requires") == 0) {
		if (n != 2 || !path_ok(w[1]))
			return fail(p, "usage: requires PATH");
		return set_once(p, &f->requires, "requires", w[1]);
	}
	if (strcmp(w[0], "default") == 0) {
		if (n != 2 || !facility_name_ok(w[1]))
			return fail(p, "usage: default STATE");
		return set_once(p, &f->deflt, "default", w[1]);
	}
	if (strcmp(w[0], "alias") == 0)
		return new_alias(p, w, n);
	if (strcmp(w[0], "same-as") == 0) {
		if (n != 2 || !facility_name_ok(w[1]))
			return fail(p, "usage: same-as FACILITY");
		return set_once(p, &f->same_as, "same-as", w[1]);
	}
	return new_act(p, w, n);
}

/* Is WORD a blank-separated word of TEXT? */
static int
has_word(const char *text, const char *word)
{
	size_t wl = strlen(word), n;

	for (; *text; text += n) {
		text += strspn(text, " \t");
		n = strcspn(text, " \t");
		if (n == wl && strncmp(text, word, wl) == 0)
			return 1;
	}
	return 0;
}

/* Every state can be reached and read back. */
static int
check_states(struct parser *p)
{
	const struct facility *f = p->f;
	int i, j, k;

	for (i = 0; i < f->nstate; i++) {
		const struct state *s = &f->state[i];
		p->lineno = s->lineno;
		/* no action would always hold and hide the later states */
		if (s->nact == 0)
			return fail(p, "state %s has no action", s->name);
		for (j = 0; j < s->nact; j++) {
			const struct act *a = &s->act[j];
			if (a->kind != ACT_LINE)
				continue;
			p->lineno = a->lineno;
			for (k = 0; k < a->nalt; k++)
				if (a->alt[k] && !has_word(a->alt[k], a->token))
					return fail(p, "line value \"%s\" does not "
					    "contain the word %s (it could never "
					    "be read back)", a->alt[k], a->token);
		}
	}
	return 0;
}

/* Whole-file checks: references resolve. */
static int
check_refs(struct parser *p)
{
	struct facility *f = p->f;
	int i;

	p->lineno = 0;
	if (f->same_as) {
		if (f->nstate || f->deflt || f->nalias)
			return fail(p, "same-as with states, default or aliases");
		if (strcmp(f->same_as, f->name) == 0)
			return fail(p, "same-as names the facility itself");
		return 0;
	}
	if (f->nstate == 0)
		return fail(p, "no state defined");
	if (f->deflt && !facility_state(f, f->deflt))
		return fail(p, "default names unknown state %s", f->deflt);
	for (i = 0; i < f->nalias; i++) {
		if (!facility_state(f, f->alias[i].to))
			return fail(p, "alias %s names unknown state %s",
			    f->alias[i].from, f->alias[i].to);
		if (facility_state(f, f->alias[i].from))
			return fail(p, "alias %s is also a state",
			    f->alias[i].from);
	}
	return 0;
}

int
facility_parse(struct facility *f, const char *name, const char *source,
    const char *buf, size_t len, char *err, size_t errlen)
{
	struct parser p = { f, NULL, source, 0, err, errlen };
	char line[FAC_TEXT_MAX * 2 + 64];
	size_t i = 0, n;

	memset(f, 0, sizeof(*f));
	if (!facility_name_ok(name) || strchr(name, '.')) {
		fail(&p, "bad facility name \"%s\"", name);
		return -1;
	}
	if (!(f->name = dup_or_fail(&p, name)) ||
	    !(f->source = dup_or_fail(&p, source)))
		goto bad;
	if (len > FAC_FILE_MAX) {
		fail(&p, "longer than %d bytes", FAC_FILE_MAX);
		goto bad;
	}
	while (i < len) {
		p.lineno++;
		n = 0;
		while (i + n < len && buf[i + n] != '\n')
			n++;
		if (n >= sizeof(line)) {
			fail(&p, "line longer than %zu bytes", sizeof(line) - 1);
			goto bad;
		}
		if (memchr(buf + i, '\0', n)) {
			fail(&p, "NUL byte");
			goto bad;
		}
		memcpy(line, buf + i, n);
		line[n] = '\0';
		if (one_line(&p, line) < 0)
			goto bad;
		i += n + 1;
	}
	if (check_refs(&p) < 0 || check_states(&p) < 0)
		goto bad;
	return 0;
bad:
	facility_free(f);
	return -1;
}

void
facility_free(struct facility *f)
{
	int i, j, k;

	for (i = 0; i < f->nstate; i++) {
		struct state *s = &f->state[i];
		for (j = 0; j < s->nact; j++) {
			struct act *a = &s->act[j];
			free(a->path);
			free(a->owner);
			free(a->group);
			free(a->caps);
			free(a->token);
			for (k = 0; k < a->nalt; k++)
				free(a->alt[k]);
		}
		free(s->name);
		free(s->help);
	}
	for (i = 0; i < f->nalias; i++) {
		free(f->alias[i].from);
		free(f->alias[i].to);
	}
	free(f->name);
	free(f->source);
	free(f->summary);
	free(f->requires);
	free(f->deflt);
	free(f->same_as);
	memset(f, 0, sizeof(*f));
}

const struct state *
facility_state(const struct facility *f, const char *name)
{
	int i;

	for (i = 0; i < f->nstate; i++)
		if (strcmp(f->state[i].name, name) == 0)
			return &f->state[i];
	return NULL;
}

const char *
facility_canonical(const struct facility *f, const char *name)
{
	int i;

	for (i = 0; i < f->nalias; i++)
		if (strcmp(f->alias[i].from, name) == 0)
			return f->alias[i].to;
	return name;
}
