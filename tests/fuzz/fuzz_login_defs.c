/*
 * libFuzzer target: the login.defs(5) reader (common/logindefs.c over the
 * bounded line reader, common/linereader.c), which pam_tcb, tcb_convert and
 * owlet-setup run as root.  The file is root's, but it is the one input that
 * decides how every new password is hashed, so a malformed one must give a
 * clean error naming its line, never a wrong value.
 *
 * Input: byte 0 picks the key and the value buffer size (1 to 64 bytes,
 * so that the bound is exercised); the rest is the file, written to
 * DIR/login.defs in a private temporary directory.  Properties checked
 * beyond the sanitizers':
 *  - owlet_logindefs_get returns 1, 0 or -1; on 1 the value is non-empty,
 *    has no blank, fits the buffer, and line *lineno of the file (split on
 *    '\n') is exactly "KEY VALUE" between blanks; no later line names KEY;
 *  - when every line is short and free of NULs (so that the reader cannot
 *    stop early): 0 iff no line names KEY; -1 (EINVAL) iff a line naming
 *    KEY is malformed (no value, two words, too long), *lineno the first
 *    such line; 1 otherwise, *lineno the last line naming KEY;
 *  - owlet_logindefs_bool agrees with the value: 1 for yes, 0 for no (any
 *    case), -1 with EINVAL for another value.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "owlet.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)	do { if (!(c)) abort(); } while (0)

static const char *const keys[] = {
	"ENCRYPT_METHOD", "YESCRYPT_COST_FACTOR", "SHA_CRYPT_MAX_ROUNDS",
	"TCB_AUTH_GROUP", "TCB_SYMLINKS", "USE_TCB", "A",
};
#define NKEYS	(sizeof(keys) / sizeof(keys[0]))

static char dir[64];
static int dirfd_ = -1;

static void
cleanup(void)
{
	if (dirfd_ >= 0)
		unlinkat(dirfd_, "login.defs", 0);
	if (dir[0])
		rmdir(dir);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* tmpfs when there is one: the file is rewritten for every input */
	const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";

	snprintf(dir, sizeof(dir), "%s/owlet-fuzz-ld.XXXXXX", base);
	if (!mkdtemp(dir) ||
	    (dirfd_ = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		perror(dir);
		exit(1);
	}
	atexit(cleanup);
	return 0;
}

/* Does LINE (LEN bytes, no NUL) name KEY the way the reader matches it:
 * blanks, KEY, a blank?  If so, *v and *vlen are the value word and *rest
 * says whether anything but blanks follows it. */
static int
names_key(const char *line, size_t len, const char *key, const char **v,
    size_t *vlen, int *rest)
{
	size_t klen = strlen(key), i = 0, j;

	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (len - i <= klen || memcmp(line + i, key, klen) != 0 ||
	    (line[i + klen] != ' ' && line[i + klen] != '\t'))
		return 0;
	i += klen;
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	for (j = i; j < len && line[j] != ' ' && line[j] != '\t'; j++)
		;
	*v = line + i;
	*vlen = j - i;
	while (j < len && (line[j] == ' ' || line[j] == '\t'))
		j++;
	*rest = j < len;
	return 1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data + 1, *key, *p, *v;
	size_t tlen, vlen, blen, len, nv;
	unsigned long lineno, bline, n;
	char val[64], bval[8];
	int rc, brc, fd, rest, simple = 1, last = 0, bad = 0;
	ssize_t w;

	if (size < 1 || size > 64 * 1024)
		return 0;
	key = keys[data[0] % NKEYS];
	vlen = 1 + (data[0] / NKEYS) % sizeof(val);
	tlen = size - 1;

	fd = openat(dirfd_, "login.defs", O_WRONLY | O_CREAT | O_TRUNC |
	    O_CLOEXEC, 0600);
	CHECK(fd >= 0);
	w = tlen ? write(fd, text, tlen) : 0;
	CHECK(w == (ssize_t)tlen);
	close(fd);

	memset(val, 'X', sizeof(val));
	errno = 0;
	rc = owlet_logindefs_get(dirfd_, key, val, vlen, &lineno);
	CHECK(rc == 1 || rc == 0 || rc == -1);

	/* The file, line by line, as a reader that cannot fail sees it. */
	for (p = text, n = 1; p < text + tlen; n++) {
		const char *nl = memchr(p, '\n', (size_t)(text + tlen - p));

		len = nl ? (size_t)(nl - p) : (size_t)(text + tlen - p);
		if (len > 8000 || memchr(p, '\0', len))
			simple = 0;
		if (names_key(p, len, key, &v, &nv, &rest)) {
			last = (int)n;
			if (!bad && (nv == 0 || rest || nv >= vlen))
				bad = (int)n;
			if (rc == 1 && n == lineno) {
				CHECK(nv > 0 && !rest && nv < vlen);
				CHECK(memcmp(v, val, nv) == 0 && val[nv] == '\0');
			}
		}
		p += len + (nl != NULL);
	}
	if (rc == 1) {
		CHECK(lineno >= 1 && val[0] != '\0' && strlen(val) < vlen);
		CHECK(!strchr(val, ' ') && !strchr(val, '\t'));
		if (simple)	/* the last one wins */
			CHECK(!bad && (unsigned long)last == lineno);
	}
	if (rc == 0) {
		CHECK(lineno == 0);
		if (simple)
			CHECK(last == 0);
	}
	if (rc == -1 && simple)
		CHECK(errno == EINVAL && bad && (unsigned long)bad == lineno);

	/* The boolean reading of the same key. */
	errno = 0;
	brc = owlet_logindefs_bool(dirfd_, key, &bline);
	rc = owlet_logindefs_get(dirfd_, key, bval, sizeof(bval), &lineno);
	blen = rc == 1 ? strlen(bval) : 0;
	if (rc == 1 && blen == 3 && strcasecmp(bval, "yes") == 0)
		CHECK(brc == 1);
	else if (rc == 1 && blen == 2 && strcasecmp(bval, "no") == 0)
		CHECK(brc == 0);
	else if (rc == 1)
		CHECK(brc == -1 && errno == EINVAL);
	else
		CHECK(brc == rc);
	return 0;
}
