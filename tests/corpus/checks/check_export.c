/*
 * Geometry export over every supported map of the corpus:
 *  - the map exports to GLB in memory, every face kind kept (sky, tool,
 *    trigger and nodraw faces, left out by default, included);
 *  - the GLB header and chunk lengths add up to the buffer size;
 *  - the exported triangle count equals the sum computed here from the raw
 *    lumps: num_edges - 2 for every face (with a texinfo and at least 3
 *    edges) in every model's face range, 2 * (2^power)^2 for every face that
 *    is a displacement; for Titanfall 2, the triangles of every model's meshes;
 *  - vbspinfo's "dispinfos" row in <map>.info.txt, when present, equals the
 *    displacements exported when every displacement face lies in a model;
 *  - with images and lightmaps on (the default): the JSON holds one PNG
 *    image per texture image counted plus the lightmap atlas when there is
 *    one, every material is either textured or counted missing, and a map
 *    with a lightmap image has TEXCOORD_1.
 * Usage: corpus_check_export MAPS_DIR
 */
#define _GNU_SOURCE /* memmem */
#include "bspkit/displacement.h"
#include "bspkit/export.h"
#include "bspkit/quake3.h"
#include "bspkit/titanfall.h"
#include "core/bytes.h"
#include "corpus_walk.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int failures, maps;
static unsigned long long triangles_total, displacements_total, bytes_total, info_rows;
static unsigned long long images_total, missing_total, lightmapped_maps;

static void fail(const char *rel, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL %s: ", rel);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    failures++;
}

/* Occurrences of `needle` in the first `n` bytes of `hay`. */
static size_t count_in(const char *hay, size_t n, const char *needle)
{
    size_t k = strlen(needle), c = 0;
    for (const char *p = hay; (p = memmem(p, (size_t)(hay + n - p), needle, k)) != NULL; p += k)
        c++;
    return c;
}

static void check_media(const char *rel, const uint8_t *glb, const bspkit_export_stats *st)
{
    const char *json = (const char *)glb + 20;
    size_t n = rd_le32(glb + 12);
    size_t pngs = count_in(json, n, "\"mimeType\":\"image/png\"");
    bool lightmap = count_in(json, n, "{\"name\":\"lightmap\",\"sampler\":1") == 1;
    if (pngs != st->images + (lightmap ? 1 : 0))
        fail(rel, "%zu PNG images in the GLB, stats say %zu textures%s", pngs, st->images,
             lightmap ? " + the lightmap" : "");
    if (st->images + st->missing_textures != st->materials)
        fail(rel, "%zu images + %zu missing textures != %zu materials", st->images, st->missing_textures,
             st->materials);
    if (lightmap != (count_in(json, n, "\"TEXCOORD_1\"") > 0))
        fail(rel, "lightmap image and TEXCOORD_1 disagree");
    images_total += st->images;
    missing_total += st->missing_textures;
    lightmapped_maps += lightmap;
}

/* Quake 3: Σ over the models' surfaces: a planar surface or triangle soup
 * its stored triangles, a patch 2 per cell of its grid of 8 segments per
 * 3 x 3 control block, a flare none; -1 when an index is out of range. */
static long long expected_surface_triangles(bspkit_map *map)
{
    const bspkit_surface *s;
    const bspkit_model *models;
    size_t ns, nm;
    if (bspkit_get_surfaces(map, &s, &ns, NULL) != BSPKIT_OK || bspkit_get_models(map, &models, &nm, NULL) != BSPKIT_OK)
        return -1;
    long long total = 0;
    for (size_t i = 0; i < nm; i++) {
        if (models[i].first_face < 0 || models[i].num_faces < 0 ||
            (uint64_t)models[i].first_face + (uint64_t)models[i].num_faces > ns)
            return -1;
        for (int32_t k = 0; k < models[i].num_faces; k++) {
            const bspkit_surface *f = &s[models[i].first_face + k];
            if (f->type == BSPKIT_Q3_SURFACE_PATCH)
                total += 2ll * ((f->patch_width - 1) / 2 * 8) * ((f->patch_height - 1) / 2 * 8);
            else if (f->type != BSPKIT_Q3_SURFACE_FLARE && f->num_verts > 0 && f->num_indexes >= 3)
                total += f->num_indexes / 3;
        }
    }
    return total;
}

/* Σ over the models' faces, from the lumps; -1 when an index is out of range. */
/* Titanfall 2: the triangles of every model's meshes. */
static long long expected_r2_triangles(bspkit_map *map)
{
    const bspkit_r2_model *models;
    const bspkit_r2_mesh *meshes;
    size_t nm, nmesh;
    if (bspkit_get_r2_models(map, &models, &nm, NULL) != BSPKIT_OK ||
        bspkit_get_r2_meshes(map, &meshes, &nmesh, NULL) != BSPKIT_OK)
        return -1;
    long long total = 0;
    for (size_t i = 0; i < nm; i++) {
        if ((uint64_t)models[i].first_mesh + models[i].num_meshes > nmesh)
            return -1;
        for (uint32_t k = 0; k < models[i].num_meshes; k++)
            total += meshes[models[i].first_mesh + k].num_triangles;
    }
    return total;
}

static long long expected_triangles(bspkit_map *map, size_t *disp_faces)
{
    *disp_faces = 0;
    if (bspkit_map_format(map)->family == BSPKIT_FAMILY_QUAKE3)
        return expected_surface_triangles(map);
    if (bspkit_map_format(map)->family == BSPKIT_FAMILY_TITANFALL)
        return expected_r2_triangles(map);
    const bspkit_face *faces;
    const bspkit_model *models;
    const bspkit_dispinfo *d;
    size_t nf, nm, nd;
    if (bspkit_get_faces(map, &faces, &nf, NULL) != BSPKIT_OK || bspkit_get_models(map, &models, &nm, NULL) != BSPKIT_OK ||
        bspkit_get_dispinfo(map, &d, &nd, NULL) != BSPKIT_OK)
        return -1;
    if (nf == 0 && bspkit_get_hdr_faces(map, &faces, &nf, NULL) != BSPKIT_OK)
        return -1;
    bool source = bspkit_map_format(map)->family == BSPKIT_FAMILY_SOURCE;
    long long total = 0;
    *disp_faces = 0;
    for (size_t i = 0; i < nm; i++) {
        if (models[i].first_face < 0 || models[i].num_faces < 0 ||
            (uint64_t)models[i].first_face + (uint64_t)models[i].num_faces > nf)
            return -1;
        for (int32_t k = 0; k < models[i].num_faces; k++) {
            const bspkit_face *f = &faces[models[i].first_face + k];
            if (f->texinfo < 0 || f->num_edges < 3)
                continue;
            if (source && f->dispinfo >= 0) {
                if ((size_t)f->dispinfo >= nd || d[f->dispinfo].power < 0 || d[f->dispinfo].power > 10)
                    return -1;
                long long side = 1ll << d[f->dispinfo].power;
                total += 2 * side * side;
                (*disp_faces)++;
            } else {
                total += f->num_edges - 2;
            }
        }
    }
    return total;
}

static long info_row(const char *path, const char *name)
{
    char info[4200];
    snprintf(info, sizeof info, "%s.info.txt", path);
    FILE *f = fopen(info, "rb");
    if (!f)
        return -1;
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    size_t len = strlen(name);
    for (const char *p = text; (p = strstr(p, name)) != NULL; p += len)
        if ((p == text || p[-1] == '\n') && p[len] == ' ')
            return strtol(p + len, NULL, 10);
    return -1;
}

/* Header magic and length, then a JSON chunk and an optional BIN chunk that end exactly at `size`. */
static bool glb_consistent(const uint8_t *glb, size_t size)
{
    if (size < 20 || rd_le32(glb) != 0x46546C67u || rd_le32(glb + 8) != size || rd_le32(glb + 16) != 0x4E4F534Au)
        return false;
    uint64_t end = 20 + (uint64_t)rd_le32(glb + 12);
    if (end + 8 <= size && rd_le32(glb + end + 4) == 0x004E4942u)
        end += 8 + (uint64_t)rd_le32(glb + end);
    return end == size;
}

static void visit(const char *root, const char *rel)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    bspkit_map *map;
    bspkit_error err;
    if (bspkit_open_file(path, NULL, &map, &err) != BSPKIT_OK) {
        if (err.code != BSPKIT_ERR_UNSUPPORTED)
            fail(rel, "open: %s", err.message);
        return;
    }
    maps++;
    uint8_t *glb = NULL;
    size_t size = 0;
    bspkit_export_stats st;
    /* Every face kind, sky and tool faces included: the count below is of all faces. */
    bspkit_export_options opts = {.keep = BSPKIT_SKIP_ALL};
    if (bspkit_export_glb_memory(map, &opts, &glb, &size, &st, &err) != BSPKIT_OK) {
        fail(rel, "export: %s", err.message);
        bspkit_close(map);
        return;
    }
    if (!glb_consistent(glb, size))
        fail(rel, "GLB header or chunk lengths do not add up to %zu bytes", size);
    else
        check_media(rel, glb, &st);
    size_t disp_faces = 0;
    long long want = expected_triangles(map, &disp_faces);
    if (want < 0)
        fail(rel, "lumps out of range, yet the export succeeded");
    else if ((unsigned long long)want != st.triangles)
        fail(rel, "%zu triangles exported, the lumps give %lld", st.triangles, want);
    if (st.displacements != disp_faces)
        fail(rel, "%zu displacements exported, %zu displacement faces in the models", st.displacements, disp_faces);
    long vb = info_row(path, "dispinfos");
    if (vb >= 0) {
        info_rows++;
        if ((size_t)vb != st.displacements)
            fail(rel, "vbspinfo dispinfos = %ld, exported %zu displacements", vb, st.displacements);
    }
    triangles_total += st.triangles;
    displacements_total += st.displacements;
    bytes_total += size;
    free(glb);
    bspkit_close(map);
}

int main(int argc, char **argv)
{
    const char *root = argc > 1 ? argv[1] : "../shared/maps";
    struct stat sb;
    if (stat(root, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        printf("skipped: %s not present\n", root);
        return 0;
    }
    corpus_walk(root, visit);
    printf("export: %d maps exported to GLB, %llu triangles, %llu displacements, %llu bytes of GLB, "
           "%llu vbspinfo rows compared, %llu texture images, %llu missing textures, %llu maps with a lightmap "
           "atlas, %d failures\n",
           maps, triangles_total, displacements_total, bytes_total, info_rows, images_total, missing_total,
           lightmapped_maps, failures);
    return failures ? 1 : 0;
}
