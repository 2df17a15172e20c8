/*
 * Names in specs.  We write the one encoding every mtree reader decodes:
 * three-digit octal for every byte outside 0x21..0x7e and for the bytes
 * that are special to some reader (\ # * ? [ = and space).  We read that,
 * plus NetBSD's C-style escapes (\s \t \n \r \\ \# \a \b \f \v \0, \^X,
 * \M-X, \M^X) as written by Debian's mtree-netbsd.  Anything else after a
 * backslash is an error, never guessed at.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seal.h"

static int
needs_escape(unsigned char c)
{
	return c <= 0x20 || c >= 0x7f || strchr("\\#*?[=", c) != NULL;
}

size_t
seal_vis_buf(char *out, size_t outlen, const char *s)
{
	size_t n = 0;

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (needs_escape(c)) {
			if (n + 4 < outlen)
				snprintf(out + n, 5, "\\%03o", c);
			n += 4;
		} else {
			if (n + 1 < outlen)
				out[n] = (char)c;
			n++;
		}
	}
	if (outlen)
		out[n < outlen ? n : outlen - 1] = '\0';
	return n;
}

char *
seal_vis_dup(const char *s)
{
	size_t n = seal_vis_buf(NULL, 0, s);
	char *vis = malloc(n + 1);

	if (vis)
		seal_vis_buf(vis, n + 1, s);
	return vis;
}

void
seal_vis(FILE *out, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (needs_escape(c))
			fprintf(out, "\\%03o", c);
		else
			putc(c, out);
	}
}

static int
octal(const char *p)
{
	int i, v = 0;

	for (i = 0; i < 3; i++) {
		if (p[i] < '0' || p[i] > '7')
			return -1;
		v = v * 8 + (p[i] - '0');
	}
	return v <= 0xff ? v : -1;
}

int
seal_unvis(char *s)
{
	char *r = s, *w = s;

	while (*r) {
		int c, meta = 0;

		if (*r != '\\') {
			*w++ = *r++;
			continue;
		}
		r++;
		if (*r >= '0' && *r <= '7' && (c = octal(r)) >= 0) {
			*w++ = (char)c;
			r += 3;
			continue;
		}
		if (r[0] == 'M' && (r[1] == '-' || r[1] == '^')) {
			meta = 0x80;
			if (r[1] == '-') {	/* \M-X: X with the high bit */
				if (!r[2])
					return -1;
				*w++ = (char)(meta | (unsigned char)r[2]);
				r += 3;
				continue;
			}
			r += 2;		/* \M^X: control X with the high bit */
			if (!*r)
				return -1;
			*w++ = (char)(meta | (*r == '?' ? 0x7f : (*r & 0x1f)));
			r++;
			continue;
		}
		switch (*r) {
		case '^':
			if (!r[1])
				return -1;
			*w++ = (char)(r[1] == '?' ? 0x7f : (r[1] & 0x1f));
			r += 2;
			continue;
		case 's': c = ' '; break;
		case 't': c = '\t'; break;
		case 'n': c = '\n'; break;
		case 'r': c = '\r'; break;
		case 'a': c = '\a'; break;
		case 'b': c = '\b'; break;
		case 'f': c = '\f'; break;
		case 'v': c = '\v'; break;
		case '0': c = '\0'; break;
		case '\\': case '#': case '*': case '?': case '[': case '=':
		case ' ':
			c = *r;
			break;
		default:
			return -1;
		}
		if (c == '\0')
			return -1;	/* a NUL cannot be part of a name */
		*w++ = (char)c;
		r++;
	}
	*w = '\0';
	return 0;
}
