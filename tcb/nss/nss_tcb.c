/*
 * libnss_tcb: the glibc "shadow" database read from /etc/tcb/NAME/shadow.
 *
 * Threat model: the caller may be root (login, sshd, cron), while the file
 * sits in a directory its user owns.  The user may replace "shadow" with a
 * symlink, a FIFO, a hard link, a huge file, or an entry for another name.
 * We open the last component O_NOFOLLOW|O_NONBLOCK, accept only a regular
 * file with one link and bounded size, and accept its single line only if it
 * is a well-formed shadow(5) entry for exactly NAME.  Upstream drops to the
 * user's fs IDs before opening; with these checks on the open fd nothing is
 * gained by that (the components above "shadow" are root-owned: /etc/tcb and
 * the bucket symlinks only root can create), and not dropping keeps the
 * module free of per-thread credential changes and as fast as one open+read.
 *
 * A caller without group shadow cannot traverse /etc/tcb: UNAVAIL (EACCES),
 * as for an unreadable /etc/shadow with the files module.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <nss.h>
#include <pthread.h>
#include <shadow.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "owlet.h"
#include "tcb.h"

#define NSS_EXPORT	__attribute__((visibility("default")))

enum nss_status _nss_tcb_setspent(int stayopen);
enum nss_status _nss_tcb_endspent(void);
enum nss_status _nss_tcb_getspent_r(struct spwd *sp, char *buf, size_t len,
    int *errnop);
enum nss_status _nss_tcb_getspnam_r(const char *name, struct spwd *sp,
    char *buf, size_t len, int *errnop);

static enum nss_status
fail(int *errnop, int e, enum nss_status status)
{
	*errnop = e;
	return status;
}

/*
 * Read the entry of NAME (NLEN bytes) into BUF and parse it into SP.
 * The file must hold exactly one line, "NAME:...\n" (the final newline may
 * be missing, as glibc tolerates).
 */
static enum nss_status
lookup(const char *name, size_t nlen, struct spwd *sp, char *buf,
    size_t buflen, int *errnop)
{
	char path[sizeof(TCB_DIR) + OWLET_NAME_MAX + sizeof("/shadow") + 1];
	char data[OWLET_TCB_FILE_MAX + 1];
	enum nss_status status;
	struct stat st;
	ssize_t n;
	size_t len;
	int fd;

	if (!owlet_name_ok_n(name, nlen) || name[nlen] != '\0')
		return fail(errnop, ENOENT, NSS_STATUS_NOTFOUND);
	memcpy(path, TCB_DIR "/", sizeof(TCB_DIR));
	memcpy(path + sizeof(TCB_DIR), name, nlen);
	memcpy(path + sizeof(TCB_DIR) + nlen, "/shadow", sizeof("/shadow"));

	fd = owlet_open_trusted(AT_FDCWD, path, OWLET_TCB_FILE_MAX, &st);
	if (fd < 0) {
		if (errno == EAGAIN)	/* replaced again and again meanwhile */
			return fail(errnop, EAGAIN, NSS_STATUS_TRYAGAIN);
		if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP ||
		    errno == EINVAL || errno == EFBIG)
			return fail(errnop, ENOENT, NSS_STATUS_NOTFOUND);
		return fail(errnop, errno, NSS_STATUS_UNAVAIL);
	}
	/* One read: a regular file returns fewer bytes than asked only at
	 * its end, so asking for one more than its size needs no EOF read. */
	do
		n = read(fd, data, (size_t)st.st_size + 1);
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n < 0)
		return fail(errnop, errno, NSS_STATUS_UNAVAIL);
	len = (size_t)n;
	status = fail(errnop, ENOENT, NSS_STATUS_NOTFOUND);
	if (len > 0 && data[len - 1] == '\n')
		len--;
	if (len > OWLET_TCB_FILE_MAX - 1 || len <= nlen ||
	    memcmp(data, name, nlen) != 0 || data[nlen] != ':' ||
	    memchr(data, '\n', len) || memchr(data, '\0', len))
		goto out;
	if (len + 1 > buflen) {
		status = fail(errnop, ERANGE, NSS_STATUS_TRYAGAIN);
		goto out;
	}
	memcpy(buf, data, len);
	buf[len] = '\0';
	if (owlet_shadow_parse(buf, sp) == 0)	/* the full validation */
		status = NSS_STATUS_SUCCESS;
	else
		explicit_bzero(buf, len);
out:
	explicit_bzero(data, (size_t)n);
	return status;
}

NSS_EXPORT enum nss_status
_nss_tcb_getspnam_r(const char *name, struct spwd *sp, char *buf,
    size_t buflen, int *errnop)
{
	return lookup(name, strnlen(name, OWLET_NAME_MAX + 1), sp, buf, buflen,
	    errnop);
}

/*
 * Enumeration.  One process-wide directory stream (glibc serialises
 * set/get/end per database, the mutex makes direct callers safe too).
 * Listing /etc/tcb needs read permission on it, so only root enumerates.
 * A bad entry (stray file, broken directory, bad name, malformed file) is
 * skipped: it must not hide the users after it.
 */
static pthread_mutex_t ent_lock = PTHREAD_MUTEX_INITIALIZER;
static DIR *ent_dir;
static char ent_pending[OWLET_NAME_MAX + 1];	/* retry after ERANGE */

static enum nss_status
open_ent(void)
{
	if (ent_dir) {
		rewinddir(ent_dir);
	} else {
		int fd = open(TCB_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (fd < 0)
			return NSS_STATUS_UNAVAIL;
		ent_dir = fdopendir(fd);
		if (!ent_dir) {
			close(fd);
			return NSS_STATUS_UNAVAIL;
		}
	}
	ent_pending[0] = '\0';
	return NSS_STATUS_SUCCESS;
}

NSS_EXPORT enum nss_status
_nss_tcb_setspent(int stayopen)
{
	enum nss_status st;

	pthread_mutex_lock(&ent_lock);
	st = open_ent();
	pthread_mutex_unlock(&ent_lock);
	return st;
}

NSS_EXPORT enum nss_status
_nss_tcb_endspent(void)
{
	pthread_mutex_lock(&ent_lock);
	if (ent_dir)
		closedir(ent_dir);
	ent_dir = NULL;
	ent_pending[0] = '\0';
	pthread_mutex_unlock(&ent_lock);
	return NSS_STATUS_SUCCESS;
}

static enum nss_status
next_ent(struct spwd *sp, char *buf, size_t buflen, int *errnop)
{
	struct dirent *de;
	enum nss_status st;
	size_t nlen;

	if (!ent_dir && open_ent() != NSS_STATUS_SUCCESS)
		return fail(errnop, errno, NSS_STATUS_UNAVAIL);
	if (ent_pending[0]) {
		st = lookup(ent_pending, strlen(ent_pending), sp, buf, buflen,
		    errnop);
		if (st == NSS_STATUS_TRYAGAIN)
			return st;
		ent_pending[0] = '\0';
		if (st == NSS_STATUS_SUCCESS)
			return st;
	}
	for (;;) {
		errno = 0;
		de = readdir(ent_dir);
		if (!de) {
			if (errno)
				return fail(errnop, errno, NSS_STATUS_UNAVAIL);
			return fail(errnop, ENOENT, NSS_STATUS_NOTFOUND);
		}
		nlen = strnlen(de->d_name, sizeof(de->d_name));
		if (!owlet_name_ok_n(de->d_name, nlen))
			continue;	/* ".", "..", ":buckets", junk */
		st = lookup(de->d_name, nlen, sp, buf, buflen, errnop);
		if (st == NSS_STATUS_SUCCESS)
			return st;
		if (st == NSS_STATUS_TRYAGAIN) {
			memcpy(ent_pending, de->d_name, nlen + 1);
			return st;
		}
	}
}

NSS_EXPORT enum nss_status
_nss_tcb_getspent_r(struct spwd *sp, char *buf, size_t buflen, int *errnop)
{
	enum nss_status st;

	pthread_mutex_lock(&ent_lock);
	st = next_ent(sp, buf, buflen, errnop);
	pthread_mutex_unlock(&ent_lock);
	return st;
}
