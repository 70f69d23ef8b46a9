/* Which record layout each Quake/GoldSrc lump uses in a given map: the
 * variant (BSP29/BSP30, BSP2, 2PSB) picks one of the schemas in records.c. */
#include "core/map.h"
#include "goldsrc/records.h"

static bk_layout schema_layout(const bk_schema *s, bk_decoded dec)
{
    return (bk_layout){s->record_size, s->native_size, s->decode, (int)dec, s};
}

bk_layout bk_quake_layout(const bspkit_map *map, int lump)
{
    bool bsp2 = map->format.variant & BSPKIT_VARIANT_BSP2;
    bool rmq = map->format.variant & BSPKIT_VARIANT_2PSB;
    bool wide = bsp2 || rmq;
    switch (lump) {
    case BSPKIT_Q_PLANES: return schema_layout(&bk_plane_schema, DEC_PLANES);
    case BSPKIT_Q_VERTEXES: return schema_layout(&bk_vertex_schema, DEC_VERTEXES);
    case BSPKIT_Q_NODES:
        return schema_layout(bsp2 ? &bk_quake_node_bsp2 : rmq ? &bk_quake_node_2psb : &bk_quake_node29, DEC_NODES);
    case BSPKIT_Q_TEXINFO: return schema_layout(&bk_quake_texinfo, DEC_TEXINFO);
    case BSPKIT_Q_FACES: return schema_layout(wide ? &bk_quake_face_bsp2 : &bk_quake_face29, DEC_FACES);
    case BSPKIT_Q_CLIPNODES:
        return schema_layout(wide ? &bk_quake_clipnode_bsp2 : &bk_quake_clipnode29, DEC_CLIPNODES);
    case BSPKIT_Q_LEAFS:
        return schema_layout(bsp2 ? &bk_quake_leaf_bsp2 : rmq ? &bk_quake_leaf_2psb : &bk_quake_leaf29, DEC_LEAFS);
    case BSPKIT_Q_MARKSURFACES:
        return schema_layout(wide ? &bk_quake_marksurface_bsp2 : &bk_quake_marksurface29, DEC_LEAF_FACES);
    case BSPKIT_Q_EDGES: return schema_layout(wide ? &bk_edge32_schema : &bk_edge16_schema, DEC_EDGES);
    case BSPKIT_Q_SURFEDGES: return schema_layout(&bk_surfedge_schema, DEC_SURFEDGES);
    case BSPKIT_Q_MODELS: return schema_layout(&bk_quake_model, DEC_MODELS);
    default: return (bk_layout){0, 0, NULL, -1, NULL};
    }
}
