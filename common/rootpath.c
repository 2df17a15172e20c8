/*
 * Paths for messages of tools that act on another root (--root DIR):
 * "DIR/etc/passwd", or "/etc/passwd" for the running system.  Two
 * rotating buffers, so one message may name two paths.
 */
#include <limits.h>
#include <stdio.h>

#include "owlet.h"

const char *
owlet_root_path(const char *root, const char *path)
{
	static char buf[2][PATH_MAX + 64];
	static int which;

	which ^= 1;
	snprintf(buf[which], sizeof(buf[which]), "%s%s", root, path);
	return buf[which];
}
