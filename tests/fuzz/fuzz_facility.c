/*
 * libFuzzer target: facility_parse (control/parse.c), the parser of
 * control-facility(5) files.  Properties checked beyond the sanitizers':
 *  - a refusal names the source and a line ("SRC:N: ..."), and the verdict
 *    does not depend on the size of the message buffer;
 *  - an accepted facility has at least one state (or is another's
 *    same-as name, with none), every state an action, valid names, a default
 *    and aliases that resolve, absolute paths, modes within 07777, and a
 *    value for every line and sysctl action;
 *  - parsing the same bytes twice gives the same states.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "facility.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)	do { if (!(c)) abort(); } while (0)

static void
check_accepted(const struct facility *f)
{
	int i, j, k;

	CHECK(f->nstate > 0 || (f->same_as && !f->deflt && !f->nalias));
	CHECK(!f->deflt || facility_state(f, f->deflt));
	for (i = 0; i < f->nalias; i++)
		CHECK(facility_state(f, facility_canonical(f, f->alias[i].from)));
	for (i = 0; i < f->nstate; i++) {
		const struct state *s = &f->state[i];
		CHECK(facility_name_ok(s->name) && s->nact > 0);
		for (j = 0; j < s->nact; j++) {
			const struct act *a = &s->act[j];
			switch (a->kind) {
			case ACT_FILE:
			case ACT_DIR:
				CHECK(a->path[0] == '/' && a->owner && a->group);
				CHECK(a->mode <= 07777);
				break;
			case ACT_LINE:
				CHECK(a->path[0] == '/' && a->token[0]);
				/* fall through */
			case ACT_SYSCTL:
				CHECK(a->nalt > 0 && a->nalt <= FAC_ALTS_MAX);
				break;
			case ACT_CMDLINE:
				CHECK(a->path[0] && a->nalt > 0 &&
				    a->nalt <= FAC_ALTS_MAX);
				for (k = 0; k < a->nalt; k++)
					CHECK(!a->alt[k] || (strncmp(a->alt[k],
					    a->path, strlen(a->path)) == 0 &&
					    !strchr(a->alt[k], ' ')));
				break;
			case ACT_GROUP:
			case ACT_PAM:
				CHECK(a->path && a->path[0]);
				break;
			case ACT_SHADOW:
				break;
			}
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct facility f = { 0 }, g = { 0 };
	char err[512], small[24];
	int rc, rc2, i;

	rc = facility_parse(&f, "fuzz", "SRC", (const char *)data, size, err,
	    sizeof(err));
	rc2 = facility_parse(&g, "fuzz", "SRC", (const char *)data, size, small,
	    sizeof(small));
	CHECK(rc == rc2);
	if (rc < 0) {
		CHECK(strncmp(err, "SRC:", 4) == 0);
		CHECK(strncmp(small, err, sizeof(small) - 1) == 0);
		return 0;
	}
	check_accepted(&f);
	CHECK(f.nstate == g.nstate);
	for (i = 0; i < f.nstate; i++) {
		CHECK(strcmp(f.state[i].name, g.state[i].name) == 0);
		CHECK(f.state[i].nact == g.state[i].nact);
	}
	facility_free(&f);
	facility_free(&g);
	return 0;
}
