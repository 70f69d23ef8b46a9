/* Source overlays: info_overlay records (OVERLAYS), their water variant
 * (WATEROVERLAYS), and the per-overlay fade distances and system levels. */
#include "bspkit/source_lumps.h"
#include "core/map.h"

/* Valve: Id int, TexInfo short, FaceCountAndRenderOrder ushort, faces at 8.
 * Strata (lump version >= 1): TexInfo widened to int, the ushort padded to 4
 * bytes, faces at 12. The tail (U, V, UVPoints, Origin, BasisNormal) is the
 * same 22 floats. */
#define OVERLAY_TAIL_BYTES 88u

static uint32_t overlay_record_size(bool wide, uint32_t faces)
{
    return (wide ? 12u : 8u) + 4u * faces + OVERLAY_TAIL_BYTES;
}

/* Decodes one record into the members shared by both overlay structs. */
#define DECODE_OVERLAY(o, p, be, wide, nfaces)                                                                \
    do {                                                                                                      \
        (o)->id = rd_i32((p), (be));                                                                          \
        (o)->texinfo = (wide) ? rd_i32((p) + 4, (be)) : rd_i16((p) + 4, (be));                                \
        uint16_t fcro_ = rd_u16((p) + ((wide) ? 8 : 6), (be));                                                \
        (o)->face_count_and_render_order = fcro_;                                                             \
        (o)->face_count = fcro_ & 0x3FFFu;                                                                    \
        (o)->render_order = (uint8_t)(fcro_ >> 14);                                                           \
        const uint8_t *f_ = (p) + ((wide) ? 12 : 8);                                                          \
        for (uint32_t k_ = 0; k_ < (nfaces); k_++)                                                            \
            (o)->faces[k_] = rd_i32(f_ + 4 * k_, (be));                                                       \
        const uint8_t *t_ = f_ + 4 * (nfaces);                                                                \
        for (int k_ = 0; k_ < 2; k_++) {                                                                      \
            (o)->u[k_] = rd_f32(t_ + 4 * k_, (be));                                                           \
            (o)->v[k_] = rd_f32(t_ + 8 + 4 * k_, (be));                                                       \
        }                                                                                                     \
        for (int k_ = 0; k_ < 4; k_++)                                                                        \
            bk_rd_vec3(t_ + 16 + 12 * k_, (be), &(o)->uv_points[k_]);                                         \
        bk_rd_vec3(t_ + 64, (be), &(o)->origin);                                                              \
        bk_rd_vec3(t_ + 76, (be), &(o)->basis_normal);                                                        \
    } while (0)

static void decode_overlays(const uint8_t *src, size_t n, bool be, void *dst)
{
    bspkit_overlay *o = dst;
    for (size_t i = 0; i < n; i++, src += overlay_record_size(false, BSPKIT_OVERLAY_FACES))
        DECODE_OVERLAY(&o[i], src, be, false, BSPKIT_OVERLAY_FACES);
}

static void decode_overlays_wide(const uint8_t *src, size_t n, bool be, void *dst)
{
    bspkit_overlay *o = dst;
    for (size_t i = 0; i < n; i++, src += overlay_record_size(true, BSPKIT_OVERLAY_FACES))
        DECODE_OVERLAY(&o[i], src, be, true, BSPKIT_OVERLAY_FACES);
}

static void decode_water_overlays(const uint8_t *src, size_t n, bool be, void *dst)
{
    bspkit_water_overlay *o = dst;
    for (size_t i = 0; i < n; i++, src += overlay_record_size(false, BSPKIT_WATER_OVERLAY_FACES))
        DECODE_OVERLAY(&o[i], src, be, false, BSPKIT_WATER_OVERLAY_FACES);
}

static void decode_water_overlays_wide(const uint8_t *src, size_t n, bool be, void *dst)
{
    bspkit_water_overlay *o = dst;
    for (size_t i = 0; i < n; i++, src += overlay_record_size(true, BSPKIT_WATER_OVERLAY_FACES))
        DECODE_OVERLAY(&o[i], src, be, true, BSPKIT_WATER_OVERLAY_FACES);
}

static void decode_fades(const uint8_t *src, size_t n, bool be, void *dst)
{
    bspkit_overlay_fade *o = dst;
    for (size_t i = 0; i < n; i++, src += 8) {
        o[i].fade_dist_min_sq = rd_f32(src, be);
        o[i].fade_dist_max_sq = rd_f32(src + 4, be);
    }
}

static void decode_system_levels(const uint8_t *src, size_t n, bool be, void *dst)
{
    (void)be; /* four single bytes */
    bspkit_overlay_system_level *o = dst;
    for (size_t i = 0; i < n; i++, src += 4)
        o[i] = (bspkit_overlay_system_level){src[0], src[1], src[2], src[3]};
}

static bool strata_overlays(const bspkit_map *map, int lump)
{
    return (map->format.variant & BSPKIT_VARIANT_WIDE_LUMPS) && map->lumps[lump].version >= 1;
}

static bk_array_spec overlays_spec(bspkit_map *map)
{
    bool wide = strata_overlays(map, BSPKIT_S_OVERLAYS);
    return (bk_array_spec){BSPKIT_S_OVERLAYS, overlay_record_size(wide, BSPKIT_OVERLAY_FACES), sizeof(bspkit_overlay),
                           wide ? decode_overlays_wide : decode_overlays};
}

static bk_array_spec water_overlays_spec(bspkit_map *map)
{
    bool wide = strata_overlays(map, BSPKIT_S_WATEROVERLAYS);
    return (bk_array_spec){BSPKIT_S_WATEROVERLAYS, overlay_record_size(wide, BSPKIT_WATER_OVERLAY_FACES),
                           sizeof(bspkit_water_overlay), wide ? decode_water_overlays_wide : decode_water_overlays};
}

static bk_array_spec fades_spec(bspkit_map *map)
{
    (void)map;
    return (bk_array_spec){BSPKIT_S_OVERLAY_FADES, 8, sizeof(bspkit_overlay_fade), decode_fades};
}

static bk_array_spec system_levels_spec(bspkit_map *map)
{
    (void)map;
    return (bk_array_spec){BSPKIT_S_OVERLAY_SYSTEM_LEVELS, 4, sizeof(bspkit_overlay_system_level),
                           decode_system_levels};
}

BK_ARRAY_ACCESSOR(bspkit_get_overlays, bspkit_overlay, EX_OVERLAYS, overlays_spec)
BK_ARRAY_ACCESSOR(bspkit_get_water_overlays, bspkit_water_overlay, EX_WATER_OVERLAYS, water_overlays_spec)
BK_ARRAY_ACCESSOR(bspkit_get_overlay_fades, bspkit_overlay_fade, EX_OVERLAY_FADES, fades_spec)
BK_ARRAY_ACCESSOR(bspkit_get_overlay_system_levels, bspkit_overlay_system_level, EX_OVERLAY_SYSTEM_LEVELS,
                  system_levels_spec)
