/* Quake (BSP29, BSP2, 2PSB) and GoldSrc (BSP30) record layouts and decoders.
 * The families share every record layout except textures and lighting; BSP2
 * widens indices to 32 bits and bounds to floats, 2PSB widens indices only. */
#include "core/map.h"

/* Quake/GoldSrc files are little-endian; `be` is accepted for the common decoder signature. */

static void decode_nodes29(const uint8_t *src, size_t n, bool be, void *dst)
{
    (void)be;
    bspkit_node *o = dst;
    for (size_t i = 0; i < n; i++, src += 24) {
        o[i].plane = (int32_t)rd_le32(src);
        o[i].children[0] = (int16_t)rd_le16(src + 4);
        o[i].children[1] = (int16_t)rd_le16(src + 6);
        bk_rd_short3(src + 8, false, &o[i].mins);
        bk_rd_short3(src + 14, false, &o[i].maxs);
        o[i].first_face = rd_le16(src + 20);
        o[i].num_faces = rd_le16(src + 22);
        o[i].area = -1;
    }
}

static void decode_nodes_bsp2(const uint8_t *src, size_t n, bool be, void *dst)
{
    (void)be;
    bspkit_node *o = dst;
    for (size_t i = 0; i < n; i++, src += 44) {
        o[i].plane = (int32_t)rd_le32(src);
        o[i].children[0] = (int32_t)rd_le32(src + 4);
        o[i].children[1] = (int32_t)rd_le32(src + 8);
        bk_rd_vec3(src + 12, false, &o[i].mins);
        bk_rd_vec3(src + 24, false, &o[i].maxs);
        o[i].first_face = rd_le32(src + 36);
        o[i].num_faces = rd_le32(src + 40);
        o[i].area = -1;
    }
}

static void decode_nodes_2psb(const uint8_t *src, size_t n, bool be, void *dst)
{
    (void)be;
    bspkit_node *o = dst;
    for (size_t i = 0; i < n; i++, src += 32) {
        o[i].plane = (int32_t)rd_le32(src);
        o[i].children[0] = (int32_t)rd_le32(src + 4);
        o[i].children[1] = (int32_t)rd_le32(src + 8);
        bk_rd_short3(src + 12, false, &o[i].mins);
        bk_rd_short3(src + 18, false, &o[i].maxs);
        o[i].first_face = rd_le32(src + 24);
        o[i].num_faces = rd_le32(src + 28);
        o[i].area = -1;
    }
}

static void decode_texinfo(const uint8_t *src, size_t n, bool be, void *dst)
{
    (void)be;
    bspkit_texinfo *o = dst;
    for (size_t i = 0; i < n; i++, src += 40) {
        for (int a = 0; a < 2; a++)
            for (int k = 0; k < 4; k++)
                o[i].texture_vecs[a][k] = bits_to_float(rd_le32(src + 16 * a + 4 * k));
        o[i].texture = (int32_t)rd_le32(src + 32);
        o[i].flags = (int32_t)rd_le32(src + 36);
    }
}

static void face_defaults(bspkit_face *f)
{
    f->dispinfo = -1;
    f->fog_volume = -1;
    f->orig_face = -1;
}

static void decode_faces29(const uint8_t *src, size_t n, bool be, void *dst)
{
    (void)be;
    bspkit_face *o = dst;
    for (size_t i = 0; i < n; i++, src += 20) {
        face_defaults(&o[i]);
        o[i].plane = rd_le16(src);
        o[i].side = rd_le16(src + 2) != 0;
        o[i].first_edge = (int32_t)rd_le32(src + 4);
        o[i].num_edges = rd_le16(src + 8);
        o[i].texinfo = rd_le16(src + 10);
        memcpy(o[i].styles, src + 12, 4);
        o[i].light_offset = (int32_t)rd_le32(src + 16);
    }
}

static void decode_faces_bsp2(const uint8_t *src, size_t n, bool be, void *dst)
{
    (void)be;
    bspkit_face *o = dst;
    for (size_t i = 0; i < n; i++, src += 28) {
        face_defaults(&o[i]);
        o[i].plane = rd_le32(src);
        o[i].side = rd_le32(src + 4) != 0;
        o[i].first_edge = (int32_t)rd_le32(src + 8);
        o[i].num_edges = (int32_t)rd_le32(src + 12);
        o[i].texinfo = (int32_t)rd_le32(src + 16);
        memcpy(o[i].styles, src + 20, 4);
        o[i].light_offset = (int32_t)rd_le32(src + 24);
    }
}

static void decode_clipnodes29(const uint8_t *src, size_t n, bool be, void *dst)
{
    (void)be;
    bspkit_clipnode *o = dst;
    for (size_t i = 0; i < n; i++, src += 8) {
        o[i].plane = (int32_t)rd_le32(src);
        o[i].children[0] = (int16_t)rd_le16(src + 4);
        o[i].children[1] = (int16_t)rd_le16(src + 6);
    }
}

static void decode_clipnodes_bsp2(const uint8_t *src, size_t n, bool be, void *dst)
{
    (void)be;
    bspkit_clipnode *o = dst;
    for (size_t i = 0; i < n; i++, src += 12) {
        o[i].plane = (int32_t)rd_le32(src);
        o[i].children[0] = (int32_t)rd_le32(src + 4);
        o[i].children[1] = (int32_t)rd_le32(src + 8);
    }
}

static void leaf_defaults(bspkit_leaf *l)
{
    l->cluster = -1;
    l->leaf_water = -1;
}

static void decode_leafs29(const uint8_t *src, size_t n, bool be, void *dst)
{
    (void)be;
    bspkit_leaf *o = dst;
    for (size_t i = 0; i < n; i++, src += 28) {
        leaf_defaults(&o[i]);
        o[i].contents = (int32_t)rd_le32(src);
        o[i].vis_offset = (int32_t)rd_le32(src + 4);
        bk_rd_short3(src + 8, false, &o[i].mins);
        bk_rd_short3(src + 14, false, &o[i].maxs);
        o[i].first_leaf_face = rd_le16(src + 20);
        o[i].num_leaf_faces = rd_le16(src + 22);
        memcpy(o[i].ambient_sound, src + 24, 4);
    }
}

static void decode_leafs_bsp2(const uint8_t *src, size_t n, bool be, void *dst)
{
    (void)be;
    bspkit_leaf *o = dst;
    for (size_t i = 0; i < n; i++, src += 44) {
        leaf_defaults(&o[i]);
        o[i].contents = (int32_t)rd_le32(src);
        o[i].vis_offset = (int32_t)rd_le32(src + 4);
        bk_rd_vec3(src + 8, false, &o[i].mins);
        bk_rd_vec3(src + 20, false, &o[i].maxs);
        o[i].first_leaf_face = rd_le32(src + 32);
        o[i].num_leaf_faces = rd_le32(src + 36);
        memcpy(o[i].ambient_sound, src + 40, 4);
    }
}

static void decode_leafs_2psb(const uint8_t *src, size_t n, bool be, void *dst)
{
    (void)be;
    bspkit_leaf *o = dst;
    for (size_t i = 0; i < n; i++, src += 32) {
        leaf_defaults(&o[i]);
        o[i].contents = (int32_t)rd_le32(src);
        o[i].vis_offset = (int32_t)rd_le32(src + 4);
        bk_rd_short3(src + 8, false, &o[i].mins);
        bk_rd_short3(src + 14, false, &o[i].maxs);
        o[i].first_leaf_face = rd_le32(src + 20);
        o[i].num_leaf_faces = rd_le32(src + 24);
        memcpy(o[i].ambient_sound, src + 28, 4);
    }
}

static void decode_edges29(const uint8_t *src, size_t n, bool be, void *dst)
{
    (void)be;
    bspkit_edge *o = dst;
    for (size_t i = 0; i < n; i++, src += 4) {
        o[i].v[0] = rd_le16(src);
        o[i].v[1] = rd_le16(src + 2);
    }
}

static void decode_edges_bsp2(const uint8_t *src, size_t n, bool be, void *dst)
{
    (void)be;
    bspkit_edge *o = dst;
    for (size_t i = 0; i < n; i++, src += 8) {
        o[i].v[0] = rd_le32(src);
        o[i].v[1] = rd_le32(src + 4);
    }
}

static void decode_models(const uint8_t *src, size_t n, bool be, void *dst)
{
    (void)be;
    bspkit_model *o = dst;
    for (size_t i = 0; i < n; i++, src += 64) {
        bk_rd_vec3(src, false, &o[i].mins);
        bk_rd_vec3(src + 12, false, &o[i].maxs);
        bk_rd_vec3(src + 24, false, &o[i].origin);
        for (int h = 0; h < 4; h++)
            o[i].headnode[h] = (int32_t)rd_le32(src + 36 + 4 * h);
        o[i].vis_leafs = (int32_t)rd_le32(src + 52);
        o[i].first_face = (int32_t)rd_le32(src + 56);
        o[i].num_faces = (int32_t)rd_le32(src + 60);
    }
}

#define LAYOUT(size, type, fn, dec) ((bk_layout){(size), sizeof(type), (fn), (dec)})

bk_layout bk_quake_layout(const bspkit_map *map, int lump)
{
    bool bsp2 = map->format.variant & BSPKIT_VARIANT_BSP2;
    bool rmq = map->format.variant & BSPKIT_VARIANT_2PSB;
    bool wide = bsp2 || rmq;
    switch (lump) {
    case BSPKIT_Q_PLANES: return LAYOUT(20, bspkit_plane, bk_decode_planes, DEC_PLANES);
    case BSPKIT_Q_VERTEXES: return LAYOUT(12, bspkit_vec3, bk_decode_vertexes, DEC_VERTEXES);
    case BSPKIT_Q_NODES:
        return bsp2 ? LAYOUT(44, bspkit_node, decode_nodes_bsp2, DEC_NODES)
             : rmq  ? LAYOUT(32, bspkit_node, decode_nodes_2psb, DEC_NODES)
                    : LAYOUT(24, bspkit_node, decode_nodes29, DEC_NODES);
    case BSPKIT_Q_TEXINFO: return LAYOUT(40, bspkit_texinfo, decode_texinfo, DEC_TEXINFO);
    case BSPKIT_Q_FACES:
        return wide ? LAYOUT(28, bspkit_face, decode_faces_bsp2, DEC_FACES)
                    : LAYOUT(20, bspkit_face, decode_faces29, DEC_FACES);
    case BSPKIT_Q_CLIPNODES:
        return wide ? LAYOUT(12, bspkit_clipnode, decode_clipnodes_bsp2, DEC_CLIPNODES)
                    : LAYOUT(8, bspkit_clipnode, decode_clipnodes29, DEC_CLIPNODES);
    case BSPKIT_Q_LEAFS:
        return bsp2 ? LAYOUT(44, bspkit_leaf, decode_leafs_bsp2, DEC_LEAFS)
             : rmq  ? LAYOUT(32, bspkit_leaf, decode_leafs_2psb, DEC_LEAFS)
                    : LAYOUT(28, bspkit_leaf, decode_leafs29, DEC_LEAFS);
    case BSPKIT_Q_MARKSURFACES:
        return wide ? LAYOUT(4, uint32_t, bk_decode_u32, DEC_LEAF_FACES)
                    : LAYOUT(2, uint32_t, bk_decode_u16_as_u32, DEC_LEAF_FACES);
    case BSPKIT_Q_EDGES:
        return wide ? LAYOUT(8, bspkit_edge, decode_edges_bsp2, DEC_EDGES)
                    : LAYOUT(4, bspkit_edge, decode_edges29, DEC_EDGES);
    case BSPKIT_Q_SURFEDGES: return LAYOUT(4, int32_t, bk_decode_i32, DEC_SURFEDGES);
    case BSPKIT_Q_MODELS: return LAYOUT(64, bspkit_model, decode_models, DEC_MODELS);
    default: return (bk_layout){0, 0, NULL, -1};
    }
}
