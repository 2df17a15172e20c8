#ifndef SEAL_CMD_H
#define SEAL_CMD_H

#include <stdio.h>

struct seal_args {
	const char *root;	/* -p */
	unsigned keys;		/* -k/-K, --portable */
	const char **exclude;	/* -x */
	size_t nexclude;
	unsigned threads;	/* -j */
	FILE *out;
	const char *spec;	/* -f */
	int json;
};

int seal_create(const struct seal_args *a);
int seal_verify(const struct seal_args *a, FILE *spec);

#endif
