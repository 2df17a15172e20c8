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
read_states(struct ctl *c, char **data, size_t *len)
{
	struct stat st;

	*data = NULL;
	*len = 0;
	return text_read(c, "/" STATES_DIR "/" STATES_FILE, data, len, &st);
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
	char *data;
	size_t n;
	int rc;

	if ((rc = read_states(c, &data, &n)) != 0)
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
	size_t n, size;
	int rc, fd;

	if ((rc = read_states(c, &data, &n)) < 0)
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
		*line = '\0';
		snprintf(out, size, "%s%s %s\n%s", data, fac, state,
		    rest ? rest + 1 : "");
	} else
		snprintf(out, size, "%s%s%s %s\n", rc == 0 ? data : "",
		    rc == 0 && n && data[n - 1] != '\n' ? "\n" : "", fac, state);
	free(data);
	rc = -1;
	if ((fd = ctl_mkdirs(c, STATES_DIR, 0700)) >= 0) {
		rc = owlet_write_replace(fd, STATES_FILE, out, strlen(out),
		    0600, 0, 0) < 0 ? -1 : 0;
		close(fd);
	}
	if (rc < 0)
		warn("cannot record the state in %s",
		    ctl_path(c, "/" STATES_DIR "/" STATES_FILE));
	free(out);
	return rc;
}
