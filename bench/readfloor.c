/*
 * readfloor DIR: the system-call floor of hashing a tree, without the
 * hashing: for every regular file (nftw, no symlinks followed) what seal
 * create asks of the kernel, in one thread: open O_NOATIME, fgetxattr
 * security.capability, read in 64 KiB pieces to the end, close.  Prints
 * "files bytes user_s sys_s" (CPU time, getrusage).  bench/seal.sh uses
 * it to say how much of the gap to the pure hashing ceiling is the
 * kernel's: seal needs at least this CPU time on top of the hashing.
 */
#include <err.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

static unsigned char buf[64 * 1024];
static uint64_t files, bytes;

static int
one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	unsigned char cap[64];
	ssize_t n;
	int fd;

	(void)ftw;
	if (flag != FTW_F || !S_ISREG(st->st_mode))
		return 0;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NOATIME | O_CLOEXEC);
	if (fd < 0)
		err(1, "%s", path);
	(void)fgetxattr(fd, "security.capability", cap, sizeof(cap));
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		bytes += (uint64_t)n;
	if (n < 0)
		err(1, "%s", path);
	close(fd);
	files++;
	return 0;
}

int
main(int argc, char **argv)
{
	struct rusage ru;

	if (argc != 2)
		errx(2, "usage: readfloor DIR");
	if (nftw(argv[1], one, 64, FTW_PHYS) != 0)
		err(1, "%s", argv[1]);
	if (getrusage(RUSAGE_SELF, &ru) != 0)
		err(1, "getrusage");
	printf("%llu %llu %ld.%06ld %ld.%06ld\n", (unsigned long long)files,
	    (unsigned long long)bytes, (long)ru.ru_utime.tv_sec,
	    (long)ru.ru_utime.tv_usec, (long)ru.ru_stime.tv_sec,
	    (long)ru.ru_stime.tv_usec);
	return 0;
}
