/*
 * shadow(5) lines: NAME:HASH:LASTCHG:MIN:MAX:WARN:INACT:EXPIRE:FLAG.
 * Exactly nine fields.  Numeric fields are empty (meaning -1, as in glibc)
 * or decimal digits up to INT_MAX (glibc drops lines with larger numbers
 * and turns 2^31..2^32-1 negative; a day count that large is garbage); the flag field, like glibc's, reads
 * as ~0UL when empty.  Anything else is malformed: root processes read
 * these files, and a line glibc would skip must not be half-accepted here.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "owlet.h"

static int
parse_num(const char *s, size_t len, long *out)
{
	uint64_t v;

	if (len == 0) {
		*out = -1;
		return 0;
	}
	/* leading zeros are fine, as strtol takes them */
	if (owlet_num_n(s, len, 0, INT_MAX, 0, &v) < 0)
		return -1;
	*out = (long)v;
	return 0;
}

/* Field boundaries of LINE[0..LEN): start offsets and lengths of 9 fields. */
static int
split9(const char *line, size_t len, size_t off[9], size_t flen[9])
{
	size_t i, f = 0, start = 0;

	for (i = 0; i <= len; i++) {
		if (i < len && line[i] == '\n')
			return -1;
		if (i < len && line[i] == '\0')
			return -1;
		if (i == len || line[i] == ':') {
			if (f == 9)
				return -1;
			off[f] = start;
			flen[f] = i - start;
			f++;
			start = i + 1;
		}
	}
	return f == 9 ? 0 : -1;
}

static int
parse_fields(const char *line, size_t len, struct spwd *sp, size_t off[9],
    size_t flen[9])
{
	long num[7];
	int i;

	if (split9(line, len, off, flen) < 0)
		return -1;
	if (!owlet_name_ok_n(line, flen[0]))
		return -1;
	for (i = 0; i < 7; i++)
		if (parse_num(line + off[i + 2], flen[i + 2], &num[i]) < 0)
			return -1;
	if (sp) {
		sp->sp_lstchg = num[0];
		sp->sp_min = num[1];
		sp->sp_max = num[2];
		sp->sp_warn = num[3];
		sp->sp_inact = num[4];
		sp->sp_expire = num[5];
		sp->sp_flag = num[6] == -1 ? ~0UL : (unsigned long)num[6];
	}
	return 0;
}

int
owlet_shadow_check(const char *line, size_t len)
{
	size_t off[9], flen[9];

	if (parse_fields(line, len, NULL, off, flen) < 0) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

int
owlet_shadow_parse(char *line, struct spwd *sp)
{
	size_t off[9], flen[9];

	if (parse_fields(line, strlen(line), sp, off, flen) < 0) {
		errno = EINVAL;
		return -1;
	}
	line[flen[0]] = '\0';
	line[off[1] + flen[1]] = '\0';
	sp->sp_namp = line;
	sp->sp_pwdp = line + off[1];
	return 0;
}
