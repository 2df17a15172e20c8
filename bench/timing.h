/*
 * bench/timing.h: what the C benchmarks (getspnam_bench, passwd_bench)
 * share: the error exit, numeric arguments, the NAMES file of user names,
 * the fixed-seed generator that orders or draws them, the monotonic clock
 * and the median of the timings.  Static inline, so each program compiles
 * its own copy and bench/bench.mk links no extra object.
 *
 * The including file defines `static const char *prog' (its name in
 * messages) before it includes this.  Every error here is fatal: a message
 * on stderr and exit status 2, as for a usage error, so that a broken setup
 * never produces a figure.
 */
#ifndef OWLET_BENCH_TIMING_H
#define OWLET_BENCH_TIMING_H

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NAME_MAX_LEN	32	/* longest name accepted in NAMES */

/* Exit 2 with WHAT and strerror(errno). */
static inline void
die(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(errno));
	exit(2);
}

/* S as a decimal number in LO..INT_MAX; anything else exits 2. */
static inline unsigned long
number(const char *s, const char *what, unsigned long lo)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > INT_MAX) {
		fprintf(stderr, "%s: bad %s: %s\n", prog, what, s);
		exit(2);
	}
	return v;
}

/*
 * Read NAMES (one a line, empty lines skipped) into an array of
 * NUL-terminated strings pointing into one buffer, kept for the life of the
 * program; *COUNTP gets their number, at least 1.
 */
static inline char **
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
	/* A sentinel newline (cap + 1 allocated) ends the last line. */
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

/* splitmix64: the next value of the sequence of seed *S (reproducible). */
static inline uint64_t
splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* CLOCK_MONOTONIC in nanoseconds. */
static inline double
now_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) < 0)
		die("clock_gettime");
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static inline int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of V[0..N), N > 0; sorts V, so V[0] and V[N - 1] are then the
 * minimum and the maximum. */
static inline double
median(double *v, unsigned long n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif
