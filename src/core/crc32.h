/* CRC-32 (zlib polynomial) of the Source map CRC and of pakfile entries. */
#ifndef BSPKIT_CORE_CRC32_H
#define BSPKIT_CORE_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* Continues `crc` (0 to start) over `size` bytes at `data`. */
uint32_t bk_crc32(const uint8_t *data, size_t size, uint32_t crc);

#endif
