/*
 * faultinj.so: an LD_PRELOAD shim that makes the N-th call to a file-system
 * mutating libc function fail, so that tests can loop N over every call site
 * of a tool and check the on-disk invariant after each run.
 *
 * Environment (read once, by the constructor at load time):
 *   FAULT_AT=N       the N-th counted call (N >= 1) fails: it returns -1 with
 *                    errno FAULT_ERRNO and libc is not called.  Only that
 *                    one call fails; later calls go through.
 *   FAULT_ERRNO=E    errno for the failing call: a number or a name (EIO,
 *                    ENOSPC, EDQUOT, EACCES, EPERM, EROFS, EINTR, ENOMEM,
 *                    EMFILE, ENFILE); default EIO.
 *   FAULT_ONLY=a,b   count only these families: open (open, open64, openat,
 *                    openat64, creat, creat64, the fortified __open*_2),
 *                    write (write, pwrite, pwrite64), fsync (fsync,
 *                    fdatasync, syncfs), rename (rename, renameat,
 *                    renameat2), mkdir (mkdir, mkdirat), chown (chown,
 *                    lchown, fchown, fchownat), chmod (chmod, fchmod,
 *                    fchmodat), link (link, linkat), symlink (symlink,
 *                    symlinkat).  Default: all of them.
 *   FAULT_LOG=path   at exit, write the number of counted calls (decimal and
 *                    a newline) to path.
 * Calls are counted only when FAULT_AT or FAULT_LOG is set, and only in the
 * process that loaded the shim first: a forked child does not count, and a
 * program exec'd from it inherits FAULTINJ_PID and stays passive too.
 * The failing call is reported on stderr as
 *   faultinj: failing NAME #N [path]
 * unlink, unlinkat, rmdir and close are never wrapped: cleanup must run.
 *
 * Slowing one call down instead (races with other processes), independent
 * of FAULT_AT:
 *   FAULT_DELAY=WHEN:FAMILY:MS:SUFFIX  the first call of FAMILY whose path
 *                    (for renames: the target) ends with SUFFIX sleeps MS
 *                    milliseconds, "before" a rename or "after" an open
 *                    (the only two hooks: before:rename, after:open).
 *   FAULT_DELAY_MARK=path  created when that sleep starts, so that a test
 *                    knows the process is there (with the fs ids the
 *                    process has then: a tcb writer's are the user's).
 * Same one-process rule as above.
 *
 * Built without _FORTIFY_SOURCE (we define open() itself) and without
 * sanitizers; the real functions are found with dlsym(RTLD_NEXT).  While
 * dlsym itself runs (it may allocate, and a malloc hook could open files)
 * a wrapped call re-entering the shim goes straight to the system call.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

/* The fortified entry points (declared by fcntl2.h only under fortify). */
EXPORT int __open_2(const char *path, int flags);
EXPORT int __open64_2(const char *path, int flags);
EXPORT int __openat_2(int dirfd, const char *path, int flags);
EXPORT int __openat64_2(int dirfd, const char *path, int flags);
/* Not declared without _FILE_OFFSET_BITS/_LARGEFILE64_SOURCE on every libc. */
EXPORT int creat64(const char *path, mode_t mode);
EXPORT ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t off);
EXPORT int renameat2(int olddirfd, const char *oldpath, int newdirfd,
    const char *newpath, unsigned int flags);

enum {
	F_OPEN = 1 << 0,
	F_WRITE = 1 << 1,
	F_FSYNC = 1 << 2,
	F_RENAME = 1 << 3,
	F_MKDIR = 1 << 4,
	F_CHOWN = 1 << 5,
	F_CHMOD = 1 << 6,
	F_LINK = 1 << 7,
	F_SYMLINK = 1 << 8,
	F_ALL = (1 << 9) - 1,
};

static const struct {
	const char *name;
	unsigned int bit;
} families[] = {
	{ "open", F_OPEN }, { "write", F_WRITE }, { "fsync", F_FSYNC },
	{ "rename", F_RENAME }, { "mkdir", F_MKDIR }, { "chown", F_CHOWN },
	{ "chmod", F_CHMOD }, { "link", F_LINK }, { "symlink", F_SYMLINK },
};

static const struct {
	const char *name;
	int value;
} errnames[] = {
	{ "EIO", EIO }, { "ENOSPC", ENOSPC }, { "EDQUOT", EDQUOT },
	{ "EACCES", EACCES }, { "EPERM", EPERM }, { "EROFS", EROFS },
	{ "EINTR", EINTR }, { "ENOMEM", ENOMEM }, { "EMFILE", EMFILE },
	{ "ENFILE", ENFILE }, { "EEXIST", EEXIST }, { "ENOENT", ENOENT },
};

static int fi_state;		/* 0 not read yet, 1 reading, 2 ready */
static int fi_active;		/* counting in this process */
static pid_t fi_pid;
static unsigned long fi_at;	/* 0: never fail */
static int fi_errno = EIO;
static unsigned int fi_mask = F_ALL;
static char *fi_log;
static unsigned long fi_count;
/* initial-exec: the shim is only ever preloaded, so its TLS is static, and
 * no call to __tls_get_addr is made: ASan intercepts that function and,
 * when it calls mkdir() from its own initialisation (log_path), its
 * interceptor has no real function to call yet. */
static __thread int fi_in_dlsym __attribute__((tls_model("initial-exec")));
/* FAULT_DELAY */
enum { D_BEFORE = 1, D_AFTER = 2 };
static int fd_when;		/* 0: no delay */
static unsigned int fd_family;
static unsigned long fd_ms;
static char *fd_suffix, *fd_mark;
static int fd_done;

/* Output without going through our own wrappers or stdio. */
static void
fi_puts(int fd, const char *s)
{
	size_t len = strlen(s);

	while (len > 0) {
		long n = syscall(SYS_write, fd, s, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		s += n;
		len -= (size_t)n;
	}
}

static char *
fi_utoa(unsigned long v, char *end)
{
	*--end = '\0';
	do
		*--end = (char)('0' + v % 10);
	while (v /= 10);
	return end;
}

static int
fi_parse_ulong(const char *s, unsigned long *v)
{
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoul(s, &end, 10);
	return errno || *end ? -1 : 0;
}

static __attribute__((noreturn)) void
fi_bad(const char *var, const char *val)
{
	fi_puts(2, "faultinj: bad ");
	fi_puts(2, var);
	fi_puts(2, "=");
	fi_puts(2, val);
	fi_puts(2, "\n");
	_exit(125);
}

static unsigned int
fi_parse_only(const char *s)
{
	unsigned int mask = 0;
	const char *p = s;

	while (*p) {
		size_t len = strcspn(p, ",");
		size_t i;

		for (i = 0; i < sizeof(families) / sizeof(families[0]); i++)
			if (strlen(families[i].name) == len &&
			    !strncmp(families[i].name, p, len))
				break;
		if (len > 0 && i == sizeof(families) / sizeof(families[0]))
			fi_bad("FAULT_ONLY", s);
		if (len > 0)
			mask |= families[i].bit;
		p += len;
		if (*p == ',')
			p++;
	}
	return mask;
}

/* FAULT_DELAY=WHEN:FAMILY:MS:SUFFIX */
static void
fi_parse_delay(const char *s)
{
	char *copy = strdup(s), *f[4], *p;
	size_t i, n;

	if (!copy)
		fi_bad("FAULT_DELAY", s);
	f[0] = copy;
	for (n = 1; n < 4; n++) {
		p = strchr(f[n - 1], ':');
		if (!p)
			fi_bad("FAULT_DELAY", s);
		*p = '\0';
		f[n] = p + 1;
	}
	fd_when = !strcmp(f[0], "before") ? D_BEFORE :
	    !strcmp(f[0], "after") ? D_AFTER : 0;
	for (i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		if (!strcmp(families[i].name, f[1]))
			fd_family = families[i].bit;
	if (!((fd_when == D_AFTER && fd_family == F_OPEN) ||
	    (fd_when == D_BEFORE && fd_family == F_RENAME)) ||
	    fi_parse_ulong(f[2], &fd_ms) < 0)
		fi_bad("FAULT_DELAY", s);
	fd_suffix = f[3];
}

/* Sleep if this call is the one FAULT_DELAY names. */
static void
fi_delay(unsigned int family, int when, const char *path)
{
	size_t plen, slen;
	struct timespec ts;
	int fd;

	if (fi_state != 2 || fd_when != when || !(fd_family & family) ||
	    !path || getpid() != fi_pid)
		return;
	plen = strlen(path);
	slen = strlen(fd_suffix);
	if (plen < slen || strcmp(path + plen - slen, fd_suffix) != 0)
		return;
	if (__atomic_exchange_n(&fd_done, 1, __ATOMIC_SEQ_CST))
		return;
	if (fd_mark) {
		fd = (int)syscall(SYS_openat, AT_FDCWD, fd_mark, O_WRONLY |
		    O_CREAT | O_CLOEXEC | O_NOCTTY, 0644);
		if (fd >= 0)
			syscall(SYS_close, fd);
	}
	ts.tv_sec = (time_t)(fd_ms / 1000);
	ts.tv_nsec = (long)(fd_ms % 1000) * 1000000;
	while (syscall(SYS_nanosleep, &ts, &ts) < 0 && errno == EINTR)
		;
}

static void
fi_init(void)
{
	const char *at, *log, *en, *only, *owner, *delay, *mark;
	char buf[32], *pidstr;
	unsigned long v;
	size_t i;

	if (fi_state != 0)
		return;
	fi_state = 1;
	at = getenv("FAULT_AT");
	log = getenv("FAULT_LOG");
	en = getenv("FAULT_ERRNO");
	only = getenv("FAULT_ONLY");
	owner = getenv("FAULTINJ_PID");
	fi_pid = getpid();
	if (at && *at) {
		if (fi_parse_ulong(at, &fi_at) < 0 || fi_at == 0)
			fi_bad("FAULT_AT", at);
	}
	if (en && *en) {
		for (i = 0; i < sizeof(errnames) / sizeof(errnames[0]); i++)
			if (!strcmp(errnames[i].name, en))
				break;
		if (i < sizeof(errnames) / sizeof(errnames[0]))
			fi_errno = errnames[i].value;
		else if (fi_parse_ulong(en, &v) == 0 && v > 0 && v < 4096)
			fi_errno = (int)v;
		else
			fi_bad("FAULT_ERRNO", en);
	}
	if (only && *only)
		fi_mask = fi_parse_only(only);
	if (log && *log)
		fi_log = strdup(log);
	delay = getenv("FAULT_DELAY");
	mark = getenv("FAULT_DELAY_MARK");
	if (delay && *delay) {
		fi_parse_delay(delay);
		if (mark && *mark)
			fd_mark = strdup(mark);
	}
	fi_active = (fi_at || fi_log);
	pidstr = fi_utoa((unsigned long)fi_pid, buf + sizeof(buf));
	if ((fi_active || fd_when) && owner && strcmp(owner, pidstr) != 0) {
		/* Exec'd by the process under test: stay passive. */
		fi_active = 0;
		fd_when = 0;
		free(fi_log);
		fi_log = NULL;
	} else if (fi_active || fd_when) {
		setenv("FAULTINJ_PID", pidstr, 1);
	}
	fi_state = 2;
}

__attribute__((constructor)) static void
fi_ctor(void)
{
	fi_init();
}

__attribute__((destructor)) static void
fi_dtor(void)
{
	char buf[32], *s;
	unsigned long n;
	int fd;

	if (!fi_log || getpid() != fi_pid)
		return;
	n = __atomic_load_n(&fi_count, __ATOMIC_SEQ_CST);
	fi_active = 0;
	fd = (int)syscall(SYS_openat, AT_FDCWD, fi_log,
	    O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0644);
	if (fd < 0)
		return;
	s = fi_utoa(n, buf + sizeof(buf) - 1);	/* NUL at buf[30] */
	buf[sizeof(buf) - 2] = '\n';
	buf[sizeof(buf) - 1] = '\0';
	fi_puts(fd, s);
	syscall(SYS_close, fd);
}

/* Count one call of FAMILY; 1 if it must fail (errno is set then). */
static int
fi_fail(unsigned int family, const char *name, const char *path)
{
	unsigned long n;
	char buf[32];

	/* Not counted: calls made during fi_init (getenv, strdup), and calls
	 * made before our constructor ran, by another preloaded library's
	 * initialisation (ASan creates its log_path directory), never by the
	 * program under test.  Initialising from there would read the
	 * environment and allocate inside that library's set-up. */
	if (fi_state != 2)
		return 0;
	if (!fi_active || !(fi_mask & family))
		return 0;
	if (getpid() != fi_pid)		/* a forked child: not counted */
		return 0;
	n = __atomic_add_fetch(&fi_count, 1, __ATOMIC_SEQ_CST);
	if (n != fi_at)
		return 0;
	fi_puts(2, "faultinj: failing ");
	fi_puts(2, name);
	fi_puts(2, " #");
	fi_puts(2, fi_utoa(n, buf + sizeof(buf)));
	if (path) {
		fi_puts(2, " ");
		fi_puts(2, path);
	}
	fi_puts(2, "\n");
	errno = fi_errno;
	return 1;
}

static void *
fi_real(const char *name)
{
	void *p;

	fi_in_dlsym = 1;
	p = dlsym(RTLD_NEXT, name);
	fi_in_dlsym = 0;
	if (!p) {
		fi_puts(2, "faultinj: dlsym failed: ");
		fi_puts(2, name);
		fi_puts(2, "\n");
		abort();
	}
	return p;
}

/*
 * REAL(fn, type): the next definition of fn.  The pointer is cached; a
 * concurrent first call resolves it twice, harmlessly.
 */
#define REAL(fn, type) \
	static type real_##fn; \
	if (!real_##fn) \
		real_##fn = (type)fi_real(#fn)

static int
open_needs_mode(int flags)
{
#ifdef O_TMPFILE
	if ((flags & O_TMPFILE) == O_TMPFILE)
		return 1;
#endif
	return (flags & O_CREAT) != 0;
}

/* ---- open family ---- */

typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);
typedef int (*open2_fn)(const char *, int);
typedef int (*openat2_fn)(int, const char *, int);
typedef int (*creat_fn)(const char *, mode_t);

#define OPEN_WRAPPER(fn) \
EXPORT int \
fn(const char *path, int flags, ...) \
{ \
	mode_t mode = 0; \
	int fd; \
	if (open_needs_mode(flags)) { \
		va_list ap; \
		va_start(ap, flags); \
		mode = (mode_t)va_arg(ap, int); \
		va_end(ap); \
	} \
	if (fi_in_dlsym) \
		return (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode); \
	if (fi_fail(F_OPEN, #fn, path)) \
		return -1; \
	REAL(fn, open_fn); \
	fd = real_##fn(path, flags, mode); \
	fi_delay(F_OPEN, D_AFTER, path); \
	return fd; \
}

#define OPENAT_WRAPPER(fn) \
EXPORT int \
fn(int dirfd, const char *path, int flags, ...) \
{ \
	mode_t mode = 0; \
	int fd; \
	if (open_needs_mode(flags)) { \
		va_list ap; \
		va_start(ap, flags); \
		mode = (mode_t)va_arg(ap, int); \
		va_end(ap); \
	} \
	if (fi_in_dlsym) \
		return (int)syscall(SYS_openat, dirfd, path, flags, mode); \
	if (fi_fail(F_OPEN, #fn, path)) \
		return -1; \
	REAL(fn, openat_fn); \
	fd = real_##fn(dirfd, path, flags, mode); \
	fi_delay(F_OPEN, D_AFTER, path); \
	return fd; \
}

#define OPEN2_WRAPPER(fn) \
EXPORT int \
fn(const char *path, int flags) \
{ \
	if (fi_in_dlsym) \
		return (int)syscall(SYS_openat, AT_FDCWD, path, flags, 0); \
	if (fi_fail(F_OPEN, #fn, path)) \
		return -1; \
	REAL(fn, open2_fn); \
	return real_##fn(path, flags); \
}

#define OPENAT2_WRAPPER(fn) \
EXPORT int \
fn(int dirfd, const char *path, int flags) \
{ \
	if (fi_in_dlsym) \
		return (int)syscall(SYS_openat, dirfd, path, flags, 0); \
	if (fi_fail(F_OPEN, #fn, path)) \
		return -1; \
	REAL(fn, openat2_fn); \
	return real_##fn(dirfd, path, flags); \
}

#define CREAT_WRAPPER(fn) \
EXPORT int \
fn(const char *path, mode_t mode) \
{ \
	if (fi_in_dlsym) \
		return (int)syscall(SYS_openat, AT_FDCWD, path, \
		    O_WRONLY | O_CREAT | O_TRUNC, mode); \
	if (fi_fail(F_OPEN, #fn, path)) \
		return -1; \
	REAL(fn, creat_fn); \
	return real_##fn(path, mode); \
}

OPEN_WRAPPER(open)
OPEN_WRAPPER(open64)
OPENAT_WRAPPER(openat)
OPENAT_WRAPPER(openat64)
OPEN2_WRAPPER(__open_2)
OPEN2_WRAPPER(__open64_2)
OPENAT2_WRAPPER(__openat_2)
OPENAT2_WRAPPER(__openat64_2)
CREAT_WRAPPER(creat)
CREAT_WRAPPER(creat64)

/* ---- write family ---- */

typedef ssize_t (*write_fn)(int, const void *, size_t);
typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);

EXPORT ssize_t
write(int fd, const void *buf, size_t n)
{
	if (fi_in_dlsym)
		return syscall(SYS_write, fd, buf, n);
	if (fi_fail(F_WRITE, "write", NULL))
		return -1;
	REAL(write, write_fn);
	return real_write(fd, buf, n);
}

#define PWRITE_WRAPPER(fn, off_type) \
EXPORT ssize_t \
fn(int fd, const void *buf, size_t n, off_type off) \
{ \
	if (fi_in_dlsym) \
		return syscall(SYS_pwrite64, fd, buf, n, off); \
	if (fi_fail(F_WRITE, #fn, NULL)) \
		return -1; \
	REAL(fn, pwrite_fn); \
	return real_##fn(fd, buf, n, off); \
}

PWRITE_WRAPPER(pwrite, off_t)
PWRITE_WRAPPER(pwrite64, off64_t)

/* ---- fsync family ---- */

typedef int (*fd_fn)(int);

#define FD_WRAPPER(fn, fam, sys) \
EXPORT int \
fn(int fd) \
{ \
	if (fi_in_dlsym) \
		return (int)syscall(sys, fd); \
	if (fi_fail(fam, #fn, NULL)) \
		return -1; \
	REAL(fn, fd_fn); \
	return real_##fn(fd); \
}

FD_WRAPPER(fsync, F_FSYNC, SYS_fsync)
FD_WRAPPER(fdatasync, F_FSYNC, SYS_fdatasync)
FD_WRAPPER(syncfs, F_FSYNC, SYS_syncfs)

/* ---- rename family ---- */

typedef int (*rename_fn)(const char *, const char *);
typedef int (*renameat_fn)(int, const char *, int, const char *);
typedef int (*renameat2_fn)(int, const char *, int, const char *,
    unsigned int);

EXPORT int
rename(const char *from, const char *to)
{
	if (fi_in_dlsym)
		return (int)syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD,
		    to, 0);
	fi_delay(F_RENAME, D_BEFORE, to);
	if (fi_fail(F_RENAME, "rename", to))
		return -1;
	REAL(rename, rename_fn);
	return real_rename(from, to);
}

EXPORT int
renameat(int fromfd, const char *from, int tofd, const char *to)
{
	if (fi_in_dlsym)
		return (int)syscall(SYS_renameat2, fromfd, from, tofd, to, 0);
	fi_delay(F_RENAME, D_BEFORE, to);
	if (fi_fail(F_RENAME, "renameat", to))
		return -1;
	REAL(renameat, renameat_fn);
	return real_renameat(fromfd, from, tofd, to);
}

EXPORT int
renameat2(int fromfd, const char *from, int tofd, const char *to,
    unsigned int flags)
{
	if (fi_in_dlsym)
		return (int)syscall(SYS_renameat2, fromfd, from, tofd, to,
		    flags);
	fi_delay(F_RENAME, D_BEFORE, to);
	if (fi_fail(F_RENAME, "renameat2", to))
		return -1;
	REAL(renameat2, renameat2_fn);
	return real_renameat2(fromfd, from, tofd, to, flags);
}

/* ---- mkdir family ---- */

typedef int (*mkdir_fn)(const char *, mode_t);
typedef int (*mkdirat_fn)(int, const char *, mode_t);

EXPORT int
mkdir(const char *path, mode_t mode)
{
	if (fi_in_dlsym)
		return (int)syscall(SYS_mkdirat, AT_FDCWD, path, mode);
	if (fi_fail(F_MKDIR, "mkdir", path))
		return -1;
	REAL(mkdir, mkdir_fn);
	return real_mkdir(path, mode);
}

EXPORT int
mkdirat(int dirfd, const char *path, mode_t mode)
{
	if (fi_in_dlsym)
		return (int)syscall(SYS_mkdirat, dirfd, path, mode);
	if (fi_fail(F_MKDIR, "mkdirat", path))
		return -1;
	REAL(mkdirat, mkdirat_fn);
	return real_mkdirat(dirfd, path, mode);
}

/* ---- chown family ---- */

typedef int (*chown_fn)(const char *, uid_t, gid_t);
typedef int (*fchown_fn)(int, uid_t, gid_t);
typedef int (*fchownat_fn)(int, const char *, uid_t, gid_t, int);

EXPORT int
chown(const char *path, uid_t uid, gid_t gid)
{
	if (fi_in_dlsym)
		return (int)syscall(SYS_fchownat, AT_FDCWD, path, uid, gid, 0);
	if (fi_fail(F_CHOWN, "chown", path))
		return -1;
	REAL(chown, chown_fn);
	return real_chown(path, uid, gid);
}

EXPORT int
lchown(const char *path, uid_t uid, gid_t gid)
{
	if (fi_in_dlsym)
		return (int)syscall(SYS_fchownat, AT_FDCWD, path, uid, gid,
		    AT_SYMLINK_NOFOLLOW);
	if (fi_fail(F_CHOWN, "lchown", path))
		return -1;
	REAL(lchown, chown_fn);
	return real_lchown(path, uid, gid);
}

EXPORT int
fchown(int fd, uid_t uid, gid_t gid)
{
	if (fi_in_dlsym)
		return (int)syscall(SYS_fchown, fd, uid, gid);
	if (fi_fail(F_CHOWN, "fchown", NULL))
		return -1;
	REAL(fchown, fchown_fn);
	return real_fchown(fd, uid, gid);
}

EXPORT int
fchownat(int dirfd, const char *path, uid_t uid, gid_t gid, int flags)
{
	if (fi_in_dlsym)
		return (int)syscall(SYS_fchownat, dirfd, path, uid, gid, flags);
	if (fi_fail(F_CHOWN, "fchownat", path))
		return -1;
	REAL(fchownat, fchownat_fn);
	return real_fchownat(dirfd, path, uid, gid, flags);
}

/* ---- chmod family ---- */

typedef int (*chmod_fn)(const char *, mode_t);
typedef int (*fchmod_fn)(int, mode_t);
typedef int (*fchmodat_fn)(int, const char *, mode_t, int);

EXPORT int
chmod(const char *path, mode_t mode)
{
	if (fi_in_dlsym)
		return (int)syscall(SYS_fchmodat, AT_FDCWD, path, mode);
	if (fi_fail(F_CHMOD, "chmod", path))
		return -1;
	REAL(chmod, chmod_fn);
	return real_chmod(path, mode);
}

EXPORT int
fchmod(int fd, mode_t mode)
{
	if (fi_in_dlsym)
		return (int)syscall(SYS_fchmod, fd, mode);
	if (fi_fail(F_CHMOD, "fchmod", NULL))
		return -1;
	REAL(fchmod, fchmod_fn);
	return real_fchmod(fd, mode);
}

EXPORT int
fchmodat(int dirfd, const char *path, mode_t mode, int flags)
{
	if (fi_in_dlsym)	/* flags unsupported by the plain syscall */
		return (int)syscall(SYS_fchmodat, dirfd, path, mode);
	if (fi_fail(F_CHMOD, "fchmodat", path))
		return -1;
	REAL(fchmodat, fchmodat_fn);
	return real_fchmodat(dirfd, path, mode, flags);
}

/* ---- link and symlink families ---- */

typedef int (*link_fn)(const char *, const char *);
typedef int (*linkat_fn)(int, const char *, int, const char *, int);
typedef int (*symlinkat_fn)(const char *, int, const char *);

EXPORT int
link(const char *from, const char *to)
{
	if (fi_in_dlsym)
		return (int)syscall(SYS_linkat, AT_FDCWD, from, AT_FDCWD, to, 0);
	if (fi_fail(F_LINK, "link", to))
		return -1;
	REAL(link, link_fn);
	return real_link(from, to);
}

EXPORT int
linkat(int fromfd, const char *from, int tofd, const char *to, int flags)
{
	if (fi_in_dlsym)
		return (int)syscall(SYS_linkat, fromfd, from, tofd, to, flags);
	if (fi_fail(F_LINK, "linkat", to))
		return -1;
	REAL(linkat, linkat_fn);
	return real_linkat(fromfd, from, tofd, to, flags);
}

EXPORT int
symlink(const char *target, const char *path)
{
	if (fi_in_dlsym)
		return (int)syscall(SYS_symlinkat, target, AT_FDCWD, path);
	if (fi_fail(F_SYMLINK, "symlink", path))
		return -1;
	REAL(symlink, link_fn);
	return real_symlink(target, path);
}

EXPORT int
symlinkat(const char *target, int dirfd, const char *path)
{
	if (fi_in_dlsym)
		return (int)syscall(SYS_symlinkat, target, dirfd, path);
	if (fi_fail(F_SYMLINK, "symlinkat", path))
		return -1;
	REAL(symlinkat, symlinkat_fn);
	return real_symlinkat(target, dirfd, path);
}
