/*
 * Loading keys.  A public key is what every later check trusts, so it is
 * parsed strictly and named in every error.  A secret key is decrypted in
 * a buffer that is wiped on every path out, and checked twice: minisign's
 * BLAKE2b checksum (a wrong passphrase shows here) and the public half of
 * the key against the one derived from its seed (a corrupt file).
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "sigcmd.h"
#include "sigcrypto.h"
#include "sigio.h"

int
seal_pubkey_load(const char *arg, struct sig_pubkey *pk)
{
	const char *why;
	char *buf;
	size_t len;
	int rc;

	/* minisign -P style: the base64 key itself.  A path never has
	 * this exact shape in practice; if it did, the key wins. */
	if (sig_parse_pubkey_b64(arg, strlen(arg), pk, &why) == 0)
		return 0;
	if (sig_read_file(arg, SIG_KEYFILE_MAX, "public key", 0, &buf,
	    &len) < 0)
		return -1;
	rc = sig_parse_pubkey(buf, len, pk, &why);
	if (rc < 0)
		warnx("%s: bad public key file: %s", arg, why);
	free(buf);
	return rc;
}

static int
all_zero(const uint8_t *p, size_t n)
{
	uint8_t acc = 0;

	while (n--)
		acc |= *p++;
	return acc == 0;
}

int
seal_seckey_load(const char *path, uint8_t keyid[SIG_KEYID_LEN],
    uint8_t sk[SIG_SK_LEN])
{
	char pass[SIG_PASS_MAX], prompt[128];
	uint8_t stream[SIG_KEYDATA_LEN], chk[SIG_CHK_LEN], pk[SIG_PK_LEN];
	struct sig_seckey s;
	const char *why;
	char *buf;
	size_t len, i;
	int n, rc = -1;

	if (sig_read_file(path, SIG_KEYFILE_MAX, "secret key", 0, &buf,
	    &len) < 0)
		return -1;
	n = sig_parse_seckey(buf, len, &s, &why);
	explicit_bzero(buf, len);
	free(buf);
	if (n < 0) {
		warnx("%s: bad secret key file: %s", path, why);
		return -1;
	}
	if (s.encrypted) {
		snprintf(prompt, sizeof(prompt), "Passphrase for %s: ",
		    sig_basename(path));
		n = sig_passphrase(pass, prompt, 0);
		if (n < 0)
			goto out;
		if (sig_scrypt(pass, (size_t)n, s.salt, s.opslimit,
		    s.memlimit, stream, sizeof(stream)) < 0) {
			warnx("%s: scrypt failed (out of memory?)", path);
			goto out;
		}
		for (i = 0; i < sizeof(stream); i++)
			s.data[i] ^= stream[i];
	}
	if (sig_key_checksum(s.data + SIG_KD_KEYID, s.data + SIG_KD_SK,
	    chk) < 0) {
		warnx("%s: checksum failed", path);
		goto out;
	}
	/* minisign -W writes no checksum (zeros) for unencrypted keys. */
	if (CRYPTO_memcmp(chk, s.data + SIG_KD_CHK, SIG_CHK_LEN) != 0 &&
	    (s.encrypted || !all_zero(s.data + SIG_KD_CHK, SIG_CHK_LEN))) {
		warnx(s.encrypted ? "%s: wrong passphrase for this key" :
		    "%s: corrupt secret key (checksum mismatch)", path);
		goto out;
	}
	if (sig_ed25519_public(s.data + SIG_KD_SK, pk) < 0 ||
	    CRYPTO_memcmp(pk, s.data + SIG_KD_SK + SIG_SEED_LEN,
	    SIG_PK_LEN) != 0) {
		warnx("%s: corrupt secret key (public half does not match)",
		    path);
		goto out;
	}
	memcpy(keyid, s.data + SIG_KD_KEYID, SIG_KEYID_LEN);
	memcpy(sk, s.data + SIG_KD_SK, SIG_SK_LEN);
	rc = 0;
out:
	explicit_bzero(pass, sizeof(pass));
	explicit_bzero(stream, sizeof(stream));
	explicit_bzero(chk, sizeof(chk));
	explicit_bzero(&s, sizeof(s));
	return rc;
}
