/* Titanfall 2 entity partitions: ENTITY_PARTITIONS names them ("01* env fx
 * script snd spawn": the entity lump's marker, then each partition), and a
 * retail map keeps each partition's entities in `<map>_<name>.ent` beside
 * the .bsp: a header line ("ENTITIES01", or "ENTITIES01 num_models=N")
 * followed by ordinary entity text. The map's entity list is the entity
 * lump's entities followed by each partition's, in the lump's order. */
#include "bspkit/titanfall.h"
#include "core/entities.h"
#include "core/family.h"
#include "formats/titanfall/records.h"

#include <stdio.h>
#include <string.h>

#define LUMP BSPKIT_R2_ENTITY_PARTITIONS
#define MAX_NAME 64   /* longest partition name accepted */
#define MAX_HEADER 256 /* longest .ent header line accepted */

typedef struct partitions {
    bspkit_r2_entity_partition *items;
    size_t count;
} partitions;

static bspkit_result bad_lump(bspkit_map *map, size_t pos, bspkit_error *err, const char *what)
{
    return bk_fail(err, BSPKIT_ERR_ENTITIES, LUMP, bk_file_offset(map, LUMP, pos), (int64_t)pos,
                   "ENTITY_PARTITIONS (lump %d): byte %zu: %s", LUMP, pos, what);
}

static bool name_byte(uint8_t c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

/* Checks the text (up to its NUL) and counts the partitions after the marker. */
static bspkit_result check_text(bspkit_map *map, const uint8_t *d, size_t len, size_t size, size_t *count,
                                bspkit_error *err)
{
    for (size_t i = len + 1; i < size; i++)
        if (d[i] != 0)
            return bad_lump(map, i, err, "text after the terminating NUL");
    *count = 0;
    if (len == 0)
        return BSPKIT_OK;
    size_t i = 0;
    while (i < len && d[i] >= '0' && d[i] <= '9')
        i++;
    if (i == 0 || i >= len || d[i] != '*')
        return bad_lump(map, i, err, "the first entry is not the entity lump's marker (digits and '*')");
    i++;
    while (i < len) {
        if (d[i] != ' ')
            return bad_lump(map, i, err, "entries are not separated by one space");
        size_t start = ++i;
        while (i < len && name_byte(d[i]))
            i++;
        if (i == start)
            return bad_lump(map, i, err, i < len ? "a byte no partition name may hold" : "empty partition name");
        if (i < len && d[i] != ' ')
            return bad_lump(map, i, err, "a byte no partition name may hold");
        if (i - start > MAX_NAME)
            return bad_lump(map, start, err, "partition name longer than 64 bytes");
        (*count)++;
    }
    return BSPKIT_OK;
}

/* A copy of `n` bytes at `s` as a string kept until the map is closed. */
static char *keep_string(bspkit_map *map, const void *s, size_t n, bspkit_error *err)
{
    char *copy = bk_keep_alloc(map, n + 1, 1, LUMP, err);
    if (copy)
        memcpy(copy, s, n);
    return copy;
}

/* "<map path without .bsp>_<name>.ent", or NULL (out of memory). */
static char *ent_path(bspkit_map *map, const char *name, size_t name_len, bspkit_error *err)
{
    const char *path = map->path;
    size_t base = strlen(path);
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (dot && (!slash || dot > slash))
        base = (size_t)(dot - path);
    char *out = bk_keep_alloc(map, base + name_len + 6, 1, LUMP, err);
    if (out)
        snprintf(out, base + name_len + 6, "%.*s_%.*s.ent", (int)base, path, (int)name_len, name);
    return out;
}

static bspkit_result build(bspkit_map *map, const void **value, bspkit_error *err)
{
    const uint8_t *d;
    size_t size;
    bspkit_result r = bk_lump_bytes(map, LUMP, &d, &size, err);
    if (r != BSPKIT_OK)
        return r;
    const uint8_t *nul = size ? memchr(d, 0, size) : NULL;
    size_t len = nul ? (size_t)(nul - d) : size, count = 0;
    if ((r = check_text(map, d, len, size, &count, err)) != BSPKIT_OK)
        return r;
    partitions *p = bk_keep_alloc(map, 1, sizeof *p, LUMP, err);
    if (!p || !(p->items = bk_keep_alloc(map, count ? count : 1, sizeof *p->items, LUMP, err)))
        return err ? err->code : BSPKIT_ERR_NOMEM;
    size_t i = 0;
    while (i < len && d[i] != ' ')
        i++;
    for (size_t k = 0; k < count; k++) {
        size_t start = ++i;
        while (i < len && d[i] != ' ')
            i++;
        bspkit_r2_entity_partition *e = &p->items[k];
        if (!(e->name = keep_string(map, d + start, i - start, err)) ||
            (map->path && !(e->file = ent_path(map, e->name, i - start, err))))
            return err ? err->code : BSPKIT_ERR_NOMEM;
    }
    p->count = count;
    *value = p;
    return BSPKIT_OK;
}

static bspkit_result get_partitions(bspkit_map *map, partitions **out, bspkit_error *err)
{
    const void *v = NULL;
    bspkit_result r = bk_extra_get(map, EX_R2_ENTITY_PARTITIONS, build, &v, err);
    *out = (partitions *)v; /* built by this file, writable */
    return r;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* Length of the header line ("ENTITIES" digits [" " text]) up to its
 * newline, and where the entity text starts; fails naming the byte. */
static bspkit_result read_header(const char *file, const uint8_t *d, size_t size, size_t *header_len,
                                 size_t *body, bspkit_error *err)
{
    static const char magic[] = "ENTITIES";
    size_t i = 0;
    const char *what = NULL;
    while (i < 8 && i < size && d[i] == (uint8_t)magic[i])
        i++;
    if (i < 8)
        what = "the file does not start with the header \"ENTITIES\" and a number";
    size_t digits = i;
    while (!what && i < size && d[i] >= '0' && d[i] <= '9')
        i++;
    if (!what && i == digits)
        what = "no number after \"ENTITIES\" in the header line";
    if (!what && i < size && d[i] == ' ')
        while (i < size && d[i] >= 0x20 && d[i] < 0x7f && i < MAX_HEADER)
            i++;
    size_t end = i;
    if (!what && i < size && d[i] == '\r')
        i++;
    if (!what && i < size && d[i] != '\n')
        what = i >= MAX_HEADER ? "header line longer than 256 bytes" : "unexpected byte in the header line";
    if (what) {
        char msg[192];
        snprintf(msg, sizeof msg, "%s: line 1, byte %zu: %s", file, i, what);
        return bk_fail(err, BSPKIT_ERR_ENTITIES, -1, -1, (int64_t)i, "%s", msg);
    }
    *header_len = end;
    *body = i < size ? i + 1 : size;
    return BSPKIT_OK;
}

/* Reads one partition's .ent file and appends its entities; a missing
 * file becomes a warning. */
static bspkit_result read_partition(bspkit_map *map, bspkit_r2_entity_partition *part, bspkit_entities *ents,
                                    unsigned flags, bspkit_error *err)
{
    char msg[160];
    uint8_t *buf;
    size_t size;
    bspkit_result r = bk_read_file_beside(map, part->file, -1, "entity partition file", &buf, &size, err);
    if (r == BSPKIT_ERR_NOT_FOUND) {
        bk_error_clear(err);
        snprintf(msg, sizeof msg, "%s not found: entity partition '%s' not read", base_name(part->file),
                 part->name);
        const char *source = bk_entities_keep_string(ents, part->file);
        if (!source || !bk_entities_warn(ents, source, 0, 0, msg))
            return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
        return BSPKIT_OK;
    }
    if (r != BSPKIT_OK)
        return r;
    size_t header_len = 0, body = 0;
    bspkit_entities *more = NULL;
    r = read_header(part->file, buf, size, &header_len, &body, err);
    if (r == BSPKIT_OK && !(part->header = keep_string(map, buf, header_len, err)))
        r = err ? err->code : BSPKIT_ERR_NOMEM;
    if (r == BSPKIT_OK)
        r = bk_entities_parse_at((const char *)buf + body, size - body, flags, part->file, body, 2, &more, err);
    bk_free(map, buf, size);
    if (r != BSPKIT_OK)
        return r;
    if (more->trailing_bytes > 0) {
        snprintf(msg, sizeof msg, "%llu bytes of trailing data after the last entity",
                 (unsigned long long)more->trailing_bytes);
        bk_entities_warn(more, bk_entities_keep_string(more, part->file), 0, more->trailing_offset, msg);
    }
    part->first_entity = ents->count;
    part->num_entities = more->count;
    part->read = true;
    return bk_entities_append(ents, more, err);
}

bspkit_result bk_r2_more_entities(bspkit_map *map, bspkit_entities *ents, unsigned flags, bspkit_error *err)
{
    partitions *p;
    bspkit_result r = get_partitions(map, &p, err);
    if (r != BSPKIT_OK)
        return r;
    for (size_t i = 0; i < p->count; i++) {
        bspkit_r2_entity_partition *part = &p->items[i];
        part->first_entity = ents->count;
        part->num_entities = 0;
        if (!part->file) {
            char msg[160];
            snprintf(msg, sizeof msg, "entity partition '%s' not read: the map was opened from memory",
                     part->name);
            if (!bk_entities_warn(ents, NULL, 0, 0, msg))
                return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
            continue;
        }
        if ((r = read_partition(map, part, ents, flags, err)) != BSPKIT_OK)
            return r;
    }
    return BSPKIT_OK;
}

bspkit_result bspkit_get_r2_entity_partitions(bspkit_map *map, const bspkit_r2_entity_partition **out,
                                              size_t *count, bspkit_error *err)
{
    bk_error_clear(err);
    if (!map || !out || !count)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_get_r2_entity_partitions: NULL argument");
    *out = NULL;
    *count = 0;
    if (map->format.family != BSPKIT_FAMILY_TITANFALL)
        return BSPKIT_OK;
    const bspkit_entities *ents;
    bspkit_result r = bspkit_get_entities(map, &ents, err);
    partitions *p;
    if (r == BSPKIT_OK)
        r = get_partitions(map, &p, err);
    if (r != BSPKIT_OK)
        return r;
    *out = p->items;
    *count = p->count;
    return BSPKIT_OK;
}
