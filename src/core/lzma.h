/* LZMA through liblzma, one glue for every user: Valve's LZMA lumps (a
 * 17-byte header, then raw LZMA1) in both directions, and the raw-LZMA1
 * helpers the pakfile's zip entries (method 14) share with them. */
#ifndef BSPKIT_CORE_LZMA_H
#define BSPKIT_CORE_LZMA_H

#include "bspkit/bspkit.h"

#include <lzma.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- Valve's LZMA lumps ---- */
#define BK_LZMA_HEADER_SIZE 17
#define BK_LZMA_ID 0x414D5A4Cu /* "LZMA" read little-endian */
bool bk_is_lzma(const uint8_t *data, size_t size);
/* Reads actualSize from the header; false when the header is invalid. */
bool bk_lzma_sizes(const uint8_t *data, size_t size, uint32_t *actual, uint32_t *compressed);
/* Decompresses into a caller buffer of exactly `actual` bytes. */
bspkit_result bk_lzma_decompress(const uint8_t *src, size_t src_size, uint8_t *dst, size_t dst_size,
                                 int lump, bspkit_error *err);
/* Valve LZMA lump: 17-byte header + raw LZMA1 stream with an end marker, into a new buffer. */
bspkit_result bk_lzma_compress(const uint8_t *src, size_t size, uint8_t **out, size_t *out_size, int lump,
                               bspkit_error *err);

/* ---- raw LZMA1 ---- */
/* The dictionary an encoder needs for `size` input bytes: the smallest power
 * of two from LZMA_DICT_SIZE_MIN that covers them, at most `preset_dict`. A
 * larger one buys nothing but memory, which decoders (the engine's too)
 * allocate in full. */
uint32_t bk_lzma_dict_for_input(size_t size, uint32_t preset_dict);
/* The largest dictionary a decoder of `out_size` bytes ever needs; hostile
 * property bytes asking for more would make liblzma allocate it. */
uint32_t bk_lzma_dict_cap(size_t out_size);
/* Runs lzma_code() with `action` until the stream ends, fails, stops making
 * progress or, with `stop_when_full`, fills the output (streams without an
 * end marker). Returns the last liblzma code. */
lzma_ret bk_lzma_pump(lzma_stream *strm, lzma_action action, bool stop_when_full);

#endif
