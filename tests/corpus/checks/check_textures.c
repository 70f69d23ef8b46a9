/*
 * Corpus check for textures over MAPS_DIR:
 *  - every WAD file: its directory and each WAD3 miptex parsed here by this
 *    file's own code (header, mip 0 offset, palette after mip 3), and every
 *    pixel bspkit decodes compared with palette[index] ('{' names: index 255
 *    transparent);
 *  - every Source map's pakfile .vtf: the header parses, supported formats
 *    decode to the header's size; figures per format;
 *  - Quake/GoldSrc maps resolved with every corpus directory holding WADs as
 *    search paths: embedded/wad/missing counts, and every found texture
 *    decodes.
 * Usage: corpus_check_textures MAPS_DIR
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include "bspkit/pak.h"
#include "bspkit/textures.h"
#include "core/bytes.h"
#include "corpus_walk.h"

#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

static int failures;
static size_t wads, wad_textures, pixels_compared, maps, vtfs, vtf_decoded, by_source[4], tex_decoded;
static char *wad_dirs[256];
static size_t wad_dir_count;
static struct { const char *name; size_t seen, decoded; } formats[64];

static void fail(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(const char *what, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL %s: ", what);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    failures++;
}

static uint8_t *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *d = malloc(n > 0 ? (size_t)n : 1);
    if (d && fread(d, 1, (size_t)n, f) != (size_t)n) {
        free(d);
        d = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return d;
}

/* One WAD: independent parse of each miptex, pixel by pixel. */
static void check_wad(const char *path)
{
    size_t size;
    uint8_t *d = slurp(path, &size);
    bspkit_wad *wad;
    bspkit_error err;
    if (!d || bspkit_wad_open_memory(d, size, &wad, &err) != BSPKIT_OK) {
        fail(path, "%s", d ? err.message : "unreadable");
        free(d);
        return;
    }
    wads++;
    uint32_t count = rd_le32(d + 4), dir = rd_le32(d + 8);
    if (bspkit_wad_count(wad) != count)
        fail(path, "%zu entries, header says %u", bspkit_wad_count(wad), count);
    for (uint32_t i = 0; i < count && memcmp(d, "WAD3", 4) == 0; i++) {
        const uint8_t *e = d + dir + 32 * (size_t)i;
        uint32_t ofs = rd_le32(e), len = rd_le32(e + 4);
        if (e[12] != 0x43 || e[13] != 0 || !range_ok(ofs, len, size) || len < 40)
            continue;
        const uint8_t *m = d + ofs;
        uint32_t w = rd_le32(m + 16), h = rd_le32(m + 20), mip0 = rd_le32(m + 24), mip3 = rd_le32(m + 36);
        uint64_t pal = (uint64_t)mip3 + (w / 8) * (h / 8);
        if (w == 0 || h == 0 || !range_ok(mip0, (uint64_t)w * h, len) || !range_ok(pal, 2 + 768, len)) {
            fail(path, "entry %u: miptex layout outside the entry", i);
            continue;
        }
        char name[17] = {0};
        memcpy(name, e + 16, 16);
        bspkit_image img;
        if (bspkit_wad_load_image(wad, i, &img, &err) != BSPKIT_OK) {
            fail(path, "entry %u '%s': %s", i, name, err.message);
            continue;
        }
        wad_textures++;
        const uint8_t *px = m + mip0, *colours = m + pal + 2;
        for (uint64_t p = 0; p < (uint64_t)w * h; p++, pixels_compared++) {
            uint8_t k = px[p];
            uint8_t want[4] = {colours[3 * k], colours[3 * k + 1], colours[3 * k + 2], 255};
            if (name[0] == '{' && k == 255)
                memset(want, 0, 4);
            if (memcmp(img.rgba + 4 * p, want, 4) != 0) {
                fail(path, "entry %u '%s' pixel %llu differs", i, name, (unsigned long long)p);
                break;
            }
        }
        bspkit_image_free(&img);
    }
    bspkit_wad_close(wad);
    free(d);
}

static int on_file(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    size_t n = strlen(path);
    if (type == FTW_F && n > 4 && strcasecmp(path + n - 4, ".wad") == 0) {
        check_wad(path);
        /* Its directory becomes a search path for the maps. */
        size_t dl = n - strlen(strrchr(path, '/'));
        bool known = false;
        for (size_t i = 0; i < wad_dir_count && !known; i++)
            known = strlen(wad_dirs[i]) == dl && strncmp(wad_dirs[i], path, dl) == 0;
        if (!known && wad_dir_count < 256)
            wad_dirs[wad_dir_count++] = strndup(path, dl);
    }
    return 0;
}

static void count_format(const char *name, bool decoded)
{
    size_t i = 0;
    while (i < 64 && formats[i].name && strcmp(formats[i].name, name) != 0)
        i++;
    if (i == 64)
        return;
    formats[i].name = name;
    formats[i].seen++;
    formats[i].decoded += decoded;
}

static void check_pak_vtfs(const char *rel, bspkit_map *map)
{
    const uint8_t *zip;
    size_t zsize;
    bspkit_pak *pak;
    bspkit_error err;
    if (bspkit_get_pakfile(map, &zip, &zsize, &err) != BSPKIT_OK || zsize == 0)
        return;
    if (bspkit_pak_open(zip, zsize, NULL, &pak, &err) != BSPKIT_OK) {
        fail(rel, "pakfile: %s", err.message);
        return;
    }
    for (size_t i = 0; i < bspkit_pak_count(pak); i++) {
        bspkit_pak_entry e;
        bspkit_pak_entry_info(pak, i, &e, NULL);
        size_t n = strlen(e.name);
        if (n < 4 || strcasecmp(e.name + n - 4, ".vtf") != 0)
            continue;
        uint8_t *data;
        size_t size;
        if (bspkit_pak_read(pak, i, &data, &size, &err) != BSPKIT_OK) {
            fail(rel, "%s: %s", e.name, err.message);
            continue;
        }
        vtfs++;
        bspkit_vtf_info info;
        bspkit_result r = bspkit_vtf_read_info(data, size, &info, &err);
        if (r == BSPKIT_ERR_UNSUPPORTED) {
            /* VTF 7.6 (Strata) and console VTFX files: known, not read. */
            count_format("(unsupported version)", false);
        } else if (r != BSPKIT_OK) {
            fail(rel, "%s: %s", e.name, err.message);
        } else if (info.format_supported) {
            bspkit_image img;
            if (bspkit_vtf_decode(data, size, &img, NULL, &err) != BSPKIT_OK) {
                fail(rel, "%s: %s", e.name, err.message);
                count_format(info.format_name, false);
            } else {
                if (img.width != info.width || img.height != info.height)
                    fail(rel, "%s: decoded %ux%u, header %ux%u", e.name, img.width, img.height, info.width,
                         info.height);
                vtf_decoded++;
                count_format(info.format_name, true);
                bspkit_image_free(&img);
            }
        } else {
            count_format(info.format_name, false);
        }
        free(data);
    }
    bspkit_pak_close(pak);
}

static void visit(const char *root, const char *rel)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    bspkit_map *map;
    bspkit_error err;
    if (bspkit_open_file(path, NULL, &map, &err) != BSPKIT_OK)
        return; /* unsupported or damaged maps are the reader checks' business */
    maps++;
    if (bspkit_map_format(map)->family == BSPKIT_FAMILY_SOURCE)
        check_pak_vtfs(rel, map);
    bspkit_texture_options opts = {.wad_paths = (const char *const *)wad_dirs, .wad_path_count = wad_dir_count};
    bspkit_textures *t;
    if (bspkit_textures_resolve(map, &opts, &t, &err) != BSPKIT_OK) {
        fail(rel, "resolve: %s", err.message);
        bspkit_close(map);
        return;
    }
    for (size_t i = 0; i < bspkit_textures_count(t); i++) {
        const bspkit_texture *x = bspkit_textures_get(t, i);
        by_source[x->source]++;
        if (x->source == BSPKIT_TEXTURE_MISSING || !x->decodable)
            continue;
        bspkit_image img;
        if (bspkit_textures_load_image(t, i, &img, &err) != BSPKIT_OK) {
            fail(rel, "texture %zu '%s' (%s): %s", i, x->name, bspkit_texture_source_name(x->source), err.message);
            continue;
        }
        tex_decoded++;
        bspkit_image_free(&img);
    }
    bspkit_textures_free(t);
    bspkit_close(map);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) { /* the known-failures list every check is given is not used here */
        fprintf(stderr, "usage: %s MAPS_DIR [KNOWN_FAILURES_TSV]\n", argv[0]);
        return 2;
    }
    struct stat st;
    if (stat(argv[1], &st) != 0 || !S_ISDIR(st.st_mode)) {
        printf("skipped: %s not present\n", argv[1]);
        return 0;
    }
    nftw(argv[1], on_file, 16, FTW_PHYS);
    corpus_walk(argv[1], visit);
    printf("textures: %zu WADs, %zu WAD miptex, %zu pixels compared; %zu maps, %zu pakfile VTFs (%zu decoded);"
           " map textures %zu embedded, %zu wad, %zu pakfile, %zu missing, %zu decoded\n",
           wads, wad_textures, pixels_compared, maps, vtfs, vtf_decoded, by_source[BSPKIT_TEXTURE_EMBEDDED],
           by_source[BSPKIT_TEXTURE_WAD], by_source[BSPKIT_TEXTURE_PAKFILE], by_source[BSPKIT_TEXTURE_MISSING],
           tex_decoded);
    for (size_t i = 0; i < 64 && formats[i].name; i++)
        printf("  VTF %-16s %4zu files, %4zu decoded\n", formats[i].name, formats[i].seen, formats[i].decoded);
    for (size_t i = 0; i < wad_dir_count; i++)
        free(wad_dirs[i]);
    return failures ? 1 : 0;
}
