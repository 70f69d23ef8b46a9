/* The CRC-32 implementations behind bk_crc32 (declared in core/map.h),
 * exposed separately so tests can check each one whatever the host CPU. */
#ifndef BSPKIT_CORE_CRC32_H
#define BSPKIT_CORE_CRC32_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Table-driven; runs anywhere. */
uint32_t bk_crc32_portable(const uint8_t *data, size_t size, uint32_t crc);

/* Carry-less-multiply folding. Only valid when bk_crc32_clmul_available();
 * on other architectures it is the portable code. */
uint32_t bk_crc32_clmul(const uint8_t *data, size_t size, uint32_t crc);
bool bk_crc32_clmul_available(void);

#endif
