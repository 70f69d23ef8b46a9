/* CRC-32 as in zlib and liblzma (reflected polynomial 0xEDB88320, chaining:
 * bk_crc32(b, bk_crc32(a, 0)) == bk_crc32(a || b)), through libdeflate, whose
 * run-time-dispatched carry-less-multiply code hashes a whole map at memory
 * speed on every `info`. */
#include "core/crc32.h"

#include <libdeflate.h>

uint32_t bk_crc32(const uint8_t *data, size_t size, uint32_t crc)
{
    /* libdeflate answers a NULL buffer with the initial value 0, whatever
     * `crc` is; an empty input must leave the running value unchanged. */
    if (size == 0)
        return crc;
    return libdeflate_crc32(crc, data, size);
}
