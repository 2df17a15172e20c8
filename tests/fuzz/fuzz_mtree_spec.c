/*
 * fuzz_mtree_spec: the mtree spec reader (seal/specread.c) on arbitrary
 * bytes, through fmemopen as seal verify reads a file.  Besides the
 * sanitizers: every entry it returns has a full path starting with "." and
 * a type, and writing an entry and reading it back yields the same path,
 * type and mode (the writer's escaping and the reader's unescaping agree).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "seal.h"
#include "specread.h"

static void
roundtrip(const struct seal_entry *e)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	struct seal_entry back = { 0 };
	struct specread *r;
	FILE *in;

	if (!out)
		return;
	fputs("#mtree\n. type=dir\n", out);
	seal_entry_write(out, e, K_TYPE | K_MODE);
	fclose(out);
	in = fmemopen(text, len, "r");
	r = in ? specread_open(in, "roundtrip") : NULL;
	if (r && specread_next(r, &back) == 1 &&	/* "." */
	    (seal_entry_free(&back), specread_next(r, &back) == 1)) {
		const char *name = strrchr(e->path, '/');
		const char *bname = strrchr(back.path, '/');
		if (!name || !bname || strcmp(name, bname) != 0 ||
		    back.type != e->type ||
		    ((e->keys & K_MODE) && back.mode != e->mode))
			abort();
	}
	seal_entry_free(&back);
	specread_close(r);
	if (in)
		fclose(in);
	free(text);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct seal_entry e;
	struct specread *r;
	FILE *fp;
	int n = 0;

	if (size == 0)
		return 0;
	fp = fmemopen((void *)data, size, "r");
	if (!fp)
		return 0;
	/* errors go to stderr through warnx: keep the output quiet */
	r = specread_open(fp, "fuzz");
	while (r && n++ < 10000 && specread_next(r, &e) == 1) {
		if (!e.path || e.path[0] != '.' || e.type == T_NONE)
			abort();
		if (strcmp(e.path, ".") != 0 && e.type != T_NONE)
			roundtrip(&e);
		seal_entry_free(&e);
	}
	specread_close(r);
	fclose(fp);
	return 0;
}
