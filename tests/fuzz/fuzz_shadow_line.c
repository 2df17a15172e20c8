/*
 * libFuzzer target: owlet_shadow_check and owlet_shadow_parse
 * (common/shadowline.c, with the name rules of common/names.c), which
 * root processes and libnss_tcb run on files their users control.
 * Properties checked beyond the sanitizers':
 *  - check (on the raw, unterminated bytes) and parse (on a terminated
 *    copy) agree; a line holding a NUL or a newline is never accepted;
 *  - an accepted line has a valid name, and printing the parsed entry and
 *    parsing it again gives the same entry;
 *  - anything accepted, glibc's own parser (sgetspent_r, the "files"
 *    service) accepts too, with the same fields, as long as the day counts
 *    fit in an int and the flag in 32 bits.  glibc 2.36 refuses a line
 *    with any number above 2^32-1 and turns day counts from 2^31 to
 *    2^32-1 negative (a cast to int); shadowline.c accepts every number
 *    up to LONG_MAX, so the two differ there, by design or not.
 */
#include <errno.h>
#include <limits.h>
#include <shadow.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "owlet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)	do { if (!(c)) abort(); } while (0)

static int
same_numbers(const struct spwd *a, const struct spwd *b)
{
	return a->sp_lstchg == b->sp_lstchg && a->sp_min == b->sp_min &&
	    a->sp_max == b->sp_max && a->sp_warn == b->sp_warn &&
	    a->sp_inact == b->sp_inact && a->sp_expire == b->sp_expire &&
	    a->sp_flag == b->sp_flag;
}

static int
fits_int(const struct spwd *sp)
{
	return sp->sp_lstchg <= INT_MAX && sp->sp_min <= INT_MAX &&
	    sp->sp_max <= INT_MAX && sp->sp_warn <= INT_MAX &&
	    sp->sp_inact <= INT_MAX && sp->sp_expire <= INT_MAX &&
	    (sp->sp_flag == ~0UL || sp->sp_flag <= 0xffffffffUL);
}

static void
num(char *out, size_t len, long v)
{
	if (v == -1)
		out[0] = '\0';
	else
		snprintf(out, len, "%ld", v);
}

static void
glibc_agrees(const char *text, size_t size, const struct spwd *sp)
{
	struct spwd gsp, *gres = NULL;
	size_t blen = 2 * size + 64;
	char *copy = malloc(size + 1), *buf = malloc(blen);

	if (copy && buf) {
		memcpy(copy, text, size);
		copy[size] = '\0';
		CHECK(sgetspent_r(copy, &gsp, buf, blen, &gres) == 0);
		CHECK(gres == &gsp);
		CHECK(strcmp(gsp.sp_namp, sp->sp_namp) == 0);
		CHECK(strcmp(gsp.sp_pwdp, sp->sp_pwdp) == 0);
		CHECK(same_numbers(&gsp, sp));
	}
	free(copy);
	free(buf);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct spwd sp, sp2;
	char *raw, *line, *again;
	char n[6][24], flag[24];
	int checked, parsed;
	size_t len;

	if (size > OWLET_LINE_MAX)
		return 0;
	/* Exact-size copy, no terminator: check must stay inside SIZE. */
	raw = malloc(size ? size : 1);
	line = malloc(size + 1);
	if (!raw || !line) {
		free(raw);
		free(line);
		return 0;
	}
	memcpy(raw, data, size);
	memcpy(line, data, size);
	line[size] = '\0';

	errno = 0;
	checked = owlet_shadow_check(raw, size) == 0;
	CHECK(checked || errno == EINVAL);
	if (memchr(data, '\0', size) || memchr(data, '\n', size))
		CHECK(!checked);
	if (memchr(data, '\0', size)) {
		free(raw);
		free(line);
		return 0;
	}
	memset(&sp, 0, sizeof(sp));
	parsed = owlet_shadow_parse(line, &sp) == 0;
	CHECK(parsed == checked);
	if (!parsed) {
		free(raw);
		free(line);
		return 0;
	}
	CHECK(owlet_name_ok(sp.sp_namp));
	CHECK(sp.sp_namp == line);
	CHECK(strchr(sp.sp_pwdp, ':') == NULL);

	/* Print and parse again. */
	num(n[0], sizeof(n[0]), sp.sp_lstchg);
	num(n[1], sizeof(n[1]), sp.sp_min);
	num(n[2], sizeof(n[2]), sp.sp_max);
	num(n[3], sizeof(n[3]), sp.sp_warn);
	num(n[4], sizeof(n[4]), sp.sp_inact);
	num(n[5], sizeof(n[5]), sp.sp_expire);
	if (sp.sp_flag == ~0UL)
		flag[0] = '\0';
	else
		snprintf(flag, sizeof(flag), "%lu", sp.sp_flag);
	len = strlen(sp.sp_namp) + strlen(sp.sp_pwdp) + 7 * 24 + 16;
	again = malloc(len);
	if (again) {
		snprintf(again, len, "%s:%s:%s:%s:%s:%s:%s:%s:%s", sp.sp_namp,
		    sp.sp_pwdp, n[0], n[1], n[2], n[3], n[4], n[5], flag);
		CHECK(owlet_shadow_check(again, strlen(again)) == 0);
		/* glibc's parser, on the input and on the printed line. */
		if (fits_int(&sp)) {
			glibc_agrees((const char *)data, size, &sp);
			glibc_agrees(again, strlen(again), &sp);
		}
		CHECK(owlet_shadow_parse(again, &sp2) == 0);
		CHECK(strcmp(sp2.sp_namp, sp.sp_namp) == 0);
		CHECK(strcmp(sp2.sp_pwdp, sp.sp_pwdp) == 0);
		CHECK(same_numbers(&sp2, &sp));
	}
	free(again);
	free(raw);
	free(line);
	return 0;
}
