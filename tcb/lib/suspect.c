/*
 * tcb_is_suspect: shadow-utils calls this on every database file it opened
 * and refuses the file if it returns non-zero.  A tcb file lives in a
 * directory its user controls, so the user may have planted something else
 * under the expected name.  Accept only a regular file with one link
 * (no hard link to another file) owned by root or by the current fsuid (the
 * user we dropped to, or root for /etc/passwd and friends).
 */
#include <errno.h>
#include <sys/fsuid.h>
#include <sys/stat.h>

#include "tcb.h"
#include "export.h"

TCB_EXPORT int
tcb_is_suspect(int fd)
{
	struct stat st;
	uid_t fsuid;

	if (fstat(fd, &st) < 0)
		return -1;
	fsuid = (uid_t)setfsuid((uid_t)-1);
	if (!S_ISREG(st.st_mode) || st.st_nlink != 1 ||
	    (st.st_uid != 0 && st.st_uid != fsuid)) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}
