/*
 * Rewriting one user's entry in a passwd(5)/shadow(5) file: the one
 * implementation behind pam_tcb's password change and chage's aging
 * changes.
 *
 * The file is replaced, never edited in place: every line is copied to a
 * new file in the same directory (owlet_replace_*: O_EXCL, owner and mode
 * of the old file set on the fd, fsync, rename, directory fsync), with the
 * requested fields of the user's first line substituted and every other
 * byte kept.  At every instant the file is the complete old one or the
 * complete new one.
 *
 * The locked, privilege-dropped wrappers for tcb and /etc files are in
 * tcb/edit/shadowlock.c (they need libtcb, which common/ never does), so
 * that programs editing files they have opened themselves (owlet-setup)
 * do not link libtcb.
 *
 * Threat model for tcb: the user owns /etc/tcb/USER and so controls what
 * sits there; the file is opened without following a symlink and must be a
 * regular file with one link (owlet_open_trusted), owned by the user's uid,
 * and (ONE_LINE) hold exactly one valid shadow line.  The whole job runs
 * with the fs IDs of the user (tcb_drop_priv_r): a hostile directory can
 * make the change fail, never make root write elsewhere.  The lock is the
 * user's own (lckpwdf_tcb), so no other user waits.
 *
 * /etc/shadow and /etc/passwd: the same replacement under the global
 * /etc/.pwd.lock (owlet_pwlock); root only.
 */
#include <errno.h>
#include <fcntl.h>
#include <shadow.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "owlet.h"

static void
put_verbatim(struct owlet_wbuf *w, const char *line, size_t len)
{
	owlet_wbuf_put(w, line, len);
	owlet_wbuf_put(w, "\n", 1);
}

/* Is LINE NAME's entry?  "NAME:" followed by a second colon, the match
 * pam_tcb has always used (a line without a password field is not). */
static int
is_entry(const char *line, size_t len, const char *name, size_t nlen)
{
	return len > nlen && memcmp(line, name, nlen) == 0 &&
	    line[nlen] == ':' &&
	    memchr(line + nlen + 1, ':', len - nlen - 1) != NULL;
}

/* Field I of LINE[0..LEN): *start and *flen; 0, or -1 if there is none. */
static int
field_at(const char *line, size_t len, int i, size_t *start, size_t *flen)
{
	size_t s = 0, e;

	for (;;) {
		const char *c = memchr(line + s, ':', len - s);

		e = c ? (size_t)(c - line) : len;
		if (i-- == 0)
			break;
		if (!c)
			return -1;
		s = e + 1;
	}
	*start = s;
	*flen = e - s;
	return 0;
}

static int
fields_cover(const char *line, size_t len, const struct owlet_edit *ed)
{
	size_t s, l;
	int i;

	for (i = 0; i < OWLET_EDIT_NF; i++)
		if (ed->field[i] && field_at(line, len, i, &s, &l) < 0)
			return 0;
	return 1;
}

/* Put LINE with ED's fields substituted: to W, or, when OUT is not NULL,
 * into OUT (OUTSIZE bytes, NUL-terminated); *OUTLEN gets the length.  -1
 * (E2BIG) if OUT is too small. */
static int
put_edited(struct owlet_wbuf *w, char *out, size_t outsize, size_t *outlen,
    const char *line, size_t len, const struct owlet_edit *ed)
{
	size_t s = 0, used = 0;
	int i;

	for (i = 0; s <= len; i++) {
		const char *c = memchr(line + s, ':', len - s);
		size_t e = c ? (size_t)(c - line) : len;
		const char *p = line + s;
		size_t n = e - s;

		if (i < OWLET_EDIT_NF && ed->field[i]) {
			p = ed->field[i];
			n = strlen(p);
		}
		if (out) {
			if (used + (i > 0) + n >= outsize) {
				errno = E2BIG;
				return -1;
			}
			if (i > 0)
				out[used++] = ':';
			memcpy(out + used, p, n);
			used += n;
		} else {
			if (i > 0)
				owlet_wbuf_put(w, ":", 1);
			owlet_wbuf_put(w, p, n);
		}
		if (!c)
			break;
		s = e + 1;
	}
	if (out) {
		out[used] = '\0';
		*outlen = used;
	} else {
		owlet_wbuf_put(w, "\n", 1);
	}
	return 0;
}

/*
 * Copy NAME's line with ED applied.  Under OWLET_EDIT_SHADOW_LINE the old
 * and the new line must both be valid shadow lines; the new one is built in
 * a bounded buffer and checked before a byte of it is written.
 */
static int
put_entry(struct owlet_wbuf *w, const char *line, size_t len,
    const struct owlet_edit *ed)
{
	char nl[OWLET_LINE_MAX + 1];
	size_t nlen;
	int rc = 0;

	if (!fields_cover(line, len, ed)) {
		errno = EINVAL;
		return -1;
	}
	if (!(ed->flags & OWLET_EDIT_SHADOW_LINE))
		return put_edited(w, NULL, 0, NULL, line, len, ed);
	if (owlet_shadow_check(line, len) < 0)
		return -1;
	if (put_edited(NULL, nl, sizeof(nl), &nlen, line, len, ed) < 0 ||
	    owlet_shadow_check(nl, nlen) < 0)
		rc = -1;
	else
		put_verbatim(w, nl, nlen);
	explicit_bzero(nl, sizeof(nl));
	return rc;
}

static int
edit_ok(const char *name, const struct owlet_edit *ed)
{
	int i;

	if (!owlet_name_ok(name) || ed->field[0])
		return 0;
	for (i = 1; i < OWLET_EDIT_NF; i++)
		if (ed->field[i] && strpbrk(ed->field[i], ":\n"))
			return 0;
	return 1;
}

int
owlet_edit_file(int dirfd, const char *file, off_t max, uid_t owner,
    const char *name, const struct owlet_edit *ed)
{
	struct owlet_replace r;
	struct owlet_lines *lr = NULL;
	struct owlet_wbuf *w = NULL;
	size_t nlen = strlen(name), len;
	struct stat st;
	char *line;
	int fd, rc, found = 0, lines = 0, e = 0;
	int single = ed->flags & OWLET_EDIT_ONE_LINE;

	if (!edit_ok(name, ed)) {
		errno = EINVAL;
		return -1;
	}
	fd = owlet_open_trusted(dirfd, file, max, &st);
	if (fd < 0)
		return -1;
	if (owner != (uid_t)-1 && st.st_uid != owner) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	lr = malloc(sizeof(*lr));
	w = malloc(sizeof(*w));
	if (!lr || !w) {
		e = ENOMEM;
		goto out_nofile;
	}
	if (owlet_replace_begin(&r, dirfd, file, st.st_mode & 07777, st.st_uid,
	    st.st_gid) < 0) {
		e = errno;
		goto out_nofile;
	}
	owlet_wbuf_init(w, r.fd);
	owlet_lines_init(lr, fd);
	while ((rc = owlet_lines_next(lr, &line, &len)) > 0) {
		lines++;
		if (single && owlet_shadow_check(line, len) < 0) {
			rc = -1;
			errno = EINVAL;
			break;
		}
		if (!found && is_entry(line, len, name, nlen)) {
			found = 1;
			if (put_entry(w, line, len, ed) < 0) {
				rc = -1;
				break;
			}
		} else {
			put_verbatim(w, line, len);
		}
	}
	if (rc < 0)
		e = errno;
	else if (!found)
		e = ENOENT;
	else if (single && lines != 1)
		e = EINVAL;
	if (e == 0 && owlet_wbuf_flush(w) < 0)
		e = errno;
	if (e)
		owlet_replace_abort(&r);
	else if (owlet_replace_commit(&r) < 0)
		e = errno;
out_nofile:
	if (lr)
		explicit_bzero(lr, sizeof(*lr));
	if (w)
		explicit_bzero(w, sizeof(*w));
	free(lr);
	free(w);
	close(fd);
	errno = e;
	return e ? -1 : 0;
}
