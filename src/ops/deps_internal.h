/* Shared by the dependency scan: path normalisation, the KeyValues reader
 * for materials and particle manifests, and the names in VPK directories. */
#ifndef BSPKIT_OPS_DEPS_INTERNAL_H
#define BSPKIT_OPS_DEPS_INTERNAL_H

#include "bspkit/bspkit.h"

#include <stdbool.h>
#include <stddef.h>

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

/* Every file name in the VPK directory archives (*_dir.vpk) of the game directories. */
typedef struct dk_vpk_name {
    char *name;     /* lower case */
    size_t archive; /* index into archives */
} dk_vpk_name;

typedef struct dk_vpk_set {
    dk_vpk_name *items; /* sorted by name */
    size_t count, cap;
    char **archives;    /* paths of the _dir.vpk files */
    size_t narchives, archives_cap;
    bool failed;        /* out of memory */
} dk_vpk_set;

/* Read what can be read; damaged archives are skipped. */
void dk_vpk_load(dk_vpk_set *set, bspkit_map *map, const char *const *dirs, size_t ndirs);
/* The archive holding `path` (normalised), or NULL. */
const char *dk_vpk_find(const dk_vpk_set *set, const char *path);
void dk_vpk_free(dk_vpk_set *set);

#endif
