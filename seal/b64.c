/*
 * Strict base64.  The decoder is the first thing that touches key and
 * signature files, which come from anywhere: it never reads outside
 * SRC[0..SRCLEN), never writes more than N bytes, and rejects every
 * non-canonical spelling so that one byte string has one text form.
 */
#include "b64.h"

static const char alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* The 6-bit value of C, or -1. */
static int
val(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

size_t
b64_encode(char *dst, size_t cap, const uint8_t *src, size_t n)
{
	size_t i, o = 0;
	uint32_t v;

	if (n > (((size_t)-1) - 3) / 4 * 3 || cap < B64_LEN(n) + 1)
		return 0;
	for (i = 0; i + 3 <= n; i += 3) {
		v = (uint32_t)src[i] << 16 | (uint32_t)src[i + 1] << 8 |
		    src[i + 2];
		dst[o++] = alphabet[v >> 18];
		dst[o++] = alphabet[(v >> 12) & 63];
		dst[o++] = alphabet[(v >> 6) & 63];
		dst[o++] = alphabet[v & 63];
	}
	if (n - i == 1) {
		v = (uint32_t)src[i] << 16;
		dst[o++] = alphabet[v >> 18];
		dst[o++] = alphabet[(v >> 12) & 63];
		dst[o++] = '=';
		dst[o++] = '=';
	} else if (n - i == 2) {
		v = (uint32_t)src[i] << 16 | (uint32_t)src[i + 1] << 8;
		dst[o++] = alphabet[v >> 18];
		dst[o++] = alphabet[(v >> 12) & 63];
		dst[o++] = alphabet[(v >> 6) & 63];
		dst[o++] = '=';
	}
	dst[o] = '\0';
	return o;
}

int
b64_decode_exact(uint8_t *dst, size_t n, const char *src, size_t srclen)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t i, o = 0, full = n / 3, rest = n % 3;
	int a, b, c, d;

	if (n > ((size_t)-1) / 2 || srclen != B64_LEN(n))
		return -1;
	for (i = 0; i < full; i++, s += 4) {
		a = val(s[0]); b = val(s[1]); c = val(s[2]); d = val(s[3]);
		if ((a | b | c | d) < 0)
			return -1;
		dst[o++] = (uint8_t)(a << 2 | b >> 4);
		dst[o++] = (uint8_t)((b & 15) << 4 | c >> 2);
		dst[o++] = (uint8_t)((c & 3) << 6 | d);
	}
	if (rest == 0)
		return 0;
	/* Last quantum: 1 byte = "xx==", 2 bytes = "xxx="; the bits the
	 * padding stands for must be zero (one spelling per string). */
	a = val(s[0]); b = val(s[1]);
	if ((a | b) < 0)
		return -1;
	dst[o++] = (uint8_t)(a << 2 | b >> 4);
	if (rest == 1)
		return (b & 15) == 0 && s[2] == '=' && s[3] == '=' ? 0 : -1;
	c = val(s[2]);
	if (c < 0 || (c & 3) != 0 || s[3] != '=')
		return -1;
	dst[o] = (uint8_t)((b & 15) << 4 | c >> 2);
	return 0;
}
