/*
 * owlet internal helpers, linked statically into every component.
 * Nothing here is exported from a shared object (see the version scripts).
 *
 * Error convention: functions return 0 (or a count) on success and -1 with
 * errno set on failure, so that libraries can map errno to their own codes
 * and tools can print one line naming the object.
 */
#ifndef OWLET_H
#define OWLET_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>
#include <shadow.h>
#include <sys/stat.h>
#include <dirent.h>

#define OWLET_NAME_MAX		32	/* longest user name we accept */
#define OWLET_LINE_MAX		8192	/* longest passwd/shadow/group line */
#define OWLET_TCB_FILE_MAX	OWLET_LINE_MAX	/* size bound of a tcb shadow file */

/* setid.c: sanitise a privileged program's start: fds 0-2 open (closed
 * ones get /dev/null), umask MASK; unless OWLET_START_ROOT_TOOL (a tool
 * root runs, not set-ID: keeps its environment, fds >= 3 and signals),
 * every fd >= 3 closed, the environment emptied, SIGPIPE and SIGXFSZ
 * ignored.  OWLET_START_PROTO: fd 0 must be open for reading and fd 1 for
 * writing.  0, or -1: exit at once. */
#define OWLET_START_PROTO	1
#define OWLET_START_ROOT_TOOL	2
int owlet_start(unsigned flags, mode_t mask);
/* Give up a set-gid group for good (real, effective, saved) and verify it
 * with getresgid.  0, or -1: exit at once. */
int owlet_drop_group(void);

/* names.c: is NAME usable as a user name and as one path component? */
int owlet_name_ok(const char *name);
int owlet_name_ok_n(const char *name, size_t len);

/* shadowline.c: parse one shadow(5) line (no trailing newline) in place. */
int owlet_shadow_parse(char *line, struct spwd *sp);
/* Validate a shadow line without modifying it; returns 0 or -1/EINVAL. */
int owlet_shadow_check(const char *line, size_t len);

/* passcheck.c: 1 if PASS matches the crypt(5) HASH, 0 if not (locked and
 * empty hashes never match), -1 on allocation failure.  Needs -lcrypt. */
int owlet_pass_matches(const char *pass, const char *hash);

/* fdio.c: EINTR-safe whole-buffer I/O. */
ssize_t owlet_read_full(int fd, void *buf, size_t len);
int owlet_write_full(int fd, const void *buf, size_t len);

/* linereader.c: bounded line reader over an fd. */
struct owlet_lines {
	int fd;
	unsigned long lineno;
	size_t start, end;
	int eof;
	char buf[OWLET_LINE_MAX + 1];
};
void owlet_lines_init(struct owlet_lines *lr, int fd);
/* 1: *line (NUL-terminated, no '\n'), 0: EOF, -1: error (E2BIG: line too long,
 * EINVAL: NUL byte in the line). */
int owlet_lines_next(struct owlet_lines *lr, char **line, size_t *len);

/* wbuf.c: buffered writer to an fd. */
struct owlet_wbuf {
	int fd;
	int error;
	size_t used;
	char buf[65536];
};
void owlet_wbuf_init(struct owlet_wbuf *w, int fd);
void owlet_wbuf_put(struct owlet_wbuf *w, const void *p, size_t len);
int owlet_wbuf_flush(struct owlet_wbuf *w);

/* atomic.c: replace DIRFD/NAME atomically: temp file in the same directory,
 * owner and mode set on the fd, fsync, rename, fsync of the directory. */
struct owlet_replace {
	int dirfd;
	int fd;
	char tmp[64];
	const char *name;
};
int owlet_replace_begin(struct owlet_replace *r, int dirfd, const char *name,
    mode_t mode, uid_t uid, gid_t gid);
/* 0: replaced; -1: not replaced (old file intact, temp removed); 1: replaced
 * but the directory fsync failed (errno set; durability not guaranteed). */
int owlet_replace_commit(struct owlet_replace *r);
void owlet_replace_abort(struct owlet_replace *r);

/* wholefile.c: read DIRFD/NAME (owlet_open_trusted checks, at most MAX
 * bytes) into a malloc'ed, NUL-terminated buffer; 0 or -1 with errno. */
int owlet_read_file(int dirfd, const char *name, off_t max, char **data,
    size_t *len, struct stat *st);
/* Replace DIRFD/NAME by DATA atomically (owlet_replace_*); returns as
 * owlet_replace_commit. */
int owlet_write_replace(int dirfd, const char *name, const void *data,
    size_t len, mode_t mode, uid_t uid, gid_t gid);

/* safeopen.c: open a file we are about to trust, relative to a dir fd, never
 * following a symlink in the last component; fstat checks: regular file,
 * link count 1, size <= max.  Returns the fd or -1 (ELOOP/EINVAL/EFBIG...). */
int owlet_open_trusted(int dirfd, const char *name, off_t max, struct stat *st);
int owlet_open_dir(int dirfd, const char *name);
/* A fresh directory stream on DIRFD (own file offset); NULL on error. */
DIR *owlet_opendir_at(int dirfd);

/* pwlock.c: the shadow-utils/glibc global lock (ETC/.pwd.lock), an OFD
 * lock, waiting up to 15 s as lckpwdf(3) does.  Returns an fd to close to
 * unlock; EINVAL if the lock file is not a regular file. */
int owlet_pwlock(int etcfd);
/* Lock through FD, inherited from a caller holding ETC/.pwd.lock on it
 * (checked: the same file); FD or -1 (EBADF: not that file). */
int owlet_pwlock_inherit(int etcfd, int fd);
/* An OFD lock of TYPE (F_RDLCK, F_WRLCK) on the whole of FD, polled up to
 * MS ms; 0 or -1 (EAGAIN on time-out). */
int owlet_lock_wait(int fd, short type, unsigned int ms);

/* logindefs.c: the value of KEY in ETC/login.defs into VAL.  1 found, 0 not
 * set, -1 error (EINVAL: not one word or too long, *lineno set). */
int owlet_logindefs_get(int etcfd, const char *key, char *val, size_t vlen,
    unsigned long *lineno);
/* boolean key of ETC/login.defs.  1 yes, 0 no or absent, -1 bad
 * value or unreadable file (errno EINVAL, *lineno set). */
int owlet_logindefs_bool(int etcfd, const char *key, unsigned long *lineno);

/* number.c: S[0..LEN) as an unsigned number: one or more digits of the
 * base and nothing else (no sign, space, "0x", or trailing text), value in
 * MIN..MAX.  0, or -1 with errno EINVAL (not a number) or ERANGE (a number
 * out of MIN..MAX, however many digits).  *V is set only on success. */
#define OWLET_NUM_OCTAL		1	/* base 8 (modes); else decimal */
#define OWLET_NUM_NOZERO	2	/* refuse a leading zero ("007"), as
					 * formats that read it as octal or
					 * that must have one spelling do;
					 * "0" itself is fine */
int owlet_num_n(const char *s, size_t len, uint64_t min, uint64_t max,
    int flags, uint64_t *v);
/* The same for the NUL-terminated S. */
int owlet_num(const char *s, uint64_t min, uint64_t max, int flags,
    uint64_t *v);
#define OWLET_ID_MAX		0xfffffffeU	/* (uid_t)-1 means "no id" */

/* dbfile.c: split a colon-separated passwd/group line into at most NF fields;
 * returns the number of fields found. */
int owlet_split(char *line, char **field, int nf);

/* Parse a passwd(5) line in place: name, password field, uid.  0 or -1. */
int owlet_passwd_parse(char *line, char **name, char **pw, uid_t *uid);
/* Decimal id (uid/gid) in [0, 2^32-2]; 0 or -1. */
int owlet_parse_id(const char *s, unsigned int *id);

/* dbread.c: passwd(5) and group(5) entries, each line read whole by
 * owlet_lines_* (never split), fields as owlet_split, ids as
 * owlet_parse_id. */
#define OWLET_PW_NF		7
#define OWLET_GR_NF		4
struct owlet_dbent {
	unsigned long lineno;
	char *f[OWLET_PW_NF];	/* fields, NUL-terminated in the reader */
	int nf;			/* as owlet_split: NF + 1 if more fields */
	int id_ok;		/* f[2] is an id, in ID */
	int ok;			/* the file's field count, the id (and a
				 * passwd entry's gid) valid */
	unsigned int id;	/* uid or gid */
};
struct owlet_db;
/* Open ETCFD/FILE ("passwd", "group"; O_NOFOLLOW).  NULL with errno. */
struct owlet_db *owlet_db_open(int etcfd, const char *file);
/* The next line into *E (valid until the next call): 1, 0 at the end,
 * -1 with errno E2BIG (a line over OWLET_LINE_MAX), EINVAL (a NUL byte) or
 * from read(2); owlet_db_lineno names the line. */
int owlet_db_next(struct owlet_db *db, struct owlet_dbent *e);
unsigned long owlet_db_lineno(const struct owlet_db *db);
/* What owlet_db_next's (or owlet_lines_next's) errno ERR means, for a
 * "FILE:LINE: " message. */
const char *owlet_db_strerror(int err);
/* The next well-formed (E->ok) entry named NAME or, NAME NULL, with id ID,
 * as getpwnam/getpwuid take the first: 1 found, 0 not, -1 as
 * owlet_db_next. */
int owlet_db_find(struct owlet_db *db, const char *name, unsigned int id,
    struct owlet_dbent *e);
void owlet_db_close(struct owlet_db *db);

/* group.c: look up a group's gid in ETC/group; 1 found, 0 not, -1 error. */
int owlet_group_gid(int etcfd, const char *group, gid_t *gid);

/* sysgroup.c: adding system groups as groupadd -r does, under the caller's
 * owlet_pwlock. */
#define OWLET_SYS_GID_MIN	101
#define OWLET_SYS_GID_MAX	999
struct owlet_sysgids {
	unsigned char used[OWLET_SYS_GID_MAX + 1];	/* 1: a line has it */
};
/* Note the GIDs up to OWLET_SYS_GID_MAX that the group(5) file on FD (read
 * from its current offset) uses.  0, or -1 with errno (as
 * owlet_lines_next; EINVAL also for a GID field that is not an id in
 * 0..OWLET_ID_MAX); *LINENO is the last line read. */
int owlet_sysgid_scan(int fd, struct owlet_sysgids *s, unsigned long *lineno);
/* What owlet_sysgid_scan's errno ERR means, for a "FILE:LINE: " message. */
const char *owlet_sysgid_strerror(int err);
/* The highest unused GID in OWLET_SYS_GID_MIN..MAX into *GID, then marked
 * used.  0, or -1 with errno ENOSPC. */
int owlet_sysgid_pick(struct owlet_sysgids *s, gid_t *gid);
struct owlet_sysgroup {
	const char *name;	/* owlet_name_ok, else EINVAL */
	gid_t gid;
};
/* Fill the begun replacement R (owlet_replace_begin, owner and mode of the
 * old file) with the old group(5) or, GSHADOW set, gshadow(5) file on FD
 * from its start, a newline if it lacks a final one, and one line for each
 * of the NG groups G ("NAME:x:GID:" or "NAME:!::"); commit R.  Returns as
 * owlet_replace_commit; on -1 R is aborted (the old file stays). */
int owlet_sysgroup_append(struct owlet_replace *r, int fd, int gshadow,
    const struct owlet_sysgroup *g, size_t ng);

/* tcblayout.c: owners and modes of tcb(5) entries.  /etc/tcb itself is
 * root:shadow OWLET_TCB_DIR_MODE. */
#define OWLET_TCB_DIR_MODE	0710
struct owlet_tcb_layout {
	int auth;		/* TCB_AUTH_GROUP yes in login.defs */
	const char *group;	/* of USER dirs and files: "auth" or "shadow" */
	mode_t dirmode;		/* /etc/tcb/USER: 02710 or 02700 */
	mode_t filemode;	/* /etc/tcb/USER/shadow: 0640 or 0600 */
};
/* The layout ETC/login.defs asks for: 0, or -1 as owlet_logindefs_bool
 * (EINVAL: a bad TCB_AUTH_GROUP value at *LINENO). */
int owlet_tcb_layout(int etcfd, struct owlet_tcb_layout *l,
    unsigned long *lineno);

/* rootpath.c: ROOT followed by PATH, for messages (ROOT "" for /); valid
 * until the next call but one. */
const char *owlet_root_path(const char *root, const char *path);

/* escape.c: names from the file system (any byte but NUL) for output;
 * the two rules are described there. */
/* Text: printable ASCII but '\' as is, '\' doubled, other bytes \xHH.
 * Into OUT as snprintf: returns the length of the whole escaped text; OUT
 * holds the longest prefix that fits without cutting an escape.
 * OWLET_ESC_LEN(n) bytes hold any n-byte string escaped. */
#define OWLET_ESC_LEN(n)	(4 * (n) + 1)
size_t owlet_esc(char *out, size_t outlen, const char *s);
void owlet_esc_put(FILE *f, const char *s);
/* S as a JSON string (UTF-8 passes, control characters \uXXXX, bytes of
 * no well-formed UTF-8 sequence \udcXX), or null when S is NULL. */
void owlet_json_put(FILE *f, const char *s);

/* rmtree.c: remove DIRFD/NAME and everything below it, never following
 * symlinks.  Missing is success. */
int owlet_rmtree(int dirfd, const char *name);

/* shadowedit.c: rewrite one user's entry of a passwd(5) or shadow(5) file
 * by atomic replacement (owlet_replace_*), every other byte kept.  The entry
 * is the first line starting "NAME:" that has a second colon. */
#define OWLET_DB_FILE_MAX	((off_t)1 << 40)	/* /etc/passwd, /etc/shadow */
#define OWLET_EDIT_NF		9
#define OWLET_EDIT_ONE_LINE	1	/* the file is one valid shadow line */
#define OWLET_EDIT_SHADOW_LINE	2	/* the entry is a valid shadow line,
					 * before and after the edit */
struct owlet_edit {
	/* new text of field I of the entry (no ':' or newline), NULL: keep
	 * it; field 0 (the name) cannot be replaced.  A replaced field must
	 * exist in the old entry. */
	const char *field[OWLET_EDIT_NF];
	int flags;
};
/* Edit DIRFD/FILE (a regular file with one link, at most MAX bytes, owned
 * by OWNER unless that is -1).  0, or -1 with errno: ENOENT no entry for
 * NAME, EINVAL suspicious file or malformed entry, others from the I/O. */
int owlet_edit_file(int dirfd, const char *file, off_t max, uid_t owner,
    const char *name, const struct owlet_edit *ed);

#endif
