/*
 * The signature check that runs before a spec is parsed.  The spec is
 * attacker-controlled until this returns 0: it is read once into memory,
 * the signature is checked over those bytes, and only those bytes are
 * handed on (the file is never reopened, so swapping it after the check
 * changes nothing).  Order as minisign: key id, then the signature over
 * the spec (or its BLAKE2b-512), then the global signature over the
 * signature and the trusted comment.  Any failure is final: exit 1.
 */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sigcmd.h"
#include "sigcrypto.h"
#include "sigio.h"

/* The trusted comment, with control characters (C0, DEL, and C1 in
 * UTF-8) shown as \xHH: it may come from anyone holding the key. */
static void
print_trusted(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i;

	fputs("Trusted comment: ", stderr);
	for (i = 0; i < n; i++) {
		if ((p[i] < 0x20 && p[i] != '\t') || p[i] == 0x7f)
			fprintf(stderr, "\\x%02x", p[i]);
		else if (p[i] == 0xc2 && i + 1 < n && p[i + 1] >= 0x80 &&
		    p[i + 1] <= 0x9f) {
			fprintf(stderr, "\\xc2\\x%02x", p[i + 1]);
			i++;
		} else
			fputc(p[i], stderr);
	}
	fputc('\n', stderr);
}

int
seal_sigcheck(const struct sigcheck_args *a, char **msgp, size_t *lenp)
{
	char *sigbuf = NULL, *spec = NULL, *sigfile = NULL, *both = NULL;
	char kid_sig[17], kid_pk[17];
	const char *why, *msg;
	struct sig_pubkey pk;
	struct sig_sig s;
	uint8_t hash[64];
	size_t siglen, speclen, msglen;
	int rc = 1;

	if (seal_pubkey_load(a->pubkey, &pk) < 0)
		return 1;
	if (a->embedded) {
		sigfile = strdup(a->spec);
		if (!sigfile)
			err(1, NULL);
	} else if (a->sigfile) {
		sigfile = strdup(a->sigfile);
		if (!sigfile)
			err(1, NULL);
		if (sig_read_file(sigfile, SIG_SIGFILE_MAX, "signature", 0,
		    &sigbuf, &siglen) < 0)
			goto out;
	} else {
		/* SPEC.minisig, or signify's SPEC.sig if that is absent. */
		if (asprintf(&sigfile, "%s.minisig", a->spec) < 0)
			err(1, NULL);
		if (sig_read_file(sigfile, SIG_SIGFILE_MAX, "signature", 1,
		    &sigbuf, &siglen) < 0) {
			if (errno != ENOENT)
				goto out;
			free(sigfile);
			if (asprintf(&sigfile, "%s.sig", a->spec) < 0)
				err(1, NULL);
			if (sig_read_file(sigfile, SIG_SIGFILE_MAX,
			    "signature", 1, &sigbuf, &siglen) < 0) {
				if (errno == ENOENT)
					warnx("%s.minisig: no signature (nor "
					    "%s): not verifying", a->spec,
					    sigfile);
				goto out;
			}
		}
	}
	/* Parse the signature before reading a possibly large spec. */
	if (sigbuf && sig_parse_sig(sigbuf, siglen, 0, &s, &why) < 0) {
		warnx("%s: bad signature file: %s", sigfile, why);
		goto out;
	}
	if (sig_read_file(a->spec, SEAL_SIGNED_SPEC_MAX, "spec", 0, &spec,
	    &speclen) < 0)
		goto out;
	if (a->embedded) {
		if (sig_parse_sig(spec, speclen, 1, &s, &why) < 0) {
			warnx("%s: bad embedded signature: %s", sigfile, why);
			goto out;
		}
		msg = spec + s.message_off;
		msglen = speclen - s.message_off;
	} else {
		msg = spec;
		msglen = speclen;
	}
	if (memcmp(s.keyid, pk.keyid, SIG_KEYID_LEN) != 0) {
		sig_keyid_hex(s.keyid, kid_sig);
		sig_keyid_hex(pk.keyid, kid_pk);
		warnx("%s: signed by key ID %s, but the public key %s has key "
		    "ID %s", sigfile, kid_sig, a->pubkey, kid_pk);
		goto out;
	}
	if (s.hashed) {
		if (sig_blake2b512(msg, msglen, hash) < 0) {
			warnx("BLAKE2b-512 failed");
			goto out;
		}
	}
	if (sig_ed25519_verify(pk.pk, s.hashed ? (const void *)hash : msg,
	    s.hashed ? sizeof(hash) : msglen, s.sig) != 1) {
		warnx("%s: signature verification failed: %s was modified or "
		    "signed with another key", sigfile, a->spec);
		goto out;
	}
	if (s.kind == SIG_MINISIGN) {
		both = malloc(SIG_SIG_LEN + s.trusted_len);
		if (!both)
			err(1, NULL);
		memcpy(both, s.sig, SIG_SIG_LEN);
		memcpy(both + SIG_SIG_LEN, s.trusted, s.trusted_len);
		if (sig_ed25519_verify(pk.pk, both,
		    SIG_SIG_LEN + s.trusted_len, s.global_sig) != 1) {
			warnx("%s: trusted comment signature verification "
			    "failed: the trusted comment was modified",
			    sigfile);
			goto out;
		}
		fputs("Signature and comment signature verified\n", stderr);
		print_trusted(s.trusted, s.trusted_len);
	} else {
		fputs("Signature verified (signify: no trusted comment)\n",
		    stderr);
	}
	/* Hand on exactly the verified bytes. */
	if (msg != spec)
		memmove(spec, msg, msglen);
	*msgp = spec;
	*lenp = msglen;
	spec = NULL;
	rc = 0;
out:
	free(spec);
	free(sigbuf);
	free(sigfile);
	free(both);
	return rc;
}
