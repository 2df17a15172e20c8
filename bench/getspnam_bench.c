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
#include <shadow.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *prog = "getspnam_bench";

#include "timing.h"

#define PREFIX		"/etc/tcb/"
#define SUFFIX		"/shadow"

static void
usage(void)
{
	fprintf(stderr, "usage: %s nss|floor|pair NAMES ITERS [BATCHES]\n",
	    prog);
	exit(2);
}

/* Fisher-Yates with splitmix64 and a fixed seed: reproducible order. */
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
	iters = number(argv[3], "iteration count", 1);
	batches = argc == 5 ? number(argv[4], "batch count", 1) : 100;
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
