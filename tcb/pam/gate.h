/*
 * The guess gate (gate.c): one password guess per TCB_GATE_DELAY_SEC per
 * user, for every set-ID caller that is not root.  Shared by pam_tcb and
 * tcb_chkpwd, so that both paths to a hash obey one limit.
 */
#ifndef TCB_GATE_H
#define TCB_GATE_H

#include <sys/types.h>

#define TCB_GATE_DELAY_SEC	2

struct tcb_gate {
	int fd;		/* /etc/tcb/NAME/shadow.gate, whose mtime is the stamp */
};

/* Wait for NAME's stamp (at most about 15 s, then EAGAIN) and arm it.  0,
 * or -1 with errno.  OWNER: NAME's uid, which must own the gate file.
 * Holds no lock on return. */
int tcb_gate_enter(struct tcb_gate *g, const char *name, uid_t owner);
/* RIGHT: the guess was right, so the next one need not wait.  Closes the
 * gate file.  -1 if the stamp could not be reset. */
int tcb_gate_leave(struct tcb_gate *g, int right);
/* Sleep one delay on the monotonic clock, whatever interrupts us. */
void tcb_gate_delay(void);

#endif
