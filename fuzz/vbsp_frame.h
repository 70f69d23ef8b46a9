/* Wraps fuzz input as one lump of a minimal Source (VBSP) file, so targets
 * aimed at one lump parser still enter through bspkit_open_memory() like a
 * real map. The lump is placed right after the 1036-byte header. */
#ifndef BSPKIT_FUZZ_VBSP_FRAME_H
#define BSPKIT_FUZZ_VBSP_FRAME_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define VBSP_HEADER_SIZE 1036u

static inline void vbsp_put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* A new buffer (free()) holding header + `lump`; NULL when out of memory. */
static inline uint8_t *vbsp_frame(int32_t version, int lump, int32_t lump_version, uint32_t fourcc,
                                  const uint8_t *data, size_t size, size_t *out_size)
{
    if (size > UINT32_MAX - VBSP_HEADER_SIZE)
        return NULL;
    uint8_t *file = calloc(1, VBSP_HEADER_SIZE + size);
    if (file == NULL)
        return NULL;
    memcpy(file, "VBSP", 4);
    vbsp_put32(file + 4, (uint32_t)version);
    uint8_t *entry = file + 8 + (size_t)lump * 16;
    vbsp_put32(entry, VBSP_HEADER_SIZE);
    vbsp_put32(entry + 4, (uint32_t)size);
    vbsp_put32(entry + 8, (uint32_t)lump_version);
    vbsp_put32(entry + 12, fourcc);
    if (size > 0)
        memcpy(file + VBSP_HEADER_SIZE, data, size);
    *out_size = VBSP_HEADER_SIZE + size;
    return file;
}

#endif
