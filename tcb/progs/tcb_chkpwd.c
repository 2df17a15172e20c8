/*
 * tcb_chkpwd: tell a process whether a password is its own user's.
 *
 * Installed set-gid shadow (in a directory only group chkpwd may enter),
 * run by pam_tcb when the calling process cannot read its own tcb entry,
 * e.g. a screen locker running as the user.  Threat model: the caller is
 * any local user and controls our fds, environment, argv, rlimits and
 * signals.  So: fd 0 must be open for reading and fd 1 for writing, and
 * neither may be a terminal (the protocol is not for people typing
 * guesses); every other fd is closed,
 * the environment is emptied, input is bounded and parsed strictly
 * (chkpwd_request.c), only the account whose uid is our real uid can be
 * checked, and the group privilege is dropped (and the drop verified) as
 * soon as the hash has been read.
 *
 * Guessing is limited to one password per TCB_GATE_DELAY_SEC per user,
 * however many helpers run at once and whether or not they are killed
 * early: the guess gate (tcb/pam/gate.c), the same one pam_tcb passes
 * through for set-ID callers that are not root.  A wrong password is
 * answered only after the delay.
 */
#include <pwd.h>
#include <shadow.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "owlet.h"
#include "tcb.h"
#include "chkpwd_request.h"
#include "gate.h"
#include "owner.h"

static void
sanitize(void)
{
	/* 0 and 1 carry the protocol; no caller-chosen locale, library path
	 * or TZ reaches us (common/setid.c). */
	if (owlet_start(OWLET_START_PROTO, 077) < 0)
		_exit(1);
	openlog("tcb_chkpwd", LOG_PID | LOG_NDELAY, LOG_AUTHPRIV);
}

/* Give up the set-gid group for good and prove it. */
static void
drop_group(void)
{
	if (owlet_drop_group() < 0) {
		syslog(LOG_CRIT, "cannot drop group privileges");
		_exit(1);
	}
}

static int
check(const struct chkpwd_request *r, uid_t uid)
{
	struct tcb_gate gate;
	struct passwd *pw;
	struct spwd *sp;
	char *hash = NULL;
	int ok = 0;

	/* The account must be the caller's own, by the name that its uid
	 * maps to: not another account sharing the uid (an alias with a
	 * password of its own), as chage(1) refuses them too. */
	pw = getpwuid(uid);
	if (!pw || strcmp(pw->pw_name, r->name) != 0) {
		syslog(LOG_NOTICE, "uid %u may not check user %s",
		    (unsigned)uid, r->name);
		drop_group();
		return 0;
	}
	if (tcb_gate_enter(&gate, r->name, uid) < 0) {
		syslog(LOG_ERR, "cannot rate-limit guesses for %s: %m",
		    r->name);
		drop_group();
		goto fail;
	}
	/* Only a hash pam_tcb cannot read itself comes here: one from the
	 * shadow database, in a tcb directory the account owns.  A hash in
	 * passwd(5) is pam_tcb's business (its passwd option). */
	if (!tcb_pw_shadowed(pw->pw_passwd)) {
		syslog(LOG_NOTICE, "%s has no shadowed password", r->name);
	} else if (tcb_entry_owned(r->name, uid) < 0) {
		syslog(LOG_ALERT, "tcb entry of %s is not owned by uid %u: "
		    "ignored", r->name, (unsigned)uid);
	} else if ((sp = getspnam(r->name))) {
		hash = strdup(sp->sp_pwdp);
		explicit_bzero(sp->sp_pwdp, strlen(sp->sp_pwdp));
	} else {
		syslog(LOG_ALERT, "no shadow entry for %s", r->name);
	}
	endspent();
	drop_group();
	/* An empty hash never matches here, whatever the request says: the
	 * caller is the user, so its nullok would be the user's own choice. */
	if (hash && *hash)
		ok = owlet_pass_matches(r->pass, hash) == 1;
	if (hash) {
		explicit_bzero(hash, strlen(hash));
		free(hash);
	}
	if (ok) {
		if (tcb_gate_leave(&gate, 1) < 0)
			syslog(LOG_ERR, "cannot reset the delay stamp: %m");
		return 1;
	}
fail:
	/* Answer late; an armed stamp stays armed for the next guess. */
	tcb_gate_leave(&gate, 0);
	syslog(LOG_NOTICE, "authentication failure for %s (uid=%u)",
	    r->name, (unsigned)uid);
	tcb_gate_delay();
	return 0;
}

int
main(void)
{
	static char buf[CHKPWD_REQUEST_MAX + 1];
	struct chkpwd_request r;
	enum chkpwd_req_status st;
	uid_t uid = getuid();
	ssize_t n;
	int ok = 0, reply;

	sanitize();
	if (isatty(0) || isatty(1)) {
		syslog(LOG_NOTICE, "inappropriate use by uid %u",
		    (unsigned)uid);
		drop_group();
		tcb_gate_delay();
		return 1;
	}
	/* One byte more than the longest request, to see an overlong one. */
	n = owlet_read_full(0, buf, sizeof(buf));
	st = n < 0 ? CHKPWD_REQ_SHORT :
	    chkpwd_request_parse(buf, (size_t)n, &r);
	if (st != CHKPWD_REQ_OK) {
		syslog(LOG_NOTICE, "malformed request from uid %u: %s",
		    (unsigned)uid, chkpwd_request_error(st));
		drop_group();
		tcb_gate_delay();
	} else {
		ok = check(&r, uid);
	}
	explicit_bzero(buf, sizeof(buf));
	reply = ok ? TCB_MAGIC : 1;
	if (owlet_write_full(1, &reply, sizeof(reply)) < 0)
		return 1;
	return ok ? 0 : 1;
}
