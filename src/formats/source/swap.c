/* Byte-order conversion of Source lumps and game lumps.
 *
 * Record arrays declared as schemas (source/records.c) convert through their
 * schema, each field swapped by its width. The other fixed-record lumps and
 * the game lumps' prop records are described by a field-width string applied
 * record by record: "4" is a 32-bit field (int, float, or a bit-field packed
 * in an int), "2" a 16-bit field, "1" a byte (chars, colour bytes and
 * padding, which Valve's converter copies unchanged), "WxN" repeats,
 * "(...)xN" repeats a group. The widths follow the byte-swap data descriptions in the SDK's
 * bsplib.cpp, the structs in bspfile.h / gamebspfile.h, and for layouts
 * Valve never converted (v17 faces, Strata v25) the readers bspkit follows.
 *
 * Variable-length lumps are walked twice: once to check that every count and
 * offset (read in the source byte order) fits, once to convert. So a failure
 * or an unknown layout never leaves the data half converted.
 *
 * PHYSCOLLIDE is converted field by field, including the IVP compact surfaces
 * inside each solid; see the section comment there for why that is exact. */
#include "formats/source/swap.h"

#include "core/map.h"
#include "formats/source/family.h"
#include "formats/source/records.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Field swaps                                                               */
/* ------------------------------------------------------------------------ */

static void swap16_at(uint8_t *p) { wr_be16(p, rd_le16(p)); }
static void swap32_at(uint8_t *p) { wr_be32(p, rd_le32(p)); }

static void swap32_run(uint8_t *p, size_t count)
{
    for (size_t i = 0; i < count; i++)
        swap32_at(p + 4 * i);
}

static void swap16_run(uint8_t *p, size_t count)
{
    for (size_t i = 0; i < count; i++)
        swap16_at(p + 2 * i);
}

/* ------------------------------------------------------------------------ */
/* Record layouts                                                            */
/* ------------------------------------------------------------------------ */

#define MAX_RUNS 64

typedef struct field_run {
    uint8_t width; /* 1, 2 or 4 bytes */
    uint32_t count;
} field_run;

typedef struct record_layout {
    field_run runs[MAX_RUNS];
    int run_count;
    size_t size;
} record_layout;

static bool add_run(record_layout *l, uint8_t width, uint32_t count)
{
    if (count == 0)
        return true;
    if (l->run_count > 0 && l->runs[l->run_count - 1].width == width) {
        l->runs[l->run_count - 1].count += count;
    } else {
        if (l->run_count == MAX_RUNS)
            return false;
        l->runs[l->run_count++] = (field_run){width, count};
    }
    l->size += (size_t)width * count;
    return true;
}

static uint32_t parse_count(const char **s)
{
    uint32_t n = 0;
    while (**s >= '0' && **s <= '9')
        n = n * 10 + (uint32_t)(*(*s)++ - '0');
    return n;
}

/* list := item (',' item)* ; item := ('1'|'2'|'4'|'(' list ')') ['x' count] */
static bool parse_list(const char **s, record_layout *out, int depth)
{
    for (;;) {
        record_layout item = {.run_count = 0, .size = 0};
        if (**s == '(') {
            if (depth > 2)
                return false;
            (*s)++;
            if (!parse_list(s, &item, depth + 1) || **s != ')')
                return false;
            (*s)++;
        } else if (**s == '1' || **s == '2' || **s == '4') {
            add_run(&item, (uint8_t)(*(*s)++ - '0'), 1);
        } else {
            return false;
        }
        uint32_t repeat = 1;
        if (**s == 'x') {
            (*s)++;
            repeat = parse_count(s);
        }
        if (item.run_count == 1) {
            if (!add_run(out, item.runs[0].width, item.runs[0].count * repeat))
                return false;
        } else {
            for (uint32_t r = 0; r < repeat; r++)
                for (int i = 0; i < item.run_count; i++)
                    if (!add_run(out, item.runs[i].width, item.runs[i].count))
                        return false;
        }
        if (**s != ',')
            return true;
        (*s)++;
    }
}

static bool parse_layout(const char *spec, record_layout *out)
{
    *out = (record_layout){.run_count = 0, .size = 0};
    const char *s = spec;
    return parse_list(&s, out, 0) && *s == '\0' && out->size > 0;
}

static void swap_records(uint8_t *data, size_t count, const record_layout *l)
{
    if (l->run_count == 1) { /* one width for the whole record: one pass over the lump */
        size_t n = count * l->runs[0].count;
        if (l->runs[0].width == 4)
            swap32_run(data, n);
        else if (l->runs[0].width == 2)
            swap16_run(data, n);
        return;
    }
    for (size_t r = 0; r < count; r++) {
        for (int i = 0; i < l->run_count; i++) {
            const field_run *run = &l->runs[i];
            if (run->width == 4)
                swap32_run(data, run->count);
            else if (run->width == 2)
                swap16_run(data, run->count);
            data += (size_t)run->width * run->count;
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Which layout a lump has                                                   */
/* ------------------------------------------------------------------------ */

typedef enum lump_kind {
    LK_UNKNOWN,
    LK_BYTES, /* nothing wider than a byte: no conversion needed */
    LK_RECORDS,
    LK_SCHEMA, /* a record array declared as a schema (source/records.c) */
    LK_VISIBILITY,
    LK_OCCLUSION,
    LK_PHYSDISP,
    LK_PHYSCOLLIDE,
    LK_GAME_LUMP
} lump_kind;

typedef struct lump_plan {
    lump_kind kind;
    const char *spec;         /* LK_RECORDS */
    const bk_schema *schema;  /* LK_SCHEMA */
} lump_plan;

static const char *lump_name(const bk_swap_target *t, int lump)
{
    return bk_source_lump_name(t->version, lump);
}

#define RECORDS(s) ((lump_plan){LK_RECORDS, (s), NULL})
#define KIND(k) ((lump_plan){(k), NULL, NULL})
#define SCHEMA(s) ((lump_plan){LK_SCHEMA, NULL, (s)})

/* A layout that Strata's 32-bit lumps (lump version >= 1 in a WIDE_LUMPS map)
 * may have changed and bspkit has no description for. */
static lump_plan standard_only(bool wide, const char *spec)
{
    return wide ? KIND(LK_UNKNOWN) : RECORDS(spec);
}

static lump_plan plan_for(const bk_swap_target *t, int lump, int32_t v)
{
    bool wide_map = (t->variant & BSPKIT_VARIANT_WIDE_LUMPS) != 0;
    bool wide = wide_map && v >= 1;
    /* Record arrays the reader decodes convert by their schema. Strata's
     * 32-bit lumps may have changed the layouts that have no wide schema. */
    const bk_schema *schema = bk_source_schema(t->version, t->variant, lump, v);
    if (schema) {
        switch (lump) {
        case BSPKIT_S_PLANES:
        case BSPKIT_S_TEXDATA:
        case BSPKIT_S_VERTEXES:
        case BSPKIT_S_TEXINFO:
        case BSPKIT_S_SURFEDGES:
        case BSPKIT_S_MODELS:
        case BSPKIT_S_BRUSHES:
        case BSPKIT_S_AREAS:
        case BSPKIT_S_CUBEMAPS:
        case BSPKIT_S_TEXDATA_STRING_TABLE: return wide ? KIND(LK_UNKNOWN) : SCHEMA(schema);
        default: return SCHEMA(schema);
        }
    }
    /* So do the arrays decoded into extras slots (source/records.c); in
     * Strata's 32-bit lumps only world lights and the ambient index. World
     * light versions other than 0 and 1 have no known layout. */
    const bk_schema *array = bk_source_array_schema(t->version, t->variant, lump, v);
    if (array) {
        switch (lump) {
        case 22:
        case 23: break; /* the v19 portal lumps have never been converted: see the default case */
        case BSPKIT_S_OVERLAY_SYSTEM_LEVELS: return KIND(LK_BYTES); /* 4 unsigned char CPU/GPU levels */
        case BSPKIT_S_LEAF_AMBIENT_LIGHTING:
        case BSPKIT_S_LEAF_AMBIENT_LIGHTING_HDR: break; /* bytes only: below */
        case BSPKIT_S_WORLDLIGHTS:
        case BSPKIT_S_WORLDLIGHTS_HDR:
        case BSPKIT_S_LEAF_AMBIENT_INDEX:
        case BSPKIT_S_LEAF_AMBIENT_INDEX_HDR: return SCHEMA(array);
        default: return wide ? KIND(LK_UNKNOWN) : SCHEMA(array);
        }
    }
    switch (lump) {
    case BSPKIT_S_ENTITIES:
    case BSPKIT_S_LIGHTING:
    case BSPKIT_S_LIGHTING_HDR:
    case BSPKIT_S_DISP_LIGHTMAP_ALPHAS:
    case BSPKIT_S_DISP_LIGHTMAP_SAMPLE_POSITIONS:
    case BSPKIT_S_PAKFILE: /* zip headers are little-endian on every platform */
    case BSPKIT_S_TEXDATA_STRING_DATA: return KIND(LK_BYTES);
    case BSPKIT_S_LEAF_AMBIENT_LIGHTING:
    case BSPKIT_S_LEAF_AMBIENT_LIGHTING_HDR:
        /* CompressedLightCube (+ x, y, z, pad bytes in version 1). Other
         * versions hold data of unknown shape some compilers wrote here. */
        return v == 0 || v == 1 ? KIND(LK_BYTES) : KIND(LK_UNKNOWN);

    case BSPKIT_S_FACEIDS: return standard_only(wide, "2");
    case BSPKIT_S_VERTNORMALINDICES:
    case BSPKIT_S_PRIMINDICES: return wide ? RECORDS("4") : RECORDS("2");
    case BSPKIT_S_PHYSDISP: return wide ? KIND(LK_UNKNOWN) : KIND(LK_PHYSDISP);
    case BSPKIT_S_PHYSCOLLIDE: return wide ? KIND(LK_UNKNOWN) : KIND(LK_PHYSCOLLIDE);
    case BSPKIT_S_VERTNORMALS: return standard_only(wide, "4x3");
    case BSPKIT_S_GAME_LUMP: return KIND(LK_GAME_LUMP);
    case BSPKIT_S_PRIMVERTS: return standard_only(wide, "4x3");
    case BSPKIT_S_CLIPPORTALVERTS: return standard_only(wide, "4x3");
    case BSPKIT_S_MAP_FLAGS: return RECORDS("4"); /* versions seen in console maps are noise */
    case BSPKIT_S_OCCLUSION: return KIND(LK_OCCLUSION);
    case BSPKIT_S_VISIBILITY: return KIND(LK_VISIBILITY);
    default:
        /* 22-25: vvis portal data before v21, static-prop collision after.
         * CS:GO's bspfile.h declares dpropcollision_t {int, int} and
         * dprophull_t {int x4}, but real CS:GO lumps are not whole numbers of
         * those records (76 bytes, 1676 bytes), so their stored form is not
         * what the header shows. 49 (havok surface / prop blob), XZIPPAKFILE,
         * PHYSLEVEL: no public description of their fields. */
        return KIND(LK_UNKNOWN);
    }
}

size_t bk_swap_record_size(const bk_swap_target *t, int lump, int32_t lump_version)
{
    if (!t || lump < 0 || lump >= BSPKIT_S_LUMP_COUNT)
        return 0;
    lump_plan p = plan_for(t, lump, lump_version);
    if (p.kind == LK_SCHEMA)
        return p.schema->record_size;
    record_layout l;
    if (p.kind != LK_RECORDS || !parse_layout(p.spec, &l))
        return 0;
    return l.size;
}

/* ------------------------------------------------------------------------ */
/* Errors                                                                    */
/* ------------------------------------------------------------------------ */

/* Where a conversion reports failures. */
typedef struct swap_ctx {
    bspkit_result code; /* LUMP_SIZE, VISIBILITY or GAME_LUMP */
    int lump;
    char what[48]; /* "PHYSCOLLIDE", "game lump 'sprp' v6" */
    bool be;       /* source byte order */
    bspkit_error *err;
} swap_ctx;

static bspkit_result ctx_fail(const swap_ctx *c, uint64_t pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static bspkit_result ctx_fail(const swap_ctx *c, uint64_t pos, const char *fmt, ...)
{
    char msg[192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return bk_fail(c->err, c->code, c->lump, -1, (int64_t)pos, "%s: %s (byte %llu)", c->what, msg,
                   (unsigned long long)pos);
}

/* Reads a non-negative count at `pos`; fails when the 4 bytes or the count do not fit. */
static bspkit_result read_count(const swap_ctx *c, const uint8_t *data, size_t size, size_t pos,
                                const char *name, uint32_t *out)
{
    if (size < 4 || pos > size - 4)
        return ctx_fail(c, pos, "%s count runs past the end of the %zu-byte data", name, size);
    int32_t n = rd_i32(data + pos, c->be);
    if (n < 0)
        return ctx_fail(c, pos, "negative %s count %d", name, (int)n);
    *out = (uint32_t)n;
    return BSPKIT_OK;
}

/* Checks that `count` records of `record` bytes fit after `pos`. */
static bspkit_result check_array(const swap_ctx *c, size_t size, size_t pos, uint64_t count, size_t record,
                                 const char *name)
{
    if (!range_ok(pos, count * record, size))
        return ctx_fail(c, pos, "%llu %s of %zu bytes need %llu bytes but only %zu remain",
                        (unsigned long long)count, name, record, (unsigned long long)(count * record),
                        pos <= size ? size - pos : 0);
    return BSPKIT_OK;
}

/* ------------------------------------------------------------------------ */
/* VISIBILITY, OCCLUSION, PHYSDISP                                           */
/* ------------------------------------------------------------------------ */

/* dvis_t: numclusters, then a PVS and a PAS byte offset per cluster, then
 * run-length compressed bit rows (bytes). */
static bspkit_result swap_visibility(const swap_ctx *c, uint8_t *data, size_t size)
{
    uint32_t clusters;
    bspkit_result r = read_count(c, data, size, 0, "cluster", &clusters);
    if (r == BSPKIT_OK)
        r = check_array(c, size, 4, clusters, 8, "cluster offset pairs");
    if (r != BSPKIT_OK)
        return r;
    swap32_run(data, 1 + 2 * (size_t)clusters);
    return BSPKIT_OK;
}

/* doccluder lump: count + doccluderdata_t (40 bytes from version 2, 36 in
 * version 1), count + doccluderpolydata_t (12), count + int vertex indices.
 * Every field is 32-bit, so the walk only has to prove the counts fit. */
static bspkit_result occlusion_fits(const swap_ctx *c, const uint8_t *data, size_t size, int32_t occluder_version)
{
    size_t pos = 0;
    static const char *const names[3] = {"occluder", "occluder polygon", "occluder vertex index"};
    size_t record[3] = {bk_source_occluder_schema(occluder_version)->record_size,
                        bk_source_occluder_poly.record_size, 4};
    for (int part = 0; part < 3; part++) {
        uint32_t n = 0;
        bspkit_result r = read_count(c, data, size, pos, names[part], &n);
        if (r == BSPKIT_OK)
            r = check_array(c, size, pos + 4, n, record[part], names[part]);
        if (r != BSPKIT_OK)
            return r;
        pos += 4 + (size_t)n * record[part];
    }
    if (pos != size)
        return ctx_fail(c, pos, "%zu bytes follow the occluder vertex indices", size - pos);
    return BSPKIT_OK;
}

static bspkit_result swap_occlusion(const swap_ctx *c, int32_t version, uint8_t *data, size_t size, bool *known)
{
    bspkit_result r;
    if (version == 1 || version == 2) {
        r = occlusion_fits(c, data, size, version);
    } else if (version == 0) {
        /* Valve's tools never read version 0 data; some mods (Contagion) store
         * version 1 records under 0. Accept only an exact fit of either layout. */
        swap_ctx quiet = *c;
        quiet.err = NULL;
        r = occlusion_fits(&quiet, data, size, 2);
        if (r != BSPKIT_OK)
            r = occlusion_fits(&quiet, data, size, 1);
        if (r != BSPKIT_OK) {
            *known = false;
            return BSPKIT_OK;
        }
    } else {
        *known = false;
        return BSPKIT_OK;
    }
    if (r != BSPKIT_OK)
        return r;
    swap32_run(data, size / 4);
    return BSPKIT_OK;
}

/* unsigned short count, unsigned short sizes[count], then the displacement
 * collision blobs. Valve's ledgewriter.h requires every element of those blobs
 * to be a byte precisely so that they need no swapping. */
static bspkit_result swap_physdisp(const swap_ctx *c, uint8_t *data, size_t size)
{
    if (size < 2)
        return ctx_fail(c, 0, "%zu bytes cannot hold the displacement count", size);
    size_t count = rd_u16(data, c->be);
    bspkit_result r = check_array(c, size, 2, count, 2, "displacement sizes");
    if (r != BSPKIT_OK)
        return r;
    uint64_t total = 0;
    for (size_t i = 0; i < count; i++)
        total += rd_u16(data + 2 + 2 * i, c->be);
    size_t pos = 2 + 2 * count;
    if (total > size - pos)
        return ctx_fail(c, pos, "%zu displacement blobs need %llu bytes but only %zu remain", count,
                        (unsigned long long)total, size - pos);
    swap16_run(data, 1 + count);
    return BSPKIT_OK;
}

/* ------------------------------------------------------------------------ */
/* PHYSCOLLIDE                                                               */
/* ------------------------------------------------------------------------ */
/*
 * Layout: dphysmodel_t {modelIndex, dataSize, keydataSize, solidCount}, then
 * solidCount x {int size; size bytes}, then keydataSize bytes of text; a model
 * with index -1 ends the lump. Each solid starts with Valve's collide header
 * {int 'VPHY'; short version; short modelType} and, for modelType 0 (polygon
 * soup), {int surfaceSize; Vector dragAxisAreas; int axisMapSize}, followed by
 * an IVP_Compact_Surface. Older files store the compact surface directly.
 *
 * Why the IVP data can be converted exactly: its layout is public (Ipion's
 * ivp_compact_surface.hxx / ivp_compact_ledge.hxx) together with the byte_swap()
 * methods Valve's converter calls (IVP_Compact_Surface::byte_swap_all, through
 * CPhysCollideCompactSurface::SerializeToBuffer). Those show every field:
 *  - IVP_Compact_Surface (48 bytes): 7 floats, a 32-bit word of bit-fields
 *    {max_factor_surface_deviation:8, byte_size:24}, offset_ledgetree_root,
 *    dummy[3] (dummy[2] holds 'IVPS').
 *  - IVP_Compact_Ledgetree_Node (28): offset_right_node, offset_compact_ledge,
 *    center (3 floats), radius, box_sizes[3] + free_0 (bytes).
 *  - IVP_Compact_Ledge (16): c_point_offset, ledgetree_node_offset, a word of
 *    bit-fields {has_chilren_flag:2, is_compact_flag:2, dummy:4, size_div_16:24},
 *    then two shorts: n_triangles, for_future_use.
 *  - IVP_Compact_Triangle (16): {tri_index:12, pierce_index:12,
 *    material_index:7, is_virtual:1}, then 3 IVP_Compact_Edge words
 *    {start_point_index:16, opposite_index:15, is_virtual:1}.
 *  - IVP_Compact_Poly_Point (16): 4 floats.
 * Every field is a 32-bit word, two 16-bit halves, or bytes, so no field is
 * split across words. The bit-fields are not just byte-reversed: the PC
 * compiler packs them from the low bit, the Xbox 360 compiler from the high
 * bit, and IVP's byte_swap() moves each field to its mirrored position before
 * reversing the bytes. The Xbox 360 Orange Box map checks this: its surface
 * word reads eb 01 14 04 (max deviation 0xeb in the top byte, byte_size
 * 0x011404 equal to surfaceSize) and its triangles count tri_index 0, 1, 2 in
 * the top 12 bits; dummy[2] reads 'SPVI' there, i.e. it was swapped as an int.
 *
 * Points are shared between ledges and only reached through triangle edges,
 * and the ledge tree is reached through offsets, so the conversion first maps
 * what each 32-bit word of the surface holds (refusing words claimed with two
 * different meanings, which also stops cycles) and then converts the words.
 * Words nothing points to (unused points, padding) are left as they are, as
 * Valve's converter leaves them. MOPP solids (modelType 1) and an axis map are
 * not described anywhere public: such a lump is reported as unknown. Valve's
 * converter also pads every solid to 4 bytes when writing a console map; an
 * in-place conversion keeps the sizes. The engine copies each surface into an
 * aligned buffer before use (CPhysCollideCompactSurface::Init), so unpadded
 * solids should load, but that has not been tried on a console.
 */

#define VPHY_ID 0x59485056u /* 'VPHY' read as a little-endian int */
#define VPHY_VERSION 0x100
#define IVPS_ID 0x53505649u /* 'IVPS' read as a little-endian int */
#define COLLIDE_HEADER_SIZE 28
#define IVP_SURFACE_SIZE 48
#define IVP_NODE_SIZE 28
#define IVP_LEDGE_SIZE 16
#define IVP_TRIANGLE_SIZE 16
#define IVP_POINT_SIZE 16

/* What one 32-bit word of a compact surface holds. */
enum ivp_word {
    IW_NONE = 0,
    IW_WORD,
    IW_HALVES,
    IW_BYTES,
    IW_SURFACE_BITS,
    IW_LEDGE_BITS,
    IW_TRIANGLE_BITS,
    IW_EDGE_BITS,
    IW_NODE_HEAD,  /* offset_right_node: a 32-bit word that starts a node */
    IW_LEDGE_HEAD  /* c_point_offset: a 32-bit word that starts a ledge */
};

/* Bit-field widths in declaration order. */
static const uint8_t SURFACE_BITS[] = {8, 24};
static const uint8_t LEDGE_BITS[] = {2, 2, 4, 24};
static const uint8_t TRIANGLE_BITS[] = {12, 12, 7, 1};
static const uint8_t EDGE_BITS[] = {16, 15, 1};
#define BITS(a) (a), (int)(sizeof(a) / sizeof((a)[0]))

/* Field `index` of a bit-field word, packed from the high bit when `high_first`. */
static uint32_t bit_field(uint32_t v, const uint8_t *widths, int n, int index, bool high_first)
{
    unsigned low = 0;
    for (int i = 0; i < index && i < n; i++)
        low += widths[i];
    unsigned w = widths[index];
    unsigned shift = high_first ? 32 - low - w : low;
    return (v >> shift) & (w == 32 ? 0xFFFFFFFFu : (1u << w) - 1);
}

/* The same fields packed the other way round. */
static uint32_t mirror_bit_fields(uint32_t v, const uint8_t *widths, int n, bool from_high_first)
{
    uint32_t out = 0;
    unsigned low = 0;
    for (int i = 0; i < n; i++) {
        unsigned w = widths[i];
        uint32_t mask = w == 32 ? 0xFFFFFFFFu : (1u << w) - 1;
        unsigned low_shift = low, high_shift = 32 - low - w;
        uint32_t field = (v >> (from_high_first ? high_shift : low_shift)) & mask;
        out |= field << (from_high_first ? low_shift : high_shift);
        low += w;
    }
    return out;
}

/* The Xbox 360 packs bit-fields from the high bit: big-endian data means high-first packing. */
static void convert_bit_fields(uint8_t *p, const uint8_t *widths, int n, bool from_be)
{
    if (from_be)
        wr_le32(p, mirror_bit_fields(rd_be32(p), widths, n, true));
    else
        wr_be32(p, mirror_bit_fields(rd_le32(p), widths, n, false));
}

/* Buffers reused across solids; sized during the checking pass so the
 * converting pass never allocates (and so cannot fail half way). */
typedef struct ivp_scratch {
    uint8_t *kinds;
    size_t kinds_cap;
    size_t *stack;
    size_t stack_cap;
} ivp_scratch;

static bool ensure_scratch(ivp_scratch *s, size_t words, size_t stack)
{
    if (words > s->kinds_cap) {
        uint8_t *k = realloc(s->kinds, words);
        if (!k)
            return false;
        s->kinds = k;
        s->kinds_cap = words;
    }
    if (stack > s->stack_cap) {
        if (stack > SIZE_MAX / sizeof *s->stack)
            return false;
        size_t *st = realloc(s->stack, stack * sizeof *st);
        if (!st)
            return false;
        s->stack = st;
        s->stack_cap = stack;
    }
    return true;
}

/* One compact surface being mapped. */
typedef struct ivp_surface {
    const swap_ctx *c;
    const uint8_t *s; /* first byte of the surface */
    size_t len;       /* bytes of the surface */
    size_t words;
    size_t lump_pos; /* where the surface starts in the lump, for messages */
    uint8_t *kinds;
} ivp_surface;

static bspkit_result claim(const ivp_surface *sf, size_t word, enum ivp_word kind)
{
    uint8_t *k = &sf->kinds[word];
    if (*k == IW_NONE || (*k == kind && kind != IW_NODE_HEAD)) {
        *k = (uint8_t)kind;
        return BSPKIT_OK;
    }
    return ctx_fail(sf->c, sf->lump_pos + 4 * word,
                    "compact surface word %zu is reached as two different fields (corrupt offsets)", word);
}

static bspkit_result claim_run(const ivp_surface *sf, size_t word, size_t count, enum ivp_word kind)
{
    for (size_t i = 0; i < count; i++) {
        bspkit_result r = claim(sf, word + i, kind);
        if (r != BSPKIT_OK)
            return r;
    }
    return BSPKIT_OK;
}

/* Checks that a structure of `bytes` at surface offset `ofs` is word-aligned and inside the surface. */
static bspkit_result check_struct(const ivp_surface *sf, int64_t ofs, size_t bytes, const char *what,
                                  size_t from)
{
    if (ofs < 0 || (ofs & 3) || !range_ok((uint64_t)ofs, bytes, sf->words * 4))
        return ctx_fail(sf->c, sf->lump_pos + from, "%s offset %lld lies outside the %zu-byte compact surface",
                        what, (long long)ofs, sf->len);
    return BSPKIT_OK;
}

static bspkit_result map_ledge(const ivp_surface *sf, size_t ledge, size_t from)
{
    bspkit_result r = check_struct(sf, (int64_t)ledge, IVP_LEDGE_SIZE, "ledge", from);
    if (r != BSPKIT_OK)
        return r;
    size_t w = ledge / 4;
    if (sf->kinds[w] == IW_LEDGE_HEAD)
        return BSPKIT_OK; /* already mapped through another node */
    bool be = sf->c->be;
    const uint8_t *p = sf->s + ledge;
    if ((r = claim(sf, w, IW_LEDGE_HEAD)) != BSPKIT_OK || (r = claim(sf, w + 1, IW_WORD)) != BSPKIT_OK ||
        (r = claim(sf, w + 2, IW_LEDGE_BITS)) != BSPKIT_OK || (r = claim(sf, w + 3, IW_HALVES)) != BSPKIT_OK)
        return r;
    int64_t points = (int64_t)ledge + rd_i32(p, be);
    int16_t triangles = rd_i16(p + 12, be);
    if (triangles < 0)
        return ctx_fail(sf->c, sf->lump_pos + ledge + 12, "ledge has %d triangles", (int)triangles);
    r = check_struct(sf, (int64_t)ledge + IVP_LEDGE_SIZE, (size_t)triangles * IVP_TRIANGLE_SIZE,
                     "ledge triangles", ledge + 12);
    for (int t = 0; r == BSPKIT_OK && t < triangles; t++) {
        size_t tri = ledge + IVP_LEDGE_SIZE + (size_t)t * IVP_TRIANGLE_SIZE;
        if ((r = claim(sf, tri / 4, IW_TRIANGLE_BITS)) != BSPKIT_OK ||
            (r = claim_run(sf, tri / 4 + 1, 3, IW_EDGE_BITS)) != BSPKIT_OK)
            break;
        for (int e = 0; r == BSPKIT_OK && e < 3; e++) {
            uint32_t edge = rd_u32(sf->s + tri + 4 + 4 * e, be);
            uint32_t index = bit_field(edge, BITS(EDGE_BITS), 0, be);
            int64_t point = points + (int64_t)index * IVP_POINT_SIZE;
            r = check_struct(sf, point, IVP_POINT_SIZE, "ledge point", tri + 4 + 4 * (size_t)e);
            if (r == BSPKIT_OK)
                r = claim_run(sf, (size_t)point / 4, IVP_POINT_SIZE / 4, IW_WORD);
        }
    }
    return r;
}

/* Maps every word of the compact surface reachable from its ledge tree. */
static bspkit_result map_surface(ivp_surface *sf, ivp_scratch *scratch)
{
    bool be = sf->c->be;
    if (sf->len < IVP_SURFACE_SIZE)
        return ctx_fail(sf->c, sf->lump_pos, "%zu bytes cannot hold a compact surface", sf->len);
    sf->words = sf->len / 4;
    size_t max_nodes = sf->words / (IVP_NODE_SIZE / 4) + 1;
    if (!ensure_scratch(scratch, sf->words, 2 * max_nodes + 1))
        return bk_fail(sf->c->err, BSPKIT_ERR_NOMEM, sf->c->lump, -1, -1, "out of memory");
    sf->kinds = scratch->kinds;
    memset(sf->kinds, IW_NONE, sf->words);

    bspkit_result r;
    if ((r = claim_run(sf, 0, 7, IW_WORD)) != BSPKIT_OK || (r = claim(sf, 7, IW_SURFACE_BITS)) != BSPKIT_OK ||
        (r = claim_run(sf, 8, 4, IW_WORD)) != BSPKIT_OK)
        return r;
    uint32_t byte_size = bit_field(rd_u32(sf->s + 28, be), BITS(SURFACE_BITS), 1, be);
    if (byte_size > sf->len)
        return ctx_fail(sf->c, sf->lump_pos + 28, "compact surface claims %u bytes but has %zu", byte_size,
                        sf->len);

    size_t depth = 0;
    scratch->stack[depth++] = (size_t)-1; /* marks the root, reached from the surface header */
    while (depth > 0) {
        size_t from = scratch->stack[--depth];
        int64_t node;
        if (from == (size_t)-1) {
            from = 32;
            node = rd_i32(sf->s + 32, be);
        } else {
            node = (int64_t)from; /* pushed children are node offsets themselves */
        }
        if ((r = check_struct(sf, node, IVP_NODE_SIZE, "ledge-tree node", from)) != BSPKIT_OK)
            return r;
        size_t w = (size_t)node / 4;
        if ((r = claim(sf, w, IW_NODE_HEAD)) != BSPKIT_OK || (r = claim_run(sf, w + 1, 5, IW_WORD)) != BSPKIT_OK ||
            (r = claim(sf, w + 6, IW_BYTES)) != BSPKIT_OK)
            return r;
        const uint8_t *p = sf->s + node;
        int32_t right = rd_i32(p, be), ledge = rd_i32(p + 4, be);
        if (ledge != 0) {
            int64_t at = node + ledge;
            if ((r = check_struct(sf, at, IVP_LEDGE_SIZE, "ledge", (size_t)node + 4)) != BSPKIT_OK ||
                (r = map_ledge(sf, (size_t)at, (size_t)node + 4)) != BSPKIT_OK)
                return r;
        }
        if (right != 0) {
            int64_t right_node = node + right;
            if ((r = check_struct(sf, right_node, IVP_NODE_SIZE, "right ledge-tree node", (size_t)node)) !=
                BSPKIT_OK)
                return r;
            if (depth + 2 > scratch->stack_cap)
                return ctx_fail(sf->c, sf->lump_pos + (size_t)node, "ledge tree has more nodes than fit");
            scratch->stack[depth++] = (size_t)right_node;
            scratch->stack[depth++] = (size_t)node + IVP_NODE_SIZE; /* left son follows its parent */
        }
    }
    return BSPKIT_OK;
}

static void convert_surface(const ivp_surface *sf, uint8_t *s, bool from_be)
{
    for (size_t w = 0; w < sf->words; w++) {
        uint8_t *p = s + 4 * w;
        switch ((enum ivp_word)sf->kinds[w]) {
        case IW_WORD:
        case IW_NODE_HEAD:
        case IW_LEDGE_HEAD: swap32_at(p); break;
        case IW_HALVES: swap16_run(p, 2); break;
        case IW_SURFACE_BITS: convert_bit_fields(p, BITS(SURFACE_BITS), from_be); break;
        case IW_LEDGE_BITS: convert_bit_fields(p, BITS(LEDGE_BITS), from_be); break;
        case IW_TRIANGLE_BITS: convert_bit_fields(p, BITS(TRIANGLE_BITS), from_be); break;
        case IW_EDGE_BITS: convert_bit_fields(p, BITS(EDGE_BITS), from_be); break;
        case IW_NONE:
        case IW_BYTES: break;
        }
    }
}

/* One solid: `p` points at its data after the size int. */
static bspkit_result swap_solid(const swap_ctx *c, uint8_t *p, size_t size, size_t lump_pos, bool apply,
                                ivp_scratch *scratch, bool *known)
{
    ivp_surface sf = {.c = c, .lump_pos = lump_pos};
    bool header = size >= 4 && rd_u32(p, c->be) == VPHY_ID;
    if (header) {
        if (size < 8)
            return ctx_fail(c, lump_pos, "%zu-byte solid cannot hold its collide header", size);
        /* Only version 0x100 polygon soups are described; MOPP (model type 1)
         * has no public layout, and Strata's version 0x101 rearranged the
         * compact surface header (byte_size is a whole int there). */
        if (rd_u16(p + 4, c->be) != VPHY_VERSION || rd_i16(p + 6, c->be) != 0) {
            *known = false;
            return BSPKIT_OK;
        }
        if (size < COLLIDE_HEADER_SIZE)
            return ctx_fail(c, lump_pos, "%zu-byte solid cannot hold its compact surface header", size);
        int32_t surface = rd_i32(p + 8, c->be);
        if (surface < 0 || (size_t)surface > size - COLLIDE_HEADER_SIZE)
            return ctx_fail(c, lump_pos + 8, "compact surface of %d bytes does not fit the %zu-byte solid",
                            (int)surface, size);
        if (rd_i32(p + 24, c->be) != 0) { /* axis map: never written by Valve's tools, layout unknown */
            *known = false;
            return BSPKIT_OK;
        }
        sf.s = p + COLLIDE_HEADER_SIZE;
        sf.len = (size_t)surface;
        sf.lump_pos = lump_pos + COLLIDE_HEADER_SIZE;
    } else {
        /* Older solids are a bare compact surface, recognised by dummy[2]. */
        uint32_t id = size >= IVP_SURFACE_SIZE ? rd_u32(p + 44, c->be) : 1;
        if (id != IVPS_ID && id != 0) {
            *known = false;
            return BSPKIT_OK;
        }
        sf.s = p;
        sf.len = size;
    }
    bspkit_result r = map_surface(&sf, scratch);
    if (r != BSPKIT_OK || !apply)
        return r;
    if (header) {
        swap32_at(p);        /* vphysicsID */
        swap16_run(p + 4, 2); /* version, modelType */
        swap32_run(p + 8, 5); /* surfaceSize, dragAxisAreas, axisMapSize */
    }
    convert_surface(&sf, p + (header ? COLLIDE_HEADER_SIZE : 0), c->be);
    return BSPKIT_OK;
}

static bspkit_result walk_physcollide(const swap_ctx *c, uint8_t *data, size_t size, bool apply,
                                      ivp_scratch *scratch, bool *known)
{
    size_t pos = 0;
    for (;;) {
        if (size - pos < 16)
            return ctx_fail(c, pos, "physics model header runs past the end without the -1 terminator");
        int32_t model = rd_i32(data + pos, c->be);
        if (model == -1) {
            /* Bytes after the terminator, if any, are not read by the engine and stay as they are. */
            if (apply)
                swap32_run(data + pos, 4);
            return BSPKIT_OK;
        }
        int32_t data_size = rd_i32(data + pos + 4, c->be), key_size = rd_i32(data + pos + 8, c->be);
        int32_t solids = rd_i32(data + pos + 12, c->be);
        if (data_size < 0 || key_size < 0 || solids < 0)
            return ctx_fail(c, pos, "model %d has negative sizes (data %d, keydata %d, solids %d)", (int)model,
                            (int)data_size, (int)key_size, (int)solids);
        size_t body = pos + 16;
        if ((uint64_t)data_size + (uint64_t)key_size > size - body)
            return ctx_fail(c, pos, "model %d needs %lld bytes of solids and keydata but only %zu remain",
                            (int)model, (long long)data_size + key_size, size - body);
        size_t end = body + (size_t)data_size, q = body;
        for (int32_t i = 0; i < solids; i++) {
            if (end - q < 4)
                return ctx_fail(c, q, "solid %d of model %d runs past the model's %d data bytes", (int)i,
                                (int)model, (int)data_size);
            int32_t solid = rd_i32(data + q, c->be);
            if (solid < 0 || (size_t)solid > end - q - 4)
                return ctx_fail(c, q, "solid %d of model %d has size %d but %zu bytes remain", (int)i,
                                (int)model, (int)solid, end - q - 4);
            bspkit_result r = swap_solid(c, data + q + 4, (size_t)solid, q + 4, apply, scratch, known);
            if (r != BSPKIT_OK || !*known)
                return r;
            if (apply)
                swap32_at(data + q);
            q += 4 + (size_t)solid;
        }
        if (q != end)
            return ctx_fail(c, q, "model %d's solids end %zu bytes before its data size", (int)model, end - q);
        if (apply)
            swap32_run(data + pos, 4);
        pos = end + (size_t)key_size; /* keydata is text */
    }
}

static bspkit_result swap_physcollide(const swap_ctx *c, uint8_t *data, size_t size, bool *known)
{
    ivp_scratch scratch = {0};
    bspkit_result r = walk_physcollide(c, data, size, false, &scratch, known);
    if (r == BSPKIT_OK && *known)
        r = walk_physcollide(c, data, size, true, &scratch, known);
    free(scratch.kinds);
    free(scratch.stack);
    return r;
}

/* ------------------------------------------------------------------------ */
/* Lumps                                                                     */
/* ------------------------------------------------------------------------ */

bspkit_result bk_swap_lump(const bk_swap_target *t, int lump, int32_t lump_version, uint8_t *data, size_t size,
                           bool from_be, bool *known, bspkit_error *err)
{
    bk_error_clear(err);
    if (known)
        *known = false;
    if (!t || !known || (!data && size) || lump < 0 || lump >= BSPKIT_S_LUMP_COUNT)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, lump, -1, -1, "bk_swap_lump: invalid argument");
    lump_plan plan = plan_for(t, lump, lump_version);
    if (plan.kind == LK_GAME_LUMP)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, lump, -1, -1,
                       "GAME_LUMP holds file offsets: rebuild its directory and convert each game lump");
    if (size == 0 || plan.kind == LK_BYTES) {
        *known = true;
        return BSPKIT_OK;
    }
    if (plan.kind == LK_UNKNOWN)
        return BSPKIT_OK;

    swap_ctx c = {.code = BSPKIT_ERR_LUMP_SIZE, .lump = lump, .be = from_be, .err = err};
    snprintf(c.what, sizeof c.what, "%s", lump_name(t, lump));
    *known = true;
    switch (plan.kind) {
    case LK_SCHEMA:
        if (size % plan.schema->record_size)
            return ctx_fail(&c, size - size % plan.schema->record_size,
                            "%zu bytes is not a whole number of %u-byte records", size,
                            (unsigned)plan.schema->record_size);
        plan.schema->swap(data, size / plan.schema->record_size);
        return BSPKIT_OK;
    case LK_RECORDS: {
        record_layout l;
        if (!parse_layout(plan.spec, &l))
            return bk_fail(err, BSPKIT_ERR_ARGUMENT, lump, -1, -1, "%s: malformed record layout", c.what);
        if (size % l.size)
            return ctx_fail(&c, size - size % l.size, "%zu bytes is not a whole number of %zu-byte records", size,
                            l.size);
        swap_records(data, size / l.size, &l);
        return BSPKIT_OK;
    }
    case LK_VISIBILITY:
        c.code = BSPKIT_ERR_VISIBILITY;
        return swap_visibility(&c, data, size);
    case LK_OCCLUSION: return swap_occlusion(&c, lump_version, data, size, known);
    case LK_PHYSDISP: return swap_physdisp(&c, data, size);
    case LK_PHYSCOLLIDE: return swap_physcollide(&c, data, size, known);
    default: *known = false; return BSPKIT_OK;
    }
}

/* ------------------------------------------------------------------------ */
/* Game lumps                                                                */
/* ------------------------------------------------------------------------ */

#define GAME_LUMP_ID(a, b, c, d) (((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | ((uint32_t)(c) << 8) | (uint32_t)(d))
#define NAME_LENGTH 128 /* STATIC_PROP_NAME_LENGTH, DETAIL_NAME_LENGTH */

/* StaticPropLump_t fields shared by every version: Origin, Angles, PropType,
 * FirstLeaf, LeafCount, Solid, Flags, Skin. */
#define PROP_HEAD "4x6,2x3,1x2,4"

/* The record layout of a static prop, from the version and the bytes each
 * record takes (the version alone does not decide it), or NULL. */
static const char *static_prop_spec(uint16_t version, size_t record)
{
    static const struct {
        uint16_t version;
        uint16_t size;
        const char *spec;
    } layouts[] = {
        {4, 56, PROP_HEAD ",4x5"},             /* FadeMin/MaxDist, LightingOrigin */
        {5, 60, PROP_HEAD ",4x6"},             /* + ForcedFadeScale */
        {6, 64, PROP_HEAD ",4x6,2x2"},         /* + Min/MaxDXLevel */
        /* + DiffuseModulation (color32), as early Left 4 Dead maps have it. Zeno
         * Clash's 68-byte v7 ends in an int of unknown meaning instead; nothing
         * in the lump tells the two apart, and Zeno Clash never shipped on a console. */
        {7, 68, PROP_HEAD ",4x6,2x2,1x4"},
        /* Team Fortress 2 (numbered 7 or 10): Solid, a pad byte, Skin, fades,
         * LightingOrigin, ForcedFadeScale, DX levels, int Flags, lightmap resolution X/Y. */
        {7, 72, "4x6,2x3,1x2,4,4x6,2x2,4,2x2"},
        {10, 72, "4x6,2x3,1x2,4,4x6,2x2,4,2x2"},
        {8, 68, PROP_HEAD ",4x6,1x8"},         /* Left 4 Dead: CPU/GPU levels, DiffuseModulation */
        {9, 72, PROP_HEAD ",4x6,1x8,4"},       /* + DisableX360 (4-byte bool) */
        {10, 76, PROP_HEAD ",4x6,1x8,4x2"},    /* + FlagsEx */
        {11, 76, PROP_HEAD ",4x6,1x8,4x2"},    /* FlagsEx, UniformScale */
        {11, 80, PROP_HEAD ",4x6,1x8,4x3"},    /* FlagsEx, UniformScale, one more int */
        {12, 76, PROP_HEAD ",4x6,1x8,4x2"},    /* Strata: v11 records, 32-bit leaf list */
        {12, 80, PROP_HEAD ",4x6,1x8,4x3"},
        {13, 88, PROP_HEAD ",4x6,1x8,4x2,4x3"} /* Strata: + non-uniform scale vector */
    };
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++)
        if (layouts[i].version == version && layouts[i].size == record)
            return layouts[i].spec;
    return NULL;
}

/* Dictionary count + 128-byte names, leaf count + leaf indices, prop count + records. */
static bspkit_result swap_static_props(const swap_ctx *c, uint16_t version, uint8_t *data, size_t size,
                                       bool *known)
{
    if (version < 4 || version > 13) {
        *known = false;
        return BSPKIT_OK;
    }
    size_t leaf_width = version >= 12 ? 4 : 2;
    uint32_t names = 0, leafs = 0, props = 0;
    bspkit_result r = read_count(c, data, size, 0, "model name", &names);
    if (r == BSPKIT_OK)
        r = check_array(c, size, 4, names, NAME_LENGTH, "model names");
    size_t leaf_pos = 4 + (size_t)names * NAME_LENGTH;
    if (r == BSPKIT_OK)
        r = read_count(c, data, size, leaf_pos, "leaf", &leafs);
    if (r == BSPKIT_OK)
        r = check_array(c, size, leaf_pos + 4, leafs, leaf_width, "leaf indices");
    size_t prop_pos = leaf_pos + 4 + (size_t)leafs * leaf_width;
    if (r == BSPKIT_OK)
        r = read_count(c, data, size, prop_pos, "prop", &props);
    if (r != BSPKIT_OK)
        return r;
    size_t rest = size - prop_pos - 4;
    const char *spec = NULL;
    if (props == 0 ? rest == 0 : rest % props == 0)
        spec = props ? static_prop_spec(version, rest / props) : "";
    if (!spec) { /* a layout this version/size pair does not match: some game's own variant */
        *known = false;
        return BSPKIT_OK;
    }
    swap32_at(data);
    swap32_at(data + leaf_pos);
    if (leaf_width == 4)
        swap32_run(data + leaf_pos + 4, leafs);
    else
        swap16_run(data + leaf_pos + 4, leafs);
    swap32_at(data + prop_pos);
    if (props) {
        record_layout l;
        if (!parse_layout(spec, &l) || l.size != rest / props)
            return bk_fail(c->err, BSPKIT_ERR_ARGUMENT, c->lump, -1, -1, "%s: malformed record layout", c->what);
        swap_records(data + prop_pos + 4, props, &l);
    }
    return BSPKIT_OK;
}

/* Version 4: model dictionary, sprite dictionary (4 Vector2D), then
 * DetailObjectLump_t: Origin, Angles, DetailModel, Leaf, Lighting (4 bytes),
 * LightStyles (uint), LightStyleCount, Sway, ShapeAngle, ShapeSize,
 * Orientation, 3 pad, Type, 3 pad, flScale. */
static bspkit_result swap_detail_props(const swap_ctx *c, uint16_t version, uint8_t *data, size_t size,
                                       bool *known)
{
    if (version != 4) { /* Valve's own converter only knows version 4 past the dictionary */
        *known = false;
        return BSPKIT_OK;
    }
    static const char *const names[3] = {"detail model name", "detail sprite", "detail object"};
    static const size_t record[3] = {NAME_LENGTH, 32, 52};
    size_t at[3];
    uint32_t count[3];
    size_t pos = 0;
    for (int part = 0; part < 3; part++) {
        bspkit_result r = read_count(c, data, size, pos, names[part], &count[part]);
        if (r == BSPKIT_OK)
            r = check_array(c, size, pos + 4, count[part], record[part], names[part]);
        if (r != BSPKIT_OK)
            return r;
        at[part] = pos;
        pos += 4 + (size_t)count[part] * record[part];
    }
    if (pos != size)
        return ctx_fail(c, pos, "%zu bytes follow the detail objects", size - pos);
    record_layout object;
    if (!parse_layout("4x6,2x2,1x4,4,1x12,4", &object))
        return bk_fail(c->err, BSPKIT_ERR_ARGUMENT, c->lump, -1, -1, "%s: malformed record layout", c->what);
    for (int part = 0; part < 3; part++)
        swap32_at(data + at[part]);
    swap32_run(data + at[1] + 4, 8 * (size_t)count[1]);
    swap_records(data + at[2] + 4, count[2], &object);
    return BSPKIT_OK;
}

/* Count + DetailPropLightstylesLump_t {ColorRGBExp32, unsigned char style}: 5 bytes each. */
static bspkit_result swap_detail_lighting(const swap_ctx *c, uint16_t version, uint8_t *data, size_t size,
                                          bool *known)
{
    if (version != 0) {
        *known = false;
        return BSPKIT_OK;
    }
    uint32_t count;
    bspkit_result r = read_count(c, data, size, 0, "light style", &count);
    if (r == BSPKIT_OK)
        r = check_array(c, size, 4, count, 5, "light styles");
    if (r != BSPKIT_OK)
        return r;
    if (4 + (size_t)count * 5 != size)
        return ctx_fail(c, 4 + (size_t)count * 5, "%zu bytes follow the light styles", size - 4 - (size_t)count * 5);
    swap32_at(data);
    return BSPKIT_OK;
}

bspkit_result bk_swap_game_lump(const bk_swap_target *t, uint32_t id, uint16_t version, uint8_t *data, size_t size,
                                bool from_be, bool *known, bspkit_error *err)
{
    bk_error_clear(err);
    if (known)
        *known = false;
    if (!t || !known || (!data && size))
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, BSPKIT_S_GAME_LUMP, -1, -1, "bk_swap_game_lump: invalid argument");
    if (size == 0) {
        *known = true;
        return BSPKIT_OK;
    }
    swap_ctx c = {.code = BSPKIT_ERR_GAME_LUMP, .lump = BSPKIT_S_GAME_LUMP, .be = from_be, .err = err};
    char name[5];
    for (int i = 0; i < 4; i++) {
        uint8_t ch = (uint8_t)(id >> (24 - 8 * i));
        name[i] = ch >= 32 && ch < 127 ? (char)ch : '?';
    }
    name[4] = '\0';
    snprintf(c.what, sizeof c.what, "game lump '%s' v%u", name, (unsigned)version);
    *known = true;
    switch (id) {
    case GAME_LUMP_ID('s', 'p', 'r', 'p'): return swap_static_props(&c, version, data, size, known);
    case GAME_LUMP_ID('d', 'p', 'r', 'p'): return swap_detail_props(&c, version, data, size, known);
    case GAME_LUMP_ID('d', 'p', 'l', 't'):
    case GAME_LUMP_ID('d', 'p', 'l', 'h'): return swap_detail_lighting(&c, version, data, size, known);
    default: *known = false; return BSPKIT_OK;
    }
}
