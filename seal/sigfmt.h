/*
 * minisign and signify key and signature files: pure parsers and
 * formatters (no I/O, no crypto, no allocation), so they can be fuzzed.
 *
 * Every parser takes the whole file as BUF[0..LEN), need not be
 * NUL-terminated, and either fills its result and returns 0, or returns -1
 * with *WHY set to a static one-line reason.  Lines end in LF; one CR
 * before the LF is stripped (as minisign does), any other CR or a NUL byte
 * rejects the file.  The last line may lack its LF, except where signify
 * requires it (the base64 line of an embedded signature).
 *
 * Layouts (all base64 standard, padded; integers little-endian):
 *   public key  42 bytes: "Ed" keyid(8) pk(32)
 *   secret key 158 bytes: "Ed" kdf(2: "Sc" or 0,0) "B2" salt(32) ops(8)
 *                         mem(8) | keyid(8) sk(64) chk(32) <- scrypt XOR
 *   signature   74 bytes: "ED" (BLAKE2b-512 prehash) or "Ed" (whole
 *                         message) keyid(8) sig(64); minisign adds a
 *                         trusted comment and a 64-byte global signature
 *                         over sig || trusted comment.
 */
#ifndef SEAL_SIGFMT_H
#define SEAL_SIGFMT_H

#include <stddef.h>
#include <stdint.h>

#define SIG_KEYID_LEN	8
#define SIG_PK_LEN	32
#define SIG_SEED_LEN	32
#define SIG_SK_LEN	64	/* libsodium layout: seed(32) || pk(32) */
#define SIG_SIG_LEN	64
#define SIG_SALT_LEN	32
#define SIG_CHK_LEN	32
#define SIG_PUBKEY_BIN	42
#define SIG_SECKEY_BIN	158
#define SIG_SIG_BIN	74
#define SIG_KEYDATA_LEN	104	/* keyid || sk || chk, encrypted */
#define SIG_KD_KEYID	0
#define SIG_KD_SK	8
#define SIG_KD_CHK	72

#define SIG_UNTRUSTED_PREFIX	"untrusted comment: "
#define SIG_TRUSTED_PREFIX	"trusted comment: "
/* A comment line, prefix included, LF excluded, is shorter than these
 * (minisign reads them with fgets into 1024- and 8192-byte buffers). */
#define SIG_COMMENT_LINE_MAX	1022
#define SIG_TRUSTED_LINE_MAX	8190
/* Bounds for whole files read into memory. */
#define SIG_KEYFILE_MAX		4096
#define SIG_SIGFILE_MAX		16384

/* minisign's defaults: scrypt N=2^20, r=8, p=1 (1 GiB). */
#define SIG_SCRYPT_OPS_DEFAULT	33554432ULL
#define SIG_SCRYPT_MEM_DEFAULT	1073741824ULL
/* Limits we accept in a key file: ops bounds the work (32x the default),
 * the mapped scrypt parameters bound the memory (4 GiB). */
#define SIG_SCRYPT_OPS_MAX	(1ULL << 30)
#define SIG_SCRYPT_MEM_MAX	(1ULL << 32)

struct sig_pubkey {
	uint8_t keyid[SIG_KEYID_LEN];
	uint8_t pk[SIG_PK_LEN];
};

struct sig_seckey {
	int encrypted;			/* KDF "Sc"; 0: none (-W) */
	uint8_t salt[SIG_SALT_LEN];
	uint64_t opslimit, memlimit;	/* as stored (0 if unencrypted) */
	uint8_t data[SIG_KEYDATA_LEN];	/* keyid, sk, chk (XORed) */
};

enum sig_kind { SIG_MINISIGN, SIG_SIGNIFY };

struct sig_sig {
	enum sig_kind kind;
	int hashed;			/* "ED": BLAKE2b-512 signed */
	uint8_t keyid[SIG_KEYID_LEN];
	uint8_t sig[SIG_SIG_LEN];
	uint8_t global_sig[SIG_SIG_LEN];	/* minisign only */
	const char *trusted;		/* in the parsed buffer */
	size_t trusted_len;
	size_t message_off;		/* embedded signify: message start */
};

/* libsodium's crypto_pwhash_scryptsalsa208sha256 limits -> scrypt
 * parameters (r=8; p=1 and N from ops, or N from mem and p from ops). */
struct sig_scrypt {
	unsigned n_log2;
	uint32_t r, p;
	uint64_t mem;		/* scrypt allocates 128 r (N + 2 + p) */
};
int sig_scrypt_params(uint64_t ops, uint64_t mem, struct sig_scrypt *sp,
    const char **why);

/* Public key file (2 lines), or the bare base64 string (minisign -P). */
int sig_parse_pubkey(const char *buf, size_t len, struct sig_pubkey *pk,
    const char **why);
int sig_parse_pubkey_b64(const char *s, size_t len, struct sig_pubkey *pk,
    const char **why);
/* Secret key file (2 lines, minisign).  Checks algorithm bytes and, for an
 * encrypted key, that its scrypt limits are usable; decrypts nothing. */
int sig_parse_seckey(const char *buf, size_t len, struct sig_seckey *sk,
    const char **why);
/* Signature file.  EMBEDDED=0: minisign (4 lines) or detached signify
 * (2 lines).  EMBEDDED=1: signify -e, the 2 header lines then the message
 * from BUF + message_off. */
int sig_parse_sig(const char *buf, size_t len, int embedded,
    struct sig_sig *s, const char **why);

/* Is S[0..LEN) fit for a comment line: no control character except tab
 * (so no CR, LF, NUL), and at most MAX bytes? */
int sig_comment_ok(const char *s, size_t len, size_t max);

/* The key id as minisign prints it: the 8 bytes as a little-endian u64,
 * uppercase hex without leading zeros. */
void sig_keyid_hex(const uint8_t keyid[SIG_KEYID_LEN], char out[17]);
uint64_t sig_le64(const uint8_t *p);
void sig_put_le64(uint8_t *p, uint64_t v);

/* Formatters: write the file into OUT (CAP bytes, NUL-terminated) and
 * return its length, or 0 if it does not fit or a comment is unfit. */
size_t sig_format_pubkey(char *out, size_t cap, const struct sig_pubkey *pk);
size_t sig_format_seckey(char *out, size_t cap, const char *comment,
    const struct sig_seckey *sk);
size_t sig_format_sig(char *out, size_t cap, const char *untrusted,
    const struct sig_sig *s);

#endif
