/*
 * seal: create and verify mtree(5) specs; create keys, sign and check
 * signatures in minisign's format (signify's accepted too).
 *
 * Exit status, as mtree(8): 0 match or success, 2 differences found,
 * 1 any other error (usage, unreadable spec or tree, bad signature).
 */
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "owlet.h"
#include "seal.h"
#include "cmd.h"
#include "sigcmd.h"
#include "sigcrypto.h"

static const struct keyword {
	const char *name;
	unsigned bit;
} keywords[] = {
	{ "type", K_TYPE }, { "mode", K_MODE }, { "uid", K_UID },
	{ "gid", K_GID }, { "uname", K_UNAME }, { "gname", K_GNAME },
	{ "size", K_SIZE }, { "link", K_LINK }, { "nlink", K_NLINK },
	{ "sha256digest", K_SHA256 }, { "sha256", K_SHA256 },
	{ "time", K_TIME }, { "capability", K_CAPS }, { "device", K_DEVICE },
};

static void
usage(void)
{
	fprintf(stderr,
	    "usage: seal create [-p dir] [-k|-K keywords] [-x path]... "
	    "[-j threads] [--portable] [-o spec]\n"
	    "       seal verify -f spec [-p dir] [-P pubkey [-x sigfile | -e]] "
	    "[--exclude path]... [-j threads] [--json]\n"
	    "       seal keygen [-W] [-f] [-c comment] -p pubkey -s seckey\n"
	    "       seal sign -s seckey [-t trusted_comment] [-c comment] "
	    "[-x sigfile] file\n");
	exit(1);
}

static unsigned
parse_keywords(const char *list)
{
	char *copy = strdup(list), *tok, *save = NULL;
	unsigned bits = 0;
	size_t i;

	if (!copy)
		err(1, NULL);
	for (tok = strtok_r(copy, ", ", &save); tok;
	    tok = strtok_r(NULL, ", ", &save)) {
		if (strcmp(tok, "all") == 0) {
			bits |= K_DEFAULT | K_TIME;
			continue;
		}
		for (i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
			if (strcmp(tok, keywords[i].name) == 0)
				break;
		if (i == sizeof(keywords) / sizeof(keywords[0]))
			errx(1, "unknown keyword: %s", tok);
		bits |= keywords[i].bit;
	}
	free(copy);
	return bits | K_TYPE;
}

/* -x PATH (create) / --exclude PATH (verify): relative to the root. */
static void
add_exclude(struct seal_args *a, const char *path)
{
	/* "./etc/x", "/etc/x" and "etc/x" all name the same path of the
	 * tree */
	if (path[0] == '.' && path[1] == '/')
		path += 2;
	while (path[0] == '/')
		path++;
	a->exclude[a->nexclude++] = path;
}

static unsigned
parse_threads(const char *s)
{
	uint64_t n;

	if (owlet_num(s, 1, 256, 0, &n) < 0)
		errx(1, "-j: 1 to 256 threads");
	return (unsigned)n;
}

static unsigned
default_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 && n < 64 ? (unsigned)n : 2;
}

static int
cmd_create(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "portable", no_argument, NULL, 'P' },
		{ NULL, 0, NULL, 0 }
	};
	struct seal_args a = { .root = ".", .keys = K_DEFAULT,
	    .threads = default_threads(), .out = stdout };
	const char *output = NULL;
	int ch, portable = 0, rc;
	char tmp[4096];

	a.exclude = calloc((size_t)argc, sizeof(*a.exclude));
	if (!a.exclude)
		err(1, NULL);
	while ((ch = getopt_long(argc, argv, "p:k:K:x:j:o:", opts, NULL)) != -1) {
		switch (ch) {
		case 'p': a.root = optarg; break;
		case 'k': a.keys = parse_keywords(optarg); break;
		case 'K': a.keys |= parse_keywords(optarg); break;
		case 'x':
			add_exclude(&a, optarg);
			break;
		case 'j':
			a.threads = parse_threads(optarg);
			break;
		case 'o': output = optarg; break;
		case 'P': portable = 1; break;
		default: usage();
		}
	}
	if (optind != argc)
		usage();
	if (portable)
		a.keys &= K_PORTABLE_MASK;
	if (output) {
		/* complete or absent: written aside, renamed into place */
		snprintf(tmp, sizeof(tmp), "%s.tmp", output);
		a.out = fopen(tmp, "we");
		if (!a.out)
			err(1, "%s", tmp);
	}
	rc = seal_create(&a);
	if (output) {
		if (fflush(a.out) != 0 || fsync(fileno(a.out)) < 0 ||
		    fclose(a.out) != 0 || rc != 0 || rename(tmp, output) < 0) {
			if (rc == 0)
				warn("%s", output);
			unlink(tmp);
			rc = 1;
		}
	}
	free(a.exclude);
	return rc;
}

static int
cmd_verify(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "exclude", required_argument, NULL, 'X' },
		{ NULL, 0, NULL, 0 }
	};
	struct seal_args a = { .root = ".", .threads = default_threads() };
	struct sigcheck_args sc = { 0 };
	char *msg = NULL;
	size_t msglen = 0;
	FILE *spec;
	int ch, rc;

	a.exclude = calloc((size_t)argc, sizeof(*a.exclude));
	if (!a.exclude)
		err(1, NULL);
	while ((ch = getopt_long(argc, argv, "f:p:P:x:ej:", opts,
	    NULL)) != -1) {
		switch (ch) {
		case 'f': a.spec = optarg; break;
		case 'p': a.root = optarg; break;
		case 'P': sc.pubkey = optarg; break;
		case 'x': sc.sigfile = optarg; break;
		case 'e': sc.embedded = 1; break;
		case 'X':
			add_exclude(&a, optarg);
			break;
		case 'j':
			a.threads = parse_threads(optarg);
			break;
		case 'J': a.json = 1; break;
		default: usage();
		}
	}
	if (optind != argc || !a.spec)
		usage();
	if ((sc.sigfile || sc.embedded) && !sc.pubkey)
		errx(1, "-x and -e need a public key (-P); "
		    "paths are excluded with --exclude");
	if (sc.sigfile && sc.embedded)
		errx(1, "-x and -e exclude each other");
	if (sc.pubkey) {
		/* Nothing parses the spec before its signature is good, and
		 * what is parsed is the verified copy in memory. */
		if (sig_crypto_init() < 0)
			errx(1, "cannot initialise the crypto libraries");
		sc.spec = a.spec;
		if (seal_sigcheck(&sc, &msg, &msglen) != 0) {
			free(a.exclude);
			return 1;
		}
		spec = fmemopen(msg, msglen, "r");
	} else {
		spec = fopen(a.spec, "re");
	}
	if (!spec)
		err(1, "%s", a.spec);
	rc = seal_verify(&a, spec);
	fclose(spec);
	free(msg);
	free(a.exclude);
	return rc;
}

static int
cmd_keygen(int argc, char **argv)
{
	struct keygen_args k = { 0 };
	int ch;

	while ((ch = getopt(argc, argv, "Wfc:p:s:")) != -1) {
		switch (ch) {
		case 'W': k.unencrypted = 1; break;
		case 'f': k.force = 1; break;
		case 'c': k.comment = optarg; break;
		case 'p': k.pubkey = optarg; break;
		case 's': k.seckey = optarg; break;
		default: usage();
		}
	}
	if (optind != argc || !k.pubkey || !k.seckey)
		usage();
	if (sig_crypto_init() < 0)
		errx(1, "cannot initialise the crypto libraries");
	return seal_keygen(&k);
}

static int
cmd_sign(int argc, char **argv)
{
	struct sign_args s = { 0 };
	int ch;

	while ((ch = getopt(argc, argv, "s:t:c:x:")) != -1) {
		switch (ch) {
		case 's': s.seckey = optarg; break;
		case 't': s.trusted = optarg; break;
		case 'c': s.untrusted = optarg; break;
		case 'x': s.sigfile = optarg; break;
		default: usage();
		}
	}
	if (optind != argc - 1 || !s.seckey)
		usage();
	s.file = argv[optind];
	if (sig_crypto_init() < 0)
		errx(1, "cannot initialise the crypto libraries");
	return seal_sign(&s);
}

int
main(int argc, char **argv)
{
	if (argc < 2)
		usage();
	optind = 2;
	if (strcmp(argv[1], "create") == 0)
		return cmd_create(argc, argv);
	if (strcmp(argv[1], "verify") == 0)
		return cmd_verify(argc, argv);
	if (strcmp(argv[1], "keygen") == 0)
		return cmd_keygen(argc, argv);
	if (strcmp(argv[1], "sign") == 0)
		return cmd_sign(argc, argv);
	usage();
}
