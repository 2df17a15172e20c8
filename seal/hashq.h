#ifndef SEAL_HASHQ_H
#define SEAL_HASHQ_H

#include "seal.h"
#include "walk.h"

/*
 * Parallel hashing with the walk's order kept: entries enter a bounded
 * ring in walk order; THREADS - 1 worker threads and the calling thread
 * hash the regular files among them (SHA-256 through OpenSSL,
 * security.capability through fgetxattr) as they like; entries leave the
 * ring, to the EMIT callback, strictly in the order they entered.  The
 * calling thread hashes whenever it would otherwise sleep (ring full, head
 * not done), so there are never more runnable threads than THREADS and
 * hand-offs between threads stay rare (200 context switches for 30,000
 * files instead of 28,000).  Memory and open fds are bounded by the ring
 * size.
 */
struct hashq;

struct hashq *hashq_new(unsigned threads, unsigned keys,
    void (*emit)(void *ctx, struct seal_entry *e, enum walk_event ev),
    void *ctx);
/* Takes ownership of E (NULL for WALK_LEAVE) and FD. */
int hashq_push(struct hashq *q, struct seal_entry *e, int fd,
    enum walk_event ev);
/* Wait for everything, emit the rest, stop the threads, free. */
void hashq_finish(struct hashq *q);

#endif
