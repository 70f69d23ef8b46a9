/* What a Source map needs from the game's content besides itself: the
 * materials of its texdata and sky, the models of its static props and
 * entities (with the files each model comes with) and the sounds its
 * ambient_generic entities play, minus what its pakfile carries. The
 * names come from hostile bytes: each is cleaned to a safe relative path
 * (no "..", not absolute) or dropped. */
#ifndef BSPKIT_OPS_CONTENT_H
#define BSPKIT_OPS_CONTENT_H

#include "bspkit/bspkit.h"

#include <stdbool.h>
#include <stddef.h>

/* A list of distinct lower-case paths in the order first added. */
typedef struct bk_strset {
    char **items;
    size_t count, cap;
} bk_strset;

/* Add `path` (cleaned and lower-cased); false only when out of memory. A name that is not
 * a safe relative path is left out. */
bool bk_strset_add(bk_strset *s, const char *path);
bool bk_strset_has(const bk_strset *s, const char *path);
void bk_strset_free(bk_strset *s);

/* The content files map refers to, not in its pakfile, into `out`. */
bspkit_result bk_map_references(bspkit_map *map, bk_strset *out, bspkit_error *err);
/* The textures a material's text names (every "$key" value: materials/VALUE.vtf). */
bool bk_vmt_textures(const char *text, size_t size, bk_strset *out);

#endif
