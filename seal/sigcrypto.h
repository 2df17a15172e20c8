/*
 * The cryptography seal's signatures use, all of it from libraries:
 * OpenSSL 3 libcrypto for Ed25519, BLAKE2b-512, scrypt and randomness;
 * libsodium only for the 32-byte BLAKE2b of minisign's key checksum, which
 * OpenSSL 3.0 cannot produce.  0 success, -1 failure (nothing printed)
 * unless said otherwise.
 */
#ifndef SEAL_SIGCRYPTO_H
#define SEAL_SIGCRYPTO_H

#include <stddef.h>
#include <stdint.h>

#include "sigfmt.h"

int sig_crypto_init(void);
int sig_random(void *buf, size_t len);

/* The public key of an Ed25519 seed. */
int sig_ed25519_public(const uint8_t seed[SIG_SEED_LEN],
    uint8_t pk[SIG_PK_LEN]);
int sig_ed25519_sign(const uint8_t seed[SIG_SEED_LEN], const void *msg,
    size_t len, uint8_t sig[SIG_SIG_LEN]);
/* 1 valid, 0 invalid (including a public key that is no curve point). */
int sig_ed25519_verify(const uint8_t pk[SIG_PK_LEN], const void *msg,
    size_t len, const uint8_t sig[SIG_SIG_LEN]);

/* Unkeyed BLAKE2b-512 of a buffer, or of FD read to its end (streamed;
 * errno set on a read error). */
int sig_blake2b512(const void *buf, size_t len, uint8_t out[64]);
int sig_blake2b512_fd(int fd, uint8_t out[64]);

/* minisign's key checksum: BLAKE2b-256 over "Ed" || keyid || sk. */
int sig_key_checksum(const uint8_t keyid[SIG_KEYID_LEN],
    const uint8_t sk[SIG_SK_LEN], uint8_t out[SIG_CHK_LEN]);

/* crypto_pwhash_scryptsalsa208sha256 (PASS, SALT, OPS, MEM) -> OUT[LEN],
 * through sig_scrypt_params() and OpenSSL's scrypt. */
int sig_scrypt(const char *pass, size_t passlen,
    const uint8_t salt[SIG_SALT_LEN], uint64_t ops, uint64_t mem,
    uint8_t *out, size_t len);

#endif
