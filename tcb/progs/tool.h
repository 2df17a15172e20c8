/*
 * Shared by the tcb administration tools (tcb_convert, tcb_unconvert).
 * Tools report one line per problem, prefixed by the program name and
 * naming the file, line or user, and exit 1; they never leave a half-
 * written file behind (see each tool's cleanup).
 */
#ifndef TCB_TOOL_H
#define TCB_TOOL_H

#include <sys/types.h>

struct tool {
	const char *root;	/* --root DIR, "" for / */
	int rootfd;
	int etcfd;
	int lockfd;		/* ETC/.pwd.lock, held for the whole run */
};

/* Refuse unless real and effective uid are 0; set umask 077; block the
 * signals that would kill us midway (checked with tool_interrupted). */
void tool_start(void);
int tool_interrupted(void);
/* Open ROOT and ROOT/etc, take the password-file lock ETC/.pwd.lock, or,
 * if LOCKFD >= 0, take it over from the caller through that inherited
 * descriptor (control holds it across the conversion and the switch that
 * follows: see control/shadow.c); 0 or -1 (printed). */
int tool_open(struct tool *t, const char *root, int lockfd);
/* The argument of --lock-fd, or exit 2. */
int tool_lock_fd(const char *arg);
void tool_close(struct tool *t);
/* A path for messages: "/etc/shadow", or "DIR/etc/shadow" with --root. */
const char *tool_path(const struct tool *t, const char *etcrel);

/* tcbgroups.c: gids of "shadow" and "auth", adding missing groups to
 * group(5)/gshadow(5) on tool_groups_commit(); undone by _rollback(). */
struct tool_groups {
	gid_t shadow, auth;
	int add_shadow, add_auth;
	int committed;
};
int tool_groups_plan(struct tool *t, struct tool_groups *g);
int tool_groups_commit(struct tool *t, struct tool_groups *g);
void tool_groups_rollback(struct tool *t, struct tool_groups *g);
void tool_groups_done(struct tool *t, struct tool_groups *g);

#endif
