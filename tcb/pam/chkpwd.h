/*
 * The pam_tcb <-> tcb_chkpwd wire protocol (Openwall-compatible).
 * Request on the helper's stdin: an 8-byte flag word ("nullok\0\0" or
 * "nonull\0\0"), the user name and the password, each NUL-terminated.
 * Reply on its stdout: one native-endian int, TCB_MAGIC when the password
 * is right; the helper's exit status is 0 exactly then.
 */
#ifndef TCB_CHKPWD_H
#define TCB_CHKPWD_H

#define TCB_MAGIC		0x0a00ff7f
#define CHKPWD_FLAG_LEN		8
#define CHKPWD_PASS_MAX		512	/* PAM_MAX_RESP_SIZE */
/* flag word + name + NUL + password + NUL */
#define CHKPWD_REQUEST_MAX	(CHKPWD_FLAG_LEN + 32 + 1 + CHKPWD_PASS_MAX + 1)

#endif
