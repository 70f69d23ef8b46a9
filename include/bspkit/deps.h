/*
 * bspkit/deps.h — the files a map needs beside itself, and where each is:
 * inside the map (Source pakfile, GoldSrc embedded miptex), in a game
 * directory (a loose file, a WAD, or a Source VPK directory archive), or
 * missing.
 *
 * Conventions as in bspkit.h. The list owns everything it points to;
 * release it with bspkit_deps_free().
 *
 * Source maps: materials named by texture data (brush faces, overlays),
 * info_overlay "material" and infodecal "texture", the six sky faces of
 * worldspawn "skyname" (materials/skybox/NAME{bk,dn,ft,lf,rt,up}.vmt), the
 * detail prop sprites of worldspawn "detailmaterial", and
 * entity "model" values ending in .vmt (sprites); every material that can be
 * read (packed or loose) is followed: its texture keys ($basetexture,
 * $bumpmap, $detail, $envmapmask, ... — `env_cubemap` and `_rt_` render
 * targets left out) name textures, and "include", $bottommaterial and
 * $underwateroverlay name further materials, so an include chain inside the
 * pakfile resolves through it; a material found only in a game's VPK
 * archive is read from the numbered data archive beside its *_dir.vpk
 * (pak01_000.vpk, ...) and followed too. Models: static prop names and
 * entity "model" values ending in .mdl, each followed by the files the
 * engine loads with it (kind model, referrer the .mdl): NAME.vvd and
 * NAME.dx90.vtx always, NAME.phy, .dx80.vtx, .sw.vtx and .vtx only when
 * found (a model without them is complete). Names holding a ".." component
 * or an absolute path are left out. Sounds: ambient_generic "message" values that name a
 * file (with an extension; soundscript entry names are not files), under
 * sound/ with the leading sound characters (* # @ < > ^ ) and the like)
 * dropped, and the "wave" files of soundscapes packed as
 * scripts/soundscapes_*.txt. Particles: the .pcf files listed by particle
 * manifests in the pakfile (maps/ *_particles.txt,
 * particles/particles_manifest.txt).
 *
 * GoldSrc maps: the WADs of worldspawn "wad" (file names only, searched in
 * each game directory case-insensitively), the textures that are not
 * embedded (found in one of those WADs or missing), entity "model" values
 * ending in .mdl (models) or .spr (sprites), and ambient_generic "message"
 * sounds under sound/.
 *
 * Paths are lower-case with '/' separators. A loose file is looked up as
 * DIR/PATH, then with the case of each component ignored.
 */
#ifndef BSPKIT_DEPS_H
#define BSPKIT_DEPS_H

#include "bspkit/bspkit.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum bspkit_dep_kind {
    BSPKIT_DEP_MATERIAL = 0,
    BSPKIT_DEP_TEXTURE,
    BSPKIT_DEP_MODEL,
    BSPKIT_DEP_SOUND,
    BSPKIT_DEP_SPRITE,
    BSPKIT_DEP_PARTICLE,
    BSPKIT_DEP_WAD,
    BSPKIT_DEP_KIND_COUNT
} bspkit_dep_kind;

typedef enum bspkit_dep_where {
    BSPKIT_DEP_MISSING = 0, /**< found nowhere searched */
    BSPKIT_DEP_IN_MAP,      /**< in the pakfile, or an embedded miptex */
    BSPKIT_DEP_IN_GAME      /**< a loose file, a WAD or a VPK entry under a game directory */
} bspkit_dep_where;

/** "material", "texture", "model", "sound", "sprite", "particle", "wad", or "unknown". */
BSPKIT_API const char *bspkit_dep_kind_name(bspkit_dep_kind kind);
/** "missing", "map", "game", or "unknown". */
BSPKIT_API const char *bspkit_dep_where_name(bspkit_dep_where where);

typedef struct bspkit_dep {
    bspkit_dep_kind kind;
    const char *path;       /**< e.g. "materials/brick/wall01.vmt"; a GoldSrc texture: its name */
    bspkit_dep_where where;
    const char *location;   /**< the pakfile entry, WAD file, loose file or VPK archive; NULL when missing */
    const char *referrer;   /**< what named it first: "texdata", "worldspawn skyname", "entity 12 (prop_dynamic) model",
                                 "static prop", "materials/x.vmt $basetexture", ... */
} bspkit_dep;

typedef struct bspkit_deps_options {
    const char *const *game_dirs; /**< searched in order; may be NULL when game_dir_count is 0 */
    size_t game_dir_count;
} bspkit_deps_options;

typedef struct bspkit_deps {
    const bspkit_dep *items; /**< in the order they were found */
    size_t count;
    size_t in_map, in_game, missing;
} bspkit_deps;

/**
 * Collect and resolve a Source or GoldSrc map's dependencies (other
 * families fail with BSPKIT_ERR_UNSUPPORTED). A damaged pakfile, material or
 * VPK directory does not fail the call: what cannot be read is not followed,
 * and what is in a damaged pakfile counts as missing.
 */
BSPKIT_API bspkit_result bspkit_deps_map(bspkit_map *map, const bspkit_deps_options *opts, bspkit_deps **out,
                                         bspkit_error *err);

/** Release the list. NULL is allowed. */
BSPKIT_API void bspkit_deps_free(bspkit_deps *deps);

#ifdef __cplusplus
}
#endif

#endif /* BSPKIT_DEPS_H */
