/*
 * Parsers and formatters for minisign/signify files.  Threat model: a key
 * or signature file may be written by an attacker (a signature travels
 * with the spec it covers).  Nothing here trusts a length or an offset from
 * the input; every line is bounded, every decoded field has an exact size,
 * and a file that is not exactly one of the known shapes is rejected, so
 * the verifier never acts on a half-understood signature.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "b64.h"
#include "sigfmt.h"

#define PFX_LEN(p)	(sizeof(p) - 1)

struct cursor {
	const char *buf;
	size_t len, pos;
};

/*
 * The next line of C, at most MAX bytes (after CR stripping).  *NL says
 * whether it ended in LF.  1: a line; 0: end of input; -1: error.
 */
static int
next_line(struct cursor *c, size_t max, const char **line, size_t *llen,
    int *nl, const char **why)
{
	const char *p = c->buf + c->pos, *end;
	size_t avail = c->len - c->pos, n;

	if (avail == 0)
		return 0;
	end = memchr(p, '\n', avail);
	n = end ? (size_t)(end - p) : avail;
	*nl = end != NULL;
	c->pos += n + (end != NULL);
	if (n > 0 && p[n - 1] == '\r')
		n--;
	if (n > max) {
		*why = "line too long";
		return -1;
	}
	if (memchr(p, '\r', n)) {
		*why = "carriage return inside a line";
		return -1;
	}
	if (memchr(p, '\0', n)) {
		*why = "NUL byte in a line";
		return -1;
	}
	*line = p;
	*llen = n;
	return 1;
}

static int
has_prefix(const char *s, size_t len, const char *pfx)
{
	size_t n = strlen(pfx);

	return len >= n && memcmp(s, pfx, n) == 0;
}

/* The untrusted comment line: prefix required, content free. */
static int
comment_line(struct cursor *c, const char **why)
{
	const char *line;
	size_t n;
	int nl, rc;

	rc = next_line(c, SIG_COMMENT_LINE_MAX, &line, &n, &nl, why);
	if (rc == 0)
		*why = "empty file";
	if (rc <= 0)
		return -1;
	if (!has_prefix(line, n, SIG_UNTRUSTED_PREFIX)) {
		*why = "first line does not start with \"untrusted comment: \"";
		return -1;
	}
	if (!nl) {
		*why = "truncated after the comment line";
		return -1;
	}
	return 0;
}

/* A base64 line holding exactly N bytes. */
static int
b64_line(struct cursor *c, uint8_t *dst, size_t n, int *nl, const char *what,
    const char **why)
{
	const char *line;
	size_t len;
	int rc;

	rc = next_line(c, B64_LEN(n) + 64, &line, &len, nl, why);
	if (rc == 0) {
		*why = what;
		return -1;
	}
	if (rc < 0) {
		if (strcmp(*why, "line too long") == 0)
			*why = "base64 line too long";
		return -1;
	}
	if (len != B64_LEN(n)) {
		*why = "base64 line has the wrong length";
		return -1;
	}
	if (b64_decode_exact(dst, n, line, len) < 0) {
		*why = "invalid base64";
		return -1;
	}
	return 0;
}

static int
at_end(const struct cursor *c, const char **why)
{
	if (c->pos != c->len) {
		*why = "unexpected data after the last line";
		return -1;
	}
	return 0;
}

uint64_t
sig_le64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

void
sig_put_le64(uint8_t *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

void
sig_keyid_hex(const uint8_t keyid[SIG_KEYID_LEN], char out[17])
{
	snprintf(out, 17, "%" PRIX64, sig_le64(keyid));
}

int
sig_scrypt_params(uint64_t ops, uint64_t mem, struct sig_scrypt *sp,
    const char **why)
{
	uint64_t maxn, maxrp;
	unsigned l;

	/* Bound the input first: the work grows with ops, and the
	 * arithmetic below stays far from overflow. */
	if (ops > SIG_SCRYPT_OPS_MAX || mem > (1ULL << 62)) {
		*why = "scrypt limits too high";
		return -1;
	}
	/* libsodium's pickparams(), which minisign relies on. */
	if (ops < 32768)
		ops = 32768;
	sp->r = 8;
	if (ops < mem / 32) {
		sp->p = 1;
		maxn = ops / (sp->r * 4);
		for (l = 1; l < 63; l++)
			if (1ULL << l > maxn / 2)
				break;
	} else {
		maxn = mem / ((uint64_t)sp->r * 128);
		for (l = 1; l < 63; l++)
			if (1ULL << l > maxn / 2)
				break;
		maxrp = (ops / 4) / (1ULL << l);
		if (maxrp > 0x3fffffff)
			maxrp = 0x3fffffff;
		sp->p = (uint32_t)maxrp / sp->r;
	}
	sp->n_log2 = l;
	if (sp->p == 0) {
		/* libsodium refuses these (p = 0): so does minisign. */
		*why = "unusable scrypt limits";
		return -1;
	}
	if (l > 32) {
		*why = "scrypt memory limit too high";
		return -1;
	}
	sp->mem = 128ULL * sp->r * ((1ULL << l) + 2 + sp->p);
	if (sp->mem > SIG_SCRYPT_MEM_MAX) {
		*why = "scrypt memory limit too high";
		return -1;
	}
	return 0;
}

/* The 42 decoded bytes of a public key: "Ed", key id, Ed25519 key. */
static int
pubkey_from_bin(const uint8_t bin[SIG_PUBKEY_BIN], struct sig_pubkey *pk,
    const char **why)
{
	if (memcmp(bin, "Ed", 2) != 0) {
		*why = "unsupported public key algorithm (not Ed25519)";
		return -1;
	}
	memcpy(pk->keyid, bin + 2, SIG_KEYID_LEN);
	memcpy(pk->pk, bin + 2 + SIG_KEYID_LEN, SIG_PK_LEN);
	return 0;
}

int
sig_parse_pubkey_b64(const char *s, size_t len, struct sig_pubkey *pk,
    const char **why)
{
	uint8_t bin[SIG_PUBKEY_BIN];

	if (len != B64_LEN(SIG_PUBKEY_BIN) ||
	    b64_decode_exact(bin, sizeof(bin), s, len) < 0) {
		*why = "not a base64 public key";
		return -1;
	}
	return pubkey_from_bin(bin, pk, why);
}

int
sig_parse_pubkey(const char *buf, size_t len, struct sig_pubkey *pk,
    const char **why)
{
	struct cursor c = { buf, len, 0 };
	uint8_t bin[SIG_PUBKEY_BIN];
	int nl;

	if (comment_line(&c, why) < 0 ||
	    b64_line(&c, bin, sizeof(bin), &nl, "no key line", why) < 0 ||
	    at_end(&c, why) < 0)
		return -1;
	return pubkey_from_bin(bin, pk, why);
}

int
sig_parse_seckey(const char *buf, size_t len, struct sig_seckey *sk,
    const char **why)
{
	static const uint8_t none[2] = { 0, 0 };
	struct cursor c = { buf, len, 0 };
	uint8_t bin[SIG_SECKEY_BIN];
	struct sig_scrypt sp;
	const char *line;
	size_t n;
	int nl, rc = -1;

	if (comment_line(&c, why) < 0)
		goto out;
	/* A signify secret key (bcrypt_pbkdf, 104 bytes): say so. */
	{
		struct cursor peek = c;

		if (next_line(&peek, B64_LEN(SIG_SECKEY_BIN) + 64, &line, &n,
		    &nl, why) > 0 && n == B64_LEN(104) &&
		    has_prefix(line, n, "RWRCSw")) {
			*why = "a signify secret key (bcrypt KDF), "
			    "not a minisign one";
			goto out;
		}
	}
	if (b64_line(&c, bin, sizeof(bin), &nl, "no key line", why) < 0 ||
	    at_end(&c, why) < 0)
		goto out;
	if (memcmp(bin, "Ed", 2) != 0) {
		*why = "unsupported signature algorithm (not Ed25519)";
		goto out;
	}
	if (memcmp(bin + 2, "Sc", 2) == 0) {
		sk->encrypted = 1;
	} else if (memcmp(bin + 2, none, 2) == 0) {
		sk->encrypted = 0;
	} else {
		*why = "unsupported key derivation function (not scrypt)";
		goto out;
	}
	if (memcmp(bin + 4, "B2", 2) != 0) {
		*why = "unsupported checksum function (not BLAKE2b)";
		goto out;
	}
	memcpy(sk->salt, bin + 6, SIG_SALT_LEN);
	sk->opslimit = sig_le64(bin + 38);
	sk->memlimit = sig_le64(bin + 46);
	memcpy(sk->data, bin + 54, SIG_KEYDATA_LEN);
	if (sk->encrypted &&
	    sig_scrypt_params(sk->opslimit, sk->memlimit, &sp, why) < 0)
		goto out;
	rc = 0;
out:
	/* An unencrypted key's secret was in BIN. */
	explicit_bzero(bin, sizeof(bin));
	return rc;
}

int
sig_parse_sig(const char *buf, size_t len, int embedded, struct sig_sig *s,
    const char **why)
{
	struct cursor c = { buf, len, 0 };
	uint8_t bin[SIG_SIG_BIN];
	const char *line;
	size_t n;
	int nl, rc;

	memset(s, 0, sizeof(*s));
	if (comment_line(&c, why) < 0 ||
	    b64_line(&c, bin, sizeof(bin), &nl, "no signature line", why) < 0)
		return -1;
	if (memcmp(bin, "ED", 2) == 0) {
		s->hashed = 1;
	} else if (memcmp(bin, "Ed", 2) != 0) {
		*why = "unsupported signature algorithm";
		return -1;
	}
	memcpy(s->keyid, bin + 2, SIG_KEYID_LEN);
	memcpy(s->sig, bin + 2 + SIG_KEYID_LEN, SIG_SIG_LEN);
	if (embedded) {
		/* signify -e: the message follows the LF of line 2. */
		if (!nl) {
			*why = "no newline after the signature line";
			return -1;
		}
		if (s->hashed) {
			*why = "embedded signature with a prehashed "
			    "(ED) algorithm";
			return -1;
		}
		s->kind = SIG_SIGNIFY;
		s->message_off = c.pos;
		return 0;
	}
	if (c.pos == c.len) {
		/* Two lines: signify's detached form, no trusted comment. */
		if (s->hashed) {
			*why = "trusted comment missing";
			return -1;
		}
		s->kind = SIG_SIGNIFY;
		return 0;
	}
	if (!nl) {
		*why = "no newline after the signature line";
		return -1;
	}
	s->kind = SIG_MINISIGN;
	rc = next_line(&c, SIG_TRUSTED_LINE_MAX, &line, &n, &nl, why);
	if (rc < 0) {
		if (strcmp(*why, "line too long") == 0)
			*why = "trusted comment too long";
		return -1;
	}
	if (rc == 0 || !has_prefix(line, n, SIG_TRUSTED_PREFIX)) {
		*why = "third line does not start with \"trusted comment: \"";
		return -1;
	}
	if (!nl) {
		*why = "global signature missing";
		return -1;
	}
	s->trusted = line + PFX_LEN(SIG_TRUSTED_PREFIX);
	s->trusted_len = n - PFX_LEN(SIG_TRUSTED_PREFIX);
	if (b64_line(&c, s->global_sig, SIG_SIG_LEN, &nl,
	    "global signature missing", why) < 0 || at_end(&c, why) < 0)
		return -1;
	return 0;
}

int
sig_comment_ok(const char *s, size_t len, size_t max)
{
	size_t i;

	if (len > max)
		return 0;
	for (i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];

		if ((ch < 0x20 && ch != '\t') || ch == 0x7f)
			return 0;
	}
	return 1;
}

/* Append S[0..N) to OUT; keeps *LEN and leaves room for the NUL. */
static int
put(char *out, size_t cap, size_t *len, const char *s, size_t n)
{
	if (n >= cap - *len)
		return -1;
	memcpy(out + *len, s, n);
	*len += n;
	out[*len] = '\0';
	return 0;
}

static int
put_b64(char *out, size_t cap, size_t *len, const uint8_t *bin, size_t n)
{
	size_t w;

	if (cap - *len < B64_LEN(n) + 2)
		return -1;
	w = b64_encode(out + *len, cap - *len, bin, n);
	if (w == 0)
		return -1;
	*len += w;
	return put(out, cap, len, "\n", 1);
}

static int
put_comment(char *out, size_t cap, size_t *len, const char *pfx,
    const char *text, size_t max)
{
	size_t n = strlen(text);

	if (!sig_comment_ok(text, n, max - strlen(pfx)))
		return -1;
	return put(out, cap, len, pfx, strlen(pfx)) < 0 ||
	    put(out, cap, len, text, n) < 0 ||
	    put(out, cap, len, "\n", 1) < 0 ? -1 : 0;
}

/* The two lines every file starts with: "untrusted comment: COMMENT",
 * then BIN in base64. */
static int
put_untrusted_b64(char *out, size_t cap, size_t *len, const char *comment,
    const uint8_t *bin, size_t n)
{
	if (put_comment(out, cap, len, SIG_UNTRUSTED_PREFIX, comment,
	    SIG_COMMENT_LINE_MAX) < 0 ||
	    put_b64(out, cap, len, bin, n) < 0)
		return -1;
	return 0;
}

size_t
sig_format_pubkey(char *out, size_t cap, const struct sig_pubkey *pk)
{
	uint8_t bin[SIG_PUBKEY_BIN];
	char text[64], id[17];
	size_t len = 0;

	if (cap == 0)
		return 0;
	sig_keyid_hex(pk->keyid, id);
	snprintf(text, sizeof(text), "minisign public key %s", id);
	memcpy(bin, "Ed", 2);
	memcpy(bin + 2, pk->keyid, SIG_KEYID_LEN);
	memcpy(bin + 2 + SIG_KEYID_LEN, pk->pk, SIG_PK_LEN);
	if (put_untrusted_b64(out, cap, &len, text, bin, sizeof(bin)) < 0)
		return 0;
	return len;
}

size_t
sig_format_seckey(char *out, size_t cap, const char *comment,
    const struct sig_seckey *sk)
{
	uint8_t bin[SIG_SECKEY_BIN];
	size_t len = 0;

	if (cap == 0)
		return 0;
	memcpy(bin, "Ed", 2);
	if (sk->encrypted)
		memcpy(bin + 2, "Sc", 2);
	else
		memset(bin + 2, 0, 2);
	memcpy(bin + 4, "B2", 2);
	memcpy(bin + 6, sk->salt, SIG_SALT_LEN);
	sig_put_le64(bin + 38, sk->opslimit);
	sig_put_le64(bin + 46, sk->memlimit);
	memcpy(bin + 54, sk->data, SIG_KEYDATA_LEN);
	if (put_untrusted_b64(out, cap, &len, comment, bin, sizeof(bin)) < 0)
		len = 0;
	explicit_bzero(bin, sizeof(bin));
	return len;
}

size_t
sig_format_sig(char *out, size_t cap, const char *untrusted,
    const struct sig_sig *s)
{
	uint8_t bin[SIG_SIG_BIN];
	size_t len = 0;

	if (cap == 0)
		return 0;
	memcpy(bin, s->hashed ? "ED" : "Ed", 2);
	memcpy(bin + 2, s->keyid, SIG_KEYID_LEN);
	memcpy(bin + 2 + SIG_KEYID_LEN, s->sig, SIG_SIG_LEN);
	if (put_untrusted_b64(out, cap, &len, untrusted, bin, sizeof(bin)) < 0)
		return 0;
	if (s->kind == SIG_SIGNIFY)
		return s->hashed ? 0 : len;
	if (!sig_comment_ok(s->trusted, s->trusted_len,
	    SIG_TRUSTED_LINE_MAX - PFX_LEN(SIG_TRUSTED_PREFIX)) ||
	    put(out, cap, &len, SIG_TRUSTED_PREFIX,
	    PFX_LEN(SIG_TRUSTED_PREFIX)) < 0 ||
	    put(out, cap, &len, s->trusted, s->trusted_len) < 0 ||
	    put(out, cap, &len, "\n", 1) < 0 ||
	    put_b64(out, cap, &len, s->global_sig, SIG_SIG_LEN) < 0)
		return 0;
	return len;
}
