/* Independent pieces of work on the machine's cores: the caller's thread
 * and up to threads - 1 more take the next index until all are done. Each
 * index writes only its own results, so the outcome does not depend on the
 * thread count. */
#ifndef BSPKIT_CORE_PARALLEL_H
#define BSPKIT_CORE_PARALLEL_H

#include <stddef.h>

/* The number of online CPUs (at least 1, at most 256). */
unsigned bk_cpu_count(void);

/* Runs fn(ctx, i) for every i in [0, count), taken in increasing order, on
 * up to `threads` threads (0: bk_cpu_count(); at most 256), the calling one
 * among them; a thread that cannot be started leaves its share to the
 * others. Returns when all are done. */
void bk_parallel_for(size_t count, unsigned threads, void (*fn)(void *ctx, size_t i), void *ctx);

#endif
