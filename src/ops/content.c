/* The content files a Source map refers to. */
#include "ops/content.h"

#include "bspkit/pak.h"
#include "bspkit/props.h"
#include "core/ascii.h"
#include "core/grow.h"
#include "core/map.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool bk_strset_has(const bk_strset *s, const char *path)
{
    for (size_t i = 0; i < s->count; i++)
        if (strcmp(s->items[i], path) == 0)
            return true;
    return false;
}

bool bk_strset_add(bk_strset *s, const char *path)
{
    char *clean = NULL;
    if (bspkit_pak_safe_path(path, &clean, NULL) != BSPKIT_OK)
        return true; /* not a safe relative path: never looked up */
    size_t n = strlen(clean);
    if (n == 0 || clean[n - 1] == '/') {
        bspkit_free(clean);
        return true;
    }
    for (char *p = clean; *p; p++)
        *p = (char)bk_ascii_lower((unsigned char)*p);
    if (bk_strset_has(s, clean)) {
        bspkit_free(clean);
        return true;
    }
    char *copy = strdup(clean);
    bspkit_free(clean);
    if (!copy || !bk_grow((void **)&s->items, &s->cap, s->count + 1, sizeof *s->items)) {
        free(copy);
        return false;
    }
    s->items[s->count++] = copy;
    return true;
}

void bk_strset_free(bk_strset *s)
{
    for (size_t i = 0; i < s->count; i++)
        free(s->items[i]);
    free(s->items);
    memset(s, 0, sizeof *s);
}

/* DIR + NAME + EXT into the set, where NAME may already carry DIR or EXT. */
static bool add_named(bk_strset *s, const char *dir, const char *name, const char *ext)
{
    while (*name == '/' || *name == '\\')
        name++;
    size_t dl = strlen(dir), nl = strlen(name), el = strlen(ext);
    bool has_dir = nl > dl && bk_ascii_ncasecmp(name, dir, dl) == 0 && (name[dl] == '/' || name[dl] == '\\');
    bool has_ext = nl >= el && bk_ascii_casecmp(name + nl - el, ext) == 0;
    size_t len = dl + 1 + nl + el + 1;
    char *p = malloc(len);
    if (!p)
        return false;
    snprintf(p, len, "%s%s%s%s", has_dir ? "" : dir, has_dir ? "" : "/", name, has_ext ? "" : ext);
    bool ok = bk_strset_add(s, p);
    free(p);
    return ok;
}

/* A model and the files the engine loads with it. */
static bool add_model(bk_strset *s, const char *model)
{
    static const char *const SIBLINGS[] = {".vvd", ".dx90.vtx", ".dx80.vtx", ".sw.vtx", ".vtx", ".phy"};
    size_t n = strlen(model);
    if (n < 4 || bk_ascii_casecmp(model + n - 4, ".mdl") != 0)
        return true; /* "*12" brush models and sprites are not model files */
    if (!add_named(s, "models", model, ".mdl"))
        return false;
    char *stem = malloc(n + 16);
    if (!stem)
        return false;
    bool ok = true;
    for (size_t i = 0; ok && i < sizeof SIBLINGS / sizeof SIBLINGS[0]; i++) {
        snprintf(stem, n + 16, "%.*s%s", (int)(n - 4), model, SIBLINGS[i]);
        ok = add_named(s, "models", stem, SIBLINGS[i]);
    }
    free(stem);
    return ok;
}

/* Sound names may start with the engine's mixing characters (*, #, @, ...). */
static bool add_sound(bk_strset *s, const char *name)
{
    while (*name && strchr("*#@><^)(}$!?&~`+%", *name))
        name++;
    size_t n = strlen(name);
    if (n < 4 || (bk_ascii_casecmp(name + n - 4, ".wav") != 0 && bk_ascii_casecmp(name + n - 4, ".mp3") != 0))
        return true; /* a soundscript entry, not a file */
    return add_named(s, "sound", name, "");
}

bspkit_result bk_map_references(bspkit_map *map, bk_strset *out, bspkit_error *err)
{
    bk_strset refs = {0};
    bool ok = true;
    const bspkit_texdata *td;
    size_t ntd;
    if (bspkit_get_texdata(map, &td, &ntd, NULL) == BSPKIT_OK)
        for (size_t i = 0; ok && i < ntd; i++) {
            const char *name = bspkit_texdata_name(map, i);
            if (name)
                ok = add_named(&refs, "materials", name, ".vmt");
        }
    const bspkit_static_props *sp;
    if (ok && bspkit_get_static_props(map, &sp, NULL) == BSPKIT_OK)
        for (size_t i = 0; ok && i < sp->dictionary_count; i++)
            ok = add_model(&refs, sp->dictionary[i].name);
    const bspkit_entities *ents;
    if (ok && bspkit_get_entities(map, &ents, NULL) == BSPKIT_OK) {
        static const char *const SKY[] = {"bk", "dn", "ft", "lf", "rt", "up"};
        for (size_t i = 0; ok && i < ents->count; i++) {
            const char *cls = bspkit_entity_value(ents, i, "classname");
            const char *model = bspkit_entity_value(ents, i, "model");
            if (model)
                ok = add_model(&refs, model);
            const char *sky = cls && strcmp(cls, "worldspawn") == 0 ? bspkit_entity_value(ents, i, "skyname") : NULL;
            for (size_t k = 0; ok && sky && *sky && k < 6; k++) {
                char face[160];
                snprintf(face, sizeof face, "skybox/%.120s%s", sky, SKY[k]);
                ok = add_named(&refs, "materials", face, ".vmt");
            }
            const char *msg = cls && strcmp(cls, "ambient_generic") == 0 ? bspkit_entity_value(ents, i, "message") : NULL;
            if (ok && msg)
                ok = add_sound(&refs, msg);
        }
    }
    /* What the pakfile carries reaches the client with the map. */
    const uint8_t *zip;
    size_t zip_size;
    bspkit_pak *pak = NULL;
    if (ok && bspkit_get_pakfile(map, &zip, &zip_size, NULL) == BSPKIT_OK && zip_size > 0 &&
        bspkit_pak_open(zip, zip_size, NULL, &pak, NULL) == BSPKIT_OK) {
        bk_strset packed = {0};
        for (size_t i = 0; ok && i < bspkit_pak_count(pak); i++) {
            bspkit_pak_entry e;
            if (bspkit_pak_entry_info(pak, i, &e, NULL) == BSPKIT_OK)
                ok = bk_strset_add(&packed, e.name);
        }
        for (size_t i = 0; ok && i < refs.count; i++)
            if (!bk_strset_has(&packed, refs.items[i]))
                ok = bk_strset_add(out, refs.items[i]);
        bk_strset_free(&packed);
        bspkit_pak_close(pak);
    } else {
        for (size_t i = 0; ok && i < refs.count; i++)
            ok = bk_strset_add(out, refs.items[i]);
    }
    bk_strset_free(&refs);
    return ok ? BSPKIT_OK : bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "content references: out of memory");
}

/* KeyValues text: "$basetexture" "brick/wall01" or $basetexture brick/wall01. */
static const char *kv_token(const char *p, const char *end, const char **tok, size_t *len)
{
    for (;;) {
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
            p++;
        if (end - p >= 2 && p[0] == '/' && p[1] == '/') { /* comment to the end of the line */
            while (p < end && *p != '\n')
                p++;
            continue;
        }
        break;
    }
    if (p >= end) {
        *tok = NULL;
        return p;
    }
    if (*p == '{' || *p == '}') {
        *tok = p;
        *len = 1;
        return p + 1;
    }
    if (*p == '"') {
        const char *q = memchr(p + 1, '"', (size_t)(end - p - 1));
        if (!q)
            q = end;
        *tok = p + 1;
        *len = (size_t)(q - p - 1);
        return q < end ? q + 1 : end;
    }
    const char *q = p;
    while (q < end && *q != ' ' && *q != '\t' && *q != '\r' && *q != '\n' && *q != '{' && *q != '}' && *q != '"')
        q++;
    *tok = p;
    *len = (size_t)(q - p);
    return q;
}

bool bk_vmt_textures(const char *text, size_t size, bk_strset *out)
{
    const char *p = text, *end = text + size, *tok, *key = NULL;
    size_t len, key_len = 0;
    bool ok = true;
    while (ok && (p = kv_token(p, end, &tok, &len), tok != NULL)) {
        if (len == 1 && (*tok == '{' || *tok == '}')) {
            key = NULL; /* the key was a block's name */
        } else if (!key) {
            key = tok;
            key_len = len;
        } else {
            /* A value that reads as a number or a vector is no texture. */
            if (key_len > 1 && key[0] == '$' && len > 0 && len < 200 && !strchr("[{0123456789.-", tok[0])) {
                char value[208];
                memcpy(value, tok, len);
                value[len] = '\0';
                ok = add_named(out, "materials", value, ".vtf");
            }
            key = NULL;
        }
    }
    return ok;
}
