/* Export media: the lightmap atlas and the PNG images of the textures the
 * exported mesh uses, shared by the glTF and OBJ writers. */
#ifndef BSPKIT_EXPORT_MEDIA_H
#define BSPKIT_EXPORT_MEDIA_H

#include "bspkit/atlas.h"
#include "bspkit/export.h"
#include "bspkit/textures.h"
#include "export/mesh.h"
#include "media/atlas_internal.h"
#include "media/image_internal.h"

typedef struct bk_ximage {
    char *file;        /* file name for .gltf/.obj output: "<index>_<name>.png", or "lightmap.png" */
    char *name;        /* material name, or "lightmap" */
    uint8_t *png;
    size_t png_size;
    uint32_t width, height;
} bk_ximage;

typedef struct bk_xmedia {
    bspkit_lightmap_atlas atlas; /* valid while have_atlas: pass to bk_xmesh_options.atlas; its
                                    pixels exist only inside bk_xmedia_encode_atlas */
    bk_atlas_pixels atlas_pixels; /* what drawing the atlas reads */
    bool have_atlas;             /* lightmaps wanted and some face placed */
    bk_ximage *images;           /* texture images in material order, then the atlas */
    size_t image_count, image_cap;
    int32_t *material_image;     /* per mesh material: index into images, -1 = none */
    bool *material_mask;         /* per mesh material: the texture has alpha below 255 */
    float (*material_colour)[3]; /* per mesh material: flat colour used without an image */
    int32_t lightmap_image;      /* index of the atlas image, -1 = none */
    size_t texture_images;       /* images of textures (the atlas not counted) */
    size_t missing_textures;     /* used materials whose texture was not found or not decodable */
    unsigned threads;            /* bspkit_export_options.threads */
    uint8_t *atlas_png;          /* the atlas already encoded (bk_xmedia_encode_atlas), or NULL */
    size_t atlas_png_size;
} bk_xmedia;

/* Lay out the atlas when `lightmaps` is set and the map has lit faces
 * (opts->lightmap_hdr selects the HDR lumps): the rectangles and the size,
 * not the pixels. Zeroes `out` first. */
bspkit_result bk_xmedia_atlas(bspkit_map *map, const bspkit_export_options *opts, bool lightmaps, bk_xmedia *out,
                              bspkit_error *err);

/* Draw the atlas (have_atlas) and encode it as PNG now: it may run while
 * the mesh is built and bk_xmedia_textures runs, which read only the
 * rectangles and touch nothing this does; bk_xmedia_add_atlas then takes
 * it as it is. */
bspkit_result bk_xmedia_encode_atlas(bk_xmedia *media, bspkit_error *err);

/* After the mesh is built: fill the per-material arrays and, when
 * `textures` is set, decode and encode as PNG every texture a primitive of
 * `mesh` uses (opts->wad_paths are searched). */
bspkit_result bk_xmedia_textures(bspkit_map *map, const bk_xmesh *mesh, const bspkit_export_options *opts,
                                 bool textures, bk_xmedia *media, bspkit_error *err);

/* Last: the atlas (have_atlas) as the last image, encoded now unless
 * bk_xmedia_encode_atlas did it already. */
bspkit_result bk_xmedia_add_atlas(bk_xmedia *media, bspkit_error *err);

void bk_xmedia_free(bk_xmedia *media);

#endif
