/*
 * control: named, verifiable states for every privilege-relevant setting
 * (Owl's owl-control, for Debian).  See control(8) and control-facility(5).
 *
 * Root only: it changes the privilege of programs.  It is run by root
 * from a shell, an image builder or apt's hook, never set-ID, so the
 * environment is not attacker-controlled; still, fds 0-2 are made valid
 * (a closed stdout must not turn into a written config file) and tools it
 * runs get a fixed environment (root.c).
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctl.h"
#include "owlet.h"

enum cmd { C_LIST, C_CHECK, C_AUDIT, C_DUMP, C_RESTORE, C_REAPPLY,
	C_DEFAULTS };

static int json, quiet;
static int lockfd = -1;	/* ROOT/etc/control.d/lock, held until exit */

static void __attribute__((noreturn))
usage(int status)
{
	fprintf(status ? stderr : stdout,
	    "usage: control [--root DIR] [--json]\n"
	    "       control [--root DIR] FACILITY [status|list|help|summary|STATE]\n"
	    "       control [--root DIR] --check [--json]\n"
	    "       control [--root DIR] --audit [--json]\n"
	    "       control [--root DIR] --dump [FACILITY...]\n"
	    "       control [--root DIR] --restore [FILE]\n"
	    "       control [--root DIR] --reapply [--quiet]\n"
	    "       control [--root DIR] --defaults [--quiet]\n");
	exit(status);
}

/*
 * A chroot is a root directory other than init's (an image build runs
 * dpkg, and with it the dpkg hook's --reapply, in one); when that cannot
 * be told (no /proc), it is assumed.  There the kernel is the build
 * host's: sysctl.c leaves /proc/sys alone but for the net.* keys of a
 * private network namespace (OWLET_PRIVATE_NETNS=1).
 */
static int
in_chroot(void)
{
	struct stat self, init;

	if (stat("/", &self) < 0 || stat("/proc/1/root/.", &init) < 0)
		return 1;
	return self.st_dev != init.st_dev || self.st_ino != init.st_ino;
}

/*
 * A container, told as systemd tells it (systemd-detect-virt --container,
 * the cheap part): systemd running in a container writes
 * /run/systemd/container, podman and buildah write /run/.containerenv
 * (a RUN step of an image build has no container= and no systemd), and
 * container managers put container= into the environment of process 1.
 * Not docker's /.dockerenv: some VMs carry a stray one at their root
 * (the developers' machines do), and a live system would lose its checks.
 * There the kernel's global settings are the host's: sysctl.c sets them
 * in files only and they are not checked.
 */
static int
in_container(void)
{
	char env[16384];
	ssize_t n;
	size_t i;
	int fd;

	if (access("/run/systemd/container", F_OK) == 0 ||
	    access("/run/.containerenv", F_OK) == 0)
		return 1;
	if ((fd = open("/proc/1/environ", O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = owlet_read_full(fd, env, sizeof(env) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	env[n] = '\0';
	for (i = 0; i < (size_t)n; i += strlen(env + i) + 1)
		if (strncmp(env + i, "container=", 10) == 0 && env[i + 10])
			return 1;
	return 0;
}

static void
open_root(struct ctl *c, const char *root)
{
	char self[PATH_MAX];
	const char *p;
	ssize_t n;

	c->root = root ? root : "";
	c->live = !root || strcmp(root, "/") == 0;
	c->chroot = c->live && in_chroot();
	/* Inside a chroot, the pid namespace's init may share the chroot's
	 * network namespace: whether that one is private cannot be seen from
	 * here.  image/chroot.sh says so when it made one. */
	c->netns = c->chroot && (p = getenv("OWLET_PRIVATE_NETNS")) &&
	    strcmp(p, "1") == 0;
	c->container = c->live && !c->chroot && in_container();
	if (root && strcmp(root, "/") == 0)
		c->root = "";
	c->rootfd = open(c->root[0] ? c->root : "/", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC);
	if (c->rootfd < 0)
		err(1, "%s", c->root[0] ? c->root : "/");
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		err(1, "/proc/self/exe");
	self[n] = '\0';
	snprintf(c->bindir, sizeof(c->bindir), "%s", dirname(self));
}

/* One switch at a time per root: ROOT/etc/control.d/lock. */
static void
lock_root(struct ctl *c)
{
	int dfd, fd;

	dfd = ctl_mkdirs(c, "etc/control.d", 0700);
	if (dfd < 0)
		err(1, "%s", ctl_path(c, "/etc/control.d"));
	if (lockfd >= 0)
		return;
	fd = openat(dfd, "lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	close(dfd);
	if (fd < 0 || flock(fd, LOCK_EX) < 0)
		err(1, "%s", ctl_path(c, "/etc/control.d/lock"));
	lockfd = fd;
}

static struct facility *
facility_or_die(struct ctl *c, const char *name)
{
	struct facility *f = find_facility(c, name);

	if (!f)
		errx(1, "No such facility: %s", name);
	if (!engine_available(c, f))
		errx(1, "%s: not installed here (%s is missing)", f->name,
		    ctl_path(c, f->requires));
	return f;
}

static void
print_states(const struct facility *f, const char *sep)
{
	int i;

	for (i = 0; i < f->nstate; i++)
		printf("%s%s", i ? sep : "", f->state[i].name);
}

static int
cmd_list(struct ctl *c)
{
	const char *st, *word;
	enum engine_note note;
	int i, j, err, first = 1, rc = 0;
	char chosen[FAC_NAME_MAX + 1];

	if (json)
		printf("[");
	for (i = 0; i < c->nfac; i++) {
		struct facility *f = &c->fac[i];
		if (f->same_as || !engine_available(c, f))
			continue;
		st = engine_show(c, f, &err, &note);
		word = engine_note_word(note);
		rc |= err;
		if (!json) {
			printf("%-15s %-15s (", f->name, st ? st : "unknown");
			print_states(f, " ");
			printf(")%s%s\n", word ? " " : "", word ? word : "");
			continue;
		}
		printf("%s\n  {\"facility\": ", first ? "" : ",");
		owlet_json_put(stdout, f->name);
		printf(", \"state\": ");
		owlet_json_put(stdout, st ? st : "unknown");
		printf(", \"default\": ");
		owlet_json_put(stdout, f->deflt);
		printf(", \"configured\": ");
		owlet_json_put(stdout, states_get(c, f->name, chosen,
		    sizeof(chosen)) == 1 ? chosen : NULL);
		printf(", \"states\": [");
		for (j = 0; j < f->nstate; j++) {
			printf("%s", j ? ", " : "");
			owlet_json_put(stdout, f->state[j].name);
		}
		printf("], \"note\": ");
		owlet_json_put(stdout, word);
		printf("}");
		first = 0;
	}
	if (json)
		printf("\n]\n");
	return rc;
}

static int
cmd_facility(struct ctl *c, int argc, char **argv)
{
	struct facility *f = facility_or_die(c, argv[0]);
	const char *arg = argc > 1 ? argv[1] : "status", *st;
	enum engine_note note;
	int i, err;

	if (argc > 2)
		usage(2);
	if (strcmp(arg, "status") == 0) {
		st = engine_show(c, f, &err, &note);
		printf("%s\n", st ? st : "unknown");
		if (note != NOTE_NONE)
			warnx("%s: %s", f->name, engine_note_text(note));
		return err;
	}
	if (strcmp(arg, "list") == 0) {
		print_states(f, " ");
		printf("\n");
		return 0;
	}
	if (strcmp(arg, "summary") == 0) {
		printf("%s\n", f->summary ? f->summary : f->name);
		return 0;
	}
	if (strcmp(arg, "help") == 0) {
		for (i = 0; i < f->nstate; i++)
			printf("%s: %s\n", f->state[i].name,
			    f->state[i].help ? f->state[i].help : "");
		return 0;
	}
	lock_root(c);
	return engine_set(c, f, facility_canonical(f, arg)) < 0;
}

/* Facilities whose recorded choice differs from what the system shows. */
static int
cmd_check(struct ctl *c, int reapply)
{
	char chosen[FAC_NAME_MAX + 1];
	enum engine_note note;
	const char *st;
	int i, err, drift = 0, first = 1, rc;

	if (reapply)
		lock_root(c);
	if (json && !reapply)
		printf("[");
	for (i = 0; i < c->nfac; i++) {
		struct facility *f = &c->fac[i];
		if (f->same_as)
			continue;
		if ((rc = states_get(c, f->name, chosen, sizeof(chosen))) <= 0) {
			drift |= rc < 0;
			continue;
		}
		/* A removed program has no privilege to check; its choice is
		 * kept and comes back if the package is installed again. */
		if (!engine_available(c, f))
			continue;
		/* A setting this kernel lacks, or the host's in a container,
		 * is no drift: nothing here can make it hold or break it. */
		note = engine_note(c, f, NULL);
		if (note == NOTE_UNAVAILABLE || note == NOTE_HOST)
			continue;
		st = engine_status(c, f, &err);
		if (err) {
			drift = 1;
			continue;
		}
		if (st && strcmp(st, chosen) == 0)
			continue;
		if (reapply) {
			if (!quiet)
				printf("%s: %s -> %s\n", f->name,
				    st ? st : "unknown", chosen);
			drift |= engine_set(c, f, chosen) < 0;
			continue;
		}
		drift = 1;
		if (!json) {
			printf("%s: configured %s, found %s\n", f->name, chosen,
			    st ? st : "unknown");
			continue;
		}
		printf("%s\n  {\"facility\": ", first ? "" : ",");
		owlet_json_put(stdout, f->name);
		printf(", \"configured\": ");
		owlet_json_put(stdout, chosen);
		printf(", \"found\": ");
		owlet_json_put(stdout, st ? st : "unknown");
		printf("}");
		first = 0;
	}
	if (json && !reapply)
		printf("%s]\n", first ? "" : "\n");
	return drift;
}

static int
cmd_dump(struct ctl *c, int argc, char **argv)
{
	const char *st;
	int i, err, rc = 0, first = 1;

	if (json)
		printf("{");
	for (i = 0; i < (argc ? argc : c->nfac); i++) {
		struct facility *f = argc ? facility_or_die(c, argv[i]) :
		    &c->fac[i];
		if (f->same_as || !engine_available(c, f))
			continue;
		st = engine_status(c, f, &err);
		rc |= err;
		if (st && json) {
			printf("%s\n  ", first ? "" : ",");
			owlet_json_put(stdout, f->name);
			printf(": ");
			owlet_json_put(stdout, st);
			first = 0;
		} else if (st)
			printf("%s %s\n", f->name, st);
		else if (argc)
			warnx("%s: state unknown, not dumped", f->name);
	}
	if (json)
		printf("%s}\n", first ? "" : "\n");
	return rc;
}

static int
cmd_restore(struct ctl *c, const char *file)
{
	struct owlet_lines *lr = malloc(sizeof(*lr));
	const char *name = file && strcmp(file, "-") ? file : "stdin";
	char *line, *state;
	size_t len;
	int fd, rc = 0, r;

	if (!lr)
		err(1, "out of memory");
	fd = file && strcmp(file, "-") ? open(file, O_RDONLY | O_CLOEXEC) : 0;
	if (fd < 0)
		err(1, "%s", file);
	lock_root(c);
	owlet_lines_init(lr, fd);
	while ((r = owlet_lines_next(lr, &line, &len)) > 0) {
		struct facility *f;
		if (!line[0] || line[0] == '#')
			continue;
		state = strchr(line, ' ');
		if (state)
			*state++ = '\0';
		if (!state || !facility_name_ok(line) ||
		    !facility_name_ok(state)) {
			warnx("%s:%lu: expected \"FACILITY STATE\"", name,
			    lr->lineno);
			rc = 1;
			continue;
		}
		f = find_facility(c, line);
		if (!f || !engine_available(c, f)) {
			warnx("%s:%lu: %s: no such facility here", name,
			    lr->lineno, line);
			rc = 1;
			continue;
		}
		rc |= engine_set(c, f, facility_canonical(f, state)) < 0;
	}
	if (r < 0) {
		warnx("%s:%lu: line too long or NUL byte", name, lr->lineno);
		rc = 1;
	}
	free(lr);
	return rc;
}

static int
cmd_defaults(struct ctl *c)
{
	int i, rc = 0;

	lock_root(c);
	for (i = 0; i < c->nfac; i++) {
		struct facility *f = &c->fac[i];
		if (f->same_as || !f->deflt)
			continue;
		/* A program not installed yet gets its choice recorded: the
		 * dpkg hook's --reapply switches it when a package brings it,
		 * so the profile holds for what is installed later. */
		if (!engine_available(c, f)) {
			if (states_set(c, f->name, f->deflt) < 0) {
				undo_rollback(c);
				rc = 1;
			} else
				undo_forget(c);
			continue;
		}
		if (engine_set(c, f, f->deflt) < 0)
			rc = 1;
		else if (!quiet)
			printf("%s %s\n", f->name, f->deflt);
	}
	return rc;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "check", no_argument, NULL, C_CHECK + 256 },
		{ "audit", no_argument, NULL, C_AUDIT + 256 },
		{ "dump", no_argument, NULL, C_DUMP + 256 },
		{ "restore", no_argument, NULL, C_RESTORE + 256 },
		{ "reapply", no_argument, NULL, C_REAPPLY + 256 },
		{ "defaults", no_argument, NULL, C_DEFAULTS + 256 },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct ctl c = { 0 };
	const char *root = NULL;
	enum cmd cmd = C_LIST;
	int ch, load_rc, rc;

	if (owlet_start(OWLET_START_ROOT_TOOL, 022) < 0)
		err(1, "/dev/null");
	while ((ch = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		if (ch >= 256) {
			if (cmd != C_LIST)
				usage(2);
			cmd = (enum cmd)(ch - 256);
		} else if (ch == 'r')
			root = optarg;
		else if (ch == 'j')
			json = 1;
		else if (ch == 'q')
			quiet = 1;
		else if (ch == 'h')
			usage(0);
		else
			usage(2);
	}
	argc -= optind;
	argv += optind;
	if (getuid() != 0 || geteuid() != 0)
		errx(1, "only root can do this");
	open_root(&c, root);
	load_rc = load_facilities(&c);
	/* Nothing to list, check or set (load_facilities said why): stop
	 * before a command creates its lock and state under a wrong root.
	 * An audit still names every privileged file, each unknown. */
	if (c.nfac == 0 && cmd != C_AUDIT) {
		free(c.fac);
		close(c.rootfd);
		return 1;
	}
	switch (cmd) {
	case C_LIST:
		rc = argc ? cmd_facility(&c, argc, argv) : cmd_list(&c);
		break;
	case C_CHECK:
	case C_REAPPLY:
		if (argc)
			usage(2);
		rc = cmd_check(&c, cmd == C_REAPPLY);
		break;
	case C_AUDIT:
		if (argc)
			usage(2);
		rc = audit_run(&c, json);
		break;
	case C_DUMP:
		rc = cmd_dump(&c, argc, argv);
		break;
	case C_RESTORE:
		if (argc > 1)
			usage(2);
		rc = cmd_restore(&c, argc ? argv[0] : NULL);
		break;
	case C_DEFAULTS:
		if (argc)
			usage(2);
		rc = cmd_defaults(&c);
		break;
	default:
		usage(2);
	}
	for (ch = 0; ch < c.nfac; ch++)
		facility_free(&c.fac[ch]);
	free(c.fac);
	undo_forget(&c);
	close(c.rootfd);
	if (fflush(stdout) == EOF || ferror(stdout))
		err(1, "stdout");
	/* A facility file that failed to load was named on stderr; a
	 * whole-system command still did what it could, but its status
	 * says the picture is incomplete.  One facility's command is not
	 * affected by another's broken file. */
	if (cmd == C_LIST && argc)
		load_rc = 0;
	return rc || load_rc < 0 ? 1 : 0;
}
