/*
 * chkpwd_client: talk to tcb_chkpwd as pam_tcb would, or as a hostile
 * caller might, and report what came back, for tests/tcb/chkpwd.t.
 *
 *   chkpwd_client [options] HELPER NAME PASS
 *   chkpwd_client [options] -r FILE HELPER
 *
 * The request is the 8-byte flag word "nonull" (-n: "nullok"), NAME and
 * PASS, each NUL-terminated; with -r it is the bytes of FILE instead.
 * HELPER runs with this program's environment (a hostile caller chooses
 * it; pam_tcb passes an empty one) and with stdin and stdout pipes.
 *
 *   -n        flag word "nullok"
 *   -T in|out the helper's stdin (or stdout) is a pseudo-terminal
 *   -c        the helper starts with fd 1 closed
 *   -s MS     after MS ms, print the helper's Gid: and Groups: lines
 *   -k MS     after MS ms, kill the helper (SIGKILL)
 *   -E VAR=V  add VAR=V to the helper's environment (not ours)
 *
 * One line on stdout:
 *   reply=0x0a00ff7f|0x00000001|none extra=N status=exit:N|signal:N ms=N
 * preceded, with -s, by the helper's Gid: and Groups: lines;
 * or, if HELPER cannot be run, "exec=ERRNO-NAME".  Exits 0 when it could
 * report, 2 on its own errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void
die(const char *what)
{
	fprintf(stderr, "chkpwd_client: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* A terminal for the helper; the master stays open in this process (a
 * terminal whose master is closed is hung up and no longer looks like one). */
static int
pty_slave(void)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC), s;

	if (m < 0 || grantpt(m) < 0 || unlockpt(m) < 0)
		die("pty");
	s = open(ptsname(m), O_RDWR | O_NOCTTY);
	if (s < 0)
		die("pts");
	return s;
}

static size_t
read_file(const char *path, char *buf, size_t max)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;
	size_t got = 0;

	if (fd < 0)
		die(path);
	while ((n = read(fd, buf + got, max - got)) > 0)
		got += (size_t)n;
	close(fd);
	return got;
}

static void
print_gid(pid_t pid)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f) {
		printf("gid=gone\n");
		return;
	}
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "Gid:", 4) == 0 ||
		    strncmp(line, "Groups:", 7) == 0)
			fputs(line, stdout);
	fclose(f);
	fflush(stdout);
}

int
main(int argc, char **argv)
{
	static char req[1 << 16];
	static char *env[256];
	int nenv = 0;
	const char *raw = NULL, *tty = NULL, *helper;
	int in[2], out[2], errp[2], opt, nullok = 0, close1 = 0, status, e;
	int tty_fd = -1;
	long sample_ms = -1, kill_ms = -1;
	size_t len;
	ssize_t n;
	char reply[64];
	size_t got = 0;
	long long t0;
	pid_t pid;

	while (nenv < 200 && environ[nenv]) {
		env[nenv] = environ[nenv];
		nenv++;
	}
	while ((opt = getopt(argc, argv, "nr:T:cs:k:E:")) != -1) {
		switch (opt) {
		case 'n': nullok = 1; break;
		case 'r': raw = optarg; break;
		case 'T': tty = optarg; break;
		case 'c': close1 = 1; break;
		case 's': sample_ms = atol(optarg); break;
		case 'k': kill_ms = atol(optarg); break;
		case 'E':
			if (nenv < 255)
				env[nenv++] = optarg;
			break;
		default: return 2;
		}
	}
	if (argc - optind != (raw ? 1 : 3)) {
		fprintf(stderr, "usage: chkpwd_client [-nc] [-T in|out] "
		    "[-s MS] [-k MS] [-E VAR=V] [-r FILE] HELPER "
		    "[NAME PASS]\n");
		return 2;
	}
	helper = argv[optind];
	if (raw) {
		len = read_file(raw, req, sizeof(req));
	} else {
		size_t nl = strlen(argv[optind + 1]) + 1;
		size_t pl = strlen(argv[optind + 2]) + 1;

		if (8 + nl + pl > sizeof(req))
			return 2;
		memset(req, 0, 8);
		memcpy(req, nullok ? "nullok" : "nonull", 6);
		memcpy(req + 8, argv[optind + 1], nl);
		memcpy(req + 8 + nl, argv[optind + 2], pl);
		len = 8 + nl + pl;
	}

	signal(SIGPIPE, SIG_IGN);
	if (pipe(in) < 0 || pipe(out) < 0 || pipe2(errp, O_CLOEXEC) < 0)
		die("pipe");
	if (tty)
		tty_fd = pty_slave();
	t0 = now_ms();
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		int fd0 = in[0], fd1 = out[1];

		if (tty && strcmp(tty, "in") == 0)
			fd0 = tty_fd;
		if (tty && strcmp(tty, "out") == 0)
			fd1 = tty_fd;
		if (dup2(fd0, 0) < 0 || dup2(fd1, 1) < 0)
			_exit(127);
		if (close1)
			close(1);
		close(in[0]); close(in[1]); close(out[0]); close(out[1]);
		execve(helper, (char *[]){ (char *)helper, NULL }, env);
		e = errno;
		(void)!write(errp[1], &e, sizeof(e));
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	close(errp[1]);
	if (read(errp[0], &e, sizeof(e)) == sizeof(e)) {
		waitpid(pid, &status, 0);
		printf("exec=%s\n", strerrorname_np(e));
		return 0;
	}
	/* A short write is what a dead helper does to us; no error. */
	for (size_t off = 0; off < len; off += (size_t)n) {
		n = write(in[1], req + off, len - off);
		if (n <= 0)
			break;
	}
	close(in[1]);
	if (sample_ms >= 0) {
		usleep((useconds_t)sample_ms * 1000);
		print_gid(pid);
	}
	if (kill_ms >= 0) {
		long long wait = kill_ms - (now_ms() - t0);

		if (wait > 0)
			usleep((useconds_t)wait * 1000);
		kill(pid, SIGKILL);
	}
	while ((n = read(out[0], reply + got, sizeof(reply) - got)) > 0)
		got += (size_t)n;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			die("waitpid");
	if (got >= sizeof(int)) {
		int v;

		memcpy(&v, reply, sizeof(v));
		printf("reply=0x%08x extra=%zu ", (unsigned)v, got - sizeof(v));
	} else {
		printf("reply=none extra=%zu ", got);
	}
	if (WIFEXITED(status))
		printf("status=exit:%d", WEXITSTATUS(status));
	else
		printf("status=signal:%d", WTERMSIG(status));
	printf(" ms=%lld\n", now_ms() - t0);
	return 0;
}
