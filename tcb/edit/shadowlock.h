/*
 * The locked wrappers around owlet_edit_file (common/shadowedit.c) for
 * pam_tcb and chage: shadowlock.c, built into $(B)/libtcbedit.a.  They
 * need libtcb (tcb_drop_priv_r, lckpwdf_tcb), which is why they live here
 * and not in common/: common/ never depends on libtcb.
 */
#ifndef OWLET_SHADOWLOCK_H
#define OWLET_SHADOWLOCK_H

#include <sys/types.h>

#include "owlet.h"

/* Which step failed (for callers that map failures to their own codes). */
enum owlet_edit_step {
	OWLET_EDIT_DONE,	/* nothing failed */
	OWLET_EDIT_NOMEM,	/* no memory for the saved group list */
	OWLET_EDIT_NOTROOT,	/* /etc files need euid 0 */
	OWLET_EDIT_DROP,	/* tcb_drop_priv_r (or a bad name) */
	OWLET_EDIT_OPEN,	/* the directory (/etc/tcb/NAME or /etc) */
	OWLET_EDIT_LOCK,	/* lckpwdf_tcb or owlet_pwlock */
	OWLET_EDIT_WRITE	/* owlet_edit_file */
};
struct owlet_edit_status {
	enum owlet_edit_step failed;
	int err;		/* errno of the failed step */
	int regain_err;		/* tcb_gain_priv_r failed: its errno, else 0 */
};
/* NAME's tcb file: drop to the user's fs IDs, lock /etc/tcb/NAME/shadow,
 * edit (OWNER as for owlet_edit_file), unlock, regain.
 * 0, or -1 with *ST saying what failed. */
int owlet_edit_tcb(const char *name, uid_t owner, const struct owlet_edit *ed,
    struct owlet_edit_status *st);
/* /etc/FILE under the global /etc/.pwd.lock (owlet_pwlock: polled, never
 * glibc's lckpwdf(3), which arms SIGALRM and ITIMER_REAL in the caller's
 * process, here a PAM application's); euid 0 only.  0, or -1 with *ST
 * set. */
int owlet_edit_etc(const char *file, const char *name,
    const struct owlet_edit *ed, struct owlet_edit_status *st);

#endif
