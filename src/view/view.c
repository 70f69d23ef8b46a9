/* The page of bspkit view: the export's GLB (every face kind kept) and the
 * viewer script, both raw-deflated and base64-encoded, a JSON block of what
 * the stats panel shows and the spawn eye, and a small loader that inflates
 * the script and runs it. */
#include "bspkit/view.h"

#include "bspkit/edit.h"
#include "bspkit/textures.h"
#include "core/map.h"
#include "core/save_file.h"
#include "core/textbuf.h"
#include "render/camera.h"
#include "view/app.h"

#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>

/* libdeflate's levels go to 12; 9 keeps a large map's page quick to make. */
#define GLB_LEVEL 9

bool bspkit_view_available(void)
{
    return bk_view_app_size > 0;
}

static void put_html_text(bk_tbuf *t, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': tb_puts(t, "&amp;"); break;
        case '<': tb_puts(t, "&lt;"); break;
        case '>': tb_puts(t, "&gt;"); break;
        case '"': tb_puts(t, "&quot;"); break;
        default: tb_put(t, s, 1);
        }
    }
}

/* JSON inside a <script> element: no '<' may start a tag or comment, and
 * '<' only occurs inside JSON strings, where \u003c reads the same. */
static void put_script_json(bk_tbuf *t, const bk_tbuf *json)
{
    size_t start = 0;
    for (size_t i = 0; i < json->size; i++) {
        if (json->data[i] != '<')
            continue;
        tb_put(t, json->data + start, i - start);
        tb_puts(t, "\\u003c");
        start = i + 1;
    }
    tb_put(t, json->data + start, json->size - start);
}

static void put_base64(bk_tbuf *t, const uint8_t *p, size_t n)
{
    static const char ABC[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char q[4];
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
        q[0] = ABC[v >> 18];
        q[1] = ABC[(v >> 12) & 63];
        q[2] = ABC[(v >> 6) & 63];
        q[3] = ABC[v & 63];
        tb_put(t, q, 4);
    }
    if (i < n) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0);
        q[0] = ABC[v >> 18];
        q[1] = ABC[(v >> 12) & 63];
        q[2] = i + 1 < n ? ABC[(v >> 6) & 63] : '=';
        q[3] = '=';
        tb_put(t, q, 4);
    }
}

/* `data` raw-deflated into a new buffer. */
static bspkit_result deflate_bytes(const uint8_t *data, size_t size, uint8_t **out, size_t *out_size,
                                   bspkit_error *err)
{
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(GLB_LEVEL);
    if (!c)
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
    size_t bound = libdeflate_deflate_compress_bound(c, size);
    *out = malloc(bound ? bound : 1);
    *out_size = *out ? libdeflate_deflate_compress(c, data, size, *out, bound) : 0;
    libdeflate_free_compressor(c);
    if (!*out || *out_size == 0) {
        free(*out);
        *out = NULL;
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory compressing %zu bytes", size);
    }
    return BSPKIT_OK;
}

/* What the stats panel shows: format, game, the counts of `bspkit info
 * --json` (one per lump key, the first lump with a key wins; textures;
 * entities), the export's totals and the spawn eye (null without one). */
static void meta_json(bspkit_map *map, const bspkit_view_stats *st, const char *title, bool textures_on,
                      bk_tbuf *t)
{
    const bspkit_format *f = bspkit_map_format(map);
    jw_obj(t);
    jw_key(t, "title");
    jw_str(t, title);
    jw_key(t, "textures"); /* false: untextured on purpose, not missing */
    jw_raw_value(t, textures_on ? "true" : "false", textures_on ? 4 : 5);
    jw_key(t, "format");
    jw_str(t, bspkit_family_name(f->family));
    jw_key(t, "name");
    jw_str(t, f->name);
    jw_key(t, "version");
    jw_int(t, f->version);
    const char *game = bspkit_map_game(map);
    if (game) {
        jw_key(t, "game");
        jw_str(t, game);
    }
    jw_key(t, "counts");
    jw_obj(t);
    const char *seen[BSPKIT_MAX_LUMPS];
    size_t nseen = 0;
    int n = bspkit_lump_count(map);
    for (int i = 0; i < n && nseen < BSPKIT_MAX_LUMPS; i++) {
        bspkit_lump_info li;
        uint64_t records;
        if (bspkit_get_lump_info(map, i, &li) != BSPKIT_OK || !li.key || strcmp(li.key, "textures") == 0 ||
            bspkit_lump_record_count(map, i, &records) != BSPKIT_OK)
            continue;
        bool dup = false;
        for (size_t k = 0; k < nseen && !dup; k++)
            dup = strcmp(seen[k], li.key) == 0;
        if (dup)
            continue;
        seen[nseen++] = li.key;
        jw_key(t, li.key);
        jw_int(t, (int64_t)records);
    }
    bspkit_error err;
    size_t textures;
    if (bspkit_map_texture_count(map, &textures, NULL, &err) == BSPKIT_OK) {
        jw_key(t, "textures");
        jw_int(t, (int64_t)textures);
    }
    jw_end_obj(t);
    const bspkit_entities *ents = NULL;
    bool have_ents = bspkit_get_entities(map, &ents, &err) == BSPKIT_OK && ents;
    if (have_ents) {
        jw_key(t, "entities");
        jw_int(t, (int64_t)ents->count);
    }
    jw_key(t, "export");
    jw_obj(t);
    const struct { const char *key; size_t value; } rows[] = {
        {"nodes", st->geometry.nodes}, {"faces", st->geometry.faces}, {"triangles", st->geometry.triangles},
        {"vertices", st->geometry.vertices}, {"displacements", st->geometry.displacements},
        {"materials", st->geometry.materials}, {"images", st->geometry.images},
        {"missing_textures", st->geometry.missing_textures}, {"props", st->geometry.props},
        {"glb_bytes", st->glb_bytes}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        jw_key(t, rows[i].key);
        jw_int(t, (int64_t)rows[i].value);
    }
    jw_end_obj(t);
    bspkit_render_camera eye;
    jw_key(t, "spawn");
    if (have_ents && bk_render_spawn(ents, f->family, &eye)) {
        double v[6] = {eye.origin[0], eye.origin[1], eye.origin[2], eye.pitch, eye.yaw, eye.fov};
        jw_reals(t, v, 6);
    } else {
        jw_raw_value(t, "null", 4);
    }
    jw_end_obj(t);
}

/* Inflates the base64 text of element `id` (window.bspkitInflate, used by the
 * viewer for the GLB too), then runs the viewer script. */
static const char LOADER[] =
    "(async()=>{try{"
    "const bytes=id=>{const s=document.getElementById(id).textContent.replace(/\\s+/g,'');"
    "const pad=s.endsWith('==')?2:s.endsWith('=')?1:0;const out=new Uint8Array(s.length/4*3-pad);"
    "for(let i=0,o=0;i<s.length;i+=1<<20){const b=atob(s.slice(i,i+(1<<20)));"
    "for(let k=0;k<b.length;k++)out[o++]=b.charCodeAt(k)}return out};"
    "window.bspkitInflate=async id=>new Uint8Array(await new Response(new Blob([bytes(id)]).stream()"
    ".pipeThrough(new DecompressionStream('deflate-raw'))).arrayBuffer());"
    "(0,eval)(new TextDecoder().decode(await window.bspkitInflate('bspkit-app')))"
    "}catch(e){document.body.dataset.error=String(e);"
    "document.getElementById('bspkit-status').textContent='bspkit view: '+e;throw e}})()";

static const char STYLE[] =
    "html,body{margin:0;height:100%;overflow:hidden;background:#202028;color:#ddd;"
    "font:13px/1.35 system-ui,sans-serif}canvas{display:block}"
    "#bspkit-status{position:fixed;left:50%;top:45%;transform:translate(-50%,-50%)}";

static bspkit_result build_page(const char *title, const bk_tbuf *meta, const char *glb_b64, size_t glb_b64_size,
                                bk_tbuf *t)
{
    tb_puts(t, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
               "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>");
    put_html_text(t, title);
    tb_puts(t, "</title><style>");
    tb_puts(t, STYLE);
    tb_puts(t, "</style></head>\n<body><div id=\"bspkit-status\">loading&hellip;</div>\n"
               "<script type=\"application/json\" id=\"bspkit-meta\">");
    put_script_json(t, meta);
    tb_puts(t, "</script>\n<script type=\"application/octet-stream\" id=\"bspkit-glb\">");
    tb_put(t, glb_b64, glb_b64_size);
    tb_puts(t, "</script>\n<script type=\"application/octet-stream\" id=\"bspkit-app\">");
    tb_put(t, bk_view_app, bk_view_app_size);
    tb_puts(t, "</script>\n<script>");
    tb_puts(t, LOADER);
    tb_puts(t, "</script>\n</body></html>\n");
    return t->failed ? BSPKIT_ERR_NOMEM : BSPKIT_OK;
}

bspkit_result bspkit_view_html(bspkit_map *map, const bspkit_view_options *opts, uint8_t **out, size_t *size,
                               bspkit_view_stats *stats, bspkit_error *err)
{
    if (!map || !out || !size)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "map, out and size are required");
    *out = NULL;
    *size = 0;
    bspkit_view_options o = {0};
    if (opts)
        o = *opts;
    if (!bspkit_view_available())
        return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, -1, -1, -1,
                       "this bspkit was built without the viewer script: run `npm ci` in viewer/ "
                       "(scripts/install-deps.sh does) and build again");
    bspkit_export_options eo = {0};
    eo.format = BSPKIT_EXPORT_GLB;
    eo.keep = BSPKIT_SKIP_ALL;
    eo.no_textures = o.no_textures;
    eo.no_lightmaps = o.no_lightmaps;
    eo.lightmap_hdr = o.lightmap_hdr;
    eo.wad_paths = o.wad_paths;
    eo.wad_path_count = o.wad_path_count;
    bspkit_view_stats st;
    memset(&st, 0, sizeof st);
    uint8_t *glb = NULL, *packed = NULL;
    size_t packed_size = 0;
    bspkit_result r = bspkit_export_glb_memory(map, &eo, &glb, &st.glb_bytes, &st.geometry, err);
    if (r == BSPKIT_OK)
        r = deflate_bytes(glb, st.glb_bytes, &packed, &packed_size, err);
    bspkit_free(glb);
    if (r != BSPKIT_OK)
        return r;
    st.glb_deflated = packed_size;
    st.script_bytes = bk_view_app_size;
    const char *title = o.title ? o.title : "bspkit view";
    bk_tbuf b64 = {0}, meta = {0}, page = {0};
    put_base64(&b64, packed, packed_size);
    free(packed);
    meta_json(map, &st, title, !o.no_textures, &meta);
    if (b64.failed || meta.failed)
        r = bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "out of memory");
    else if ((r = build_page(title, &meta, b64.data, b64.size, &page)) != BSPKIT_OK)
        bk_fail(err, r, -1, -1, -1, "out of memory");
    tb_free(&b64);
    tb_free(&meta);
    if (r != BSPKIT_OK) {
        tb_free(&page);
        return r;
    }
    *out = (uint8_t *)page.data;
    *size = page.size;
    st.html_bytes = page.size;
    if (stats)
        *stats = st;
    return BSPKIT_OK;
}

bspkit_result bspkit_view_save(bspkit_map *map, const char *path, const bspkit_view_options *opts,
                               bspkit_view_stats *stats, bspkit_error *err)
{
    if (!path)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "path is required");
    uint8_t *html;
    size_t size;
    bspkit_result r = bspkit_view_html(map, opts, &html, &size, stats, err);
    if (r != BSPKIT_OK)
        return r;
    r = bk_save_bytes(path, html, size, BK_SAVE_DERIVED, err);
    bspkit_free(html);
    return r;
}
