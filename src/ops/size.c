/* Where the bytes of a map go (bspkit/size.h): every byte of the file
 * credited once to the header, a lump or padding; the pakfile by extension
 * and directory; cubemaps and what removing them saves. */
#include "bspkit/size.h"
#include "bspkit/edit.h"
#include "bspkit/pak.h"
#include "core/ascii.h"
#include "core/grow.h"
#include "core/map.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CUBEMAP_GLOB "materials/maps/*/c*_*_*.vtf"

typedef struct size_impl {
    bspkit_size_report pub;
    bspkit_size_lump *lumps;
    bspkit_size_bucket *game, *ext, *dir;
    size_t ngame, next, ndir, game_cap, ext_cap, dir_cap;
    char **owned;  /* bucket names */
    size_t nowned, owned_cap;
    bspkit_size_saving savings[3];
} size_impl;

static const char *const GROUP_NAMES[BSPKIT_SIZE_GROUP_COUNT] = {
    "header", "geometry", "bsp_tree", "collision", "lighting_ldr", "lighting_hdr", "visibility",
    "textures", "entities", "props", "pakfile", "displacements", "other", "padding"};

const char *bspkit_size_group_name(bspkit_size_group group)
{
    return (unsigned)group < BSPKIT_SIZE_GROUP_COUNT ? GROUP_NAMES[group] : "unknown";
}

/* Names whose group the keywords below would not find, or would find wrongly. */
static const struct {
    const char *name;
    bspkit_size_group group;
} EXACT[] = {
    {"ENTITIES", BSPKIT_SIZE_ENTITIES},        {"FACES_HDR", BSPKIT_SIZE_LIGHTING_HDR},
    {"CLIPNODES", BSPKIT_SIZE_COLLISION},      {"MARKSURFACES", BSPKIT_SIZE_BSP_TREE},
    {"LEAFFACES", BSPKIT_SIZE_BSP_TREE},       {"LEAFSURFACES", BSPKIT_SIZE_BSP_TREE},
    {"LEAFBRUSHES", BSPKIT_SIZE_BSP_TREE},     {"LEAFWATERDATA", BSPKIT_SIZE_BSP_TREE},
    {"LEAFMINDISTTOWATER", BSPKIT_SIZE_BSP_TREE}, {"LEAF_AMBIENT_INDEX", BSPKIT_SIZE_LIGHTING_LDR},
    {"LEAF_AMBIENT_LIGHTING", BSPKIT_SIZE_LIGHTING_LDR}, {"CUBEMAPS", BSPKIT_SIZE_TEXTURES},
    {"GAME_LUMP", BSPKIT_SIZE_PROPS},          {"PROPCOLLISION", BSPKIT_SIZE_COLLISION},
    {"PROPHULLS", BSPKIT_SIZE_COLLISION},      {"PROPHULLVERTS", BSPKIT_SIZE_COLLISION},
    {"PROPTRIS", BSPKIT_SIZE_COLLISION},       {"PROP_BLOB", BSPKIT_SIZE_PROPS},
    {"MODELS", BSPKIT_SIZE_GEOMETRY},          {"CLIPPORTALVERTS", BSPKIT_SIZE_BSP_TREE},
    {"PORTALVERTS", BSPKIT_SIZE_BSP_TREE},     {"SHADERS", BSPKIT_SIZE_TEXTURES},
    {"FOGS", BSPKIT_SIZE_OTHER},
};

/* Then the first keyword the name contains decides; order matters (HDR before LIGHT). */
static const struct {
    const char *word;
    bspkit_size_group group;
} KEYWORDS[] = {
    {"PAK", BSPKIT_SIZE_PAKFILE},        {"DISP", BSPKIT_SIZE_DISPLACEMENTS}, {"PHYS", BSPKIT_SIZE_COLLISION},
    {"COLLISION", BSPKIT_SIZE_COLLISION}, {"HDR", BSPKIT_SIZE_LIGHTING_HDR},  {"LIGHT", BSPKIT_SIZE_LIGHTING_LDR},
    {"VIS", BSPKIT_SIZE_VISIBILITY},     {"VERT", BSPKIT_SIZE_GEOMETRY} /* before TEX: VERTEXES */,
    {"TEX", BSPKIT_SIZE_TEXTURES},       {"MATERIAL", BSPKIT_SIZE_TEXTURES},
    {"ENTIT", BSPKIT_SIZE_ENTITIES},     {"OVERLAY", BSPKIT_SIZE_OTHER},     {"PLANE", BSPKIT_SIZE_BSP_TREE},
    {"NODE", BSPKIT_SIZE_BSP_TREE},      {"LEAF", BSPKIT_SIZE_BSP_TREE},     {"BRUSH", BSPKIT_SIZE_BSP_TREE},
    {"AREA", BSPKIT_SIZE_BSP_TREE},      {"PORTAL", BSPKIT_SIZE_BSP_TREE},   {"CLUSTER", BSPKIT_SIZE_BSP_TREE},
    {"OCCLU", BSPKIT_SIZE_BSP_TREE},     {"CELL", BSPKIT_SIZE_BSP_TREE},
    {"EDGE", BSPKIT_SIZE_GEOMETRY},      {"FACE", BSPKIT_SIZE_GEOMETRY},     {"MESH", BSPKIT_SIZE_GEOMETRY},
    {"INDEX", BSPKIT_SIZE_GEOMETRY},     {"INDICES", BSPKIT_SIZE_GEOMETRY},  {"SURFACE", BSPKIT_SIZE_GEOMETRY},
    {"PRIM", BSPKIT_SIZE_GEOMETRY},      {"NORMAL", BSPKIT_SIZE_GEOMETRY},   {"TRICOLL", BSPKIT_SIZE_COLLISION},
};

bspkit_size_group bspkit_size_group_of(const char *lump_name)
{
    if (!lump_name)
        return BSPKIT_SIZE_OTHER;
    for (size_t i = 0; i < sizeof EXACT / sizeof EXACT[0]; i++)
        if (bk_ascii_equal(lump_name, EXACT[i].name))
            return EXACT[i].group;
    char upper[64];
    size_t n = 0;
    for (; lump_name[n] && n + 1 < sizeof upper; n++)
        upper[n] = (char)bk_ascii_upper((unsigned char)lump_name[n]);
    upper[n] = '\0';
    for (size_t i = 0; i < sizeof KEYWORDS / sizeof KEYWORDS[0]; i++)
        if (strstr(upper, KEYWORDS[i].word))
            return KEYWORDS[i].group;
    return BSPKIT_SIZE_OTHER;
}

static bspkit_result nomem(bspkit_error *err)
{
    return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "size: out of memory");
}

void bspkit_size_report_free(bspkit_size_report *report)
{
    if (!report)
        return;
    size_impl *s = (size_impl *)report;
    free(s->lumps);
    free(s->game);
    free(s->ext);
    free(s->dir);
    for (size_t i = 0; i < s->nowned; i++)
        free(s->owned[i]);
    free(s->owned);
    free(s);
}

/* Header and lump directory size for the family's layout. */
static uint64_t header_size(const bspkit_format *f, int lumps)
{
    uint64_t n = (uint64_t)(lumps > 0 ? lumps : 0);
    switch (f->family) {
    case BSPKIT_FAMILY_QUAKE:
    case BSPKIT_FAMILY_GOLDSRC: return 4 + 8 * n;  /* version, then offset/length pairs */
    case BSPKIT_FAMILY_QUAKE2:
    case BSPKIT_FAMILY_QUAKE3: return 8 + 8 * n;   /* ident, version, pairs */
    case BSPKIT_FAMILY_SOURCE: return 8 + 16 * n + 4; /* ident, version, lump_t[64], map revision */
    case BSPKIT_FAMILY_TITANFALL: return 16 + 16 * n; /* ident, version, revision, 127, lump_t[128] */
    default: return 0;
    }
}

typedef struct span {
    uint64_t offset, length;
    size_t lump; /* index into the report's lumps */
} span;

static int span_cmp(const void *pa, const void *pb)
{
    const span *a = pa, *b = pb;
    if (a->offset != b->offset)
        return a->offset < b->offset ? -1 : 1;
    return a->lump < b->lump ? -1 : a->lump > b->lump;
}

static bspkit_result count_lumps(size_impl *s, bspkit_map *map, bspkit_error *err)
{
    bspkit_size_report *r = &s->pub;
    size_t file_size = 0;
    bspkit_map_bytes(map, &file_size);
    r->file_size = file_size;
    int n = bspkit_lump_count(map);
    if (n < 0 || n > BSPKIT_MAX_LUMPS)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "size: lump count %d out of range", n);
    s->lumps = calloc((size_t)n + 1, sizeof *s->lumps);
    span *spans = calloc((size_t)n + 1, sizeof *spans);
    if (!s->lumps || !spans) {
        free(spans);
        return nomem(err);
    }
    size_t nspans = 0;
    for (int i = 0; i < n; i++) {
        bspkit_lump_info info;
        bspkit_result res = bspkit_get_lump_info(map, i, &info);
        if (res != BSPKIT_OK) {
            free(spans);
            return bk_fail(err, res, i, -1, -1, "size: lump %d: directory entry not readable", i);
        }
        bspkit_size_lump *l = &s->lumps[i];
        l->index = i;
        l->name = info.name;
        l->group = bspkit_size_group_of(info.name);
        l->offset = info.offset;
        l->length = info.length;
        l->uncompressed_length = info.compressed ? info.uncompressed_length : info.length;
        l->external = bspkit_lump_external_path(map, i) != NULL;
        /* Open checked every range; clamp anyway so the sum cannot exceed the file. */
        if (!l->external && l->length > 0 && l->offset < file_size) {
            uint64_t len = l->length <= file_size - l->offset ? l->length : file_size - l->offset;
            spans[nspans++] = (span){l->offset, len, (size_t)i};
        }
    }
    r->lumps = s->lumps;
    r->lump_count = (size_t)n;
    qsort(spans, nspans, sizeof *spans, span_cmp);
    uint64_t header = header_size(bspkit_map_format(map), n);
    if (header > file_size)
        header = file_size;
    r->header_bytes = header;
    r->group_bytes[BSPKIT_SIZE_HEADER] = header;
    uint64_t covered = header;
    for (size_t k = 0; k < nspans; k++) {
        uint64_t start = spans[k].offset, end = spans[k].offset + spans[k].length;
        if (start > covered)
            r->padding_bytes += start - covered;
        uint64_t from = start > covered ? start : covered;
        uint64_t unique = end > from ? end - from : 0;
        bspkit_size_lump *l = &s->lumps[spans[k].lump];
        l->unique_bytes = unique;
        r->group_bytes[l->group] += unique;
        if (end > covered)
            covered = end;
    }
    free(spans);
    r->trailing_bytes = file_size - covered;
    r->padding_bytes += r->trailing_bytes;
    r->group_bytes[BSPKIT_SIZE_PADDING] = r->padding_bytes;
    r->ldr_lighting_bytes = r->group_bytes[BSPKIT_SIZE_LIGHTING_LDR];
    r->hdr_lighting_bytes = r->group_bytes[BSPKIT_SIZE_LIGHTING_HDR];
    for (int i = 0; i < n; i++) {
        const char *name = s->lumps[i].name ? s->lumps[i].name : "";
        if (s->lumps[i].length == 0)
            continue;
        if (bk_ascii_equal(name, "LIGHTING") || bk_ascii_equal(name, "LIGHTMAPS"))
            r->has_ldr_lighting = true;
        if (bk_ascii_equal(name, "LIGHTING_HDR"))
            r->has_hdr_lighting = true;
    }
    return BSPKIT_OK;
}

static bool own(size_impl *s, char *text)
{
    if (!text || !bk_grow((void **)&s->owned, &s->owned_cap, s->nowned + 1, sizeof *s->owned)) {
        free(text);
        return false;
    }
    s->owned[s->nowned++] = text;
    return true;
}

/* Add one entry to the bucket named by bytes [name, name+len), lower-cased. */
static bool bucket_add(size_impl *s, bspkit_size_bucket **b, size_t *n, size_t *cap, const char *name, size_t len,
                       uint64_t bytes)
{
    for (size_t i = 0; i < *n; i++)
        if (strlen((*b)[i].name) == len && bk_ascii_ncasecmp((*b)[i].name, name, len) == 0) {
            (*b)[i].count++;
            (*b)[i].bytes += bytes;
            return true;
        }
    if (!bk_grow((void **)b, cap, *n + 1, sizeof **b))
        return false;
    char *copy = malloc(len + 1);
    if (!copy)
        return false;
    for (size_t i = 0; i < len; i++)
        copy[i] = (char)bk_ascii_lower((unsigned char)name[i]);
    copy[len] = '\0';
    if (!own(s, copy))
        return false;
    (*b)[(*n)++] = (bspkit_size_bucket){copy, 1, bytes};
    return true;
}

static int bucket_cmp(const void *pa, const void *pb)
{
    const bspkit_size_bucket *a = pa, *b = pb;
    if (a->bytes != b->bytes)
        return a->bytes > b->bytes ? -1 : 1;
    return strcmp(a->name, b->name);
}

static bspkit_result count_game_lumps(size_impl *s, bspkit_map *map, bspkit_error *err)
{
    if (bspkit_map_format(map)->family != BSPKIT_FAMILY_SOURCE)
        return BSPKIT_OK;
    const bspkit_game_lump *gl = NULL;
    size_t n = 0;
    bspkit_error gerr;
    bspkit_result r = bspkit_get_game_lumps(map, &gl, &n, &gerr);
    if (r == BSPKIT_ERR_NOMEM)
        return nomem(err);
    if (r != BSPKIT_OK || n == 0)
        return BSPKIT_OK; /* the lump's bytes are still counted; only the breakdown is missing */
    for (size_t i = 0; i < n; i++) {
        char id[4];
        for (int k = 0; k < 4; k++) {
            unsigned char c = (unsigned char)(gl[i].id >> (24 - 8 * k));
            id[k] = c >= 0x20 && c < 0x7f ? (char)c : '?';
        }
        if (!bucket_add(s, &s->game, &s->ngame, &s->game_cap, id, 4, gl[i].length))
            return nomem(err);
    }
    s->pub.game_lumps = s->game;
    s->pub.game_lump_count = s->ngame;
    return BSPKIT_OK;
}

static void pak_note(bspkit_size_report *r, const bspkit_error *e)
{
    snprintf(r->pakfile_error, sizeof r->pakfile_error, "%s", e->message[0] ? e->message : bspkit_strerror(e->code));
}

static void add_saving(size_impl *s, const char *what, const char *command, uint64_t entries, uint64_t before,
                       uint64_t after)
{
    bspkit_size_report *r = &s->pub;
    if (r->saving_count >= sizeof s->savings / sizeof s->savings[0])
        return;
    s->savings[r->saving_count++] = (bspkit_size_saving){what, command, entries, after < before ? before - after : 0};
    r->savings = s->savings;
}

/* The archive a pak command would write: `remove` (the cubemaps; KEEP) or
 * `repack --lzma`; how much smaller than `size` it is. */
static bspkit_result measure_pak(size_impl *s, const uint8_t *zip, size_t size, bool lzma, bspkit_error *err)
{
    bspkit_pak *p = NULL;
    bspkit_error perr;
    size_t removed = 0;
    uint8_t *out = NULL;
    size_t out_size = 0;
    if (bspkit_pak_open(zip, size, NULL, &p, &perr) != BSPKIT_OK ||
        (!lzma && bspkit_pak_remove(p, CUBEMAP_GLOB, &removed, &perr) != BSPKIT_OK) ||
        bspkit_pak_write(p, lzma ? BSPKIT_PAK_LZMA : BSPKIT_PAK_KEEP, &out, &out_size, &perr) != BSPKIT_OK) {
        bspkit_pak_close(p);
        if (perr.code == BSPKIT_ERR_NOMEM)
            return nomem(err);
        pak_note(&s->pub, &perr); /* an entry that cannot be rewritten: no saving to report */
        return BSPKIT_OK;
    }
    size_t entries = bspkit_pak_count(p);
    bspkit_pak_close(p);
    bspkit_free(out);
    if (lzma)
        add_saving(s, "pakfile entries LZMA-compressed (older builds refuse them: see bspkit pak --help)",
                   "bspkit pak MAP repack --lzma -o OUT", entries, size, out_size);
    else
        add_saving(s, "cubemap textures", "bspkit pak MAP remove '" CUBEMAP_GLOB "' -o OUT", removed, size,
                   out_size);
    return BSPKIT_OK;
}

/* The map `convert --compress` would write, built in memory. */
static bspkit_result measure_convert(size_impl *s, bspkit_map *map, bspkit_error *err)
{
    bspkit_edit *e = NULL;
    bspkit_save_options so = {0};
    so.compression = BSPKIT_COMPRESSION_LZMA;
    uint8_t *out = NULL;
    size_t out_size = 0;
    bspkit_error cerr;
    bspkit_result r = bspkit_edit_new(map, &e, &cerr);
    if (r == BSPKIT_OK)
        r = bspkit_edit_write(e, &so, &out, &out_size, &cerr);
    bspkit_edit_free(e);
    bspkit_free(out);
    if (r == BSPKIT_ERR_NOMEM)
        return nomem(err);
    if (r == BSPKIT_OK)
        add_saving(s, "lumps LZMA-compressed (not every engine reads them: see bspkit convert --help)",
                   "bspkit convert MAP --compress -o OUT", 0, s->pub.file_size, out_size);
    return BSPKIT_OK;
}

static bspkit_result count_pakfile(size_impl *s, bspkit_map *map, bool measure, bspkit_error *err)
{
    bspkit_size_report *r = &s->pub;
    const uint8_t *zip = NULL;
    size_t size = 0;
    bspkit_error perr;
    if (bspkit_map_format(map)->family != BSPKIT_FAMILY_SOURCE)
        return BSPKIT_OK;
    if (bspkit_get_pakfile(map, &zip, &size, &perr) != BSPKIT_OK) {
        if (perr.code == BSPKIT_ERR_NOMEM)
            return nomem(err);
        pak_note(r, &perr);
        return BSPKIT_OK;
    }
    if (size == 0)
        return BSPKIT_OK;
    r->has_pakfile = true;
    r->pakfile_bytes = size;
    bspkit_pak *p = NULL;
    if (bspkit_pak_open(zip, size, NULL, &p, &perr) != BSPKIT_OK) {
        if (perr.code == BSPKIT_ERR_NOMEM)
            return nomem(err);
        pak_note(r, &perr);
        return BSPKIT_OK;
    }
    size_t n = bspkit_pak_count(p);
    bspkit_result res = BSPKIT_OK;
    for (size_t i = 0; i < n && res == BSPKIT_OK; i++) {
        bspkit_pak_entry e;
        if (bspkit_pak_entry_info(p, i, &e, &perr) != BSPKIT_OK) {
            if (perr.code == BSPKIT_ERR_NOMEM)
                res = nomem(err);
            pak_note(r, &perr);
            continue;
        }
        const char *name = e.name ? e.name : "";
        const char *slash = strchr(name, '/');
        const char *base = strrchr(name, '/');
        base = base ? base + 1 : name;
        const char *dot = strrchr(base, '.');
        bool ok = slash ? bucket_add(s, &s->dir, &s->ndir, &s->dir_cap, name, (size_t)(slash - name), e.compressed_size)
                        : bucket_add(s, &s->dir, &s->ndir, &s->dir_cap, "(root)", 6, e.compressed_size);
        ok = ok && (dot && dot[1] ? bucket_add(s, &s->ext, &s->next, &s->ext_cap, dot + 1, strlen(dot + 1), e.compressed_size)
                                  : bucket_add(s, &s->ext, &s->next, &s->ext_cap, "(none)", 6, e.compressed_size));
        if (!ok)
            res = nomem(err);
        r->pakfile_entries++;
        r->pakfile_data_bytes += e.compressed_size;
        if (bspkit_pak_glob_match(CUBEMAP_GLOB, name)) {
            r->cubemap_count++;
            r->cubemap_bytes += e.compressed_size;
        }
    }
    bspkit_pak_close(p);
    if (res != BSPKIT_OK)
        return res;
    r->pakfile_read = true;
    r->pakfile_overhead_bytes = r->pakfile_data_bytes <= size ? size - r->pakfile_data_bytes : 0;
    if (s->next) /* an archive without entries has no buckets (and NULL arrays) */
        qsort(s->ext, s->next, sizeof *s->ext, bucket_cmp);
    if (s->ndir)
        qsort(s->dir, s->ndir, sizeof *s->dir, bucket_cmp);
    r->pak_by_extension = s->ext;
    r->pak_extension_count = s->next;
    r->pak_by_directory = s->dir;
    r->pak_directory_count = s->ndir;
    bspkit_result res2 = r->cubemap_count ? measure_pak(s, zip, size, false, err) : BSPKIT_OK;
    if (res2 == BSPKIT_OK && measure && r->pakfile_entries)
        res2 = measure_pak(s, zip, size, true, err);
    return res2;
}

bspkit_result bspkit_size_report_map(bspkit_map *map, const bspkit_size_options *opts, bspkit_size_report **out,
                                     bspkit_error *err)
{
    bk_error_clear(err);
    if (!map || !out)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "size: NULL argument");
    *out = NULL;
    size_impl *s = calloc(1, sizeof *s);
    if (!s)
        return nomem(err);
    bspkit_result r = count_lumps(s, map, err);
    if (r == BSPKIT_OK)
        r = count_game_lumps(s, map, err);
    bool measure = opts && opts->measure_compression;
    if (r == BSPKIT_OK)
        r = count_pakfile(s, map, measure, err);
    if (r == BSPKIT_OK && measure && bspkit_map_format(map)->family == BSPKIT_FAMILY_SOURCE)
        r = measure_convert(s, map, err);
    if (r != BSPKIT_OK) {
        bspkit_size_report_free(&s->pub);
        return r;
    }
    *out = &s->pub;
    return BSPKIT_OK;
}
