/* Internal state of an open map, shared by the core and the per-family
 * decoders. Nothing here is part of the public API. */
#ifndef BSPKIT_CORE_MAP_H
#define BSPKIT_CORE_MAP_H

#include "bspkit/bspkit.h"
#include "core/bytes.h"
#include "core/crc32.h"
#include "core/lzma.h"
#include "core/record_kinds.h"

#include <stdarg.h>
#include <stddef.h>

#define BK_MAX_LUMPS 128
#define BK_DEFAULT_MAX_FILE 0xFFFFFFFFull
#define BK_DEFAULT_MAX_LUMP (256ull << 20)
/* Default memory limit: a base plus a multiple of the file size. Decoding
 * every lump of the real maps we test needs at most about 4.2 times the file
 * size, so 16 times leaves room while a small hostile file (an LZMA bomb, a
 * forged count) cannot ask for gigabytes. */
#define BK_DEFAULT_MEMORY_BASE (64ull << 20)
#define BK_DEFAULT_MEMORY_PER_FILE_BYTE 16u


/* Converts `count` records of the file layout at `src` into native structs. */
typedef void (*bk_decode_fn)(const uint8_t *src, size_t count, bool big_endian, void *dst);

/* How one lump is stored in this particular map. */
typedef struct bk_schema bk_schema;
typedef struct bk_layout {
    uint32_t record_size; /* file bytes per record; 0 = not an array lump */
    size_t native_size;   /* sizeof the native struct */
    bk_decode_fn decode;  /* NULL when bspkit does not decode the records */
    int decoded;          /* bk_rec slot, or -1 */
    const bk_schema *schema; /* the record layout's declaration (core/schema.h), or NULL */
} bk_layout;

typedef struct bk_lump {
    uint32_t offset, length;
    int32_t version;
    uint32_t fourcc;
    bool compressed;
    uint32_t uncompressed_length;
    bk_layout layout;
    /* The file beside the map the lump's bytes were read from (held in
     * the map's bytes cache), or NULL when they are in the map file. */
    char *external;
} bk_lump;

typedef struct bk_bytes_cache {
    bool done;
    bspkit_result result;
    const bspkit_error *error; /* the failure (bk_keep_error), NULL while result is OK */
    uint8_t *owned; /* decompressed copy, or NULL when borrowed from the file */
    const uint8_t *data;
    size_t size;
} bk_bytes_cache;

/* Decoded structures that are not one plain record array (game lumps,
 * displacements, lighting tables, ...). Each slot is built once by its
 * decoder, which allocates with bk_keep_alloc(); the result is cached,
 * including a failure. */
typedef enum bk_extra {
    EX_STATIC_PROPS, EX_DETAIL_PROPS, EX_DETAIL_LIGHTING, EX_DETAIL_LIGHTING_HDR,
    EX_DISPINFO, EX_DISP_VERTS, EX_DISP_TRIS, EX_DISP_MULTIBLEND,
    EX_FACE_LIGHTMAPS, EX_FACE_LIGHTMAPS_HDR, EX_WORLDLIGHTS, EX_WORLDLIGHTS_HDR,
    EX_LEAF_AMBIENT, EX_LEAF_AMBIENT_HDR, EX_BSPX, EX_BSPX_DECOUPLED_LM, EX_BSPX_BRUSHLIST,
    EX_OVERLAYS, EX_WATER_OVERLAYS, EX_OVERLAY_FADES, EX_OVERLAY_SYSTEM_LEVELS, EX_OCCLUSION,
    EX_PHYSCOLLIDE, EX_PHYSDISP, EX_LEAF_WATER, EX_LEAF_MIN_DIST_TO_WATER, EX_PRIMITIVES,
    EX_PRIM_VERTS, EX_PRIM_INDICES, EX_VERT_NORMALS, EX_VERT_NORMAL_INDICES, EX_FACE_IDS,
    EX_FACE_MACRO_TEXINFO, EX_CLIP_PORTAL_VERTS, EX_PORTALS, EX_CLUSTERS, EX_PORTAL_VERTS,
    EX_CLUSTER_PORTALS, EX_MAP_FLAGS, EX_PROP_COLLISION,
    EX_TEXDATA_NAMES, EX_R2_ENTITY_PARTITIONS, EX_TEXTURE_PNGS,
    EX_COUNT
} bk_extra;

typedef struct bk_extra_cache {
    bool done;
    bspkit_result result;
    const bspkit_error *error; /* the failure (bk_keep_error), NULL while result is OK */
    const void *value;
} bk_extra_cache;

/* A block allocated for decoded data, freed at close. */
typedef struct bk_kept {
    struct bk_kept *next;
    size_t size;
} bk_kept;

typedef struct bk_array_cache {
    bool done;
    bspkit_result result;
    const bspkit_error *error; /* the failure (bk_keep_error), NULL while result is OK */
    const void *items;         /* owned, or the lump's own bytes (records read in place) */
    void *owned;               /* what close frees; NULL when items are the lump's bytes or in the arena */
    size_t count;
    /* Records of 16-bit indices widened to 32 bits: the largest index,
     * found by the widening (bk_array_index_max). */
    bool index_max_known;
    uint32_t index_max;
} bk_array_cache;

struct bspkit_map {
    const uint8_t *data;
    size_t size;
    void *mapping;    /* mmap base, or NULL */
    size_t mapping_size;
    uint8_t *owned;   /* heap copy of the file, or NULL */
    char *path;       /* the path it was opened from, or NULL when opened from memory */

    bspkit_format format;
    const struct bk_family_ops *family_ops; /* the family reading this map (core/family.h) */
    bspkit_options opts; /* defaults resolved */
    uint64_t memory_used;

    /* lump_count entries each, in one block allocated when the directory is
     * read (NULL before): a Quake map clears 15 of them, not BK_MAX_LUMPS. */
    int lump_count;
    bk_lump *lumps;
    bk_bytes_cache *bytes;
    bk_array_cache arrays[BK_REC_COUNT];
    int dec_lump[BK_REC_COUNT]; /* the lump each decoded slot comes from in this map, or -1 */

    /* Caches that are not plain record arrays. */
    bk_array_cache miptex;
    bk_array_cache game_lumps;
    bk_bytes_cache *game_lump_bytes; /* one per game lump */
    bool game_lumps_relative;        /* entry offsets count from the game lump, not the file */
    bspkit_entities *entities;
    bool entities_done;
    bspkit_result entities_result;
    bspkit_error entities_error;
    /* The entity count validation found without making the list (plain
     * entity text read by bk_entities_scan_models); once the list is made
     * (entities_done), its count is read instead. */
    bool entity_count_known;
    size_t entity_count;
    char *string_data; /* TEXDATA_STRING_DATA with a guaranteed final NUL */
    bool string_data_borrowed; /* the lump's own bytes (they end in NUL), not a copy */
    size_t string_data_size;
    bool string_data_done;

    bk_extra_cache extras[EX_COUNT];
    bk_kept *kept; /* every bk_keep_alloc() block, newest first */

    /* A small map's decoded arrays share one block, sized from the
     * directory when the first is decoded (map.c, records_alloc). */
    uint8_t *arena;
    size_t arena_size, arena_used;
    bool arena_sized;
};

/* ---- errors ---- */
void bk_error_clear(bspkit_error *err);
/* Fill `err` (if not NULL) and return `code`. */
bspkit_result bk_fail(bspkit_error *err, bspkit_result code, int lump, int64_t offset, int64_t lump_offset,
                      const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
void bk_error_copy(bspkit_error *dst, const bspkit_error *src);
/* A copy of `e` owned by the map until close, for a cache slot's failure:
 * slots hold a pointer, not a whole error, which keeps a new map small. */
const bspkit_error *bk_keep_error(bspkit_map *map, const bspkit_error *e);

/* ---- memory: the options' allocator (or malloc), accounted against opts.max_memory ---- */
/* Where a file XORed with a repeating key keeps that key (BSPKIT_VARIANT_XOR_ENCRYPTED:
 * Tactical Intervention's Source maps hold 32 zero bytes there before encryption). */
#define BK_XOR_KEY_OFFSET 384
#define BK_XOR_KEY_SIZE 32

/* A block from the map's allocator, not charged (zeroed when `zero`); bk_raw_free releases it. */
void *bk_raw_alloc(const bspkit_map *map, size_t size, bool zero);
void bk_raw_free(const bspkit_map *map, void *ptr);
void *bk_alloc(bspkit_map *map, size_t size, int lump, bspkit_error *err);
void *bk_calloc_array(bspkit_map *map, size_t count, size_t elem, int lump, bspkit_error *err);
void bk_free(bspkit_map *map, void *ptr, size_t size);

/* Zeroed memory charged against max_memory and owned by the map until
 * bspkit_close(); never freed earlier. Fails with BSPKIT_ERR_LIMIT or
 * BSPKIT_ERR_NOMEM naming `lump`. count * elem is checked for overflow. */
void *bk_keep_alloc(bspkit_map *map, size_t count, size_t elem, int lump, bspkit_error *err);
/* bk_keep_alloc without clearing, for records the caller writes whole (a
 * schema's decoder clears each record itself): clearing first would write
 * the memory twice. */
void *bk_keep_alloc_records(bspkit_map *map, size_t count, size_t elem, int lump, bspkit_error *err);

/* Builds the value of one extras slot; returns it through *value. */
typedef bspkit_result (*bk_extra_build)(bspkit_map *map, const void **value, bspkit_error *err);
/* The cached value of `slot`, built on first use (a failure is cached too). */
bspkit_result bk_extra_get(bspkit_map *map, bk_extra slot, bk_extra_build build, const void **value,
                           bspkit_error *err);
/* Source record-array lumps decoded into an extras slot (src/formats/source/surfaces.c).
 * A spec with lump -1 stands for "not in this map" (count 0). */
typedef struct bk_array_value { void *items; size_t count; } bk_array_value;
typedef struct bk_array_spec { int lump; uint32_t record_size; size_t native_size; bk_decode_fn decode; } bk_array_spec;
bspkit_result bk_decode_records(bspkit_map *map, const bk_array_spec *spec, bk_array_value *out, bspkit_error *err);
bspkit_result bk_build_array(bspkit_map *map, const bk_array_spec *spec, const void **value, bspkit_error *err);
/* Cached array of `slot`: OK with count 0 for non-Source maps; *items NULL on failure. */
bspkit_result bk_array_get(bspkit_map *map, bk_extra slot, bk_extra_build build, const void **items, size_t *count,
                           bspkit_error *err);
/* Cached single value of a Source-only `slot`; other families get `empty`. *value is NULL on failure. */
bspkit_result bk_source_value_get(bspkit_map *map, bk_extra slot, bk_extra_build build, const void *empty,
                                  const void **value, bspkit_error *err);
/* Defines accessor `fn` for the array that spec_fn(map) describes, cached in `slot`. */
#define BK_ARRAY_ACCESSOR(fn, type, slot, spec_fn)                                                     \
    static bspkit_result fn##_build(bspkit_map *m_, const void **v_, bspkit_error *e_)                 \
    {                                                                                                  \
        bk_array_spec s_ = spec_fn(m_);                                                                \
        return bk_build_array(m_, &s_, v_, e_);                                                        \
    }                                                                                                  \
    bspkit_result fn(bspkit_map *map, const type **out, size_t *count, bspkit_error *err)              \
    {                                                                                                  \
        const void *items_ = NULL;                                                                     \
        bspkit_result r_ = bk_array_get(map, slot, fn##_build, &items_, count, err);                   \
        if (out)                                                                                       \
            *out = items_;                                                                             \
        return r_;                                                                                     \
    }

/* ---- lump helpers ---- */
const char *bk_lump_name(const bspkit_map *map, int index);
const char *bk_lump_key(const bspkit_map *map, int index);
/* Absolute file offset of byte `ofs` of lump `index`, or -1 if compressed. */
int64_t bk_file_offset(const bspkit_map *map, int index, uint64_t ofs);
/* Fill a bytes cache from a stored range: borrowed when stored plainly,
 * decompressed into an owned buffer (after the size limit check) otherwise.
 * `what` names the range in messages; NULL: the lump's name, looked up
 * only when there is something to say. */
void bk_fill_bytes_cache(bspkit_map *map, bk_bytes_cache *c, int lump, const char *what, uint32_t offset,
                         uint32_t length, bool compressed, uint32_t uncompressed_length);
/* Decompresses the LZMA lumps not yet read, several at once on the
 * machine's cores (largest first), and caches them as bk_lump_bytes would.
 * Memory is charged before any thread starts; a lump that fails to
 * decompress, or does not fit the limits, is left for bk_lump_bytes to
 * read and report. Worth it before reading a whole compressed map. */
void bk_decompress_lumps(bspkit_map *map);
/* The cached result: bytes, or the error recorded when filling. */
bspkit_result bk_cached_bytes(const bk_bytes_cache *c, const uint8_t **data, size_t *size, bspkit_error *err);
/* Decompressed lump bytes (cached). */
bspkit_result bk_lump_bytes(bspkit_map *map, int index, const uint8_t **data, size_t *size, bspkit_error *err);
/* Decoded record array for slot `dec` (cached). */
bspkit_result bk_get_array(bspkit_map *map, bk_rec dec, int lump, const void **items, size_t *count,
                           bspkit_error *err);
/* True, with the largest value in slot `dec`'s decoded array as *max,
 * when its decoding found it (records of 16-bit indices widened from a
 * little-endian lump); false when the array is not decoded yet or was
 * read another way. */
bool bk_array_index_max(const bspkit_map *map, bk_rec dec, uint32_t *max);

/* ---- record field readers shared by the family decoders ---- */
static inline void bk_rd_vec3(const uint8_t *p, bool be, bspkit_vec3 *v)
{
    v->x = rd_f32(p, be);
    v->y = rd_f32(p + 4, be);
    v->z = rd_f32(p + 8, be);
}

/* ---- decoders shared by every family (endian-aware) ---- */
void bk_decode_vertexes(const uint8_t *src, size_t n, bool be, void *dst);
void bk_decode_i32(const uint8_t *src, size_t n, bool be, void *dst);
void bk_decode_u32(const uint8_t *src, size_t n, bool be, void *dst);
void bk_decode_u16_as_u32(const uint8_t *src, size_t n, bool be, void *dst);

/* ---- detection and per-family layouts ---- */
/* Reads the directory of an already detected file into map->lumps. */
bspkit_result bk_read_directory(bspkit_map *map, bspkit_error *err);
/* Reads lump `lump` from the file beside the map the family names for it,
 * when the map was opened from a path and that file exists (core/external.c). */
bspkit_result bk_read_external_lump(bspkit_map *map, int lump, bspkit_error *err);
/* Reads the whole regular file `path` into *out, charged against max_memory
 * (bk_free(map, *out, *size) gives it back) and refused above max_lump_size.
 * Errors start with `what` and the path and carry `lump`; a file that does
 * not exist is BSPKIT_ERR_NOT_FOUND. */
bspkit_result bk_read_file_beside(bspkit_map *map, const char *path, int lump, const char *what, uint8_t **out,
                                  size_t *size, bspkit_error *err);

#endif
