/*
 * Parsing a tcb_chkpwd request: an 8-byte flag word, the user name and the
 * password, each NUL-terminated, and nothing after them.
 *
 * The bytes come from an unprivileged caller and are parsed while the
 * helper still holds group shadow, so the rules are strict and every
 * bound is checked against LEN before a byte is read: the flag word must
 * be exactly one of the two that pam_tcb sends (Openwall's and ours), the
 * name must be a user name by the rules of names.c (so it is safe in a
 * path under /etc/tcb), the password at most CHKPWD_PASS_MAX bytes, and
 * anything left over makes the whole request malformed rather than being
 * ignored.  Openwall's helper caps name and password together at 254
 * bytes; the caps here are OWLET_NAME_MAX for the name and PAM's longest
 * response (PAM_MAX_RESP_SIZE) for the password, so whatever Openwall's
 * pam_tcb sends for a valid name and a password of that size passes.
 */
#include <string.h>

#include "owlet.h"
#include "chkpwd_request.h"

static const char flag_nullok[CHKPWD_FLAG_LEN] = "nullok";
static const char flag_nonull[CHKPWD_FLAG_LEN] = "nonull";

enum chkpwd_req_status
chkpwd_request_parse(const char *buf, size_t len, struct chkpwd_request *r)
{
	const char *name, *pass, *nul, *end = buf + len;

	memset(r, 0, sizeof(*r));
	if (len > CHKPWD_REQUEST_MAX)
		return CHKPWD_REQ_TOO_LONG;
	if (len < CHKPWD_FLAG_LEN)
		return CHKPWD_REQ_SHORT;
	if (memcmp(buf, flag_nullok, CHKPWD_FLAG_LEN) != 0 &&
	    memcmp(buf, flag_nonull, CHKPWD_FLAG_LEN) != 0)
		return CHKPWD_REQ_FLAG;

	name = buf + CHKPWD_FLAG_LEN;
	nul = memchr(name, '\0', (size_t)(end - name));
	if (!nul)
		return CHKPWD_REQ_NO_NAME_END;
	if (!owlet_name_ok_n(name, (size_t)(nul - name)))
		return CHKPWD_REQ_BAD_NAME;

	pass = nul + 1;
	if (pass == end)
		return CHKPWD_REQ_NO_PASS;
	nul = memchr(pass, '\0', (size_t)(end - pass));
	if (!nul)
		return CHKPWD_REQ_NO_PASS_END;
	if ((size_t)(nul - pass) > CHKPWD_PASS_MAX)
		return CHKPWD_REQ_PASS_LONG;
	if (nul + 1 != end)
		return CHKPWD_REQ_TRAILING;

	r->nullok = memcmp(buf, flag_nullok, CHKPWD_FLAG_LEN) == 0;
	r->name = name;
	r->name_len = (size_t)(pass - 1 - name);
	r->pass = pass;
	r->pass_len = (size_t)(nul - pass);
	return CHKPWD_REQ_OK;
}

const char *
chkpwd_request_error(enum chkpwd_req_status s)
{
	switch (s) {
	case CHKPWD_REQ_OK:
		return "well-formed";
	case CHKPWD_REQ_TOO_LONG:
		return "request too long";
	case CHKPWD_REQ_SHORT:
		return "request too short";
	case CHKPWD_REQ_FLAG:
		return "unknown flag word";
	case CHKPWD_REQ_NO_NAME_END:
		return "user name not terminated";
	case CHKPWD_REQ_BAD_NAME:
		return "invalid user name";
	case CHKPWD_REQ_NO_PASS:
		return "no password";
	case CHKPWD_REQ_NO_PASS_END:
		return "password not terminated";
	case CHKPWD_REQ_PASS_LONG:
		return "password too long";
	case CHKPWD_REQ_TRAILING:
		return "data after the password";
	}
	return "unknown error";
}
