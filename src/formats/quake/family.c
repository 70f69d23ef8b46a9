/* The Quake/GoldSrc family: Quake BSP29, BSP2 and 2PSB, GoldSrc BSP30
 * (including Blue Shift's swapped directory and early version-29 Half-Life
 * maps): detection, the lump directory, lump names and record layouts. */
#include "bspkit/lighting.h"
#include "core/family.h"
#include "formats/quake/family.h"
#include "formats/quake/records.h"

#include <stdio.h>
#include <string.h>

#define Q_HEADER_SIZE (4 + 15 * 8)

static const char *const Q_NAMES[BSPKIT_Q_LUMP_COUNT] = {
    "ENTITIES", "PLANES", "TEXTURES", "VERTEXES", "VISIBILITY", "NODES", "TEXINFO", "FACES",
    "LIGHTING", "CLIPNODES", "LEAFS", "MARKSURFACES", "EDGES", "SURFEDGES", "MODELS"};
static const char *const Q_KEYS[BSPKIT_Q_LUMP_COUNT] = {
    NULL, "planes", NULL, "vertexes", NULL, "nodes", "texinfo", "faces",
    NULL, "clipnodes", "leafs", "marksurfaces", "edges", "surfedges", "models"};

static bool reads(bspkit_family family)
{
    return family == BSPKIT_FAMILY_QUAKE || family == BSPKIT_FAMILY_GOLDSRC;
}

static bool claims(const uint8_t *d, size_t size)
{
    (void)size;
    return memcmp(d, "BSP2", 4) == 0 || memcmp(d, "2PSB", 4) == 0 || rd_le32(d) == 29 || rd_le32(d) == 30;
}

/* Does the byte range look like entity text (first non-blank byte '{')? */
static bool looks_like_entities(const uint8_t *d, size_t size, uint32_t ofs, uint32_t len)
{
    if (!range_ok(ofs, len, size) || len == 0)
        return false;
    for (uint32_t i = 0; i < len && i < 256; i++) {
        uint8_t c = d[ofs + i];
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
            continue;
        return c == '{';
    }
    return false;
}

/*
 * Version-29 files are either Quake maps or early Half-Life maps with GoldSrc
 * lumps. The number does not tell; the content does: an embedded GoldSrc
 * miptex carries a 256-entry palette after its mips, and GoldSrc lighting is
 * RGB, so every lightmap offset is a multiple of three.
 */
static bool v29_has_goldsrc_lumps(const uint8_t *d, size_t size)
{
    uint32_t tofs = rd_le32(d + 4 + 8 * BSPKIT_Q_TEXTURES), tlen = rd_le32(d + 8 + 8 * BSPKIT_Q_TEXTURES);
    if (range_ok(tofs, tlen, size) && tlen >= 4) {
        const uint8_t *t = d + tofs;
        uint32_t n = rd_le32(t);
        for (uint32_t i = 0; i < n && (uint64_t)4 + 4 * (uint64_t)i + 4 <= tlen && i < 4096; i++) {
            int32_t mo = (int32_t)rd_le32(t + 4 + 4 * i);
            if (mo < 0 || !range_ok((uint32_t)mo, 40, tlen))
                continue;
            const uint8_t *m = t + mo;
            uint32_t w = rd_le32(m + 16), h = rd_le32(m + 20), o3 = rd_le32(m + 36);
            if (rd_le32(m + 24) == 0 || w == 0 || h == 0 || w > 4096 || h > 4096)
                continue;
            uint64_t pal = (uint64_t)(uint32_t)mo + o3 + (uint64_t)(w / 8) * (h / 8);
            if (pal + 2 <= tlen)
                return rd_le16(t + pal) == 256;
            return false;
        }
    }
    uint32_t lofs = rd_le32(d + 4 + 8 * BSPKIT_Q_FACES), llen = rd_le32(d + 8 + 8 * BSPKIT_Q_FACES);
    uint32_t light_len = rd_le32(d + 8 + 8 * BSPKIT_Q_LIGHTING);
    if (!range_ok(lofs, llen, size) || light_len == 0 || light_len % 3)
        return false;
    unsigned lit = 0;
    for (uint32_t f = 0; f + 20 <= llen; f += 20) {
        int32_t o = (int32_t)rd_le32(d + lofs + f + 16);
        if (o < 0)
            continue;
        if (o % 3)
            return false;
        lit++;
    }
    return lit >= 3;
}

/* The format's name, a constant: formatting it cost a good part of
 * opening a small map. */
static void set_name(bspkit_format *f, const char *name)
{
    size_t n = strlen(name);
    if (n >= sizeof f->name)
        n = sizeof f->name - 1;
    memcpy(f->name, name, n);
    f->name[n] = '\0';
}

static bspkit_result detect(const uint8_t *d, size_t size, bspkit_format *f, bspkit_error *err)
{
    if (size < Q_HEADER_SIZE)
        return bk_fail(err, BSPKIT_ERR_TRUNCATED, -1, (int64_t)size, -1,
                       "truncated: %zu bytes, but a Quake/GoldSrc header needs %d", size, Q_HEADER_SIZE);
    f->lump_count = BSPKIT_Q_LUMP_COUNT;
    if (memcmp(d, "BSP2", 4) == 0 || memcmp(d, "2PSB", 4) == 0) {
        f->family = BSPKIT_FAMILY_QUAKE;
        f->version = 29;
        f->variant |= d[0] == 'B' ? BSPKIT_VARIANT_BSP2 : BSPKIT_VARIANT_2PSB;
        set_name(f, d[0] == 'B' ? "Quake BSP2" : "Quake 2PSB");
    } else {
        f->version = (int32_t)rd_le32(d);
        if (f->version == 30) {
            f->family = BSPKIT_FAMILY_GOLDSRC;
            /* Blue Shift stores PLANES in slot 0 and ENTITIES in slot 1. */
            uint32_t o0 = rd_le32(d + 4), l0 = rd_le32(d + 8), o1 = rd_le32(d + 12), l1 = rd_le32(d + 16);
            if (!looks_like_entities(d, size, o0, l0) && looks_like_entities(d, size, o1, l1) && l0 % 20 == 0)
                f->variant |= BSPKIT_VARIANT_BLUESHIFT;
            set_name(f, f->variant & BSPKIT_VARIANT_BLUESHIFT ? "GoldSrc BSP30 (Blue Shift)" : "GoldSrc BSP30");
        } else {
            f->family = v29_has_goldsrc_lumps(d, size) ? BSPKIT_FAMILY_GOLDSRC : BSPKIT_FAMILY_QUAKE;
            set_name(f, f->family == BSPKIT_FAMILY_GOLDSRC ? "GoldSrc (version 29) BSP29" : "Quake BSP29");
        }
    }
    /* BSPX: an extension directory after the last lump, 4-byte aligned. */
    if (bk_bspx_offset(d, size))
        f->variant |= BSPKIT_VARIANT_BSPX;
    return BSPKIT_OK;
}

static void read_directory(bspkit_map *map)
{
    bool blueshift = map->format.variant & BSPKIT_VARIANT_BLUESHIFT;
    for (int i = 0; i < BSPKIT_Q_LUMP_COUNT; i++) {
        int slot = blueshift && i < 2 ? 1 - i : i;
        map->lumps[i].offset = rd_le32(map->data + 4 + 8 * slot);
        map->lumps[i].length = rd_le32(map->data + 8 + 8 * slot);
    }
}

static const char *lump_name(const bspkit_map *map, int lump)
{
    (void)map;
    return Q_NAMES[lump];
}

static const char *lump_key(const bspkit_map *map, int lump)
{
    (void)map;
    return Q_KEYS[lump];
}

/* The variant (BSP29/BSP30, BSP2, 2PSB) picks one of the schemas in records.c. */
bk_layout bk_quake_variant_layout(unsigned variant, int lump)
{
    bool bsp2 = variant & BSPKIT_VARIANT_BSP2;
    bool rmq = variant & BSPKIT_VARIANT_2PSB;
    bool wide = bsp2 || rmq;
    switch (lump) {
    case BSPKIT_Q_PLANES: return bk_schema_layout(&bk_plane_schema, BK_REC_PLANES);
    case BSPKIT_Q_VERTEXES: return bk_schema_layout(&bk_vertex_schema, BK_REC_VERTEXES);
    case BSPKIT_Q_NODES:
        return bk_schema_layout(bsp2 ? &bk_quake_node_bsp2 : rmq ? &bk_quake_node_2psb : &bk_quake_node29, BK_REC_NODES);
    case BSPKIT_Q_TEXINFO: return bk_schema_layout(&bk_quake_texinfo, BK_REC_TEXINFO);
    case BSPKIT_Q_FACES: return bk_schema_layout(wide ? &bk_quake_face_bsp2 : &bk_quake_face29, BK_REC_FACES);
    case BSPKIT_Q_CLIPNODES:
        return bk_schema_layout(wide ? &bk_quake_clipnode_bsp2 : &bk_quake_clipnode29, BK_REC_CLIPNODES);
    case BSPKIT_Q_LEAFS:
        return bk_schema_layout(bsp2 ? &bk_quake_leaf_bsp2 : rmq ? &bk_quake_leaf_2psb : &bk_quake_leaf29, BK_REC_LEAFS);
    case BSPKIT_Q_MARKSURFACES:
        return bk_schema_layout(wide ? &bk_quake_marksurface_bsp2 : &bk_quake_marksurface29, BK_REC_LEAF_FACES);
    case BSPKIT_Q_EDGES: return bk_schema_layout(wide ? &bk_edge32_schema : &bk_edge16_schema, BK_REC_EDGES);
    case BSPKIT_Q_SURFEDGES: return bk_schema_layout(&bk_surfedge_schema, BK_REC_SURFEDGES);
    case BSPKIT_Q_MODELS: return bk_schema_layout(&bk_quake_model, BK_REC_MODELS);
    default: return (bk_layout){0, 0, NULL, -1, NULL};
    }
}

static bk_layout layout(const bspkit_map *map, int lump) { return bk_quake_variant_layout(map->format.variant, lump); }

/* Quake and GoldSrc maps have one LDR lighting lump and no pakfile. */
static int lump_for(const bspkit_map *map, bk_lump_role role)
{
    (void)map;
    return role == BK_ROLE_LIGHTING ? BSPKIT_Q_LIGHTING : role == BK_ROLE_VISIBILITY ? BSPKIT_Q_VISIBILITY : -1;
}

/* Per-leaf visibility; GoldSrc lighting is RGB, Quake's one byte a luxel. */
static unsigned traits(const bspkit_map *map)
{
    return map->format.family == BSPKIT_FAMILY_GOLDSRC ? BK_TRAIT_RGB_LIGHTMAPS : 0;
}

const bk_family_ops bk_quake_family = {
    reads, claims, detect, read_directory, bk_never_compressed, lump_name, lump_key, layout, lump_for,
    bk_quake_dump_tables, bk_quake_dump_named, bk_quake_raw_note, traits, BSPKIT_TEX_SPECIAL, 4, NULL, NULL,
};
