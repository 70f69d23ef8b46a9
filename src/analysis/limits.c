/* Engine limits per family, reported as vbspinfo-style usage rows.
 *
 * Source rows, names and maxima follow the table Valve's vbspinfo prints
 * (Source SDK 2013; Strata Source for v25 wide-lump maps). Its "Memory"
 * column is count * sizeof the engine's native struct, which is not always
 * the on-disk record size (leaf version 0 is 56 bytes on disk, 32 in
 * memory), so each row carries its own element size. GoldSrc and Quake rows
 * follow the compilers' bspfile.h limits; their memory is the on-disk size.
 *
 * Counts come from the lump directory only (read in place: validation asks
 * for every row of every map), so this stays cheap: the one
 * exception is the entity count, from the cached parse or, when validation
 * read plain entity text without making the list, from that reading. */
#include "bspkit/bspkit.h"
#include "core/map.h"

#include <stddef.h>
#include <stdint.h>

/* How a row's count and bytes are measured. */
typedef enum row_kind {
    ROW_RECORDS,  /* count = records in the lump, bytes = count * elem */
    ROW_BYTES,    /* "[variable]": bytes = lump length, count = 0 */
    ROW_MIPTEX,   /* count = miptex directory entries (first int32 of TEXTURES) */
    ROW_ENTITIES  /* count = parsed entities */
} row_kind;

typedef struct limit_row {
    const char *name;
    int lump;
    row_kind kind;
    uint32_t elem;      /* bytes per object; 0 = the map's on-disk record size */
    uint64_t max_count; /* 0 = no fixed limit */
    uint64_t max_bytes; /* for ROW_BYTES; records derive it from max_count * elem */
} limit_row;

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static const limit_row source_rows[] = {
    {"models", BSPKIT_S_MODELS, ROW_RECORDS, 48, 1024, 0},
    {"brushes", BSPKIT_S_BRUSHES, ROW_RECORDS, 12, 8192, 0},
    {"brushsides", BSPKIT_S_BRUSHSIDES, ROW_RECORDS, 8, 65536, 0},
    {"planes", BSPKIT_S_PLANES, ROW_RECORDS, 20, 65536, 0},
    {"vertexes", BSPKIT_S_VERTEXES, ROW_RECORDS, 12, 65536, 0},
    {"nodes", BSPKIT_S_NODES, ROW_RECORDS, 32, 65536, 0},
    {"texinfos", BSPKIT_S_TEXINFO, ROW_RECORDS, 72, 12288, 0},
    {"texdata", BSPKIT_S_TEXDATA, ROW_RECORDS, 32, 2048, 0},
    {"dispinfos", BSPKIT_S_DISPINFO, ROW_RECORDS, 176, 0, 0},
    {"disp_verts", BSPKIT_S_DISP_VERTS, ROW_RECORDS, 20, 0, 0},
    {"disp_tris", BSPKIT_S_DISP_TRIS, ROW_RECORDS, 2, 0, 0},
    {"disp_lmsamples", BSPKIT_S_DISP_LIGHTMAP_SAMPLE_POSITIONS, ROW_RECORDS, 1, 0, 0},
    {"faces", BSPKIT_S_FACES, ROW_RECORDS, 56, 65536, 0},
    {"hdr faces", BSPKIT_S_FACES_HDR, ROW_RECORDS, 56, 65536, 0},
    {"origfaces", BSPKIT_S_ORIGINALFACES, ROW_RECORDS, 56, 65536, 0},
    {"leaves", BSPKIT_S_LEAFS, ROW_RECORDS, 32, 65536, 0},
    {"leaffaces", BSPKIT_S_LEAFFACES, ROW_RECORDS, 2, 65536, 0},
    {"leafbrushes", BSPKIT_S_LEAFBRUSHES, ROW_RECORDS, 2, 65536, 0},
    {"areas", BSPKIT_S_AREAS, ROW_RECORDS, 8, 256, 0},
    {"surfedges", BSPKIT_S_SURFEDGES, ROW_RECORDS, 4, 512000, 0},
    {"edges", BSPKIT_S_EDGES, ROW_RECORDS, 4, 256000, 0},
    {"LDR worldlights", BSPKIT_S_WORLDLIGHTS, ROW_RECORDS, 88, 8192, 0},
    {"HDR worldlights", BSPKIT_S_WORLDLIGHTS_HDR, ROW_RECORDS, 88, 8192, 0},
    {"leafwaterdata", BSPKIT_S_LEAFWATERDATA, ROW_RECORDS, 12, 32768, 0},
    {"waterstrips", BSPKIT_S_PRIMITIVES, ROW_RECORDS, 10, 32768, 0},
    {"waterverts", BSPKIT_S_PRIMVERTS, ROW_RECORDS, 12, 65536, 0},
    {"waterindices", BSPKIT_S_PRIMINDICES, ROW_RECORDS, 2, 65536, 0},
    {"cubemapsamples", BSPKIT_S_CUBEMAPS, ROW_RECORDS, 16, 1024, 0},
    {"overlays", BSPKIT_S_OVERLAYS, ROW_RECORDS, 352, 512, 0},
    {"LDR lightdata", BSPKIT_S_LIGHTING, ROW_BYTES, 1, 0, 0},
    {"HDR lightdata", BSPKIT_S_LIGHTING_HDR, ROW_BYTES, 1, 0, 0},
    {"visdata", BSPKIT_S_VISIBILITY, ROW_BYTES, 1, 0, 16777216},
    {"entdata", BSPKIT_S_ENTITIES, ROW_BYTES, 1, 0, 393216},
    {"LDR ambient table", BSPKIT_S_LEAF_AMBIENT_INDEX, ROW_RECORDS, 4, 65536, 0},
    {"HDR ambient table", BSPKIT_S_LEAF_AMBIENT_INDEX_HDR, ROW_RECORDS, 4, 65536, 0},
    {"LDR leaf ambient", BSPKIT_S_LEAF_AMBIENT_LIGHTING, ROW_RECORDS, 28, 65536, 0},
    {"HDR leaf ambient", BSPKIT_S_LEAF_AMBIENT_LIGHTING_HDR, ROW_RECORDS, 28, 65536, 0},
    {"pakfile", BSPKIT_S_PAKFILE, ROW_BYTES, 1, 0, 0},
    {"physics", BSPKIT_S_PHYSCOLLIDE, ROW_BYTES, 1, 0, 4194304},
    {"physics terrain", BSPKIT_S_PHYSDISP, ROW_BYTES, 1, 0, 1048576},
};

/* Strata Source (v25): wider structs and raised limits; texinfo is unbounded. */
static const limit_row strata_rows[] = {
    {"models", BSPKIT_S_MODELS, ROW_RECORDS, 48, 65536, 0},
    {"brushes", BSPKIT_S_BRUSHES, ROW_RECORDS, 12, 131072, 0},
    {"brushsides", BSPKIT_S_BRUSHSIDES, ROW_RECORDS, 16, 1310720, 0},
    {"planes", BSPKIT_S_PLANES, ROW_RECORDS, 20, 1048576, 0},
    {"vertexes", BSPKIT_S_VERTEXES, ROW_RECORDS, 12, 1048576, 0},
    {"nodes", BSPKIT_S_NODES, ROW_RECORDS, 48, 1048576, 0},
    {"texinfos", BSPKIT_S_TEXINFO, ROW_RECORDS, 72, 0, 0},
    {"texdata", BSPKIT_S_TEXDATA, ROW_RECORDS, 32, 16384, 0},
    {"dispinfos", BSPKIT_S_DISPINFO, ROW_RECORDS, 232, 262144, 0},
    {"disp_verts", BSPKIT_S_DISP_VERTS, ROW_RECORDS, 20, 0, 0},
    {"disp_tris", BSPKIT_S_DISP_TRIS, ROW_RECORDS, 2, 0, 0},
    {"disp_lmsamples", BSPKIT_S_DISP_LIGHTMAP_SAMPLE_POSITIONS, ROW_RECORDS, 1, 0, 0},
    {"faces", BSPKIT_S_FACES, ROW_RECORDS, 72, 1048576, 0},
    {"hdr faces", BSPKIT_S_FACES_HDR, ROW_RECORDS, 72, 1048576, 0},
    {"origfaces", BSPKIT_S_ORIGINALFACES, ROW_RECORDS, 72, 1048576, 0},
    {"leaves", BSPKIT_S_LEAFS, ROW_RECORDS, 56, 1048576, 0},
    {"leaffaces", BSPKIT_S_LEAFFACES, ROW_RECORDS, 4, 1048576, 0},
    {"leafbrushes", BSPKIT_S_LEAFBRUSHES, ROW_RECORDS, 4, 1048576, 0},
    {"areas", BSPKIT_S_AREAS, ROW_RECORDS, 8, 65536, 0},
    {"surfedges", BSPKIT_S_SURFEDGES, ROW_RECORDS, 4, 2097152, 0},
    {"edges", BSPKIT_S_EDGES, ROW_RECORDS, 8, 1048576, 0},
    {"LDR worldlights", BSPKIT_S_WORLDLIGHTS, ROW_RECORDS, 100, 0, 0},
    {"HDR worldlights", BSPKIT_S_WORLDLIGHTS_HDR, ROW_RECORDS, 100, 0, 0},
    {"leafwaterdata", BSPKIT_S_LEAFWATERDATA, ROW_RECORDS, 12, 32768, 0},
    {"waterstrips", BSPKIT_S_PRIMITIVES, ROW_RECORDS, 20, 1048576, 0},
    {"waterverts", BSPKIT_S_PRIMVERTS, ROW_RECORDS, 12, 1048576, 0},
    {"waterindices", BSPKIT_S_PRIMINDICES, ROW_RECORDS, 4, 1048576, 0},
    {"cubemapsamples", BSPKIT_S_CUBEMAPS, ROW_RECORDS, 16, 16384, 0},
    {"overlays", BSPKIT_S_OVERLAYS, ROW_RECORDS, 356, 16384, 0},
    {"LDR lightdata", BSPKIT_S_LIGHTING, ROW_BYTES, 1, 0, 0},
    {"HDR lightdata", BSPKIT_S_LIGHTING_HDR, ROW_BYTES, 1, 0, 0},
    {"visdata", BSPKIT_S_VISIBILITY, ROW_BYTES, 1, 0, 16777216},
    {"entdata", BSPKIT_S_ENTITIES, ROW_BYTES, 1, 0, 393216},
    {"LDR ambient table", BSPKIT_S_LEAF_AMBIENT_INDEX, ROW_RECORDS, 8, 1048576, 0},
    {"HDR ambient table", BSPKIT_S_LEAF_AMBIENT_INDEX_HDR, ROW_RECORDS, 8, 1048576, 0},
    {"LDR leaf ambient", BSPKIT_S_LEAF_AMBIENT_LIGHTING, ROW_RECORDS, 28, 1048576, 0},
    {"HDR leaf ambient", BSPKIT_S_LEAF_AMBIENT_LIGHTING_HDR, ROW_RECORDS, 28, 1048576, 0},
    {"pakfile", BSPKIT_S_PAKFILE, ROW_BYTES, 1, 0, 0},
    {"physics", BSPKIT_S_PHYSCOLLIDE, ROW_BYTES, 1, 0, 4194304},
    {"physics terrain", BSPKIT_S_PHYSDISP, ROW_BYTES, 1, 0, 1048576},
};

/* Half-Life SDK / ZHLT bspfile.h. */
static const limit_row goldsrc_rows[] = {
    {"models", BSPKIT_Q_MODELS, ROW_RECORDS, 0, 400, 0},
    {"planes", BSPKIT_Q_PLANES, ROW_RECORDS, 0, 32767, 0},
    {"vertexes", BSPKIT_Q_VERTEXES, ROW_RECORDS, 0, 65535, 0},
    {"nodes", BSPKIT_Q_NODES, ROW_RECORDS, 0, 32767, 0},
    {"texinfos", BSPKIT_Q_TEXINFO, ROW_RECORDS, 0, 8192, 0},
    {"faces", BSPKIT_Q_FACES, ROW_RECORDS, 0, 65535, 0},
    {"clipnodes", BSPKIT_Q_CLIPNODES, ROW_RECORDS, 0, 32767, 0},
    {"leaves", BSPKIT_Q_LEAFS, ROW_RECORDS, 0, 8192, 0},
    {"marksurfaces", BSPKIT_Q_MARKSURFACES, ROW_RECORDS, 0, 65535, 0},
    {"surfedges", BSPKIT_Q_SURFEDGES, ROW_RECORDS, 0, 512000, 0},
    {"edges", BSPKIT_Q_EDGES, ROW_RECORDS, 0, 256000, 0},
    {"textures", BSPKIT_Q_TEXTURES, ROW_MIPTEX, 0, 512, 0},
    {"texdata", BSPKIT_Q_TEXTURES, ROW_BYTES, 1, 0, 0x200000},
    {"lightdata", BSPKIT_Q_LIGHTING, ROW_BYTES, 1, 0, 0x200000},
    {"visdata", BSPKIT_Q_VISIBILITY, ROW_BYTES, 1, 0, 0x200000},
    {"entdata", BSPKIT_Q_ENTITIES, ROW_BYTES, 1, 0, 128 * 1024},
    {"entities", BSPKIT_Q_ENTITIES, ROW_ENTITIES, 0, 1024, 0},
};

/* id's Quake bspfile.h (BSP29). Leafs: 8192 is also the engine's vis row
 * buffer size, so going past it overruns vanilla engines. */
static const limit_row quake_rows[] = {
    {"models", BSPKIT_Q_MODELS, ROW_RECORDS, 0, 256, 0},
    {"planes", BSPKIT_Q_PLANES, ROW_RECORDS, 0, 32767, 0},
    {"vertexes", BSPKIT_Q_VERTEXES, ROW_RECORDS, 0, 65535, 0},
    {"nodes", BSPKIT_Q_NODES, ROW_RECORDS, 0, 32767, 0},
    {"texinfos", BSPKIT_Q_TEXINFO, ROW_RECORDS, 0, 4096, 0},
    {"faces", BSPKIT_Q_FACES, ROW_RECORDS, 0, 65535, 0},
    {"clipnodes", BSPKIT_Q_CLIPNODES, ROW_RECORDS, 0, 32767, 0},
    {"leafs", BSPKIT_Q_LEAFS, ROW_RECORDS, 0, 8192, 0},
    {"marksurfaces", BSPKIT_Q_MARKSURFACES, ROW_RECORDS, 0, 65535, 0},
    {"surfedges", BSPKIT_Q_SURFEDGES, ROW_RECORDS, 0, 512000, 0},
    {"edges", BSPKIT_Q_EDGES, ROW_RECORDS, 0, 256000, 0},
    {"textures", BSPKIT_Q_TEXTURES, ROW_MIPTEX, 0, 512, 0},
    {"texdata", BSPKIT_Q_TEXTURES, ROW_BYTES, 1, 0, 0x200000},
    {"lightdata", BSPKIT_Q_LIGHTING, ROW_BYTES, 1, 0, 0x100000},
    {"visdata", BSPKIT_Q_VISIBILITY, ROW_BYTES, 1, 0, 0x100000},
    {"entdata", BSPKIT_Q_ENTITIES, ROW_BYTES, 1, 0, 65536},
    {"entities", BSPKIT_Q_ENTITIES, ROW_ENTITIES, 0, 1024, 0},
};

/* Quake 2's qfiles.h MAX_MAP_* (the game's own maxima, which qbsp3 and
 * the engine enforce). */
static const limit_row quake2_rows[] = {
    {"models", BSPKIT_Q2_MODELS, ROW_RECORDS, 0, 1024, 0},
    {"brushes", BSPKIT_Q2_BRUSHES, ROW_RECORDS, 0, 8192, 0},
    {"entities", BSPKIT_Q2_ENTITIES, ROW_ENTITIES, 0, 2048, 0},
    {"entdata", BSPKIT_Q2_ENTITIES, ROW_BYTES, 1, 0, 0x40000},
    {"texinfos", BSPKIT_Q2_TEXINFO, ROW_RECORDS, 0, 8192, 0},
    {"areas", BSPKIT_Q2_AREAS, ROW_RECORDS, 0, 256, 0},
    {"areaportals", BSPKIT_Q2_AREAPORTALS, ROW_RECORDS, 0, 1024, 0},
    {"planes", BSPKIT_Q2_PLANES, ROW_RECORDS, 0, 65536, 0},
    {"nodes", BSPKIT_Q2_NODES, ROW_RECORDS, 0, 65536, 0},
    {"brushsides", BSPKIT_Q2_BRUSHSIDES, ROW_RECORDS, 0, 65536, 0},
    {"leafs", BSPKIT_Q2_LEAFS, ROW_RECORDS, 0, 65536, 0},
    {"vertexes", BSPKIT_Q2_VERTEXES, ROW_RECORDS, 0, 65536, 0},
    {"faces", BSPKIT_Q2_FACES, ROW_RECORDS, 0, 65536, 0},
    {"leaffaces", BSPKIT_Q2_LEAFFACES, ROW_RECORDS, 0, 65536, 0},
    {"leafbrushes", BSPKIT_Q2_LEAFBRUSHES, ROW_RECORDS, 0, 65536, 0},
    {"edges", BSPKIT_Q2_EDGES, ROW_RECORDS, 0, 128000, 0},
    {"surfedges", BSPKIT_Q2_SURFEDGES, ROW_RECORDS, 0, 256000, 0},
    {"lightdata", BSPKIT_Q2_LIGHTING, ROW_BYTES, 1, 0, 0x200000},
    {"visdata", BSPKIT_Q2_VISIBILITY, ROW_BYTES, 1, 0, 0x100000},
};

/* Quake 3's qfiles.h (ioquake3 keeps them). */
static const limit_row quake3_rows[] = {
    {"models", BSPKIT_Q3_MODELS, ROW_RECORDS, 0, 0x400, 0},
    {"brushes", BSPKIT_Q3_BRUSHES, ROW_RECORDS, 0, 0x8000, 0},
    {"entities", BSPKIT_Q3_ENTITIES, ROW_ENTITIES, 0, 0x800, 0},
    {"entstring", BSPKIT_Q3_ENTITIES, ROW_BYTES, 1, 0, 0x40000},
    {"shaders", BSPKIT_Q3_SHADERS, ROW_RECORDS, 0, 0x400, 0},
    {"fogs", BSPKIT_Q3_FOGS, ROW_RECORDS, 0, 0x100, 0},
    {"planes", BSPKIT_Q3_PLANES, ROW_RECORDS, 0, 0x20000, 0},
    {"nodes", BSPKIT_Q3_NODES, ROW_RECORDS, 0, 0x20000, 0},
    {"brushsides", BSPKIT_Q3_BRUSHSIDES, ROW_RECORDS, 0, 0x20000, 0},
    {"leafs", BSPKIT_Q3_LEAFS, ROW_RECORDS, 0, 0x20000, 0},
    {"leaffaces", BSPKIT_Q3_LEAFSURFACES, ROW_RECORDS, 0, 0x20000, 0},
    {"leafbrushes", BSPKIT_Q3_LEAFBRUSHES, ROW_RECORDS, 0, 0x40000, 0},
    {"lightmaps", BSPKIT_Q3_LIGHTMAPS, ROW_BYTES, 1, 0, 0x800000},
    {"lightgrid", BSPKIT_Q3_LIGHTGRID, ROW_BYTES, 1, 0, 0x800000},
    {"visibility", BSPKIT_Q3_VISIBILITY, ROW_BYTES, 1, 0, 0x200000},
    {"drawsurfaces", BSPKIT_Q3_SURFACES, ROW_RECORDS, 0, 0x20000, 0},
    {"drawverts", BSPKIT_Q3_DRAWVERTS, ROW_RECORDS, 0, 0x80000, 0},
    {"drawindexes", BSPKIT_Q3_DRAWINDEXES, ROW_RECORDS, 0, 0x80000, 0},
};

/* Records in lump `l`: its length over the family's record size, or,
 * for a lump the family reads no records from, over `elem`. */
static uint64_t record_count(const bk_lump *l, uint32_t elem)
{
    uint32_t size = l->layout.record_size ? l->layout.record_size : elem;
    return size ? l->uncompressed_length / size : 0;
}

/* Number of miptex slots as the TEXTURES lump states it. */
static uint64_t miptex_count(bspkit_map *map)
{
    const uint8_t *data = NULL;
    size_t size = 0;
    if (bspkit_lump_bytes(map, BSPKIT_Q_TEXTURES, &data, &size, NULL) != BSPKIT_OK || size < 4)
        return 0;
    /* Quake and GoldSrc files are always little-endian. */
    int32_t n = (int32_t)((uint32_t)data[0] | (uint32_t)data[1] << 8 | (uint32_t)data[2] << 16 |
                          (uint32_t)data[3] << 24);
    return n > 0 ? (uint64_t)n : 0;
}

static void fill_row(bspkit_map *map, const limit_row *def, bool no_limits, bspkit_limit_usage *out)
{
    /* The directory entry itself: a row needs its length and record size
     * only, not the names a public lump-info call looks up. */
    const bk_lump *l = def->lump >= 0 && def->lump < map->lump_count ? &map->lumps[def->lump] : NULL;
    bool have = l != NULL;

    out->name = def->name;
    out->lump = def->lump;
    out->count = 0;
    out->bytes = 0;
    out->max_count = no_limits ? 0 : def->max_count;
    out->max_bytes = 0;

    switch (def->kind) {
    case ROW_RECORDS: {
        uint32_t elem = def->elem ? def->elem : have ? l->layout.record_size : 0;
        out->count = have ? record_count(l, elem) : 0;
        out->bytes = out->count * elem;
        out->max_bytes = out->max_count * elem;
        break;
    }
    case ROW_BYTES:
        out->bytes = have ? l->uncompressed_length : 0;
        out->max_bytes = no_limits ? 0 : def->max_bytes;
        break;
    case ROW_MIPTEX:
        out->count = have ? miptex_count(map) : 0;
        break;
    case ROW_ENTITIES: {
        /* Validation may have counted them without making the list. */
        const bspkit_entities *ents = NULL;
        if (!map->entities_done && map->entity_count_known)
            out->count = map->entity_count;
        else if (bspkit_get_entities(map, &ents, NULL) == BSPKIT_OK && ents)
            out->count = ents->count;
        break;
    }
    }
}

bspkit_result bspkit_limits(bspkit_map *map, bspkit_limit_usage *rows, size_t capacity, size_t *count)
{
    if (!map || !count || (!rows && capacity > 0))
        return BSPKIT_ERR_ARGUMENT;
    *count = 0;

    const bspkit_format *fmt = bspkit_map_format(map);
    if (!fmt)
        return BSPKIT_ERR_ARGUMENT;

    const limit_row *table = NULL;
    size_t n = 0;
    bool no_limits = false;
    switch (fmt->family) {
    case BSPKIT_FAMILY_SOURCE:
        if (fmt->variant & BSPKIT_VARIANT_WIDE_LUMPS) {
            table = strata_rows;
            n = COUNT_OF(strata_rows);
        } else {
            table = source_rows;
            n = COUNT_OF(source_rows);
        }
        break;
    case BSPKIT_FAMILY_GOLDSRC:
        table = goldsrc_rows;
        n = COUNT_OF(goldsrc_rows);
        break;
    case BSPKIT_FAMILY_QUAKE:
        table = quake_rows;
        n = COUNT_OF(quake_rows);
        /* BSP2 and 2PSB exist to lift the BSP29 limits; engines that read
         * them have no fixed maxima. */
        no_limits = (fmt->variant & (BSPKIT_VARIANT_BSP2 | BSPKIT_VARIANT_2PSB)) != 0;
        break;
    case BSPKIT_FAMILY_QUAKE2:
        /* Daikatana's engine is not Quake 2's; its maxima are not public. */
        if (fmt->version != 38)
            return BSPKIT_OK;
        table = quake2_rows;
        n = COUNT_OF(quake2_rows);
        break;
    case BSPKIT_FAMILY_QUAKE3:
        /* Quake Live's and RTCW's engines are not Quake 3's; their maxima are not public. */
        if (fmt->version != 46)
            return BSPKIT_OK;
        table = quake3_rows;
        n = COUNT_OF(quake3_rows);
        break;
    default:
        return BSPKIT_OK;
    }

    for (size_t i = 0; i < n && i < capacity; i++)
        fill_row(map, &table[i], no_limits, &rows[i]);
    *count = n;
    return BSPKIT_OK;
}
