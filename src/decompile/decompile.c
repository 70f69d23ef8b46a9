/* bspkit_decompile: picks the decompiler for the map's family and writes
 * the text it builds, atomically. */
#include "decompile_internal.h"

#include "bspkit/edit.h"

#include "core/fmt_num.h"
#include "core/map.h"
#include "core/save_file.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t bk_decompile_num_to(char *out, double v)
{
    if (!isfinite(v))
        v = 0;
    double r = rint(v);
    /* Integers (most of the output) never as "-0"; the rest as "%.10g". */
    return fabs(v - r) < 1e-6 && fabs(r) < 1e15 ? bk_fmt_int(out, (long long)r) : bk_fmt_g(out, v, 10);
}

void bk_decompile_num(char *buf, size_t size, double v)
{
    char tmp[BK_FMT_NUM_CAP];
    size_t n = bk_decompile_num_to(tmp, v);
    if (size == 0)
        return;
    if (n >= size)
        n = size - 1;
    memcpy(buf, tmp, n);
    buf[n] = '\0';
}

bspkit_result bspkit_decompile_memory(bspkit_map *map, const bspkit_decompile_options *opts, char **out,
                                      size_t *size, bspkit_decompile_stats *stats, bspkit_error *err)
{
    if (!map || !out || !size)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "decompile: map and output required");
    *out = NULL;
    *size = 0;
    bspkit_decompile_options defaults = {0};
    if (!opts)
        opts = &defaults;
    bspkit_decompile_stats local;
    if (!stats)
        stats = &local;
    memset(stats, 0, sizeof *stats);

    bspkit_family family = bspkit_map_format(map)->family;
    bool source = family == BSPKIT_FAMILY_SOURCE;
    if (family == BSPKIT_FAMILY_TITANFALL)
        return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, -1, -1, -1,
                       "decompile: %s maps are not decompiled (bspkit reads their geometry only)",
                       bspkit_map_format(map)->name);
    bspkit_decompile_format fmt = opts->format;
    if (fmt == BSPKIT_DECOMPILE_AUTO)
        fmt = source ? BSPKIT_DECOMPILE_VMF : BSPKIT_DECOMPILE_MAP;
    if (fmt == BSPKIT_DECOMPILE_VMF && !source)
        return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, -1, -1, -1,
                       "decompile: VMF output needs a Source map (this is %s); use the .map format",
                       bspkit_map_format(map)->name);
    if (fmt == BSPKIT_DECOMPILE_MAP && source)
        return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, -1, -1, -1,
                       "decompile: .map output is for the Quake, GoldSrc, Quake 2 and Quake 3 families; Source maps "
                       "decompile to VMF");

    bk_tbuf text = {0};
    bspkit_result r = fmt == BSPKIT_DECOMPILE_VMF ? bk_decompile_vmf(map, opts, &text, stats, err)
                      : family == BSPKIT_FAMILY_QUAKE2 || family == BSPKIT_FAMILY_QUAKE3
                          ? bk_decompile_brushmap(map, opts, &text, stats, err)
                                                      : bk_decompile_map220(map, opts, &text, stats, err);
    if (r == BSPKIT_OK && text.failed)
        r = bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "decompile: out of memory building the output text");
    if (r != BSPKIT_OK) {
        tb_free(&text);
        return r;
    }
    if (!text.data && !(text.data = calloc(1, 1))) /* nothing written: still an empty string */
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "decompile: out of memory");
    *out = text.data;
    *size = text.size;
    stats->bytes_written = text.size;
    return BSPKIT_OK;
}

bspkit_result bspkit_decompile(bspkit_map *map, const char *path, const bspkit_decompile_options *opts,
                               bspkit_decompile_stats *stats, bspkit_error *err)
{
    if (!path)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "decompile: output path required");
    char *text = NULL;
    size_t size = 0;
    bspkit_result r = bspkit_decompile_memory(map, opts, &text, &size, stats, err);
    if (r == BSPKIT_OK)
        r = bk_save_bytes(path, text, size, BK_SAVE_DERIVED, err);
    free(text);
    return r;
}
