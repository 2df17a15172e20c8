/*
 * JSON strings for machine-readable output.  Paths come from the file
 * system and may hold any byte but NUL: control characters, quotes and
 * backslashes are escaped, bytes >= 0x80 pass through (JSON is UTF-8;
 * a consumer that needs exact bytes of a non-UTF-8 name has the text
 * output).
 */
#include <stdio.h>

#include "json.h"

void
json_str(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;

	if (!s) {
		fputs("null", stdout);
		return;
	}
	putchar('"');
	for (; *u; u++) {
		if (*u == '"' || *u == '\\')
			printf("\\%c", *u);
		else if (*u < 0x20 || *u == 0x7f)
			printf("\\u%04x", *u);
		else
			putchar(*u);
	}
	putchar('"');
}
