/*
 * Bounded line reader: a line longer than OWLET_LINE_MAX is an error (E2BIG),
 * never silently split; a NUL byte in a line is EINVAL.  A last line without
 * '\n' is returned like any other.  Memory use is the fixed buffer in the
 * struct, whatever the file size.
 */
#include <errno.h>
#include <string.h>

#include "owlet.h"

void
owlet_lines_init(struct owlet_lines *lr, int fd)
{
	lr->fd = fd;
	lr->lineno = 0;
	lr->start = lr->end = 0;
	lr->eof = 0;
}

/* Hand out the LEN bytes at lr->start as a line; SKIP bytes are consumed. */
static int
take(struct owlet_lines *lr, size_t len, size_t skip, char **line,
    size_t *lenp)
{
	*line = lr->buf + lr->start;
	*lenp = len;
	(*line)[len] = '\0';	/* the '\n', or the spare byte after end */
	lr->start += skip;
	lr->lineno++;
	if (memchr(*line, '\0', len)) {
		errno = EINVAL;
		return -1;
	}
	return 1;
}

int
owlet_lines_next(struct owlet_lines *lr, char **line, size_t *len)
{
	const size_t cap = sizeof(lr->buf) - 1;

	for (;;) {
		size_t avail = lr->end - lr->start;
		char *nl = memchr(lr->buf + lr->start, '\n', avail);

		if (nl) {
			size_t n = (size_t)(nl - (lr->buf + lr->start));
			return take(lr, n, n + 1, line, len);
		}
		if (lr->eof)
			return avail ? take(lr, avail, avail, line, len) : 0;
		if (lr->start > 0) {
			memmove(lr->buf, lr->buf + lr->start, avail);
			lr->end = avail;
			lr->start = 0;
		}
		if (lr->end == cap) {
			lr->lineno++;
			errno = E2BIG;
			return -1;
		}
		ssize_t n = owlet_read_full(lr->fd, lr->buf + lr->end,
		    cap - lr->end);
		if (n < 0)
			return -1;
		if ((size_t)n < cap - lr->end)
			lr->eof = 1;
		lr->end += (size_t)n;
	}
}
