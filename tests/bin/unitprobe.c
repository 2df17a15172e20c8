/*
 * unitprobe: the pure parsers of common/ (libowlet.a), for tests/unit.
 *
 *   unitprobe check LINE...   owlet_shadow_check on each LINE: "ok" or
 *                             "bad ERRNAME", one output line per argument
 *   unitprobe parse LINE      owlet_shadow_parse: the fields, one per line
 *   unitprobe name NAME...    owlet_name_ok: "1" or "0" per argument
 *   unitprobe namen NAME LEN  owlet_name_ok_n(NAME, LEN)
 *   unitprobe lines FILE      owlet_lines_next over FILE: "LINENO LEN" per
 *                             line, then "eof" or "err LINENO ERRNAME"
 *   unitprobe cat FILE        the lines read, each followed by '\n' (to
 *                             compare with the file); errors on stderr
 *   unitprobe esc S LEN       owlet_esc(S) into a LEN-byte buffer:
 *                             "RETURNED:BUFFER"
 *   unitprobe json S...       owlet_json_put of each S, one per line
 *   unitprobe num MIN MAX FLAGS S...
 *                             owlet_num(S, MIN, MAX, FLAGS) (FLAGS: o
 *                             octal, z no leading zero, - none): the value
 *                             or "bad ERRNAME", one line per S
 *   unitprobe db FILE         owlet_db_next over FILE (passwd or group
 *                             by name): "LINENO NF OK ID NAME" per line,
 *                             then "eof" or "err LINENO ERRNAME"
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "owlet.h"

static const char *
ename(int e)
{
	const char *s = strerrorname_np(e);

	return s ? s : "E?";
}

static int
lines(const char *file, int cat)
{
	static struct owlet_lines lr;
	char *l;
	size_t len;
	int fd = open(file, O_RDONLY), rc;

	if (fd < 0) {
		perror(file);
		return 2;
	}
	owlet_lines_init(&lr, fd);
	while ((rc = owlet_lines_next(&lr, &l, &len)) == 1) {
		if (l[len] != '\0' || strlen(l) != len) {
			printf("bad termination at line %lu\n", lr.lineno);
			return 1;
		}
		if (cat) {
			fwrite(l, 1, len, stdout);
			putchar('\n');
		} else {
			printf("%lu %zu\n", lr.lineno, len);
		}
	}
	close(fd);
	if (rc < 0) {
		fprintf(cat ? stderr : stdout, "err %lu %s\n", lr.lineno,
		    ename(errno));
		return 1;
	}
	if (!cat)
		printf("eof\n");
	return 0;
}

static int
num(int argc, char **argv)
{
	unsigned long long min = strtoull(argv[0], NULL, 0),
	    max = strtoull(argv[1], NULL, 0);
	int flags = 0, i;
	uint64_t v;

	if (strchr(argv[2], 'o'))
		flags |= OWLET_NUM_OCTAL;
	if (strchr(argv[2], 'z'))
		flags |= OWLET_NUM_NOZERO;
	for (i = 3; i < argc; i++) {
		v = 12345;
		if (owlet_num(argv[i], min, max, flags, &v) == 0)
			printf("%llu\n", (unsigned long long)v);
		else if (v != 12345)
			printf("bad: *v changed on error\n");
		else
			printf("bad %s\n", ename(errno));
	}
	return 0;
}

static int
db(const char *file)
{
	struct owlet_dbent e;
	struct owlet_db *d;
	const char *base = strrchr(file, '/');
	char dir[4096];
	int dfd, rc;

	base = base ? base + 1 : file;
	snprintf(dir, sizeof(dir), "%.*s", (int)(base - file), file);
	dfd = open(dir[0] ? dir : ".", O_RDONLY | O_DIRECTORY);
	if (dfd < 0 || !(d = owlet_db_open(dfd, base))) {
		perror(file);
		return 2;
	}
	while ((rc = owlet_db_next(d, &e)) == 1)
		printf("%lu %d %d %u %s\n", e.lineno, e.nf, e.ok,
		    e.id_ok ? e.id : 0, e.f[0]);
	if (rc < 0)
		printf("err %lu %s\n", owlet_db_lineno(d), ename(errno));
	else
		printf("eof\n");
	owlet_db_close(d);
	close(dfd);
	return rc < 0;
}

int
main(int argc, char **argv)
{
	int i;

	if (argc >= 2 && !strcmp(argv[1], "check")) {
		for (i = 2; i < argc; i++) {
			errno = 0;
			if (owlet_shadow_check(argv[i], strlen(argv[i])) == 0)
				printf("ok\n");
			else
				printf("bad %s\n", ename(errno));
		}
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "parse")) {
		struct spwd sp;

		memset(&sp, 0x5a, sizeof(sp));
		if (owlet_shadow_parse(argv[2], &sp) < 0) {
			printf("bad %s\n", ename(errno));
			return 1;
		}
		printf("name=%s\npwd=%s\nlstchg=%ld\nmin=%ld\nmax=%ld\n"
		    "warn=%ld\ninact=%ld\nexpire=%ld\nflag=%lu\n",
		    sp.sp_namp, sp.sp_pwdp, sp.sp_lstchg, sp.sp_min,
		    sp.sp_max, sp.sp_warn, sp.sp_inact, sp.sp_expire,
		    sp.sp_flag);
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "name")) {
		for (i = 2; i < argc; i++)
			printf("%d\n", owlet_name_ok(argv[i]));
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "namen")) {
		printf("%d\n", owlet_name_ok_n(argv[2],
		    strtoul(argv[3], NULL, 10)));
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "lines"))
		return lines(argv[2], 0);
	if (argc == 3 && !strcmp(argv[1], "cat"))
		return lines(argv[2], 1);
	if (argc == 4 && !strcmp(argv[1], "esc")) {
		size_t len = strtoul(argv[3], NULL, 10), n;
		char *buf = malloc(len + 1);

		if (!buf)
			return 2;
		memset(buf, '#', len + 1);
		n = owlet_esc(buf, len, argv[2]);
		if (buf[len] != '#') {
			printf("overflow\n");
			return 1;
		}
		printf("%zu:%s\n", n, len ? buf : "");
		free(buf);
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "json")) {
		for (i = 2; i < argc; i++) {
			owlet_json_put(stdout, argv[i]);
			putchar('\n');
		}
		return 0;
	}
	if (argc >= 5 && !strcmp(argv[1], "num"))
		return num(argc - 2, argv + 2);
	if (argc == 3 && !strcmp(argv[1], "db"))
		return db(argv[2]);
	fprintf(stderr, "usage: unitprobe check|parse|name|namen|lines|esc|json|num|db"
	    " ...\n");
	return 2;
}
