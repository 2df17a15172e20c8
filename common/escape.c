/*
 * Names from the file system (and other strings a user may choose) on
 * their way to root's terminal or to a JSON consumer.  Threat model: a
 * user names a file so that printing it raw rewrites the screen (ESC
 * sequences, CR, a newline and a fake summary line) or breaks the JSON
 * document around it.  Two rules, one for each kind of output, and no
 * other writer of such strings in the tree:
 *
 * Text (owlet_esc, owlet_esc_put): printable ASCII 0x20-0x7e passes,
 * except the backslash, which is doubled; every other byte, including
 * every byte >= 0x80, is written \xHH (two lower-case hex digits).  The
 * result is printable ASCII whatever the terminal's character set (a
 * UTF-8 continuation byte 0x9b is CSI to an 8-bit terminal), one line,
 * and reversible: read "\\" as a backslash and "\xHH" as that byte.
 *
 * JSON (owlet_json_put): a JSON string whose value is the name decoded
 * as UTF-8.  Well-formed UTF-8 passes through, except that the control
 * characters U+0000-U+001F, U+007F-U+009F and the separators U+2028 and
 * U+2029 are written \uXXXX, and '"' and '\' get a backslash.  A byte
 * that is not part of a well-formed UTF-8 sequence (overlong forms,
 * encoded surrogates and values above U+10FFFF are not well-formed) is
 * written \udcXX, the lone low surrogate U+DC00 + byte, as Python's
 * "surrogateescape" error handler (PEP 383) does: no well-formed
 * sequence decodes to a surrogate, so the mapping is reversible
 * (Python: s.encode("utf-8", "surrogateescape") gives back the bytes).
 * Decoders that refuse lone surrogates (Perl's JSON::PP) refuse such a
 * name; jq shows U+FFFD.
 */
#include <stdio.h>
#include <string.h>

#include "owlet.h"

/* The text form of byte C into E (at most 4 bytes); its length. */
static size_t
esc_byte(unsigned char c, char *e)
{
	static const char hex[] = "0123456789abcdef";

	if (c >= 0x20 && c <= 0x7e && c != '\\') {
		e[0] = (char)c;
		return 1;
	}
	if (c == '\\') {
		e[0] = e[1] = '\\';
		return 2;
	}
	e[0] = '\\';
	e[1] = 'x';
	e[2] = hex[c >> 4];
	e[3] = hex[c & 15];
	return 4;
}

size_t
owlet_esc(char *out, size_t outlen, const char *s)
{
	size_t n = 0, end = 0, w;
	int full = 0;
	char e[4];

	for (; *s; s++) {
		w = esc_byte((unsigned char)*s, e);
		/* never half an escape: what fits is a prefix of the whole */
		if (!full && n + w < outlen) {
			memcpy(out + n, e, w);
			end = n + w;
		} else
			full = 1;
		n += w;
	}
	if (outlen)
		out[end] = '\0';
	return n;
}

void
owlet_esc_put(FILE *f, const char *s)
{
	size_t w;
	char e[4];

	for (; *s; s++) {
		w = esc_byte((unsigned char)*s, e);
		fwrite(e, 1, w, f);
	}
}

/* Length of the well-formed UTF-8 sequence at S (RFC 3629: shortest
 * form, no surrogates, at most U+10FFFF) with its code point in *CP; 0
 * if S does not start one. */
static size_t
utf8_seq(const unsigned char *s, unsigned long *cp)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		*cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		*cp = s[0] & 0x0f;
		if (s[0] == 0xe0)
			lo = 0xa0;	/* overlong */
		else if (s[0] == 0xed)
			hi = 0x9f;	/* U+D800-U+DFFF */
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		*cp = s[0] & 0x07;
		if (s[0] == 0xf0)
			lo = 0x90;	/* overlong */
		else if (s[0] == 0xf4)
			hi = 0x8f;	/* above U+10FFFF */
	} else
		return 0;
	for (i = 1; i < n; i++) {
		/* a NUL ends the string: it fails this test, never read past */
		if (s[i] < lo || s[i] > hi)
			return 0;
		*cp = (*cp << 6) | (s[i] & 0x3f);
		lo = 0x80;
		hi = 0xbf;
	}
	return n;
}

void
owlet_json_put(FILE *f, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned long cp;
	size_t n;

	if (!s) {
		fputs("null", f);
		return;
	}
	putc('"', f);
	while (*u) {
		n = utf8_seq(u, &cp);
		if (n == 0) {
			fprintf(f, "\\u%04x", 0xdc00u + *u);
			n = 1;
		} else if (cp == '"' || cp == '\\')
			fprintf(f, "\\%c", (int)cp);
		else if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) ||
		    cp == 0x2028 || cp == 0x2029)
			fprintf(f, "\\u%04lx", cp);
		else
			fwrite(u, 1, n, f);
		u += n;
	}
	putc('"', f);
}
