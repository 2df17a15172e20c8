/*
 * pamprobe: drive libpam from a test script, with a scripted conversation
 * (every prompt is answered with the current token; messages go to stderr).
 *
 *   pamprobe [-d CONFDIR] SERVICE USER CMD [ARGS] [CMD [ARGS]]...
 *
 * Each command starts its own transaction (pam_start_confdir, ...,
 * pam_end) and prints one line, e.g. "auth 0", "chauthtok 7 Authentication
 * token manipulation error".  The exit status is 0 if every command got
 * the result it expects (auth: success; noauth: failure; chauthtok,
 * change and loop: success).
 *
 *   auth PASS            pam_authenticate answering PASS
 *   noauth PASS          pam_authenticate answering PASS, must fail
 *   chauthtok PASS       pam_chauthtok answering PASS to every prompt
 *                        (root mode: new and retyped password)
 *   change OLD NEW       pam_chauthtok answering OLD to the first prompt
 *                        (the current password, when not root) and NEW to
 *                        every later one
 *   loop N PREFIX        N changes, to PREFIX-1 .. PREFIX-N, each its own
 *                        transaction; stops at the first failure and prints
 *                        "loop DONE/N rc": DONE changes succeeded
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <security/pam_appl.h>

#include "tokenconv.h"

static const char *confdir, *service, *user;

static int
run(int chauthtok, const char *pass)
{
	struct pam_conv c = { tokenconv, (void *)"pamprobe" };
	pam_handle_t *pamh = NULL;
	int rc;

	tokenconv_token = pass;
	tokenconv_first = NULL;
	rc = pam_start_confdir(service, user, &c, confdir, &pamh);
	if (rc != PAM_SUCCESS)
		return rc;
	rc = chauthtok ? pam_chauthtok(pamh, 0) : pam_authenticate(pamh, 0);
	pam_end(pamh, rc);
	return rc;
}

/* pam_chauthtok answering OLD to the first prompt, NEW to the others. */
static int
change(const char *old, const char *new)
{
	struct pam_conv c = { tokenconv, (void *)"pamprobe" };
	pam_handle_t *pamh = NULL;
	int rc;

	tokenconv_token = new;
	tokenconv_first = old;
	rc = pam_start_confdir(service, user, &c, confdir, &pamh);
	if (rc != PAM_SUCCESS)
		return rc;
	rc = pam_chauthtok(pamh, 0);
	pam_end(pamh, rc);
	return rc;
}

static void
usage(void)
{
	fprintf(stderr, "usage: pamprobe [-d CONFDIR] SERVICE USER CMD...\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	int i = 1, bad = 0, rc;

	if (argc > 2 && strcmp(argv[1], "-d") == 0) {
		confdir = argv[2];
		i = 3;
	}
	if (argc - i < 3)
		usage();
	service = argv[i++];
	user = argv[i++];
	setvbuf(stdout, NULL, _IOLBF, 0);
	while (i < argc) {
		const char *cmd = argv[i++];

		if (i >= argc)
			usage();
		if (strcmp(cmd, "auth") == 0 || strcmp(cmd, "noauth") == 0) {
			rc = run(0, argv[i++]);
			printf("%s %d %s\n", cmd, rc, pam_strerror(NULL, rc));
			if ((rc == PAM_SUCCESS) != (cmd[0] == 'a'))
				bad = 1;
		} else if (strcmp(cmd, "chauthtok") == 0) {
			rc = run(1, argv[i++]);
			printf("%s %d %s\n", cmd, rc, pam_strerror(NULL, rc));
			if (rc != PAM_SUCCESS)
				bad = 1;
		} else if (strcmp(cmd, "change") == 0) {
			if (i + 1 >= argc)
				usage();
			rc = change(argv[i], argv[i + 1]);
			i += 2;
			printf("%s %d %s\n", cmd, rc, pam_strerror(NULL, rc));
			if (rc != PAM_SUCCESS)
				bad = 1;
		} else if (strcmp(cmd, "loop") == 0) {
			long n, k;
			const char *prefix;
			size_t len;
			char *pass;

			if (i >= argc)
				usage();
			n = strtol(argv[i++], NULL, 10);
			prefix = argv[i++];
			len = strlen(prefix) + 24;
			pass = malloc(len);
			if (!pass)
				return 1;
			rc = PAM_SUCCESS;
			for (k = 1; k <= n && rc == PAM_SUCCESS; k++) {
				snprintf(pass, len, "%s-%ld", prefix, k);
				rc = run(1, pass);
			}
			k -= rc == PAM_SUCCESS ? 1 : 2;
			printf("loop %ld/%ld %d %s\n", k, n, rc,
			    pam_strerror(NULL, rc));
			if (rc != PAM_SUCCESS)
				bad = 1;
			free(pass);
		} else {
			usage();
		}
	}
	return bad;
}
