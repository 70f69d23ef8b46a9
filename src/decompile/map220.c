/* Quake and GoldSrc maps to Valve 220 .map: not written yet. */
#include "decompile_internal.h"

#include "../core/map.h"

bspkit_result bk_decompile_map220(bspkit_map *map, const bspkit_decompile_options *opts, bk_tbuf *out,
                               bspkit_decompile_stats *stats, bspkit_error *err)
{
    (void)map, (void)opts, (void)out, (void)stats;
    return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, -1, -1, -1, "decompile: .map output is not implemented yet");
}
