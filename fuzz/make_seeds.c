/* Writes the seed corpora for the fuzz targets into a directory:
 *   open/      sample maps from the library's generator, a small Titanfall 2 map
 *              (a read-only family the generator does not write), plus headers of
 *              every magic bspkit recognises (also the seeds of the detect target)
 *   entities/  entity texts, well-formed and broken
 *   vis/       run-length streams, prefixed by a 2-byte row size
 *   stripper/  Stripper:Source configs
 *   diff/      two entity texts separated by a NUL byte
 *   entjson/   entity lists as JSON (the entity JSON codec)
 *   pak/       zip archives as a pakfile holds them (stored and LZMA entries)
 *   lzma/      a lump selector byte + the LZMA-compressed lumps of the sample map
 *   gamelump/  a version selector byte + GAME_LUMP bytes placed after a VBSP header
 * Seeds are generated rather than stored so no map file is kept in the tree. */
#include "bspkit/bspkit.h"
#include "bspkit/pak.h"
#include "bspkit/write.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *g_root;
static int g_failed;

/* ---- output ---------------------------------------------------------- */

static void make_dir(const char *path)
{
    if (mkdir(path, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "make_seeds: %s: %s\n", path, strerror(errno));
        g_failed = 1;
    }
}

static void write_seed(const char *dir, const char *name, const void *data, size_t size)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/%s", g_root, dir, name);
    FILE *f = fopen(path, "wb");
    if (f == NULL || (size > 0 && fwrite(data, 1, size, f) != size)) {
        fprintf(stderr, "make_seeds: %s: %s\n", path, strerror(errno));
        g_failed = 1;
    }
    if (f != NULL && fclose(f) != 0)
        g_failed = 1;
}

/* ---- a growable byte buffer for hand-made headers --------------------- */

typedef struct buf {
    uint8_t data[8192];
    size_t size;
} buf;

static void put(buf *b, const void *p, size_t n)
{
    if (n > sizeof b->data - b->size) {
        fprintf(stderr, "make_seeds: seed too large\n");
        exit(1);
    }
    memcpy(b->data + b->size, p, n);
    b->size += n;
}

static void put32(buf *b, uint32_t v, int big_endian)
{
    uint8_t p[4];
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(big_endian ? v >> (24 - 8 * i) : v >> (8 * i));
    put(b, p, 4);
}

static void put_le32(buf *b, uint32_t v) { put32(b, v, 0); }

static uint32_t get_le32(const buf *b, size_t at)
{
    return (uint32_t)b->data[at] | (uint32_t)b->data[at + 1] << 8 | (uint32_t)b->data[at + 2] << 16 |
           (uint32_t)b->data[at + 3] << 24;
}

static void set_le32(buf *b, size_t at, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b->data[at + (size_t)i] = (uint8_t)(v >> (8 * i));
}

static void align4(buf *b)
{
    static const uint8_t zero[4];
    put(b, zero, (4 - b->size % 4) % 4);
}

static void emit(const char *name, const buf *b)
{
    write_seed("open", name, b->data, b->size);
}

static const char WORLDSPAWN[] = "{\n\"classname\" \"worldspawn\"\n\"wad\" \"\\half-life\\valve\\halflife.wad\"\n}\n"
                                 "{\n\"classname\" \"info_player_start\"\n\"origin\" \"0 0 64\"\n}\n";

/* ---- Quake / GoldSrc: int32 version or 4-byte magic, 15 {offset, length} */

enum { Q_LUMPS = 15, Q_HEADER = 4 + Q_LUMPS * 8 };

/* Header whose every lump is empty except ENTITIES at directory slot
 * `entity_slot` (1 swaps ENTITIES and PLANES as Blue Shift does). */
static void quake_header(buf *b, const char magic[4], int entity_slot, int bspx)
{
    b->size = 0;
    put(b, magic, 4);
    size_t dir = b->size;
    for (int i = 0; i < Q_LUMPS; i++) {
        put_le32(b, Q_HEADER);
        put_le32(b, 0);
    }
    size_t ents = b->size;
    put(b, WORLDSPAWN, sizeof WORLDSPAWN);
    set_le32(b, dir + (size_t)entity_slot * 8, (uint32_t)ents);
    set_le32(b, dir + (size_t)entity_slot * 8 + 4, (uint32_t)sizeof WORLDSPAWN);
    for (int i = 0; i < Q_LUMPS; i++)
        if (i != entity_slot)
            set_le32(b, dir + (size_t)i * 8, (uint32_t)b->size);
    if (bspx) {
        /* BSPX block after the last lump: magic, count, {name[24], ofs, len}. */
        align4(b);
        put(b, "BSPX", 4);
        put_le32(b, 1);
        char name[24] = "RGBLIGHTING";
        put(b, name, sizeof name);
        put_le32(b, (uint32_t)b->size + 8);
        put_le32(b, 3);
        put(b, "\x10\x20\x30", 3);
    }
}

static void quake_seeds(void)
{
    buf b;
    const char v29[4] = {29, 0, 0, 0}, v30[4] = {30, 0, 0, 0};
    quake_header(&b, v29, 0, 0);
    emit("quake-bsp29-entities-only", &b);
    quake_header(&b, "BSP2", 0, 0);
    emit("quake-bsp2-entities-only", &b);
    quake_header(&b, "2PSB", 0, 0);
    emit("quake-2psb-entities-only", &b);
    quake_header(&b, v30, 0, 0);
    emit("goldsrc-entities-only", &b);
    quake_header(&b, v30, 1, 0);
    emit("goldsrc-blueshift-entities-only", &b);
    quake_header(&b, v30, 0, 1);
    emit("goldsrc-bspx", &b);

    /* Directory cut short. */
    quake_header(&b, v30, 0, 0);
    b.size = Q_HEADER - 5;
    emit("goldsrc-truncated-directory", &b);

    /* A lump reaching past the end of the file. */
    quake_header(&b, v30, 0, 0);
    set_le32(&b, 4 + 8 * 3 + 4, 0x7ffffff0u);
    emit("goldsrc-lump-out-of-range", &b);

    /* Vertex lump whose length is not a whole number of records. */
    quake_header(&b, v30, 0, 0);
    put(&b, "\x01\x02\x03\x04\x05\x06\x07", 7);
    set_le32(&b, 4 + 8 * 3, (uint32_t)b.size - 7);
    set_le32(&b, 4 + 8 * 3 + 4, 7);
    emit("goldsrc-partial-record", &b);
}

/* ---- Source: magic, version, 64 lump_t, map revision ------------------ */

enum { S_LUMPS = 64, S_HEADER = 8 + S_LUMPS * 16 + 4 };

typedef struct source_lump {
    int index;
    const void *data;
    uint32_t size;
    uint32_t version;
    uint32_t fourcc; /* uncompressed size for LZMA lumps */
} source_lump;

/* A Source map holding `lumps`; every other lump is empty. `l4d2` stores
 * lump_t as {version, offset, length, fourCC}. */
static void source_map(buf *b, int32_t version, int big_endian, int l4d2, const source_lump *lumps, int n)
{
    b->size = 0;
    put(b, big_endian ? "PSBV" : "VBSP", 4);
    put32(b, (uint32_t)version, big_endian);
    size_t dir = b->size;
    for (int i = 0; i < S_LUMPS * 4; i++)
        put32(b, 0, big_endian);
    put32(b, 7, big_endian); /* map revision */
    for (int k = 0; k < n; k++) {
        align4(b);
        uint32_t fields[4] = {(uint32_t)b->size, lumps[k].size, lumps[k].version, lumps[k].fourcc};
        if (l4d2) {
            fields[0] = lumps[k].version;
            fields[1] = (uint32_t)b->size;
            fields[2] = lumps[k].size;
        }
        put(b, lumps[k].data, lumps[k].size);
        buf entry = {.size = 0};
        for (int f = 0; f < 4; f++)
            put32(&entry, fields[f], big_endian);
        memcpy(b->data + dir + (size_t)lumps[k].index * 16, entry.data, 16);
    }
}

static void source_seeds(void)
{
    buf b;
    const source_lump ents = {BSPKIT_S_ENTITIES, WORLDSPAWN, sizeof WORLDSPAWN, 0, 0};

    source_map(&b, 20, 0, 0, &ents, 1);
    emit("source-v20-entities-only", &b);
    source_map(&b, 20, 1, 0, &ents, 1);
    emit("source-v20-big-endian", &b);
    source_map(&b, 21, 0, 1, &ents, 1);
    emit("source-v21-l4d2-directory", &b);
    source_map(&b, 19, 0, 0, &ents, 1);
    emit("source-v19", &b);
    source_map(&b, 0x40014, 0, 0, &ents, 1);
    emit("source-dark-messiah", &b);

    /* An entity block without pairs, then a stray brace. */
    static const char empty_block[] = "{\n}}\n";
    const source_lump bad_ents = {BSPKIT_S_ENTITIES, empty_block, sizeof empty_block, 0, 0};
    source_map(&b, 20, 0, 0, &bad_ents, 1);
    emit("source-entities-empty-block-stray-close", &b);

    /* Visibility: 2 clusters, {pvs, pas} offsets, then one run-length row each. */
    static const uint8_t vis[] = {2, 0, 0, 0,  20, 0, 0, 0, 22, 0, 0, 0,  24, 0, 0, 0, 26, 0, 0, 0,
                                  0x03, 0x00, 0x01, 0x00, 0x02, 0x00, 0x03, 0x00};
    /* A lump flagged LZMA whose stream is not valid. */
    static const uint8_t lzma[] = {'L', 'Z', 'M', 'A', 64, 0, 0, 0, 8, 0, 0, 0, 0x5d, 0, 0, 1, 0,
                                   1, 2, 3, 4, 5, 6, 7, 8};
    /* Game lump directory: one static-prop lump plus the terminating entry. */
    uint8_t gamelump[4 + 2 * 16 + 12] = {2, 0, 0, 0};
    const source_lump full[] = {
        ents,
        {BSPKIT_S_VISIBILITY, vis, sizeof vis, 0, 0},
        {BSPKIT_S_PLANES, lzma, sizeof lzma, 0, 64},
        {BSPKIT_S_GAME_LUMP, gamelump, sizeof gamelump, 0, 0},
    };
    /* The game lump offsets are absolute, so lay the map out once to learn
     * where GAME_LUMP lands, then fill its directory in and lay it out again. */
    source_map(&b, 20, 0, 0, full, 4);
    uint32_t gl_ofs = get_le32(&b, 8 + BSPKIT_S_GAME_LUMP * 16);
    buf g = {.size = 0};
    put_le32(&g, 2);
    put_le32(&g, 0x73707270u); /* 'sprp' */
    put(&g, "\x00\x00\x0a\x00", 4); /* flags 0, version 10 */
    put_le32(&g, gl_ofs + 36);
    put_le32(&g, 12);
    put(&g, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16); /* terminating entry */
    put(&g, "\0\0\0\0\0\0\0\0\0\0\0\0", 12);         /* no model names, leafs or props */
    memcpy(gamelump, g.data, sizeof gamelump);
    source_map(&b, 20, 0, 0, full, 4);
    emit("source-v20-vis-lzma-gamelump", &b);

    /* Directory filled with noise. */
    source_map(&b, 20, 0, 0, NULL, 0);
    uint32_t x = 0x2545F491u;
    for (size_t i = 8; i < S_HEADER - 4; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        b.data[i] = (uint8_t)x;
    }
    emit("source-garbage-directory", &b);

    source_map(&b, 20, 0, 0, NULL, 0);
    b.size = 100;
    emit("source-truncated-directory", &b);
}

/* ---- Titanfall 2: "rBSP", 37, revision, 127, then 128 {offset, length, version, fourCC} */

enum { R2_LUMPS = 128, R2_HEADER = 16 + 16 * R2_LUMPS };

static void put_f32(buf *b, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    put_le32(b, u);
}

static void put_le16(buf *b, uint16_t v)
{
    const uint8_t p[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    put(b, p, 2);
}

/* Appends lump `lump` (its bytes written by the caller since `start`) to the directory. */
static void r2_entry(buf *b, int lump, size_t start, uint32_t version)
{
    set_le32(b, 16 + 16 * (size_t)lump, (uint32_t)start);
    set_le32(b, 20 + 16 * (size_t)lump, (uint32_t)(b->size - start));
    set_le32(b, 24 + 16 * (size_t)lump, version);
    align4(b);
}

/* One textured triangle: the lumps a mesh is drawn from and the model that owns it. */
static void titanfall_map(buf *b)
{
    b->size = 0;
    put(b, "rBSP", 4);
    put_le32(b, 37);
    put_le32(b, 1);
    put_le32(b, 127);
    while (b->size < R2_HEADER)
        put_le32(b, 0);
    size_t at = b->size;
    put(b, "{\n\"classname\" \"worldspawn\"\n}\n", 29);
    r2_entry(b, 0, at, 0);
    at = b->size; /* PLANES: normal, distance */
    put_f32(b, 0), put_f32(b, 0), put_f32(b, 1), put_f32(b, 0);
    r2_entry(b, 1, at, 1);
    at = b->size; /* TEXTURE_DATA: reflectivity, name index, size, view size, flags */
    put_f32(b, 0), put_f32(b, 0), put_f32(b, 0);
    put_le32(b, 0), put_le32(b, 64), put_le32(b, 64), put_le32(b, 64), put_le32(b, 64), put_le32(b, 0);
    r2_entry(b, 2, at, 1);
    at = b->size; /* VERTICES */
    for (int v = 0; v < 3; v++)
        put_f32(b, v == 1 ? 64.0f : 0), put_f32(b, v == 2 ? 64.0f : 0), put_f32(b, 0);
    r2_entry(b, 3, at, 0);
    at = b->size; /* MODELS: mins, maxs, first mesh, mesh count */
    put_f32(b, 0), put_f32(b, 0), put_f32(b, 0), put_f32(b, 64), put_f32(b, 64), put_f32(b, 0);
    put_le32(b, 0), put_le32(b, 1);
    r2_entry(b, 14, at, 0);
    at = b->size; /* VERTEX_NORMALS */
    put_f32(b, 0), put_f32(b, 0), put_f32(b, 1);
    r2_entry(b, 30, at, 0);
    at = b->size;
    put(b, "dev/floor", 10);
    r2_entry(b, 43, at, 0);
    at = b->size; /* TEXTURE_DATA_STRING_TABLE */
    put_le32(b, 0);
    r2_entry(b, 44, at, 0);
    at = b->size; /* VERTEX_LIT_FLAT: position, normal, uv, colour, lightmap uv and step */
    for (uint32_t v = 0; v < 3; v++) {
        put_le32(b, v), put_le32(b, 0), put_f32(b, 0), put_f32(b, 0), put_le32(b, 0xFFFFFFFFu);
        put_f32(b, 0), put_f32(b, 0), put_f32(b, 0), put_f32(b, 0);
    }
    r2_entry(b, 72, at, 1);
    at = b->size; /* MESH_INDICES */
    put_le16(b, 0), put_le16(b, 2), put_le16(b, 1);
    r2_entry(b, 79, at, 0);
    at = b->size; /* MESHES: first index, triangles, first vertex, vertices, type, cubemap, styles,
                   * luxel origin and offset, material sort, flags */
    put_le32(b, 0), put_le16(b, 1), put_le16(b, 0), put_le16(b, 3), put_le16(b, 0xFF00), put_le32(b, 0xFFFFFF00u);
    put_le32(b, 0), put_le16(b, 0), put_le16(b, 0), put_le32(b, 0x100000);
    r2_entry(b, 80, at, 0);
    at = b->size; /* MESH_BOUNDS */
    for (int k = 0; k < 8; k++)
        put_f32(b, 32);
    r2_entry(b, 81, at, 0);
    at = b->size; /* MATERIAL_SORTS: texture data, lightmap header, cubemap, last vertex, vertex offset */
    put_le16(b, 0), put_le16(b, 0xFFFF), put_le16(b, 0xFFFF), put_le16(b, 2), put_le32(b, 0);
    r2_entry(b, 82, at, 0);
}

static void titanfall_seeds(void)
{
    buf b;
    titanfall_map(&b);
    emit("titanfall-r2-triangle", &b);
    b.size = R2_HEADER - 16;
    emit("titanfall-r2-truncated-directory", &b);
    titanfall_map(&b);
    set_le32(&b, 20 + 16 * 80, 27); /* MESHES one byte short of a record */
    emit("titanfall-r2-partial-record", &b);
}

/* ---- header-only maps of the IBSP families, and formats only named ---- */

static void other_seeds(void)
{
    buf b;
    static const struct { const char *name; const char *magic; uint32_t version; int lumps; } known[] = {
        {"quake2-ibsp38", "IBSP", 38, 19},
        {"quake3-ibsp46", "IBSP", 46, 17},
        {"rtcw-ibsp47", "IBSP", 47, 17},
        {"respawn-rbsp", "rBSP", 29, 128},
    };
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) {
        b.size = 0;
        put(&b, known[k].magic, 4);
        put_le32(&b, known[k].version);
        for (int i = 0; i < known[k].lumps; i++) {
            put_le32(&b, 8 + (uint32_t)known[k].lumps * 8);
            put_le32(&b, 0);
        }
        emit(known[k].name, &b);
    }
    b.size = 0;
    put(&b, "PK\x03\x04\x14\x00\x00\x00\x08\x00", 10);
    put(&b, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 20);
    emit("zip-archive", &b);
    emit("empty", &(buf){.size = 0});
    b.size = 0;
    put(&b, "\x1e\x00", 2);
    emit("two-bytes", &b);
    b.size = 0;
    put(&b, "not a map at all\n", 17);
    emit("text", &b);
}

/* ---- maps from the library's own generator ----------------------------- */

/* Writes `name` as a copy of `data` with `len` bytes at `at` set to 0xFF. */
static void emit_patched(const char *name, const uint8_t *data, size_t size, size_t at, size_t len)
{
    uint8_t *copy = malloc(size);
    if (copy == NULL || at > size || len > size - at) {
        free(copy);
        return;
    }
    memcpy(copy, data, size);
    memset(copy + at, 0xFF, len);
    write_seed("open", name, copy, size);
    free(copy);
}

/* Variants of a sample that reach the deepest checks: all-ones bytes are a
 * NaN float in either byte order, and as LZMA properties they ask for a
 * 4 GiB dictionary. */
static void sample_variants(const char *sample, const uint8_t *data, size_t size)
{
    bspkit_map *map = NULL;
    if (bspkit_open_memory(data, size, NULL, &map, NULL) != BSPKIT_OK)
        return;
    char name[96];
    bspkit_lump_info info;
    /* TEXINFO has index 6 in every family. */
    if (bspkit_get_lump_info(map, BSPKIT_Q_TEXINFO, &info) == BSPKIT_OK && !info.compressed && info.length >= 4) {
        snprintf(name, sizeof name, "%s-nan-texinfo", sample);
        emit_patched(name, data, size, info.offset, 4);
    }
    for (int i = 0; i < bspkit_lump_count(map); i++) {
        if (bspkit_get_lump_info(map, i, &info) == BSPKIT_OK && info.compressed) {
            snprintf(name, sizeof name, "%s-huge-lzma-dictionary", sample);
            emit_patched(name, data, size, (size_t)info.offset + 13, 4);
            break;
        }
    }
    bspkit_close(map);
}

/* lzma/: [lump index][stored bytes] for each compressed lump of a sample. */
static void lzma_seeds(const char *sample, const uint8_t *data, size_t size)
{
    bspkit_map *map = NULL;
    if (bspkit_open_memory(data, size, NULL, &map, NULL) != BSPKIT_OK)
        return;
    bspkit_lump_info info;
    for (int i = 0; i < bspkit_lump_count(map); i++) {
        if (bspkit_get_lump_info(map, i, &info) != BSPKIT_OK || !info.compressed ||
            (uint64_t)info.offset + info.length > size)
            continue;
        uint8_t *seed = malloc((size_t)info.length + 1);
        if (seed == NULL)
            break;
        seed[0] = (uint8_t)i;
        memcpy(seed + 1, data + info.offset, info.length);
        char name[96];
        snprintf(name, sizeof name, "%s-lump%d", sample, i);
        write_seed("lzma", name, seed, (size_t)info.length + 1);
        free(seed);
    }
    bspkit_close(map);
}

static void sample_seeds(void)
{
    for (int k = 0; k < BSPKIT_SAMPLE_COUNT; k++) {
        uint8_t *data = NULL;
        size_t size = 0;
        bspkit_error err;
        bspkit_result r = bspkit_sample_build((bspkit_sample_kind)k, &data, &size, &err);
        if (r == BSPKIT_ERR_UNSUPPORTED)
            continue; /* a flavour this build cannot write */
        if (r != BSPKIT_OK) {
            fprintf(stderr, "make_seeds: sample %s: %s\n", bspkit_sample_name((bspkit_sample_kind)k), err.message);
            g_failed = 1;
            continue;
        }
        char name[64];
        snprintf(name, sizeof name, "sample-%s", bspkit_sample_name((bspkit_sample_kind)k));
        write_seed("open", name, data, size);
        sample_variants(name, data, size);
        lzma_seeds(name, data, size);
        bspkit_free_buffer(data);
    }
}

/* ---- entity text -------------------------------------------------------- */

static void entity_seeds(void)
{
    static const struct { const char *name; const char *text; } seeds[] = {
        {"worldspawn", WORLDSPAWN},
        {"crlf", "{\r\n\"classname\" \"worldspawn\"\r\n}\r\n"},
        {"quoted-braces", "{\n\"classname\" \"logic_relay\"\n\"OnTrigger\" \"a,Kill,{x},0,-1\"\n"
                          "\"message\" \"two\nlines }\"\n}\n"},
        {"unquoted", "{\nclassname worldspawn\norigin \"0 0 0\"\n}\n"},
        {"backslashes", "{\n\"wad\" \"c:\\maps\\a.wad;\\\\server\\b.wad\"\n}\n"},
        {"duplicate-keys", "{\n\"OnTrigger\" \"a\"\n\"OnTrigger\" \"b\"\n\"classname\" \"x\"\n}\n"},
        {"many", "{\n\"classname\" \"worldspawn\"\n}\n{\n\"classname\" \"light\"\n\"_light\" \"255 255 255 200\"\n}\n"
                 "{\n}\n{\n\"\" \"\"\n}\n"},
        {"trailing-junk", "{\n\"classname\" \"worldspawn\"\n}\n\x01\x02junk"},
        {"comment", "// header\n{\n\"classname\" \"worldspawn\" // trailing\n}\n"},
        {"unterminated-string", "{\n\"classname\" \"worldsp"},
        {"unterminated-block", "{\n\"classname\" \"worldspawn\"\n"},
        {"key-without-value", "{\n\"classname\"\n}\n"},
        {"stray-close", "}\n{\n\"classname\" \"worldspawn\"\n}\n"},
        {"nested-open", "{\n{\n\"a\" \"b\"\n}\n"},
        {"only-empty-block", "{\n}\n"},
        {"blank", " \t\r\n"},
        {"empty", ""},
    };
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++)
        write_seed("entities", seeds[i].name, seeds[i].text, strlen(seeds[i].text));
    /* Parsing stops at the first NUL. */
    static const char with_nul[] = "{\n\"classname\" \"worldspawn\"\n}\n\0{\n\"a\" \"b\"\n}\n";
    write_seed("entities", "embedded-nul", with_nul, sizeof with_nul - 1);
}

/* ---- visibility streams: uint16 row size, then runs --------------------- */

static void vis_seeds(void)
{
    static const struct { const char *name; uint8_t bytes[16]; size_t size; } seeds[] = {
        {"literal", {4, 0, 0xff, 0x01, 0x80, 0x7f}, 6},
        {"runs", {8, 0, 0x01, 0x00, 0x03, 0x02, 0x00, 0x03, 0x04}, 9},
        {"two-rows", {2, 0, 0x00, 0x02, 0x05, 0x06}, 6},
        {"zero-count", {2, 0, 0x00, 0x00, 0x09, 0x0a}, 6},
        {"run-overflows", {2, 0, 0x00, 0x09}, 4},
        {"ends-early", {6, 0, 0x01, 0x02}, 4},
        {"ends-in-run", {6, 0, 0x01, 0x00}, 4},
        {"empty-row", {0, 0, 0x01}, 3},
        {"wide-row", {0x00, 0x01, 0x00, 0xff, 0x00, 0x01}, 6},
    };
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++)
        write_seed("vis", seeds[i].name, seeds[i].bytes, seeds[i].size);
}

/* ---- Stripper configs and pakfiles ------------------------------------------ */

/* Two entity texts separated by a NUL byte: A and B for the comparison. */
static void diff_seeds(void)
{
    static const struct { const char *name; const char *a, *b; } seeds[] = {
        {"edit", "{\n\"classname\" \"light\"\n\"origin\" \"0 0 0\"\n}\n{\n\"classname\" \"info_target\"\n\"targetname\" \"t\"\n}\n",
         "{\n\"classname\" \"light\"\n\"origin\" \"0 0 8\"\n\"_light\" \"255 0 0 200\"\n}\n"
         "{\n\"classname\" \"logic_relay\"\n\"OnTrigger\" \"t,Kill,,0,-1\"\n}\n"},
        {"duplicates", "{ \"classname\" \"light\" }\n{ \"classname\" \"light\" }\n{ \"classname\" \"light\" \"x\" \"/y/\" }\n",
         "{ \"classname\" \"light\" \"x\" \"/y/\" }\n{ \"classname\" \"Light\" }\n"},
        {"outputs", "{ \"classname\" \"logic_relay\" \"hammerid\" \"4\" \"OnTrigger\" \"a,Open,,0,-1\" \"OnTrigger\" \"b,Open,,0,-1\" }\n",
         "{ \"classname\" \"logic_relay\" \"hammerid\" \"4\" \"OnTrigger\" \"b,Open,,0,-1\" \"OnTrigger\" \"a,Open,,0,-1\" }\n"},
    };
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
        size_t na = strlen(seeds[i].a), nb = strlen(seeds[i].b);
        char pair[1024];
        memcpy(pair, seeds[i].a, na);
        pair[na] = '\0';
        memcpy(pair + na + 1, seeds[i].b, nb);
        write_seed("diff", seeds[i].name, pair, na + 1 + nb);
    }
}

static void stripper_seeds(void)
{
    static const struct { const char *name; const char *text; } seeds[] = {
        {"filter", "filter:\n{\n\"classname\" \"info_player_start\"\n}\n"},
        {"add", "add:\n{\n\"classname\" \"info_target\"\n\"origin\" \"1 2 3\"\n}\n"},
        {"modify", "; comment\nmodify:\n{\n\tmatch:\n\t{\n\t\"classname\" \"/^logic_.*$/\"\n\t}\n"
                   "\treplace:\n\t{\n\t\"targetname\" \"r2\"\n\t}\n\tdelete:\n\t{\n\t\"OnTrigger\" "
                   "\"/Close/\"\n\t}\n\tinsert:\n\t{\n\t\"spawnflags\" \"1\"\n\t}\n}\n"},
        {"several", "remove:\n{\n\"targetname\" \"door\"\n}\n{\n\"classname\" \"/^info_/\"\n}\n// end\n"},
    };
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++)
        write_seed("stripper", seeds[i].name, seeds[i].text, strlen(seeds[i].text));
}

static void entjson_seeds(void)
{
    static const struct { const char *name; const char *text; } seeds[] = {
        {"list", "[{\"classname\": \"worldspawn\", \"wad\": \"a.wad\"},\n"
                 " {\"classname\": \"logic_relay\", \"OnTrigger\": [\"a,B,,0,-1\", \"c,D,,1,-1\"], \"spawnflags\": 3}]"},
        {"one-object", "{\"classname\": \"info_player_start\", \"origin\": \"0 0 64\"}"},
        {"bom-and-unicode", "\xEF\xBB\xBF[{\"message\": \"caf\\u00e9 \\\"quoted\\\"\"}]"},
        {"bad-type", "[{\"a\": 1.5}, {\"b\": null}]"},
        {"empty", "[]"},
    };
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++)
        write_seed("entjson", seeds[i].name, seeds[i].text, strlen(seeds[i].text));
}

static void pak_seeds(void)
{
    static const char vmt[] = "\"LightmappedGeneric\"\n{\n\"$basetexture\" \"brick/brickwall\"\n}\n";
    static const bspkit_pak_method methods[] = {BSPKIT_PAK_STORE, BSPKIT_PAK_LZMA};
    static const char *const names[] = {"stored", "lzma"};
    for (size_t m = 0; m < 2; m++) {
        bspkit_pak *pak = NULL;
        bspkit_error err;
        uint8_t *zip = NULL;
        size_t size = 0;
        if (bspkit_pak_open(NULL, 0, NULL, &pak, &err) != BSPKIT_OK ||
            bspkit_pak_add(pak, "materials/test/wall.vmt", vmt, sizeof vmt - 1, &err) != BSPKIT_OK ||
            bspkit_pak_add(pak, "maps/test.txt", "bspkit pakfile seed\n", 20, &err) != BSPKIT_OK ||
            bspkit_pak_write(pak, methods[m], &zip, &size, &err) != BSPKIT_OK) {
            fprintf(stderr, "make_seeds: pakfile seed: %s\n", err.message);
            g_failed = 1;
        } else {
            write_seed("pak", names[m], zip, size);
        }
        free(zip);
        bspkit_pak_close(pak);
    }
}

/* ---- game lumps ---------------------------------------------------------- */

static size_t put_le(uint8_t *p, uint32_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (uint8_t)(v >> (8 * i));
    return (size_t)bytes;
}

/* A GAME_LUMP holding a static-prop lump (one model name, one leaf, `props`
 * zeroed records of `record` bytes) and an empty detail-prop lump, with
 * offsets absolute for a lump placed right after the 1036-byte header. */
static void gamelump_seed(const char *name, uint8_t selector, uint16_t sprp_version, uint32_t record, uint32_t props)
{
    uint8_t lump_bytes[2048];
    memset(lump_bytes, 0, sizeof lump_bytes);
    const uint32_t base = 1036;
    size_t dir = 4 + 2 * 16;
    size_t sprp_size = 4 + 128 + 4 + 2 + 4 + (size_t)record * props;
    size_t dprp_size = 12;
    if (1 + dir + sprp_size + dprp_size > sizeof lump_bytes)
        return;
    uint8_t *g = lump_bytes + 1;
    lump_bytes[0] = selector;
    size_t o = 0;
    o += put_le(g + o, 2, 4);
    o += put_le(g + o, 0x73707270u, 4); /* 'sprp' */
    o += put_le(g + o, 0, 2);
    o += put_le(g + o, sprp_version, 2);
    o += put_le(g + o, base + (uint32_t)dir, 4);
    o += put_le(g + o, (uint32_t)sprp_size, 4);
    o += put_le(g + o, 0x64707270u, 4); /* 'dprp' */
    o += put_le(g + o, 0, 2);
    o += put_le(g + o, 4, 2);
    o += put_le(g + o, base + (uint32_t)(dir + sprp_size), 4);
    o += put_le(g + o, (uint32_t)dprp_size, 4);
    o += put_le(g + o, 1, 4);
    memcpy(g + o, "models/props/bk_crate.mdl", 25);
    o += 128;
    o += put_le(g + o, 1, 4);
    o += put_le(g + o, 0, 2);
    o += put_le(g + o, props, 4);
    o += (size_t)record * props;
    /* dprp: no models, no sprites, no props */
    o += 12;
    write_seed("gamelump", name, lump_bytes, 1 + o);
}

static void gamelump_seeds(void)
{
    gamelump_seed("sprp-v5", 1, 5, 60, 2);
    gamelump_seed("sprp-v6", 1, 6, 64, 1);
    gamelump_seed("sprp-v10-sdk2013", 1, 10, 72, 2);
    gamelump_seed("sprp-v10-csgo", 2, 10, 76, 1);
    gamelump_seed("sprp-v11", 2, 11, 80, 1);
    gamelump_seed("sprp-v13", 3, 13, 84, 1);
    gamelump_seed("sprp-v4", 0, 4, 56, 1);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_seeds OUTDIR\n");
        return 64;
    }
    g_root = argv[1];
    char path[4096];
    static const char *dirs[] = {"open", "entities", "vis", "stripper", "entjson", "pak", "lzma", "gamelump", "diff"};
    make_dir(g_root);
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", g_root, dirs[i]);
        make_dir(path);
    }
    if (g_failed)
        return 1;
    quake_seeds();
    source_seeds();
    titanfall_seeds();
    other_seeds();
    sample_seeds();
    entity_seeds();
    vis_seeds();
    stripper_seeds();
    diff_seeds();
    entjson_seeds();
    pak_seeds();
    gamelump_seeds();
    return g_failed ? 1 : 0;
}
