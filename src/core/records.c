/* Record decoders whose layout is the same in every family. */
#include "core/map.h"

void bk_decode_planes(const uint8_t *src, size_t n, bool be, void *dst)
{
    bspkit_plane *o = dst;
    for (size_t i = 0; i < n; i++, src += 20) {
        bk_rd_vec3(src, be, &o[i].normal);
        o[i].dist = rd_f32(src + 12, be);
        o[i].type = rd_i32(src + 16, be);
    }
}

void bk_decode_vertexes(const uint8_t *src, size_t n, bool be, void *dst)
{
    bspkit_vec3 *o = dst;
    for (size_t i = 0; i < n; i++, src += 12)
        bk_rd_vec3(src, be, &o[i]);
}

void bk_decode_i32(const uint8_t *src, size_t n, bool be, void *dst)
{
    int32_t *o = dst;
    for (size_t i = 0; i < n; i++)
        o[i] = rd_i32(src + 4 * i, be);
}

/* 16-bit indices widened to 32 bits, so narrow and wide layouts share one native type. */
void bk_decode_u16_as_u32(const uint8_t *src, size_t n, bool be, void *dst)
{
    uint32_t *o = dst;
    for (size_t i = 0; i < n; i++)
        o[i] = rd_u16(src + 2 * i, be);
}

void bk_decode_u32(const uint8_t *src, size_t n, bool be, void *dst)
{
    uint32_t *o = dst;
    for (size_t i = 0; i < n; i++)
        o[i] = rd_u32(src + 4 * i, be);
}
