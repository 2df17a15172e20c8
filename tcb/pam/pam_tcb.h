/*
 * pam_tcb internals.  The module is built from small files, one job each:
 * options.c (argv parsing, shared by all four management groups),
 * user.c (passwd/shadow lookup, hash verification), hash.c (new hashes),
 * update.c (writing a new hash to tcb, shadow or passwd), helper.c
 * (tcb_chkpwd for callers that cannot read their own entry), and one file
 * per PAM management group.
 */
#ifndef PAM_TCB_H
#define PAM_TCB_H

#include <pwd.h>
#include <shadow.h>
#include <security/pam_modules.h>

#define PAM_TCB_HELPER	"/usr/libexec/chkpwd/tcb_chkpwd"
#define PAM_TCB_FAIL_DELAY	2000000	/* microseconds, as upstream */

enum tcb_write_to { WRITE_SHADOW, WRITE_TCB, WRITE_PASSWD };

struct tcb_opts {
	unsigned char debug, audit, nullok, use_first_pass, try_first_pass,
	    use_authtok, shadow, passwd, plain_crypt, fork, likeauth, nodelay,
	    blank_nolog;
	unsigned char inert;	/* nolog, openlog, noopenlog: accepted */
	enum tcb_write_to write_to;
	const char *prefix;	/* hash prefix; NULL: login.defs/default */
	unsigned long count;	/* cost; 0: method default */
	int count_set;
	const char *helper;	/* NULL: no helper */
};

/* options.c: 0, or -1 with a message for the log in ERR. */
int tcb_opts_parse(struct tcb_opts *o, int argc, const char **argv,
    char *err, size_t errlen);
/* Parse or log and return PAM_ABORT. */
int tcb_opts_get(pam_handle_t *pamh, int argc, const char **argv,
    struct tcb_opts *o);

/* user.c */
struct tcb_user {
	struct passwd pw;
	struct spwd sp;
	int have_pw, have_sp;
	int sp_errno;		/* why there is no shadow entry */
	const char *hash;	/* the stored hash, or NULL */
	int hash_secret;	/* HASH came from the shadow database */
	char pwbuf[4096], spbuf[8192 + 64];
};
int tcb_user_get(pam_handle_t *pamh, const struct tcb_opts *o, int want_sp,
    const char **name, struct tcb_user *u);
void tcb_user_wipe(struct tcb_user *u);
/* A message to the user through the conversation, unless PAM_SILENT. */
void tcb_say(pam_handle_t *pamh, int flags, int style, const char *msg);
/* PAM_SUCCESS if PASS matches HASH; constant-time compare. */
int tcb_verify(const char *pass, const char *hash);
/* Burn the time of a real verification (unknown user, locked hash). */
void tcb_verify_dummy(const struct tcb_opts *o, const char *pass);
long tcb_today(void);

/* aging.c */
enum tcb_aging {
	AGING_OK, AGING_ACCOUNT_EXPIRED, AGING_INACTIVE, AGING_CHANGE_ENFORCED,
	AGING_PASSWORD_EXPIRED, AGING_WARN
};
enum tcb_aging tcb_aging(const struct spwd *sp, long today, long *days);
/* Is a change refused because sp_min days have not passed? */
int tcb_too_early(const struct spwd *sp, long today);

/* call.c: run FN(ARG) in a child process when the fork option is set, so
 * that hashes read from the shadow database never sit in the caller's
 * memory; the int result comes back over a pipe. */
int tcb_call(const struct tcb_opts *o, int (*fn)(void *), void *arg);

/* hash.c: the method (prefix, cost) for new hashes; -1 if login.defs could
 * not be read. */
int tcb_method(const struct tcb_opts *o, const char **prefix,
    unsigned long *count);
/* hash.c: a new hash for PASS; NULL on failure. Free with tcb_free_str. */
char *tcb_hash_new(pam_handle_t *pamh, const struct tcb_opts *o,
    const char *pass);
void tcb_free_str(char *s);

/* update.c */
int tcb_update(pam_handle_t *pamh, const struct tcb_opts *o,
    const char *name, const struct tcb_user *u, const char *hash);

/* auth.c: get the token ITEM (prompt PROMPT, NULL for libpam's default)
 * and check it against the user's hash; WHAT is appended to the log line. */
int tcb_authenticate(pam_handle_t *pamh, const struct tcb_opts *o, int item,
    const char *prompt, const char *what);

/* helper.c */
int tcb_helper_verify(pam_handle_t *pamh, const struct tcb_opts *o,
    const char *name, const char *pass);

#define PAM_EXPORT	__attribute__((visibility("default")))

#endif
