/* The export writers: glTF JSON + binary buffer (packed as GLB or kept as
 * .gltf + .bin) and Wavefront OBJ + MTL, all from one bk_xmesh. */
#ifndef BSPKIT_EXPORT_WRITERS_H
#define BSPKIT_EXPORT_WRITERS_H

#include "bspkit/export.h"
#include "export/media.h"
#include "export/mesh.h"
#include "core/save_file.h"
#include "core/textbuf.h"

/* The glTF's geometry: meshes, their accessors and buffer views as JSON
 * text, and the vertex and index bytes at the start of the binary buffer.
 * It needs the mesh only, so it is built while images are still encoded. */
typedef struct bk_gltf_geometry {
    bk_tbuf views, accessors, meshes; /* JSON array items, without brackets */
    size_t view_count, accessor_count, mesh_count;
    int64_t material_count; /* materials used by some primitive */
    int64_t *gl_material;   /* per mesh material: its glTF material (first-use order), -1 when unused */
    int64_t *model_mesh;    /* per model: its glTF mesh, -1 when it has none */
    uint8_t *bin;
    size_t bin_size, bin_used; /* allocated, written (4-byte aligned) */
    double scale;
    bool lightmap_uv; /* TEXCOORD_1 written */
} bk_gltf_geometry;

/* Positions are multiplied by `scale` after the Z-up to Y-up conversion;
 * with `lightmap_uv` every primitive gets TEXCOORD_1. On failure nothing
 * is left to free. */
bspkit_result bk_gltf_geometry_build(const bk_xmesh *mesh, bool lightmap_uv, double scale, bk_gltf_geometry *out,
                                     bspkit_error *err);
void bk_gltf_geometry_free(bk_gltf_geometry *g);

/* glTF output held in memory: JSON text and the binary buffer it
 * describes: the geometry bytes, then (GLB) each embedded PNG padded to 4
 * bytes. The PNGs are borrowed from the bk_xmedia the document was built
 * from, which must outlive it. The JSON is kept as the texts it was
 * written in, never joined: the entity properties, views and accessors of
 * a large map are megabytes. Its parts: the glue text between each of the
 * five other texts and after the last, and the texts themselves. */
enum { BK_GLTF_TEXTS = 6, BK_GLTF_JSON_PARTS = 2 * (BK_GLTF_TEXTS - 1) + 1 };
typedef struct bk_gltf_doc {
    bk_tbuf texts[BK_GLTF_TEXTS];          /* owned: what json[] points into */
    bk_save_part json[BK_GLTF_JSON_PARTS]; /* the compact JSON text, in order */
    size_t json_parts, json_size;
    uint8_t *bin;     /* the geometry part: bin_size bytes, 4-byte aligned */
    size_t bin_size;
    const bk_ximage *images; /* embedded after it, in order */
    size_t image_count;
    size_t buffer_size; /* the whole buffer: bin_size + the padded PNGs */
} bk_gltf_doc;

/* Build the glTF document around `geometry` (built from `mesh`; consumed:
 * freed on return, its buffer moved into the document). `bin_uri` names the
 * external buffer file (already URI-encoded); NULL leaves the buffer without
 * a uri, as GLB wants. `media` (may be NULL) gives the images and the
 * lightmap atlas: its PNGs go in the buffer when `image_dir_uri` is NULL,
 * else each image's uri is `image_dir_uri`/file (the directory already
 * URI-encoded). Fills the node, material, image and missing-texture counts
 * of `stats`. */
bspkit_result bk_gltf_build(bspkit_map *map, const bk_xmesh *mesh, bk_gltf_geometry *geometry,
                            const bk_xmedia *media, const char *bin_uri, const char *image_dir_uri, bk_gltf_doc *out,
                            bspkit_export_stats *stats, bspkit_error *err);
void bk_gltf_doc_free(bk_gltf_doc *doc);

/* GLB container: 12-byte header, JSON chunk padded with spaces, BIN chunk
 * padded with zeros. The result is malloc'ed. */
bspkit_result bk_glb_pack(const bk_gltf_doc *doc, uint8_t **out, size_t *size, bspkit_error *err);
/* bk_glb_pack's bytes written to `path` (bspkit_save_file) without packing them
 * into one buffer first; *size gets the file's size. */
bspkit_result bk_glb_save(const bk_gltf_doc *doc, const char *path, size_t *size, bspkit_error *err);

/* OBJ and MTL text. Positions are placed by their node (brush entity origin
 * and angles applied), optionally converted to Y-up, then multiplied by
 * `scale`. `mtl_name` is the file name written after `mtllib`. With `media`,
 * materials that have an image name it in map_Kd as `image_dir`/file; with
 * `bake` (and an atlas image in `media`) vt holds the lightmap coordinates
 * and every material's map_Kd is the atlas. */
typedef struct bk_obj_doc {
    char *obj;
    size_t obj_size;
    char *mtl;
    size_t mtl_size;
} bk_obj_doc;

bspkit_result bk_obj_build(const bk_xmesh *mesh, const bk_xmedia *media, double scale, bool y_up, bool bake,
                           const char *mtl_name, const char *image_dir, bk_obj_doc *out,
                           bspkit_export_stats *stats, bspkit_error *err);
void bk_obj_doc_free(bk_obj_doc *doc);

#endif
