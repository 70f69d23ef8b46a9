/* Shared by the dependency scan and fastdl's content pass: path
 * normalisation, the KeyValues reader for materials and particle manifests,
 * and the files in VPK directories. */
#ifndef BSPKIT_OPS_DEPS_INTERNAL_H
#define BSPKIT_OPS_DEPS_INTERNAL_H

#include "bspkit/bspkit.h"
#include "bspkit/deps.h"
#include "ops/archive.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* prefix + value (prefix and ext not doubled when the value has them) + ext, lower case with '/'
 * separators; NULL when memory runs out. `ext` may be NULL. */
char *dk_normalize(const char *prefix, const char *value, const char *ext);

/* Calls `pair` for every key/value pair of KeyValues text at any depth (block names are not pairs);
 * quoted and unquoted tokens, // comments. */
void dk_vmt_parse(const char *text, size_t size, void (*pair)(void *ctx, const char *key, const char *value),
                  void *ctx);

typedef enum dk_vmt_kind { DK_VMT_OTHER, DK_VMT_TEXTURE, DK_VMT_MATERIAL } dk_vmt_kind;
/* Whether a material key names a texture ($basetexture, ...) or another material ("include", ...). */
dk_vmt_kind dk_vmt_key_kind(const char *key, const char *value);

/* Every file in the VPK directory archives (*_dir.vpk) of the game directories, as bk_vpk_list reads them. */
typedef struct dk_vpk_name {
    char *name;         /* lower case */
    size_t archive;     /* index into archives */
    bk_arc_entry entry; /* where its bytes are (bk_vpk_read); entry.name is not kept */
} dk_vpk_name;

typedef struct dk_vpk_set {
    dk_vpk_name *items; /* sorted by name */
    size_t count, cap;
    char **archives;    /* paths of the _dir.vpk files */
    size_t narchives, archives_cap;
    bool failed;        /* out of memory */
} dk_vpk_set;

/* Read what can be read; a damaged or unreadable directory archive is skipped whole. */
void dk_vpk_load(dk_vpk_set *set, bspkit_map *map, const char *const *dirs, size_t ndirs);
/* The entry for `path` (normalised) in the first archive holding it, or NULL. */
const dk_vpk_name *dk_vpk_find(const dk_vpk_set *set, const char *path);
void dk_vpk_free(dk_vpk_set *set);

/* Whether item `i` of a list from bspkit_deps_map was found as a loose file (its location is that
 * file's path), as opposed to inside the map, a WAD or a VPK archive. */
bool dk_dep_is_loose(const bspkit_deps *deps, size_t i);

#endif
