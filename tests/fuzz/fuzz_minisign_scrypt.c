/*
 * libFuzzer target: seal's scrypt for minisign keys (sig_scrypt_params,
 * the libsodium limit mapping, with OpenSSL's EVP_PBE_scrypt) checked
 * against libsodium's crypto_pwhash_scryptsalsa208sha256, which minisign
 * calls: same success or failure, same 104 bytes.  Input: opslimit (3
 * bytes, so <= 2^24), memlimit (3 bytes), salt byte, passphrase (rest).
 * Small limits keep each run cheap while crossing both branches of the
 * mapping (p = 1, N from ops / N from mem, p from ops) and the p = 0 case.
 * Also: for any 64-bit limits, the mapping never crashes and whatever it
 * accepts stays within the memory and work bounds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "../../seal/sigcrypto.h"
#include "../../seal/sigfmt.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)	do { if (!(c)) abort(); } while (0)

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	if (sodium_init() < 0)
		abort();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t salt[SIG_SALT_LEN], mine[SIG_KEYDATA_LEN],
	    theirs[SIG_KEYDATA_LEN];
	struct sig_scrypt sp;
	const char *why, *pass;
	uint64_t ops, mem, big_ops, big_mem;
	size_t plen, i, sum;
	int a, b;

	if (size < 7 || size > 7 + 256)
		return 0;
	ops = (uint64_t)data[0] | (uint64_t)data[1] << 8 |
	    (uint64_t)(data[2] & 0x3f) << 16;		/* < 2^22 */
	mem = (uint64_t)data[3] | (uint64_t)data[4] << 8 |
	    (uint64_t)data[5] << 16;
	mem <<= 1;					/* < 2^25 */
	memset(salt, data[6], sizeof(salt));
	pass = (const char *)data + 7;
	plen = size - 7;

	/* The mapping alone on spread-out 64-bit values. */
	big_ops = 0;
	big_mem = 0;
	for (i = 0; i < 8 && i < size; i++) {
		big_ops = big_ops << 8 | data[i];
		big_mem = big_mem << 8 | data[size - 1 - i];
	}
	if (sig_scrypt_params(big_ops, big_mem, &sp, &why) == 0) {
		CHECK(sp.r == 8 && sp.p >= 1 && sp.n_log2 >= 1 &&
		    sp.n_log2 <= 32);
		CHECK(sp.mem <= SIG_SCRYPT_MEM_MAX);
		CHECK(big_ops <= SIG_SCRYPT_OPS_MAX);
	} else {
		CHECK(why && *why);
	}

	/* Keep runs cheap (a few ms at most): N bounds the mixing, p the
	 * PBKDF2 output (p KiB of HMAC-SHA-256), which costs the most at
	 * small N; N = 2^10 is the least the p = 1 branch gives.  And only
	 * inputs whose bytes sum to a multiple of 8 (one mutant in eight) run
	 * both scrypts; the others stop after the mapping checks above. */
	for (i = 0, sum = 0; i < size; i++)
		sum += data[i];
	if (sum % 8 != 0 || (sig_scrypt_params(ops, mem, &sp, &why) == 0 &&
	    (sp.p > 4 || sp.n_log2 > 10)))
		return 0;
	a = sig_scrypt(pass, plen, salt, ops, mem, mine, sizeof(mine));
	b = crypto_pwhash_scryptsalsa208sha256(theirs, sizeof(theirs), pass,
	    plen, salt, ops, (size_t)mem);
	CHECK((a == 0) == (b == 0));
	if (a == 0)
		CHECK(memcmp(mine, theirs, sizeof(mine)) == 0);
	return 0;
}
