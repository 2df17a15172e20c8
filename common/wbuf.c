#include <string.h>
#include <errno.h>

#include "owlet.h"

void
owlet_wbuf_init(struct owlet_wbuf *w, int fd)
{
	w->fd = fd;
	w->error = 0;
	w->used = 0;
}

int
owlet_wbuf_flush(struct owlet_wbuf *w)
{
	if (!w->error && w->used > 0 &&
	    owlet_write_full(w->fd, w->buf, w->used) < 0)
		w->error = errno;
	w->used = 0;
	if (w->error) {
		errno = w->error;
		return -1;
	}
	return 0;
}

void
owlet_wbuf_put(struct owlet_wbuf *w, const void *p, size_t len)
{
	while (len > 0 && !w->error) {
		size_t room = sizeof(w->buf) - w->used;
		size_t n = len < room ? len : room;

		memcpy(w->buf + w->used, p, n);
		w->used += n;
		p = (const char *)p + n;
		len -= n;
		if (w->used == sizeof(w->buf))
			owlet_wbuf_flush(w);
	}
}
