/*
 * seal keygen / sign, and the signature check that verify runs before it
 * parses a spec.  Each prints its own messages; return 0 on success, 1 on
 * any failure (seal's exit status for errors).
 */
#ifndef SEAL_SIGCMD_H
#define SEAL_SIGCMD_H

#include <stddef.h>
#include <stdint.h>

#include "sigfmt.h"

struct keygen_args {
	const char *pubkey;	/* -p */
	const char *seckey;	/* -s */
	const char *comment;	/* -c: the secret key file's comment */
	int unencrypted;	/* -W */
	int force;		/* -f */
};
int seal_keygen(const struct keygen_args *a);

struct sign_args {
	const char *seckey;	/* -s */
	const char *trusted;	/* -t; default: timestamp, file name */
	const char *untrusted;	/* -c */
	const char *sigfile;	/* -x, default FILE.minisig */
	const char *file;
};
int seal_sign(const struct sign_args *a);

struct sigcheck_args {
	const char *pubkey;	/* -P: key file, or the base64 key itself */
	const char *sigfile;	/* -x; SPEC.minisig, else SPEC.sig */
	const char *spec;	/* -f */
	int embedded;		/* -e: SPEC is a signify -e file */
};
/* Largest spec verified against a signature: it is held in memory. */
#define SEAL_SIGNED_SPEC_MAX	(1UL << 30)
/*
 * Read SPEC once into memory and check its signature.  0: verified, and
 * *MSG[0..*LEN) (malloc'd) holds exactly the bytes that were verified,
 * which the caller must parse instead of reopening SPEC.  1: not verified
 * (message printed), nothing returned.
 */
int seal_sigcheck(const struct sigcheck_args *a, char **msg, size_t *len);

/* keyload.c */
int seal_pubkey_load(const char *arg, struct sig_pubkey *pk);
/* Decrypt PATH (asking for its passphrase if it is encrypted) and check
 * it: checksum, and the public half of SK against its seed. */
int seal_seckey_load(const char *path, uint8_t keyid[SIG_KEYID_LEN],
    uint8_t sk[SIG_SK_LEN]);

#endif
