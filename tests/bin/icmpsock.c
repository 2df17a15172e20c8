/*
 * icmpsock: can this process open an ICMP datagram ("ping") socket?
 * A stand-in for any program of a user's other than ping: exit 0 and print
 * "ok" if socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP) succeeds, else exit 1
 * printing the errno name (EACCES when net.ipv4.ping_group_range does not
 * cover the caller's groups).
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int
main(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);

	if (fd < 0) {
		printf("%s\n", strerrorname_np(errno));
		return 1;
	}
	close(fd);
	printf("ok\n");
	return 0;
}
