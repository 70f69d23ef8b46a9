/*
 * Geometry export to glTF 2.0 (.gltf + .bin, or binary .glb) and Wavefront
 * OBJ (.obj + .mtl + PNG images).
 *
 * Axes: Quake, GoldSrc and Source are Z-up, right-handed, in inches (map
 * units). glTF is Y-up, right-handed, in metres. glTF output maps a map
 * point (x, y, z) to (x, z, -y) * scale; the default scale is 0.0254 (one
 * unit = one inch). OBJ output keeps map axes and units unless `obj_y_up`
 * is set, and is multiplied by `scale` only when one is given.
 *
 * Images: each texture a primitive uses is decoded once and written as PNG
 * (embedded in a GLB; in the folder "<stem>_images" beside a .gltf or .obj,
 * files "<n>_<name>.png" with bytes outside [A-Za-z0-9._-] as '_'). glTF
 * materials use it as baseColorTexture (texCoord 0, sampler with REPEAT
 * wrap); textures with any alpha below 255 ('{' names) get alphaMode MASK,
 * cutoff 0.5. A texture not found or not decodable leaves its material
 * untextured with a flat baseColorFactor (Source: texdata reflectivity,
 * else grey) and is counted in missing_textures.
 *
 * Lightmaps (glTF, unless no_lightmaps or no face is lit): the atlas of
 * bspkit_lightmap_atlas_build() (style 0, `lightmap_hdr`) is one more image
 * and texture named "lightmap" (sampler clamped to the edge); every vertex
 * has TEXCOORD_1 from bspkit_lightmap_atlas_uv() (displacement vertices:
 * the undisplaced base-face point; faces the atlas did not place: (0, 0)).
 * glTF core has no lightmap slot, so each material with a lit face names it
 * in its extras: {"lightmap": {"index": <texture>, "texCoord": 1}}.
 * OBJ has one coordinate set: vt holds texture coordinates and map_Kd the
 * texture PNG, or with obj_bake_lightmaps (and lit faces) vt holds the
 * lightmap coordinates and every material's map_Kd is the atlas.
 *
 * Bounds: faces may share surfedge ranges, so the export refuses with
 * BSPKIT_ERR_LIMIT naming FACES when the exported faces have more than
 * 4 x the surfedge count + 65536 edges in all (or displacement faces more
 * than 4 x the DISP_VERTS count + 65536 vertices).
 */
#ifndef BSPKIT_EXPORT_H
#define BSPKIT_EXPORT_H

#include "bspkit/bspkit.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum bspkit_export_format {
    BSPKIT_EXPORT_AUTO = 0, /**< from the output file's extension */
    BSPKIT_EXPORT_GLB,
    BSPKIT_EXPORT_GLTF,
    BSPKIT_EXPORT_OBJ
} bspkit_export_format;

/**
 * Face kinds that can be left out. By default (a zero `keep`) every kind
 * below is left out: sky, tool, trigger and nodraw faces are not part of
 * what a player sees. `keep` names the kinds to include again, `skip`
 * leaves kinds out even when `keep` names them.
 */
enum {
    BSPKIT_SKIP_TOOL = 0x1,    /**< tool textures: clip, skip, hint, origin, trigger, nodraw, aaatrigger, tools/..., .../tools* */
    BSPKIT_SKIP_SKY = 0x2,     /**< sky faces */
    BSPKIT_SKIP_TRIGGER = 0x4, /**< faces of trigger_* brush entities */
    BSPKIT_SKIP_NODRAW = 0x8,  /**< Source SURF_NODRAW faces */
    BSPKIT_SKIP_ALL = 0xf      /**< every kind above */
};

typedef struct bspkit_export_options {
    bspkit_export_format format;
    double scale;              /**< 0 = default (see top of file) */
    uint32_t skip;             /**< BSPKIT_SKIP_* flags left out even when `keep` names them */
    bool no_textures;          /**< do not embed/write texture images */
    bool no_lightmaps;         /**< no lightmap atlas and no second UV set */
    bool lightmap_hdr;         /**< Source: atlas from the HDR lumps */
    bool obj_bake_lightmaps;   /**< OBJ: materials use the lightmap atlas as the colour map */
    bool obj_y_up;             /**< OBJ: convert to Y-up as glTF does */
    /** Search paths for WAD files (see bspkit_texture_options). */
    const char *const *wad_paths;
    size_t wad_path_count;
    /** BSPKIT_SKIP_* flags of the face kinds to include; the kinds not
     *  named here are left out (0: leave out every kind, the default). */
    uint32_t keep;
    /** Threads that encode the PNG images: 0 = one per online CPU (the
     *  default), 1 = the calling thread only. The output is the same for any
     *  count. */
    unsigned threads;
} bspkit_export_options;

/** What an export wrote. */
typedef struct bspkit_export_stats {
    size_t nodes;           /**< world + brush-model + prop nodes */
    size_t faces;           /**< faces exported (displacement base faces counted once) */
    size_t triangles;       /**< triangles written (faces + displacements) */
    size_t vertices;
    size_t displacements;
    size_t materials;
    size_t images;          /**< texture images written (not counting the lightmap atlas) */
    size_t missing_textures;/**< materials whose texture could not be found or decoded */
    size_t props;           /**< static-prop nodes */
    size_t bytes_written;   /**< total of all files written */
} bspkit_export_stats;

/**
 * Export `map` to `path` (files beside it for .gltf/.obj: .bin, .mtl, PNGs).
 * Every file is written to a temporary name and renamed into place.
 */
BSPKIT_API bspkit_result bspkit_export(bspkit_map *map, const char *path, const bspkit_export_options *opts,
                            bspkit_export_stats *stats, bspkit_error *err);

/** Export as GLB into a new buffer (free with bspkit_free()). */
BSPKIT_API bspkit_result bspkit_export_glb_memory(bspkit_map *map, const bspkit_export_options *opts, uint8_t **out,
                                       size_t *size, bspkit_export_stats *stats, bspkit_error *err);

#ifdef __cplusplus
}
#endif
#endif
