/*
 * A map as one self-contained HTML page: a WebGL viewer (three.js) with the
 * map's geometry, textures, lightmaps and entities inside, which opens
 * offline from a file:// URL.
 *
 * The page holds the export's GLB (export.h) with every face kind kept
 * (BSPKIT_SKIP_ALL in `keep`), so the page can show and hide them: materials
 * whose every face is a tool, sky or nodraw face say so in their extras
 * ("class": "tool" | "sky" | "nodraw"); brush entities whose classname
 * starts with "trigger" are the trigger kind. The GLB and the viewer script
 * are stored raw-deflate compressed and base64-encoded; the page inflates
 * them with the browser's DecompressionStream("deflate-raw").
 *
 * The page draws every face unlit as texture x lightmap on the stored 8-bit
 * values, as bspkit_render() does (render.h), so a picture of the page and a
 * render from the same camera agree. Its camera comes from the URL fragment
 * "#camera=X,Y,Z,PITCH,YAW,FOV" (map units, degrees, horizontal fov: the
 * convention of bspkit_render_camera), else the first player spawn's eye
 * (BSPKIT_RENDER_SPAWN), else a view of the whole map. "&ui=0" in the
 * fragment hides the panels. Once the first frame is drawn the page sets
 * document.body.dataset.ready to "1" (a failure sets dataset.error).
 *
 * The viewer script is bundled from viewer/ with npm and esbuild when the
 * library is built; a library built without it (no `npm ci` in viewer/)
 * answers BSPKIT_ERR_UNSUPPORTED, and bspkit_view_available() is false.
 */
#ifndef BSPKIT_VIEW_H
#define BSPKIT_VIEW_H

#include "bspkit/bspkit.h"
#include "bspkit/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Zero-initialised options make the page with textures and lightmaps. */
typedef struct bspkit_view_options {
    const char *title;       /**< page title (UTF-8); NULL = "bspkit view" */
    bool no_textures;        /**< no texture images (faces untextured) */
    bool no_lightmaps;       /**< no lightmap atlas (full brightness) */
    bool lightmap_hdr;       /**< Source: atlas from the HDR lumps */
    /** Search paths for WAD files (see bspkit_texture_options). */
    const char *const *wad_paths;
    size_t wad_path_count;
} bspkit_view_options;

typedef struct bspkit_view_stats {
    bspkit_export_stats geometry; /**< the embedded GLB's export statistics */
    size_t glb_bytes;             /**< the GLB */
    size_t glb_deflated;          /**< the GLB raw-deflate compressed (before base64) */
    size_t script_bytes;          /**< the embedded viewer script as stored (compressed, base64) */
    size_t html_bytes;            /**< the whole page */
} bspkit_view_stats;

/** True when this library was built with the viewer script. */
BSPKIT_API bool bspkit_view_available(void);

/** The page into a new buffer (free with bspkit_free()). */
BSPKIT_API bspkit_result bspkit_view_html(bspkit_map *map, const bspkit_view_options *opts, uint8_t **out,
                                          size_t *size, bspkit_view_stats *stats, bspkit_error *err);

/** The page saved as `path` (written to a temporary name and renamed into place). */
BSPKIT_API bspkit_result bspkit_view_save(bspkit_map *map, const char *path, const bspkit_view_options *opts,
                                          bspkit_view_stats *stats, bspkit_error *err);

#ifdef __cplusplus
}
#endif
#endif
