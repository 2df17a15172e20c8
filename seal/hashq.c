#include <errno.h>
#include <stdatomic.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "hashq.h"

#define RING		512
#define WAKE_BATCH	16	/* pending jobs that justify waking a worker */
#define READ_SIZE	(64 * 1024)	/* fits L2 with room: read, then hash from cache */

enum { S_EMPTY, S_PENDING, S_BUSY, S_DONE };

struct slot {
	struct seal_entry e;
	int fd;
	_Atomic int state;	/* S_*; DONE is published without the lock */
	enum walk_event ev;
};

struct hashq {
	struct slot ring[RING];
	size_t head;		/* next to emit: the emitting thread's alone */
	size_t tail, next;	/* fill, next job: under lock */
	pthread_mutex_t lock;
	pthread_cond_t work, done;
	int stop;
	unsigned idle;		/* workers waiting for work */
	unsigned pending;	/* slots in S_PENDING */
	_Atomic int waiting;	/* the emitter sleeps on the head slot */
	unsigned nthreads;
	pthread_t *threads;
	unsigned keys;
	const EVP_MD *sha256;
	EVP_MD_CTX *md;		/* the emitting thread's, when it helps */
	unsigned char *buf;
	void (*emit)(void *, struct seal_entry *, enum walk_event);
	void *ctx;
};

static void
hash_file(struct hashq *q, struct slot *s, EVP_MD_CTX *md, unsigned char *buf)
{
	struct seal_entry *e = &s->e;
	unsigned char cap[64];
	struct stat after;
	ssize_t n;
	int i;

	if (q->keys & K_CAPS) {
		n = fgetxattr(s->fd, "security.capability", cap, sizeof(cap));
		for (i = 0; n > 0 && i < n; i++)
			snprintf(e->caps + 2 * i, 3, "%02x", cap[i]);
	}
	if (q->keys & K_SHA256) {
		uint64_t left = e->size;

		/* Exactly the size fstat reported: no extra read for EOF; a
		 * file that shrank, grew or changed meanwhile is caught by the
		 * fstat below or by a short read. */
		EVP_DigestInit_ex2(md, q->sha256, NULL);
		while (left > 0) {
			n = read(s->fd, buf, left < READ_SIZE ? left : READ_SIZE);
			if (n <= 0) {
				e->error = n < 0 ? errno : EAGAIN;
				break;
			}
			EVP_DigestUpdate(md, buf, (size_t)n);
			left -= (uint64_t)n;
		}
		EVP_DigestFinal_ex(md, e->sha256, NULL);
		/* A file written while we read it has no trustworthy hash. */
		if (!e->error && (fstat(s->fd, &after) < 0 ||
		    (uint64_t)after.st_size != e->size ||
		    after.st_mtim.tv_sec != e->mtime.tv_sec ||
		    after.st_mtim.tv_nsec != e->mtime.tv_nsec))
			e->error = EAGAIN;
	}
	close(s->fd);
	s->fd = -1;
}

/* Under the lock: the next pending slot, now busy, or NULL. */
static struct slot *
take_job(struct hashq *q)
{
	struct slot *s;

	while (q->next < q->tail &&
	    atomic_load(&q->ring[q->next % RING].state) != S_PENDING)
		q->next++;
	if (q->next == q->tail)
		return NULL;
	s = &q->ring[q->next++ % RING];
	atomic_store(&s->state, S_BUSY);
	q->pending--;
	return s;
}

/* Hash S (not under the lock) and publish it. */
static void
run_job(struct hashq *q, struct slot *s, EVP_MD_CTX *md, unsigned char *buf)
{
	if (md && buf)
		hash_file(q, s, md, buf);
	else {
		close(s->fd);
		s->fd = -1;
		s->e.error = ENOMEM;
	}
	atomic_store(&s->state, S_DONE);
}

static void *
worker(void *arg)
{
	struct hashq *q = arg;
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	unsigned char *buf = malloc(READ_SIZE);
	struct slot *s;

	pthread_mutex_lock(&q->lock);
	for (;;) {
		if (!(s = take_job(q))) {
			if (q->stop)
				break;
			q->idle++;
			pthread_cond_wait(&q->work, &q->lock);
			q->idle--;
			continue;
		}
		pthread_mutex_unlock(&q->lock);
		run_job(q, s, md, buf);
		/* Published without the lock; wake the emitter only if it
		 * sleeps (it re-checks the state under the lock after
		 * announcing itself, so no wake-up is lost). */
		if (atomic_load(&q->waiting)) {
			pthread_mutex_lock(&q->lock);
			pthread_cond_signal(&q->done);
			pthread_mutex_unlock(&q->lock);
		}
		pthread_mutex_lock(&q->lock);
	}
	pthread_mutex_unlock(&q->lock);
	EVP_MD_CTX_free(md);
	free(buf);
	return NULL;
}

/* Emit finished slots at the head; with WAIT, wait for the head first. */
static void
drain(struct hashq *q, int wait)
{
	for (;;) {
		struct slot *s;

		if (q->head == q->tail)	/* tail only grows in push(), ours */
			return;
		s = &q->ring[q->head % RING];
		if (atomic_load(&s->state) != S_DONE) {
			if (!wait)
				return;
			/* Rather than sleep, hash a pending file here: the
			 * head's own, or a later one while a worker has the
			 * head.  Sleep only when nothing is left to take. */
			struct slot *job;

			pthread_mutex_lock(&q->lock);
			if (q->pending && q->idle)
				pthread_cond_broadcast(&q->work);
			if ((job = take_job(q))) {
				pthread_mutex_unlock(&q->lock);
				run_job(q, job, q->md, q->buf);
				continue;
			}
			atomic_store(&q->waiting, 1);
			while (atomic_load(&s->state) != S_DONE)
				pthread_cond_wait(&q->done, &q->lock);
			atomic_store(&q->waiting, 0);
			pthread_mutex_unlock(&q->lock);
		}
		q->emit(q->ctx, s->ev == WALK_ENTRY ? &s->e : NULL, s->ev);
		if (s->ev == WALK_ENTRY)
			seal_entry_free(&s->e);
		atomic_store(&s->state, S_EMPTY);
		q->head++;
		wait = 0;
	}
}

struct hashq *
hashq_new(unsigned threads, unsigned keys,
    void (*emit)(void *, struct seal_entry *, enum walk_event), void *ctx)
{
	struct hashq *q = calloc(1, sizeof(*q));
	unsigned i;

	if (!q)
		return NULL;
	q->keys = keys;
	q->emit = emit;
	q->ctx = ctx;
	q->sha256 = EVP_sha256();
	q->md = EVP_MD_CTX_new();
	q->buf = malloc(READ_SIZE);
	/* The calling thread is one of THREADS: it hashes whenever it would
	 * otherwise wait, so THREADS - 1 workers keep THREADS CPUs busy
	 * without more runnable threads than CPUs. */
	q->threads = threads > 1 ? calloc(threads - 1, sizeof(*q->threads)) : NULL;
	if (!q->md || !q->buf || (threads > 1 && !q->threads)) {
		EVP_MD_CTX_free(q->md);
		free(q->buf);
		free(q->threads);
		free(q);
		return NULL;
	}
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->work, NULL);
	pthread_cond_init(&q->done, NULL);
	for (i = 0; i + 1 < threads; i++)
		if (pthread_create(&q->threads[q->nthreads], NULL, worker, q) == 0)
			q->nthreads++;
	return q;
}

int
hashq_push(struct hashq *q, struct seal_entry *e, int fd, enum walk_event ev)
{
	struct slot *s;

	if (q->tail - q->head == RING)
		drain(q, 1);
	s = &q->ring[q->tail % RING];
	if (e)
		s->e = *e;
	else
		memset(&s->e, 0, sizeof(s->e));
	s->fd = fd;
	s->ev = ev;
	pthread_mutex_lock(&q->lock);
	atomic_store(&s->state, fd >= 0 ? S_PENDING : S_DONE);
	q->tail++;
	/* Wake sleeping workers in batches, not once per small file. */
	if (fd >= 0 && ++q->pending >= WAKE_BATCH && q->idle)
		pthread_cond_broadcast(&q->work);
	pthread_mutex_unlock(&q->lock);
	drain(q, 0);
	return 0;
}

void
hashq_finish(struct hashq *q)
{
	unsigned i;

	while (q->head < q->tail)
		drain(q, 1);
	pthread_mutex_lock(&q->lock);
	q->stop = 1;
	pthread_cond_broadcast(&q->work);
	pthread_mutex_unlock(&q->lock);
	for (i = 0; i < q->nthreads; i++)
		pthread_join(q->threads[i], NULL);
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->work);
	pthread_cond_destroy(&q->done);
	EVP_MD_CTX_free(q->md);
	free(q->buf);
	free(q->threads);
	free(q);
}
