/*
 * The request tcb_chkpwd reads from its caller (the wire format is in
 * tcb/pam/chkpwd.h).  The parser is pure, with no I/O and no state, so
 * that it can be fuzzed on its own; it only looks at the bytes it is given.
 */
#ifndef CHKPWD_REQUEST_H
#define CHKPWD_REQUEST_H

#include <stddef.h>

#include "chkpwd.h"

/* Why a request was refused; CHKPWD_REQ_OK is 0. */
enum chkpwd_req_status {
	CHKPWD_REQ_OK,
	CHKPWD_REQ_TOO_LONG,	/* more than CHKPWD_REQUEST_MAX bytes */
	CHKPWD_REQ_SHORT,	/* shorter than a flag word and two NULs */
	CHKPWD_REQ_FLAG,	/* flag word neither "nullok" nor "nonull" */
	CHKPWD_REQ_NO_NAME_END,	/* no NUL after the name */
	CHKPWD_REQ_BAD_NAME,	/* not a user name (names.c rules) */
	CHKPWD_REQ_NO_PASS,	/* nothing after the name's NUL */
	CHKPWD_REQ_NO_PASS_END,	/* no NUL after the password */
	CHKPWD_REQ_PASS_LONG,	/* password longer than CHKPWD_PASS_MAX */
	CHKPWD_REQ_TRAILING,	/* bytes after the password's NUL */
};

/* A parsed request.  NAME and PASS point into the caller's buffer and are
 * NUL-terminated there; nothing is copied, so wiping the buffer wipes the
 * password. */
struct chkpwd_request {
	int nullok;
	const char *name, *pass;
	size_t name_len, pass_len;
};

/* Parse the LEN bytes at BUF (LEN may exceed CHKPWD_REQUEST_MAX: that is
 * refused).  Returns CHKPWD_REQ_OK and fills R, or a refusal; R is left
 * zeroed on refusal. */
enum chkpwd_req_status chkpwd_request_parse(const char *buf, size_t len,
    struct chkpwd_request *r);

/* A short English phrase for the log. */
const char *chkpwd_request_error(enum chkpwd_req_status s);

#endif
