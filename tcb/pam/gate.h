/*
 * The guess gate (gate.c): one password guess per TCB_GATE_DELAY_SEC per
 * user, for every caller that is not root.  Shared by pam_tcb and
 * tcb_chkpwd, so that both paths to a hash obey one limit.
 */
#ifndef TCB_GATE_H
#define TCB_GATE_H

#include <sys/types.h>

#define TCB_GATE_DELAY_SEC	2

struct tcb_gate {
	int stamp;	/* the user's shadow.lock, opened for its mtime */
	int locked;	/* we hold the user's tcb lock */
};

/* Take NAME's tcb lock (with NAME's fs IDs), wait for the stamp and arm
 * it.  0, or -1 with errno and nothing held.  OWNER: NAME's uid, which
 * must own the stamp. */
int tcb_gate_enter(struct tcb_gate *g, const char *name, uid_t owner);
/* RIGHT: the guess was right, so the next one need not wait.  Releases
 * the lock.  -1 if the stamp could not be reset. */
int tcb_gate_leave(struct tcb_gate *g, int right);
/* Sleep one delay on the monotonic clock, whatever interrupts us. */
void tcb_gate_delay(void);

/* owner.c: 0 if NAME has no tcb directory or UID owns it; -1 (EPERM for
 * another owner, or the lstat error) if a hash from there must not be
 * trusted for the account with UID. */
int tcb_entry_owned(const char *name, uid_t uid);

#endif
