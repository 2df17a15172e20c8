/*
 * seal: mtree(5) integrity specs, created and verified fast, signed with
 * Ed25519 in minisign's format.
 *
 * Files: vis.c (name escaping), entry.c (one entry: stat data, formatting,
 * comparison), walk.c (deterministic tree walk), hashq.c (parallel SHA-256
 * with results kept in walk order), specread.c (mtree parser, all common
 * dialects), create.c, verify.c, and the signature files.
 *
 * Canonical order, shared by create and verify: depth first, a directory
 * followed by its contents, the entries of a directory sorted by strcmp of
 * their raw name bytes whatever their types (so a file that became a
 * directory keeps its place and verify can say "type changed").  Specs in
 * another order (NetBSD's `mtree -c` lists files before directories,
 * bsdtar lists readdir order) are sorted in memory before verification.
 */
#ifndef SEAL_H
#define SEAL_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#define SEAL_LINE_MAX	(64 * 1024)

enum seal_type { T_NONE, T_FILE, T_DIR, T_LINK, T_BLOCK, T_CHAR, T_FIFO,
    T_SOCKET };

/* keyword bits */
enum {
	K_TYPE = 1 << 0, K_MODE = 1 << 1, K_UID = 1 << 2, K_GID = 1 << 3,
	K_UNAME = 1 << 4, K_GNAME = 1 << 5, K_SIZE = 1 << 6, K_LINK = 1 << 7,
	K_NLINK = 1 << 8, K_SHA256 = 1 << 9, K_TIME = 1 << 10, K_CAPS = 1 << 11,
	K_DEVICE = 1 << 12,
	K_OPTIONAL = 1 << 16, K_IGNORE = 1 << 17, K_NOCHANGE = 1 << 18,
};
#define K_DEFAULT (K_TYPE | K_MODE | K_UID | K_GID | K_UNAME | K_GNAME | \
    K_SIZE | K_LINK | K_NLINK | K_SHA256 | K_CAPS | K_DEVICE)
#define K_PORTABLE_MASK (~(unsigned)K_CAPS)

struct seal_entry {
	char *path;		/* "./a/b", decoded, malloc'd */
	unsigned keys;		/* keywords present */
	enum seal_type type;
	mode_t mode;		/* 12 permission bits */
	uid_t uid;
	gid_t gid;
	char uname[33], gname[33];
	uint64_t size;
	uint64_t nlink;
	struct timespec mtime;
	uint64_t rdev_major, rdev_minor;
	char *link;		/* symlink target, decoded, malloc'd */
	unsigned char sha256[32];
	char caps[2 * 64 + 1];	/* security.capability xattr, hex */
	int error;		/* errno while reading the file, 0 if none */
};

/* vis.c */
/* Append NAME's escaped form to OUT (octal for every byte outside
 * 0x21..0x7e and for \ # * ? [ = and space). */
void seal_vis(FILE *out, const char *s);
size_t seal_vis_buf(char *out, size_t outlen, const char *s);
/* The escaped form in a malloc'ed string (for messages); NULL: no memory. */
char *seal_vis_dup(const char *s);
/* Decode in place; -1 on a bad escape. */
int seal_unvis(char *s);

/* entry.c */
const char *seal_type_name(enum seal_type t);
enum seal_type seal_type_parse(const char *s);
void seal_entry_free(struct seal_entry *e);
/* One line on stderr: E's path (escaped as in a spec) and E->error. */
void seal_entry_warn(const struct seal_entry *e);
/* Write E as one spec line (the name is the last path component). */
void seal_entry_write(FILE *out, const struct seal_entry *e, unsigned keys);
/* Canonical order of two full paths ("./a/b"). */
int seal_path_cmp(const char *a, const char *b);

#endif
