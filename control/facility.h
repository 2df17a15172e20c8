/*
 * A facility: a named set of states, each state a list of actions on the
 * system (file owner/mode/capabilities, config lines, a sysctl, a PAM
 * stack, the password-hash scheme).  Facility files are data, parsed by
 * parse.c; see control-facility(5) for the format.
 *
 * Facility files come from root-owned directories and are trusted for
 * intent, but not for well-formedness: the parser bounds every count and
 * string and never trusts a value it has not validated (paths, names,
 * modes, capability text), so a broken local override fails with
 * FILE:LINE and cannot make control act on a path it did not name.
 */
#ifndef CONTROL_FACILITY_H
#define CONTROL_FACILITY_H

#include <stddef.h>
#include <sys/types.h>

#define FAC_FILE_MAX	65536	/* bytes in one facility file */
#define FAC_STATES_MAX	16
#define FAC_ACTS_MAX	32	/* actions in one state */
#define FAC_ALIASES_MAX	8
#define FAC_ALTS_MAX	4	/* alternatives of one line/sysctl value */
#define FAC_NAME_MAX	32	/* facility and state names */
#define FAC_TEXT_MAX	512	/* summary, help, one config line */
#define FAC_PATH_MAX	1024

enum act_kind {
	ACT_GROUP,	/* group NAME: the system group exists */
	ACT_FILE,	/* file PATH OWNER GROUP MODE [CAPS] */
	ACT_DIR,	/* dir PATH OWNER GROUP MODE */
	ACT_LINE,	/* line FILE TOKEN TEXT|- ... */
	ACT_SYSCTL,	/* sysctl KEY VALUE|- ... */
	ACT_PAM,	/* pam STACK */
	ACT_SHADOW,	/* shadow tcb|files */
	ACT_CMDLINE	/* cmdline NAME TOKEN|- ...: a kernel parameter */
};

struct act {
	enum act_kind kind;
	unsigned long lineno;
	char *path;		/* FILE, DIR and LINE file; SYSCTL key;
				 * PAM stack; GROUP name; CMDLINE name */
	char *owner, *group;	/* FILE, DIR */
	mode_t mode;		/* FILE, DIR: the 12 permission bits */
	char *caps;		/* FILE: cap_to_text form, NULL = none */
	char *token;		/* LINE: the word that identifies the line */
	/* LINE, SYSCTL, CMDLINE: accepted values, the first is the one
	 * written; NULL stands for "-", no such line (no such setting). */
	char *alt[FAC_ALTS_MAX];
	int nalt;
	int tcb;		/* SHADOW: 1 tcb, 0 files */
};

struct state {
	char *name;
	char *help;
	unsigned long lineno;
	struct act act[FAC_ACTS_MAX];
	int nact;
};

struct facility {
	char *name;
	char *source;		/* file it was read from, for messages */
	char *summary;
	char *requires;		/* absolute path that must exist, or NULL */
	char *deflt;		/* default state, or NULL */
	char *same_as;		/* another name for that facility: no states
				 * of its own (ping6 is ping on Debian) */
	struct {
		char *from, *to;
	} alias[FAC_ALIASES_MAX];
	int nalias;
	struct state state[FAC_STATES_MAX];
	int nstate;
};

/*
 * Parse BUF (LEN bytes, the whole file) as facility NAME read from SOURCE.
 * 0 on success; -1 with a one-line message "SOURCE:LINE: what" in ERR
 * (ENOMEM also reported there).  On failure F is freed.
 */
int facility_parse(struct facility *f, const char *name, const char *source,
    const char *buf, size_t len, char *err, size_t errlen);
void facility_free(struct facility *f);

/* Facility and state names: [a-z0-9_][a-z0-9_.-]*, at most FAC_NAME_MAX. */
int facility_name_ok(const char *s);

const struct state *facility_state(const struct facility *f,
    const char *name);
/* NAME after alias mapping (NAME itself when not an alias). */
const char *facility_canonical(const struct facility *f, const char *name);

#endif
