/*
 * pam_confdir: drive real Linux-PAM with a scripted conversation, for the
 * pam_tcb tests.
 *
 *   pam_confdir [-c CONFDIR] [-s SERVICE] [-u USER] [-a ANSWER]...
 *               [-i ITEM=VALUE]... [-d] [-t] OP...
 *
 *   -c CONFDIR   pam_start_confdir() with this directory (default: /etc/pam.d)
 *   -s SERVICE   service name (default "owlet")
 *   -u USER      PAM_USER (default: none, modules ask for it)
 *   -a ANSWER    the answer to the next prompt (repeatable, used in order);
 *                a prompt with no answer left fails the conversation
 *                (PAM_CONV_ERR) and prints "prompt-unanswered"; the answer
 *                "@CONV_AGAIN@" makes the conversation return PAM_CONV_AGAIN
 *                (and prints "conv-again") instead of answering
 *   -i ITEM=VAL  pam_set_item before the first OP; ITEM is authtok,
 *                oldauthtok, ruser, rhost or tty
 *   -d           install a PAM_FAIL_DELAY function: libpam calls it instead
 *                of sleeping, and it prints "delay STATUS USEC"
 *   -t           an application with a timer: install a SIGALRM handler
 *                and arm ITIMER_REAL (1000 s, repeating) before the first
 *                OP; after the last, print "timer armed|disarmed handler
 *                kept|changed alarms N" (a module must leave both alone)
 *   OP           auth, setcred, acct, open, close, chauthtok, optionally
 *                followed by ":silent", ":expired" (PAM_CHANGE_EXPIRED_AUTHTOK)
 *                or ":disallow_null"; each prints "OP PAM_CODE_NAME"
 *
 * Every conversation message is printed as one line, "STYLE TEXT" with
 * STYLE one of echo_off, echo_on, error, info.  Exit status 0 when every
 * OP returned PAM_SUCCESS, else 1; 2 on usage errors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/time.h>
#include <unistd.h>
#include <security/pam_appl.h>

static char **answers;
static int nanswers, next_answer;

static const char *const codes[] = {
	[PAM_SUCCESS] = "PAM_SUCCESS",
	[PAM_OPEN_ERR] = "PAM_OPEN_ERR",
	[PAM_SYMBOL_ERR] = "PAM_SYMBOL_ERR",
	[PAM_SERVICE_ERR] = "PAM_SERVICE_ERR",
	[PAM_SYSTEM_ERR] = "PAM_SYSTEM_ERR",
	[PAM_BUF_ERR] = "PAM_BUF_ERR",
	[PAM_PERM_DENIED] = "PAM_PERM_DENIED",
	[PAM_AUTH_ERR] = "PAM_AUTH_ERR",
	[PAM_CRED_INSUFFICIENT] = "PAM_CRED_INSUFFICIENT",
	[PAM_AUTHINFO_UNAVAIL] = "PAM_AUTHINFO_UNAVAIL",
	[PAM_USER_UNKNOWN] = "PAM_USER_UNKNOWN",
	[PAM_MAXTRIES] = "PAM_MAXTRIES",
	[PAM_NEW_AUTHTOK_REQD] = "PAM_NEW_AUTHTOK_REQD",
	[PAM_ACCT_EXPIRED] = "PAM_ACCT_EXPIRED",
	[PAM_SESSION_ERR] = "PAM_SESSION_ERR",
	[PAM_CRED_UNAVAIL] = "PAM_CRED_UNAVAIL",
	[PAM_CRED_EXPIRED] = "PAM_CRED_EXPIRED",
	[PAM_CRED_ERR] = "PAM_CRED_ERR",
	[PAM_NO_MODULE_DATA] = "PAM_NO_MODULE_DATA",
	[PAM_CONV_ERR] = "PAM_CONV_ERR",
	[PAM_AUTHTOK_ERR] = "PAM_AUTHTOK_ERR",
	[PAM_AUTHTOK_RECOVERY_ERR] = "PAM_AUTHTOK_RECOVERY_ERR",
	[PAM_AUTHTOK_LOCK_BUSY] = "PAM_AUTHTOK_LOCK_BUSY",
	[PAM_AUTHTOK_DISABLE_AGING] = "PAM_AUTHTOK_DISABLE_AGING",
	[PAM_TRY_AGAIN] = "PAM_TRY_AGAIN",
	[PAM_IGNORE] = "PAM_IGNORE",
	[PAM_ABORT] = "PAM_ABORT",
	[PAM_AUTHTOK_EXPIRED] = "PAM_AUTHTOK_EXPIRED",
	[PAM_MODULE_UNKNOWN] = "PAM_MODULE_UNKNOWN",
	[PAM_BAD_ITEM] = "PAM_BAD_ITEM",
	[PAM_CONV_AGAIN] = "PAM_CONV_AGAIN",
	[PAM_INCOMPLETE] = "PAM_INCOMPLETE",
};

static void
print_code(const char *op, int rc)
{
	if (rc >= 0 && (size_t)rc < sizeof(codes) / sizeof(codes[0]) &&
	    codes[rc])
		printf("%s %s\n", op, codes[rc]);
	else
		printf("%s %d\n", op, rc);
	fflush(stdout);
}

/* One line per message; embedded newlines become "\n". */
static void
print_msg(const char *style, const char *text)
{
	const char *p;

	printf("%s ", style);
	for (p = text ? text : "(null)"; *p; p++) {
		if (*p == '\n')
			fputs("\\n", stdout);
		else
			putchar(*p);
	}
	putchar('\n');
	fflush(stdout);
}

static int
conv(int n, const struct pam_message **msg, struct pam_response **resp,
    void *data)
{
	struct pam_response *r;
	int i;

	if (n <= 0 || n > PAM_MAX_NUM_MSG)
		return PAM_CONV_ERR;
	r = calloc((size_t)n, sizeof(*r));
	if (!r)
		return PAM_BUF_ERR;
	for (i = 0; i < n; i++) {
		switch (msg[i]->msg_style) {
		case PAM_PROMPT_ECHO_OFF:
		case PAM_PROMPT_ECHO_ON:
			print_msg(msg[i]->msg_style == PAM_PROMPT_ECHO_OFF ?
			    "echo_off" : "echo_on", msg[i]->msg);
			if (next_answer >= nanswers) {
				puts("prompt-unanswered");
				goto fail;
			}
			if (strcmp(answers[next_answer], "@CONV_AGAIN@") == 0) {
				next_answer++;
				puts("conv-again");
				for (i = 0; i < n; i++)
					free(r[i].resp);
				free(r);
				fflush(stdout);
				return PAM_CONV_AGAIN;
			}
			r[i].resp = strdup(answers[next_answer++]);
			if (!r[i].resp)
				goto fail;
			break;
		case PAM_ERROR_MSG:
			print_msg("error", msg[i]->msg);
			break;
		case PAM_TEXT_INFO:
			print_msg("info", msg[i]->msg);
			break;
		default:
			print_msg("style?", msg[i]->msg);
			goto fail;
		}
	}
	*resp = r;
	return PAM_SUCCESS;
fail:
	for (i = 0; i < n; i++)
		free(r[i].resp);
	free(r);
	fflush(stdout);
	return PAM_CONV_ERR;
}

static void
delay_fn(int status, unsigned int usec, void *data)
{
	printf("delay %d %u\n", status, usec);
	fflush(stdout);
}

static int
item_code(const char *name)
{
	static const struct {
		const char *name;
		int item;
	} items[] = {
		{ "authtok", PAM_AUTHTOK }, { "oldauthtok", PAM_OLDAUTHTOK },
		{ "ruser", PAM_RUSER }, { "rhost", PAM_RHOST },
		{ "tty", PAM_TTY },
	};
	size_t i;

	for (i = 0; i < sizeof(items) / sizeof(items[0]); i++)
		if (strcmp(items[i].name, name) == 0)
			return items[i].item;
	return -1;
}

static volatile sig_atomic_t alarms;

static void
on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

#define TIMER_SEC	1000

/* -t: the application's own SIGALRM handler and interval timer. */
static int
timer_arm(void)
{
	struct sigaction sa;
	struct itimerval it = { { TIMER_SEC, 0 }, { TIMER_SEC, 0 } };

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, NULL) < 0 ||
	    setitimer(ITIMER_REAL, &it, NULL) < 0) {
		perror("pam_confdir: timer");
		return -1;
	}
	return 0;
}

/* Armed: the timer still runs with our interval (its value can only have
 * gone down from TIMER_SEC, never to 0 in a test's time). */
static void
timer_report(void)
{
	struct sigaction sa;
	struct itimerval it;
	int armed, kept;

	armed = getitimer(ITIMER_REAL, &it) == 0 &&
	    it.it_interval.tv_sec == TIMER_SEC &&
	    (it.it_value.tv_sec > 0 || it.it_value.tv_usec > 0);
	kept = sigaction(SIGALRM, NULL, &sa) == 0 &&
	    sa.sa_handler == on_alarm;
	printf("timer %s handler %s alarms %d\n", armed ? "armed" : "disarmed",
	    kept ? "kept" : "changed", (int)alarms);
}

static void
usage(void)
{
	fputs("usage: pam_confdir [-c CONFDIR] [-s SERVICE] [-u USER] "
	    "[-a ANSWER]... [-i ITEM=VALUE]... [-d] [-t] OP...\n", stderr);
	exit(2);
}

int
main(int argc, char **argv)
{
	struct pam_conv pc = { conv, NULL };
	const char *confdir = NULL, *service = "owlet", *user = NULL;
	char **items;
	int nitems = 0, delay = 0, timer = 0, c, i, rc, all_ok = 1;
	pam_handle_t *pamh = NULL;

	answers = calloc((size_t)argc, sizeof(*answers));
	items = calloc((size_t)argc, sizeof(*items));
	if (!answers || !items) {
		free(items);
		return 2;
	}
	while ((c = getopt(argc, argv, "+c:s:u:a:i:dt")) != -1) {
		switch (c) {
		case 'c': confdir = optarg; break;
		case 's': service = optarg; break;
		case 'u': user = optarg; break;
		case 'a': answers[nanswers++] = optarg; break;
		case 'i': items[nitems++] = optarg; break;
		case 'd': delay = 1; break;
		case 't': timer = 1; break;
		default: usage();
		}
	}
	if (optind >= argc)
		usage();
	rc = confdir ? pam_start_confdir(service, user, &pc, confdir, &pamh) :
	    pam_start(service, user, &pc, &pamh);
	if (rc != PAM_SUCCESS) {
		print_code("start", rc);
		free(items);
		return 1;
	}
	for (i = 0; i < nitems; i++) {
		char *eq = strchr(items[i], '=');
		int item;

		if (!eq)
			usage();
		*eq = '\0';
		item = item_code(items[i]);
		if (item < 0)
			usage();
		rc = pam_set_item(pamh, item, eq + 1);
		if (rc != PAM_SUCCESS) {
			print_code("set_item", rc);
			free(items);
			return 1;
		}
	}
	free(items);
	if (delay && pam_set_item(pamh, PAM_FAIL_DELAY,
	    (const void *)delay_fn) != PAM_SUCCESS)
		return 1;
	if (timer && timer_arm() < 0)
		return 1;
	for (i = optind; i < argc; i++) {
		char op[32], *mod;
		int flags = 0;

		snprintf(op, sizeof(op), "%s", argv[i]);
		for (mod = strchr(op, ':'); mod; mod = strchr(mod + 1, ':')) {
			if (strncmp(mod, ":silent", 7) == 0)
				flags |= PAM_SILENT;
			else if (strncmp(mod, ":expired", 8) == 0)
				flags |= PAM_CHANGE_EXPIRED_AUTHTOK;
			else if (strncmp(mod, ":disallow_null", 14) == 0)
				flags |= PAM_DISALLOW_NULL_AUTHTOK;
			else
				usage();
		}
		if ((mod = strchr(op, ':')))
			*mod = '\0';
		if (strcmp(op, "auth") == 0)
			rc = pam_authenticate(pamh, flags);
		else if (strcmp(op, "setcred") == 0)
			rc = pam_setcred(pamh, flags | PAM_ESTABLISH_CRED);
		else if (strcmp(op, "acct") == 0)
			rc = pam_acct_mgmt(pamh, flags);
		else if (strcmp(op, "open") == 0)
			rc = pam_open_session(pamh, flags);
		else if (strcmp(op, "close") == 0)
			rc = pam_close_session(pamh, flags);
		else if (strcmp(op, "chauthtok") == 0)
			rc = pam_chauthtok(pamh, flags);
		else
			usage();
		print_code(op, rc);
		if (rc != PAM_SUCCESS)
			all_ok = 0;
	}
	if (timer)
		timer_report();
	pam_end(pamh, all_ok ? PAM_SUCCESS : PAM_ABORT);
	return all_ok ? 0 : 1;
}
