/*
 * libFuzzer target: sig_parse_sig (seal/sigfmt.c), the parser of minisign
 * and signify signature files, which seal verify reads before it trusts
 * anything.  The input is a signature file, parsed both detached and as a
 * signify -e header.  Properties checked beyond the sanitizers':
 *  - a refusal always has a reason; an acceptance has a consistent shape
 *    (minisign <-> trusted comment inside the input, signify never "ED",
 *    embedded message offset inside the input);
 *  - round trip: an accepted signature formatted again parses to the same
 *    fields, and formatting it reproduces the input byte for byte when the
 *    input was in canonical form (LF endings, final LF);
 *  - CRLF: the same file with CR LF line ends parses to the same fields.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../seal/sigfmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)	do { if (!(c)) abort(); } while (0)

static char out[SIG_SIGFILE_MAX], out2[SIG_SIGFILE_MAX];

static int
same(const struct sig_sig *a, const struct sig_sig *b)
{
	return a->kind == b->kind && a->hashed == b->hashed &&
	    memcmp(a->keyid, b->keyid, sizeof(a->keyid)) == 0 &&
	    memcmp(a->sig, b->sig, sizeof(a->sig)) == 0 &&
	    (a->kind == SIG_SIGNIFY ||
	    (memcmp(a->global_sig, b->global_sig, sizeof(a->global_sig)) == 0 &&
	    a->trusted_len == b->trusted_len &&
	    memcmp(a->trusted, b->trusted, a->trusted_len) == 0));
}

/* The untrusted comment of an accepted file (line 1 after the prefix). */
static char *
untrusted_of(const char *buf, size_t len)
{
	size_t p = strlen(SIG_UNTRUSTED_PREFIX), e = p;
	char *c;

	while (e < len && buf[e] != '\n')
		e++;
	if (e > p && buf[e - 1] == '\r')
		e--;
	c = malloc(e - p + 1);
	if (c) {
		memcpy(c, buf + p, e - p);
		c[e - p] = '\0';
	}
	return c;
}

static void
check_crlf(const char *buf, size_t len, const struct sig_sig *s)
{
	struct sig_sig t;
	const char *why = NULL;
	size_t i, n = 0;
	char *crlf;

	if (memchr(buf, '\r', len))
		return;
	crlf = malloc(2 * len + 1);
	if (!crlf)
		return;
	for (i = 0; i < len; i++) {
		if (buf[i] == '\n')
			crlf[n++] = '\r';
		crlf[n++] = buf[i];
	}
	CHECK(sig_parse_sig(crlf, n, 0, &t, &why) == 0);
	CHECK(same(s, &t));
	free(crlf);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sig_sig s, t;
	const char *why;
	char *buf, *untrusted;
	size_t n, n2;
	int embedded, rc;

	if (size > 2 * SIG_SIGFILE_MAX)
		return 0;
	/* An exact-size copy: any read past the end is an ASan error. */
	buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	for (embedded = 0; embedded < 2; embedded++) {
		why = NULL;
		rc = sig_parse_sig(buf, size, embedded, &s, &why);
		CHECK(rc == 0 || rc == -1);
		if (rc < 0) {
			CHECK(why && *why);
			continue;
		}
		if (embedded) {
			CHECK(s.kind == SIG_SIGNIFY && !s.hashed);
			CHECK(s.message_off > 0 && s.message_off <= size);
			CHECK(buf[s.message_off - 1] == '\n');
			continue;
		}
		if (s.kind == SIG_SIGNIFY) {
			CHECK(!s.hashed);
		} else {
			CHECK(s.trusted >= buf &&
			    s.trusted + s.trusted_len <= buf + size);
			CHECK(!memchr(s.trusted, '\n', s.trusted_len));
		}
		check_crlf(buf, size, &s);
		untrusted = untrusted_of(buf, size);
		if (!untrusted)
			continue;
		n = sig_format_sig(out, sizeof(out), untrusted, &s);
		if (n == 0) {
			/* Only comments we would not write stop us. */
			CHECK(!sig_comment_ok(untrusted, strlen(untrusted),
			    SIG_COMMENT_LINE_MAX -
			    strlen(SIG_UNTRUSTED_PREFIX)) ||
			    (s.kind == SIG_MINISIGN &&
			    !sig_comment_ok(s.trusted, s.trusted_len,
			    SIG_TRUSTED_LINE_MAX -
			    strlen(SIG_TRUSTED_PREFIX))));
			free(untrusted);
			continue;
		}
		CHECK(n == strlen(out));
		CHECK(sig_parse_sig(out, n, 0, &t, &why) == 0);
		CHECK(same(&s, &t));
		n2 = sig_format_sig(out2, sizeof(out2), untrusted, &t);
		CHECK(n2 == n && memcmp(out, out2, n) == 0);
		if (!memchr(buf, '\r', size) && size > 0 &&
		    buf[size - 1] == '\n')
			CHECK(n == size && memcmp(out, buf, n) == 0);
		free(untrusted);
	}
	free(buf);
	return 0;
}
