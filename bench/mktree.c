/*
 * mktree DIR FILES [SEED]: a deterministic benchmark tree.  Sizes follow
 * a server-like mix: 83% 1-16 KiB, 15% 16-256 KiB, 1.7% 256 KiB-2 MiB,
 * 0.3% 4-12 MiB (about 1.5 GB for 30,000 files), in 100 directories of
 * two levels; content from a xorshift generator (incompressible enough,
 * reproducible, fast).
 */
#include <err.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static uint64_t state = 88172645463325252ULL;

static uint64_t
next(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

static size_t
pick_size(void)
{
	unsigned r = (unsigned)(next() % 1000);

	if (r < 830)
		return 1024 + next() % (15 * 1024);
	if (r < 980)
		return 16384 + next() % (240 * 1024);
	if (r < 997)
		return 262144 + next() % (1792 * 1024);
	return 4194304 + next() % (8 * 1024 * 1024);
}

int
main(int argc, char **argv)
{
	static uint64_t buf[1 << 17];	/* 1 MiB */
	char path[4096];
	unsigned long files, i;
	size_t n, j;

	if (argc < 3)
		errx(2, "usage: mktree DIR FILES [SEED]");
	files = strtoul(argv[2], NULL, 10);
	if (argc > 3)
		state ^= strtoull(argv[3], NULL, 10) * 0x9e3779b97f4a7c15ULL;
	for (i = 0; i < files; i++) {
		snprintf(path, sizeof(path), "%s/d%02lu", argv[1], i % 10);
		mkdir(path, 0755);
		snprintf(path, sizeof(path), "%s/d%02lu/s%02lu", argv[1],
		    i % 10, (i / 10) % 10);
		mkdir(path, 0755);
		snprintf(path, sizeof(path), "%s/d%02lu/s%02lu/f%06lu",
		    argv[1], i % 10, (i / 10) % 10, i);
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			err(1, "%s", path);
		for (n = pick_size(); n > 0;) {
			size_t chunk = n < sizeof(buf) ? n : sizeof(buf);
			for (j = 0; j < (chunk + 7) / 8; j++)
				buf[j] = next();
			if (write(fd, buf, chunk) != (ssize_t)chunk)
				err(1, "%s", path);
			n -= chunk;
		}
		close(fd);
	}
	return 0;
}
