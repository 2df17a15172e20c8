/*
 * tcbprobe: drive the libtcb API from a test script.
 *
 *   tcbprobe CMD [ARGS] [CMD [ARGS]]...
 *
 * Commands run in order and print one line each, e.g. "drop 0",
 * "drop -1 ENOENT", "ids fsuid=1001 fsgid=42 groups=".  A command written
 * "@CMD" runs in a helper thread created at start-up (before any command,
 * so it keeps the credentials the process started with unless a "@"
 * command changes them); the main thread waits for it.  Output lines of
 * "@" commands start with "@".
 *
 *   abi                  struct tcb_privs layout and tcb.h macros
 *   drop NAME | gain     tcb_drop_priv / tcb_gain_priv
 *   dropnull             tcb_drop_priv(NULL)
 *   dropr NAME CAP       tcb_drop_priv_r with a CAP-entry group buffer
 *   gainr                tcb_gain_priv_r
 *   ids                  fsuid, fsgid and supplementary groups of the thread
 *   open PATH            open(PATH, O_RDONLY) as the thread: ok or errno
 *   lock FILE            lckpwdf_tcb(FILE), with the time it took in ms
 *   unlock               ulckpwdf_tcb()
 *   posixlock FILE       classic fcntl(F_SETLK) write lock on FILE (kept)
 *   suspect PATH         tcb_is_suspect() on PATH opened O_RDONLY|O_NONBLOCK
 *   itimer               arm a 100 s ITIMER_REAL with a SIGALRM handler
 *   itimerget            is that timer still running, the handler kept?
 *   touch PATH           create PATH (a marker for other processes)
 *   waitfile PATH        wait (up to 10 s) until PATH exists
 *   sleep MS
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "tcb.h"

static __thread const char *pfx = "";
#define out(...)	(fputs(pfx, stdout), printf(__VA_ARGS__))

static struct tcb_privs privs_r;
static gid_t privs_buf[TCB_NGROUPS];

static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static const char *
ename(int e)
{
	const char *s = strerrorname_np(e);

	return s ? s : "E?";
}

static void
result(const char *what, int rc, int e)
{
	if (rc == 0)
		out("%s 0\n", what);
	else
		out("%s %d %s\n", what, rc, ename(e));
}

static void
print_ids(void)
{
	int n = getgroups(0, NULL), i;
	gid_t *g = calloc((size_t)n + 1, sizeof(*g));
	char *list = calloc((size_t)n + 1, 12);
	size_t off = 0;

	if (!g || !list)
		exit(2);
	n = getgroups(n, g);
	for (i = 0; i < n; i++)
		off += (size_t)sprintf(list + off, "%s%u", i ? "," : "",
		    (unsigned)g[i]);
	out("ids fsuid=%u fsgid=%u groups=%s\n",
	    (unsigned)setfsuid((uid_t)-1), (unsigned)setfsgid((gid_t)-1),
	    n < 0 ? "?" : list);
	free(g);
	free(list);
}

static volatile sig_atomic_t alarms;

static void
on_alarm(int sig)
{
	alarms++;
}

static void
need(int argc, int i, int n, const char *cmd)
{
	if (i + n >= argc) {
		fprintf(stderr, "tcbprobe: %s needs %d argument(s)\n", cmd, n);
		exit(2);
	}
}

/* Run the command at argv[i]; return the number of arguments consumed. */
static int
run(int argc, char **argv, int i)
{
	const char *cmd = argv[i];
	int rc, e, fd;

	errno = 0;
	if (!strcmp(cmd, "abi")) {
		out("abi size=%zu grplist=%zu number_of_groups=%zu "
		    "old_gid=%zu old_uid=%zu is_dropped=%zu\n",
		    sizeof(struct tcb_privs),
		    offsetof(struct tcb_privs, grplist),
		    offsetof(struct tcb_privs, number_of_groups),
		    offsetof(struct tcb_privs, old_gid),
		    offsetof(struct tcb_privs, old_uid),
		    offsetof(struct tcb_privs, is_dropped));
		out("abi TCB_DIR=%s TCB_FMT=%s TCB_NGROUPS=%d\n",
		    TCB_DIR, TCB_FMT, TCB_NGROUPS);
		return 0;
	}
	if (!strcmp(cmd, "drop")) {
		need(argc, i, 1, cmd);
		rc = tcb_drop_priv(argv[i + 1]);
		result(cmd, rc, errno);
		return 1;
	}
	if (!strcmp(cmd, "dropnull")) {
		rc = tcb_drop_priv(NULL);
		result(cmd, rc, errno);
		return 0;
	}
	if (!strcmp(cmd, "gain")) {
		rc = tcb_gain_priv();
		result(cmd, rc, errno);
		return 0;
	}
	if (!strcmp(cmd, "dropr")) {
		need(argc, i, 2, cmd);
		privs_r.grplist = privs_buf;
		privs_r.number_of_groups = atoi(argv[i + 2]);
		rc = tcb_drop_priv_r(argv[i + 1], &privs_r);
		result(cmd, rc, errno);
		return 2;
	}
	if (!strcmp(cmd, "gainr")) {
		rc = tcb_gain_priv_r(&privs_r);
		result(cmd, rc, errno);
		return 0;
	}
	if (!strcmp(cmd, "ids")) {
		print_ids();
		return 0;
	}
	if (!strcmp(cmd, "open")) {
		need(argc, i, 1, cmd);
		fd = open(argv[i + 1], O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd >= 0) {
			out("open ok\n");
			close(fd);
		} else {
			out("open %s\n", ename(errno));
		}
		return 1;
	}
	if (!strcmp(cmd, "lock")) {
		long long t0 = now_ms();

		need(argc, i, 1, cmd);
		rc = lckpwdf_tcb(argv[i + 1]);
		e = errno;
		if (rc == 0)
			out("lock 0 ms=%lld\n", now_ms() - t0);
		else
			out("lock %d %s ms=%lld\n", rc, ename(e),
			    now_ms() - t0);
		return 1;
	}
	if (!strcmp(cmd, "unlock")) {
		rc = ulckpwdf_tcb();
		result(cmd, rc, errno);
		return 0;
	}
	if (!strcmp(cmd, "posixlock")) {
		struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };

		need(argc, i, 1, cmd);
		fd = open(argv[i + 1], O_WRONLY | O_CLOEXEC);
		if (fd < 0) {
			result(cmd, -1, errno);
			return 1;
		}
		rc = fcntl(fd, F_SETLK, &fl);
		e = errno;
		if (rc < 0)
			close(fd);	/* keep the fd (and lock) on success */
		result(cmd, rc, e);
		return 1;
	}
	if (!strcmp(cmd, "suspect")) {
		need(argc, i, 1, cmd);
		fd = open(argv[i + 1], O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0) {
			out("suspect open %s\n", ename(errno));
			return 1;
		}
		rc = tcb_is_suspect(fd);
		close(fd);
		out("suspect %d\n", rc);
		return 1;
	}
	if (!strcmp(cmd, "touch")) {
		need(argc, i, 1, cmd);
		fd = open(argv[i + 1], O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (fd >= 0)
			close(fd);
		return 1;
	}
	if (!strcmp(cmd, "waitfile")) {
		long long t0 = now_ms();

		need(argc, i, 1, cmd);
		while (access(argv[i + 1], F_OK) != 0) {
			if (now_ms() - t0 > 10000) {
				out("waitfile timeout\n");
				exit(3);
			}
			usleep(2000);
		}
		return 1;
	}
	if (!strcmp(cmd, "itimer")) {
		struct itimerval it = { .it_value = { 100, 0 } };

		signal(SIGALRM, on_alarm);
		rc = setitimer(ITIMER_REAL, &it, NULL);
		result(cmd, rc, errno);
		return 0;
	}
	if (!strcmp(cmd, "itimerget")) {
		struct itimerval it;
		void (*h)(int) = signal(SIGALRM, on_alarm);

		getitimer(ITIMER_REAL, &it);
		out("itimer %s handler %s alarms %d\n",
		    it.it_value.tv_sec > 50 ? "running" : "lost",
		    h == on_alarm ? "kept" : "changed", (int)alarms);
		return 0;
	}
	if (!strcmp(cmd, "sleep")) {
		need(argc, i, 1, cmd);
		usleep((useconds_t)atoi(argv[i + 1]) * 1000);
		return 1;
	}
	fprintf(stderr, "tcbprobe: unknown command %s\n", cmd);
	exit(2);
}

/* The helper thread: runs "@" commands handed over by the main thread. */
static sem_t go, done;
static int job_argc, job_i, job_used;
static char **job_argv;

static void *
helper(void *arg)
{
	pfx = "@";
	for (;;) {
		sem_wait(&go);
		job_used = run(job_argc, job_argv, job_i);
		fflush(stdout);
		sem_post(&done);
	}
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t th;
	int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	sem_init(&go, 0, 0);
	sem_init(&done, 0, 0);
	if (pthread_create(&th, NULL, helper, NULL) != 0)
		return 2;
	for (i = 1; i < argc; i++) {
		if (argv[i][0] == '@') {
			argv[i]++;
			job_argc = argc;
			job_argv = argv;
			job_i = i;
			sem_post(&go);
			sem_wait(&done);
			i += job_used;
		} else {
			i += run(argc, argv, i);
		}
	}
	return 0;
}
