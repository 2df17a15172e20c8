#ifndef SEAL_WALK_H
#define SEAL_WALK_H

#include "seal.h"

#define WALK_DEPTH_MAX	512

enum walk_event { WALK_ENTRY, WALK_LEAVE };

/*
 * FN receives every entry in canonical order and owns it (and FD, the
 * open regular file to hash, or -1).  After a directory's entry come its
 * contents and then one WALK_LEAVE (entry NULL).  The root "." is the
 * first entry; its WALK_LEAVE is the last event.  A negative return stops
 * the walk.
 */
struct walk_opts {
	const char *root;
	unsigned keys;
	const char **exclude;	/* paths relative to root, without "./" */
	size_t nexclude;
	int (*fn)(void *ctx, struct seal_entry *e, int fd,
	    enum walk_event ev);
	void *ctx;
};

int seal_walk(const struct walk_opts *o);

#endif
