/*
 * Administrators without su or sudo, as Owl does it: each administrator
 * has a root account of their own (UID 0, own name, own tcb entry, own
 * password, own SSH key), logs in directly, and every log line (sshd's
 * "Accepted publickey for NAME", the journal's _UID=0 with the session's
 * login name) says who it was.  sshd's PermitRootLogin applies to every
 * UID-0 account, so owlet's "prohibit-password" makes them key-only over
 * the network whatever their password.
 *
 * Order of an addition: shadow entry, then home and key, then the passwd
 * line last, which is what makes the account exist; a failure before it
 * removes what was made.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "owlet.h"
#include "setup.h"

#define KEYS_MAX	((off_t)65536)

static int
key_line_ok(const char *l)
{
	static const char *const types[] = { "ssh-ed25519 ", "ssh-rsa ",
	    "ecdsa-sha2-nistp256 ", "ecdsa-sha2-nistp384 ",
	    "ecdsa-sha2-nistp521 ", "sk-ssh-ed25519@openssh.com ",
	    "sk-ecdsa-sha2-nistp256@openssh.com " };
	size_t i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strncmp(l, types[i], strlen(types[i])) == 0)
			return 1;
	return 0;
}

/* The public keys of FILE, each line checked; *DATA malloc'ed. */
static int
read_keys(const char *file, char **data, size_t *len)
{
	struct stat st;
	char *p, *eol;
	unsigned long n = 0;
	int fd, keys = 0;

	fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size > KEYS_MAX) {
		if (fd >= 0)
			close(fd);
		warnx("%s: not a readable regular file of at most %lld bytes",
		    file, (long long)KEYS_MAX);
		return -1;
	}
	close(fd);
	if (owlet_read_file(AT_FDCWD, file, KEYS_MAX, data, len, &st) < 0) {
		warn("%s", file);
		return -1;
	}
	for (p = *data; *p; p = eol) {
		eol = strchr(p, '\n');
		eol = eol ? eol + 1 : p + strlen(p);
		n++;
		if (*p == '\n' || *p == '#')
			continue;
		if (!key_line_ok(p) || memchr(p, '\0', (size_t)(eol - p))) {
			warnx("%s:%lu: not an SSH public key line", file, n);
			free(*data);
			return -1;
		}
		keys++;
	}
	if (!keys) {
		warnx("%s: no public key", file);
		free(*data);
		return -1;
	}
	return 0;
}

/* ROOT/home/NAME (root-only) with .ssh/authorized_keys = KEYS. */
static int
make_home(struct setup *s, const char *name, const char *keys, size_t len)
{
	int hfd, dfd = -1, sfd = -1, rc = -1;

	hfd = openat(s->rootfd, "home", O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (hfd < 0 || mkdirat(hfd, name, 0700) < 0 ||
	    (dfd = owlet_open_dir(hfd, name)) < 0)
		goto out;
	if (keys && (mkdirat(dfd, ".ssh", 0700) < 0 ||
	    (sfd = owlet_open_dir(dfd, ".ssh")) < 0 ||
	    owlet_write_replace(sfd, "authorized_keys", keys, len, 0600, 0,
	    0) < 0))
		goto out;
	rc = 0;
out:
	if (rc < 0)
		warn("%s/%s", setup_path(s, "/home"), name);
	if (sfd >= 0)
		close(sfd);
	if (dfd >= 0)
		close(dfd);
	if (rc < 0 && hfd >= 0 && errno != EEXIST)
		owlet_rmtree(hfd, name);
	if (hfd >= 0)
		close(hfd);
	return rc;
}

int
admin_add(struct setup *s, const char *name, const char *keyfile,
    int with_password)
{
	char hash[HASH_MAX] = "*", line[OWLET_LINE_MAX];
	char *keys = NULL;
	size_t klen = 0;
	uid_t uid;
	int lock, rc = -1, hfd;

	if (!owlet_name_ok(name) || strcmp(name, "root") == 0) {
		warnx("%s: not a usable account name", name);
		return -1;
	}
	if (!keyfile && !with_password) {
		warnx("an administrator needs a key (--key FILE) or a "
		    "password (--password)");
		return -1;
	}
	if (keyfile && read_keys(keyfile, &keys, &klen) < 0)
		return -1;
	if ((lock = owlet_pwlock(s->etcfd)) < 0) {
		warn("cannot lock %s", setup_path(s, "/etc/.pwd.lock"));
		free(keys);
		return -1;
	}
	if (etc_passwd_find(s, name, &uid, NULL, 0) != 0) {
		warnx("%s: account %s exists", setup_path(s, "/etc/passwd"), name);
		goto out;
	}
	if (with_password && password_new(s, name, hash, sizeof(hash)) < 0)
		goto out;
	if (shadow_add(s, name, 0, hash) < 0)
		goto out;
	if (make_home(s, name, keys, klen) < 0) {
		shadow_del(s, name);
		goto out;
	}
	snprintf(line, sizeof(line), "%s:x:0:0:administrator %s:/home/%s:"
	    "/bin/bash\n", name, name, name);
	if (etc_append(s, "passwd", line) < 0) {
		shadow_del(s, name);
		if ((hfd = owlet_open_dir(s->rootfd, "home")) >= 0) {
			owlet_rmtree(hfd, name);
			close(hfd);
		}
		goto out;
	}
	printf("administrator %s added: UID 0, home /home/%s, %s\n", name,
	    name, keyfile ? (with_password ? "key and password" : "key only") :
	    "password only");
	rc = 0;
out:
	explicit_bzero(hash, sizeof(hash));
	free(keys);
	close(lock);
	return rc;
}

int
admin_del(struct setup *s, const char *name)
{
	uid_t uid;
	int lock, rc = -1, found;

	if (!owlet_name_ok(name) || strcmp(name, "root") == 0) {
		warnx("%s: not an administrator account", name);
		return -1;
	}
	if ((lock = owlet_pwlock(s->etcfd)) < 0) {
		warn("cannot lock %s", setup_path(s, "/etc/.pwd.lock"));
		return -1;
	}
	found = etc_passwd_find(s, name, &uid, NULL, 0);
	if (found != 1 || uid != 0) {
		if (found >= 0)
			warnx("%s: %s is not an administrator (UID 0) account",
			    setup_path(s, "/etc/passwd"), name);
		goto out;
	}
	/* passwd first: once the line is gone nobody can log in as NAME;
	 * a leftover shadow entry is what check reports */
	if (etc_remove(s, "passwd", name) < 0 || shadow_del(s, name) < 0)
		goto out;
	printf("administrator %s removed; /home/%s is kept\n", name, name);
	rc = 0;
out:
	close(lock);
	return rc;
}

/* Does NAME's shadow entry hold a usable password hash? */
static const char *
login_kind(struct setup *s, const char *name)
{
	char path[OWLET_NAME_MAX + 16], *data = NULL, *hash;
	struct stat st;
	size_t len;
	int dfd = s->etcfd, own = 0;
	const char *kind = "no shadow entry";

	if (shadow_is_tcb(s)) {
		snprintf(path, sizeof(path), "tcb/%s", name);
		dfd = openat(s->etcfd, path, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC);
		own = 1;
	}
	if (dfd < 0 || owlet_read_file(dfd, "shadow", own ? OWLET_TCB_FILE_MAX :
	    OWLET_DB_FILE_MAX, &data, &len, &st) < 0)
		goto out;
	for (hash = data; hash; hash = strchr(hash, '\n') ? strchr(hash, '\n') + 1 : NULL)
		if (strncmp(hash, name, strlen(name)) == 0 &&
		    hash[strlen(name)] == ':') {
			hash += strlen(name) + 1;
			kind = *hash == '$' ? "password" : "no password";
			break;
		}
	if (data) {
		explicit_bzero(data, len);
		free(data);
	}
out:
	if (own && dfd >= 0)
		close(dfd);
	return kind;
}

static int
list_one(void *arg, unsigned long lineno, char **f, int nf)
{
	unsigned int uid;

	if (nf == 7 && owlet_parse_id(f[2], &uid) == 0 && uid == 0)
		printf("%-16s %-24s %s\n", f[0], f[5], login_kind(arg, f[0]));
	return 0;
}

int
shadow_has_password(struct setup *s, const char *user)
{
	return strcmp(login_kind(s, user), "password") == 0;
}

int
admin_list(struct setup *s)
{
	return etc_passwd_each(s, list_one, s) < 0 ? -1 : 0;
}
