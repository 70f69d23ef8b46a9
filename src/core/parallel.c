/* bk_parallel_for (see parallel.h). */
#include "core/parallel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#define MAX_THREADS 256

/* Asked once: sysconf reads a file under /sys on every call. */
unsigned bk_cpu_count(void)
{
    static atomic_uint known;
    unsigned count = atomic_load_explicit(&known, memory_order_relaxed);
    if (count == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        count = n < 1 ? 1u : n > MAX_THREADS ? MAX_THREADS : (unsigned)n;
        atomic_store_explicit(&known, count, memory_order_relaxed);
    }
    return count;
}

typedef struct job {
    atomic_size_t next;
    size_t count;
    void (*fn)(void *ctx, size_t i);
    void *ctx;
} job;

static void *worker(void *arg)
{
    job *j = arg;
    for (size_t i; (i = atomic_fetch_add(&j->next, 1)) < j->count;)
        j->fn(j->ctx, i);
    return NULL;
}

void bk_parallel_for(size_t count, unsigned threads, void (*fn)(void *ctx, size_t i), void *ctx)
{
    if (count == 0)
        return;
    if (threads == 0)
        threads = bk_cpu_count();
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;
    if ((size_t)threads > count)
        threads = (unsigned)count;
    job j = {.count = count, .fn = fn, .ctx = ctx};
    atomic_init(&j.next, 0);
    pthread_t tids[MAX_THREADS];
    unsigned started = 0;
    while (started + 1 < threads && pthread_create(&tids[started], NULL, worker, &j) == 0)
        started++;
    worker(&j);
    for (unsigned t = 0; t < started; t++)
        pthread_join(tids[t], NULL);
}
