/* Internal interface of the writer: native record -> file layout encoders
 * (encode.c), used by the builder. Nothing here is part of the public API. */
#ifndef BSPKIT_WRITE_ENCODE_H
#define BSPKIT_WRITE_ENCODE_H

#include "bspkit/write.h"
#include "core/bytes.h"
#include "core/map.h"

/* Everything that decides a record's file layout. */
typedef struct bk_target {
    bspkit_family family;
    int32_t version;      /* header version */
    int32_t lump_version; /* Source directory version of the lump being encoded */
    bool big_endian;
} bk_target;

/* sizeof the native struct behind a record kind. */
size_t bk_rec_native_size(bk_rec kind);

/* Lump index holding `kind` in `family` (FACES for BK_REC_FACES), or -1 when
 * the family has no such lump. */
int bk_rec_lump(bspkit_family family, bk_rec kind);

/* File bytes per record for the target, 0 when the family lacks the kind. */
size_t bk_rec_file_size(const bk_target *t, bk_rec kind);

/* Checks that every record fits the layout and, when `dst` is not NULL,
 * writes count * bk_rec_file_size() bytes there. `lump` names the lump in
 * error messages. */
bspkit_result bk_encode_records(const bk_target *t, bk_rec kind, const void *items, size_t count, uint8_t *dst,
                                int lump, bspkit_error *err);

/* Quake/GoldSrc TEXTURES lump bytes (little-endian) into a new buffer. */
bspkit_result bk_encode_miptex(bspkit_family family, const bspkit_miptex *tex, size_t count, uint8_t **out,
                               size_t *size, bspkit_error *err);

#endif
