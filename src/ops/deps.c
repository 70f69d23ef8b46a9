/* The files a map needs beside itself and where each one is
 * (bspkit/deps.h): collected from texture data, entities, static props and
 * the materials themselves, then looked up in the pakfile and the game
 * directories. */
#include "bspkit/deps.h"
#include "bspkit/entities_edit.h"
#include "bspkit/pak.h"
#include "bspkit/props.h"
#include "bspkit/textures.h"
#include "ops/deps_internal.h"
#include "core/ascii.h"
#include "core/grow.h"
#include "core/map.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const KIND_NAMES[BSPKIT_DEP_KIND_COUNT] = {"material", "texture", "model", "sound",
                                                              "sprite",   "particle", "wad"};

const char *bspkit_dep_kind_name(bspkit_dep_kind kind)
{
    return (unsigned)kind < BSPKIT_DEP_KIND_COUNT ? KIND_NAMES[kind] : "unknown";
}

const char *bspkit_dep_where_name(bspkit_dep_where where)
{
    switch (where) {
    case BSPKIT_DEP_MISSING: return "missing";
    case BSPKIT_DEP_IN_MAP: return "map";
    case BSPKIT_DEP_IN_GAME: return "game";
    default: return "unknown";
    }
}

typedef struct deps_impl {
    bspkit_deps pub;
    bspkit_dep *items;
    bool *loose; /* per item: found as a loose file of a game directory */
    size_t cap, loose_cap;
    char **owned;
    size_t nowned, owned_cap;
    bspkit_map *map;
    bspkit_pak *pak;
    const bspkit_deps_options *opts;
    dk_vpk_set vpk;
    size_t current; /* the material being read */
    bool failed;    /* out of memory */
} deps_impl;

/* A call's result as success; running out of memory fails the whole scan rather than
 * changing what it finds (anything else only means that source is not read). */
static bool ok(deps_impl *d, bspkit_result r)
{
    if (r == BSPKIT_ERR_NOMEM)
        d->failed = true;
    return r == BSPKIT_OK;
}

static char *keep(deps_impl *d, char *s)
{
    if (!s || !bk_grow((void **)&d->owned, &d->owned_cap, d->nowned + 1, sizeof *d->owned)) {
        free(s);
        d->failed = true;
        return NULL;
    }
    d->owned[d->nowned++] = s;
    return s;
}

/* A kept copy of `fmt` with its one or two "%s" filled. */
static char *keep_printf(deps_impl *d, const char *fmt, const char *a, const char *b)
{
    size_t n = strlen(fmt) + strlen(a) + strlen(b) + 1;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, fmt, a, b);
    return keep(d, s);
}

static char *keep_copy(deps_impl *d, const char *text) { return keep_printf(d, "%s%s", text, ""); }

void bspkit_deps_free(bspkit_deps *deps)
{
    if (!deps)
        return;
    deps_impl *d = (deps_impl *)deps;
    for (size_t i = 0; i < d->nowned; i++)
        free(d->owned[i]);
    free(d->owned);
    free(d->items);
    free(d->loose);
    dk_vpk_free(&d->vpk);
    free(d);
}

/* Lower case, '/' separators, no leading or doubled slashes (`prefix` is written that way). */
char *dk_normalize(const char *prefix, const char *value, const char *ext)
{
    while (*value == '/' || *value == '\\')
        value++;
    size_t plen = strlen(prefix), vlen = strlen(value), elen = ext ? strlen(ext) : 0;
    /* A value written with the prefix or the extension already keeps them once. */
    size_t same = 0;
    while (same < plen && same < vlen &&
           (bk_ascii_lower((unsigned char)value[same]) == prefix[same] || (value[same] == '\\' && prefix[same] == '/')))
        same++;
    if (plen && same == plen) {
        value += plen;
        vlen -= plen;
    }
    if (elen && vlen >= elen && bk_ascii_casecmp(value + vlen - elen, ext) == 0)
        vlen -= elen;
    char *out = malloc(plen + vlen + elen + 1);
    if (!out)
        return NULL;
    size_t n = 0;
    memcpy(out, prefix, plen);
    n = plen;
    for (size_t i = 0; i < vlen; i++) {
        char c = value[i] == '\\' ? '/' : (char)bk_ascii_lower((unsigned char)value[i]);
        if (c == '/' && n > 0 && out[n - 1] == '/')
            continue;
        out[n++] = c;
    }
    if (elen)
        memcpy(out + n, ext, elen);
    out[n + elen] = '\0';
    return out;
}

/* DIR/PATH as it is, else with each component matched ignoring case; NULL (with *nomem set when
 * memory ran out) when there is no such file. */
static char *find_loose(const char *dir, const char *path, bool *nomem)
{
    size_t cap = strlen(dir) + strlen(path) + 2;
    char *full = malloc(cap);
    if (!full) {
        *nomem = true;
        return NULL;
    }
    snprintf(full, cap, "%s/%s", dir, path);
    struct stat st;
    if (stat(full, &st) == 0 && S_ISREG(st.st_mode))
        return full;
    /* Walk the components, replacing each with the directory's own spelling. */
    size_t at = strlen(dir) + 1;
    const char *p = path;
    while (*p) {
        const char *slash = strchr(p, '/');
        size_t len = slash ? (size_t)(slash - p) : strlen(p);
        full[at - 1] = '\0';
        DIR *dh = opendir(full);
        bool found = false;
        if (dh) {
            struct dirent *de;
            while ((de = readdir(dh)) != NULL)
                if (strlen(de->d_name) == len && bk_ascii_ncasecmp(de->d_name, p, len) == 0) {
                    memcpy(full + at, de->d_name, len);
                    found = true;
                    break;
                }
            closedir(dh);
        }
        full[at - 1] = '/';
        if (!found) {
            free(full);
            return NULL;
        }
        at += len + 1;
        p += len + (slash ? 1 : 0);
        if (!slash)
            break;
    }
    full[at - 1] = '\0';
    if (stat(full, &st) == 0 && S_ISREG(st.st_mode))
        return full;
    free(full);
    return NULL;
}

/* Materials are text of a few kilobytes; more is not read from a VPK archive. */
#define MATERIAL_LIMIT (16u << 20)

/* Where `path` is; for materials also its bytes when readable (*data, free with free()). */
static void resolve(deps_impl *d, bspkit_dep *dep, uint8_t **data, size_t *size)
{
    size_t index;
    bspkit_error e;
    if (data)
        *data = NULL;
    if (d->pak && ok(d, bspkit_pak_find(d->pak, dep->path, &index, &e))) {
        bspkit_pak_entry info;
        dep->where = BSPKIT_DEP_IN_MAP;
        dep->location = "pakfile";
        if (ok(d, bspkit_pak_entry_info(d->pak, index, &info, &e)))
            dep->location = keep_printf(d, "pakfile:%s%s", info.name ? info.name : "", "");
        if (data && !ok(d, bspkit_pak_read(d->pak, index, data, size, &e)))
            *data = NULL;
        return;
    }
    size_t ndirs = d->opts ? d->opts->game_dir_count : 0;
    for (size_t i = 0; i < ndirs; i++) {
        char *full = find_loose(d->opts->game_dirs[i], dep->path, &d->failed);
        if (!full)
            continue;
        dep->where = BSPKIT_DEP_IN_GAME;
        dep->location = keep(d, full);
        d->loose[dep - d->items] = dep->location != NULL;
        if (data && dep->location) {
            uint8_t *buf = NULL;
            size_t n = 0;
            if (ok(d, bk_read_file_beside(d->map, dep->location, -1, "deps: material", &buf, &n, &e))) {
                *data = malloc(n + 1);
                d->failed |= *data == NULL;
                if (*data) {
                    if (n)
                        memcpy(*data, buf, n);
                    *size = n;
                }
                bk_free(d->map, buf, n);
            }
        }
        return;
    }
    const dk_vpk_name *vpk = dk_vpk_find(&d->vpk, dep->path);
    if (vpk) {
        dep->where = BSPKIT_DEP_IN_GAME;
        dep->location = d->vpk.archives[vpk->archive];
        if (data && !ok(d, bk_vpk_read(dep->location, &vpk->entry, MATERIAL_LIMIT, data, size, &e)))
            *data = NULL; /* a missing or cut data archive: the material is listed, not followed */
    }
}

/* Add `path` (taken over) unless it is listed already; the new item or NULL. */
static bspkit_dep *add(deps_impl *d, bspkit_dep_kind kind, char *path, const char *referrer)
{
    if (!keep(d, path))
        return NULL;
    /* A name leading out of a directory ("..", absolute) is no file a game loads, nor one to look for. */
    char *clean = NULL;
    bspkit_result safe = bspkit_pak_safe_path(path, &clean, NULL);
    bspkit_free(clean);
    if (safe != BSPKIT_OK) {
        d->failed |= safe == BSPKIT_ERR_NOMEM;
        return NULL;
    }
    for (size_t i = 0; i < d->pub.count; i++)
        if (d->items[i].kind == kind && strcmp(d->items[i].path, path) == 0)
            return NULL;
    if (!bk_grow((void **)&d->items, &d->cap, d->pub.count + 1, sizeof *d->items) ||
        !bk_grow((void **)&d->loose, &d->loose_cap, d->pub.count + 1, sizeof *d->loose)) {
        d->failed = true;
        return NULL;
    }
    d->loose[d->pub.count] = false;
    bspkit_dep *dep = &d->items[d->pub.count++];
    memset(dep, 0, sizeof *dep);
    dep->kind = kind;
    dep->path = path;
    dep->referrer = referrer;
    return dep;
}

static void add_resolved(deps_impl *d, bspkit_dep_kind kind, char *path, const char *referrer)
{
    bspkit_dep *dep = add(d, kind, path, referrer);
    if (dep)
        resolve(d, dep, NULL, NULL);
}

/* A model and, for Source, the files the engine loads with it: the vertex data and the DirectX 9
 * strip file always (listed even when missing); the collision model and the older strip files only
 * when they exist, as a model without them is complete. */
static void add_model(deps_impl *d, const char *value, const char *referrer, bool source)
{
    static const struct {
        const char *ext;
        bool required;
    } COMPANIONS[] = {{".vvd", true}, {".dx90.vtx", true}, {".phy", false},
                      {".dx80.vtx", false}, {".sw.vtx", false}, {".vtx", false}};
    char *path = dk_normalize("", value, NULL);
    bspkit_dep *dep = add(d, BSPKIT_DEP_MODEL, path, referrer);
    if (!dep)
        return;
    resolve(d, dep, NULL, NULL);
    size_t n = strlen(path);
    if (!source || n < 4 || strcmp(path + n - 4, ".mdl") != 0)
        return;
    for (size_t i = 0; i < sizeof COMPANIONS / sizeof COMPANIONS[0] && !d->failed; i++) {
        size_t len = n + strlen(COMPANIONS[i].ext);
        char *name = malloc(len);
        if (name)
            snprintf(name, len, "%.*s%s", (int)(n - 4), path, COMPANIONS[i].ext);
        bspkit_dep *c = add(d, BSPKIT_DEP_MODEL, name, path);
        if (!c)
            continue;
        resolve(d, c, NULL, NULL);
        if (c->where == BSPKIT_DEP_MISSING && !COMPANIONS[i].required)
            d->pub.count--; /* the last item added: taken back */
    }
}

/* Materials are resolved when their turn comes, so that reading one can add more. */
static void add_material(deps_impl *d, const char *value, const char *referrer)
{
    if (!value[0])
        return;
    add(d, BSPKIT_DEP_MATERIAL, dk_normalize("materials/", value, ".vmt"), referrer);
}

static void vmt_pair(void *ctx, const char *key, const char *value)
{
    deps_impl *d = ctx;
    char *ref = keep_printf(d, "%s %s", d->items[d->current].path, key);
    if (!ref)
        return;
    dk_vmt_kind k = dk_vmt_key_kind(key, value);
    if (k == DK_VMT_TEXTURE)
        add_resolved(d, BSPKIT_DEP_TEXTURE, dk_normalize("materials/", value, ".vtf"), ref);
    else if (k == DK_VMT_MATERIAL)
        add_material(d, value, ref);
}

static void follow_materials(deps_impl *d)
{
    for (size_t i = 0; i < d->pub.count && !d->failed; i++) {
        if (d->items[i].kind != BSPKIT_DEP_MATERIAL)
            continue;
        uint8_t *data = NULL;
        size_t size = 0;
        resolve(d, &d->items[i], &data, &size);
        if (data) {
            d->current = i;
            dk_vmt_parse((const char *)data, size, vmt_pair, d);
            free(data);
        }
    }
}

/* Sound files: a value with an extension, after the sound characters. */
static void add_sound(deps_impl *d, const char *value, const char *referrer)
{
    while (*value && strchr("*#@<>^)}$!?&~`+%", *value))
        value++;
    const char *base = strrchr(value, '/');
    base = base ? base + 1 : value;
    if (!strchr(base, '.'))
        return; /* a soundscript entry name */
    add_resolved(d, BSPKIT_DEP_SOUND, dk_normalize("sound/", value, NULL), referrer);
}

static void from_entities(deps_impl *d, bool source)
{
    const bspkit_entities *ents;
    bspkit_error e;
    if (!ok(d, bspkit_get_entities(d->map, &ents, &e)))
        return;
    for (size_t i = 0; i < ents->count && !d->failed; i++) {
        const char *cls = bspkit_entity_value(ents, i, "classname");
        if (!cls)
            cls = "";
        const bspkit_entity *en = &ents->entities[i];
        for (size_t k = 0; k < en->num_pairs; k++) {
            const bspkit_keyvalue *kv = &ents->pairs[en->first_pair + k];
            const char *v = kv->value;
            size_t vl = strlen(v);
            char head[48];
            snprintf(head, sizeof head, "entity %zu (%%s) %%s", i);
            char *ref = keep_printf(d, head, cls, kv->key);
            if (!ref)
                return;
            if (bk_ascii_equal(kv->key, "model") && vl > 4) {
                const char *ext = v + vl - 4;
                if (bk_ascii_equal(ext, ".mdl"))
                    add_model(d, v, ref, source);
                else if (bk_ascii_equal(ext, ".spr"))
                    add_resolved(d, BSPKIT_DEP_SPRITE, dk_normalize("", v, NULL), ref);
                else if (source && bk_ascii_equal(ext, ".vmt"))
                    add_material(d, v, ref);
            } else if (bk_ascii_equal(kv->key, "message") && bk_ascii_equal(cls, "ambient_generic")) {
                add_sound(d, v, ref);
            } else if (source && bk_ascii_equal(kv->key, "skyname") && bk_ascii_equal(cls, "worldspawn")) {
                static const char *const FACES[] = {"bk", "dn", "ft", "lf", "rt", "up"};
                for (size_t f = 0; f < 6; f++) {
                    char *name = keep_printf(d, "skybox/%s%s", v, FACES[f]);
                    if (name)
                        add_material(d, name, "worldspawn skyname");
                }
            } else if (source && bk_ascii_equal(kv->key, "detailmaterial") && bk_ascii_equal(cls, "worldspawn")) {
                add_material(d, v, ref); /* the sprite sheet of the detail props */
            } else if (source && ((bk_ascii_equal(kv->key, "material") && bk_ascii_equal(cls, "info_overlay")) ||
                                  (bk_ascii_equal(kv->key, "texture") && bk_ascii_equal(cls, "infodecal")))) {
                add_material(d, v, ref);
            }
        }
    }
}

static void from_source_lumps(deps_impl *d)
{
    const bspkit_texdata *td;
    size_t n = 0;
    bspkit_error e;
    const int32_t *table;
    size_t ntable;
    /* Decoded here so that running out of memory is seen: bspkit_texdata_name only says NULL. */
    bool have_table = ok(d, bspkit_get_texdata_string_table(d->map, &table, &ntable, &e));
    if (have_table && ok(d, bspkit_get_texdata(d->map, &td, &n, &e)))
        for (size_t i = 0; i < n && !d->failed; i++) {
            const char *name = bspkit_texdata_name(d->map, i);
            if (name)
                add_material(d, name, "texdata");
        }
    const bspkit_static_props *sp;
    if (ok(d, bspkit_get_static_props(d->map, &sp, &e)))
        for (size_t i = 0; i < sp->dictionary_count && !d->failed; i++)
            if (sp->dictionary[i].name[0])
                add_model(d, sp->dictionary[i].name, "static prop", true);
}

static void particle_pair(void *ctx, const char *key, const char *value)
{
    deps_impl *d = ctx;
    if (!bk_ascii_equal(key, "file"))
        return;
    while (*value == '!')
        value++; /* '!' marks a file to preload */
    add_resolved(d, BSPKIT_DEP_PARTICLE, dk_normalize("", value, NULL), "particle manifest");
}

static void soundscape_pair(void *ctx, const char *key, const char *value)
{
    if (bk_ascii_equal(key, "wave"))
        add_sound(ctx, value, "soundscape");
}

/* Text files in the pakfile that name more files: particle manifests and the map's soundscapes. */
static void from_packed_scripts(deps_impl *d)
{
    static const struct {
        const char *glob;
        void (*pair)(void *ctx, const char *key, const char *value);
    } SCRIPTS[] = {{"maps/*_particles.txt", particle_pair},
                   {"particles/particles_manifest.txt", particle_pair},
                   {"scripts/soundscapes_*.txt", soundscape_pair}};
    if (!d->pak)
        return;
    size_t n = bspkit_pak_count(d->pak);
    for (size_t i = 0; i < n && !d->failed; i++) {
        bspkit_pak_entry info;
        bspkit_error e;
        uint8_t *data = NULL;
        size_t size = 0;
        if (!ok(d, bspkit_pak_entry_info(d->pak, i, &info, &e)) || !info.name)
            continue;
        size_t k = 0;
        while (k < sizeof SCRIPTS / sizeof SCRIPTS[0] && !bspkit_pak_glob_match(SCRIPTS[k].glob, info.name))
            k++;
        if (k == sizeof SCRIPTS / sizeof SCRIPTS[0] || !ok(d, bspkit_pak_read(d->pak, i, &data, &size, &e)))
            continue;
        dk_vmt_parse((const char *)data, size, SCRIPTS[k].pair, d);
        bspkit_free(data);
    }
}

static void from_goldsrc(deps_impl *d)
{
    const bspkit_entities *ents;
    bspkit_error e;
    const char *wads = NULL;
    if (ok(d, bspkit_get_entities(d->map, &ents, &e)) && ents->count > 0)
        wads = bspkit_entity_value(ents, 0, "wad");
    size_t ndirs = d->opts ? d->opts->game_dir_count : 0;
    bspkit_texture_options topts = {d->opts ? d->opts->game_dirs : NULL, ndirs};
    bspkit_textures *tex = NULL;
    bool resolved = ok(d, bspkit_textures_resolve(d->map, &topts, &tex, &e));
    /* Each WAD: the file name after the last separator of each ';' item. */
    for (const char *p = wads; p && *p && !d->failed;) {
        const char *end = strchr(p, ';');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *base = p;
        for (size_t i = 0; i < len; i++)
            if (p[i] == '/' || p[i] == '\\')
                base = p + i + 1;
        size_t blen = len - (size_t)(base - p);
        if (blen) {
            char *name = malloc(blen + 1);
            if (name) {
                memcpy(name, base, blen);
                name[blen] = '\0';
            }
            char *path = name ? dk_normalize("", name, NULL) : NULL;
            free(name);
            add_resolved(d, BSPKIT_DEP_WAD, path, "worldspawn wad");
        }
        p = end ? end + 1 : NULL;
    }
    for (size_t i = 0; resolved && i < bspkit_textures_count(tex) && !d->failed; i++) {
        const bspkit_texture *t = bspkit_textures_get(tex, i);
        if (!t || !t->name || !t->name[0])
            continue;
        bspkit_dep *dep = add(d, BSPKIT_DEP_TEXTURE, dk_normalize("", t->name, NULL), "miptex");
        if (!dep)
            continue;
        if (t->source == BSPKIT_TEXTURE_EMBEDDED) {
            dep->where = BSPKIT_DEP_IN_MAP;
            dep->location = "embedded";
        } else if (t->source == BSPKIT_TEXTURE_WAD && t->location) {
            dep->where = BSPKIT_DEP_IN_GAME;
            dep->location = keep_copy(d, t->location);
        }
    }
    bspkit_textures_free(tex);
}

bool dk_dep_is_loose(const bspkit_deps *deps, size_t i)
{
    const deps_impl *d = (const deps_impl *)deps;
    return i < deps->count && d->loose[i];
}

bspkit_result bspkit_deps_map(bspkit_map *map, const bspkit_deps_options *opts, bspkit_deps **out,
                              bspkit_error *err)
{
    bk_error_clear(err);
    if (!map || !out || (opts && opts->game_dir_count && !opts->game_dirs))
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "deps: NULL argument");
    *out = NULL;
    bspkit_family fam = bspkit_map_format(map)->family;
    if (fam != BSPKIT_FAMILY_SOURCE && fam != BSPKIT_FAMILY_GOLDSRC)
        return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, -1, -1, -1, "deps: only Source and GoldSrc maps are supported");
    deps_impl *d = calloc(1, sizeof *d);
    if (!d)
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "deps: out of memory");
    d->map = map;
    d->opts = opts;
    if (fam == BSPKIT_FAMILY_SOURCE) {
        const uint8_t *zip;
        size_t size;
        bspkit_error e;
        if (ok(d, bspkit_get_pakfile(map, &zip, &size, &e)) && size > 0 &&
            !ok(d, bspkit_pak_open(zip, size, NULL, &d->pak, &e)))
            d->pak = NULL;
        if (opts)
            dk_vpk_load(&d->vpk, map, opts->game_dirs, opts->game_dir_count);
        from_source_lumps(d);
        from_entities(d, true);
        follow_materials(d);
        from_packed_scripts(d);
    } else {
        from_goldsrc(d);
        from_entities(d, false);
    }
    bspkit_pak_close(d->pak);
    d->pak = NULL;
    if (d->failed || d->vpk.failed) {
        bspkit_deps_free(&d->pub);
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "deps: out of memory");
    }
    for (size_t i = 0; i < d->pub.count; i++) {
        d->pub.in_map += d->items[i].where == BSPKIT_DEP_IN_MAP;
        d->pub.in_game += d->items[i].where == BSPKIT_DEP_IN_GAME;
        d->pub.missing += d->items[i].where == BSPKIT_DEP_MISSING;
    }
    d->pub.items = d->items;
    *out = &d->pub;
    return BSPKIT_OK;
}
