/*
 * tokenconv.h: the PAM conversation of the programs that drive libpam
 * with fixed answers (tests/bin/pamprobe, bench/passwd_bench): every
 * prompt, echoed or not, is answered with tokenconv_first once if it is
 * set, else with tokenconv_token; error and info messages go to stderr,
 * after the name given as appdata_ptr; any other message style fails the
 * conversation.  The responses are PAM's to free.  Static: each program
 * has its own copy and its own answers (single-threaded programs).
 */
#ifndef OWLET_TOKENCONV_H
#define OWLET_TOKENCONV_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <security/pam_appl.h>

static const char *tokenconv_token = "";
static const char *tokenconv_first;	/* the next prompt's answer only */

static int
tokenconv(int n, const struct pam_message **msg, struct pam_response **resp,
    void *name)
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
			r[i].resp = strdup(tokenconv_first ? tokenconv_first :
			    tokenconv_token);
			tokenconv_first = NULL;
			if (!r[i].resp)
				goto fail;
			break;
		case PAM_ERROR_MSG:
		case PAM_TEXT_INFO:
			fprintf(stderr, "%s: %s\n", (const char *)name,
			    msg[i]->msg);
			break;
		default:
			goto fail;
		}
	}
	*resp = r;
	return PAM_SUCCESS;
fail:
	for (i = 0; i < n; i++)
		free(r[i].resp);
	free(r);
	return PAM_CONV_ERR;
}

#endif
