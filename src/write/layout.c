/* Writing an edited map: decide each lump's stored bytes (copied, converted,
 * compressed), place the lumps, then encode the directory and the offsets
 * that point into the file (game-lump entries, the BSPX block).
 *
 * The placement rule is what keeps saves from breaking maps: when every lump
 * keeps its stored size the input file is the template and only changed
 * bytes are overwritten, so an unchanged map comes out byte-identical and a
 * same-size edit moves nothing. Otherwise lumps are packed again in the
 * order they had in the input, with the alignments Valve's tools use. */
#include "write/edit_state.h"
#include "core/family.h"
#include "core/schema.h"
#include "formats/quake/family.h"
#include "formats/source/swap.h"
#include "write/encode.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define S_HEADER_SIZE (8 + 64 * 16 + 4)

/* Bytes before a Quake-style directory of {offset, length} pairs. */
static size_t directory_start(const bspkit_map *map) { return map->family_ops->directory_start; }
#define GAME_ENTRY_SIZE 16

typedef struct out_lump {
    const uint8_t *bytes; /* stored bytes to write */
    size_t size;
    uint8_t *owned;       /* set when `bytes` was made here */
    bool rewritten;       /* bytes differ from (or may differ from) the input's stored bytes */
    bool raw_entry;       /* Source: copy the input's directory entry, patching only the offset */
    int32_t version;
    uint32_t fourcc;
    uint64_t offset;
} out_lump;

/* Where one game-lump entry's offset field must point once the lump is placed. */
typedef struct game_fixup {
    size_t field;  /* position of the offset field inside the game lump */
    uint64_t rel;  /* target, relative to the start of the game lump */
} game_fixup;

typedef struct plan {
    bspkit_edit *e;
    bspkit_map *map;
    const bspkit_save_options *opts;
    bool source;
    bool src_be, dst_be, convert;
    bool dst_blueshift;
    unsigned dst_quake;  /* BSPKIT_VARIANT_BSP2 / _2PSB bits of the Quake layout written */
    bool requake;        /* the Quake record layout changes */
    bk_swap_target swap;
    out_lump lumps[BK_MAX_LUMPS];
    game_fixup *fixups;
    size_t fixup_count;
    bool game_relative; /* game-lump entry offsets count from the game lump */
    bool pin_game;      /* keep GAME_LUMP at its input offset (see relayout()) */
} plan;

static void plan_free(plan *p)
{
    for (int i = 0; i < BK_MAX_LUMPS; i++)
        free(p->lumps[i].owned);
    free(p->fixups);
}

/* Report a lump that could not be converted exactly; fatal when strict. */
static bspkit_result conversion_warning(plan *p, int lump, bspkit_error *err, const char *fmt, const char *what)
{
    bspkit_error w;
    bk_fail(&w, BSPKIT_ERR_UNSUPPORTED, lump, -1, -1, fmt, what);
    if (p->opts->strict) {
        bk_error_copy(err, &w);
        return w.code;
    }
    if (p->opts->warning)
        p->opts->warning(p->opts->warning_ctx, &w);
    return BSPKIT_OK;
}

/* Whether a lump is stored compressed: every one with data under LZMA,
 * none without, else as it was. "As it was" holds for an empty lump too:
 * an LZMA header claiming 0 bytes is kept as it is, so an unchanged save
 * stays byte for byte the input. */
static bool want_compressed(const plan *p, int lump, bool was_compressed, size_t size)
{
    if (!p->source || lump == BSPKIT_S_PAKFILE || lump == BSPKIT_S_GAME_LUMP)
        return false;
    switch (p->opts->compression) {
    case BSPKIT_COMPRESSION_LZMA: return size > 0;
    case BSPKIT_COMPRESSION_NONE: return false;
    default: return was_compressed;
    }
}

/* Whether a game-lump entry is stored compressed: every one with data but
 * the id-0 terminator under LZMA, none without, else as it was. */
static bool want_game_compressed(const plan *p, uint32_t id, size_t size, bool was_compressed)
{
    switch (p->opts->compression) {
    case BSPKIT_COMPRESSION_LZMA: return size > 0 && id != 0;
    case BSPKIT_COMPRESSION_NONE: return false;
    default: return was_compressed;
    }
}

/* The bytes to store for `content` (decompressed, already in the output byte
 * order): LZMA-compressed when wanted and smaller, else the content itself.
 * Takes ownership of `owned` (the content's buffer, or NULL when borrowed);
 * *keep receives whichever buffer the stored bytes live in. */
static bspkit_result store_content(int lump, const uint8_t *content, size_t size, uint8_t *owned, bool compress,
                                   const uint8_t **bytes, size_t *stored, uint8_t **keep, bool *compressed,
                                   bspkit_error *err)
{
    *compressed = false;
    if (compress) {
        uint8_t *packed;
        size_t packed_size;
        bspkit_result r = bk_lzma_compress(content, size, &packed, &packed_size, lump, err);
        if (r != BSPKIT_OK) {
            free(owned);
            return r;
        }
        if (packed_size < size) {
            free(owned);
            *keep = packed;
            *bytes = packed;
            *stored = packed_size;
            *compressed = true;
            return BSPKIT_OK;
        }
        free(packed);
    }
    *keep = owned;
    *bytes = content;
    *stored = size;
    return BSPKIT_OK;
}

/* Decompressed content of `lump` in the output byte order; *owned is set when
 * the bytes had to be copied (converted). */
static bspkit_result converted_content(plan *p, int lump, int32_t version, const uint8_t **data, size_t *size,
                                       uint8_t **owned, bspkit_error *err)
{
    *owned = NULL;
    bspkit_result r = bspkit_edit_lump(p->e, lump, data, size, err);
    if (r != BSPKIT_OK || !p->convert || *size == 0)
        return r;
    uint8_t *copy = malloc(*size);
    if (!copy)
        return bk_fail(err, BSPKIT_ERR_NOMEM, lump, -1, -1, "%s: out of memory", bk_lump_name(p->map, lump));
    memcpy(copy, *data, *size);
    bool known = false;
    r = bk_swap_lump(&p->swap, lump, version, copy, *size, p->src_be, &known, err);
    if (r != BSPKIT_OK) {
        free(copy);
        return r;
    }
    if (!known) {
        r = conversion_warning(p, lump, err, "%s: layout unknown to bspkit, copied without changing its byte order",
                               bk_lump_name(p->map, lump));
        if (r != BSPKIT_OK) {
            free(copy);
            return r;
        }
    }
    *data = copy;
    *owned = copy;
    return BSPKIT_OK;
}

/* Decide the stored bytes of one ordinary lump. */
/* Quake layout change: the lump's records, decoded from the map, encoded in
 * the target variant's layout (NULL bytes when the lump keeps its layout). */
static bspkit_result requake_lump(plan *p, int lump, out_lump *o, bool *done, bspkit_error *err)
{
    *done = false;
    const bk_layout *src = &p->map->lumps[lump].layout;
    bk_layout dst = bk_quake_variant_layout(p->dst_quake, lump);
    if (!src->schema || !dst.schema || src->schema == dst.schema || src->decoded < 0)
        return BSPKIT_OK;
    if (p->e->lumps[lump].replaced)
        return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, lump, -1, -1,
                       "save: %s was replaced in this edit; change the Quake format and replace lumps in "
                       "separate saves", bk_lump_name(p->map, lump));
    const void *items;
    size_t count;
    bspkit_result r = bk_get_array(p->map, (bk_rec)src->decoded, lump, &items, &count, err);
    if (r != BSPKIT_OK)
        return r;
    if (count > SIZE_MAX / dst.record_size || count * dst.record_size > 0xFFFFFFFFu)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, lump, -1, -1, "save: %s would exceed 4 GiB", bk_lump_name(p->map, lump));
    size_t size = count * dst.record_size;
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf)
        return bk_fail(err, BSPKIT_ERR_NOMEM, lump, -1, -1, "save: out of memory");
    bk_field_ctx ctx = {dst.schema->name, lump, 0, err};
    for (size_t i = 0; i < count; i++) {
        ctx.record = i;
        r = dst.schema->encode((const uint8_t *)items + i * dst.native_size, buf + i * dst.record_size, false, &ctx);
        if (r != BSPKIT_OK) {
            free(buf);
            return r;
        }
    }
    o->bytes = buf;
    o->owned = buf;
    o->size = size;
    o->rewritten = true;
    *done = true;
    return BSPKIT_OK;
}

static bspkit_result plan_lump(plan *p, int lump, bspkit_error *err)
{
    const bk_lump *in = &p->map->lumps[lump];
    const ed_lump *ed = &p->e->lumps[lump];
    out_lump *o = &p->lumps[lump];
    o->version = ed_lump_version(p->e, lump);
    o->fourcc = in->fourcc;
    if (p->requake) {
        bool done;
        bspkit_result rq = requake_lump(p, lump, o, &done, err);
        if (rq != BSPKIT_OK || done)
            return rq;
    }

    size_t content_size = ed->replaced ? ed->size : in->uncompressed_length;
    bool compress = want_compressed(p, lump, in->compressed, content_size);
    if (!ed->replaced && !p->convert && compress == in->compressed) {
        /* Untouched: the stored bytes go out as they are. */
        o->bytes = p->map->data + in->offset;
        o->size = in->length;
        o->raw_entry = !ed->version_set;
        return BSPKIT_OK;
    }
    const uint8_t *content;
    size_t size;
    uint8_t *owned;
    bspkit_result r = converted_content(p, lump, in->version, &content, &size, &owned, err);
    if (r != BSPKIT_OK)
        return r;
    bool compressed;
    r = store_content(lump, content, size, owned, compress, &o->bytes, &o->size, &o->owned, &compressed, err);
    if (r != BSPKIT_OK)
        return r;
    o->rewritten = true;
    /* The fourCC of a compressed lump holds its decompressed size; other
     * lumps keep what they had (0 in every map seen). */
    if (compressed)
        o->fourcc = (uint32_t)size;
    else if (in->compressed)
        o->fourcc = 0;
    return BSPKIT_OK;
}

/* ------------------------------------------------------------------------ */
/* Game lumps                                                                */
/* ------------------------------------------------------------------------ */

static bspkit_result add_fixup(plan *p, size_t field, uint64_t rel, bspkit_error *err)
{
    game_fixup *grown = realloc(p->fixups, (p->fixup_count + 1) * sizeof *grown);
    if (!grown)
        return bk_fail(err, BSPKIT_ERR_NOMEM, BSPKIT_S_GAME_LUMP, -1, -1, "GAME_LUMP: out of memory");
    p->fixups = grown;
    p->fixups[p->fixup_count++] = (game_fixup){field, rel};
    return BSPKIT_OK;
}

/* The game lump as it was, with every entry offset to be moved along with it. */
static bspkit_result plan_game_copy(plan *p, bspkit_error *err)
{
    const bk_lump *in = &p->map->lumps[BSPKIT_S_GAME_LUMP];
    out_lump *o = &p->lumps[BSPKIT_S_GAME_LUMP];
    o->bytes = p->map->data + in->offset;
    o->size = in->length;
    o->version = ed_lump_version(p->e, BSPKIT_S_GAME_LUMP);
    o->fourcc = in->fourcc;
    o->raw_entry = !p->e->lumps[BSPKIT_S_GAME_LUMP].version_set;
    if (in->length < 4 || p->game_relative)
        return BSPKIT_OK; /* relative offsets do not change when the lump moves */
    bool be = p->src_be;
    uint32_t count = rd_u32(o->bytes, be);
    for (uint32_t i = 0; i < count && 4 + GAME_ENTRY_SIZE * (uint64_t)(i + 1) <= in->length; i++) {
        size_t field = 4 + GAME_ENTRY_SIZE * (size_t)i + 8;
        uint32_t ofs = rd_u32(o->bytes + field, be), len = rd_u32(o->bytes + field + 4, be);
        if (ofs >= in->offset && ofs <= (uint64_t)in->offset + in->length) {
            bspkit_result r = add_fixup(p, field, ofs - in->offset, err);
            if (r != BSPKIT_OK)
                return r;
        } else if (len) {
            /* Data elsewhere in the file cannot follow the lump; keep it only if nothing moves. */
            bspkit_result r = add_fixup(p, field, UINT64_MAX, err);
            if (r != BSPKIT_OK)
                return r;
        }
    }
    return BSPKIT_OK;
}

typedef struct game_out {
    uint32_t id;
    uint16_t flags, version;
    const uint8_t *bytes;
    size_t size;           /* stored size */
    uint32_t length_field; /* what the directory's length says: the decompressed size */
    uint8_t *owned;
} game_out;

/* Decide one entry's stored bytes. */
static bspkit_result plan_game_entry(plan *p, const ed_game_lump *g, const bspkit_game_lump *in, game_out *o,
                                     bspkit_error *err)
{
    o->id = g->id;
    o->version = g->version;
    o->flags = g->flags;
    bool was_compressed = in && in->compressed;
    const uint8_t *content;
    size_t size;
    bspkit_result r = ed_game_lump_bytes(p->e, g, &content, &size, err);
    if (r != BSPKIT_OK)
        return r;
    bool compress = want_game_compressed(p, g->id, size, was_compressed);
    if (in && !g->replaced && !p->convert && compress == was_compressed) {
        o->bytes = p->map->data + in->offset;
        o->size = in->length;
        o->length_field = in->uncompressed_length;
        return BSPKIT_OK;
    }
    uint8_t *owned = NULL;
    if (p->convert && size) {
        owned = malloc(size);
        if (!owned)
            return bk_fail(err, BSPKIT_ERR_NOMEM, BSPKIT_S_GAME_LUMP, -1, -1, "GAME_LUMP: out of memory");
        memcpy(owned, content, size);
        bool known = false;
        r = bk_swap_game_lump(&p->swap, g->id, g->version, owned, size, p->src_be, &known, err);
        if (r == BSPKIT_OK && !known) {
            char what[64];
            uint32_t id = g->id;
            snprintf(what, sizeof what, "game lump '%c%c%c%c' version %u", (char)(id >> 24), (char)(id >> 16),
                     (char)(id >> 8), (char)id, (unsigned)g->version);
            r = conversion_warning(p, BSPKIT_S_GAME_LUMP, err, "%s: layout unknown to bspkit, copied without "
                                   "changing its byte order", what);
        }
        if (r != BSPKIT_OK) {
            free(owned);
            return r;
        }
        content = owned;
    }
    o->length_field = (uint32_t)size;
    bool compressed;
    r = store_content(BSPKIT_S_GAME_LUMP, content, size, owned, compress, &o->bytes, &o->size, &o->owned,
                      &compressed, err);
    o->flags = (uint16_t)((o->flags & ~1u) | (compressed ? 1u : 0u));
    return r;
}

/* Build the game lump again: directory, then each entry's data in order. A
 * terminating id-0 entry follows when any entry is compressed, so readers
 * can size the last compressed one. */
static bspkit_result plan_game_rebuild(plan *p, bspkit_error *err)
{
    bspkit_edit *e = p->e;
    const bspkit_game_lump *gl = NULL;
    size_t gl_count = 0;
    bspkit_result r = ed_load_game_lumps(e, err);
    if (r == BSPKIT_OK)
        r = bspkit_get_game_lumps(p->map, &gl, &gl_count, err);
    if (r != BSPKIT_OK)
        return r;
    size_t n = e->game_count;
    game_out *outs = calloc(n + 1, sizeof *outs);
    if (!outs)
        return bk_fail(err, BSPKIT_ERR_NOMEM, BSPKIT_S_GAME_LUMP, -1, -1, "GAME_LUMP: out of memory");
    bool any_compressed = false;
    for (size_t i = 0; i < n && r == BSPKIT_OK; i++) {
        const ed_game_lump *g = &e->games[i];
        r = plan_game_entry(p, g, g->source < gl_count ? &gl[g->source] : NULL, &outs[i], err);
        any_compressed |= outs[i].flags & 1;
    }
    if (r == BSPKIT_OK && any_compressed && (n == 0 || outs[n - 1].id != 0 || outs[n - 1].size != 0))
        outs[n++] = (game_out){0};
    uint64_t total = 4 + GAME_ENTRY_SIZE * (uint64_t)n;
    for (size_t i = 0; i < n; i++)
        total += outs[i].size;
    uint8_t *buf = NULL;
    if (r == BSPKIT_OK && total > 0xFFFFFFFFu)
        r = bk_fail(err, BSPKIT_ERR_ARGUMENT, BSPKIT_S_GAME_LUMP, -1, -1, "GAME_LUMP: %llu bytes is too large",
                    (unsigned long long)total);
    if (r == BSPKIT_OK && !(buf = malloc((size_t)total)))
        r = bk_fail(err, BSPKIT_ERR_NOMEM, BSPKIT_S_GAME_LUMP, -1, -1, "GAME_LUMP: out of memory");
    if (r == BSPKIT_OK) {
        bool be = p->dst_be;
        wr_u32(buf, (uint32_t)n, be);
        size_t pos = 4 + GAME_ENTRY_SIZE * n;
        for (size_t i = 0; i < n && r == BSPKIT_OK; i++) {
            uint8_t *d = buf + 4 + GAME_ENTRY_SIZE * i;
            wr_u32(d, outs[i].id, be);
            wr_u16(d + 4, outs[i].flags, be);
            wr_u16(d + 6, outs[i].version, be);
            wr_u32(d + 8, (uint32_t)pos, be); /* relative for now; see place_game_lump() */
            wr_u32(d + 12, outs[i].length_field, be);
            if (outs[i].size)
                memcpy(buf + pos, outs[i].bytes, outs[i].size);
            if (!p->game_relative)
                r = add_fixup(p, 4 + GAME_ENTRY_SIZE * i + 8, pos, err);
            pos += outs[i].size;
        }
    }
    for (size_t i = 0; i < n; i++)
        free(outs[i].owned);
    free(outs);
    if (r != BSPKIT_OK) {
        free(buf);
        return r;
    }
    out_lump *o = &p->lumps[BSPKIT_S_GAME_LUMP];
    o->owned = buf;
    o->bytes = buf;
    o->size = (size_t)total;
    o->rewritten = true;
    o->version = ed_lump_version(e, BSPKIT_S_GAME_LUMP);
    o->fourcc = 0;
    return BSPKIT_OK;
}

static bspkit_result plan_game_lump(plan *p, bspkit_error *err)
{
    /* Decoding the directory checks it and tells absolute from relative offsets. */
    const bspkit_game_lump *gl = NULL;
    size_t count = 0;
    bspkit_result r = bspkit_get_game_lumps(p->map, &gl, &count, err);
    if (r != BSPKIT_OK)
        return r;
    p->game_relative = p->map->game_lumps_relative;
    bool copy = !p->e->games_changed && !p->convert;
    for (size_t i = 0; i < count && copy; i++) {
        copy = want_game_compressed(p, gl[i].id, gl[i].uncompressed_length, gl[i].compressed) == gl[i].compressed;
    }
    if (copy) {
        /* Unchanged entries with absolute offsets: the lump's bytes hold its
         * own position, and the map CRC servers compare covers them. */
        p->pin_game = !p->game_relative && count > 0 && p->map->lumps[BSPKIT_S_GAME_LUMP].length > 0;
        return plan_game_copy(p, err);
    }
    return plan_game_rebuild(p, err);
}

/* ------------------------------------------------------------------------ */
/* Placement                                                                 */
/* ------------------------------------------------------------------------ */

static uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

static uint32_t lump_alignment(const plan *p, int lump)
{
    if (p->source && lump == BSPKIT_S_PAKFILE)
        return 2048;
    if (p->source && lump == BSPKIT_S_PHYSLEVEL)
        return 16;
    return 4;
}

/* True when lump `i`'s input bytes share file bytes with another non-empty lump. */
static bool overlaps_another(const bspkit_map *map, int i)
{
    const bk_lump *a = &map->lumps[i];
    for (int j = 0; j < map->lump_count; j++) {
        const bk_lump *b = &map->lumps[j];
        if (j != i && b->length && a->offset < (uint64_t)b->offset + b->length &&
            b->offset < (uint64_t)a->offset + a->length)
            return true;
    }
    return false;
}

/* Keep every lump where it is when no stored size changed. */
static bool same_layout(const plan *p)
{
    for (int i = 0; i < p->map->lump_count; i++) {
        const out_lump *o = &p->lumps[i];
        const bk_lump *in = &p->map->lumps[i];
        if (o->size != in->length)
            return false;
        if (o->rewritten && o->size && overlaps_another(p->map, i))
            return false;
    }
    return true;
}

typedef struct order_item {
    int lump;
    uint64_t key;
    bool empty; /* no bytes in the input */
} order_item;

static int order_cmp(const void *a, const void *b)
{
    const order_item *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    /* An empty lump sharing its offset with the next lump stays before it,
     * as the compilers (and ericw-tools' converter) write it. */
    if (x->empty != y->empty)
        return x->empty ? -1 : 1;
    return (x->lump > y->lump) - (x->lump < y->lump);
}

/* Place lumps again in input order, aligned; returns the end of the last
 * lump. A pinned game lump stays where it was and the others flow around it:
 * moving it would change its bytes (absolute offsets) and so the map CRC,
 * which would make an entity-only edit look like a different map to
 * clients. */
static uint64_t relayout(plan *p)
{
    order_item items[BK_MAX_LUMPS];
    int n = 0;
    uint64_t pin_start = 0, pin_end = 0;
    if (p->pin_game) {
        out_lump *g = &p->lumps[BSPKIT_S_GAME_LUMP];
        g->offset = p->map->lumps[BSPKIT_S_GAME_LUMP].offset;
        pin_start = g->offset;
        pin_end = g->offset + g->size;
    }
    for (int i = 0; i < p->map->lump_count; i++) {
        const bk_lump *in = &p->map->lumps[i];
        bool placed_in_input = in->length > 0 || !p->source;
        if (p->source && p->lumps[i].size == 0)
            continue; /* Source directories give empty lumps no position */
        if (p->pin_game && i == BSPKIT_S_GAME_LUMP)
            continue;
        uint64_t key = placed_in_input ? in->offset : UINT64_MAX - 1;
        if (p->source && i == BSPKIT_S_PAKFILE)
            key = UINT64_MAX; /* last, as the engine and Valve's tools expect */
        items[n++] = (order_item){i, key, in->length == 0};
    }
    qsort(items, (size_t)n, sizeof *items, order_cmp);
    uint64_t pos = p->source ? S_HEADER_SIZE : directory_start(p->map) + 8 * (uint64_t)p->map->lump_count;
    for (int k = 0; k < n; k++) {
        out_lump *o = &p->lumps[items[k].lump];
        uint32_t align = lump_alignment(p, items[k].lump);
        pos = align_up(pos, align);
        if (pin_end > pin_start && o->size && pos < pin_end && pos + o->size > pin_start)
            pos = align_up(pin_end, align);
        o->offset = pos;
        pos += o->size;
    }
    /* Valve's and id's compilers pad after every lump, the last one too. */
    return align_up(pos > pin_end ? pos : pin_end, 4);
}

/* ------------------------------------------------------------------------ */
/* Encoding                                                                  */
/* ------------------------------------------------------------------------ */

static void write_source_header(const plan *p, uint8_t *out)
{
    bool be = p->dst_be;
    memcpy(out, be ? "PSBV" : "VBSP", 4);
    wr_u32(out + 4, (uint32_t)p->map->format.version, be);
    bool l4d2 = p->map->format.variant & BSPKIT_VARIANT_L4D2_DIRECTORY;
    for (int i = 0; i < 64; i++) {
        const out_lump *o = &p->lumps[i];
        const bk_lump *in = &p->map->lumps[i];
        uint8_t *d = out + 8 + 16 * i;
        if (o->raw_entry && !p->convert) {
            memcpy(d, p->map->data + 8 + 16 * i, 16);
            if (o->size)
                wr_u32(d + (l4d2 ? 4 : 0), (uint32_t)o->offset, be);
            continue;
        }
        uint32_t ofs = o->size ? (uint32_t)o->offset : 0, len = (uint32_t)o->size;
        if (!o->size && !in->length && !o->rewritten)
            ofs = in->offset; /* an untouched empty entry keeps what it said */
        wr_u32(d + (l4d2 ? 4 : 0), ofs, be);
        wr_u32(d + (l4d2 ? 8 : 4), len, be);
        wr_u32(d + (l4d2 ? 0 : 8), (uint32_t)o->version, be);
        wr_u32(d + 12, o->fourcc, be);
    }
    wr_u32(out + 8 + 64 * 16, (uint32_t)p->map->format.revision, be);
}

static void write_quake_header(const plan *p, uint8_t *out, bool keep_empty_offsets)
{
    size_t dir = directory_start(p->map);
    memcpy(out, p->map->data, dir);
    if (p->requake) /* Quake: "BSP2", "2PSB", or the version of BSP29 */
        memcpy(out, p->dst_quake & BSPKIT_VARIANT_BSP2 ? "BSP2" : p->dst_quake & BSPKIT_VARIANT_2PSB ? "2PSB" : "\x1d\0\0\0", 4);
    for (int i = 0; i < p->map->lump_count; i++) {
        const out_lump *o = &p->lumps[i];
        int slot = p->dst_blueshift && i < 2 ? 1 - i : i;
        uint64_t ofs = o->offset;
        if (!o->size && keep_empty_offsets)
            ofs = p->map->lumps[i].offset;
        wr_le32(out + dir + 8 * slot, (uint32_t)ofs);
        wr_le32(out + dir + 4 + 8 * slot, (uint32_t)o->size);
    }
}

static bspkit_result place_game_lump(plan *p, uint8_t *out, bspkit_error *err)
{
    if (!p->source || p->fixup_count == 0)
        return BSPKIT_OK;
    const out_lump *o = &p->lumps[BSPKIT_S_GAME_LUMP];
    const bk_lump *in = &p->map->lumps[BSPKIT_S_GAME_LUMP];
    for (size_t i = 0; i < p->fixup_count; i++) {
        const game_fixup *f = &p->fixups[i];
        uint8_t *field = out + o->offset + f->field;
        if (f->rel == UINT64_MAX) {
            if (o->offset != in->offset)
                return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, BSPKIT_S_GAME_LUMP, in->offset + f->field,
                               (int64_t)f->field,
                               "GAME_LUMP: an entry's data lies outside the game lump and cannot move with it");
            continue;
        }
        wr_u32(field, (uint32_t)(o->offset + f->rel), p->dst_be);
    }
    return BSPKIT_OK;
}

/* The Quake/GoldSrc bytes after the last lump: a BSPX block moves with the
 * lumps and its entry offsets are rewritten; anything else is dropped. */
static bspkit_result bspx_tail(const plan *p, uint64_t *start, uint64_t *size, bspkit_error *err)
{
    *start = *size = 0;
    if (p->source || !(p->map->format.variant & BSPKIT_VARIANT_BSPX))
        return BSPKIT_OK;
    uint64_t end = bk_bspx_offset(p->map->data, p->map->size);
    if (!end)
        return BSPKIT_OK;
    uint32_t count = rd_le32(p->map->data + end + 4);
    if ((uint64_t)count * 32 + 8 > p->map->size - end)
        return bk_fail(err, BSPKIT_ERR_LUMP_RANGE, -1, (int64_t)end, -1,
                       "BSPX: %u entries run past the end of the file", count);
    *start = end;
    *size = p->map->size - end;
    return BSPKIT_OK;
}

static bspkit_result write_bspx(const plan *p, uint8_t *out, uint64_t in_start, uint64_t new_start, uint64_t size,
                                bspkit_error *err)
{
    memcpy(out + new_start, p->map->data + in_start, (size_t)size);
    uint32_t count = rd_le32(out + new_start + 4);
    for (uint32_t i = 0; i < count; i++) {
        uint8_t *entry = out + new_start + 8 + 32 * (uint64_t)i;
        uint32_t ofs = rd_le32(entry + 24), len = rd_le32(entry + 28);
        if (!len)
            continue;
        if (ofs < in_start || !range_ok(ofs - in_start, len, size))
            return bk_fail(err, BSPKIT_ERR_LUMP_RANGE, -1, (int64_t)(in_start + 8 + 32ull * i), -1,
                           "BSPX entry %u: data at %u+%u lies outside the BSPX block", i, ofs, len);
        wr_le32(entry + 24, (uint32_t)(ofs - in_start + new_start));
    }
    return BSPKIT_OK;
}

static bspkit_result check_options(const plan *p, bspkit_error *err)
{
    const bspkit_save_options *o = p->opts;
    const bspkit_format *f = &p->map->format;
    if ((unsigned)o->compression > BSPKIT_COMPRESSION_NONE || (unsigned)o->byte_order > BSPKIT_BYTE_ORDER_BIG ||
        (unsigned)o->lump_order > BSPKIT_LUMP_ORDER_BLUESHIFT)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "save: invalid option value");
    if (!p->source) {
        if (o->compression == BSPKIT_COMPRESSION_LZMA)
            return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, -1, -1, -1, "%s maps have no LZMA lumps",
                           bspkit_family_name(f->family));
        if (o->byte_order == BSPKIT_BYTE_ORDER_BIG)
            return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, -1, -1, -1, "%s maps are little-endian only",
                           bspkit_family_name(f->family));
    }
    if ((unsigned)o->quake_format > BSPKIT_QUAKE_FORMAT_2PSB)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "save: invalid option value");
    if (o->quake_format != BSPKIT_QUAKE_FORMAT_KEEP && f->family != BSPKIT_FAMILY_QUAKE)
        return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, -1, -1, -1,
                       "the BSP29/BSP2/2PSB layouts are Quake's; %s keeps its own", f->name);
    if (o->lump_order != BSPKIT_LUMP_ORDER_KEEP && !(f->family == BSPKIT_FAMILY_GOLDSRC && f->version == 30))
        return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, -1, -1, -1,
                       "the Blue Shift lump order exists only for GoldSrc BSP30 maps, not %s", f->name);
    return BSPKIT_OK;
}

/* The written file must read back as what was written: same format and
 * variant, every lump at the length planned. Detection rests on heuristics
 * (the L4D2 directory order, Blue Shift, v29 GoldSrc), which a hostile
 * input's leftover fields could tip the other way. */
static bspkit_result verify_output(const plan *p, const uint8_t *buf, size_t size, bspkit_error *err)
{
    bspkit_map *m = NULL;
    bspkit_error why;
    bspkit_result r = bspkit_open_memory(buf, size, &p->map->opts, &m, &why);
    if (r == BSPKIT_ERR_NOMEM || r == BSPKIT_ERR_LIMIT) /* no verdict on the bytes: say why */
        return bk_fail(err, r, why.lump, -1, -1, "save: checking the written map: %s", why.message);
    if (r != BSPKIT_OK)
        return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, why.lump, -1, -1,
                       "save: the written map would not open again (%s); nothing was written", why.message);
    const bspkit_format *f = &m->format, *in = &p->map->format;
    const unsigned quake_bits = BSPKIT_VARIANT_BSP2 | BSPKIT_VARIANT_2PSB;
    unsigned want = (in->variant & BSPKIT_VARIANT_L4D2_DIRECTORY) | p->dst_quake;
    bool same = f->family == in->family && f->version == in->version && f->big_endian == p->dst_be &&
                (f->variant & (BSPKIT_VARIANT_L4D2_DIRECTORY | quake_bits)) == want &&
                ((f->variant & BSPKIT_VARIANT_BLUESHIFT) != 0) == p->dst_blueshift;
    int lump = -1;
    for (int i = 0; same && i < m->lump_count; i++)
        if (m->lumps[i].length != p->lumps[i].size)
            same = false, lump = i;
    bspkit_close(m);
    if (!same)
        return bk_fail(err, BSPKIT_ERR_UNSUPPORTED, lump, -1, -1,
                       "save: the written map would be read back differently (its format detection is ambiguous%s%s); "
                       "nothing was written",
                       lump >= 0 ? ", lump " : "", lump >= 0 ? bk_lump_name(p->map, lump) : "");
    return BSPKIT_OK;
}

bspkit_result bspkit_edit_write(bspkit_edit *e, const bspkit_save_options *opts, uint8_t **out, size_t *size,
                                bspkit_error *err)
{
    bk_error_clear(err);
    if (!e || !out || !size)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_edit_write: NULL argument");
    *out = NULL;
    *size = 0;
    static const bspkit_save_options defaults;
    plan p = {.e = e, .map = e->map, .opts = opts ? opts : &defaults};
    const bspkit_format *f = &p.map->format;
    p.source = f->family == BSPKIT_FAMILY_SOURCE;
    bspkit_result r = check_options(&p, err);
    if (r != BSPKIT_OK)
        return r;
    p.src_be = f->big_endian;
    p.dst_be = p.opts->byte_order == BSPKIT_BYTE_ORDER_KEEP ? p.src_be : p.opts->byte_order == BSPKIT_BYTE_ORDER_BIG;
    p.convert = p.src_be != p.dst_be;
    p.dst_blueshift = p.opts->lump_order == BSPKIT_LUMP_ORDER_KEEP ? (f->variant & BSPKIT_VARIANT_BLUESHIFT) != 0
                                                                     : p.opts->lump_order == BSPKIT_LUMP_ORDER_BLUESHIFT;
    p.swap = (bk_swap_target){.version = f->version, .variant = f->variant};
    static const unsigned QUAKE_VARIANT[] = {0, 0, BSPKIT_VARIANT_BSP2, BSPKIT_VARIANT_2PSB};
    unsigned src_quake = f->variant & (BSPKIT_VARIANT_BSP2 | BSPKIT_VARIANT_2PSB);
    p.dst_quake = p.opts->quake_format == BSPKIT_QUAKE_FORMAT_KEEP ? src_quake : QUAKE_VARIANT[p.opts->quake_format];
    p.requake = p.dst_quake != src_quake;

    for (int i = 0; i < p.map->lump_count && r == BSPKIT_OK; i++)
        if (!(p.source && i == BSPKIT_S_GAME_LUMP))
            r = plan_lump(&p, i, err);
    if (r == BSPKIT_OK && p.source)
        r = plan_game_lump(&p, err);

    uint64_t tail_start = 0, tail_size = 0, new_tail = 0, total = 0;
    bool keep = r == BSPKIT_OK && same_layout(&p);
    if (r == BSPKIT_OK && keep) {
        for (int i = 0; i < p.map->lump_count; i++)
            p.lumps[i].offset = p.map->lumps[i].offset;
        total = p.map->size;
    } else if (r == BSPKIT_OK) {
        total = relayout(&p);
        r = bspx_tail(&p, &tail_start, &tail_size, err);
        if (tail_size) {
            new_tail = align_up(total, 4);
            total = new_tail + tail_size;
        }
        if (r == BSPKIT_OK && total > 0xFFFFFFFFu)
            r = bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "save: %llu bytes exceed the 4 GiB format limit",
                        (unsigned long long)total);
    }
    uint8_t *buf = NULL;
    if (r == BSPKIT_OK && !(buf = keep ? malloc((size_t)total) : calloc(1, (size_t)total ? (size_t)total : 1)))
        r = bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "save: out of memory for %llu bytes",
                    (unsigned long long)total);
    if (r == BSPKIT_OK) {
        if (keep)
            memcpy(buf, p.map->data, (size_t)total); /* the input is the template */
        for (int i = 0; i < p.map->lump_count; i++) {
            const out_lump *o = &p.lumps[i];
            if (o->size && (!keep || o->rewritten))
                memcpy(buf + o->offset, o->bytes, o->size);
        }
        if (p.source)
            write_source_header(&p, buf);
        else
            write_quake_header(&p, buf, keep);
        r = place_game_lump(&p, buf, err);
        if (r == BSPKIT_OK && tail_size)
            r = write_bspx(&p, buf, tail_start, new_tail, tail_size, err);
        if (r == BSPKIT_OK)
            r = verify_output(&p, buf, (size_t)total, err);
    }
    plan_free(&p);
    if (r != BSPKIT_OK) {
        free(buf);
        return r;
    }
    *out = buf;
    *size = (size_t)total;
    return BSPKIT_OK;
}

bspkit_result bspkit_edit_save(bspkit_edit *e, const char *path, const bspkit_save_options *opts,
                               bspkit_error *err)
{
    bk_error_clear(err);
    if (!e || !path || !*path)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "bspkit_edit_save: NULL edit or empty path");
    uint8_t *data;
    size_t size;
    bspkit_result r = bspkit_edit_write(e, opts, &data, &size, err);
    if (r != BSPKIT_OK)
        return r;
    r = bspkit_save_file(path, data, size, err);
    free(data);
    return r;
}
