#include <errno.h>

#include "owlet.h"

int
owlet_group_gid(int etcfd, const char *group, gid_t *gid)
{
	struct owlet_dbent e;
	struct owlet_db *db;
	int rc, err;

	db = owlet_db_open(etcfd, "group");
	if (!db)
		return -1;
	rc = owlet_db_find(db, group, 0, &e);
	err = errno;
	if (rc == 1)
		*gid = e.id;
	owlet_db_close(db);
	errno = err;
	return rc;
}
