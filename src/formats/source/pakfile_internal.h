/* Internal interface of the PAKFILE code, split by concern: pakfile.c
 * (errors, names, opening, reading, changing), pakfile_zip.c (the raw
 * central directory and LZMA entries) and pakfile_write.c (writing). */
#ifndef BSPKIT_FORMATS_SOURCE_PAKFILE_INTERNAL_H
#define BSPKIT_FORMATS_SOURCE_PAKFILE_INTERNAL_H

#include "bspkit/pak.h"

#include "core/bytes.h"
#include "core/map.h"
#include "core/glob.h"

#include <lzma.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/zipdl.h"

#define PAK_LUMP BSPKIT_S_PAKFILE
#define PAK_DEFAULT_MAX_ENTRY (256ull << 20)
#define PAK_MAX_ENTRIES 65535u   /* the end record's 16-bit count: more needs zip64 */
#define PAK_NAME_LIMIT 260u      /* the engine copies names into char[MAX_PATH] */

#define ZIP_EOCD_SIZE 22u
#define ZIP_CDH_SIZE 46u
#define ZIP_LFH_SIZE 30u
#define ZIP_SIG_EOCD 0x06054b50u
#define ZIP_SIG_CDH 0x02014b50u
#define ZIP_SIG_LFH 0x04034b50u
#define ZIP_FLAG_ENCRYPTED 0x0001u

/* The zip LZMA header: SDK version (2), properties size (2), properties (5). */
#define ZIP_LZMA_HEADER 9u
#define ZIP_LZMA_PROPS 5u

typedef struct pak_item {
    char *name;
    uint64_t size, comp_size;
    uint16_t method, flags;
    uint32_t crc;
    time_t mtime;
    bool has_mtime;
    bool engine_ok;
    zip_int64_t zindex; /* entry of the opened archive, or -1 for added bytes */
    uint8_t *data;      /* added entries: the uncompressed bytes */
} pak_item;

struct bspkit_pak {
    uint8_t *bytes; /* the archive libzip reads (normalised when it was XZP2) */
    size_t size;
    zip_t *za;      /* NULL for an empty archive */
    char *comment;  /* raw archive comment kept for writing, or NULL */
    size_t comment_len;
    pak_item *items;
    size_t count, cap;
    uint64_t max_entry;
};

/* ---- shared between the files ---- */

typedef struct zip_end {
    size_t pos;
    uint16_t entries;
    uint32_t cd_size, cd_offset;
    uint16_t comment_len;
} zip_end;

typedef struct zip_cd_entry {
    uint16_t flags, method, name_len, extra_len, comment_len;
    uint32_t local_offset;
    const uint8_t *name;
} zip_cd_entry;

bool pak_cd_engine_ok(const uint8_t *z, size_t n, const zip_cd_entry *e);
bool pak_cd_next(const uint8_t *z, size_t n, size_t *pos, bool compact, zip_cd_entry *e);
bool pak_comment_is_xzp2(const uint8_t *c, size_t len);
bool pak_find_end(const uint8_t *z, size_t n, zip_end *e);
bool pak_holds_end_signature(const uint8_t *c, size_t len);
bool pak_is_xzp2(const uint8_t *z, const zip_end *e);
bspkit_result pak_fail(bspkit_error *err, bspkit_result code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
bspkit_result pak_lzma_entry_decode(const pak_item *it, const uint8_t *src, size_t n, uint8_t *dst,
                                       size_t size, bspkit_error *err);
bspkit_result pak_lzma_entry_encode(const char *name, const uint8_t *src, size_t size, uint8_t **out,
                                       size_t *out_size, bspkit_error *err);
bspkit_result pak_no_memory(bspkit_error *err);
bspkit_result pak_normalise_xzp2(uint8_t **bytes, size_t *size, const zip_end *e, bspkit_error *err);
bspkit_result pak_read_item(bspkit_pak *p, const pak_item *it, uint8_t **out, size_t *out_size,
                               bspkit_error *err);

#endif
