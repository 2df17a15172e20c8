/*
 * New hashes through libxcrypt.  The method is prefix= (or md5) when given,
 * else login.defs ENCRYPT_METHOD, else libxcrypt's default (yescrypt on
 * Debian 12); the cost is count= when given, else the login.defs key of
 * that method (YESCRYPT_COST_FACTOR, SHA_CRYPT_MAX/MIN_ROUNDS,
 * BCRYPT_MAX/MIN_ROUNDS), else the method's default.  Salts come from
 * crypt_gensalt_ra with libxcrypt's own entropy.
 */
#include <crypt.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <security/pam_ext.h>

#include "owlet.h"
#include "pam_tcb.h"

static const struct method {
	const char *name, *prefix, *cost_key[2];
} methods[] = {
	{ "YESCRYPT", "$y$", { "YESCRYPT_COST_FACTOR", NULL } },
	{ "SHA512", "$6$", { "SHA_CRYPT_MAX_ROUNDS", "SHA_CRYPT_MIN_ROUNDS" } },
	{ "SHA256", "$5$", { "SHA_CRYPT_MAX_ROUNDS", "SHA_CRYPT_MIN_ROUNDS" } },
	{ "BCRYPT", "$2b$", { "BCRYPT_MAX_ROUNDS", "BCRYPT_MIN_ROUNDS" } },
	{ "MD5", "$1$", { NULL, NULL } },
};

/* The cost from the method's login.defs keys into *COST; -1 on error. */
static int
cost_from_defs(int etcfd, const struct method *m, unsigned long *cost)
{
	unsigned long lineno;
	uint64_t v;
	char buf[16];
	int i, rc;

	for (i = 0; i < 2 && m->cost_key[i]; i++) {
		rc = owlet_logindefs_get(etcfd, m->cost_key[i], buf, sizeof(buf),
		    &lineno);
		if (rc < 0)
			return -1;
		if (rc == 0)
			continue;
		/* the range of pam_tcb's count= option; anything else is
		 * an error (errno EINVAL or ERANGE), as an unreadable file
		 * is (see below) */
		if (owlet_num(buf, 0, 0xffffffffU, 0, &v) < 0)
			return -1;
		*cost = (unsigned long)v;
		return 0;
	}
	return 0;
}

/*
 * An unreadable login.defs must not silently mean "default method": the
 * administrator asked for something else.  Returns -1 on such an error
 * (a missing file or key is not one).
 */
int
tcb_method(const struct tcb_opts *o, const char **prefix,
    unsigned long *count)
{
	unsigned long lineno;
	char name[16];
	size_t i;
	int etcfd, rc;

	*prefix = o->prefix;
	*count = o->count;
	if (o->prefix && o->count_set)
		return 0;
	etcfd = open("/etc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (etcfd < 0)
		return -1;
	rc = owlet_logindefs_get(etcfd, "ENCRYPT_METHOD", name, sizeof(name),
	    &lineno);
	if (rc == 1) {
		for (i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
			if (strcmp(name, methods[i].name) != 0)
				continue;
			if (!o->prefix)
				*prefix = methods[i].prefix;
			if (!o->count_set && strcmp(*prefix,
			    methods[i].prefix) == 0 &&
			    cost_from_defs(etcfd, &methods[i], count) < 0)
				rc = -1;
			break;
		}
	}
	close(etcfd);
	return rc < 0 ? -1 : 0;
}

char *
tcb_hash_new(pam_handle_t *pamh, const struct tcb_opts *o, const char *pass)
{
	struct crypt_data *cd;
	const char *prefix;
	unsigned long count;
	char *setting, *out, *hash = NULL;

	if (tcb_method(o, &prefix, &count) < 0) {
		pam_syslog(pamh, LOG_ERR, "cannot read /etc/login.defs: %m");
		return NULL;
	}
	setting = crypt_gensalt_ra(prefix, count, NULL, 0);
	if (!setting) {
		pam_syslog(pamh, LOG_CRIT, "crypt_gensalt_ra(%s, %lu) failed",
		    prefix ? prefix : "default", count);
		return NULL;
	}
	cd = calloc(1, sizeof(*cd));
	if (cd) {
		out = o->plain_crypt ? crypt(pass, setting) :
		    crypt_rn(pass, setting, cd, sizeof(*cd));
		if (out && out[0] != '*' && strlen(out) >= 13)
			hash = strdup(out);
		if (o->plain_crypt && out)
			explicit_bzero(out, strlen(out));
		explicit_bzero(cd, sizeof(*cd));
		free(cd);
	}
	free(setting);
	if (!hash)
		pam_syslog(pamh, LOG_CRIT, "crypt failed for method %s",
		    prefix ? prefix : "default");
	return hash;
}

void
tcb_free_str(char *s)
{
	if (s) {
		explicit_bzero(s, strlen(s));
		free(s);
	}
}
