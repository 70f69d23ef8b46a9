/* Fuzz target: read -> edit -> write -> read. For any map that opens, an
 * unchanged save must reproduce the input byte for byte, and a save after
 * growing the entity lump must open again. Source maps are also written in
 * the other byte order and with LZMA switched on and off (byte-order
 * conversion walks variable-length lumps such as PHYSCOLLIDE and static
 * props, all hostile here); those only have to fail cleanly or succeed. */
#include "bspkit/edit.h"
#include "exercise.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Saves stay small so one input cannot spend minutes compressing. */
#define MAX_INPUT (1u << 20)

/* Small limits so a forged size field cannot stall or exhaust the run. */
static const bspkit_options LIMITS = {.max_memory = 64u << 20, .max_lump_size = 16u << 20};

static uint8_t *save(bspkit_edit *e, const bspkit_save_options *o, size_t *n)
{
    uint8_t *out = NULL;
    if (bspkit_edit_write(e, o, &out, n, NULL) != BSPKIT_OK)
        return NULL;
    return out;
}

static void reopen(const uint8_t *buf, size_t n, int must_open)
{
    bspkit_map *m = NULL;
    bspkit_error err;
    if (bspkit_open_memory(buf, n, &LIMITS, &m, &err) != BSPKIT_OK) {
        if (must_open) {
            fprintf(stderr, "saved map does not open: %s\n", err.message);
            abort();
        }
        return;
    }
    exercise ex = {.check = exercise_check_abort, .touch = 1, .vis_budget = 1u << 20};
    exercise_map(&ex, m, exercise_report_abort);
    bspkit_close(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > MAX_INPUT)
        return 0;
    bspkit_map *map = NULL;
    if (bspkit_open_memory(data, size, &LIMITS, &map, NULL) != BSPKIT_OK)
        return 0;
    bspkit_edit *e = NULL;
    if (bspkit_edit_new(map, &e, NULL) != BSPKIT_OK) {
        bspkit_close(map);
        return 0;
    }
    size_t n = 0;
    uint8_t *out = save(e, NULL, &n);
    if (out && (n != size || memcmp(out, data, size) != 0)) {
        fprintf(stderr, "unchanged save differs from the input\n");
        abort();
    }
    free(out);

    /* Grow the entity lump when its text parses: every later lump moves. */
    const uint8_t *text;
    size_t len;
    if (bspkit_lump_bytes(map, 0, &text, &len, NULL) == BSPKIT_OK) {
        static const char extra[] = "{\n\"classname\" \"info_null\"\n}\n";
        len = strnlen((const char *)text, len);
        char *grown = malloc(len + sizeof extra);
        if (grown) {
            memcpy(grown, text, len);
            memcpy(grown + len, extra, sizeof extra);
            if (bspkit_edit_set_entities_text(e, grown, len + sizeof extra - 1, NULL) == BSPKIT_OK) {
                out = save(e, NULL, &n);
                /* Saving may refuse (e.g. game-lump data outside its lump);
                 * what it writes must open. */
                if (out)
                    reopen(out, n, 1);
                free(out);
            }
            free(grown);
        }
    }
    if (bspkit_map_format(map)->family == BSPKIT_FAMILY_SOURCE) {
        static const bspkit_save_options variants[] = {
            {.byte_order = BSPKIT_BYTE_ORDER_LITTLE, .compression = BSPKIT_COMPRESSION_NONE},
            {.byte_order = BSPKIT_BYTE_ORDER_BIG},
            {.compression = BSPKIT_COMPRESSION_LZMA},
        };
        for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
            out = save(e, &variants[i], &n);
            if (out)
                reopen(out, n, 0);
            free(out);
        }
    }
    bspkit_edit_free(e);
    bspkit_close(map);
    return 0;
}
