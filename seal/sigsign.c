/*
 * seal sign: a minisign signature of FILE, always prehashed ("ED": Ed25519
 * over the BLAKE2b-512 of the file, streamed, so size does not matter),
 * with a trusted comment bound to the signature by a second, global
 * signature.  Written atomically next to FILE (FILE.minisig) or to -x.
 */
#include <err.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sigcmd.h"
#include "sigcrypto.h"
#include "sigio.h"

#define TRUSTED_MAX \
	(SIG_TRUSTED_LINE_MAX - (sizeof(SIG_TRUSTED_PREFIX) - 1))
#define UNTRUSTED_MAX \
	(SIG_COMMENT_LINE_MAX - (sizeof(SIG_UNTRUSTED_PREFIX) - 1))

int
seal_sign(const struct sign_args *a)
{
	static char tc[TRUSTED_MAX + 1], out[SIG_SIGFILE_MAX];
	const char *untrusted = a->untrusted ? a->untrusted :
	    "signature from seal secret key";
	const char *base = sig_basename(a->file);
	uint8_t sk[SIG_SK_LEN], hash[64], *both = NULL;
	struct sig_sig s = { .kind = SIG_MINISIGN, .hashed = 1 };
	char *sigfile = NULL;
	struct stat st;
	size_t len;
	mode_t mask;
	int fd, rc = 1;

	if (!sig_comment_ok(untrusted, strlen(untrusted), UNTRUSTED_MAX)) {
		warnx("-c: comment must be one line of printable characters, "
		    "at most %zu bytes", UNTRUSTED_MAX);
		return 1;
	}
	if (a->trusted) {
		if (!sig_comment_ok(a->trusted, strlen(a->trusted),
		    TRUSTED_MAX)) {
			warnx("-t: trusted comment must be one line of "
			    "printable characters, at most %zu bytes",
			    TRUSTED_MAX);
			return 1;
		}
		snprintf(tc, sizeof(tc), "%s", a->trusted);
	} else {
		/* The name goes into a tab-separated line: no control
		 * characters, tab included. */
		if (strchr(base, '\t') ||
		    !sig_comment_ok(base, strlen(base), 4096)) {
			warnx("%s: name has control characters; give the "
			    "trusted comment with -t", a->file);
			return 1;
		}
		snprintf(tc, sizeof(tc), "timestamp:%lld\tfile:%s\thashed",
		    (long long)time(NULL), base);
		if (strlen(tc) > TRUSTED_MAX - 1) {
			warnx("%s: name too long for the trusted comment",
			    a->file);
			return 1;
		}
	}
	if (a->sigfile) {
		sigfile = strdup(a->sigfile);
	} else if (asprintf(&sigfile, "%s.minisig", a->file) < 0) {
		sigfile = NULL;
	}
	if (!sigfile)
		err(1, NULL);
	/* Open the file first: no passphrase prompt for a missing file. */
	fd = open(a->file, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 || fstat(fd, &st) < 0) {
		warn("%s", a->file);
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		warnx("%s: is a directory", a->file);
		goto out;
	}
	if (seal_seckey_load(a->seckey, s.keyid, sk) < 0)
		goto out;
	if (sig_blake2b512_fd(fd, hash) < 0) {
		warn("%s: read error", a->file);
		goto out;
	}
	s.trusted = tc;
	s.trusted_len = strlen(tc);
	both = malloc(SIG_SIG_LEN + s.trusted_len);
	if (!both)
		err(1, NULL);
	if (sig_ed25519_sign(sk, hash, sizeof(hash), s.sig) < 0)
		goto fail;
	memcpy(both, s.sig, SIG_SIG_LEN);
	memcpy(both + SIG_SIG_LEN, s.trusted, s.trusted_len);
	if (sig_ed25519_sign(sk, both, SIG_SIG_LEN + s.trusted_len,
	    s.global_sig) < 0)
		goto fail;
	/* Check our own work with the key's public half. */
	if (sig_ed25519_verify(sk + SIG_SEED_LEN, both,
	    SIG_SIG_LEN + s.trusted_len, s.global_sig) != 1)
		goto fail;
	len = sig_format_sig(out, sizeof(out), untrusted, &s);
	if (len == 0)
		goto fail;
	mask = umask(077);
	umask(mask);
	if (sig_write_file(sigfile, out, len, 0644 & ~mask, 0) < 0)
		goto out;
	rc = 0;
	goto out;
fail:
	warnx("%s: signing failed", a->file);
out:
	explicit_bzero(sk, sizeof(sk));
	if (fd >= 0)
		close(fd);
	free(both);
	free(sigfile);
	return rc;
}
