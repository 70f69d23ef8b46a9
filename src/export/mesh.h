/* Export meshes: every model's faces as triangles grouped per material, and
 * the nodes (world, brush entities, point entities, static props) that place
 * them. Shared by the glTF and OBJ writers; tests use it directly.
 *
 * Everything here is in MAP axes and units (Z-up, inches, model-local as the
 * file stores it); the writers convert. */
#ifndef BSPKIT_EXPORT_MESH_H
#define BSPKIT_EXPORT_MESH_H

#include "bspkit/atlas.h"
#include "bspkit/bspkit.h"

#include <stddef.h>
#include <stdint.h>

/* Source texinfo flags the skip rules look at. */
enum {
    BK_SURF_SKY2D = 0x2,
    BK_SURF_SKY = 0x4,
    BK_SURF_TRIGGER = 0x40,
    BK_SURF_NODRAW = 0x80,
    BK_SURF_HINT = 0x100,
    BK_SURF_SKIP = 0x200
};

typedef struct bk_xvertex {
    float pos[3];    /* map units and axes, as stored (brush models are model-local) */
    float normal[3]; /* unit length */
    float uv0[2];    /* texture coordinate: (dot(s.xyz, p) + s.w) / width, same for t / height */
    /* Lightmap atlas coordinate from bspkit_lightmap_atlas_uv() (of the
     * undisplaced base-face point for displacement vertices); (0, 0) when no
     * atlas is given or the face is not placed in it. */
    float uv1[2];
    uint32_t face;   /* index into FACES (FACES_HDR when FACES is empty) */
} bk_xvertex;

/* Triangles of one model that share a material. */
typedef struct bk_xprim {
    uint32_t material;
    bk_xvertex *verts;
    size_t vert_count, vert_cap;
    uint32_t *indices; /* 3 per triangle, into verts; counter-clockwise seen from the front */
    size_t index_count, index_cap;
} bk_xprim;

typedef struct bk_xmodel {
    bk_xprim *prims;
    size_t prim_count;
    bool skipped;        /* a trigger entity's model left out by BSPKIT_SKIP_TRIGGER */
    size_t faces;        /* faces exported (a displacement's base face counts once) */
    size_t triangles;
    size_t displacements;
} bk_xmodel;

typedef struct bk_xmaterial {
    char *name;          /* texture name; "missing_N" when texture N has no name or is out of range */
    int32_t texture;     /* first miptex / texdata index with this name; -1 when none */
    uint32_t width, height; /* texture size used for UVs (1 when the map says 0) */
    bool lit;            /* some exported face of it is placed in the atlas */
    /* BSPKIT_SKIP_TOOL / _SKY / _NODRAW: the kinds of its exported faces
     * (each face counts as the first of these its name and flags fall under);
     * `plain`: some exported face is of none of them. */
    uint32_t kinds;
    bool plain;
    uint32_t name_kinds; /* the kinds its name alone falls under */
} bk_xmaterial;

typedef enum bk_xnode_kind { BK_XNODE_WORLD, BK_XNODE_BRUSH, BK_XNODE_POINT, BK_XNODE_PROP } bk_xnode_kind;

typedef struct bk_xnode {
    bk_xnode_kind kind;
    char *name;
    int64_t model;       /* MODELS index for world/brush nodes, else -1 */
    int64_t entity;      /* entity index, -1 when none */
    int64_t prop;        /* static prop index for prop nodes, else -1 */
    double translation[3]; /* map units and axes */
    double rotation[4];  /* quaternion x, y, z, w in the map frame (Source angle convention) */
    double scale[3];     /* map axes; 1 when the record has none */
} bk_xnode;

typedef struct bk_xmesh {
    bk_xmaterial *materials;
    size_t material_count;
    bk_xmodel *models;
    size_t model_count;
    bk_xnode *nodes;     /* world first, then brush models, point entities, static props */
    size_t node_count;
    size_t faces, triangles, vertices, displacements;
    size_t skipped_faces;   /* left out by the skip flags (faces of skipped trigger models included) */
    size_t degenerate_faces;/* fewer than 3 edges, or no texinfo */
    size_t zero_size_textures; /* textures whose width or height is 0 (1 used instead) */
    size_t props;
    bspkit_family family;
    uint64_t bytes;      /* allocated, checked against the map's max_memory */
    uint64_t budget;
} bk_xmesh;

typedef struct bk_xmesh_options {
    uint32_t skip;          /* BSPKIT_SKIP_* */
    bool no_point_entities; /* leave out the empty nodes of point entities */
    bool no_props;          /* leave out static prop nodes */
    const bspkit_lightmap_atlas *atlas; /* fills uv1 and bk_xmaterial.lit; NULL = none */
} bk_xmesh_options;

/* Output bound: faces may share surfedge ranges and models face ranges, so
 * the vertices a map asks for can be far more than its bytes. The builder
 * refuses (BSPKIT_ERR_LIMIT naming FACES) when the corners of the exported
 * polygons exceed bk_face_edge_limit() of the surfedge count (core/surfedge.h),
 * or the displacement vertices exceed the same bound of DISP_VERTS. */

/* Build meshes and nodes; with opts->atlas, `map` must be the map the atlas
 * was built from. The result owns its memory (bk_xmesh_free). */
bspkit_result bk_xmesh_build(bspkit_map *map, const bk_xmesh_options *opts, bk_xmesh *out, bspkit_error *err);

/** The map's entities, or NULL when the entity text is malformed (geometry still
    exports); other failures (out of memory, limits) are returned. */
bspkit_result bk_export_entities(bspkit_map *map, const bspkit_entities **ents, bspkit_error *err);
void bk_xmesh_free(bk_xmesh *m);

/* True when a texture of this name and (Source) texinfo flags is skipped by `skip`. */
bool bk_xmesh_skips(bspkit_family family, uint32_t skip, const char *name, int32_t flags);

/* Quaternion (x, y, z, w) of Source/GoldSrc angles pitch, yaw, roll in degrees:
 * yaw about Z, then pitch about Y, then roll about X (R = Rz * Ry * Rx). */
void bk_angles_quat(double pitch, double yaw, double roll, double q[4]);

/* malloc'ed copy of a string; NULL when out of memory. */
char *bk_xdup(const char *s);

/* Rotate `v` by unit quaternion q (x, y, z, w). */
void bk_quat_rotate(const double q[4], const double v[3], double out[3]);

#endif
