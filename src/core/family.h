/* The interface a map family (Quake/GoldSrc, Source, ...) implements so the
 * reader core can open its files without knowing anything about it: how its
 * files are recognised, how its lump directory is laid out, what its lumps
 * are called and which record layout (schema) each lump holds. Each family
 * defines one bk_family_ops in its own folder; src/formats/registry.c lists
 * them. */
#ifndef BSPKIT_CORE_FAMILY_H
#define BSPKIT_CORE_FAMILY_H

#include "bspkit/dump.h"
#include "core/map.h"
#include "core/schema.h"

/* Lumps the core's accessors need by what they hold, not by number. */
typedef enum bk_lump_role {
    BK_ROLE_LIGHTING, BK_ROLE_LIGHTING_HDR, BK_ROLE_PAKFILE, BK_ROLE_VISIBILITY,
    BK_ROLE_TEXDATA_STRING_DATA /* NUL-terminated names the texdata string table points into */
} bk_lump_role;

/* How a family's maps work where the shared analysis code has to know. */
enum {
    /* Visibility rows per cluster (Source, Quake 2, Quake 3) rather than
     * per visible leaf (Quake/GoldSrc); compressed, with a PVS and a PAS/PHS
     * offset each, unless BK_TRAIT_BITSET_VIS. */
    BK_TRAIT_CLUSTER_VIS = 1u << 0,
    /* Lightmap luxels of 3 bytes (GoldSrc, Quake 2) rather than 1 (Quake). */
    BK_TRAIT_RGB_LIGHTMAPS = 1u << 1,
    /* Cluster visibility as a cluster count, a row size and one
     * uncompressed PVS bit row per cluster, no PAS (Quake 3). */
    BK_TRAIT_BITSET_VIS = 1u << 2,
};

typedef struct bk_family_ops {
    /* True for the public family values this family reads. */
    bool (*reads)(bspkit_family family);
    /* True when the first bytes (at least 4) are this family's header. */
    bool (*claims)(const uint8_t *data, size_t size);
    /* Fills the format from the header (family, version, variant, lump
     * count, name), or fails naming what is wrong. Only called when claims(). */
    bspkit_result (*detect)(const uint8_t *data, size_t size, bspkit_format *format, bspkit_error *err);
    /* Reads offset, length, version and fourCC of every lump into map->lumps
     * (ranges are checked by the core afterwards) and may add variant bits
     * the directory shows. */
    void (*read_directory)(bspkit_map *map);
    /* True when the lump may be stored LZMA-compressed (Valve's header). */
    bool (*lump_may_be_compressed)(const bspkit_map *map, int lump);
    /* Directory name ("PLANES") and `info --json` count key ("planes", or NULL). */
    const char *(*lump_name)(const bspkit_map *map, int lump);
    const char *(*lump_key)(const bspkit_map *map, int lump);
    /* The record layout of the lump in this map. */
    bk_layout (*layout)(const bspkit_map *map, int lump);
    /* The lump that holds `role` in this map, or -1 when the family has none. */
    int (*lump_for)(const bspkit_map *map, bk_lump_role role);

    /* Dump tables of a lump that is not one schema record array (lump is a
     * directory index), of game lump `game_id` (nonzero), or of the
     * extension lump named in out->lump (lump -1): BSPKIT_ERR_NOT_FOUND
     * when the family has no decoder for it (core/table.h). */
    bspkit_result (*dump_tables)(bspkit_map *map, int lump, uint32_t game_id, bspkit_dump *out,
                                 bspkit_error *err);
    /* Dump of a lump named other than by the directory (a Source game lump
     * id, a BSPX lump name): BSPKIT_ERR_NOT_FOUND when `which` names none. */
    bspkit_result (*dump_named)(bspkit_map *map, const char *which, bspkit_dump *out, bspkit_error *err);
    /* Why a directory lump without tables is shown raw, or NULL. */
    const char *(*raw_note)(const bspkit_map *map, int lump);
    /* BK_TRAIT_* bits of this map. */
    unsigned (*traits)(const bspkit_map *map);
    /* Texinfo flags whose faces carry no lightmap (sky and liquids, or NOLIGHT). */
    int32_t no_lightmap_flags;
    /* Bytes before the directory of {offset, length} pairs the writer lays
     * out: the version (Quake/GoldSrc), or "IBSP" and the version; 0 for a
     * family with a directory of its own form (Source). */
    uint32_t directory_start;
    /* When the family may keep lump `lump` in a file beside the map: writes
     * that file's name suffix (appended to the map's path) into buf and
     * returns true. NULL for families whose maps are one file. */
    bool (*external_lump_suffix)(const bspkit_map *map, int lump, char *buf, size_t size);
    /* Appends the entities a map keeps outside its entity lump (Titanfall's
     * .ent partition files) to `ents`, the entity lump's, parsed with
     * BSPKIT_ENTITIES_* `flags` (core/entities.h); NULL for families whose
     * entities are all in the lump. */
    bspkit_result (*more_entities)(bspkit_map *map, bspkit_entities *ents, unsigned flags, bspkit_error *err);
} bk_family_ops;

/* The layout of a lump whose records follow schema `s`, cached in the
 * decoded-array slot `kind` (a bk_rec, or -1 for none). */
static inline bk_layout bk_schema_layout(const bk_schema *s, int kind)
{
    return (bk_layout){s->record_size, s->native_size, s->decode, kind, s};
}

/* lump_may_be_compressed for families that never compress a lump. */
static inline bool bk_never_compressed(const bspkit_map *map, int lump)
{
    (void)map;
    (void)lump;
    return false;
}

/* read_directory for a directory of little-endian {offset, length} pairs
 * starting `start` bytes into the file (Quake 2, Quake 3: after "IBSP" and
 * the version). */
static inline void bk_read_pair_directory(bspkit_map *map, size_t start)
{
    for (int i = 0; i < map->format.lump_count; i++) {
        map->lumps[i].offset = rd_le32(map->data + start + 8 * (size_t)i);
        map->lumps[i].length = rd_le32(map->data + start + 4 + 8 * (size_t)i);
    }
}

/* dump_tables and dump_named for families whose every lump is a schema
 * record array, shown raw, or named by the directory. */
static inline bspkit_result bk_no_dump_tables(bspkit_map *map, int lump, uint32_t game_id, bspkit_dump *out,
                                              bspkit_error *err)
{
    (void)map;
    (void)lump;
    (void)game_id;
    (void)out;
    (void)err;
    return BSPKIT_ERR_NOT_FOUND;
}
static inline bspkit_result bk_no_dump_named(bspkit_map *map, const char *which, bspkit_dump *out, bspkit_error *err)
{
    (void)map;
    (void)which;
    (void)out;
    (void)err;
    return BSPKIT_ERR_NOT_FOUND;
}

/* BK_TRAIT_* bits of an open map (0 before its family is known). */
static inline unsigned bk_map_traits(const bspkit_map *map)
{
    return map->family_ops ? map->family_ops->traits(map) : 0;
}

/* Whether an open map stores visibility rows per cluster (BK_TRAIT_CLUSTER_VIS). */
static inline bool bk_map_cluster_vis(const bspkit_map *map) { return (bk_map_traits(map) & BK_TRAIT_CLUSTER_VIS) != 0; }
/* Whether its cluster rows are stored as plain bit rows (BK_TRAIT_BITSET_VIS). */
static inline bool bk_map_bitset_vis(const bspkit_map *map) { return (bk_map_traits(map) & BK_TRAIT_BITSET_VIS) != 0; }

/* The family's texinfo flags for faces without a lightmap (0 before its family is known). */
static inline int32_t bk_map_no_lightmap_flags(const bspkit_map *map)
{
    return map->family_ops ? map->family_ops->no_lightmap_flags : 0;
}

/* The lump holding `role` in an open map, or -1. */
static inline int bk_map_lump_for(const bspkit_map *map, bk_lump_role role)
{
    return map->family_ops ? map->family_ops->lump_for(map, role) : -1;
}

/* The registered families, in the order detection asks them (registry.c). */
extern const bk_family_ops *const bk_families[];
extern const size_t bk_family_count;

/* The family that reads maps of `family`, or NULL. */
const bk_family_ops *bk_family_of(bspkit_family family);

/* Known formats bspkit does not read: fails naming what the file is (a Quake
 * 2 IBSP, a zip, ...) and returns true, or returns false when unknown. */
bool bk_name_unsupported_format(const uint8_t *data, size_t size, bspkit_error *err, bspkit_result *result);

#endif
