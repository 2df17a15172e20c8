/*
 * hostile_exec: run a program the way a hostile local user would, for
 * tests/sys/privmatrix.t, and report how it ended.
 *
 *   hostile_exec [options] [--] PROG [ARG...]
 *
 * Run as the unprivileged user (after setpriv/runuser has exec'ed us, so
 * that no capability is left: PROG's execve is the user's own).  PROG
 * gets exactly the environment built from -E and -e (nothing of ours),
 * plus the junk of -X; its argv is PROG ARG... plus the junk of -A.
 *
 *   -E FILE     environment variables from FILE, one VAR=VALUE a line
 *   -e VAR=VAL  one more environment variable
 *   -A BYTES    append argv words ("AAAA...") of BYTES in all, or "max":
 *               up to 16 KiB below ARG_MAX (strings and pointers)
 *   -X BYTES    the same with environment variables PMJUNKn=EEEE...
 *   -c FDS      close these of fds 0, 1, 2 (e.g. "012") just before exec
 *   -i FILE     PROG's stdin is a pipe fed with FILE's bytes (then closed)
 *   -D MS       ... fed MS ms after the start (default 0)
 *   -f BYTES    RLIMIT_FSIZE (soft and hard)
 *   -n N        RLIMIT_NOFILE (soft and hard)
 *   -I SIG      PROG starts with SIG ignored (e.g. XFSZ)
 *   -s MS:SIG   send SIG (STOP CONT KILL TERM INT HUP QUIT XFSZ) at MS
 *               ms; repeatable
 *   -P MS       at MS ms stop PROG, try what a same-uid process could do
 *               to it (open /proc/PID/mem and environ, list /proc/PID/fd,
 *               ptrace attach), read its Gid: line, continue it (unless
 *               a -s STOP before had stopped it)
 *   -t SEC      kill PROG after SEC seconds (default 30): status=timeout
 *   -r FILE     the report goes to FILE (default: stdout)
 *
 * RLIMIT_CORE is raised to its hard limit in the child, so that a crash
 * that may dump core does.  The report is one line:
 *
 *   status=exit:N|signal:NAME|timeout core=0|1 ms=N argv=N env=N
 *       [peek=mem:E,environ:E,fd:E,ptrace:E gid=R/E/S/F]
 *
 * where E is "ok" or an errno name; or "exec=ERRNO" when PROG could not be
 * executed.  Exits 0 when it could report, 2 on its own errors.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAXENV		4096
#define MAXARG		4096
#define MAXEV		32
#define WORD		(100 * 1024)	/* below MAX_ARG_STRLEN (128 KiB) */
#define MARGIN		(16 * 1024)

struct ev {
	long ms;
	int sig;	/* 0: peek, -1: feed stdin */
};

static const struct { const char *name; int sig; } signames[] = {
	{ "STOP", SIGSTOP }, { "CONT", SIGCONT }, { "KILL", SIGKILL },
	{ "TERM", SIGTERM }, { "INT", SIGINT }, { "HUP", SIGHUP },
	{ "QUIT", SIGQUIT }, { "XFSZ", SIGXFSZ }, { "SEGV", SIGSEGV },
	{ "ABRT", SIGABRT }, { "PIPE", SIGPIPE }, { "BUS", SIGBUS },
	{ "USR1", SIGUSR1 }, { "ALRM", SIGALRM },
};

static char *env[MAXENV + 1], *args[MAXARG + 1];
static int nenv, nargs;
static char peekbuf[256], gidbuf[64];

static void
die(const char *what)
{
	fprintf(stderr, "hostile_exec: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void
usage(void)
{
	fprintf(stderr, "usage: hostile_exec [-E FILE] [-e VAR=VAL] [-A N|max] "
	    "[-X N|max] [-c FDS] [-i FILE] [-D MS] [-f BYTES] [-n N] "
	    "[-I SIG] [-s MS:SIG] [-P MS] [-t SEC] [-r FILE] PROG [ARG...]\n");
	exit(2);
}

static int
signum(const char *s)
{
	size_t i;

	for (i = 0; i < sizeof(signames) / sizeof(signames[0]); i++)
		if (strcmp(s, signames[i].name) == 0)
			return signames[i].sig;
	fprintf(stderr, "hostile_exec: unknown signal %s\n", s);
	exit(2);
}

static const char *
signame(int sig)
{
	size_t i;
	static char buf[16];

	for (i = 0; i < sizeof(signames) / sizeof(signames[0]); i++)
		if (signames[i].sig == sig)
			return signames[i].name;
	snprintf(buf, sizeof(buf), "%d", sig);
	return buf;
}

static void
addenv(char *s)
{
	if (nenv >= MAXENV) {
		fprintf(stderr, "hostile_exec: too many variables\n");
		exit(2);
	}
	env[nenv++] = s;
}

static void
addarg(char *s)
{
	if (nargs >= MAXARG) {
		fprintf(stderr, "hostile_exec: too many arguments\n");
		exit(2);
	}
	args[nargs++] = s;
}

static char *
read_all(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 4096, got = 0;
	char *buf = malloc(cap + 1);
	ssize_t n;

	if (fd < 0 || !buf)
		die(path);
	while ((n = read(fd, buf + got, cap - got)) > 0) {
		got += (size_t)n;
		if (got == cap) {
			cap *= 2;
			buf = realloc(buf, cap + 1);
			if (!buf)
				die("realloc");
		}
	}
	if (n < 0)
		die(path);
	close(fd);
	buf[got] = '\0';
	*len = got;
	return buf;
}

/* The environment's strings point into the files' buffers, kept here
 * (reachable) until exec. */
static char *envbufs[16];
static int nenvbufs;

static void
envfile(const char *path)
{
	size_t len;
	char *buf = read_all(path, &len), *p = buf, *nl;

	if (nenvbufs == (int)(sizeof(envbufs) / sizeof(envbufs[0])))
		die("too many environment files");
	envbufs[nenvbufs++] = buf;

	while (p < buf + len) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		if (*p)
			addenv(p);
		if (!nl)
			break;
		p = nl + 1;
	}
}

/* Bytes the kernel counts for ARGV and ENV: strings and pointers. */
static size_t
used(void)
{
	size_t n = (size_t)(nargs + nenv + 2) * sizeof(char *);
	int i;

	for (i = 0; i < nargs; i++)
		n += strlen(args[i]) + 1;
	for (i = 0; i < nenv; i++)
		n += strlen(env[i]) + 1;
	return n;
}

/* Add BYTES of junk (or up to ARG_MAX - MARGIN if BYTES is "max") as argv
 * words (ISENV 0) or variables; returns the bytes added. */
static size_t
junk(const char *spec, int isenv)
{
	long argmax = sysconf(_SC_ARG_MAX);
	size_t want, done = 0, w;
	int k = 0;

	if (strcmp(spec, "max") == 0) {
		size_t u = used();

		want = argmax > 0 && (size_t)argmax > u + MARGIN ?
		    (size_t)argmax - u - MARGIN : 0;
	} else {
		want = strtoul(spec, NULL, 10);
	}
	while (done + sizeof(char *) + 16 < want) {
		char *s;

		w = want - done - sizeof(char *) - 1;
		if (w > WORD)
			w = WORD;
		s = malloc(w + 1);
		if (!s)
			die("malloc");
		memset(s, isenv ? 'E' : 'A', w);
		s[w] = '\0';
		if (isenv) {
			int p = snprintf(s, w, "PMJUNK%d", k++);

			s[p] = '=';
			addenv(s);
		} else {
			addarg(s);
		}
		done += w + 1 + sizeof(char *);
	}
	return done;
}

static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static const char *
errname(int ok)
{
	return ok ? "ok" : strerrorname_np(errno) ? strerrorname_np(errno) :
	    "?";
}

/* What a process of the same user can get from PID, stopped meanwhile
 * (and left as it was: continued unless -s had stopped it). */
static void
peek(pid_t pid, int was_stopped)
{
	char path[64], line[256];
	const char *r_mem, *r_env, *r_fd, *r_pt;
	int fd, st;
	DIR *d;
	FILE *f;

	kill(pid, SIGSTOP);
	usleep(20000);
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	r_mem = errname(fd >= 0);
	if (fd >= 0)
		close(fd);
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		char c;

		/* Opening may work; reading is what is checked. */
		r_env = errname(read(fd, &c, 1) >= 0);
		close(fd);
	} else {
		r_env = errname(0);
	}
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	if (d) {
		r_fd = errname(readdir(d) != NULL);
		closedir(d);
	} else {
		r_fd = errname(0);
	}
	if (ptrace(PTRACE_ATTACH, pid, NULL, NULL) == 0) {
		r_pt = "ok";
		waitpid(pid, &st, __WALL);
		ptrace(PTRACE_DETACH, pid, NULL, NULL);
	} else {
		r_pt = errname(0);
	}
	snprintf(peekbuf, sizeof(peekbuf), "mem:%s,environ:%s,fd:%s,ptrace:%s",
	    r_mem, r_env, r_fd, r_pt);
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	snprintf(gidbuf, sizeof(gidbuf), "gone");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned r, e, s, fs;

		if (sscanf(line, "Gid: %u %u %u %u", &r, &e, &s, &fs) == 4)
			snprintf(gidbuf, sizeof(gidbuf), "%u/%u/%u/%u", r, e, s,
			    fs);
	}
	if (f)
		fclose(f);
	if (!was_stopped)
		kill(pid, SIGCONT);
}

int
main(int argc, char **argv)
{
	struct ev evs[MAXEV];
	int nev = 0, opt, i, status = 0, in[2] = { -1, -1 }, errp[2], e;
	int ignsig = 0, timeout_s = 30, rep = 1, feeding = 0;
	int stopped = 0;
	const char *closefds = "", *input = NULL, *asz = NULL, *xsz = NULL;
	long fsize = -1, nofile = -1, feed_ms = 0;
	size_t inlen = 0, fed = 0, argbytes = 0, envbytes = 0;
	static char *inbuf;	/* stdin to feed; kept (reachable) until exit */
	long long t0;
	pid_t pid;

	while ((opt = getopt(argc, argv, "+E:e:A:X:c:i:D:f:n:I:s:P:t:r:")) !=
	    -1) {
		switch (opt) {
		case 'E': envfile(optarg); break;
		case 'e': addenv(optarg); break;
		case 'A': asz = optarg; break;
		case 'X': xsz = optarg; break;
		case 'c': closefds = optarg; break;
		case 'i': input = optarg; break;
		case 'D': feed_ms = atol(optarg); break;
		case 'f': fsize = atol(optarg); break;
		case 'n': nofile = atol(optarg); break;
		case 'I': ignsig = signum(optarg); break;
		case 't': timeout_s = atoi(optarg); break;
		case 'r':
			rep = open(optarg, O_WRONLY | O_CREAT | O_TRUNC |
			    O_CLOEXEC, 0644);
			if (rep < 0)
				die(optarg);
			break;
		case 's':
		case 'P': {
			char *colon = strchr(optarg, ':');

			if (nev >= MAXEV || (opt == 's' && !colon))
				usage();
			evs[nev].ms = atol(optarg);
			evs[nev].sig = opt == 'P' ? 0 : signum(colon + 1);
			nev++;
			break;
		}
		default: usage();
		}
	}
	if (optind >= argc)
		usage();
	for (i = optind; i < argc; i++)
		addarg(argv[i]);
	if (xsz)
		envbytes = junk(xsz, 1);
	if (asz)
		argbytes = junk(asz, 0);
	env[nenv] = NULL;
	args[nargs] = NULL;
	if (input) {
		inbuf = read_all(input, &inlen);
		if (nev >= MAXEV)
			usage();
		evs[nev].ms = feed_ms;
		evs[nev].sig = -1;
		nev++;
		if (pipe2(in, O_CLOEXEC) < 0)
			die("pipe");
	}
	/* Events in time order (stable: -s given in order stay in order). */
	for (i = 1; i < nev; i++) {
		struct ev k = evs[i];
		int j = i - 1;

		while (j >= 0 && evs[j].ms > k.ms) {
			evs[j + 1] = evs[j];
			j--;
		}
		evs[j + 1] = k;
	}

	signal(SIGPIPE, SIG_IGN);
	if (pipe2(errp, O_CLOEXEC) < 0)
		die("pipe");
	t0 = now_ms();
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		struct rlimit rl;

		if (getrlimit(RLIMIT_CORE, &rl) == 0) {
			rl.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_CORE, &rl);
		}
		signal(SIGPIPE, SIG_DFL);
		if (ignsig)
			signal(ignsig, SIG_IGN);
		if (input && dup2(in[0], 0) < 0)
			_exit(127);
		if (fsize >= 0) {
			rl.rlim_cur = rl.rlim_max = (rlim_t)fsize;
			if (setrlimit(RLIMIT_FSIZE, &rl) < 0)
				_exit(127);
		}
		for (i = 0; closefds[i]; i++)
			if (closefds[i] >= '0' && closefds[i] <= '2')
				close(closefds[i] - '0');
		if (nofile >= 0) {
			rl.rlim_cur = rl.rlim_max = (rlim_t)nofile;
			if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
				_exit(127);
		}
		execve(args[0], args, env);
		e = errno;
		(void)!write(errp[1], &e, sizeof(e));
		_exit(127);
	}
	close(errp[1]);
	if (input)
		close(in[0]);
	if (read(errp[0], &e, sizeof(e)) == sizeof(e)) {
		waitpid(pid, &status, 0);
		dprintf(rep, "exec=%s\n", strerrorname_np(e));
		return 0;
	}
	close(errp[0]);
	if (input)
		fcntl(in[1], F_SETFL, O_NONBLOCK);

	for (i = 0;;) {
		long long t = now_ms() - t0;
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			die("waitpid");
		while (i < nev && evs[i].ms <= t) {
			if (evs[i].sig > 0) {
				kill(pid, evs[i].sig);
				if (evs[i].sig == SIGSTOP || evs[i].sig == SIGCONT)
					stopped = evs[i].sig == SIGSTOP;
			} else if (evs[i].sig == 0) {
				peek(pid, stopped);
			}
			else
				feeding = 1;
			i++;
		}
		/* Feed stdin while the pipe takes it; close when done. */
		if (feeding && in[1] >= 0) {
			ssize_t n = fed < inlen ?
			    write(in[1], inbuf + fed, inlen - fed) : 0;

			if (n > 0)
				fed += (size_t)n;
			if (fed >= inlen || (n < 0 && errno != EAGAIN)) {
				close(in[1]);
				in[1] = -1;
			}
		}
		if (t > timeout_s * 1000LL) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			dprintf(rep, "status=timeout core=0 ms=%lld argv=%zu "
			    "env=%zu\n", now_ms() - t0, argbytes, envbytes);
			return 0;
		}
		usleep(2000);
	}
	dprintf(rep, "status=");
	if (WIFEXITED(status))
		dprintf(rep, "exit:%d", WEXITSTATUS(status));
	else
		dprintf(rep, "signal:%s", signame(WTERMSIG(status)));
	dprintf(rep, " core=%d ms=%lld argv=%zu env=%zu",
	    WIFSIGNALED(status) && WCOREDUMP(status) ? 1 : 0, now_ms() - t0,
	    argbytes, envbytes);
	if (*peekbuf)
		dprintf(rep, " peek=%s gid=%s", peekbuf, gidbuf);
	dprintf(rep, "\n");
	return 0;
}
