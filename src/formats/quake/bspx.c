/* The BSPX extension block of Quake/GoldSrc maps: locating it (shared with
 * format detection and saving), its directory, and the decoders of the
 * lumps bspkit understands (DECOUPLED_LM, BRUSHLIST, the per-luxel ones). */
#include "bspkit/bspx.h"
#include "core/map.h"
#include "formats/quake/family.h"

#include <string.h>

#define Q_HEADER_SIZE (4 + 8 * BSPKIT_Q_LUMP_COUNT)
#define BSPX_ENTRY_SIZE 32
#define DECOUPLED_LM_SIZE 40
#define BRUSH_MODEL_SIZE 16
#define BRUSH_SIZE 28
#define BRUSH_PLANE_SIZE 16

uint64_t bk_bspx_offset(const uint8_t *data, size_t size)
{
    if (size < Q_HEADER_SIZE)
        return 0;
    /* Directory order does not matter for the end: Blue Shift's swapped
     * entries give the same maximum. */
    uint64_t end = Q_HEADER_SIZE;
    for (int i = 0; i < BSPKIT_Q_LUMP_COUNT; i++) {
        uint64_t e = (uint64_t)rd_le32(data + 4 + 8 * i) + rd_le32(data + 8 + 8 * i);
        if (e > end)
            end = e;
    }
    end = (end + 3) & ~(uint64_t)3;
    if (end > size || size - end < 8 || memcmp(data + end, "BSPX", 4) != 0)
        return 0;
    return end;
}

/* ------------------------------------------------------------------------ */
/* Directory                                                                 */
/* ------------------------------------------------------------------------ */

typedef struct bspx_dir {
    bspkit_bspx_entry *entries;
    size_t count;
} bspx_dir;

static bspkit_result build_dir(bspkit_map *map, const void **value, bspkit_error *err)
{
    bspx_dir *dir = bk_keep_alloc(map, 1, sizeof *dir, -1, err);
    if (!dir)
        return err ? err->code : BSPKIT_ERR_NOMEM;
    *value = dir;
    /* The block follows a Quake/GoldSrc directory; other families have none. */
    if (map->format.family != BSPKIT_FAMILY_QUAKE && map->format.family != BSPKIT_FAMILY_GOLDSRC)
        return BSPKIT_OK;
    uint64_t start = bk_bspx_offset(map->data, map->size);
    if (!start)
        return BSPKIT_OK;
    uint32_t n = rd_le32(map->data + start + 4);
    /* The directory must fit in the file before anything is allocated for it. */
    if (!range_ok(start + 8, (uint64_t)n * BSPX_ENTRY_SIZE, map->size))
        return bk_fail(err, BSPKIT_ERR_LUMP_RANGE, -1, (int64_t)start, -1,
                       "BSPX: %u entries at file offset %llu run past the end of the file (%zu bytes)", n,
                       (unsigned long long)start, map->size);
    dir->entries = bk_keep_alloc(map, n, sizeof *dir->entries, -1, err);
    if (n && !dir->entries)
        return err ? err->code : BSPKIT_ERR_NOMEM;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t at = start + 8 + (uint64_t)i * BSPX_ENTRY_SIZE;
        const uint8_t *p = map->data + at;
        bspkit_bspx_entry *e = &dir->entries[i];
        memcpy(e->name, p, 24);
        e->name[24] = '\0';
        e->offset = rd_le32(p + 24);
        e->length = rd_le32(p + 28);
        if (!range_ok(e->offset, e->length, map->size))
            return bk_fail(err, BSPKIT_ERR_LUMP_RANGE, -1, (int64_t)at, -1,
                           "BSPX entry %u (%s): data at %u+%u lies outside the file (%zu bytes)", i, e->name,
                           e->offset, e->length, map->size);
    }
    dir->count = n;
    return BSPKIT_OK;
}

bspkit_result bspkit_bspx_entries(bspkit_map *map, const bspkit_bspx_entry **out, size_t *count,
                                  bspkit_error *err)
{
    bk_error_clear(err);
    if (!map || !out || !count)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_bspx_entries: NULL argument");
    *out = NULL;
    *count = 0;
    const void *v;
    bspkit_result r = bk_extra_get(map, EX_BSPX, build_dir, &v, err);
    if (r != BSPKIT_OK)
        return r;
    const bspx_dir *dir = v;
    *out = dir->entries;
    *count = dir->count;
    return BSPKIT_OK;
}

/* The entry called `name`, or NULL (directory errors go to err/result). */
static const bspkit_bspx_entry *find_entry(bspkit_map *map, const char *name, bspkit_result *r, bspkit_error *err)
{
    const bspkit_bspx_entry *e;
    size_t n;
    *r = bspkit_bspx_entries(map, &e, &n, err);
    if (*r != BSPKIT_OK)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (strcmp(e[i].name, name) == 0)
            return &e[i];
    return NULL;
}

bspkit_result bspkit_bspx_lump(bspkit_map *map, const char *name, const uint8_t **data, size_t *size,
                               bspkit_error *err)
{
    bk_error_clear(err);
    if (!map || !name || !data || !size)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_bspx_lump: NULL argument");
    *data = NULL;
    *size = 0;
    bspkit_result r;
    const bspkit_bspx_entry *e = find_entry(map, name, &r, err);
    if (r != BSPKIT_OK)
        return r;
    if (!e)
        return bk_fail(err, BSPKIT_ERR_NOT_FOUND, -1, -1, -1, "no BSPX lump named '%s'", name);
    *data = map->data + e->offset;
    *size = e->length;
    return BSPKIT_OK;
}

/* Like bspkit_bspx_lump(), but an absent lump is OK with size 0; `*ofs`
 * gets its file offset for error messages. */
static bspkit_result optional_lump(bspkit_map *map, const char *name, const uint8_t **data, size_t *size,
                                   uint32_t *ofs, bspkit_error *err)
{
    bspkit_result r;
    const bspkit_bspx_entry *e = find_entry(map, name, &r, err);
    *data = NULL;
    *size = 0;
    *ofs = 0;
    if (r != BSPKIT_OK || !e)
        return r;
    *data = map->data + e->offset;
    *size = e->length;
    *ofs = e->offset;
    return BSPKIT_OK;
}

/* ------------------------------------------------------------------------ */
/* Per-luxel lumps                                                           */
/* ------------------------------------------------------------------------ */

bspkit_result bspkit_bspx_luxel_lump(bspkit_map *map, const char *name, const uint8_t **data, size_t *luxels,
                                     bspkit_error *err)
{
    bk_error_clear(err);
    if (!map || !name || !data || !luxels)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_bspx_luxel_lump: NULL argument");
    *data = NULL;
    *luxels = 0;
    if (strcmp(name, "RGBLIGHTING") != 0 && strcmp(name, "LIGHTINGDIR") != 0)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "'%s' is not a per-luxel BSPX lump", name);
    const uint8_t *bytes;
    size_t size;
    bspkit_result r = bspkit_bspx_lump(map, name, &bytes, &size, err);
    if (r != BSPKIT_OK)
        return r;
    const uint8_t *light;
    size_t light_size;
    r = bspkit_get_lighting(map, false, &light, &light_size, err);
    if (r != BSPKIT_OK)
        return r;
    size_t per_luxel = map->format.family == BSPKIT_FAMILY_GOLDSRC ? 3 : 1;
    size_t n = light_size / per_luxel;
    if (size / 3 != n || size % 3 != 0)
        return bk_fail(err, BSPKIT_ERR_LUMP_SIZE, -1, (int64_t)(bytes - map->data), -1,
                       "BSPX %s: %zu bytes, but LIGHTING's %zu luxels need %zu", name, size, n, n * 3);
    *data = bytes;
    *luxels = n;
    return BSPKIT_OK;
}

/* ------------------------------------------------------------------------ */
/* DECOUPLED_LM                                                              */
/* ------------------------------------------------------------------------ */

typedef struct decoupled_set {
    bspkit_bspx_decoupled_lm *items;
    size_t count;
} decoupled_set;

static bspkit_result build_decoupled(bspkit_map *map, const void **value, bspkit_error *err)
{
    /* Without a BSPX block (the variant is set exactly when there is one)
     * the set is empty: nothing to allocate. */
    static const decoupled_set none = {NULL, 0};
    if (!(map->format.variant & BSPKIT_VARIANT_BSPX)) {
        *value = &none;
        return BSPKIT_OK;
    }
    decoupled_set *set = bk_keep_alloc(map, 1, sizeof *set, -1, err);
    if (!set)
        return err ? err->code : BSPKIT_ERR_NOMEM;
    *value = set;
    const uint8_t *p;
    size_t size;
    uint32_t ofs;
    bspkit_result r = optional_lump(map, "DECOUPLED_LM", &p, &size, &ofs, err);
    if (r != BSPKIT_OK || size == 0)
        return r;
    const bspkit_face *faces;
    size_t nfaces;
    r = bspkit_get_faces(map, &faces, &nfaces, err);
    if (r != BSPKIT_OK)
        return r;
    if (size % DECOUPLED_LM_SIZE != 0 || size / DECOUPLED_LM_SIZE != nfaces)
        return bk_fail(err, BSPKIT_ERR_LUMP_SIZE, -1, ofs, -1,
                       "BSPX DECOUPLED_LM: %zu bytes, but %zu faces need %zu (40 per face)", size, nfaces,
                       nfaces * DECOUPLED_LM_SIZE);
    set->items = bk_keep_alloc(map, nfaces, sizeof *set->items, -1, err);
    if (nfaces && !set->items)
        return err ? err->code : BSPKIT_ERR_NOMEM;
    for (size_t i = 0; i < nfaces; i++, p += DECOUPLED_LM_SIZE) {
        bspkit_bspx_decoupled_lm *d = &set->items[i];
        d->lmwidth = rd_le16(p);
        d->lmheight = rd_le16(p + 2);
        d->offset = (int32_t)rd_le32(p + 4);
        for (int row = 0; row < 2; row++)
            for (int k = 0; k < 4; k++)
                d->world_to_lm[row][k] = rd_f32(p + 8 + 16 * row + 4 * k, false);
    }
    set->count = nfaces;
    return BSPKIT_OK;
}

bspkit_result bspkit_get_bspx_decoupled_lm(bspkit_map *map, const bspkit_bspx_decoupled_lm **out, size_t *count,
                                           bspkit_error *err)
{
    bk_error_clear(err);
    if (!map || !out || !count)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_get_bspx_decoupled_lm: NULL argument");
    *out = NULL;
    *count = 0;
    const void *v;
    bspkit_result r = bk_extra_get(map, EX_BSPX_DECOUPLED_LM, build_decoupled, &v, err);
    if (r != BSPKIT_OK)
        return r;
    const decoupled_set *set = v;
    *out = set->items;
    *count = set->count;
    return BSPKIT_OK;
}

/* ------------------------------------------------------------------------ */
/* BRUSHLIST                                                                 */
/* ------------------------------------------------------------------------ */

/* Walks the lump once to count records (so that allocation follows bytes
 * that are present), then again to fill them. */
static bspkit_result walk_brushlist(const uint8_t *p, size_t size, uint32_t file_ofs, bspkit_bspx_brushlist *bl,
                                    bspkit_bspx_brush_model *models, bspkit_bspx_brush *brushes,
                                    bspkit_bspx_plane *planes, bspkit_error *err)
{
    size_t pos = 0, nm = 0, nb = 0, np = 0;
    while (pos < size) {
        if (size - pos < BRUSH_MODEL_SIZE)
            return bk_fail(err, BSPKIT_ERR_LUMP_SIZE, -1, (int64_t)file_ofs + (int64_t)pos, (int64_t)pos,
                           "BSPX BRUSHLIST: model header at %zu runs past the lump (%zu bytes)", pos, size);
        const uint8_t *h = p + pos;
        int32_t nbrushes = (int32_t)rd_le32(h + 8), nfaces = (int32_t)rd_le32(h + 12);
        if (nbrushes < 0 || nfaces < 0)
            return bk_fail(err, BSPKIT_ERR_LUMP_SIZE, -1, (int64_t)file_ofs + (int64_t)pos, (int64_t)pos,
                           "BSPX BRUSHLIST: model at %zu has negative counts (%d brushes, %d faces)", pos,
                           nbrushes, nfaces);
        if (models) {
            bspkit_bspx_brush_model *m = &models[nm];
            m->ver = (int32_t)rd_le32(h);
            m->modelnum = (int32_t)rd_le32(h + 4);
            m->numbrushes = nbrushes;
            m->numfaces = nfaces;
            m->first_brush = (uint32_t)nb;
        }
        size_t model_at = pos;
        pos += BRUSH_MODEL_SIZE;
        uint64_t faces_sum = 0;
        for (int32_t b = 0; b < nbrushes; b++) {
            if (size - pos < BRUSH_SIZE)
                return bk_fail(err, BSPKIT_ERR_LUMP_SIZE, -1, (int64_t)file_ofs + (int64_t)pos, (int64_t)pos,
                               "BSPX BRUSHLIST: brush %d of the model at %zu runs past the lump", b, model_at);
            const uint8_t *q = p + pos;
            uint16_t nplanes = rd_le16(q + 26);
            if (brushes) {
                bspkit_bspx_brush *br = &brushes[nb];
                bk_rd_vec3(q, false, &br->mins);
                bk_rd_vec3(q + 12, false, &br->maxs);
                br->contents = (int16_t)rd_le16(q + 24);
                br->numfaces = nplanes;
                br->first_plane = (uint32_t)np;
            }
            pos += BRUSH_SIZE;
            if ((size - pos) / BRUSH_PLANE_SIZE < nplanes)
                return bk_fail(err, BSPKIT_ERR_LUMP_SIZE, -1, (int64_t)file_ofs + (int64_t)pos, (int64_t)pos,
                               "BSPX BRUSHLIST: %u planes of brush %d run past the lump", nplanes, b);
            for (uint16_t k = 0; k < nplanes; k++, pos += BRUSH_PLANE_SIZE) {
                if (planes) {
                    bk_rd_vec3(p + pos, false, &planes[np].normal);
                    planes[np].dist = rd_f32(p + pos + 12, false);
                }
                np++;
            }
            faces_sum += nplanes;
            nb++;
        }
        if (faces_sum != (uint64_t)nfaces)
            return bk_fail(err, BSPKIT_ERR_LUMP_SIZE, -1, (int64_t)file_ofs + (int64_t)model_at, (int64_t)model_at,
                           "BSPX BRUSHLIST: model at %zu declares %d faces, its brushes hold %llu", model_at,
                           nfaces, (unsigned long long)faces_sum);
        nm++;
    }
    bl->model_count = nm;
    bl->brush_count = nb;
    bl->plane_count = np;
    return BSPKIT_OK;
}

static bspkit_result build_brushlist(bspkit_map *map, const void **value, bspkit_error *err)
{
    bspkit_bspx_brushlist *bl = bk_keep_alloc(map, 1, sizeof *bl, -1, err);
    if (!bl)
        return err ? err->code : BSPKIT_ERR_NOMEM;
    *value = bl;
    const uint8_t *p;
    size_t size;
    uint32_t ofs;
    bspkit_result r = optional_lump(map, "BRUSHLIST", &p, &size, &ofs, err);
    if (r != BSPKIT_OK || size == 0)
        return r;
    bspkit_bspx_brushlist counts = {0};
    r = walk_brushlist(p, size, ofs, &counts, NULL, NULL, NULL, err);
    if (r != BSPKIT_OK)
        return r;
    bspkit_bspx_brush_model *models = bk_keep_alloc(map, counts.model_count, sizeof *models, -1, err);
    bspkit_bspx_brush *brushes = models ? bk_keep_alloc(map, counts.brush_count, sizeof *brushes, -1, err) : NULL;
    bspkit_bspx_plane *planes = brushes ? bk_keep_alloc(map, counts.plane_count, sizeof *planes, -1, err) : NULL;
    if (!planes)
        return err ? err->code : BSPKIT_ERR_NOMEM;
    r = walk_brushlist(p, size, ofs, bl, models, brushes, planes, err);
    bl->models = models;
    bl->brushes = brushes;
    bl->planes = planes;
    return r;
}

bspkit_result bspkit_get_bspx_brushlist(bspkit_map *map, const bspkit_bspx_brushlist **out, bspkit_error *err)
{
    bk_error_clear(err);
    if (!map || !out)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_get_bspx_brushlist: NULL argument");
    *out = NULL;
    const void *v;
    bspkit_result r = bk_extra_get(map, EX_BSPX_BRUSHLIST, build_brushlist, &v, err);
    if (r == BSPKIT_OK)
        *out = v;
    return r;
}

/* Former names, kept for programs built against earlier releases. */
bspkit_result bspkit_bspx_decoupled_lm_get(bspkit_map *map, const bspkit_bspx_decoupled_lm **out, size_t *count,
                                           bspkit_error *err)
{
    return bspkit_get_bspx_decoupled_lm(map, out, count, err);
}

bspkit_result bspkit_bspx_brushlist_get(bspkit_map *map, const bspkit_bspx_brushlist **out, bspkit_error *err)
{
    return bspkit_get_bspx_brushlist(map, out, err);
}
