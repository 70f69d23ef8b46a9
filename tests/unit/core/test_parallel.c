/* bk_parallel_for: every index is run exactly once, whatever the thread
 * count (including more threads than indices and the machine's default),
 * and each index's result lands in its own slot. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdatomic.h>
#include <stdlib.h>

#include "core/parallel.h"

typedef struct counts {
    atomic_uint *hits;
    uint64_t *square;
} counts;

static void visit(void *ctx, size_t i)
{
    counts *c = ctx;
    atomic_fetch_add(&c->hits[i], 1);
    c->square[i] = (uint64_t)i * i;
}

static void test_each_index_once(void **state)
{
    (void)state;
    const size_t sizes[] = {0, 1, 3, 1000, 20000};
    const unsigned threads[] = {0, 1, 2, 4, 64, 1000};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
            size_t n = sizes[s];
            counts c = {calloc(n + 1, sizeof *c.hits), calloc(n + 1, sizeof *c.square)};
            assert_non_null(c.hits);
            assert_non_null(c.square);
            bk_parallel_for(n, threads[t], visit, &c);
            for (size_t i = 0; i < n; i++) {
                assert_int_equal(atomic_load(&c.hits[i]), 1);
                assert_true(c.square[i] == (uint64_t)i * i);
            }
            assert_int_equal(atomic_load(&c.hits[n]), 0); /* nothing past the end */
            free(c.hits);
            free(c.square);
        }
    }
    assert_true(bk_cpu_count() >= 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_each_index_once)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
