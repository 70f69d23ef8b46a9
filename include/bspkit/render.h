/*
 * Headless pictures of a map with bspkit's own software rasterizer: no GPU,
 * no display, no dependency, and the same bytes on every machine.
 *
 * Geometry, texture coordinates, lightmap coordinates and the lightmap atlas
 * are the export's (export.h): the world and every brush model placed by its
 * entity. Faces export's BSPKIT_SKIP_* rules call tool, sky, trigger or
 * nodraw are hidden unless `show_hidden` is set. Back faces are culled (the
 * map's faces are one-sided), so top and iso views look into closed rooms.
 *
 * Shading: colour = texture texel x lightmap luxel (bilinear over the
 * style-0 atlas) / 255, in 8-bit sRGB as the files store
 * them (GLQuake's modulate without overbrights). Faces the atlas did not
 * place (unlit, or the map has no lighting) are drawn at full brightness. A
 * texel is the nearest of a repeating texture, from the mip level (each a
 * 2 x 2 box filter of the one above) whose texels come nearest one sample
 * across, level 0 while a texel spans at least 1/sqrt(2) samples. A
 * texture that is not found or not decodable is a grey checker, 4 x 4 cells
 * per texture repeat, of 128 and 96. Pixels no face covers are the
 * background (32, 32, 40). Alpha is 255 everywhere.
 *
 * Anti-aliasing: every pixel is the rounded mean of supersample x supersample
 * samples at the centres of its sub-pixel grid.
 *
 * Views (map axes: Z up; pitch positive looks down, yaw about Z from +X):
 *  - SPAWN: perspective from the first entity (file order) whose classname
 *    is a player spawn (info_player_start, info_player_deathmatch,
 *    info_player_terrorist, info_player_counterterrorist, info_player_teamspawn,
 *    info_player_combine, info_player_rebel, info_player_coop), its origin
 *    raised by the engine's eye height (Source and Titanfall 64 over the
 *    feet; GoldSrc 28, Quake and Quake 2 22, Quake 3 26 over the origin),
 *    looking along its "angles" (or "angle" as yaw); BSPKIT_ERR_NOT_FOUND
 *    when the map has none.
 *  - TOP: orthographic straight down over the bounds (default: the box of
 *    the world model's drawn vertices; its MODELS box is often a placeholder
 *    such as +-99999), X to the right and Y up the image, the bounds' X-Y
 *    rectangle fitted to the image (one scale, centred).
 *  - ISO: orthographic from yaw 45 (or `iso_yaw`), pitch 30 (looking
 *    towards +X +Y and down), the bounds' eight corners fitted to the image.
 *  - CAMERA: perspective from `camera`.
 * Perspective fov is horizontal, in degrees (default 90); the near plane is
 * one unit in front of the eye.
 */
#ifndef BSPKIT_RENDER_H
#define BSPKIT_RENDER_H

#include "bspkit/bspkit.h"
#include "bspkit/image.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum bspkit_render_view {
    BSPKIT_RENDER_SPAWN = 0,
    BSPKIT_RENDER_TOP,
    BSPKIT_RENDER_ISO,
    BSPKIT_RENDER_CAMERA
} bspkit_render_view;

typedef struct bspkit_render_camera {
    double origin[3];
    double pitch, yaw; /**< degrees */
    double fov;        /**< horizontal, degrees, in (0, 180); 0 = 90 */
} bspkit_render_camera;

/** Zero-initialised options draw the spawn view at 1280 x 720, 2 x 2 supersampled. */
typedef struct bspkit_render_options {
    bspkit_render_view view;
    uint32_t width, height;       /**< pixels, 1..16384 each; 0 = 1280 x 720 */
    uint32_t supersample;         /**< samples per pixel side, 1..4; 0 = 2 */
    bspkit_render_camera camera;  /**< BSPKIT_RENDER_CAMERA */
    double iso_yaw;               /**< ISO: direction looked along, degrees; 0 = 45 */
    bool have_bounds;             /**< TOP and ISO: use bounds_min/max instead of the world's */
    double bounds_min[3], bounds_max[3];
    bool show_hidden;             /**< draw tool, sky, trigger and nodraw faces too */
    bool no_textures;             /**< lightmap only (on white) */
    bool no_lightmaps;            /**< textures at full brightness */
    bool lightmap_hdr;            /**< Source: atlas from the HDR lumps */
    /** Search paths for WAD files (see bspkit_texture_options). */
    const char *const *wad_paths;
    size_t wad_path_count;
} bspkit_render_options;

typedef struct bspkit_render_stats {
    size_t triangles;          /**< triangles in the scene (before culling) */
    size_t triangles_drawn;    /**< triangles that reached the rasterizer after culling and clipping */
    size_t missing_textures;   /**< materials drawn as the checker */
    bspkit_render_camera eye;  /**< SPAWN and CAMERA: the eye used */
    /** TOP: map X and Y of the image's top-left corner, and map units per pixel. */
    double top_left[2];
    double units_per_pixel;
} bspkit_render_stats;

/** Render into `out` (allocated here; free with bspkit_image_free()). */
BSPKIT_API bspkit_result bspkit_render(bspkit_map *map, const bspkit_render_options *opts, bspkit_image *out,
                                       bspkit_render_stats *stats, bspkit_error *err);

/** Render and save as PNG (written to a temporary name and renamed into place). */
BSPKIT_API bspkit_result bspkit_render_png(bspkit_map *map, const char *path, const bspkit_render_options *opts,
                                           bspkit_render_stats *stats, bspkit_error *err);

#ifdef __cplusplus
}
#endif
#endif
