/*
 * The tcb(5) layout, written once for every tool that makes tcb entries
 * (tcb_convert, owlet-setup):
 *
 *   /etc/tcb             root:shadow 0710   (search only: no listing)
 *   /etc/tcb/USER        USER:auth   2710   TCB_AUTH_GROUP yes
 *                        USER:shadow 2700   otherwise
 *   /etc/tcb/USER/shadow USER:auth   0640 / USER:shadow 0600
 *
 * With the auth group, its members (tcb_chkpwd, set-gid auth) read every
 * hash through the group bits; without it only the user (and root) can.
 * Two tools that disagreed here would leave entries that pam_tcb's and
 * nss_tcb's checks or the other tool's refuse, or that grant a group more
 * than the administrator chose.
 */
#include "owlet.h"

int
owlet_tcb_layout(int etcfd, struct owlet_tcb_layout *l, unsigned long *lineno)
{
	int auth = owlet_logindefs_bool(etcfd, "TCB_AUTH_GROUP", lineno);

	if (auth < 0)
		return -1;
	l->auth = auth;
	l->group = auth ? "auth" : "shadow";
	l->dirmode = auth ? 02710 : 02700;
	l->filemode = auth ? 0640 : 0600;
	return 0;
}
