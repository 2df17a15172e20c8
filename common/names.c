/*
 * User names become path components under /etc/tcb, so a name is accepted
 * only if it cannot escape or alias that directory: no '/', not "." or "..",
 * no leading '.' (hidden and relative names), ':' (reserved for tcb buckets
 * and scratch directories) or '-' (option confusion in tools), no ':' at all
 * (field separator), no control characters or spaces, at most 32 bytes.
 */
#include <string.h>

#include "owlet.h"

int
owlet_name_ok_n(const char *name, size_t len)
{
	size_t i;

	if (len == 0 || len > OWLET_NAME_MAX)
		return 0;
	if (name[0] == '.' || name[0] == ':' || name[0] == '-')
		return 0;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];

		if (c <= ' ' || c == 0x7f || c == '/' || c == ':')
			return 0;
	}
	return 1;
}

int
owlet_name_ok(const char *name)
{
	size_t len = strnlen(name, OWLET_NAME_MAX + 1);

	return owlet_name_ok_n(name, len);
}
