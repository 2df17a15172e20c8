/*
 * Library calls only: no primitive is implemented here.  Ed25519 is pure
 * (no prehash inside the signature scheme, a NULL digest for OpenSSL's
 * one-shot DigestSign/DigestVerify); minisign's "prehashed" mode is a
 * BLAKE2b-512 of the message signed as a 64-byte message.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/rand.h>
#include <sodium.h>

#include "sigcrypto.h"

int
sig_crypto_init(void)
{
	return sodium_init() < 0 ? -1 : 0;
}

int
sig_random(void *buf, size_t len)
{
	return len > 0x7fffffff || RAND_bytes(buf, (int)len) != 1 ? -1 : 0;
}

int
sig_ed25519_public(const uint8_t seed[SIG_SEED_LEN], uint8_t pk[SIG_PK_LEN])
{
	EVP_PKEY *k = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL,
	    seed, SIG_SEED_LEN);
	size_t len = SIG_PK_LEN;
	int rc;

	if (!k)
		return -1;
	rc = EVP_PKEY_get_raw_public_key(k, pk, &len) == 1 &&
	    len == SIG_PK_LEN ? 0 : -1;
	EVP_PKEY_free(k);	/* clears the private key */
	return rc;
}

int
sig_ed25519_sign(const uint8_t seed[SIG_SEED_LEN], const void *msg,
    size_t len, uint8_t sig[SIG_SIG_LEN])
{
	EVP_PKEY *k = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL,
	    seed, SIG_SEED_LEN);
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	size_t siglen = SIG_SIG_LEN;
	int rc = -1;

	if (k && ctx && EVP_DigestSignInit(ctx, NULL, NULL, NULL, k) == 1 &&
	    EVP_DigestSign(ctx, sig, &siglen, len ? msg : (const void *)"",
	    len) == 1 && siglen == SIG_SIG_LEN)
		rc = 0;
	EVP_MD_CTX_free(ctx);
	EVP_PKEY_free(k);
	return rc;
}

int
sig_ed25519_verify(const uint8_t pk[SIG_PK_LEN], const void *msg,
    size_t len, const uint8_t sig[SIG_SIG_LEN])
{
	EVP_PKEY *k = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL,
	    pk, SIG_PK_LEN);
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	int ok = 0;

	if (k && ctx && EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, k) == 1)
		ok = EVP_DigestVerify(ctx, sig, SIG_SIG_LEN,
		    len ? msg : (const void *)"", len) == 1;
	EVP_MD_CTX_free(ctx);
	EVP_PKEY_free(k);
	return ok;
}

static EVP_MD_CTX *
b2b_new(void)
{
	EVP_MD *md = EVP_MD_fetch(NULL, "BLAKE2B-512", NULL);
	EVP_MD_CTX *ctx = md ? EVP_MD_CTX_new() : NULL;

	if (ctx && EVP_DigestInit_ex2(ctx, md, NULL) != 1) {
		EVP_MD_CTX_free(ctx);
		ctx = NULL;
	}
	EVP_MD_free(md);
	return ctx;
}

int
sig_blake2b512(const void *buf, size_t len, uint8_t out[64])
{
	EVP_MD_CTX *ctx = b2b_new();
	unsigned int n = 0;
	int rc = -1;

	if (ctx && EVP_DigestUpdate(ctx, buf, len) == 1 &&
	    EVP_DigestFinal_ex(ctx, out, &n) == 1 && n == 64)
		rc = 0;
	EVP_MD_CTX_free(ctx);
	return rc;
}

int
sig_blake2b512_fd(int fd, uint8_t out[64])
{
	EVP_MD_CTX *ctx = b2b_new();
	static uint8_t buf[1 << 16];
	unsigned int n = 0;
	ssize_t got;
	int rc = -1;

	if (!ctx)
		return -1;
	for (;;) {
		got = read(fd, buf, sizeof(buf));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		if (EVP_DigestUpdate(ctx, buf, (size_t)got) != 1)
			goto out;
	}
	if (got == 0 && EVP_DigestFinal_ex(ctx, out, &n) == 1 && n == 64)
		rc = 0;
out:
	EVP_MD_CTX_free(ctx);
	return rc;
}

int
sig_key_checksum(const uint8_t keyid[SIG_KEYID_LEN],
    const uint8_t sk[SIG_SK_LEN], uint8_t out[SIG_CHK_LEN])
{
	crypto_generichash_state st;
	int rc;

	rc = crypto_generichash_init(&st, NULL, 0, SIG_CHK_LEN) == 0 &&
	    crypto_generichash_update(&st, (const uint8_t *)"Ed", 2) == 0 &&
	    crypto_generichash_update(&st, keyid, SIG_KEYID_LEN) == 0 &&
	    crypto_generichash_update(&st, sk, SIG_SK_LEN) == 0 &&
	    crypto_generichash_final(&st, out, SIG_CHK_LEN) == 0 ? 0 : -1;
	sodium_memzero(&st, sizeof(st));
	return rc;
}

int
sig_scrypt(const char *pass, size_t passlen,
    const uint8_t salt[SIG_SALT_LEN], uint64_t ops, uint64_t mem,
    uint8_t *out, size_t len)
{
	struct sig_scrypt sp;
	const char *why;

	if (sig_scrypt_params(ops, mem, &sp, &why) < 0) {
		errno = EINVAL;
		return -1;
	}
	/* A NULL password would make OpenSSL only check the parameters. */
	return EVP_PBE_scrypt(passlen ? pass : "", passlen, salt,
	    SIG_SALT_LEN, 1ULL << sp.n_log2, sp.r, sp.p, sp.mem + 65536,
	    out, len) == 1 ? 0 : -1;
}
