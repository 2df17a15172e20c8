/* mkhash [PREFIX [COUNT]]: hash the password read from stdin (one line)
 * with libxcrypt, for building test fixtures. */
#include <crypt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main(int argc, char **argv)
{
	char pass[1024], *setting, *hash;
	struct crypt_data cd = { 0 };

	if (!fgets(pass, sizeof(pass), stdin))
		return 1;
	pass[strcspn(pass, "\n")] = '\0';
	setting = crypt_gensalt_ra(argc > 1 ? argv[1] : NULL,
	    argc > 2 ? strtoul(argv[2], NULL, 10) : 0, NULL, 0);
	if (!setting)
		return 1;
	hash = crypt_rn(pass, setting, &cd, sizeof(cd));
	free(setting);
	if (!hash || hash[0] == '*')
		return 1;
	puts(hash);
	return 0;
}
