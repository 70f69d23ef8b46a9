/* Lightmap geometry internals shared with validation and the tests. */
#ifndef BSPKIT_ANALYSIS_LIGHTMAP_INTERNAL_H
#define BSPKIT_ANALYSIS_LIGHTMAP_INTERNAL_H

#include "bspkit/bspkit.h"
#include "bspkit/bspx.h"
#include "bspkit/lighting.h"

#include <stdbool.h>
#include <stddef.h>

/* Quake-family faces' lightmap entries made a piece at a time, for a
 * reader that looks at each once (validation): the entries
 * bspkit_get_face_lightmaps(map, false, ...) holds, without keeping a table
 * the size of the faces. Everything the geometry of one face needs,
 * gathered once. */
typedef struct bk_lightmap_faces {
    bspkit_map *map;
    const bspkit_face *faces;
    size_t faces_n;
    const bspkit_texinfo *texinfo;
    size_t texinfo_n;
    const int32_t *surfedges;
    size_t surfedges_n;
    const bspkit_edge *edges;
    size_t edges_n;
    const bspkit_vec3 *verts;
    size_t verts_n;
    size_t light_size;
    const bspkit_bspx_decoupled_lm *decoupled; /* NULL when absent */
    size_t decoupled_n;
    size_t rgb_size; /* bytes of RGBLIGHTING; 0 when absent */
    bool has_rgb;
    bool rgb_luxels;         /* 3-byte luxels (BK_TRAIT_RGB_LIGHTMAPS) */
    int32_t no_lightmap;     /* texinfo flags of faces without a lightmap */
    bool avx2;               /* quake_extents_avx2 may run */
    /* Validation's screen (bk_lightmap_faces_begin): per texinfo the most
     * bytes a face of it can take per light style, from all vertexes'
     * extent; 0 for a texinfo whose flags say its faces have no lightmap,
     * UINT64_MAX where there is no useful bound (NULL when not made). */
    const uint64_t *style_bytes_bound;
    /* That table when the map has few texinfo (most small maps): no
     * allocation. The struct is not to be copied while it points here. */
    uint64_t style_bytes_inline[64];
} bk_lightmap_faces;

/* Loads what the entries read; fails for Source and Quake 3 maps.
 * bk_lightmap_faces_end gives back what it allocated. */
bspkit_result bk_lightmap_faces_begin(bspkit_map *map, bk_lightmap_faces *faces, bspkit_error *err);
void bk_lightmap_faces_end(bk_lightmap_faces *faces);
/* Entries first .. first + n into out[0 .. n); first + n <= faces->faces_n. */
void bk_lightmap_faces_fill(const bk_lightmap_faces *faces, size_t first, size_t n, bspkit_face_lightmap *out);
/* may[k] for face first + k: false only when its entry is not lit or its
 * bytes fit in the lighting lump after its light offset; true may be
 * either (the entry then decides). Cheaper than the entries: the double
 * grid alone, no entry written. */
void bk_lightmap_faces_screen(const bk_lightmap_faces *faces, size_t first, size_t n, bool *may);
/* The screen of face i (record f) for a caller that has made its cheap
 * tests: a texinfo inside the table whose flags give a lightmap, and
 * bk_lightmap_face_needs_screen true. */
bool bk_lightmap_face_grid_may_overflow(const bk_lightmap_faces *faces, size_t i, const bspkit_face *f);
/* bk_lightmap_face_grid_may_overflow for each face list[k] (k < n) into
 * may[k], under the same conditions, in one call. */
void bk_lightmap_faces_grid_list(const bk_lightmap_faces *faces, const uint32_t *list, size_t n, bool *may);

/* How many of the face's four style slots are used: those before the first
 * 255 (the engines stop there), without a branch per style: 1 to 4 styles
 * are all common, so a loop's exit is mispredicted. */
static inline int32_t bk_face_style_count(const bspkit_face *f)
{
    uint32_t w = (uint32_t)f->styles[0] | (uint32_t)f->styles[1] << 8 | (uint32_t)f->styles[2] << 16 |
                 (uint32_t)f->styles[3] << 24;
    uint32_t x = ~w; /* a 255 style is now a zero byte */
    /* The lowest zero byte's top bit (higher bits may be false alarms). */
    uint32_t first_zero = (x - 0x01010101u) & ~x & 0x80808080u;
    return (int32_t)(__builtin_ctzll((uint64_t)first_zero | (UINT64_C(1) << 32)) / 8);
}

/* The cheap first step of the screen, for face i whose texinfo (index
 * `texinfo`) is lit: false when its entry is surely not lit or fits, by the
 * texinfo's luxel bound; true when the rest of the screen is to decide (a
 * face sized by DECOUPLED_LM always). */
static inline bool bk_lightmap_face_needs_screen(const bk_lightmap_faces *c, size_t i, const bspkit_face *f,
                                                 size_t texinfo)
{
    int32_t styles = bk_face_style_count(f);
    if (styles == 0)
        return false;
    if (c->decoupled && i < c->decoupled_n)
        return true;
    if (f->light_offset < 0)
        return false;
    if (!c->style_bytes_bound || texinfo >= c->texinfo_n || (uint64_t)f->light_offset > c->light_size)
        return true;
    /* A bound of UINT64_MAX ("none") is left to the screen; any other is
     * at most UINT64_MAX / 4, so the product cannot wrap. */
    uint64_t bound = c->style_bytes_bound[texinfo];
    return !(bound != UINT64_MAX && bound * (uint64_t)styles <= c->light_size - (uint64_t)f->light_offset);
}

#endif
