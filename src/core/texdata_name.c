/* Texture names through TEXDATA, its string table and the string data lump,
 * for the families that store names that way (Source, Titanfall). */
#include "core/family.h"

#include <string.h>

const char *bspkit_texdata_name(bspkit_map *map, size_t index)
{
    if (!map)
        return NULL;
    int lump = bk_map_lump_for(map, BK_ROLE_TEXDATA_STRING_DATA);
    if (lump < 0)
        return NULL;
    if (!map->string_data_done) {
        map->string_data_done = true;
        const uint8_t *bytes;
        size_t size;
        if (bk_lump_bytes(map, lump, &bytes, &size, NULL) == BSPKIT_OK && size &&
            bytes[size - 1] == '\0') {
            /* The usual case: every name ends inside the lump, so the lump itself serves. */
            map->string_data = (char *)bytes;
            map->string_data_size = size;
            map->string_data_borrowed = true;
        } else if (bk_lump_bytes(map, lump, &bytes, &size, NULL) == BSPKIT_OK) {
            /* A private copy with a final NUL, so no name can run off the lump's end. */
            char *s = bk_alloc(map, size + 1, lump, NULL);
            if (s) {
                memcpy(s, bytes, size);
                s[size] = '\0';
                map->string_data = s;
                map->string_data_size = size;
            }
        }
    }
    if (!map->string_data)
        return NULL;
    const bspkit_texdata *td;
    const int32_t *table;
    size_t ntd, ntable;
    if (bspkit_get_texdata(map, &td, &ntd, NULL) != BSPKIT_OK || index >= ntd)
        return NULL;
    if (bspkit_get_texdata_string_table(map, &table, &ntable, NULL) != BSPKIT_OK)
        return NULL;
    int32_t id = td[index].name_id;
    if (id < 0 || (size_t)id >= ntable)
        return NULL;
    int32_t ofs = table[id];
    if (ofs < 0 || (size_t)ofs >= map->string_data_size)
        return NULL;
    return map->string_data + ofs;
}
