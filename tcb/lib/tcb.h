/*
 * libtcb: the tcb password shadowing scheme's library interface.
 * Source- and binary-compatible with Openwall's libtcb (soname libtcb.so.0,
 * symbol version TCB_0.9.8, same struct layout and macros).
 */
#ifndef _TCB_H
#define _TCB_H

#include <sys/types.h>
#include <grp.h>

#define TCB_DIR		"/etc/tcb"
#define TCB_FMT		TCB_DIR "/%s/shadow"
#define TCB_NGROUPS	1024

#ifdef __cplusplus
extern "C" {
#endif

struct tcb_privs {
	gid_t *grplist;		/* caller-supplied buffer for the saved groups */
	int number_of_groups;	/* in: capacity of grplist; out: groups saved */
	gid_t old_gid;		/* fsgid before the drop */
	uid_t old_uid;		/* fsuid before the drop */
	unsigned int is_dropped;	/* opaque state; zero before first use */
};

extern int lckpwdf_tcb(const char *file);
extern int ulckpwdf_tcb(void);
extern int tcb_drop_priv(const char *name);
extern int tcb_gain_priv(void);
extern int tcb_drop_priv_r(const char *name, struct tcb_privs *p);
extern int tcb_gain_priv_r(struct tcb_privs *p);
extern int tcb_is_suspect(int fd);

#ifdef __cplusplus
}
#endif

#endif
