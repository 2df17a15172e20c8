/*
 * chage: show or change a user's password aging on a tcb system.
 *
 * Debian's chage (shadow 4.13, built without tcb) cannot read
 * /etc/tcb/USER/shadow; this one has its command line and its -l output,
 * minus the interactive mode and -R.
 *
 * Installed root:shadow 2711: set-gid shadow, never set-uid.  Threat model
 * for that case: the caller is any local user and controls our fds,
 * environment, argv, rlimits and signals.  Group shadow only lets a process
 * look up a known name under /etc/tcb; the file itself is read by
 * ownership.  So a non-root caller gets exactly one thing: -l for the
 * account whose name is their real uid's passwd name.  The entry is read
 * through getspnam (libnss_tcb), the hash is wiped at once, and the group is
 * given up for good (and the drop verified) before anything is printed.
 * Changes need real and effective uid 0; they rewrite the one entry through
 * common/shadowedit.c, the code pam_tcb uses for passwords: as the user,
 * under the user's lock, by atomic replacement, every other byte kept.
 *
 * Exit status as Debian's chage: 0 success, 1 permission denied or any
 * failure, 2 bad syntax, 15 no shadow file to change.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <pwd.h>
#include <shadow.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "owlet.h"
#include "shadowlock.h"
#include "tcb.h"

#define PROG		"chage"
#define E_SUCCESS	0
#define E_NOPERM	1
#define E_USAGE		2
#define E_SHADOW_NOTFOUND	15
#define SCALE		(24L * 3600L)	/* seconds per aging unit (a day) */

/* The six aging fields, in shadow(5) order (fields 3 to 8). */
enum { F_LSTCHG, F_MIN, F_MAX, F_WARN, F_INACT, F_EXPIRE, F_N };

struct req {
	int list, iso;
	int set[F_N];		/* given on the command line */
	long val[F_N];		/* -1: empty field */
	const char *name;
};

static void
sanitize(void)
{
	/* Nothing from the caller's environment is used: no locale (dates
	 * and messages are the C locale's), no TZ (dates are UTC days);
	 * fds, umask and signals as common/setid.c says. */
	if (owlet_start(0, 077) < 0)
		_exit(E_NOPERM);
	openlog(PROG, LOG_PID, LOG_AUTH);
}

/* Give up the set-gid group for good and prove it. */
static void
drop_group(void)
{
	if (owlet_drop_group() < 0) {
		fprintf(stderr, "%s: failed to drop privileges\n", PROG);
		_exit(E_NOPERM);
	}
}

static void
usage(int status)
{
	FILE *f = status == E_SUCCESS ? stdout : stderr;

	fprintf(f, "Usage: %s [options] LOGIN\n\nOptions:\n", PROG);
	fputs("  -d, --lastday LAST_DAY        set date of last password change to LAST_DAY\n"
	    "  -E, --expiredate EXPIRE_DATE  set account expiration date to EXPIRE_DATE\n"
	    "  -h, --help                    display this help message and exit\n"
	    "  -i, --iso8601                 use YYYY-MM-DD when printing dates\n"
	    "  -I, --inactive INACTIVE       set password inactive after expiration\n"
	    "                                to INACTIVE\n"
	    "  -l, --list                    show account aging information\n"
	    "  -m, --mindays MIN_DAYS        set minimum number of days before password\n"
	    "                                change to MIN_DAYS\n"
	    "  -M, --maxdays MAX_DAYS        set maximum number of days before password\n"
	    "                                change to MAX_DAYS\n"
	    "  -W, --warndays WARN_DAYS      set expiration warning days to WARN_DAYS\n"
	    "\n", f);
	exit(status);
}

/*
 * A day count or number of days: "-1" (clear the field) or decimal digits
 * without a leading zero, at most INT_MAX (what glibc and owlet accept in
 * shadow(5)).  Debian's chage takes strtol base 0 ("010" is 8, "0x10" 16);
 * those forms are refused rather than read differently.
 */
static int
parse_days(const char *s, long *v)
{
	uint64_t n;

	if (strcmp(s, "-1") == 0) {
		*v = -1;
		return 0;
	}
	if (owlet_num(s, 0, INT_MAX, OWLET_NUM_NOZERO, &n) < 0)
		return -1;
	*v = (long)n;
	return 0;
}

/* Digits only, MIN..MAX of them; the value in *v. */
static const char *
digits(const char *s, size_t min, size_t max, int *v)
{
	size_t n = 0;

	*v = 0;
	while (s[n] >= '0' && s[n] <= '9' && n < max)
		*v = *v * 10 + (s[n++] - '0');
	return n < min ? NULL : s + n;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant). */
static long
days_from_civil(long y, int m, int d)
{
	long era, yoe, doy, doe;

	y -= m <= 2;
	era = y / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/*
 * A date for -d and -E: empty or "-1" (clear), a day number as above, or
 * YYYY-MM-DD from 1970-01-01 on (Debian's get_date() knows many more
 * forms; this one means the same day there).
 */
static int
parse_date(const char *s, long *v)
{
	static const int mdays[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31,
	    30, 31 };
	const char *p;
	int y, m, d, leap;

	if (*s == '\0') {
		*v = -1;
		return 0;
	}
	if (parse_days(s, v) == 0)
		return 0;
	if (!(p = digits(s, 4, 4, &y)) || *p++ != '-' ||
	    !(p = digits(p, 1, 2, &m)) || *p++ != '-' ||
	    !(p = digits(p, 1, 2, &d)) || *p != '\0')
		return -1;
	if (y < 1970 || m < 1 || m > 12 || d < 1)
		return -1;
	leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	if (d > mdays[m - 1] + (m == 2 && leap))
		return -1;
	*v = days_from_civil(y, m, d);
	return 0;
}

static void
parse_args(int argc, char **argv, struct req *r)
{
	static const struct option longopts[] = {
		{ "lastday", required_argument, NULL, 'd' },
		{ "expiredate", required_argument, NULL, 'E' },
		{ "help", no_argument, NULL, 'h' },
		{ "inactive", required_argument, NULL, 'I' },
		{ "list", no_argument, NULL, 'l' },
		{ "mindays", required_argument, NULL, 'm' },
		{ "maxdays", required_argument, NULL, 'M' },
		{ "warndays", required_argument, NULL, 'W' },
		{ "iso8601", no_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 }
	};
	int c, f, i, date;

	while ((c = getopt_long(argc, argv, "d:E:hiI:lm:M:W:", longopts,
	    NULL)) != -1) {
		date = 0;
		switch (c) {
		case 'd': f = F_LSTCHG; date = 1; break;
		case 'E': f = F_EXPIRE; date = 1; break;
		case 'I': f = F_INACT; break;
		case 'm': f = F_MIN; break;
		case 'M': f = F_MAX; break;
		case 'W': f = F_WARN; break;
		case 'h': usage(E_SUCCESS); continue;
		case 'i': r->iso = 1; continue;
		case 'l': r->list = 1; continue;
		default: usage(E_USAGE); continue;
		}
		if ((date ? parse_date : parse_days)(optarg, &r->val[f]) < 0) {
			fprintf(stderr, date ? "%s: invalid date '%s'\n" :
			    "%s: invalid numeric argument '%s'\n", PROG,
			    optarg);
			usage(E_USAGE);
		}
		r->set[f] = 1;
	}
	if (argc != optind + 1)
		usage(E_USAGE);
	r->name = argv[optind];
	for (i = 0; i < F_N; i++)
		if (r->list && r->set[i]) {
			fprintf(stderr, "%s: do not include \"l\" with other "
			    "flags\n", PROG);
			usage(E_USAGE);
		}
}

static int
changes(const struct req *r)
{
	int i;

	for (i = 0; i < F_N; i++)
		if (r->set[i])
			return 1;
	return 0;
}

static _Noreturn void
denied(void)
{
	fprintf(stderr, "%s: Permission denied.\n", PROG);
	exit(E_NOPERM);
}

/* --- -l ----------------------------------------------------------------- */

static void
print_date(long day, int iso)
{
	time_t t = (time_t)day * SCALE;
	struct tm tm;
	char buf[80];

	if (!gmtime_r(&t, &tm)) {
		printf("time_t: %lu\n", (unsigned long)t);
		return;
	}
	strftime(buf, sizeof(buf), iso ? "%Y-%m-%d" : "%b %d, %Y", &tm);
	puts(buf);
}

/* Debian's list_fields(), condition for condition. */
static void
list_fields(const long v[F_N], int iso)
{
	long lstchg = v[F_LSTCHG], max = v[F_MAX], inact = v[F_INACT],
	    exp = v[F_EXPIRE], changed = 0;

	fputs("Last password change\t\t\t\t\t: ", stdout);
	if (lstchg < 0 || lstchg > LONG_MAX / SCALE) {
		puts("never");
	} else if (lstchg == 0) {
		puts("password must be changed");
	} else {
		changed = lstchg * SCALE;
		print_date(lstchg, iso);
	}

	fputs("Password expires\t\t\t\t\t: ", stdout);
	if (lstchg == 0)
		puts("password must be changed");
	else if (lstchg < 0 || max >= 10000 || max < 0 ||
	    (LONG_MAX - changed) / SCALE < max)
		puts("never");
	else
		print_date(lstchg + max, iso);

	fputs("Password inactive\t\t\t\t\t: ", stdout);
	if (lstchg == 0)
		puts("password must be changed");
	else if (lstchg < 0 || inact < 0 || max >= 10000 || max < 0 ||
	    max > LONG_MAX - inact ||
	    (LONG_MAX - changed) / SCALE < max + inact)
		puts("never");
	else
		print_date(lstchg + max + inact, iso);

	fputs("Account expires\t\t\t\t\t\t: ", stdout);
	if (exp < 0 || LONG_MAX / SCALE < exp)
		puts("never");
	else
		print_date(exp, iso);

	printf("Minimum number of days between password change\t\t: %ld\n",
	    v[F_MIN]);
	printf("Maximum number of days between password change\t\t: %ld\n",
	    max);
	printf("Number of days of warning before password expires\t: %ld\n",
	    v[F_WARN]);
}

static int
list(const struct req *r)
{
	struct spwd *sp;
	long v[F_N];
	int e;

	errno = 0;
	sp = getspnam(r->name);
	e = errno;
	if (sp) {
		v[F_LSTCHG] = sp->sp_lstchg;
		v[F_MIN] = sp->sp_min;
		v[F_MAX] = sp->sp_max;
		v[F_WARN] = sp->sp_warn;
		v[F_INACT] = sp->sp_inact;
		v[F_EXPIRE] = sp->sp_expire;
		explicit_bzero(sp->sp_pwdp, strlen(sp->sp_pwdp));
	}
	endspent();
	/* Done with group shadow: nothing below needs it, and a caller
	 * who stops or traces us from here on finds an ordinary process. */
	drop_group();
	if (!sp) {
		if (e == EACCES || e == EPERM)
			fprintf(stderr, "%s: cannot read the shadow entry of "
			    "user '%s': %s\n", PROG, r->name, strerror(e));
		else
			fprintf(stderr, "%s: cannot read the shadow entry of "
			    "user '%s'\n", PROG, r->name);
		return E_NOPERM;
	}
	list_fields(v, r->iso);
	if (fflush(stdout) == EOF || ferror(stdout)) {
		fprintf(stderr, "%s: cannot write the aging information: %s\n",
		    PROG, strerror(errno));
		return E_NOPERM;
	}
	return E_SUCCESS;
}

/* --- changes (root) ----------------------------------------------------- */

static void
block_signals(void)
{
	sigset_t set;

	/* Between the temp file's creation and the rename, a signal would
	 * leave debris in the user's directory; nothing here takes long. */
	sigemptyset(&set);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGQUIT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGTSTP);
	sigaddset(&set, SIGTTIN);
	sigaddset(&set, SIGTTOU);
	sigaddset(&set, SIGALRM);
	sigprocmask(SIG_BLOCK, &set, NULL);
}

/* Is there a tcb directory for NAME?  1 yes, 0 no, -1 error (printed). */
static int
has_tcb(const char *name)
{
	char path[sizeof(TCB_DIR) + OWLET_NAME_MAX + 2];
	struct stat st;

	snprintf(path, sizeof(path), TCB_DIR "/%s", name);
	if (stat(path, &st) == 0)
		return 1;
	if (errno == ENOENT || errno == ENOTDIR)
		return 0;
	fprintf(stderr, "%s: cannot access %s: %s\n", PROG, path,
	    strerror(errno));
	return -1;
}

static int
change(const struct req *r, const struct passwd *pw)
{
	struct owlet_edit ed;
	struct owlet_edit_status st;
	char num[F_N][24], file[sizeof(TCB_DIR) + OWLET_NAME_MAX + 16];
	int i, tcb, rc;

	memset(&ed, 0, sizeof(ed));
	for (i = 0; i < F_N; i++) {
		if (!r->set[i])
			continue;
		if (r->val[i] == -1)
			num[i][0] = '\0';
		else
			snprintf(num[i], sizeof(num[i]), "%ld", r->val[i]);
		ed.field[2 + i] = num[i];
	}
	tcb = has_tcb(r->name);
	if (tcb < 0)
		return E_NOPERM;
	if (tcb) {
		snprintf(file, sizeof(file), TCB_FMT, r->name);
		ed.flags = OWLET_EDIT_ONE_LINE | OWLET_EDIT_SHADOW_LINE;
	} else {
		snprintf(file, sizeof(file), "/etc/shadow");
		ed.flags = OWLET_EDIT_SHADOW_LINE;
		if (access(file, F_OK) < 0) {
			fprintf(stderr, "%s: the shadow password file is not "
			    "present\n", PROG);
			return E_SHADOW_NOTFOUND;
		}
	}
	block_signals();
	rc = tcb ? owlet_edit_tcb(r->name, pw->pw_uid, &ed, &st) :
	    owlet_edit_etc("shadow", r->name, &ed, &st);
	if (rc == 0) {
		syslog(LOG_INFO, "changed password expiry for %s", r->name);
		return E_SUCCESS;
	}
	switch (st.failed) {
	case OWLET_EDIT_DONE:
		break;
	case OWLET_EDIT_NOMEM:
	case OWLET_EDIT_NOTROOT:
	case OWLET_EDIT_DROP:
		fprintf(stderr, "%s: cannot take the identity of user '%s' "
		    "for %s: %s\n", PROG, r->name, file, strerror(st.err));
		break;
	case OWLET_EDIT_OPEN:
		fprintf(stderr, "%s: cannot open the directory of %s: %s\n",
		    PROG, file, strerror(st.err));
		break;
	case OWLET_EDIT_LOCK:
		fprintf(stderr, "%s: cannot lock %s; try again later.\n", PROG,
		    tcb ? file : "/etc/.pwd.lock");
		break;
	case OWLET_EDIT_WRITE:
		if (st.err == ENOENT)
			fprintf(stderr, "%s: user '%s' has no entry in %s\n",
			    PROG, r->name, file);
		else if (st.err == EINVAL)
			fprintf(stderr, "%s: %s: malformed or suspicious "
			    "entry or file for user '%s'; not changed\n", PROG,
			    file, r->name);
		else
			fprintf(stderr, "%s: failure while writing changes to "
			    "%s: %s\n", PROG, file, strerror(st.err));
		break;
	}
	if (st.regain_err)
		fprintf(stderr, "%s: cannot regain privileges: %s\n", PROG,
		    strerror(st.regain_err));
	syslog(LOG_ERR, "failed to change password expiry for %s", r->name);
	return E_NOPERM;
}

int
main(int argc, char **argv)
{
	struct req r;
	struct passwd *pw;
	uid_t ruid = getuid();
	int amroot = ruid == 0;

	sanitize();
	if (argc < 1)
		return E_USAGE;
	memset(&r, 0, sizeof(r));
	parse_args(argc, argv, &r);

	/* As Debian: only root changes anything, before any lookup. */
	if (!amroot && !r.list)
		denied();
	if (!r.list && !changes(&r)) {
		fprintf(stderr, "%s: no changes requested: give -l or one of "
		    "-d, -E, -I, -m, -M, -W (there is no interactive mode)\n",
		    PROG);
		return E_USAGE;
	}
	if (!r.list && geteuid() != 0)
		denied();

	if (!amroot) {
		/* The caller's own account, by name: another name with the
		 * same uid is somebody else's entry. */
		pw = getpwuid(ruid);
		if (!pw) {
			fprintf(stderr, "%s: Cannot determine your user name.\n",
			    PROG);
			drop_group();
			return E_NOPERM;
		}
		if (strcmp(pw->pw_name, r.name) != 0) {
			drop_group();
			denied();
		}
	}
	pw = owlet_name_ok(r.name) ? getpwnam(r.name) : NULL;
	if (!pw) {
		drop_group();
		fprintf(stderr, "%s: user '%s' does not exist in /etc/passwd\n",
		    PROG, r.name);
		return E_NOPERM;
	}
	if (!amroot && pw->pw_uid != ruid) {
		drop_group();
		denied();
	}
	if (r.list)
		return list(&r);
	return change(&r, pw);
}
