/*
 * Which hashes belong to an account (owner.c), shared by pam_tcb and
 * tcb_chkpwd.
 */
#ifndef TCB_OWNER_H
#define TCB_OWNER_H

#include <sys/types.h>

/* 0 if NAME has no tcb directory or UID owns it; -1 (EPERM for
 * another owner, or the lstat error) if a hash from there must not be
 * trusted for the account with UID. */
int tcb_entry_owned(const char *name, uid_t uid);
/* Does a passwd(5) password field send us to the shadow
 * database ("x", or Solaris' "*NP*")? */
int tcb_pw_shadowed(const char *pw_passwd);

#endif
