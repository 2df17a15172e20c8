/*
 * getspnam_bench: latency of one shadow lookup, in nanoseconds per lookup.
 *
 *   getspnam_bench MODE NAMES ITERS [BATCHES]
 *
 * MODE nss:   glibc getspnam(3), so whatever /etc/nsswitch.conf selects
 *             (tcb or files) runs, including glibc's own per-call work.
 * MODE floor: the physical floor of the tcb scheme: bare open, read and
 *             close of /etc/tcb/NAME/shadow, nothing else.
 * MODE pair:  nss and floor in alternating batches of one process (ITERS
 *             lookups each), for a ratio that machine load cannot skew.
 *
 * NAMES is a file of user names, one a line.  They are shuffled with a fixed
 * seed (the same order for every mode and run), so consecutive lookups hit
 * users spread over the whole tree or file; with fewer names than ITERS the
 * shuffled list is reused cyclically.  ITERS lookups are timed in BATCHES
 * batches (default 100) with CLOCK_MONOTONIC after an untimed warm-up; the
 * output is one line with the median, minimum and maximum batch figure:
 *
 *   median_ns=1234.5 min_ns=... max_ns=... ops=... batches=...
 *
 * or for pair the nss and floor medians and the median of the per-pair
 * ratios nss/floor:
 *
 *   median_ns=1234.5 floor_median_ns=... ratio_median=... ops=... batches=...
 *
 * Every lookup is checked (entry found, right name); any miss is an error,
 * so a broken setup cannot produce a fast figure.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <shadow.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PREFIX		"/etc/tcb/"
#define SUFFIX		"/shadow"
#define NAME_MAX_LEN	32

static const char *prog = "getspnam_bench";

static void
die(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(errno));
	exit(2);
}

static void
usage(void)
{
	fprintf(stderr, "usage: %s nss|floor|pair NAMES ITERS [BATCHES]\n",
	    prog);
	exit(2);
}

static unsigned long
number(const char *s, const char *what)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v == 0 || v > INT_MAX) {
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
	size_t len = 0, cap = 0, n = 0, i = 0;
	size_t got;

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

/* Fisher-Yates with splitmix64 and a fixed seed: reproducible order. */
static uint64_t
splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void
shuffle(char **names, size_t n)
{
	uint64_t seed = 20240601;
	size_t i, j;
	char *t;

	for (i = n - 1; i > 0; i--) {
		j = (size_t)(splitmix64(&seed) % (i + 1));
		t = names[i];
		names[i] = names[j];
		names[j] = t;
	}
}

static unsigned long failures;

static void
lookup_nss(const char *name)
{
	struct spwd *sp;

	errno = 0;
	sp = getspnam(name);
	if (!sp || strcmp(sp->sp_namp, name) != 0) {
		if (failures++ == 0)
			fprintf(stderr, "%s: getspnam(%s): %s\n", prog, name,
			    sp ? "wrong entry" : errno ? strerror(errno) :
			    "not found");
	}
}

static void
lookup_floor(const char *name)
{
	char path[sizeof(PREFIX) + NAME_MAX_LEN + sizeof(SUFFIX)];
	char data[8192];
	size_t nlen = strlen(name);
	ssize_t n;
	int fd;

	memcpy(path, PREFIX, sizeof(PREFIX) - 1);
	memcpy(path + sizeof(PREFIX) - 1, name, nlen);
	memcpy(path + sizeof(PREFIX) - 1 + nlen, SUFFIX, sizeof(SUFFIX));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (failures++ == 0)
			fprintf(stderr, "%s: %s: %s\n", prog, path,
			    strerror(errno));
		return;
	}
	n = read(fd, data, sizeof(data));
	close(fd);
	if (n <= (ssize_t)nlen || memcmp(data, name, nlen) != 0 ||
	    data[nlen] != ':') {
		if (failures++ == 0)
			fprintf(stderr, "%s: %s: unexpected content\n", prog,
			    path);
	}
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of V[0..N), sorting V. */
static double
median(double *v, unsigned long n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double
now_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) < 0)
		die("clock_gettime");
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static char **names;
static size_t nnames, next_name;

/* One timed batch of PER lookups over the next names; ns per lookup. */
static double
batch(void (*lookup)(const char *), unsigned long per)
{
	unsigned long k;
	double t0 = now_ns();

	for (k = 0; k < per; k++) {
		lookup(names[next_name]);
		if (++next_name == nnames)
			next_name = 0;
	}
	return (now_ns() - t0) / (double)per;
}

int
main(int argc, char **argv)
{
	void (*lookup)(const char *) = lookup_nss;
	unsigned long iters, batches, per, warm, b, k;
	double *ns, *fl, *ratio, lo, hi;
	int pair = 0;

	if (argc < 4 || argc > 5)
		usage();
	if (strcmp(argv[1], "floor") == 0)
		lookup = lookup_floor;
	else if (strcmp(argv[1], "pair") == 0)
		pair = 1;
	else if (strcmp(argv[1], "nss") != 0)
		usage();
	iters = number(argv[3], "iteration count");
	batches = argc == 5 ? number(argv[4], "batch count") : 100;
	if (batches > iters)
		batches = iters;
	per = iters / batches;

	names = load_names(argv[2], &nnames);
	shuffle(names, nnames);
	ns = calloc(batches, sizeof(*ns));
	fl = calloc(batches, sizeof(*fl));
	ratio = calloc(batches, sizeof(*ratio));
	if (!ns || !fl || !ratio)
		die("calloc");

	/* Warm-up: load the NSS module and glibc's configuration, fault in
	 * our own pages.  Taken from the end of the shuffled list. */
	warm = per < 1000 ? per : 1000;
	for (k = 0; k < warm; k++) {
		lookup(names[nnames - 1 - k % nnames]);
		if (pair)
			lookup_floor(names[nnames - 1 - k % nnames]);
	}

	/* Pair: floor and nss batches alternate (and alternate which goes
	 * first), so both see the same machine load; each batch takes fresh
	 * names.  The ratio is taken per pair of neighbouring batches. */
	for (b = 0; b < batches; b++) {
		if (!pair) {
			ns[b] = batch(lookup, per);
		} else if (b % 2) {
			ns[b] = batch(lookup_nss, per);
			fl[b] = batch(lookup_floor, per);
		} else {
			fl[b] = batch(lookup_floor, per);
			ns[b] = batch(lookup_nss, per);
		}
		if (pair)
			ratio[b] = ns[b] / fl[b];
	}
	if (failures) {
		fprintf(stderr, "%s: %lu failed lookups\n", prog, failures);
		return 1;
	}
	if (pair) {
		printf("median_ns=%.1f floor_median_ns=%.1f ratio_median=%.3f "
		    "ops=%lu batches=%lu\n", median(ns, batches),
		    median(fl, batches), median(ratio, batches), per * batches,
		    batches);
		return 0;
	}
	lo = hi = ns[0];
	for (b = 1; b < batches; b++) {
		lo = ns[b] < lo ? ns[b] : lo;
		hi = ns[b] > hi ? ns[b] : hi;
	}
	printf("median_ns=%.1f min_ns=%.1f max_ns=%.1f ops=%lu batches=%lu\n",
	    median(ns, batches), lo, hi, per * batches, batches);
	return 0;
}
