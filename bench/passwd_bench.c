/*
 * passwd_bench: wall time of one password change through PAM, in ms.
 *
 *   passwd_bench SERVICE NAMES COUNT SEED TAG LOG
 *
 * Changes the passwords of COUNT users drawn from NAMES (a file of user
 * names, one a line) with a fixed-seed generator (SEED), as root: one PAM
 * transaction per change (pam_start, pam_chauthtok, pam_end), every prompt
 * answered with the new password TAG-K (K = 0..COUNT), so there is no
 * old-password prompt (root mode) and every password is new.  SERVICE is
 * looked up in /etc/pam.d as usual (the benchmark bind-mounts a private
 * root's etc over /etc).  One untimed warm-up change (K = 0) comes first;
 * the COUNT others are timed one by one with CLOCK_MONOTONIC, from
 * pam_start to pam_end inclusive.  Every change must succeed; the first
 * failure is an error (exit 1), so a broken setup cannot produce a figure.
 *
 * Output: one line per timed change, then a summary:
 *
 *   change_ms=1.234
 *   ...
 *   median_ms=1.234 min_ms=... max_ms=... ops=COUNT
 *
 * Each change (warm-up included) is appended to LOG as "USER PASSWORD", so
 * that the caller can check afterwards that the last password of a user is
 * the one that authenticates.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <security/pam_appl.h>

static const char *prog = "passwd_bench";

#include "timing.h"
#include "../tests/bin/tokenconv.h"


static void
usage(void)
{
	fprintf(stderr, "usage: %s SERVICE NAMES COUNT SEED TAG LOG\n", prog);
	exit(2);
}

int
main(int argc, char **argv)
{
	struct pam_conv c = { tokenconv, (void *)prog };
	const char *service, *tag;
	unsigned long count, k;
	uint64_t seed;
	char **names, pass[128];
	size_t nnames;
	double *ms, t0, med;
	FILE *log;

	if (argc != 7)
		usage();
	service = argv[1];
	count = number(argv[3], "count", 0);
	seed = number(argv[4], "seed", 0);
	tag = argv[5];
	if (count == 0 || strlen(tag) > 64)
		usage();
	names = load_names(argv[2], &nnames);
	log = fopen(argv[6], "ae");
	ms = calloc(count, sizeof(*ms));
	if (!log || !ms)
		die(log ? "calloc" : argv[6]);
	setvbuf(stdout, NULL, _IOLBF, 0);

	for (k = 0; k <= count; k++) {
		const char *user = names[splitmix64(&seed) % nnames];
		pam_handle_t *pamh = NULL;
		int rc;

		snprintf(pass, sizeof(pass), "%s-%lu", tag, k);
		tokenconv_token = pass;
		t0 = now_ns();
		rc = pam_start(service, user, &c, &pamh);
		if (rc == PAM_SUCCESS) {
			rc = pam_chauthtok(pamh, 0);
			pam_end(pamh, rc);
		}
		if (k > 0)
			ms[k - 1] = (now_ns() - t0) / 1e6;
		if (rc != PAM_SUCCESS) {
			fprintf(stderr, "%s: %s: change %lu of %s: %d %s\n",
			    prog, service, k, user, rc,
			    pam_strerror(NULL, rc));
			return 1;
		}
		fprintf(log, "%s %s\n", user, pass);
		if (fflush(log) != 0)
			die(argv[6]);
		if (k > 0)
			printf("change_ms=%.3f\n", ms[k - 1]);
	}
	fclose(log);
	med = median(ms, count);	/* sorts ms: ms[0] is the minimum */
	printf("median_ms=%.3f min_ms=%.3f max_ms=%.3f ops=%lu\n", med, ms[0],
	    ms[count - 1], count);
	return 0;
}
