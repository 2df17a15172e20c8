/*
 * The administrator's choices: ROOT/etc/control.d/states, one
 * "FACILITY STATE" line each, root-only, replaced atomically.  This is
 * not the truth about the system (engine.c derives that); it is what
 * --check compares against and what --reapply restores after a package
 * upgrade has put a packaged mode back.
 */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"
#include "owlet.h"

#define STATES_DIR	"etc/control.d"
#define STATES_FILE	"states"

static int
read_states(struct ctl *c, char **data, size_t *len, struct stat *st)
{
	*data = NULL;
	*len = 0;
	return text_read(c, "/" STATES_DIR "/" STATES_FILE, data, len, st);
}

/* The line of FAC in DATA: its start, and the state word in STATE. */
static char *
find_line(char *data, const char *fac, char *state, size_t len)
{
	size_t fl = strlen(fac);
	char *p, *e;

	for (p = data; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (strncmp(p, fac, fl) != 0 || p[fl] != ' ')
			continue;
		e = p + fl + 1;
		if (state)
			snprintf(state, len, "%.*s", (int)strcspn(e, "\n"), e);
		return p;
	}
	return NULL;
}

int
states_get(struct ctl *c, const char *fac, char *state, size_t len)
{
	struct stat st;
	char *data;
	size_t n;
	int rc;

	if ((rc = read_states(c, &data, &n, &st)) != 0)
		return rc == 1 ? 0 : -1;
	rc = find_line(data, fac, state, len) != NULL &&
	    facility_name_ok(state);
	free(data);
	return rc;
}

int
states_set(struct ctl *c, const char *fac, const char *state)
{
	char *data, *out, *line, *rest;
	struct stat st;
	size_t n, size;
	int rc, fd;

	if ((rc = read_states(c, &data, &n, &st)) < 0)
		return -1;
	size = n + strlen(fac) + strlen(state) + 3;
	if (!(out = malloc(size))) {
		free(data);
		warnx("out of memory");
		return -1;
	}
	out[0] = '\0';
	line = rc == 0 ? find_line(data, fac, NULL, 0) : NULL;
	if (line) {
		rest = strchr(line, '\n');
		snprintf(out, size, "%.*s%s %s\n%s", (int)(line - data), data,
		    fac, state, rest ? rest + 1 : "");
	} else
		snprintf(out, size, "%s%s%s %s\n", rc == 0 ? data : "",
		    rc == 0 && n && data[n - 1] != '\n' ? "\n" : "", fac, state);
	if (rc == 1) {
		free(data);
		data = NULL;
		n = 0;
	}
	rc = -1;
	if ((fd = ctl_mkdirs(c, STATES_DIR, 0700)) >= 0) {
		close(fd);
		/* text_write records the old file for undo */
		rc = text_write(c, "/" STATES_DIR "/" STATES_FILE, data, n,
		    data ? &st : NULL, 0600, out, strlen(out));
	} else
		warn("%s", ctl_path(c, "/" STATES_DIR));
	free(data);
	free(out);
	return rc;
}
