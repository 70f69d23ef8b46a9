/* Source overlays: info_overlay records (OVERLAYS), their water variant
 * (WATEROVERLAYS), and the per-overlay fade distances and system levels.
 * Their layouts, with Strata's widened overlay records, are declared in
 * source/records.c. */
#include "bspkit/source_lumps.h"
#include "core/map.h"
#include "formats/source/records.h"

BK_SOURCE_ARRAY_ACCESSOR(bspkit_get_overlays, bspkit_overlay, EX_OVERLAYS, BSPKIT_S_OVERLAYS)
BK_SOURCE_ARRAY_ACCESSOR(bspkit_get_water_overlays, bspkit_water_overlay, EX_WATER_OVERLAYS, BSPKIT_S_WATEROVERLAYS)
BK_SOURCE_ARRAY_ACCESSOR(bspkit_get_overlay_fades, bspkit_overlay_fade, EX_OVERLAY_FADES, BSPKIT_S_OVERLAY_FADES)
BK_SOURCE_ARRAY_ACCESSOR(bspkit_get_overlay_system_levels, bspkit_overlay_system_level, EX_OVERLAY_SYSTEM_LEVELS,
                         BSPKIT_S_OVERLAY_SYSTEM_LEVELS)
