/*
 * libFuzzer target: the key parsers of seal/sigfmt.c.  The first input
 * byte picks one: 0 public key file, 1 bare base64 public key (minisign
 * -P), 2 secret key file; the rest is the input.  Properties checked beyond
 * the sanitizers':
 *  - a refusal always has a reason;
 *  - round trip: an accepted key formatted again parses to the same
 *    fields; a bare key string is accepted only in its one canonical
 *    spelling;
 *  - an accepted encrypted secret key has scrypt limits that map to usable
 *    parameters within the memory bound (so loading it cannot ask for
 *    absurd work); an unencrypted one keeps its bytes as read.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../seal/b64.h"
#include "../../seal/sigfmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)	do { if (!(c)) abort(); } while (0)

static void
pubkey(const char *buf, size_t len, int bare)
{
	struct sig_pubkey pk, pk2;
	uint8_t bin[SIG_PUBKEY_BIN];
	char out[256], b64[B64_LEN(SIG_PUBKEY_BIN) + 1];
	const char *why = NULL;
	size_t n;
	int rc;

	rc = bare ? sig_parse_pubkey_b64(buf, len, &pk, &why) :
	    sig_parse_pubkey(buf, len, &pk, &why);
	CHECK(rc == 0 || rc == -1);
	if (rc < 0) {
		CHECK(why && *why);
		return;
	}
	n = sig_format_pubkey(out, sizeof(out), &pk);
	CHECK(n > 0 && n == strlen(out));
	CHECK(sig_parse_pubkey(out, n, &pk2, &why) == 0);
	CHECK(memcmp(&pk, &pk2, sizeof(pk)) == 0);
	if (bare) {
		memcpy(bin, "Ed", 2);
		memcpy(bin + 2, pk.keyid, SIG_KEYID_LEN);
		memcpy(bin + 2 + SIG_KEYID_LEN, pk.pk, SIG_PK_LEN);
		CHECK(b64_encode(b64, sizeof(b64), bin, sizeof(bin)) == len);
		CHECK(memcmp(b64, buf, len) == 0);
	}
}

static void
seckey(const char *buf, size_t len)
{
	struct sig_seckey sk, sk2;
	struct sig_scrypt sp;
	char out[1024];
	const char *why = NULL;
	size_t n;
	int rc;

	memset(&sk, 0, sizeof(sk));
	memset(&sk2, 0, sizeof(sk2));
	rc = sig_parse_seckey(buf, len, &sk, &why);
	CHECK(rc == 0 || rc == -1);
	if (rc < 0) {
		CHECK(why && *why);
		return;
	}
	if (sk.encrypted) {
		CHECK(sig_scrypt_params(sk.opslimit, sk.memlimit, &sp,
		    &why) == 0);
		CHECK(sp.p >= 1 && sp.r == 8 && sp.n_log2 >= 1);
		CHECK(sp.mem <= SIG_SCRYPT_MEM_MAX);
		CHECK(sk.opslimit <= SIG_SCRYPT_OPS_MAX);
	}
	n = sig_format_seckey(out, sizeof(out), "fuzz", &sk);
	CHECK(n > 0 && n == strlen(out));
	CHECK(sig_parse_seckey(out, n, &sk2, &why) == 0);
	CHECK(memcmp(&sk, &sk2, sizeof(sk)) == 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf;

	if (size < 1 || size > 4 * SIG_KEYFILE_MAX)
		return 0;
	/* An exact-size copy: any read past the end is an ASan error. */
	buf = malloc(size - 1 ? size - 1 : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, size - 1);
	switch (data[0] % 3) {
	case 0: pubkey(buf, size - 1, 0); break;
	case 1: pubkey(buf, size - 1, 1); break;
	case 2: seckey(buf, size - 1); break;
	}
	free(buf);
	return 0;
}
