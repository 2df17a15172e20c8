/*
 * Password verification against a crypt(5) hash: crypt_rn on private,
 * wiped data and a comparison whose time does not depend on where the
 * strings differ.  Locked ('!', '*') and empty hashes never match.
 */
#include <crypt.h>
#include <stdlib.h>
#include <string.h>

#include "owlet.h"

static int
equal_const_time(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i;
	unsigned char diff = la != lb;

	for (i = 0; i < la && i < lb; i++)
		diff |= (unsigned char)(a[i] ^ b[i]);
	return diff == 0;
}

int
owlet_pass_matches(const char *pass, const char *hash)
{
	struct crypt_data *cd;
	char *out;
	int rc = 0;

	if (!hash || !*hash || *hash == '*' || *hash == '!')
		return 0;
	cd = calloc(1, sizeof(*cd));
	if (!cd)
		return -1;
	out = crypt_rn(pass, hash, cd, sizeof(*cd));
	if (out && out[0] != '*' && equal_const_time(out, hash))
		rc = 1;
	explicit_bzero(cd, sizeof(*cd));
	free(cd);
	return rc;
}
