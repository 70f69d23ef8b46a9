/* Source lump layouts: the record arrays the core reader decodes come from
 * their schemas (records.c); the sizes of the other record lumps, decoded
 * elsewhere or later, are still checked at open. */
#include "core/map.h"
#include "source/records.h"

/* The decoded-array slot of each lump with a schema. */
static int decoded_slot(int lump)
{
    switch (lump) {
    case BSPKIT_S_PLANES: return DEC_PLANES;
    case BSPKIT_S_TEXDATA: return DEC_TEXDATA;
    case BSPKIT_S_VERTEXES: return DEC_VERTEXES;
    case BSPKIT_S_NODES: return DEC_NODES;
    case BSPKIT_S_TEXINFO: return DEC_TEXINFO;
    case BSPKIT_S_FACES: return DEC_FACES;
    case BSPKIT_S_ORIGINALFACES: return DEC_ORIG_FACES;
    case BSPKIT_S_FACES_HDR: return DEC_HDR_FACES;
    case BSPKIT_S_LEAFS: return DEC_LEAFS;
    case BSPKIT_S_EDGES: return DEC_EDGES;
    case BSPKIT_S_SURFEDGES: return DEC_SURFEDGES;
    case BSPKIT_S_MODELS: return DEC_MODELS;
    case BSPKIT_S_LEAFFACES: return DEC_LEAF_FACES;
    case BSPKIT_S_LEAFBRUSHES: return DEC_LEAF_BRUSHES;
    case BSPKIT_S_BRUSHES: return DEC_BRUSHES;
    case BSPKIT_S_BRUSHSIDES: return DEC_BRUSHSIDES;
    case BSPKIT_S_AREAS: return DEC_AREAS;
    case BSPKIT_S_AREAPORTALS: return DEC_AREAPORTALS;
    case BSPKIT_S_CUBEMAPS: return DEC_CUBEMAPS;
    case BSPKIT_S_TEXDATA_STRING_TABLE: return DEC_STRING_TABLE;
    default: return -1;
    }
}

#define RECORDS(size) ((bk_layout){(size), 0, NULL, -1, NULL})
#define NOT_ARRAY ((bk_layout){0, 0, NULL, -1, NULL})

bk_layout bk_source_layout(const bspkit_map *map, int lump)
{
    int32_t v = map->lumps[lump].version;
    const bk_schema *s = bk_source_schema(map->format.version, map->format.variant, lump, v);
    if (s)
        return (bk_layout){s->record_size, s->native_size, s->decode, decoded_slot(lump), s};
    bool wide = (map->format.variant & BSPKIT_VARIANT_WIDE_LUMPS) && v >= 1;
    switch (lump) {
    /* Record arrays decoded elsewhere or later; their sizes are still checked at open. */
    case BSPKIT_S_DISPINFO: return wide ? RECORDS(232) : RECORDS(176);
    case BSPKIT_S_DISP_VERTS: return RECORDS(20);
    case BSPKIT_S_DISP_TRIS: return RECORDS(2);
    case BSPKIT_S_VERTNORMALS: return RECORDS(12);
    case BSPKIT_S_VERTNORMALINDICES: return wide ? RECORDS(4) : RECORDS(2);
    case BSPKIT_S_CLIPPORTALVERTS: return RECORDS(12);
    case BSPKIT_S_PRIMVERTS: return RECORDS(12);
    case BSPKIT_S_PRIMINDICES: return wide ? RECORDS(4) : RECORDS(2);
    case BSPKIT_S_WORLDLIGHTS:
    case BSPKIT_S_WORLDLIGHTS_HDR: return v == 0 ? RECORDS(88) : v == 1 ? RECORDS(100) : NOT_ARRAY;
    case BSPKIT_S_LEAF_AMBIENT_INDEX:
    case BSPKIT_S_LEAF_AMBIENT_INDEX_HDR: return wide ? RECORDS(8) : RECORDS(4);
    case BSPKIT_S_LEAF_AMBIENT_LIGHTING:
    case BSPKIT_S_LEAF_AMBIENT_LIGHTING_HDR:
        /* Only version 1 is the 28-byte dleafambientlighting_t; some compilers wrote other data here. */
        return v == 1 ? RECORDS(28) : NOT_ARRAY;
    default: return NOT_ARRAY;
    }
}
