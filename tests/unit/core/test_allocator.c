/* Allocator hooks in the open options: every block a map keeps comes from
 * the caller's allocator and goes back to it by bspkit_close(); a failing
 * allocator gives BSPKIT_ERR_NOMEM, never a crash; half a pair of hooks is
 * refused. Each sample is opened from memory with its bytes copied, so the
 * copy, the decompressed lumps (in the LZMA sample) and the decoded arrays
 * all have to use the hooks. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "bspkit/bspkit.h"
#include "bspkit/write.h"

#include <stdlib.h>
#include <string.h>

/* Counts live blocks; each block carries its size in a 16-byte header so the
 * bytes outstanding can be checked too. */
typedef struct counter {
    size_t live_blocks, live_bytes, calls;
    size_t fail_after; /* 0 = never fail */
} counter;

static void *count_alloc(void *user, size_t size)
{
    counter *c = user;
    assert_true(size > 0);
    if (c->fail_after && c->calls >= c->fail_after)
        return NULL;
    c->calls++;
    uint8_t *p = malloc(16 + size);
    if (!p)
        return NULL;
    memcpy(p, &size, sizeof size);
    c->live_blocks++;
    c->live_bytes += size;
    return p + 16;
}

static void count_free(void *user, void *ptr)
{
    counter *c = user;
    assert_non_null(ptr);
    uint8_t *p = (uint8_t *)ptr - 16;
    size_t size;
    memcpy(&size, p, sizeof size);
    assert_true(c->live_blocks > 0 && c->live_bytes >= size);
    c->live_blocks--;
    c->live_bytes -= size;
    free(p);
}

/* Decodes what validation reads: every core array, lighting, props and more. */
static void decode_everything(bspkit_map *map)
{
    bspkit_report rep;
    bspkit_error err;
    assert_int_equal(bspkit_validate(map, &rep, &err), BSPKIT_OK);
    bspkit_report_free(&rep);
}

static void test_every_block_through_hooks(void **state)
{
    (void)state;
    const bspkit_sample_kind kinds[] = {BSPKIT_SAMPLE_QUAKE_ROOM, BSPKIT_SAMPLE_GOLDSRC_ROOM,
                                        BSPKIT_SAMPLE_SOURCE_ROOM, BSPKIT_SAMPLE_SOURCE_ROOM_LZMA};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        uint8_t *data;
        size_t size;
        bspkit_error err;
        assert_int_equal(bspkit_sample_build(kinds[k], &data, &size, &err), BSPKIT_OK);

        counter c = {0};
        bspkit_options opts = {0};
        opts.flags = BSPKIT_OPEN_COPY;
        opts.allocator = (bspkit_allocator){count_alloc, count_free, &c};
        bspkit_map *map;
        assert_int_equal(bspkit_open_memory(data, size, &opts, &map, &err), BSPKIT_OK);
        /* The map and the copy of the file. */
        assert_true(c.live_blocks >= 2);
        assert_true(c.live_bytes >= size);
        size_t after_open = c.live_bytes;
        decode_everything(map);
        /* Decoded arrays came from the hooks, and the accounting saw them. */
        assert_true(c.live_bytes > after_open);
        assert_true(c.live_bytes - after_open >= bspkit_map_memory_used(map));
        bspkit_close(map);
        assert_int_equal(c.live_blocks, 0);
        assert_int_equal(c.live_bytes, 0);
        bspkit_free(data);
    }
}

static void test_failing_allocator(void **state)
{
    (void)state;
    uint8_t *data;
    size_t size;
    bspkit_error err;
    assert_int_equal(bspkit_sample_build(BSPKIT_SAMPLE_SOURCE_ROOM_LZMA, &data, &size, &err), BSPKIT_OK);
    /* Fail at every allocation in turn: opening or decoding fails cleanly
     * and nothing leaks. */
    bool decoded_failure_seen = false;
    for (size_t n = 1; n < 200; n++) {
        counter c = {0};
        c.fail_after = n;
        bspkit_options opts = {0};
        opts.flags = BSPKIT_OPEN_COPY;
        opts.allocator = (bspkit_allocator){count_alloc, count_free, &c};
        bspkit_map *map = NULL;
        bspkit_result r = bspkit_open_memory(data, size, &opts, &map, &err);
        if (r != BSPKIT_OK) {
            assert_int_equal(r, BSPKIT_ERR_NOMEM);
            assert_null(map);
        } else {
            const bspkit_face *faces;
            size_t nf;
            r = bspkit_get_faces(map, &faces, &nf, &err);
            if (r != BSPKIT_OK) {
                assert_int_equal(r, BSPKIT_ERR_NOMEM);
                decoded_failure_seen = true;
            }
            bspkit_close(map);
        }
        assert_int_equal(c.live_blocks, 0);
    }
    assert_true(decoded_failure_seen);
    bspkit_free(data);
}

/* A small map's decoded arrays come from one block: decoding every array
 * of the Quake room calls the allocator once, the arrays lie apart and
 * aligned, the accounting still charges decoded arrays, and the memory
 * limit still refuses an array that would pass it. */
typedef struct span {
    uintptr_t at;
    size_t bytes;
} span;

static int by_start(const void *a, const void *b)
{
    const span *x = a, *y = b;
    return x->at < y->at ? -1 : x->at > y->at;
}

#define DECODE(fn, T)                                                                                  \
    do {                                                                                               \
        const T *items_;                                                                               \
        size_t n_;                                                                                     \
        assert_int_equal(fn(map, &items_, &n_, &err), BSPKIT_OK);                                      \
        if (n_ > 0) {                                                                                  \
            assert_int_equal((uintptr_t)items_ % _Alignof(T), 0);                                     \
            spans[count++] = (span){(uintptr_t)items_, n_ * sizeof(T)};                                \
            charged += n_ * sizeof(T);                                                                 \
        }                                                                                              \
    } while (0)

static void test_small_map_arrays_share_one_block(void **state)
{
    (void)state;
    uint8_t *data;
    size_t size;
    bspkit_error err;
    assert_int_equal(bspkit_sample_build(BSPKIT_SAMPLE_QUAKE_ROOM, &data, &size, &err), BSPKIT_OK);
    counter c = {0};
    bspkit_options opts = {0};
    opts.allocator = (bspkit_allocator){count_alloc, count_free, &c};
    bspkit_map *map;
    assert_int_equal(bspkit_open_memory(data, size, &opts, &map, &err), BSPKIT_OK);
    size_t calls = c.calls;
    uint64_t used = bspkit_map_memory_used(map);
    span spans[16];
    size_t count = 0, charged = 0;
    DECODE(bspkit_get_planes, bspkit_plane);
    DECODE(bspkit_get_vertexes, bspkit_vec3);
    DECODE(bspkit_get_edges, bspkit_edge);
    DECODE(bspkit_get_faces, bspkit_face);
    DECODE(bspkit_get_nodes, bspkit_node);
    DECODE(bspkit_get_leafs, bspkit_leaf);
    DECODE(bspkit_get_models, bspkit_model);
    DECODE(bspkit_get_texinfo, bspkit_texinfo);
    DECODE(bspkit_get_leaf_faces, uint32_t);
    DECODE(bspkit_get_clipnodes, bspkit_clipnode);
    assert_true(count >= 9);
    assert_int_equal(c.calls, calls + 1);
    /* Arrays read in place (planes, vertexes) are not charged. */
    assert_true(bspkit_map_memory_used(map) > used && bspkit_map_memory_used(map) <= used + charged);
    qsort(spans, count, sizeof spans[0], by_start);
    for (size_t i = 1; i < count; i++)
        assert_true(spans[i - 1].at + spans[i - 1].bytes <= spans[i].at);
    bspkit_close(map);
    assert_int_equal(c.live_blocks, 0);

    /* A limit just under what the faces need: refused as before. */
    opts.max_memory = used + 1;
    assert_int_equal(bspkit_open_memory(data, size, &opts, &map, &err), BSPKIT_OK);
    const bspkit_face *faces;
    size_t nf;
    assert_int_equal(bspkit_get_faces(map, &faces, &nf, &err), BSPKIT_ERR_LIMIT);
    assert_non_null(strstr(err.message, "memory limit"));
    bspkit_close(map);
    assert_int_equal(c.live_blocks, 0);
    bspkit_free(data);
}

static void test_half_a_pair_refused(void **state)
{
    (void)state;
    uint8_t *data;
    size_t size;
    bspkit_error err;
    assert_int_equal(bspkit_sample_build(BSPKIT_SAMPLE_QUAKE_ROOM, &data, &size, &err), BSPKIT_OK);
    counter c = {0};
    bspkit_options opts = {0};
    opts.allocator.alloc = count_alloc;
    opts.allocator.user = &c;
    bspkit_map *map = NULL;
    assert_int_equal(bspkit_open_memory(data, size, &opts, &map, &err), BSPKIT_ERR_ARGUMENT);
    assert_null(map);
    assert_non_null(strstr(err.message, "allocator"));
    assert_int_equal(c.calls, 0);
    bspkit_free(data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_block_through_hooks),
        cmocka_unit_test(test_failing_allocator),
        cmocka_unit_test(test_small_map_arrays_share_one_block),
        cmocka_unit_test(test_half_a_pair_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
