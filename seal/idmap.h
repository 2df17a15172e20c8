#ifndef SEAL_IDMAP_H
#define SEAL_IDMAP_H

struct idmap;
/* ROOT: the tree, whose etc/passwd or etc/group is preferred; GROUP: gids. */
struct idmap *seal_idmap_new(const char *root, int group);
/* The name of ID, "" if it has none. */
const char *seal_idmap_name(struct idmap *m, unsigned id);
/* NULL if ID was never looked up. */
const char *seal_idmap_lookup(struct idmap *m, unsigned id);
void seal_idmap_free(struct idmap *m);

#endif
