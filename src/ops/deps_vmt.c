/* KeyValues text as materials and particle manifests write it: enough to
 * find the pairs that name other files. */
#include "ops/deps_internal.h"
#include "core/ascii.h"

#include <stdlib.h>
#include <string.h>

/* One token: '{', '}', or a string (quoted or bare) copied into `buf`. */
typedef enum tok { TOK_END, TOK_OPEN, TOK_CLOSE, TOK_STRING } tok;

static tok next(const char *t, size_t size, size_t *pos, char *buf, size_t cap)
{
    size_t i = *pos;
    for (;;) {
        while (i < size && (t[i] == ' ' || t[i] == '\t' || t[i] == '\r' || t[i] == '\n'))
            i++;
        if (i + 1 < size && t[i] == '/' && t[i + 1] == '/') {
            while (i < size && t[i] != '\n')
                i++;
            continue;
        }
        break;
    }
    if (i >= size || t[i] == '\0') {
        *pos = size;
        return TOK_END;
    }
    if (t[i] == '{' || t[i] == '}') {
        *pos = i + 1;
        return t[i] == '{' ? TOK_OPEN : TOK_CLOSE;
    }
    size_t n = 0;
    if (t[i] == '"') {
        i++;
        while (i < size && t[i] != '"' && t[i] != '\0') {
            if (n + 1 < cap)
                buf[n++] = t[i];
            i++;
        }
        if (i < size && t[i] == '"')
            i++;
    } else {
        while (i < size && !strchr(" \t\r\n{}\"", t[i]) && t[i] != '\0') {
            if (n + 1 < cap)
                buf[n++] = t[i];
            i++;
        }
    }
    buf[n] = '\0';
    *pos = i;
    return TOK_STRING;
}

void dk_vmt_parse(const char *text, size_t size, void (*pair)(void *ctx, const char *key, const char *value),
                  void *ctx)
{
    char key[256], value[512];
    bool have_key = false;
    size_t pos = 0;
    for (;;) {
        tok k = next(text, size, &pos, have_key ? value : key, have_key ? sizeof value : sizeof key);
        if (k == TOK_END)
            return;
        if (k != TOK_STRING) {
            have_key = false; /* a block name, or the end of a block */
        } else if (!have_key) {
            have_key = true;
        } else {
            pair(ctx, key, value);
            have_key = false;
        }
    }
}

/* Material parameters that name a texture (the .vtf is found under materials/). */
static const char *const TEXTURE_KEYS[] = {
    "$basetexture", "$basetexture2", "$basetexture3", "$basetexture4", "$bumpmap", "$bumpmap2", "$normalmap",
    "$normalmap2", "$envmapmask", "$envmap", "$detail", "$detail2", "$blendmodulatetexture", "$selfillummask",
    "$phongexponenttexture", "$phongwarptexture", "$lightwarptexture", "$dudvmap", "$texture2", "$hdrbasetexture",
    "$hdrcompressedtexture", "$iris", "$ambientoccltexture", "$corneatexture", "$tintmasktexture",
    "$emissiveblendtexture", "$emissiveblendbasetexture", "$emissiveblendflowtexture", "$flowmap",
    "$flow_noise_texture", "$refracttinttexture", "$fleshinteriortexture", "$fleshnormaltexture",
    "$fleshbordertexture1d", "$fleshsubsurfacetexture", "$fleshcubetexture", "$masks1", "$masks2",
    "$blendmasktexture", "$specmasktexture", "$paintsplatnormalmap", "$paintsplatbubblelayout",
    "$paintsplatbubble", "$paintenvmap", "$compress", "$stretch", "$displacementmap", "$parallaxmap"};

/* Parameters that name another material. */
static const char *const MATERIAL_KEYS[] = {"include", "$bottommaterial", "$underwateroverlay", "$fallbackmaterial"};

dk_vmt_kind dk_vmt_key_kind(const char *key, const char *value)
{
    if (!value[0])
        return DK_VMT_OTHER;
    for (size_t i = 0; i < sizeof MATERIAL_KEYS / sizeof MATERIAL_KEYS[0]; i++)
        if (bk_ascii_equal(key, MATERIAL_KEYS[i]))
            return DK_VMT_MATERIAL;
    for (size_t i = 0; i < sizeof TEXTURE_KEYS / sizeof TEXTURE_KEYS[0]; i++)
        if (bk_ascii_equal(key, TEXTURE_KEYS[i])) {
            /* the map's nearest cubemap and render targets are no files */
            if (bk_ascii_equal(value, "env_cubemap") || bk_ascii_ncasecmp(value, "_rt_", 4) == 0)
                return DK_VMT_OTHER;
            /* numbers and vectors are not names ($envmap "0" in some materials) */
            if (strspn(value, "0123456789.-[] ") == strlen(value))
                return DK_VMT_OTHER;
            return DK_VMT_TEXTURE;
        }
    return DK_VMT_OTHER;
}
