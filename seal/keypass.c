/*
 * Passphrases for secret keys.  Never from argv or the environment (both
 * are readable by other users through /proc); from the terminal with echo
 * off, or, for scripts and tests, from a descriptor named by SEAL_PASSFD.
 * Every copy is wiped by its owner; a signal while echo is off restores
 * the terminal before the default action runs.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "owlet.h"
#include "sigio.h"

static volatile sig_atomic_t got_signal;

static void
on_signal(int sig)
{
	got_signal = sig;
}

/* One line from FD, byte by byte (nothing after the LF is consumed).
 * Returns the length, -1 on error, -2 if too long. */
static int
read_line(int fd, char buf[SIG_PASS_MAX])
{
	size_t len = 0;
	ssize_t n;
	char c;

	for (;;) {
		n = read(fd, &c, 1);
		if (n < 0 && errno == EINTR && !got_signal)
			continue;
		if (n < 0)
			return -1;
		if (n == 0 || c == '\n')
			break;
		if (len == SIG_PASS_MAX - 1) {
			/* Drain the rest of the line so it is not echoed
			 * as a command; then refuse. */
			while ((n = read(fd, &c, 1)) == 1 && c != '\n')
				;
			explicit_bzero(&c, 1);
			return -2;
		}
		buf[len++] = c;
	}
	explicit_bzero(&c, 1);
	if (len > 0 && buf[len - 1] == '\r')	/* as minisign's trim */
		len--;
	buf[len] = '\0';
	return (int)len;
}

static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP,
    SIGTTIN, SIGTTOU };

static int
tty_read(int fd, const char *prompt, char buf[SIG_PASS_MAX])
{
	struct sigaction sa, old[sizeof(sigs) / sizeof(sigs[0])];
	struct termios term, quiet;
	size_t i;
	int n, e, have_term;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: read returns */
	sigemptyset(&sa.sa_mask);
	got_signal = 0;
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, &old[i]);
	have_term = tcgetattr(fd, &term) == 0;
	if (have_term) {
		quiet = term;
		quiet.c_lflag &= ~(tcflag_t)(ECHO | ECHONL);
		quiet.c_lflag |= ICANON;
		tcsetattr(fd, TCSAFLUSH, &quiet);
	}
	(void)owlet_write_full(fd, prompt, strlen(prompt));
	n = read_line(fd, buf);
	e = errno;
	(void)owlet_write_full(fd, "\n", 1);
	if (have_term)
		tcsetattr(fd, TCSAFLUSH, &term);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &old[i], NULL);
	if (got_signal) {
		explicit_bzero(buf, SIG_PASS_MAX);
		raise(got_signal);
		n = -1;
		e = EINTR;
	}
	errno = e;
	return n;
}

int
sig_passphrase(char buf[SIG_PASS_MAX], const char *prompt, int confirm)
{
	const char *env = getenv("SEAL_PASSFD");
	char again[SIG_PASS_MAX];
	uint64_t fd;
	int n, m;

	if (env) {
		if (owlet_num(env, 0, 1 << 20, 0, &fd) < 0) {
			warnx("SEAL_PASSFD: not a file descriptor number: %s",
			    env);
			return -1;
		}
		n = read_line((int)fd, buf);
		if (n == -1)
			warn("SEAL_PASSFD: cannot read the passphrase");
	} else {
		int tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);

		if (tty < 0) {
			warnx("no terminal to read a passphrase from "
			    "(set SEAL_PASSFD to a descriptor number)");
			return -1;
		}
		n = tty_read(tty, prompt, buf);
		if (n >= 0 && confirm) {
			m = tty_read(tty, "Passphrase (again): ", again);
			if (m != n || memcmp(buf, again, (size_t)n) != 0) {
				if (m >= 0)
					warnx("passphrases do not match");
				n = -3;
			}
			explicit_bzero(again, sizeof(again));
		}
		close(tty);
		if (n == -1)
			warn("/dev/tty: cannot read the passphrase");
	}
	if (n == -2)
		warnx("passphrase too long (at most %d bytes)",
		    SIG_PASS_MAX - 1);
	if (n < 0) {
		explicit_bzero(buf, SIG_PASS_MAX);
		return -1;
	}
	return n;
}
