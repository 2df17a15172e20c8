/*
 * libFuzzer target: seal's strict base64 (seal/b64.c), checked against
 * libsodium's sodium_base642bin (ORIGINAL variant, no ignored characters),
 * the decoder minisign itself uses: both must accept exactly the same
 * strings as encodings of exactly N bytes, with the same result, with one
 * known exception: libsodium 1.0.18 takes bytes 0x80-0xff as aliases of
 * alphabet characters (found by this target), seal refuses any non-ASCII
 * byte, so there seal is the stricter.  The first input byte is N, the rest
 * the string.  Also: an accepted string is the encoding of its bytes (one
 * spelling per byte string), and encoding the input and decoding it gives
 * it back.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "../../seal/b64.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)	do { if (!(c)) abort(); } while (0)

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t mine[256], theirs[256], back[4096];
	char enc[B64_LEN(4096) + 1], *src;
	size_t n, len, blen = 0, i;
	int a, b, ascii = 1;

	if (size < 1 || size > 4096)
		return 0;
	n = data[0];
	len = size - 1;
	src = malloc(len ? len : 1);
	if (!src)
		return 0;
	memcpy(src, data + 1, len);
	for (i = 0; i < len; i++)
		if ((unsigned char)src[i] >= 0x80)
			ascii = 0;
	a = b64_decode_exact(mine, n, src, len);
	b = sodium_base642bin(theirs, n, src, len, NULL, &blen, NULL,
	    sodium_base64_VARIANT_ORIGINAL) == 0 && blen == n ? 0 : -1;
	if (ascii)
		CHECK(a == b);
	else
		CHECK(a < 0);
	if (a == 0) {
		CHECK(memcmp(mine, theirs, n) == 0);
		CHECK(b64_encode(enc, sizeof(enc), mine, n) == len);
		CHECK(memcmp(enc, src, len) == 0);
	}
	/* Encode the raw input, decode it back. */
	CHECK(b64_encode(enc, B64_LEN(size), data, size) == 0);
	len = b64_encode(enc, sizeof(enc), data, size);
	CHECK(len == B64_LEN(size) && enc[len] == '\0');
	CHECK(b64_decode_exact(back, size, enc, len) == 0);
	CHECK(memcmp(back, data, size) == 0);
	if (size > 0)
		CHECK(b64_decode_exact(back, size - 1, enc, len) < 0);
	free(src);
	return 0;
}
