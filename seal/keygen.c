/*
 * seal keygen: an Ed25519 key pair in minisign's formats.  The secret key
 * is encrypted exactly as minisign does it (scrypt stream XORed over key
 * id, key and checksum; limits stored in the file), so minisign and seal
 * can use each other's keys.  Key files are never overwritten unless -f:
 * the existence check up front saves a passphrase prompt, and the final
 * rename refuses to replace (the check alone would race).
 */
#include <err.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "b64.h"
#include "owlet.h"
#include "sigcmd.h"
#include "sigcrypto.h"
#include "sigio.h"

/* A decimal u64 from the environment (tests lower the scrypt cost). */
static int
env_u64(const char *name, uint64_t def, uint64_t *v)
{
	const char *s = getenv(name);

	if (!s) {
		*v = def;
		return 0;
	}
	if (owlet_num(s, 0, UINT64_MAX, 0, v) < 0) {
		warnx("%s: not a decimal number: %s", name, s);
		return -1;
	}
	return 0;
}

int
seal_keygen(const struct keygen_args *a)
{
	char pass[SIG_PASS_MAX], text[1024], pubtext[256];
	uint8_t stream[SIG_KEYDATA_LEN];
	struct sig_seckey s = { 0 };
	struct sig_pubkey p;
	struct sig_scrypt sp;
	const char *comment = a->comment, *why;
	size_t len, plen = 0, i;
	mode_t mask;
	int n, rc = 1;

	if (!comment)
		comment = a->unencrypted ? "seal unencrypted secret key" :
		    "seal encrypted secret key";
	if (!sig_comment_ok(comment, strlen(comment), SIG_COMMENT_LINE_MAX -
	    strlen(SIG_UNTRUSTED_PREFIX))) {
		warnx("-c: comment must be one line of printable characters");
		return 1;
	}
	if (strcmp(a->pubkey, a->seckey) == 0) {
		warnx("the public and secret key files must differ");
		return 1;
	}
	if (!a->force) {
		for (i = 0; i < 2; i++) {
			const char *f = i ? a->pubkey : a->seckey;

			if (sig_exists(f)) {
				warnx("%s: already exists (use -f to "
				    "overwrite)", f);
				return 1;
			}
		}
	}
	if (!a->unencrypted) {
		s.encrypted = 1;
		if (env_u64("SEAL_SCRYPT_OPSLIMIT", SIG_SCRYPT_OPS_DEFAULT,
		    &s.opslimit) < 0 || env_u64("SEAL_SCRYPT_MEMLIMIT",
		    SIG_SCRYPT_MEM_DEFAULT, &s.memlimit) < 0)
			return 1;
		if (sig_scrypt_params(s.opslimit, s.memlimit, &sp, &why) < 0) {
			warnx("scrypt limits %" PRIu64 "/%" PRIu64 ": %s",
			    s.opslimit, s.memlimit, why);
			return 1;
		}
		n = sig_passphrase(pass, "Passphrase for the new key: ", 1);
		if (n < 0)
			return 1;
		if (n == 0) {
			warnx("empty passphrase (use -W for an unencrypted "
			    "key)");
			goto out;
		}
		plen = (size_t)n;
	}
	if (sig_random(s.data + SIG_KD_KEYID, SIG_KEYID_LEN) < 0 ||
	    sig_random(s.data + SIG_KD_SK, SIG_SEED_LEN) < 0 ||
	    sig_ed25519_public(s.data + SIG_KD_SK,
	    s.data + SIG_KD_SK + SIG_SEED_LEN) < 0 ||
	    sig_key_checksum(s.data + SIG_KD_KEYID, s.data + SIG_KD_SK,
	    s.data + SIG_KD_CHK) < 0 ||
	    (s.encrypted && sig_random(s.salt, sizeof(s.salt)) < 0)) {
		warnx("key generation failed");
		goto out;
	}
	memcpy(p.keyid, s.data + SIG_KD_KEYID, SIG_KEYID_LEN);
	memcpy(p.pk, s.data + SIG_KD_SK + SIG_SEED_LEN, SIG_PK_LEN);
	if (s.encrypted) {
		if (sig_scrypt(pass, plen, s.salt, s.opslimit, s.memlimit,
		    stream, sizeof(stream)) < 0) {
			warnx("scrypt failed (out of memory?)");
			goto out;
		}
		for (i = 0; i < sizeof(stream); i++)
			s.data[i] ^= stream[i];
	}
	len = sig_format_seckey(text, sizeof(text), comment, &s);
	plen = sig_format_pubkey(pubtext, sizeof(pubtext), &p);
	if (len == 0 || plen == 0) {
		warnx("key formatting failed");
		goto out;
	}
	mask = umask(077);
	umask(mask);
	if (sig_write_file(a->seckey, text, len, 0600, !a->force) < 0)
		goto out;
	if (sig_write_file(a->pubkey, pubtext, plen, 0644 & ~mask,
	    !a->force) < 0) {
		/* Do not leave half a pair: the secret key is ours, just
		 * written (a replaced one is gone either way). */
		if (!a->force)
			unlink(a->seckey);
		goto out;
	}
	/* The key line alone on stdout: what minisign -P takes. */
	printf("%.*s\n", (int)B64_LEN(SIG_PUBKEY_BIN),
	    strchr(pubtext, '\n') + 1);
	rc = 0;
out:
	explicit_bzero(pass, sizeof(pass));
	explicit_bzero(stream, sizeof(stream));
	explicit_bzero(&s, sizeof(s));
	explicit_bzero(text, sizeof(text));
	return rc;
}
