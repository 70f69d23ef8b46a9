/* Internal state of a map edit, shared by the setters (edit.c) and the
 * writer that lays the file out again (layout.c). */
#ifndef BSPKIT_WRITE_EDIT_STATE_H
#define BSPKIT_WRITE_EDIT_STATE_H

#include "bspkit/edit.h"
#include "core/map.h"

/* One lump as the edit sees it: untouched (the map's bytes) or replaced. */
typedef struct ed_lump {
    bool replaced;
    uint8_t *data; /* the replacement, decompressed, owned (NULL when empty) */
    size_t size;
    bool version_set;
    int32_t version;
} ed_lump;

/* One Source game lump entry. Entries that came from the map refer to it by
 * `source` until their data is replaced. */
typedef struct ed_game_lump {
    uint32_t id;
    uint16_t flags, version;
    size_t source;  /* index in the map's game-lump directory, or SIZE_MAX for a new entry */
    bool replaced;
    uint8_t *data;  /* replacement, decompressed, owned */
    size_t size;
} ed_game_lump;

struct bspkit_edit {
    bspkit_map *map;
    ed_lump lumps[BK_MAX_LUMPS];
    /* Game lumps are loaded on the first game-lump edit; until then the
     * map's GAME_LUMP is written as it was (offsets moved with the lump). */
    bool games_loaded;
    bool games_changed;
    ed_game_lump *games;
    size_t game_count, game_cap;
};

/* The directory version lump `lump` is written with: as set, else the map's. */
static inline int32_t ed_lump_version(const bspkit_edit *e, int lump)
{
    return e->lumps[lump].version_set ? e->lumps[lump].version : e->map->lumps[lump].version;
}

/* Decompressed current contents of game-lump entry `g`. */
bspkit_result ed_game_lump_bytes(bspkit_edit *e, const ed_game_lump *g, const uint8_t **data, size_t *size,
                                 bspkit_error *err);
/* Load the map's game-lump directory into e->games (once). */
bspkit_result ed_load_game_lumps(bspkit_edit *e, bspkit_error *err);

#endif
