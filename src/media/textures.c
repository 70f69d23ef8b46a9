/* Where each texture of a map lives: embedded miptex, a WAD named by
 * worldspawn's "wad" key and found in the search paths, or a VTF in the
 * Source pakfile. */
#include "bspkit/pak.h"
#include "bspkit/quake3.h"
#include "bspkit/textures.h"
#include "media/texture_internal.h"
#include "core/map.h"
#include "core/ascii.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Longest WAD or material name considered; longer ones cannot be files the engines load. */
#define TEX_NAME_MAX 256

/* One WAD named by the map and the file it was found in. */
typedef struct tex_wad {
    char *name; /* file name from the "wad" key */
    char *path; /* where it was found, or NULL */
    bspkit_wad *wad;
} tex_wad;

typedef struct tex_entry {
    bspkit_texture pub;
    size_t wad;   /* index into wads (WAD source) */
    size_t index; /* entry in that WAD, miptex index, or pak entry */
} tex_entry;

struct bspkit_textures {
    bspkit_map *map;
    tex_entry *entries;
    size_t count;
    tex_wad *wads;
    size_t wad_count;
    const char **missing; /* names of wads[] without a file, in key order */
    size_t missing_count;
    bspkit_pak *pak;
};

const char *bspkit_texture_source_name(bspkit_texture_source s)
{
    switch (s) {
    case BSPKIT_TEXTURE_EMBEDDED: return "embedded";
    case BSPKIT_TEXTURE_WAD: return "wad";
    case BSPKIT_TEXTURE_PAKFILE: return "pakfile";
    default: return "missing";
    }
}

void bspkit_textures_free(bspkit_textures *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->wad_count; i++) {
        free(t->wads[i].name);
        free(t->wads[i].path);
        bspkit_wad_close(t->wads[i].wad);
    }
    free(t->wads);
    free(t->missing);
    free(t->entries);
    bspkit_pak_close(t->pak);
    free(t);
}

size_t bspkit_textures_count(const bspkit_textures *t) { return t ? t->count : 0; }

const bspkit_texture *bspkit_textures_get(const bspkit_textures *t, size_t index)
{
    return t && index < t->count ? &t->entries[index].pub : NULL;
}

const char *bspkit_textures_missing_wad(const bspkit_textures *t, size_t index)
{
    return t && index < t->missing_count ? t->missing[index] : NULL;
}

/* ---- WAD search ---- */

/* The file name part of one "wad" key item: after the last '/' or '\\',
 * surrounding blanks dropped. Empty when nothing is left. */
static void wad_base_name(const char *item, size_t len, char *out, size_t cap)
{
    size_t start = 0;
    for (size_t i = 0; i < len; i++)
        if (item[i] == '/' || item[i] == '\\')
            start = i + 1;
    while (start < len && (item[start] == ' ' || item[start] == '\t'))
        start++;
    while (len > start && (item[len - 1] == ' ' || item[len - 1] == '\t' || item[len - 1] == '\r' ||
                           item[len - 1] == '\n'))
        len--;
    size_t n = len - start < cap - 1 ? len - start : cap - 1;
    memcpy(out, item + start, n);
    out[n] = '\0';
}

static char *join_path(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *p = malloc(a + b + 2);
    if (p)
        snprintf(p, a + b + 2, "%s%s%s", dir, a && dir[a - 1] == '/' ? "" : "/", name);
    return p;
}

/* The path of `name` in search path `sp`: a directory holding a file of that
 * name (any case), or a file whose own name matches. NULL when absent. */
static char *find_in_search_path(const char *sp, const char *name)
{
    struct stat st;
    if (stat(sp, &st) != 0)
        return NULL;
    if (S_ISREG(st.st_mode)) {
        const char *base = strrchr(sp, '/');
        base = base ? base + 1 : sp;
        return bk_ascii_casecmp(base, name) == 0 ? strdup(sp) : NULL;
    }
    if (!S_ISDIR(st.st_mode))
        return NULL;
    DIR *dir = opendir(sp);
    if (!dir)
        return NULL;
    char *found = NULL;
    struct dirent *de;
    while (!found && (de = readdir(dir)) != NULL) {
        if (bk_ascii_casecmp(de->d_name, name) != 0)
            continue;
        char *p = join_path(sp, de->d_name);
        if (p && stat(p, &st) == 0 && S_ISREG(st.st_mode))
            found = p;
        else
            free(p);
    }
    closedir(dir);
    return found;
}

static const char *worldspawn_wad_key(bspkit_map *map)
{
    const bspkit_entities *ents;
    if (bspkit_get_entities(map, &ents, NULL) != BSPKIT_OK)
        return NULL;
    for (size_t i = 0; i < ents->count; i++) {
        const char *cls = bspkit_entity_value(ents, i, "classname");
        if (cls && strcmp(cls, "worldspawn") == 0)
            return bspkit_entity_value(ents, i, "wad");
    }
    return NULL;
}

/* Open every WAD the "wad" key names, once each, in key order. */
static bspkit_result open_wads(bspkit_textures *t, const bspkit_texture_options *opts, bspkit_error *err)
{
    const char *key = worldspawn_wad_key(t->map);
    if (!key || !*key)
        return BSPKIT_OK;
    size_t items = 1;
    for (const char *p = key; *p; p++)
        items += *p == ';';
    t->wads = calloc(items, sizeof *t->wads);
    t->missing = calloc(items, sizeof *t->missing);
    if (!t->wads || !t->missing)
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "textures: out of memory");
    for (const char *p = key; *p;) {
        const char *end = strchr(p, ';');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char name[TEX_NAME_MAX];
        wad_base_name(p, len, name, sizeof name);
        p += len + (end ? 1 : 0);
        if (!name[0])
            continue;
        bool seen = false;
        for (size_t i = 0; i < t->wad_count && !seen; i++)
            seen = bk_ascii_casecmp(t->wads[i].name, name) == 0;
        if (seen)
            continue;
        tex_wad *w = &t->wads[t->wad_count];
        w->name = strdup(name);
        if (!w->name)
            return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "textures: out of memory");
        t->wad_count++;
        for (size_t s = 0; opts && s < opts->wad_path_count && !w->wad; s++) {
            if (!opts->wad_paths[s])
                continue;
            char *path = find_in_search_path(opts->wad_paths[s], name);
            if (!path)
                continue;
            /* A file of the right name that is not a readable WAD counts as not found. */
            if (bspkit_wad_open_file(path, &w->wad, NULL) == BSPKIT_OK)
                w->path = path;
            else
                free(path);
        }
        if (!w->wad)
            t->missing[t->missing_count++] = w->name;
    }
    return BSPKIT_OK;
}

static bspkit_result resolve_miptex(bspkit_textures *t, const bspkit_texture_options *opts, bspkit_error *err)
{
    const bspkit_miptex *mt;
    size_t count;
    bspkit_result r = bspkit_get_miptex(t->map, &mt, &count, err);
    if (r != BSPKIT_OK)
        return r;
    if ((r = open_wads(t, opts, err)) != BSPKIT_OK)
        return r;
    t->entries = calloc(count ? count : 1, sizeof *t->entries);
    if (!t->entries)
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "textures: out of memory");
    t->count = count;
    for (size_t i = 0; i < count; i++) {
        tex_entry *e = &t->entries[i];
        e->pub.name = mt[i].name;
        e->pub.width = mt[i].width;
        e->pub.height = mt[i].height;
        e->index = i;
        if (mt[i].embedded) {
            e->pub.source = BSPKIT_TEXTURE_EMBEDDED;
            e->pub.format = "paletted";
            e->pub.decodable = mt[i].width > 0 && mt[i].height > 0;
            continue;
        }
        if (mt[i].lump_offset < 0 || !mt[i].name[0])
            continue; /* an empty directory slot: missing */
        for (size_t w = 0; w < t->wad_count; w++) {
            size_t k;
            if (!t->wads[w].wad || bspkit_wad_find(t->wads[w].wad, mt[i].name, &k, NULL) != BSPKIT_OK)
                continue;
            bspkit_wad_entry we;
            bspkit_wad_entry_info(t->wads[w].wad, k, &we, NULL);
            e->pub.source = BSPKIT_TEXTURE_WAD;
            e->pub.location = t->wads[w].path;
            e->pub.format = "paletted";
            e->pub.decodable = we.width > 0 && we.compression == 0;
            e->wad = w;
            e->index = k;
            break;
        }
    }
    return BSPKIT_OK;
}

/* ---- Source pakfile ---- */

/* True when `s` ends in "_X_Y_Z" (integers); *cut gets where that begins. */
static bool cubemap_suffix(const char *s, size_t len, size_t *cut)
{
    size_t i = len;
    for (int part = 0; part < 3; part++) {
        size_t digits_end = i;
        while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
            i--;
        if (i == digits_end)
            return false;
        if (i > 0 && s[i - 1] == '-')
            i--;
        if (i == 0 || s[i - 1] != '_')
            return false;
        i--;
    }
    *cut = i;
    return true;
}

/* The material a cubemap-patched or water-patched name stands for:
 * "maps/<map>/<orig>_X_Y_Z" or "maps/<map>/<orig>_wvt_patch" give <orig>.
 * Returns false when the name has neither form. */
static bool unpatched_name(const char *name, char *out, size_t cap)
{
    if (bk_ascii_ncasecmp(name, "maps/", 5) != 0)
        return false;
    const char *rest = strchr(name + 5, '/');
    if (!rest || !rest[1])
        return false;
    rest++;
    size_t len = strlen(rest), cut;
    static const char WVT[] = "_wvt_patch";
    if (len > sizeof WVT - 1 && bk_ascii_casecmp(rest + len - (sizeof WVT - 1), WVT) == 0)
        cut = len - (sizeof WVT - 1);
    else if (!cubemap_suffix(rest, len, &cut))
        return false;
    if (cut == 0 || cut >= cap)
        return false;
    memcpy(out, rest, cut);
    out[cut] = '\0';
    return true;
}

static bool pak_find_vtf(bspkit_pak *pak, const char *material, size_t *index)
{
    char path[TEX_NAME_MAX + 16];
    if (strlen(material) > TEX_NAME_MAX)
        return false;
    snprintf(path, sizeof path, "materials/%s.vtf", material);
    return bspkit_pak_find(pak, path, index, NULL) == BSPKIT_OK;
}

/* Describe the VTF in pak entry `index` (format, decodable). */
static void describe_vtf(bspkit_pak *pak, size_t index, bspkit_texture *out)
{
    uint8_t *data = NULL;
    size_t size = 0;
    bspkit_vtf_info info;
    out->format = "unreadable";
    out->decodable = false;
    if (bspkit_pak_read(pak, index, &data, &size, NULL) == BSPKIT_OK &&
        bspkit_vtf_read_info(data, size, &info, NULL) == BSPKIT_OK) {
        out->format = info.format_name; /* a static string */
        out->decodable = info.format_supported;
    }
    free(data);
}

static bspkit_result resolve_texdata(bspkit_textures *t, bspkit_error *err)
{
    const bspkit_texdata *td;
    size_t count;
    bspkit_result r = bspkit_get_texdata(t->map, &td, &count, err);
    if (r != BSPKIT_OK)
        return r;
    const uint8_t *zip = NULL;
    size_t zip_size = 0;
    /* Titanfall 2's materials live in the game's .rpak files: no pakfile to search. */
    bool has_pakfile = bspkit_map_format(t->map)->family == BSPKIT_FAMILY_SOURCE;
    if (has_pakfile && (r = bspkit_get_pakfile(t->map, &zip, &zip_size, err)) != BSPKIT_OK)
        return r;
    if (zip_size > 0 && (r = bspkit_pak_open(zip, zip_size, NULL, &t->pak, err)) != BSPKIT_OK)
        return r;
    t->entries = calloc(count ? count : 1, sizeof *t->entries);
    if (!t->entries)
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "textures: out of memory");
    t->count = count;
    for (size_t i = 0; i < count; i++) {
        tex_entry *e = &t->entries[i];
        const char *name = bspkit_texdata_name(t->map, i);
        e->pub.name = name ? name : "";
        e->pub.width = td[i].width > 0 ? (uint32_t)td[i].width : 0;
        e->pub.height = td[i].height > 0 ? (uint32_t)td[i].height : 0;
        if (!t->pak || !name || !name[0])
            continue;
        size_t k;
        char orig[TEX_NAME_MAX];
        bool found = pak_find_vtf(t->pak, name, &k);
        if (!found && unpatched_name(name, orig, sizeof orig))
            found = pak_find_vtf(t->pak, orig, &k);
        if (!found)
            continue;
        bspkit_pak_entry pe;
        if (bspkit_pak_entry_info(t->pak, k, &pe, NULL) != BSPKIT_OK)
            continue;
        e->pub.source = BSPKIT_TEXTURE_PAKFILE;
        e->pub.location = pe.name;
        e->index = k;
        describe_vtf(t->pak, k, &e->pub);
    }
    return BSPKIT_OK;
}

/* Room for `count` names, listed once each in first-use order by add_name. */
static bspkit_result names_init(bspkit_textures *t, size_t count, bspkit_error *err)
{
    t->entries = calloc(count ? count : 1, sizeof *t->entries);
    return t->entries ? BSPKIT_OK : bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "textures: out of memory");
}

/* Lists `name` (borrowed from the map's decoded records) unless it is listed already. */
static void add_name(bspkit_textures *t, const char *name)
{
    for (size_t k = 0; k < t->count; k++)
        if (strcmp(t->entries[k].pub.name, name) == 0)
            return;
    t->entries[t->count++].pub.name = name;
}

/* Quake 2: each distinct texture name of TEXINFO, in first-use order. The
 * .wal images live in the game's files, which are not searched: each is
 * listed as missing. */
static bspkit_result resolve_texinfo_names(bspkit_textures *t, bspkit_error *err)
{
    const bspkit_texinfo *ti;
    size_t count;
    bspkit_result r = bspkit_get_texinfo(t->map, &ti, &count, err);
    if (r == BSPKIT_OK && (r = names_init(t, count, err)) == BSPKIT_OK)
        for (size_t i = 0; i < count; i++)
            add_name(t, ti[i].texture_name);
    return r;
}

/* Quake 3: each distinct shader name of SHADERS (a name appears again with
 * other flags), in first-use order. Shader scripts and images live in the
 * game's .pk3 files, which are not searched: each is listed as missing. */
static bspkit_result resolve_shader_names(bspkit_textures *t, bspkit_error *err)
{
    const bspkit_shader *sh;
    size_t count;
    bspkit_result r = bspkit_get_shaders(t->map, &sh, &count, err);
    if (r == BSPKIT_OK && (r = names_init(t, count, err)) == BSPKIT_OK)
        for (size_t i = 0; i < count; i++)
            add_name(t, sh[i].name);
    return r;
}

bspkit_result bspkit_map_texture_count(bspkit_map *map, size_t *count, size_t *embedded, bspkit_error *err)
{
    bk_error_clear(err);
    if (!map || !count)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_map_texture_count: NULL argument");
    *count = 0;
    if (embedded)
        *embedded = 0;
    bspkit_family family = bspkit_map_format(map)->family;
    if (family == BSPKIT_FAMILY_SOURCE || family == BSPKIT_FAMILY_TITANFALL || family == BSPKIT_FAMILY_QUAKE3) {
        uint64_t n = 0;
        /* A map without a TEXDATA (SHADERS) entry simply has no textures. */
        if (bspkit_lump_record_count(map, family == BSPKIT_FAMILY_QUAKE3 ? BSPKIT_Q3_SHADERS : BSPKIT_S_TEXDATA, &n) ==
            BSPKIT_OK)
            *count = (size_t)n;
        return BSPKIT_OK;
    }
    const bspkit_miptex *mip;
    size_t n;
    bspkit_result r = bspkit_get_miptex(map, &mip, &n, err);
    if (r != BSPKIT_OK)
        return r;
    *count = n;
    for (size_t i = 0; embedded && i < n; i++)
        *embedded += mip[i].embedded ? 1 : 0;
    return BSPKIT_OK;
}

bspkit_result bspkit_textures_resolve(bspkit_map *map, const bspkit_texture_options *opts, bspkit_textures **out,
                                      bspkit_error *err)
{
    bk_error_clear(err);
    if (!map || !out)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "textures: NULL argument");
    *out = NULL;
    bspkit_textures *t = calloc(1, sizeof *t);
    if (!t)
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "textures: out of memory");
    t->map = map;
    bspkit_family family = bspkit_map_format(map)->family;
    bspkit_result r = family == BSPKIT_FAMILY_SOURCE || family == BSPKIT_FAMILY_TITANFALL ? resolve_texdata(t, err)
                      : family == BSPKIT_FAMILY_QUAKE2                                     ? resolve_texinfo_names(t, err)
                      : family == BSPKIT_FAMILY_QUAKE3                                     ? resolve_shader_names(t, err)
                                                                                           : resolve_miptex(t, opts, err);
    if (r != BSPKIT_OK) {
        bspkit_textures_free(t);
        return r;
    }
    *out = t;
    return BSPKIT_OK;
}

/* Entry `index` of `t`, or NULL with `err` filled (*r its code). */
static const tex_entry *entry_at(const bspkit_textures *t, size_t index, bspkit_error *err, bspkit_result *r)
{
    if (index < t->count)
        return &t->entries[index];
    *r = bk_fail(err, BSPKIT_ERR_NOT_FOUND, -1, -1, -1, "textures: no texture %zu (%zu in the map)", index,
                 t->count);
    return NULL;
}

bspkit_result bk_textures_load_indexed(bspkit_textures *t, size_t index, bk_indexed_image *out, bspkit_error *err)
{
    bk_error_clear(err);
    if (!t || !out)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "textures: NULL argument");
    bspkit_result r = BSPKIT_ERR_NOT_FOUND;
    const tex_entry *e = entry_at(t, index, err, &r);
    if (!e)
        return r;
    switch (e->pub.source) {
    case BSPKIT_TEXTURE_EMBEDDED:
        return bk_miptex_load_indexed(t->map, e->index, out, err);
    case BSPKIT_TEXTURE_WAD:
        return bk_wad_load_indexed(t->wads[e->wad].wad, e->index, out, err);
    default:
        return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, -1, -1, -1, "textures: '%s' has no palette", e->pub.name);
    }
}

bspkit_result bk_textures_read_file(bspkit_textures *t, size_t index, uint8_t **out, size_t *size, bspkit_error *err)
{
    bk_error_clear(err);
    if (!t || !out || !size)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "textures: NULL argument");
    *out = NULL;
    *size = 0;
    bspkit_result r = BSPKIT_ERR_NOT_FOUND;
    const tex_entry *e = entry_at(t, index, err, &r);
    if (!e)
        return r;
    if (e->pub.source != BSPKIT_TEXTURE_PAKFILE)
        return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, -1, -1, -1, "textures: '%s' is not a pakfile file", e->pub.name);
    return bspkit_pak_read(t->pak, e->index, out, size, err);
}

bspkit_result bspkit_textures_load_image(bspkit_textures *t, size_t index, bspkit_image *out, bspkit_error *err)
{
    bk_error_clear(err);
    if (!t || !out)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "textures: NULL argument");
    memset(out, 0, sizeof *out);
    bspkit_result found = BSPKIT_ERR_NOT_FOUND;
    const tex_entry *e = entry_at(t, index, err, &found);
    if (!e)
        return found;
    switch (e->pub.source) {
    case BSPKIT_TEXTURE_EMBEDDED:
        return bspkit_miptex_load_image(t->map, e->index, out, err);
    case BSPKIT_TEXTURE_WAD:
        return bspkit_wad_load_image(t->wads[e->wad].wad, e->index, out, err);
    case BSPKIT_TEXTURE_PAKFILE: {
        uint8_t *data = NULL;
        size_t size = 0;
        bspkit_result r = bk_textures_read_file(t, index, &data, &size, err);
        if (r == BSPKIT_OK)
            r = bspkit_vtf_decode(data, size, out, NULL, err);
        free(data);
        return r;
    }
    default:
        return bk_fail(err, BSPKIT_ERR_NOT_FOUND, -1, -1, -1, "textures: '%s' was not found", e->pub.name);
    }
}
