/* Source maps to Hammer VMF: not written yet. */
#include "decompile_internal.h"

#include "../core/map.h"

bspkit_result bk_decompile_vmf(bspkit_map *map, const bspkit_decompile_options *opts, bk_tbuf *out,
                               bspkit_decompile_stats *stats, bspkit_error *err)
{
    (void)map, (void)opts, (void)out, (void)stats;
    return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, -1, -1, -1, "decompile: VMF output is not implemented yet");
}
