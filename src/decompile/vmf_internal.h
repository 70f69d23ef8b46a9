/* State shared by the VMF writer's parts: vmf.c (brushes, world, brush
 * entities) and vmf_ents.c (point entities rebuilt from lumps). */
#ifndef BSPKIT_DECOMPILE_VMF_INTERNAL_H
#define BSPKIT_DECOMPILE_VMF_INTERNAL_H

#include "decompile_internal.h"
#include "poly.h"

#include "bspkit/displacement.h"
#include "bspkit/source_lumps.h"

/* One side of a solid to write: its plane in the brush's own (model) space,
 * where it came from, and what to put on it. */
typedef struct vmf_side_in {
    bk_dplane plane;
    int64_t brushside;    /* index into BRUSHSIDES, -1 for rebuilt sides */
    int32_t texinfo;      /* -1 = none */
    const char *material; /* NULL: chosen from texinfo and contents */
    int64_t face;         /* rebuilt sides: the face they stand for, -1 none */
    int64_t disp;         /* rebuilt sides: displacement to write on them, -1 none */
} vmf_side_in;

typedef struct vmf_ctx {
    bspkit_map *map;
    const bspkit_decompile_options *opts;
    bk_tbuf *out;
    bspkit_decompile_stats *st;
    bspkit_error *err;
    size_t out_limit;      /* refuse to write more than this many bytes */

    const bspkit_plane *planes;
    size_t nplanes;
    const bspkit_brush *brushes;
    size_t nbrushes;
    const bspkit_brushside *bsides;
    size_t nbsides;
    const bspkit_texinfo *texinfo;
    size_t ntexinfo;
    const bspkit_texdata *texdata;
    size_t ntexdata;
    const bspkit_face *faces;
    size_t nfaces;
    const bspkit_dispinfo *disp;
    size_t ndisp;
    const bspkit_disp_vert *dverts;
    size_t ndverts;
    const uint16_t *dtris;
    size_t ndtris;

    /* Faces grouped by plane index (CSR) with their vertex centroids. */
    uint32_t *plane_face_start; /* nplanes + 1 */
    uint32_t *plane_faces;      /* nfaces */
    bk_dvec *face_center;       /* nfaces */
    bool *face_center_ok;       /* nfaces */
    uint32_t *face_side;        /* VMF side id per face, 0 = none */
    bool *disp_written;         /* ndisp */
    uint64_t match_budget;      /* face tests left; matching stops at 0 */

    double extent;         /* half-size of the square each side starts from */
    uint64_t next_id;      /* world, solids and entities */
    uint64_t next_side_id; /* sides */

    /* Scratch for one solid: up to max_sides sides. */
    size_t max_sides;
    bk_dplane *scratch_planes;
    bk_dvec *poly_a, *poly_b;
    bk_dvec *pts3; /* three plane points per side */
    bool *side_ok;
} vmf_ctx;

/* Largest side count of one solid; vbsp keeps brushes far below it. */
#define VMF_MAX_SIDES 512

/* Writes `level` tabs. */
void vmf_indent(vmf_ctx *c, int level);
/* A number: an integer when within 1e-6 of one (the float noise of an integral coordinate), else ten significant digits. */
/* "key" "value" on its own line at `level`. */
void vmf_kv(vmf_ctx *c, int level, const char *key, const char *value);
/* Fails with BSPKIT_ERR_LIMIT naming `lump` once the output passes its bound. */
bspkit_result vmf_check_size(vmf_ctx *c, int lump);

/* A solid block at `level` from `sides`; `offset` moves the brush from model space into the world.
 * `contents` picks tool materials; `entity_class` (may be NULL) too (triggers).
 * *written is false when fewer than four sides have area (nothing is then written). */
bspkit_result vmf_write_solid(vmf_ctx *c, int level, const vmf_side_in *sides, size_t n, bk_dvec offset,
                              int32_t contents, const char *entity_class, bool *written);

/* A thin brush behind the convex polygon pts[0..n) (any winding): `front` (its plane is set
 * here) on the face whose outward normal is `normal`, TOOLS/TOOLSNODRAW elsewhere. */
bspkit_result vmf_write_thin_solid(vmf_ctx *c, int level, const bk_dvec *pts, size_t n, bk_dvec normal,
                                   const vmf_side_in *front, bool *written);

/* The original material of a patched name (cubemap "maps/<map>/<name>_X_Y_Z", "_wvt_patch",
 * water "_depth_N"), written to buf; other names are copied unchanged. */
void vmf_unpatch_material(const char *name, char *buf, size_t size);

/* Point entities rebuilt from lumps (vmf_ents.c). */
bspkit_result vmf_write_static_props(vmf_ctx *c);
bspkit_result vmf_write_overlays(vmf_ctx *c);
bspkit_result vmf_write_cubemaps(vmf_ctx *c);
/* The solids of func_occluder `index` (occlusion lump), inside an open entity block. */
bspkit_result vmf_write_occluder(vmf_ctx *c, long index);
/* The solid of area portal `key` rebuilt from its clip portal vertices. */
bspkit_result vmf_write_areaportal(vmf_ctx *c, long key, bool *written);

#endif
