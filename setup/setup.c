/*
 * owlet-setup: the owlet system's first-login settings and its
 * administrator accounts (see owlet-setup(8)).
 *
 *   owlet-setup [--root DIR] [--stdin] root-password [--if-unset]
 *   owlet-setup [--root DIR] [--stdin] admin add NAME [--key FILE] [--password]
 *   owlet-setup [--root DIR] admin del NAME
 *   owlet-setup [--root DIR] admin list
 *   owlet-setup [--root DIR] check
 *   owlet-setup [--root DIR] [--stdin] password-check USER
 *   owlet-setup install [--answers FILE] [--source DIR]
 */
#include <err.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "owlet.h"
#include "setup.h"

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr,
	    "usage: owlet-setup [--root DIR] [--stdin] root-password [--if-unset]\n"
	    "       owlet-setup [--root DIR] [--stdin] admin add NAME [--key FILE] [--password]\n"
	    "       owlet-setup [--root DIR] admin del NAME\n"
	    "       owlet-setup [--root DIR] admin list\n"
	    "       owlet-setup [--root DIR] check\n"
	    "       owlet-setup [--root DIR] [--stdin] password-check USER\n"
	    "       owlet-setup install [--answers FILE] [--source DIR]\n");
	exit(2);
}

const char *
setup_path(const struct setup *s, const char *path)
{
	return owlet_root_path(s->root, path);
}

static int
root_password(struct setup *s, int if_unset)
{
	char hash[HASH_MAX];
	int lock, rc = -1;

	/* the first-login hook: nothing to do once root has a password */
	if (if_unset && shadow_has_password(s, "root"))
		return 0;

	if ((lock = owlet_pwlock(s->etcfd)) < 0) {
		warn("cannot lock %s", setup_path(s, "/etc/.pwd.lock"));
		return -1;
	}
	if (password_new(s, "root", hash, sizeof(hash)) == 0 &&
	    shadow_set_hash(s, "root", 0, hash) == 0) {
		printf("root password set\n");
		rc = 0;
	}
	explicit_bzero(hash, sizeof(hash));
	close(lock);
	return rc;
}

static int
admin(struct setup *s, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "key", required_argument, NULL, 'k' },
		{ "password", no_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 }
	};
	const char *key = NULL;
	int ch, pass = 0;

	if (argc < 2)
		usage();
	if (strcmp(argv[1], "list") == 0 && argc == 2)
		return admin_list(s);
	if (argc < 3)
		usage();
	if (strcmp(argv[1], "del") == 0 && argc == 3)
		return admin_del(s, argv[2]);
	if (strcmp(argv[1], "add") != 0)
		usage();
	optind = 3;
	while ((ch = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		if (ch == 'k')
			key = optarg;
		else if (ch == 'p')
			pass = 1;
		else
			usage();
	}
	if (optind != argc)
		usage();
	return admin_add(s, argv[2], key, pass);
}

/* The installer is a script (owlet-install, docs/install.md) driving
 * sfdisk, mkfs and this program; it gets a known environment: PATH, the
 * locale and the terminal's type only. */
static void __attribute__((noreturn))
run_installer(struct setup *s, char **argv)
{
	char *env[4], term[64];
	const char *t = getenv("TERM");
	int n = 0;

	if (s->root[0] || s->use_stdin)
		usage();
	env[n++] = "PATH=/usr/sbin:/usr/bin:/sbin:/bin";
	env[n++] = "LC_ALL=C.UTF-8";
	if (t && strlen(t) < sizeof(term) - 5 && owlet_name_ok(t)) {
		snprintf(term, sizeof(term), "TERM=%s", t);
		env[n++] = term;
	}
	env[n] = NULL;
	argv[0] = INSTALLER;
	execve(INSTALLER, argv, env);
	err(1, "%s", INSTALLER);
}

/* On the console (owlet-root-password.service) systemd hangs the
 * terminal up as soon as we exit (TTYVHangup=yes), which discards what the
 * serial line has not sent yet: "root password set", or the error that
 * ended the run, was lost so under load.  At every exit, wait until the
 * terminal has sent it all. */
static void
drain_terminals(void)
{
	fflush(NULL);
	if (isatty(STDOUT_FILENO))
		tcdrain(STDOUT_FILENO);
	if (isatty(STDERR_FILENO))
		tcdrain(STDERR_FILENO);
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "stdin", no_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 }
	};
	struct setup s = { .root = "" };
	int ch, rc;

	umask(077);
	if (atexit(drain_terminals) != 0)
		errx(1, "atexit failed");
	while ((ch = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		if (ch == 'r')
			s.root = strcmp(optarg, "/") == 0 ? "" : optarg;
		else if (ch == 's')
			s.use_stdin = 1;
		else
			usage();
	}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		usage();
	if (getuid() != 0 || geteuid() != 0)
		errx(1, "only root can do this");
	s.rootfd = open(s.root[0] ? s.root : "/", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC);
	if (s.rootfd < 0 || (s.etcfd = owlet_open_dir(s.rootfd, "etc")) < 0)
		err(1, "%s", setup_path(&s, "/etc"));
	if (strcmp(argv[0], "install") == 0)
		run_installer(&s, argv);
	if (strcmp(argv[0], "root-password") == 0 && argc == 1)
		rc = root_password(&s, 0);
	else if (strcmp(argv[0], "root-password") == 0 && argc == 2 &&
	    strcmp(argv[1], "--if-unset") == 0)
		rc = root_password(&s, 1);
	else if (strcmp(argv[0], "admin") == 0)
		rc = admin(&s, argc, argv);
	else if (strcmp(argv[0], "check") == 0 && argc == 1)
		rc = check_accounts(&s);
	else if (strcmp(argv[0], "password-check") == 0 && argc == 2)
		rc = password_new(&s, argv[1], NULL, 0);
	else
		usage();
	if (fflush(stdout) == EOF)
		err(1, "stdout");
	return rc ? 1 : 0;
}
