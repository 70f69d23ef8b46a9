/*
 * bspkit dump — any lump as a table of decoded records, described field by
 * field so that a printer (text or JSON) needs no knowledge of the struct.
 *
 * Field names follow the member names of the structures in the format
 * documents (dface_t's `planenum`, `lightofs`, StaticPropLump_t's `Origin`,
 * ...), not bspkit's own C names.
 */
#ifndef BSPKIT_DUMP_H
#define BSPKIT_DUMP_H

#include "bspkit/bspkit.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum bspkit_field_type {
    BSPKIT_FIELD_I8,
    BSPKIT_FIELD_U8,
    BSPKIT_FIELD_I16,
    BSPKIT_FIELD_U16,
    BSPKIT_FIELD_I32,
    BSPKIT_FIELD_U32,
    BSPKIT_FIELD_I64,
    BSPKIT_FIELD_U64,
    BSPKIT_FIELD_F32,
    BSPKIT_FIELD_BOOL,    /**< a C bool */
    BSPKIT_FIELD_CHARS,   /**< char[count], NUL-terminated or full */
    BSPKIT_FIELD_STRING,  /**< const char * (NULL prints as null) */
    BSPKIT_FIELD_VEC3,    /**< bspkit_vec3 */
    BSPKIT_FIELD_RGBEXP,  /**< bspkit_rgbexp */
    BSPKIT_FIELD_FOURCC   /**< uint32 with the first character in the high byte */
} bspkit_field_type;

/** One member of a native record: `count` consecutive values at `offset` (count 1 = scalar). */
typedef struct bspkit_field {
    const char *name;
    bspkit_field_type type;
    uint32_t offset;
    uint32_t count;
} bspkit_field;

/** A run of records of one native type (borrowed from the map). */
typedef struct bspkit_table {
    const char *name;            /**< e.g. "records", "dictionary", "props" */
    const bspkit_field *fields;
    size_t field_count;
    const void *records;
    size_t stride;               /**< bytes between records */
    size_t count;
} bspkit_table;

#define BSPKIT_DUMP_MAX_TABLES 8

/** A lump as tables, or as raw bytes when bspkit has no decoder for it. */
typedef struct bspkit_dump {
    char lump[32];        /**< lump name ("FACES") or game-lump id ("sprp") */
    int lump_index;       /**< directory index; BSPKIT_S_GAME_LUMP for a game lump; -1 for a BSPX lump */
    int32_t version;      /**< lump or game-lump version */
    size_t table_count;   /**< 0 = not decoded: see raw */
    bspkit_table tables[BSPKIT_DUMP_MAX_TABLES];
    const uint8_t *raw;   /**< the (decompressed) bytes, always set */
    size_t raw_size;
    bool text;            /**< raw holds text (the entity lump) */
    char note[160];       /**< why the lump is raw, or a layout warning; empty when none */
} bspkit_dump;

/**
 * Describe the lump named `which`: an index ("7"), a lump name or key
 * ("FACES", "faces"), a game-lump id ("sprp", "dprp", "dplt") or a BSPX lump
 * name ("RGBLIGHTING"). Lumps with a decoder give tables; the others give
 * raw bytes and a note. BSPKIT_ERR_NOT_FOUND when nothing has that name.
 */
BSPKIT_API bspkit_result bspkit_dump_lump(bspkit_map *map, const char *which, bspkit_dump *out, bspkit_error *err);

/** Address of record `index` of a table (no bounds check beyond index < count). */
static inline const void *bspkit_table_record(const bspkit_table *t, size_t index)
{
    return index < t->count ? (const uint8_t *)t->records + index * t->stride : NULL;
}

#ifdef __cplusplus
}
#endif

#endif /* BSPKIT_DUMP_H */
