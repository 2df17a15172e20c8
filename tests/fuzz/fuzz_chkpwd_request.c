/*
 * libFuzzer target: chkpwd_request_parse (tcb/progs/chkpwd_request.c), the
 * parser tcb_chkpwd runs on bytes from an unprivileged caller while it
 * still holds group shadow.  Besides the sanitizers' checks, a request the
 * parser accepts must be exactly the one it describes: rebuilding it from
 * the parsed fields gives back the input byte for byte, and the fields
 * obey the documented bounds.  A refused request leaves the result zeroed.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "owlet.h"
#include "chkpwd_request.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)	do { if (!(c)) abort(); } while (0)

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct chkpwd_request zero;
	struct chkpwd_request r;
	enum chkpwd_req_status st;
	char *buf, *again;
	size_t n;

	/* An exact-size heap copy, so reading past the end is caught. */
	buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	st = chkpwd_request_parse(buf, size, &r);
	CHECK(chkpwd_request_error(st) != NULL);
	if (st != CHKPWD_REQ_OK) {
		CHECK(memcmp(&r, &zero, sizeof(r)) == 0);
		free(buf);
		return 0;
	}
	CHECK(size <= CHKPWD_REQUEST_MAX);
	CHECK(r.name == buf + CHKPWD_FLAG_LEN);
	CHECK(r.name_len == strlen(r.name));
	CHECK(r.name_len >= 1 && r.name_len <= OWLET_NAME_MAX);
	CHECK(owlet_name_ok(r.name));
	CHECK(r.pass == r.name + r.name_len + 1);
	CHECK(r.pass_len == strlen(r.pass) && r.pass_len <= CHKPWD_PASS_MAX);
	CHECK(r.nullok == 0 || r.nullok == 1);

	/* Round trip: flag word, name, NUL, password, NUL. */
	n = CHKPWD_FLAG_LEN + r.name_len + 1 + r.pass_len + 1;
	CHECK(n == size);
	again = calloc(1, n);
	if (again) {
		memcpy(again, r.nullok ? "nullok" : "nonull", 6);
		memcpy(again + CHKPWD_FLAG_LEN, r.name, r.name_len + 1);
		memcpy(again + CHKPWD_FLAG_LEN + r.name_len + 1, r.pass,
		    r.pass_len + 1);
		CHECK(memcmp(again, buf, n) == 0);
		free(again);
	}
	free(buf);
	return 0;
}
