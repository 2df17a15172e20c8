/*
 * Options, as Openwall's pam_tcb spells them.  Every entry point parses
 * them first; an unknown word, a bad value or a valued option repeated with
 * another value fails the call (PAM_ABORT): a typo in a PAM stack must not
 * silently weaken it.  The parser is pure (no PAM calls) so it can be
 * fuzzed; tcb_opts_get() logs its verdict.
 */
#include <crypt.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <security/pam_ext.h>

#include "owlet.h"
#include "pam_tcb.h"

#include <stddef.h>

static const struct flag {
	const char *name;
	size_t off;
} flags[] = {
#define FLAG(name, field) { name, offsetof(struct tcb_opts, field) }
	FLAG("debug", debug), FLAG("audit", audit), FLAG("nullok", nullok),
	FLAG("use_first_pass", use_first_pass),
	FLAG("try_first_pass", try_first_pass),
	FLAG("use_authtok", use_authtok), FLAG("shadow", shadow),
	FLAG("passwd", passwd), FLAG("plain_crypt", plain_crypt),
	FLAG("fork", fork), FLAG("likeauth", likeauth),
	FLAG("nodelay", nodelay), FLAG("blank_nolog", blank_nolog),
	/* meaningful only in upstream's non-Linux-PAM logger */
	FLAG("nolog", inert), FLAG("openlog", inert), FLAG("noopenlog", inert),
#undef FLAG
};

/* A valued option may repeat only with the same value. */
static int
set_value(const char **slot, const char *value, const char *name, char *err,
    size_t errlen)
{
	if (*slot && strcmp(*slot, value) != 0) {
		snprintf(err, errlen, "Conflicting options: %s", name);
		return -1;
	}
	*slot = value;
	return 0;
}

/* A prefix must name a method libxcrypt can generate salts for: checked
 * here, at parse time, so a typo cannot break every later login. */
static int
prefix_ok(const char *p)
{
	size_t len = strlen(p);

	if (len < 2 || len > 8 || p[0] != '$' || p[len - 1] != '$')
		return 0;
	return strspn(p + 1, "abcdefghijklmnopqrstuvwxyz0123456789") ==
	    len - 2;
}

int
tcb_opts_parse(struct tcb_opts *o, int argc, const char **argv, char *err,
    size_t errlen)
{
	const char *write_to = NULL, *prefix = NULL, *count = NULL;
	const char *helper = NULL;
	int i;
	size_t f;

	memset(o, 0, sizeof(*o));
	o->write_to = WRITE_SHADOW;
	o->helper = PAM_TCB_HELPER;
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];

		for (f = 0; f < sizeof(flags) / sizeof(flags[0]); f++)
			if (strcmp(a, flags[f].name) == 0)
				break;
		if (f < sizeof(flags) / sizeof(flags[0])) {
			((unsigned char *)o)[flags[f].off] = 1;
			continue;
		}
		if (strncmp(a, "write_to=", 9) == 0) {
			if (set_value(&write_to, a + 9, "write_to", err,
			    errlen) < 0)
				return -1;
		} else if (strncmp(a, "prefix=", 7) == 0) {
			if (set_value(&prefix, a + 7, "prefix", err, errlen) < 0)
				return -1;
		} else if (strcmp(a, "md5") == 0) {
			if (set_value(&prefix, "$1$", "prefix", err, errlen) < 0)
				return -1;
		} else if (strncmp(a, "count=", 6) == 0) {
			if (set_value(&count, a + 6, "count", err, errlen) < 0)
				return -1;
		} else if (strncmp(a, "helper=", 7) == 0) {
			if (set_value(&helper, a + 7, "helper", err, errlen) < 0)
				return -1;
		} else if (strncmp(a, "authtok_type=", 13) == 0) {
			continue;	/* read by libpam's pam_get_authtok */
		} else {
			snprintf(err, errlen, "Unrecognized option: %.64s", a);
			return -1;
		}
	}
	if (o->audit)
		o->debug = 1;
	if (write_to) {
		if (strcmp(write_to, "shadow") == 0)
			o->write_to = WRITE_SHADOW;
		else if (strcmp(write_to, "tcb") == 0)
			o->write_to = WRITE_TCB;
		else if (strcmp(write_to, "passwd") == 0)
			o->write_to = WRITE_PASSWD;
		else {
			snprintf(err, errlen, "Invalid write_to: %.64s",
			    write_to);
			return -1;
		}
	}
	if (prefix) {
		if (!prefix_ok(prefix)) {
			snprintf(err, errlen, "Invalid prefix: %.64s", prefix);
			return -1;
		}
		o->prefix = prefix;
	}
	if (count) {
		uint64_t n;

		if (owlet_num(count, 0, 0xffffffffU, 0, &n) < 0) {
			snprintf(err, errlen, "Invalid count: %.64s", count);
			return -1;
		}
		o->count = (unsigned long)n;
		o->count_set = 1;
	}
	if (o->prefix || o->count_set) {
		/* libxcrypt must take the method and the cost; fixed "random"
		 * bytes keep this check free of I/O */
		static const char rbytes[16] = "owlet-pam_tcb-ok";
		char setting[CRYPT_GENSALT_OUTPUT_SIZE];

		if (!crypt_gensalt_rn(o->prefix, o->count, rbytes,
		    sizeof(rbytes), setting, sizeof(setting))) {
			snprintf(err, errlen, "Invalid prefix/count: %.32s %lu",
			    o->prefix ? o->prefix : "default", o->count);
			return -1;
		}
	}
	if (helper) {
		if (*helper == '\0')
			o->helper = NULL;	/* helper= disables it */
		else if (*helper != '/') {
			snprintf(err, errlen, "Invalid helper: %.64s", helper);
			return -1;
		} else
			o->helper = helper;
	}
	return 0;
}

int
tcb_opts_get(pam_handle_t *pamh, int argc, const char **argv,
    struct tcb_opts *o)
{
	char err[128];

	if (tcb_opts_parse(o, argc, argv, err, sizeof(err)) < 0) {
		pam_syslog(pamh, LOG_ERR, "%s", err);
		return PAM_ABORT;
	}
	return PAM_SUCCESS;
}
