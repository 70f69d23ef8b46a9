/* Shared by the texture decoders (miptex, WAD, map textures). Not public. */
#ifndef BSPKIT_MEDIA_TEXTURE_INTERNAL_H
#define BSPKIT_MEDIA_TEXTURE_INTERNAL_H

#include "bspkit/image.h"
#include "bspkit/textures.h"
#include "media/image_internal.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Quake's gfx/palette.lmp: 256 RGB triples. */
extern const uint8_t bk_quake_palette[768];

/* WAD2/WAD3 layout: a 12-byte header, 32-byte directory entries, entry types. */
#define WAD_HEADER_SIZE 12
#define WAD_ENTRY_SIZE 32
#define MIPTEX_HEADER_SIZE 40
enum { WAD_TYPE_PALETTE = 0x40, WAD_TYPE_QPIC = 0x42, WAD_TYPE_MIPTEX3 = 0x43, WAD_TYPE_MIPTEX2 = 0x44 };

/* Largest miptex/qpic side accepted; larger ones are treated as malformed. */
#define BK_TEX_MAX_SIDE 16384u

/* True when a texture name asks for index 255 to be transparent ('{' names). */
static inline bool bk_tex_transparent_name(const char *name) { return name && name[0] == '{'; }

/* The RGBA each of the 256 indices expands to: indices at or above
 * `colours` (a short palette) become opaque black; with `transparent`,
 * index 255 becomes transparent black. The caller has range-checked
 * `palette` (colours * 3 bytes). */
void bk_paletted_table(const uint8_t *palette, size_t colours, bool transparent, uint8_t rgba[256][4]);

/* The loaders' pixels before expansion (bspkit_miptex_load_image,
 * bspkit_wad_load_image, bspkit_textures_load_image give the same errors);
 * the indices stay in the map or WAD. bk_textures_load_indexed refuses
 * textures that are not palette-based with BSPKIT_ERR_UNSUPPORTED. */
bspkit_result bk_miptex_load_indexed(bspkit_map *map, size_t index, bk_indexed_image *out, bspkit_error *err);
bspkit_result bk_wad_load_indexed(const bspkit_wad *wad, size_t index, bk_indexed_image *out, bspkit_error *err);
bspkit_result bk_textures_load_indexed(bspkit_textures *t, size_t index, bk_indexed_image *out, bspkit_error *err);

/* A pakfile texture's VTF file as stored (bspkit_vtf_decode makes its
 * pixels, on any thread); BSPKIT_ERR_UNSUPPORTED for other sources. Reading
 * stays on one thread at a time: the pakfile reader is shared. */
bspkit_result bk_textures_read_file(bspkit_textures *t, size_t index, uint8_t **out, size_t *size, bspkit_error *err);

/* The RGBA image of `img`. */
bspkit_result bk_indexed_expand(const bk_indexed_image *img, bspkit_image *out, bspkit_error *err);

#endif
