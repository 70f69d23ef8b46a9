/*
 * Quake 3 family records (IBSP 46 Quake 3 / OpenArena, IBSP 47 Quake Live and
 * Return to Castle Wolfenstein): shaders, drawing vertices and indices, fogs
 * and surfaces, which have no counterpart in the Quake and Source families.
 * Planes, nodes, leafs, leaf surfaces and brushes, models, brushes and brush
 * sides decode into the shared structs of bspkit.h (a model's faces and a
 * leaf's faces are surfaces here).
 */
#ifndef BSPKIT_QUAKE3_H
#define BSPKIT_QUAKE3_H

#include "bspkit/bspkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A shader (material) as the map names it, with the flags q3map2 read from its script. */
typedef struct bspkit_shader {
    char name[65];          /**< e.g. "textures/base_wall/metal", NUL-terminated */
    int32_t surface_flags;  /**< BSPKIT_Q3_SURF_* */
    int32_t contents;       /**< BSPKIT_Q3_CONTENTS_* */
} bspkit_shader;

/** Quake 3 contents bits (a brush's contents are its shader's). */
enum {
    BSPKIT_Q3_CONTENTS_SOLID = 0x1,
    BSPKIT_Q3_CONTENTS_LAVA = 0x8,
    BSPKIT_Q3_CONTENTS_SLIME = 0x10,
    BSPKIT_Q3_CONTENTS_WATER = 0x20,
    BSPKIT_Q3_CONTENTS_FOG = 0x40,
    BSPKIT_Q3_CONTENTS_PLAYERCLIP = 0x10000,
    BSPKIT_Q3_CONTENTS_MONSTERCLIP = 0x20000,
    BSPKIT_Q3_CONTENTS_TRIGGER = 0x40000000,
};

/** Quake 3 surface flags the tools look at. */
enum {
    BSPKIT_Q3_SURF_NODAMAGE = 0x1,
    BSPKIT_Q3_SURF_SKY = 0x4,
    BSPKIT_Q3_SURF_NOIMPACT = 0x10,
    BSPKIT_Q3_SURF_NODRAW = 0x80,
    BSPKIT_Q3_SURF_HINT = 0x100,
    BSPKIT_Q3_SURF_SKIP = 0x200,
    BSPKIT_Q3_SURF_NOLIGHTMAP = 0x400,
};

/** One drawing vertex. */
typedef struct bspkit_drawvert {
    bspkit_vec3 xyz;
    float st[2];        /**< texture coordinate, in texture widths */
    float lightmap[2];  /**< coordinate in the surface's 128 x 128 lightmap page, 0..1 */
    bspkit_vec3 normal;
    uint8_t color[4];   /**< vertex colour (lighting of vertex-lit surfaces), RGBA */
} bspkit_drawvert;

/** What a surface holds (bspkit_surface.type). */
enum {
    BSPKIT_Q3_SURFACE_BAD = 0,
    BSPKIT_Q3_SURFACE_PLANAR = 1,        /**< a polygon: vertices and triangle indices */
    BSPKIT_Q3_SURFACE_PATCH = 2,         /**< a Bézier patch: patch_width x patch_height control points */
    BSPKIT_Q3_SURFACE_TRIANGLE_SOUP = 3, /**< a model's triangles: vertices and indices */
    BSPKIT_Q3_SURFACE_FLARE = 4,         /**< a light flare: lightmap_origin and colour, no geometry */
};

/** A drawn surface (dsurface_t). Indices are relative to first_vert. */
typedef struct bspkit_surface {
    int32_t shader;         /**< into SHADERS */
    int32_t fog;            /**< into FOGS, -1 = none */
    int32_t type;           /**< BSPKIT_Q3_SURFACE_* */
    int32_t first_vert, num_verts;     /**< into DRAWVERTS */
    int32_t first_index, num_indexes;  /**< into DRAWINDEXES, 3 per triangle */
    int32_t lightmap;       /**< lightmap page; negative: none (vertex lit or unlit) */
    int32_t lightmap_x, lightmap_y, lightmap_width, lightmap_height; /**< the surface's rectangle in its page */
    bspkit_vec3 lightmap_origin;       /**< planar: a point of the lightmap plane; flare: its origin */
    bspkit_vec3 lightmap_vecs[3];      /**< planar: s and t world vectors and the normal; patch: bounds */
    int32_t patch_width, patch_height; /**< control points of a patch (odd, at least 3) */
} bspkit_surface;

/** A fog volume: the brush that bounds it and its shader. */
typedef struct bspkit_fog {
    char shader[65];
    int32_t brush;        /**< into BRUSHES */
    int32_t visible_side; /**< side of the brush seen from outside, -1 = none */
} bspkit_fog;

/** One light-grid cell: the light at a point of the world's grid (gridsize, default 64 64 128). */
typedef struct bspkit_lightgrid_cell {
    uint8_t ambient[3];  /**< RGB */
    uint8_t directed[3]; /**< RGB of the light arriving from `direction` */
    uint8_t direction[2];/**< latitude and longitude, 256 steps each */
} bspkit_lightgrid_cell;

/** Bytes of one lightmap page in LIGHTMAPS: 128 x 128 RGB. */
#define BSPKIT_Q3_LIGHTMAP_PAGE_SIZE 128
/** Bytes of one light-grid cell in LIGHTGRID: ambient RGB, directed RGB, direction (lat, long). */
#define BSPKIT_Q3_LIGHTGRID_CELL 8

BSPKIT_API bspkit_result bspkit_get_shaders(bspkit_map *map, const bspkit_shader **out, size_t *count,
                                            bspkit_error *err);
BSPKIT_API bspkit_result bspkit_get_drawverts(bspkit_map *map, const bspkit_drawvert **out, size_t *count,
                                              bspkit_error *err);
/** DRAWINDEXES: vertex numbers relative to their surface's first_vert. */
BSPKIT_API bspkit_result bspkit_get_drawindexes(bspkit_map *map, const int32_t **out, size_t *count,
                                                bspkit_error *err);
BSPKIT_API bspkit_result bspkit_get_surfaces(bspkit_map *map, const bspkit_surface **out, size_t *count,
                                             bspkit_error *err);
BSPKIT_API bspkit_result bspkit_get_fogs(bspkit_map *map, const bspkit_fog **out, size_t *count, bspkit_error *err);
/** LIGHTGRID, x fastest, then y, then z, from the grid point at or above the world model's mins. */
BSPKIT_API bspkit_result bspkit_get_lightgrid(bspkit_map *map, const bspkit_lightgrid_cell **out, size_t *count,
                                              bspkit_error *err);

#ifdef __cplusplus
}
#endif
#endif
