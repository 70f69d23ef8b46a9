/* The export mesh builder's shared state and helpers: mesh.c builds faces
 * (Quake, GoldSrc, Quake 2, Source), mesh_surfaces.c Quake 3's surfaces and
 * Bézier patches, both into the same models, primitives and materials. */
#ifndef BSPKIT_EXPORT_MESH_INTERNAL_H
#define BSPKIT_EXPORT_MESH_INTERNAL_H

#include "bspkit/displacement.h"
#include "bspkit/lighting.h"
#include "bspkit/quake3.h"
#include "export/mesh.h"

#include <math.h>

/* What one material's polygon faces in a model will add (from their edge
 * counts), so that its primitive is sized once. An entry holds counts only
 * where `model` is the builder's expect_model. */
typedef struct bk_xexpect {
    size_t verts, indices, model;
} bk_xexpect;

typedef struct builder {
    bspkit_map *map;
    bk_xmesh *m;
    bk_xmesh_options opts;
    const bspkit_face *faces;
    size_t face_count;
    int face_lump;
    const bspkit_plane *planes;
    size_t plane_count;
    const bspkit_vec3 *verts;
    size_t vert_count;
    const bspkit_edge *edges;
    size_t edge_count;
    const int32_t *surfedges;
    size_t surfedge_count;
    const bspkit_texinfo *texinfo;
    size_t texinfo_count;
    const bspkit_dispinfo *dispinfo;
    size_t dispinfo_count;
    int32_t *texture_material; /* texture index -> material */
    size_t texture_count;
    size_t material_cap;
    uint32_t *material_slots;  /* name hash table: material index + 1, 0 = empty */
    size_t material_slot_count; /* a power of two, or 0 before the first material */
    size_t *prim_of;           /* material -> primitive index + 1 in the current model, 0 = none */
    bk_xexpect *expect;        /* per material, counted for the model being built */
    size_t expect_count;
    size_t expect_model;       /* the count of models counted so far: the stamp of valid entries */
    size_t prim_of_cap;
    double *poly;              /* scratch polygon, 3 doubles per corner */
    size_t poly_cap;
    uint32_t *remap;           /* Titanfall: a mesh's vertex record -> exported vertex + 1, 0 = not yet */
    size_t remap_cap;
    /* Quake 3 (mesh_surfaces.c) */
    const bspkit_shader *shaders;
    size_t shader_count;
    const bspkit_surface *surfaces;
    size_t surface_count;
    const bspkit_drawvert *drawverts;
    size_t drawvert_count;
    const int32_t *drawindexes;
    size_t drawindex_count;
    const bspkit_face_lightmap *surface_lightmaps; /* with an atlas: each surface's rectangle in its page */
    size_t surface_lightmap_count;
} builder;

/* Grows *items (elem bytes each) to hold `need`, charged to the export's memory budget. */
bspkit_result bk_xgrow(bk_xmesh *m, void **items, size_t *cap, size_t need, size_t elem, int lump, bspkit_error *err);
/* The material named `name` (added when new) in *index. */
bspkit_result bk_xadd_material(builder *b, const char *name, int32_t texture, uint32_t w, uint32_t h, int32_t *index,
                               bspkit_error *err);
/* The primitive of `material` in the model being built (added when new). */
bspkit_result bk_xprim_for(builder *b, bk_xmodel *xm, size_t *prim_cap, uint32_t material, bk_xprim **out,
                           bspkit_error *err);
/* False (counted in skipped_faces) when a face of material `mat` with these
 * texinfo / shader / mesh flags is left out by the skip flags; otherwise
 * notes the face's kind on the material (bk_xmaterial.kinds, .plain). */
bool bk_xkeep_face(builder *b, uint32_t mat, int32_t flags);
/* Room for `verts` more vertices and `indices` more indices in `p`. */
bspkit_result bk_xreserve(builder *b, bk_xprim *p, size_t verts, size_t indices, bspkit_error *err);
/* Appends a vertex (room reserved); false when the position is not finite,
 * which no writer can represent. Inline: every vertex of a map passes here. */
static inline bool bk_xput_vertex(bk_xprim *p, const double pos[3], const double n[3], const float uv[2],
                                  const float lm[2], uint32_t face)
{
    /* One test per axis: NaN fails the comparison, infinity exceeds 1e30. */
    if (!(fabs(pos[0]) <= 1e30 && fabs(pos[1]) <= 1e30 && fabs(pos[2]) <= 1e30))
        return false;
    bk_xvertex *v = &p->verts[p->vert_count++]; /* every field is set below */
    for (int i = 0; i < 3; i++) {
        v->pos[i] = (float)pos[i];
        v->normal[i] = (float)n[i];
    }
    /* Broken texture vectors give no usable coordinate; 0 keeps the file valid. */
    v->uv0[0] = isfinite(uv[0]) ? uv[0] : 0.0f;
    v->uv0[1] = isfinite(uv[1]) ? uv[1] : 0.0f;
    v->uv1[0] = isfinite(lm[0]) ? lm[0] : 0.0f;
    v->uv1[1] = isfinite(lm[1]) ? lm[1] : 0.0f;
    v->face = face;
    return true;
}
bool bk_xnormalize(double v[3]);
void bk_xcross(const double a[3], const double b[3], double out[3]);
double bk_xdot3(const double a[3], const double b[3]);

/* Quake 3: loads surfaces, vertices, indices and shaders (one material per
 * shader name) and checks what the models ask for against the lumps. */
bspkit_result bk_xsurfaces_load(builder *b, const bspkit_model *models, size_t nmodels, bspkit_error *err);
/* Quake 3: surface `si` into the model's primitives (patches tessellated). */
bspkit_result bk_xsurface_emit(builder *b, bk_xmodel *xm, size_t *prim_cap, size_t si, bspkit_error *err);

#endif
