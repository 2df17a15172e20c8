/*
 * spprobe: the glibc shadow API (and through it libnss_tcb) from a test.
 *
 *   spprobe nam NAME            getspnam(NAME): the entry as a shadow line,
 *                               or "notfound ERRNO"
 *   spprobe namr NAME BUFLEN    getspnam_r with a BUFLEN-byte buffer:
 *                               the line, "notfound" or "rc ERRNAME"
 *   spprobe ent                 setspent/getspent/endspent: every entry
 *   spprobe entr BUFLEN         the same with getspent_r, starting with a
 *                               BUFLEN-byte buffer; each ERANGE prints
 *                               "rc ERANGE" and doubles the buffer
 *   spprobe threads FILE NTHREADS ITER
 *                               NTHREADS threads each do ITER getspnam_r
 *                               lookups cycling over the entries of FILE
 *                               (shadow lines, thread k starting at entry
 *                               k) and compare each result with the line;
 *                               prints "threads ok N" or the first mismatch
 *
 * Entries are printed in shadow(5) form: -1 numbers and the ~0 flag as
 * empty fields, exactly as putspent writes them.
 */
#include <errno.h>
#include <pthread.h>
#include <shadow.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
fmt_num(char *dst, size_t n, long v)
{
	if (v == -1)
		dst[0] = '\0';
	else
		snprintf(dst, n, "%ld", v);
}

static void
fmt(const struct spwd *sp, char *out, size_t n)
{
	char f[7][24];

	fmt_num(f[0], sizeof(f[0]), sp->sp_lstchg);
	fmt_num(f[1], sizeof(f[1]), sp->sp_min);
	fmt_num(f[2], sizeof(f[2]), sp->sp_max);
	fmt_num(f[3], sizeof(f[3]), sp->sp_warn);
	fmt_num(f[4], sizeof(f[4]), sp->sp_inact);
	fmt_num(f[5], sizeof(f[5]), sp->sp_expire);
	if (sp->sp_flag == ~0UL)
		f[6][0] = '\0';
	else
		snprintf(f[6], sizeof(f[6]), "%lu", sp->sp_flag);
	snprintf(out, n, "%s:%s:%s:%s:%s:%s:%s:%s:%s", sp->sp_namp,
	    sp->sp_pwdp ? sp->sp_pwdp : "(null)", f[0], f[1], f[2], f[3],
	    f[4], f[5], f[6]);
}

static const char *
ename(int e)
{
	const char *s = strerrorname_np(e);

	return e == 0 ? "0" : s ? s : "E?";
}

static char line[20000];

static int
cmd_nam(const char *name)
{
	struct spwd *sp;

	errno = 0;
	sp = getspnam(name);
	if (!sp) {
		printf("notfound %s\n", ename(errno));
		return 1;
	}
	fmt(sp, line, sizeof(line));
	printf("%s\n", line);
	return 0;
}

static int
cmd_namr(const char *name, size_t buflen)
{
	struct spwd sp, *res = NULL;
	char *buf = malloc(buflen ? buflen : 1);
	int rc, status = 1;

	if (!buf)
		return 2;
	/* Poison the struct: success must fill every field. */
	memset(&sp, 0x5a, sizeof(sp));
	rc = getspnam_r(name, &sp, buf, buflen, &res);
	if (rc != 0)
		printf("rc %s%s\n", ename(rc), res ? " result-set" : "");
	else if (!res)
		printf("notfound\n");
	else if (res != &sp)
		printf("bad result pointer\n");
	else {
		fmt(&sp, line, sizeof(line));
		printf("%s\n", line);
		status = 0;
	}
	free(buf);
	return status;
}

static int
cmd_ent(void)
{
	struct spwd *sp;

	setspent();
	while ((sp = getspent()) != NULL) {
		fmt(sp, line, sizeof(line));
		printf("%s\n", line);
	}
	endspent();
	return 0;
}

static int
cmd_entr(size_t buflen)
{
	struct spwd sp, *res;
	char *buf = malloc(buflen ? buflen : 1), *nbuf;
	int rc, status = 0;

	if (!buf)
		return 2;
	setspent();
	for (;;) {
		res = NULL;
		rc = getspent_r(&sp, buf, buflen, &res);
		if (rc == ENOENT && !res)
			break;
		if (rc == ERANGE && buflen < 65536) {
			/* glibc's getspent does this: the same entry must
			 * come again with the bigger buffer */
			printf("rc ERANGE\n");
			buflen = buflen ? 2 * buflen : 1;
			if (!(nbuf = realloc(buf, buflen))) {
				status = 2;
				break;
			}
			buf = nbuf;
			continue;
		}
		if (rc != 0) {
			printf("rc %s\n", ename(rc));
			status = 1;
			break;
		}
		fmt(&sp, line, sizeof(line));
		printf("%s\n", line);
	}
	endspent();
	free(buf);
	return status;
}

/* Thread test. */
static char **want;
static int nwant, iters;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long total_ok;
static int failed;

static void *
worker(void *arg)
{
	long k = (long)arg, ok = 0;
	char buf[1024], got[2048];
	struct spwd sp, *res;
	int i;

	for (i = 0; i < iters; i++) {
		const char *w = want[(k + i) % nwant];
		char name[64];
		size_t nl = strcspn(w, ":");
		int rc;

		snprintf(name, sizeof(name), "%.*s", (int)nl, w);
		res = NULL;
		rc = getspnam_r(name, &sp, buf, sizeof(buf), &res);
		if (rc == 0 && res == &sp) {
			fmt(&sp, got, sizeof(got));
			if (strcmp(got, w) == 0 && strcmp(sp.sp_namp, name) == 0) {
				ok++;
				continue;
			}
		} else {
			snprintf(got, sizeof(got), "rc=%s res=%p", ename(rc),
			    (void *)res);
		}
		pthread_mutex_lock(&mu);
		if (!failed++)
			printf("mismatch thread %ld iter %d: want '%s' got '%s'\n",
			    k, i, w, got);
		pthread_mutex_unlock(&mu);
	}
	pthread_mutex_lock(&mu);
	total_ok += ok;
	pthread_mutex_unlock(&mu);
	return NULL;
}

static int
cmd_threads(const char *file, int nthreads, int n)
{
	FILE *f;
	pthread_t th[64];
	char l[4096], **nw;
	long k;

	if (nthreads < 1 || nthreads > 64)
		return 2;
	if (!(f = fopen(file, "r"))) {
		perror(file);
		return 2;
	}
	while (fgets(l, sizeof(l), f)) {
		l[strcspn(l, "\n")] = '\0';
		nw = realloc(want, (size_t)(nwant + 1) * sizeof(*want));
		if (nw)
			want = nw;
		if (!nw || !(want[nwant] = strdup(l))) {
			fclose(f);
			return 2;
		}
		nwant++;
	}
	fclose(f);
	if (nwant == 0)
		return 2;
	iters = n;
	for (k = 0; k < nthreads; k++)
		if (pthread_create(&th[k], NULL, worker, (void *)k) != 0)
			return 2;
	for (k = 0; k < nthreads; k++)
		pthread_join(th[k], NULL);
	if (failed) {
		printf("threads failed %d ok %ld\n", failed, total_ok);
		return 1;
	}
	printf("threads ok %ld\n", total_ok);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "nam"))
		return cmd_nam(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "namr"))
		return cmd_namr(argv[2], strtoul(argv[3], NULL, 10));
	if (argc == 2 && !strcmp(argv[1], "ent"))
		return cmd_ent();
	if (argc == 3 && !strcmp(argv[1], "entr"))
		return cmd_entr(strtoul(argv[2], NULL, 10));
	if (argc == 5 && !strcmp(argv[1], "threads"))
		return cmd_threads(argv[2], atoi(argv[3]), atoi(argv[4]));
	fprintf(stderr, "usage: spprobe nam|namr|ent|entr|threads ...\n");
	return 2;
}
