/*
 * The control engine.  Threat model: control runs as root and changes the
 * privilege of programs.  The facility files are root's intent; the tree
 * it acts on may contain paths that a less trusted party influenced (a
 * package, a compromised service account owning a directory, an image
 * being prepared).  So every object is reached from the root directory fd
 * one component at a time with O_NOFOLLOW, every directory on the way must
 * be root-owned and not writable by group or others, and every change is
 * made on the opened fd (fchown/fchmod/fsetxattr), never by name.
 *
 * Invariant (DESIGN.md 3): `control F S` reaches S and reads it back, or
 * puts back what it changed and exits non-zero; in between, no program is
 * more privileged than in both the old and the new state (file.c orders
 * each transition so).
 */
#ifndef CONTROL_CTL_H
#define CONTROL_CTL_H

#include <limits.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "facility.h"

#define CTL_TEXT_MAX	((off_t)1 << 20)	/* config files we edit */
/* After every packaged file of /usr/lib/sysctl.d (Debian's systemd sets
 * fs.protected_fifos in 99-protect-links.conf), before the
 * administrator's own /etc/sysctl.conf (99-sysctl.conf). */
#define CTL_SYSCTL_FILE	"etc/sysctl.d/99-sysctl-control.conf"
#define CTL_CMDLINE_FILE	"etc/kernel/cmdline"
#define CTL_STATE_DIR	"var/lib/owlet/control"	/* saved PAM files */
#ifndef OWLET_DATADIR
#define OWLET_DATADIR	"/usr/share/owlet"	/* make passes $(OWLET_DATADIR) */
#endif
/* shipped stacks, root-relative (OWLET_DATADIR without its leading /) */
#define CTL_PAM_DIR	(&(OWLET_DATADIR "/pam")[1])

struct undo;

struct ctl {
	const char *root;	/* --root DIR for messages, "" for / */
	int rootfd;
	int live;		/* acting on the running system (root /):
				 * sysctls also go to /proc/sys */
	int chroot;		/* live, but in a chroot: the kernel is not
				 * this root's (sysctl_live) */
	int netns;		/* ... in a network namespace of its own */
	int container;		/* live in a container: the kernel's global
				 * settings are the host's (sysctl_live) */
	int hostview;		/* reading states for display in a
				 * container: global sysctls by the running
				 * value alone (sysctl_holds) */
	char bindir[PATH_MAX];	/* where tcb_convert and tcb_unconvert are */
	int detecting;		/* reading states: a missing user or group
				 * means "does not hold", not an error */
	struct undo *undo;	/* what the current switch changed, newest
				 * first */
	struct facility *fac;	/* all loaded facilities */
	int nfac;
};

/* A path for messages: PATH under --root. */
const char *ctl_path(const struct ctl *c, const char *path);

/* snprintf that fails (-1, ENAMETOOLONG) instead of truncating. */
int ctl_fmt(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* root.c: reaching objects safely. */
/* Open the directory holding PATH (absolute, as in facility files);
 * *BASE points to the last component.  Every directory from the root
 * down must be a real directory (no symlink), root-owned, not group- or
 * world-writable.  -1 with errno (ELOOP: symlink, EPERM: unsafe dir). */
int ctl_open_parent(struct ctl *c, const char *path, const char **base);
/* Ensure ROOT/REL (a relative path of directories) exists, creating the
 * missing ones root:root MODE; returns an fd of the last one or -1. */
int ctl_mkdirs(struct ctl *c, const char *rel, mode_t mode);
/* Users and groups of the root's own passwd/group files (never NSS). */
int ctl_uid(struct ctl *c, const char *name, uid_t *uid);
int ctl_gid(struct ctl *c, const char *name, gid_t *gid);
/* NAME for an id, or the decimal id; into BUF. */
const char *ctl_user_name(struct ctl *c, uid_t uid, char *buf, size_t len);
const char *ctl_group_name(struct ctl *c, gid_t gid, char *buf, size_t len);
/* Expand ${gid:NAME} and ${uid:NAME} in TEXT into OUT: 0; -2 when the
 * named group or user does not exist (printed unless detecting: then the
 * value simply does not hold); -1 too long (printed). */
int ctl_expand(struct ctl *c, const char *text, char *out, size_t len);
/* Run BINDIR/PROG [--root /proc/self/fd/ROOTFD] [--lock-fd LOCKFD] with
 * an empty environment, the root passed as our open directory and LOCKFD
 * (if >= 0) as our locked ETC/.pwd.lock; its exit status, or -1. */
int ctl_run_tool(struct ctl *c, const char *prog, int lockfd);

/* Each object kind: does the action hold (1/0, -1 error printed), and
 * apply it (0, -1 printed), recording undo entries first. */
int file_holds(struct ctl *c, const struct act *a);
int file_apply(struct ctl *c, const struct act *a);
int text_line_holds(struct ctl *c, const struct act *a);
int text_line_apply(struct ctl *c, const struct act *a);
int sysctl_holds(struct ctl *c, const struct act *a);
int sysctl_apply(struct ctl *c, const struct act *a);
int pam_holds(struct ctl *c, const struct facility *f, const struct act *a);
int pam_apply(struct ctl *c, const struct facility *f, const struct act *a);
int cmdline_holds(struct ctl *c, const struct act *a);
int cmdline_apply(struct ctl *c, const struct act *a);
/* The running kernel was started with other tokens of A's parameter
 * than the file holds (1), or not (0): the file takes effect at the
 * next boot.  0 when there is no running kernel of this root to ask. */
int cmdline_pending(struct ctl *c, const struct act *a);
/* A sysctl key is set in the root's files only (no /proc/sys): a root
 * other than /, a chroot, or a global key in a container. */
int sysctl_file_only(const struct ctl *c, const char *key);
/* 1 if the running kernel has KEY (or it cannot be asked), else 0. */
int sysctl_available(const struct ctl *c, const char *key);
int shadow_holds(struct ctl *c, const struct act *a);
int shadow_apply(struct ctl *c, const struct act *a);
int group_holds(struct ctl *c, const struct act *a);
int group_apply(struct ctl *c, const struct act *a);

/* undo.c: the undo log of one switch.  Before changing an object, the
 * module that changes it pushes a record of the old state together with
 * its own function that puts it back; undo.c stores the records and, on
 * rollback, calls those functions newest first.  It calls no module
 * itself, so the dependencies run one way: modules -> undo. */
struct undo_rec {
	char path[FAC_PATH_MAX + 1];	/* object, or sysctl key */
	struct stat st;			/* the old attributes, if given */
	char *data;			/* copy of DATA plus a NUL, or NULL */
	size_t len;
	int flag;			/* the module's own */
};
/* Put back what R describes: 0, or -1 with errno. */
typedef int undo_revert_fn(struct ctl *c, const struct undo_rec *r);
/* Record R (PATH, DATA/LEN copied, ST and FLAG) with its REVERT.  WHAT
 * names the object in the rollback failure message; NULL: PATH under the
 * root.  0, or -1 (printed). */
int undo_push(struct ctl *c, undo_revert_fn *revert, const char *what,
    const char *path, const void *data, size_t len, const struct stat *st,
    int flag);
/* A file's whole content, put back by undo itself (text.c and
 * statoverride.c): data NULL: did not exist (removed on rollback). */
int undo_content(struct ctl *c, const char *path, const char *data,
    size_t len, const struct stat *st);
/* Put back everything recorded, newest first; 0 if all went back. */
int undo_rollback(struct ctl *c);
void undo_forget(struct ctl *c);

/* text.c, shared by lines, sysctls and PAM stacks. */
/* ROOT/PATH into *DATA: 0, 1 missing, -1 error (printed). */
int text_read(struct ctl *c, const char *path, char **data, size_t *len,
    struct stat *st);
/* Replace ROOT/PATH by DATA (owner and mode of OLDST, or root NEWMODE
 * for a new file), recording OLD (OLDST NULL: did not exist) for undo. */
int text_write(struct ctl *c, const char *path, const char *old,
    size_t oldlen, const struct stat *oldst, mode_t newmode,
    const char *data, size_t len);
/* The lines of PATH containing WORD hold one of A's values (1/0/-1). */
int text_lines_hold(struct ctl *c, const struct act *a, const char *path,
    const char *word);
/* Set the lines of PATH containing WORD to WANT (NULL: none active). */
int text_set_lines(struct ctl *c, const char *path, const char *word,
    const char *want);

/* engine.c */
/* The current state of F: a state name, or NULL for unknown.  *ERR set
 * when an error (printed) prevented detection. */
const char *engine_status(struct ctl *c, const struct facility *f, int *err);
/* Switch F to STATE (canonical name); 0 or -1 (printed, rolled back). */
int engine_set(struct ctl *c, const struct facility *f, const char *state);
int engine_available(struct ctl *c, const struct facility *f);
/* What the state of F shown to the administrator needs said with it. */
enum engine_note {
	NOTE_NONE,
	NOTE_UNAVAILABLE,	/* the running kernel has none of its sysctls */
	NOTE_HOST,		/* a container: its kernel settings are the
				 * host's, shown as the host set them */
	NOTE_NEXT_BOOT		/* boot parameters not yet those running */
};
/* The state of F to show (as engine_status; in a container, the host's
 * settings for NOTE_HOST) and its note.  A facility noted unavailable or
 * host is not checked for drift nor reapplied. */
const char *engine_show(struct ctl *c, const struct facility *f, int *err,
    enum engine_note *note);
/* The note of F alone, without the state; and the words for a note. */
enum engine_note engine_note(struct ctl *c, const struct facility *f,
    const char *state);
const char *engine_note_word(enum engine_note note);
const char *engine_note_text(enum engine_note note);

/* load.c */
int load_facilities(struct ctl *c);
struct facility *find_facility(struct ctl *c, const char *name);

/* states.c: the chosen state of each facility, ROOT/etc/control.d/states. */
int states_get(struct ctl *c, const char *fac, char *state, size_t len);
int states_set(struct ctl *c, const char *fac, const char *state);

/* statoverride.c: register file/dir modes with dpkg-statoverride's
 * database so package upgrades keep them. */
int statoverride_register(struct ctl *c, const struct state *s);

/* audit.c */
int audit_run(struct ctl *c, int json);

#endif
