/*
 * File I/O for keys and signatures: bounded whole-file reads, atomic
 * writes, passphrases.  Functions print their own one-line error naming
 * the file (warn/warnx) and return -1; 0 on success.
 */
#ifndef SEAL_SIGIO_H
#define SEAL_SIGIO_H

#include <stddef.h>
#include <sys/types.h>

/* Read PATH whole into a malloc'd *BUF (NUL-terminated, *LEN bytes
 * before the NUL); more than MAX bytes is an error.  WHAT names the file's
 * role in messages ("public key", ...).  A missing file sets errno ENOENT
 * (QUIET_ENOENT: and prints nothing). */
int sig_read_file(const char *path, size_t max, const char *what,
    int quiet_enoent, char **buf, size_t *len);

/* Write DATA to PATH atomically (temp file in the same directory, fsync,
 * rename, directory fsync), with MODE exactly.  NOREPLACE: fail with
 * EEXIST, never overwrite, even against a concurrent writer. */
int sig_write_file(const char *path, const void *data, size_t len,
    mode_t mode, int noreplace);

/* Does PATH exist (as anything, a dangling symlink included)? */
int sig_exists(const char *path);

/* The last component of PATH. */
const char *sig_basename(const char *path);

/* Passphrases: at most SIG_PASS_MAX - 1 bytes, read from the descriptor
 * named by $SEAL_PASSFD (one line), else from /dev/tty with echo off
 * after PROMPT.  CONFIRM asks twice on a terminal.  Returns the length,
 * or -1 after a message.  Callers explicit_bzero BUF. */
#define SIG_PASS_MAX	1024
int sig_passphrase(char buf[SIG_PASS_MAX], const char *prompt, int confirm);

#endif
