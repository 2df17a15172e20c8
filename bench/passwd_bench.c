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
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <security/pam_appl.h>

#define NAME_MAX_LEN	32

static const char *prog = "passwd_bench";
static const char *token = "";

static void
die(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(errno));
	exit(2);
}

static void
usage(void)
{
	fprintf(stderr, "usage: %s SERVICE NAMES COUNT SEED TAG LOG\n", prog);
	exit(2);
}

static unsigned long
number(const char *s, const char *what)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v > INT_MAX) {
		fprintf(stderr, "%s: bad %s: %s\n", prog, what, s);
		exit(2);
	}
	return v;
}

/* Read NAMES into an array of NUL-terminated strings. */
static char **
load_names(const char *file, size_t *countp)
{
	FILE *f;
	char *data = NULL, **names, *p, *end;
	size_t len = 0, cap = 0, n = 0, i = 0, got;

	f = fopen(file, "re");
	if (!f)
		die(file);
	for (;;) {
		if (cap - len < 65536) {
			cap = cap ? cap * 2 : 1 << 20;
			data = realloc(data, cap + 1);
			if (!data)
				die("realloc");
		}
		got = fread(data + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(f))
		die(file);
	fclose(f);
	data[len] = '\n';
	end = data + len;
	for (p = data; p < end; p++)
		n += *p == '\n';
	names = calloc(n + 1, sizeof(*names));
	if (!names)
		die("calloc");
	for (p = data; p < end; ) {
		char *nl = memchr(p, '\n', (size_t)(end - p) + 1);

		*nl = '\0';
		if (nl - p > NAME_MAX_LEN) {
			fprintf(stderr, "%s: %s: name too long: %s\n", prog,
			    file, p);
			exit(2);
		}
		if (nl > p)
			names[i++] = p;
		p = nl + 1;
	}
	if (i == 0) {
		fprintf(stderr, "%s: %s: no names\n", prog, file);
		exit(2);
	}
	*countp = i;
	return names;
}

static uint64_t
splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Every prompt gets TOKEN; messages go to stderr. */
static int
conv(int n, const struct pam_message **msg, struct pam_response **resp,
    void *data)
{
	struct pam_response *r;
	int i;

	(void)data;
	r = calloc((size_t)n, sizeof(*r));
	if (!r)
		return PAM_BUF_ERR;
	for (i = 0; i < n; i++) {
		switch (msg[i]->msg_style) {
		case PAM_PROMPT_ECHO_OFF:
		case PAM_PROMPT_ECHO_ON:
			r[i].resp = strdup(token);
			if (!r[i].resp)
				goto fail;
			break;
		case PAM_ERROR_MSG:
		case PAM_TEXT_INFO:
			fprintf(stderr, "%s: %s\n", prog, msg[i]->msg);
			break;
		default:
			goto fail;
		}
	}
	*resp = r;
	return PAM_SUCCESS;
fail:
	for (i = 0; i < n; i++)
		free(r[i].resp);
	free(r);
	return PAM_CONV_ERR;
}

static double
now_ms(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) < 0)
		die("clock_gettime");
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int
main(int argc, char **argv)
{
	struct pam_conv c = { conv, NULL };
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
	count = number(argv[3], "count");
	seed = number(argv[4], "seed");
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
		token = pass;
		t0 = now_ms();
		rc = pam_start(service, user, &c, &pamh);
		if (rc == PAM_SUCCESS) {
			rc = pam_chauthtok(pamh, 0);
			pam_end(pamh, rc);
		}
		if (k > 0)
			ms[k - 1] = now_ms() - t0;
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
	qsort(ms, count, sizeof(*ms), cmp_double);
	med = count % 2 ? ms[count / 2] :
	    (ms[count / 2 - 1] + ms[count / 2]) / 2;
	printf("median_ms=%.3f min_ms=%.3f max_ms=%.3f ops=%lu\n", med, ms[0],
	    ms[count - 1], count);
	return 0;
}
