/*
 * tcb_is_suspect: shadow-utils calls this on every database file it opened
 * and refuses the file if it returns non-zero.  A tcb file lives in a
 * directory its user controls, so the user may have planted something else
 * under the expected name.  Accept only a regular file with one link
 * (no hard link to another file).  A caller whose fsuid is not root (it
 * dropped to the user, or is the user) must also own the file or get it
 * from root: anything else was planted.  A caller with fsuid 0 cannot know
 * the intended owner from an fd; Openwall's own tools call this after
 * regaining root on user-owned files, so the owner is left to them (our
 * tcb_unconvert compares it with the passwd entry).
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
	    (fsuid != 0 && st.st_uid != 0 && st.st_uid != fsuid)) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}
