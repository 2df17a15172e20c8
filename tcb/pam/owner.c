/*
 * Whose entry is it?  A tcb directory outlives its account when a user is
 * deleted without userdel (or /etc/passwd is edited by hand), and a new
 * account of the same name would then be served the old account's hash by
 * the shadow database.  libnss_tcb cannot tell: it keys entries by name
 * and keeps getspnam() one open and one read, without asking the passwd
 * database.  So the consumers that hold the passwd entry (pam_tcb,
 * tcb_chkpwd) accept a hash from /etc/tcb only when the account owns its
 * directory, and owlet-setup check reports every mismatch.  Only root
 * creates directories in /etc/tcb, so the owner cannot change under us.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "owlet.h"
#include "tcb.h"
#include "owner.h"

int
tcb_entry_owned(const char *name, uid_t uid)
{
	char path[sizeof(TCB_DIR) + OWLET_NAME_MAX + 2];
	struct stat st;

	if (!owlet_name_ok(name)) {
		errno = EINVAL;
		return -1;
	}
	snprintf(path, sizeof(path), TCB_DIR "/%s", name);
	if (lstat(path, &st) < 0)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
	if (st.st_uid != uid) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

int
tcb_pw_shadowed(const char *pw_passwd)
{
	return strcmp(pw_passwd, "x") == 0 || strcmp(pw_passwd, "*NP*") == 0;
}
