/*
 * libFuzzer target: tcb_opts_parse (tcb/pam/options.c), pam_tcb's option
 * parser.  The input is the module's argument list, one word per line.
 * Properties checked beyond the sanitizers':
 *  - the verdict does not depend on the size of the error buffer, and a
 *    short buffer holds a prefix of the full message, NUL-terminated;
 *  - a refusal always explains itself; an acceptance leaves no message;
 *  - an accepted configuration satisfies the documented invariants (valid
 *    write_to, prefix "$...$", helper absolute or disabled, audit implies
 *    debug);
 *  - giving every word twice changes nothing (repeating an option with the
 *    same value is allowed, so the result must be identical).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pam_tcb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)	do { if (!(c)) abort(); } while (0)
#define MAX_WORDS	64

static int
same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static int
same_opts(const struct tcb_opts *a, const struct tcb_opts *b)
{
	return a->debug == b->debug && a->audit == b->audit &&
	    a->nullok == b->nullok && a->use_first_pass == b->use_first_pass &&
	    a->try_first_pass == b->try_first_pass &&
	    a->use_authtok == b->use_authtok && a->shadow == b->shadow &&
	    a->passwd == b->passwd && a->plain_crypt == b->plain_crypt &&
	    a->fork == b->fork && a->likeauth == b->likeauth &&
	    a->nodelay == b->nodelay && a->blank_nolog == b->blank_nolog &&
	    a->inert == b->inert && a->write_to == b->write_to &&
	    same_str(a->prefix, b->prefix) && a->count == b->count &&
	    a->count_set == b->count_set && same_str(a->helper, b->helper);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *argv[2 * MAX_WORDS];
	struct tcb_opts o, o_small, o_twice;
	char err[128], small[16];
	size_t small_len = 1 + size % sizeof(small);
	char *text, *p, *nl;
	int argc = 0, rc, rc_small, rc_twice, i;

	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	for (p = text; argc < MAX_WORDS; p = nl + 1) {
		argv[argc++] = p;
		nl = strchr(p, '\n');
		if (!nl)
			break;
		*nl = '\0';
	}

	memset(err, 'X', sizeof(err));
	err[0] = '\0';
	rc = tcb_opts_parse(&o, argc, argv, err, sizeof(err));
	CHECK(rc == 0 || rc == -1);
	CHECK(memchr(err, '\0', sizeof(err)) != NULL);
	if (rc == 0) {
		CHECK(err[0] == '\0');
		CHECK(o.write_to == WRITE_SHADOW || o.write_to == WRITE_TCB ||
		    o.write_to == WRITE_PASSWD);
		CHECK(!o.prefix || (strlen(o.prefix) >= 2 &&
		    o.prefix[0] == '$' &&
		    o.prefix[strlen(o.prefix) - 1] == '$'));
		CHECK(!o.helper || o.helper[0] == '/');
		CHECK(!o.audit || o.debug);
		CHECK(o.count_set || o.count == 0);
		CHECK(o.count <= 0xffffffffUL);
	} else {
		CHECK(err[0] != '\0');
	}

	memset(small, 'X', sizeof(small));
	small[0] = '\0';
	rc_small = tcb_opts_parse(&o_small, argc, argv, small, small_len);
	CHECK(rc_small == rc);
	CHECK(memchr(small, '\0', small_len) != NULL);
	CHECK(strncmp(small, err, strlen(small)) == 0);
	if (rc == 0)
		CHECK(same_opts(&o, &o_small));

	for (i = 0; i < argc; i++)
		argv[argc + i] = argv[i];
	rc_twice = tcb_opts_parse(&o_twice, 2 * argc, argv, err, sizeof(err));
	CHECK(rc_twice == rc);
	if (rc == 0)
		CHECK(same_opts(&o, &o_twice));
	free(text);
	return 0;
}
