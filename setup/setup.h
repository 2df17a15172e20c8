/*
 * owlet-setup: first-login settings and administrator accounts of an
 * owlet system (Owl's installer set the root password the same way).
 * Root only; every command takes --root DIR.
 */
#ifndef OWLET_SETUP_H
#define OWLET_SETUP_H

#include <crypt.h>
#include <sys/types.h>

#define INSTALLER	"/usr/lib/owlet/owlet-install"
#define HASH_MAX	CRYPT_OUTPUT_SIZE	/* crypt.h: 384 */
#define PASS_MAX	256	/* longest password read (passwdqc max=72 by
				 * default; longer input is refused, not cut) */

struct setup {
	const char *root;	/* "" for / */
	int rootfd, etcfd;
	int use_stdin;		/* passwords from stdin, one line each */
};

const char *setup_path(const struct setup *s, const char *path);

/* password.c: ask for a new password for USER (twice on a terminal),
 * checked by passwdqc with the system's policy, offering a generated
 * passphrase; the crypt(5) hash into HASH (HASH NULL: only the check,
 * for the installer's answers).  0 or -1 (printed). */
int password_new(struct setup *s, const char *user, char *hash,
    size_t hashlen);

/* etcfile.c: ROOT/etc/FILE with LINE appended, or without NAME's entry
 * (lines starting "NAME:"), replaced atomically keeping owner and mode;
 * the caller holds the shadow-utils lock.  0 or -1 (printed). */
int etc_append(struct setup *s, const char *file, const char *line);
int etc_remove(struct setup *s, const char *file, const char *name);
/* Call FN(ARG, LINENO, FIELDS, NFIELDS) for each line of ROOT/etc/passwd
 * (fields split in place, at most 7); FN returns 0 to go on, 1 to stop
 * (returned), -1 on error (returned).  -1 also for an unreadable file or
 * a bad line (printed, errno set). */
int etc_passwd_each(struct setup *s, int (*fn)(void *, unsigned long,
    char **, int), void *arg);
/* NAME's passwd entry: 1 found (uid, home into HOME), 0 not, -1 error. */
int etc_passwd_find(struct setup *s, const char *name, uid_t *uid,
    char *home, size_t homelen);

/* shadow.c: the tcb layout or /etc/shadow. */
int shadow_is_tcb(struct setup *s);
/* Set USER's hash (and last-change day) in place; 0 or -1 (printed). */
int shadow_set_hash(struct setup *s, const char *user, uid_t uid,
    const char *hash);
/* A new entry for USER (tcb directory or /etc/shadow line). */
int shadow_add(struct setup *s, const char *user, uid_t uid,
    const char *hash);
int shadow_del(struct setup *s, const char *user);

/* admin.c */
int admin_add(struct setup *s, const char *name, const char *keyfile,
    int with_password);
int admin_del(struct setup *s, const char *name);
int admin_list(struct setup *s);
/* Does USER's shadow entry hold a crypt(5) hash (1) or not (0)? */
int shadow_has_password(struct setup *s, const char *user);

/* check.c: pwck-style consistency of passwd, group and the tcb tree. */
int check_accounts(struct setup *s);

#endif
