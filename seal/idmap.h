#ifndef SEAL_IDMAP_H
#define SEAL_IDMAP_H

struct idmap;
/* ROOT: the tree, whose etc/passwd or etc/group is preferred; GROUP: gids.
 * NULL after a message naming the problem (a line too long, no memory). */
struct idmap *seal_idmap_new(const char *root, int group);
/* The name of ID, "" if it has none; NULL with errno ENOMEM. */
const char *seal_idmap_name(struct idmap *m, unsigned id);
/* seal_idmap_name for a tool's output: on failure (no memory) a message,
 * *FAILED set and "", so that the caller counts an error (and exits 1)
 * rather than silently describe a file with a wrong name. */
const char *seal_idmap_need(struct idmap *m, unsigned id, int *failed);
/* NULL if ID was never looked up. */
const char *seal_idmap_lookup(struct idmap *m, unsigned id);
void seal_idmap_free(struct idmap *m);

#endif
