/*
 * The one number parser for text that root's tools and modules read:
 * passwd/group/shadow fields, login.defs values, PAM options, mtree specs,
 * modes, command-line and environment numbers.
 *
 * strtoul(3) and friends accept far more than a file format means: leading
 * white space, a sign ("-1" becomes ULONG_MAX), no digits at all, junk after
 * the digits (when the end pointer is not checked), and they saturate or
 * wrap silently when the value does not fit the caller's type (glibc reads
 * GID "4294967338" as 42).  Each such difference between what owlet and
 * what glibc or the administrator read is a place where a checked value
 * and a used value part.  Here a number is one or more digits of its base
 * and nothing else, its value is computed without overflow, and it must
 * lie in the caller's MIN..MAX; everything else is an error.
 */
#include <errno.h>
#include <string.h>

#include "owlet.h"

int
owlet_num_n(const char *s, size_t len, uint64_t min, uint64_t max, int flags,
    uint64_t *v)
{
	unsigned base = flags & OWLET_NUM_OCTAL ? 8 : 10;
	uint64_t n = 0;
	size_t i;
	int range = 0;

	if (len == 0 || ((flags & OWLET_NUM_NOZERO) && s[0] == '0' && len > 1))
		goto bad;
	for (i = 0; i < len; i++) {
		unsigned d = (unsigned char)s[i] - '0';

		if (d >= base)
			goto bad;
		if (n > (UINT64_MAX - d) / base)
			range = 1;	/* keep checking the syntax */
		else
			n = n * base + d;
	}
	if (range || n < min || n > max) {
		errno = ERANGE;
		return -1;
	}
	*v = n;
	return 0;
bad:
	errno = EINVAL;
	return -1;
}

int
owlet_num(const char *s, uint64_t min, uint64_t max, int flags, uint64_t *v)
{
	return owlet_num_n(s, strlen(s), min, max, flags, v);
}
