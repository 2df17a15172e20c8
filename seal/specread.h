#ifndef SEAL_SPECREAD_H
#define SEAL_SPECREAD_H

#include <stdio.h>

#include "seal.h"

/*
 * An mtree(5) spec reader: relative form (".", "..", /set, /unset) and
 * full-path form ("./a/b", libarchive), comments (at line start, or an
 * unescaped '#' anywhere, as NetBSD), "\" continuations, octal and C-style
 * escapes.  Entries come out with full decoded paths ("./a/b").  Errors
 * name the line: "spec:LINE: message".
 */
struct specread;

struct specread *specread_open(FILE *fp, const char *name);
/* 1 entry in *E (caller frees with seal_entry_free), 0 end, -1 error
 * (message printed). */
int specread_next(struct specread *r, struct seal_entry *e);
/* Did the spec declare that absent capability= means "none"? */
int specread_tracks_caps(const struct specread *r);
void specread_close(struct specread *r);

#endif
