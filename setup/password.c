/*
 * A new password, through passwdqc with the system's own policy
 * (/etc/passwdqc.conf of the root, else passwdqc's defaults), as Owl's
 * installer did: a random passphrase is offered, a weak password is
 * refused with passwdqc's reason, and it is hashed with yescrypt.
 *
 * Secrets live in fixed buffers on this stack frame only and are wiped
 * with explicit_bzero on every path out; they are never printed (the
 * offered passphrase is printed before it could become a password, and
 * is wiped too).
 */
#include <crypt.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <passwdqc.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "owlet.h"
#include "setup.h"

#define TRIES	3

/* One line from FD into BUF, echo off on a terminal.  1 read, 0 EOF,
 * -1 too long or error. */
static int
read_secret(int fd, const char *prompt, char *buf, size_t len)
{
	struct termios old, quiet;
	int tty = isatty(fd), rc = 1;
	size_t n = 0;
	char ch;
	ssize_t r;

	/* Echo goes off (and type-ahead is discarded) before the prompt
	 * shows: what is typed after it is never echoed, however fast. */
	if (tty) {
		if (tcgetattr(fd, &old) < 0)
			return -1;
		quiet = old;
		quiet.c_lflag &= ~(tcflag_t)(ECHO | ECHONL);
		if (tcsetattr(fd, TCSAFLUSH, &quiet) < 0)
			return -1;
		fprintf(stderr, "%s", prompt);
	}
	/* byte by byte: nothing after the newline is consumed, so a second
	 * password on the next line stays for the next call */
	for (;;) {
		r = read(fd, &ch, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			rc = r < 0 ? -1 : n ? 1 : 0;
			break;
		}
		if (ch == '\n')
			break;
		if (n + 1 >= len) {
			rc = -1;
			errno = E2BIG;
			break;
		}
		buf[n++] = ch;
	}
	buf[n] = '\0';
	ch = 0;
	if (tty) {
		tcsetattr(fd, TCSAFLUSH, &old);
		fputc('\n', stderr);
	}
	return rc;
}

static int
load_policy(struct setup *s, passwdqc_params_t *p)
{
	char *reason = NULL;
	const char *conf = setup_path(s, "/etc/passwdqc.conf");

	passwdqc_params_reset(p);
	if (access(conf, F_OK) < 0)
		return 0;	/* passwdqc's built-in defaults */
	if (passwdqc_params_load(p, &reason, conf) < 0) {
		warnx("%s: %s", conf, reason ? reason : "cannot load");
		free(reason);
		return -1;
	}
	return 0;
}

static int
hash_password(const char *pass, char *hash, size_t hashlen)
{
	char salt[CRYPT_GENSALT_OUTPUT_SIZE];
	struct crypt_data *cd;
	int rc = -1;

	cd = calloc(1, sizeof(*cd));
	if (!cd)
		return -1;
	if (crypt_gensalt_rn("$y$", 0, NULL, 0, salt, sizeof(salt)) &&
	    crypt_rn(pass, salt, cd, sizeof(*cd)) && cd->output[0] != '*' &&
	    strlen(cd->output) < hashlen) {
		memcpy(hash, cd->output, strlen(cd->output) + 1);
		rc = 0;
	}
	explicit_bzero(cd, sizeof(*cd));
	free(cd);
	return rc;
}

int
password_new(struct setup *s, const char *user, char *hash, size_t hashlen)
{
	char pass[PASS_MAX], again[PASS_MAX];
	/* passwdqc compares the password with the name, GECOS and home */
	struct passwd pw = { .pw_name = (char *)user, .pw_passwd = "",
	    .pw_gecos = "", .pw_dir = "", .pw_shell = "" };
	passwdqc_params_t params;
	const char *why;
	char *offer;
	int fd = s->use_stdin ? 0 : open("/dev/tty", O_RDWR | O_CLOEXEC);
	int i, rc = -1, r;

	if (fd < 0) {
		warn("/dev/tty (use --stdin to read passwords from stdin)");
		return -1;
	}
	if (load_policy(s, &params) < 0)
		goto out;
	if (!s->use_stdin && (offer = passwdqc_random(&params.qc))) {
		fprintf(stderr, "A random passphrase you may use: %s\n", offer);
		explicit_bzero(offer, strlen(offer));
		free(offer);
	}
	for (i = 0; i < TRIES; i++) {
		r = read_secret(fd, "New password: ", pass, sizeof(pass));
		if (r <= 0) {
			warnx("%s", r == 0 ? "no password given" :
			    "password too long or unreadable");
			break;
		}
		if ((why = passwdqc_check(&params.qc, pass, NULL, &pw))) {
			warnx("weak password for %s: %s", user, why);
			if (s->use_stdin)
				break;
			continue;
		}
		if (!s->use_stdin) {
			r = read_secret(fd, "Again: ", again, sizeof(again));
			if (r <= 0 || strcmp(pass, again) != 0) {
				warnx("the passwords differ");
				continue;
			}
		}
		if (!hash)
			rc = 0;
		else if (hash_password(pass, hash, hashlen) < 0)
			warnx("cannot hash the password (libxcrypt)");
		else
			rc = 0;
		break;
	}
out:
	explicit_bzero(pass, sizeof(pass));
	explicit_bzero(again, sizeof(again));
	passwdqc_params_free(&params);
	if (fd > 0)
		close(fd);
	return rc;
}
