/*
 * Corpus check of the Source lumps in bspkit/source_lumps.h, on every Source
 * map under MAPS_DIR:
 *  - overlays: face count <= 64 (256 for water overlays), each used face
 *    index < faces, texinfo < texinfo count; fades/levels one per overlay;
 *  - occlusion: each occluder's polygon range inside the polygon array, each
 *    polygon's vertex-index range inside the index array, every vertex index
 *    < vertexes, no trailing bytes;
 *  - physcollide: the models parse to exactly the lump end with the -1
 *    terminator, model indices < models, solids take dataSize bytes;
 *    physdisp: header + sizes fill the lump exactly;
 *  - leafwaterdata texinfo valid, each leaf's leaf_water < leafwaterdata count;
 *    leafmindisttowater one per leaf;
 *  - primitives: type 0 or 1, index and vertex ranges inside PRIMINDICES and
 *    PRIMVERTS; faces' primitive ranges inside PRIMITIVES;
 *  - vertnormalindices: consumed exactly by the sum of the faces' edge
 *    counts, every index < vertnormals, and the per-face lookup agrees;
 *  - faceids and face macro texinfo: one per face;
 *  - Valve vbspinfo rows in `<map>.info.txt` ("overlays", "occluders",
 *    "occluder polygons", "occluder vert ind", "leafwaterdata",
 *    "waterstrips", "waterverts", "waterindices", "physics",
 *    "physics terrain", "Level flags = N"). Byte-size rows are compared only
 *    when the reference's "reading ... (size)" names our file size: the
 *    Xbox 360 shack's reference was taken from the PC build.
 * A map listed as "<map>#physics" in KNOWN_FAILURES_TSV reports failures of
 * the physcollide/physdisp checks as known (the other checks still count),
 * and a note when they pass.
 * Usage: corpus_check_source_lumps MAPS_DIR [KNOWN_FAILURES_TSV]
 */
#include "bspkit/bspkit.h"
#include "bspkit/source_lumps.h"
#include "corpus_walk.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int failures, known_failures, maps_checked, info_rows;
static unsigned long long records, overlays_seen, occluders_seen, phys_models_seen, solids_seen, prims_seen,
    normals_checked;

/* Set while the physics checks run on a map listed under "#physics". */
static const char *known_reason;
static bool known_failed;

static void fail(const char *rel, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("%s %s: ", known_reason ? "known" : "FAIL", rel);
    vprintf(fmt, ap);
    if (known_reason) {
        printf(" (%s)\n", known_reason);
        known_failures++;
        known_failed = true;
        corpus_known_seen(rel, "physics");
    } else {
        printf("\n");
        failures++;
    }
    va_end(ap);
}

#define REQUIRE(cond, ...)                                                                                     \
    do {                                                                                                       \
        if (!(cond)) {                                                                                         \
            fail(rel, __VA_ARGS__);                                                                            \
            return;                                                                                            \
        }                                                                                                      \
    } while (0)

#define GET(call, what) REQUIRE((call) == BSPKIT_OK, "%s: %s", what, err.message)

/* ---- vbspinfo reference ---- */

typedef struct info_ref {
    bool present;
    long long file_size; /* from "reading ... (N)", -1 when absent */
    char text[16384];
} info_ref;

static void load_info(const char *path, info_ref *ref)
{
    ref->present = false;
    ref->file_size = -1;
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    size_t n = fread(ref->text, 1, sizeof ref->text - 1, f);
    fclose(f);
    ref->text[n] = '\0';
    ref->present = true;
    const char *r = strstr(ref->text, "reading ");
    if (r) {
        const char *eol = strchr(r, '\n');
        const char *paren = NULL;
        for (const char *c = r; *c && c != eol; c++)
            if (*c == '(')
                paren = c;
        if (paren)
            ref->file_size = atoll(paren + 1);
    }
}

/* Count (or, for "[variable]" rows, bytes) of the row named exactly `name`; -1 when absent. */
static long long info_value(const info_ref *ref, const char *name)
{
    size_t len = strlen(name);
    for (const char *line = ref->text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        if (strncmp(line, name, len) != 0 || line[len] != ' ')
            continue;
        const char *p = line + len;
        while (*p == ' ')
            p++;
        if (strncmp(p, "[variable]", 10) == 0)
            p += 10;
        if (*p < '0' || *p > '9') {
            while (*p == ' ')
                p++;
            if (*p < '0' || *p > '9')
                continue;
        }
        return atoll(p);
    }
    return -1;
}

static void compare_row(const char *rel, const info_ref *ref, const char *name, unsigned long long ours)
{
    long long want = info_value(ref, name);
    if (want < 0)
        return;
    info_rows++;
    if ((unsigned long long)want != ours)
        fail(rel, "vbspinfo row \"%s\" says %lld, we decode %llu", name, want, ours);
}

/* ---- per-lump checks ---- */

static void check_overlays(const char *rel, bspkit_map *map, size_t nfaces, size_t ntexinfo)
{
    bspkit_error err;
    const bspkit_overlay *o;
    const bspkit_water_overlay *w;
    const bspkit_overlay_fade *fades;
    const bspkit_overlay_system_level *levels;
    size_t n, nw, nf, nl;
    GET(bspkit_get_overlays(map, &o, &n, &err), "overlays");
    GET(bspkit_get_water_overlays(map, &w, &nw, &err), "water overlays");
    GET(bspkit_get_overlay_fades(map, &fades, &nf, &err), "overlay fades");
    GET(bspkit_get_overlay_system_levels(map, &levels, &nl, &err), "overlay system levels");
    for (size_t i = 0; i < n; i++) {
        REQUIRE(o[i].face_count <= BSPKIT_OVERLAY_FACES, "overlay %zu: %u faces > 64", i, o[i].face_count);
        REQUIRE(o[i].texinfo >= 0 && (size_t)o[i].texinfo < ntexinfo, "overlay %zu: texinfo %d of %zu", i,
                o[i].texinfo, ntexinfo);
        for (unsigned k = 0; k < o[i].face_count; k++)
            REQUIRE(o[i].faces[k] >= 0 && (size_t)o[i].faces[k] < nfaces, "overlay %zu: face %d of %zu", i,
                    o[i].faces[k], nfaces);
        REQUIRE(o[i].face_count + ((unsigned)o[i].render_order << 14) == o[i].face_count_and_render_order,
                "overlay %zu: split of FaceCountAndRenderOrder", i);
    }
    for (size_t i = 0; i < nw; i++) {
        REQUIRE(w[i].face_count <= BSPKIT_WATER_OVERLAY_FACES, "water overlay %zu: %u faces", i, w[i].face_count);
        for (unsigned k = 0; k < w[i].face_count; k++)
            REQUIRE(w[i].faces[k] >= 0 && (size_t)w[i].faces[k] < nfaces, "water overlay %zu: face %d", i,
                    w[i].faces[k]);
    }
    REQUIRE(nf == 0 || nf == n, "%zu overlay fades for %zu overlays", nf, n);
    REQUIRE(nl == 0 || nl == n, "%zu overlay system levels for %zu overlays", nl, n);
    for (size_t i = 0; i < nf; i++)
        REQUIRE(fades[i].fade_dist_min_sq <= fades[i].fade_dist_max_sq || fades[i].fade_dist_max_sq <= 0,
                "overlay fade %zu: min %g > max %g", i, fades[i].fade_dist_min_sq, fades[i].fade_dist_max_sq);
    overlays_seen += n + nw;
    records += n + nw + nf + nl;
}

static void check_occlusion(const char *rel, bspkit_map *map, size_t nvertexes, size_t nplanes)
{
    bspkit_error err;
    const bspkit_occlusion *oc;
    GET(bspkit_get_occlusion(map, &oc, &err), "occlusion");
    for (size_t i = 0; i < oc->occluder_count; i++) {
        const bspkit_occluder *o = &oc->occluders[i];
        REQUIRE(o->first_poly >= 0 && o->poly_count >= 0 &&
                    (uint64_t)o->first_poly + (uint64_t)o->poly_count <= oc->poly_count,
                "occluder %zu: polys %d+%d of %zu", i, o->first_poly, o->poly_count, oc->poly_count);
    }
    for (size_t i = 0; i < oc->poly_count; i++) {
        const bspkit_occluder_poly *p = &oc->polys[i];
        REQUIRE(p->first_vertex_index >= 0 && p->vertex_count >= 0 &&
                    (uint64_t)p->first_vertex_index + (uint64_t)p->vertex_count <= oc->vertex_index_count,
                "occluder polygon %zu: vertices %d+%d of %zu", i, p->first_vertex_index, p->vertex_count,
                oc->vertex_index_count);
        REQUIRE(p->plane >= 0 && (size_t)p->plane < nplanes, "occluder polygon %zu: plane %d", i, p->plane);
    }
    for (size_t i = 0; i < oc->vertex_index_count; i++)
        REQUIRE(oc->vertex_indices[i] >= 0 && (size_t)oc->vertex_indices[i] < nvertexes,
                "occluder vertex index %zu: %d of %zu vertexes", i, oc->vertex_indices[i], nvertexes);
    REQUIRE(oc->trailing_bytes == 0, "occlusion: %zu trailing bytes", oc->trailing_bytes);
    occluders_seen += oc->occluder_count;
    records += oc->occluder_count + oc->poly_count + oc->vertex_index_count;
}

static void check_physics(const char *rel, bspkit_map *map, size_t nmodels)
{
    bspkit_error err;
    const bspkit_physcollide *pc;
    const uint8_t *bytes;
    size_t size;
    GET(bspkit_get_physcollide(map, &pc, &err), "physcollide");
    GET(bspkit_lump_bytes(map, BSPKIT_S_PHYSCOLLIDE, &bytes, &size, &err), "physcollide bytes");
    if (size > 0) {
        REQUIRE(pc->terminated, "physcollide: no modelIndex -1 terminator");
        REQUIRE(pc->end_offset == size, "physcollide: parse ends at %llu of %zu bytes",
                (unsigned long long)pc->end_offset, size);
    }
    size_t solids = 0;
    for (size_t i = 0; i < pc->model_count; i++) {
        const bspkit_phys_model *m = &pc->models[i];
        REQUIRE(m->model_index >= 0 && (size_t)m->model_index < nmodels, "physics model %zu: modelIndex %d of %zu",
                i, m->model_index, nmodels);
        REQUIRE(m->first_solid == solids, "physics model %zu: first solid %zu, expected %zu", i, m->first_solid,
                solids);
        uint64_t used = 0;
        for (int32_t k = 0; k < m->solid_count; k++) {
            const bspkit_phys_solid *s = &pc->solids[m->first_solid + (size_t)k];
            used += 4 + (uint64_t)s->size;
            REQUIRE(s->id[0] != '\0', "physics model %zu solid %d: neither VPHY, IVPS nor MOPP", i, k);
            /* An IVP compact surface (IVPS, or Bloodlines' MOPP) states its own size in the
             * top 24 bits of the word at byte 28 (after mass centre, inertia and radius). */
            if ((strcmp(s->id, "IVPS") == 0 || strcmp(s->id, "MOPP") == 0) && s->size >= 48 &&
                s->offset + 4 + 32 <= size && !bspkit_map_format(map)->big_endian) {
                const uint8_t *w = bytes + s->offset + 4 + 28;
                uint32_t byte_size = ((uint32_t)w[1] | (uint32_t)w[2] << 8 | (uint32_t)w[3] << 16);
                REQUIRE(byte_size == s->size, "physics model %zu solid %d: %s surface says %u bytes, the solid has %u",
                        i, k, s->id, byte_size, s->size);
            }
        }
        REQUIRE(used == (uint64_t)m->data_size, "physics model %zu: solids take %llu, dataSize %d", i,
                (unsigned long long)used, m->data_size);
        REQUIRE(m->keydata_length == (size_t)m->keydata_size, "physics model %zu: key data length", i);
        REQUIRE(m->keydata_length == 0 || memchr(m->keydata, '{', m->keydata_length) != NULL,
                "physics model %zu: key data holds no '{' block", i);
        solids += (size_t)m->solid_count;
    }
    REQUIRE(solids == pc->solid_count, "physcollide: %zu solids listed, models count %zu", pc->solid_count, solids);
    phys_models_seen += pc->model_count;
    solids_seen += pc->solid_count;
    records += pc->model_count + pc->solid_count;

    const bspkit_physdisp_entry *pd;
    size_t npd;
    GET(bspkit_get_physdisp(map, &pd, &npd, &err), "physdisp");
    GET(bspkit_lump_bytes(map, BSPKIT_S_PHYSDISP, &bytes, &size, &err), "physdisp bytes");
    bspkit_lump_info li;
    bspkit_get_lump_info(map, BSPKIT_S_PHYSDISP, &li);
    uint64_t w = (bspkit_map_format(map)->variant & BSPKIT_VARIANT_WIDE_LUMPS) && li.version >= 2 ? 4 : 2;
    uint64_t expect = size ? w + w * npd : 0;
    for (size_t i = 0; i < npd; i++) {
        REQUIRE(pd[i].offset == expect, "physdisp %zu: offset %llu, expected %llu", i,
                (unsigned long long)pd[i].offset, (unsigned long long)expect);
        expect += pd[i].size;
    }
    REQUIRE(expect == size, "physdisp: entries end at %llu of %zu bytes", (unsigned long long)expect, size);
    records += npd;
}

static void check_water(const char *rel, bspkit_map *map, const bspkit_leaf *leafs, size_t nleafs, size_t ntexinfo)
{
    bspkit_error err;
    const bspkit_leaf_water *lw;
    const uint16_t *md;
    size_t n, nmd;
    GET(bspkit_get_leaf_water(map, &lw, &n, &err), "leaf water");
    GET(bspkit_get_leaf_min_dist_to_water(map, &md, &nmd, &err), "leaf min dist to water");
    for (size_t i = 0; i < n; i++)
        REQUIRE(lw[i].texinfo >= 0 && (size_t)lw[i].texinfo < ntexinfo, "leafwaterdata %zu: texinfo %d of %zu", i,
                lw[i].texinfo, ntexinfo);
    for (size_t i = 0; i < nleafs; i++)
        REQUIRE(leafs[i].leaf_water == -1 || (leafs[i].leaf_water >= 0 && (size_t)leafs[i].leaf_water < n),
                "leaf %zu: leaf_water %d of %zu", i, leafs[i].leaf_water, n);
    REQUIRE(nmd == 0 || nmd == nleafs, "leafmindisttowater: %zu entries for %zu leafs", nmd, nleafs);
    records += n + nmd;
}

static void check_primitives(const char *rel, bspkit_map *map, const bspkit_face *faces, size_t nfaces)
{
    bspkit_error err;
    const bspkit_primitive *p;
    const bspkit_vec3 *pv;
    const uint32_t *pi;
    size_t n, nv, ni;
    GET(bspkit_get_primitives(map, &p, &n, &err), "primitives");
    GET(bspkit_get_prim_verts(map, &pv, &nv, &err), "prim verts");
    GET(bspkit_get_prim_indices(map, &pi, &ni, &err), "prim indices");
    for (size_t i = 0; i < n; i++) {
        REQUIRE(p[i].type <= 1, "primitive %zu: type %u", i, p[i].type);
        REQUIRE((uint64_t)p[i].first_index + p[i].index_count <= ni, "primitive %zu: indices %u+%u of %zu", i,
                p[i].first_index, p[i].index_count, ni);
        REQUIRE((uint64_t)p[i].first_vert + p[i].vert_count <= nv, "primitive %zu: verts %u+%u of %zu", i,
                p[i].first_vert, p[i].vert_count, nv);
    }
    /* Strata's 32-bit face word keeps a flag in the low bit (faces without
     * primitives read 1), which the core face decoder counts as primitives:
     * the face-side ranges are checked for the 16-bit layouts only. */
    bool strata = (bspkit_map_format(map)->variant & BSPKIT_VARIANT_WIDE_LUMPS) != 0;
    for (size_t f = 0; f < nfaces && !strata; f++)
        REQUIRE(faces[f].num_prims == 0 || (uint64_t)faces[f].first_prim + faces[f].num_prims <= n,
                "face %zu: primitives %u+%u of %zu", f, faces[f].first_prim, faces[f].num_prims, n);
    prims_seen += n;
    records += n + nv + ni;
}

static void check_normals(const char *rel, bspkit_map *map, const bspkit_face *faces, size_t nfaces)
{
    bspkit_error err;
    const bspkit_vec3 *vn;
    const uint32_t *vni;
    size_t nvn, nvni;
    GET(bspkit_get_vert_normals(map, &vn, &nvn, &err), "vert normals");
    GET(bspkit_get_vert_normal_indices(map, &vni, &nvni, &err), "vert normal indices");
    if (nvni == 0)
        return;
    uint64_t total = 0;
    for (size_t f = 0; f < nfaces; f++)
        total += (uint64_t)(faces[f].num_edges < 0 ? 0 : faces[f].num_edges);
    REQUIRE(total == nvni, "vertnormalindices: %zu entries, faces have %llu vertices", nvni,
            (unsigned long long)total);
    for (size_t i = 0; i < nvni; i++)
        REQUIRE(vni[i] < nvn, "vertnormalindex %zu: %u of %zu normals", i, vni[i], nvn);
    /* The per-face lookup must walk the same sequence. */
    size_t at = 0;
    for (size_t f = 0; f < nfaces; f++)
        for (int32_t k = 0; k < faces[f].num_edges; k++, at++) {
            bspkit_vec3 nrm;
            uint32_t idx;
            GET(bspkit_face_vertex_normal(map, f, (uint32_t)k, &nrm, &idx, &err), "face vertex normal");
            REQUIRE(idx == vni[at], "face %zu vertex %d: index %u, sequence has %u", f, k, idx, vni[at]);
        }
    normals_checked += nvni;
    records += nvn + nvni;
}

static void check_per_face(const char *rel, bspkit_map *map, size_t nfaces, size_t nstrings)
{
    bspkit_error err;
    const uint32_t *ids;
    const uint16_t *macro;
    size_t nids, nmacro;
    GET(bspkit_get_face_ids(map, &ids, &nids, &err), "face ids");
    GET(bspkit_get_face_macro_texinfo(map, &macro, &nmacro, &err), "face macro texinfo");
    REQUIRE(nids == 0 || nids == nfaces, "faceids: %zu for %zu faces", nids, nfaces);
    REQUIRE(nmacro == 0 || nmacro == nfaces, "face macro texinfo: %zu for %zu faces", nmacro, nfaces);
    for (size_t i = 0; i < nmacro; i++)
        REQUIRE(macro[i] == 0xFFFF || macro[i] < nstrings, "face %zu: macro texture %u of %zu strings", i, macro[i],
                nstrings);
    records += nids + nmacro;
}

static void check_reference(const char *rel, const char *path, bspkit_map *map, size_t file_size)
{
    char info_path[2100];
    snprintf(info_path, sizeof info_path, "%s.info.txt", path);
    static info_ref ref;
    load_info(info_path, &ref);
    if (!ref.present)
        return;
    bspkit_error err;
    const bspkit_overlay *o;
    const bspkit_occlusion *oc;
    const bspkit_leaf_water *lw;
    const bspkit_primitive *p;
    const bspkit_vec3 *pv;
    const uint32_t *pi;
    const uint8_t *bytes;
    size_t n;
    GET(bspkit_get_overlays(map, &o, &n, &err), "overlays");
    compare_row(rel, &ref, "overlays", n);
    GET(bspkit_get_occlusion(map, &oc, &err), "occlusion");
    compare_row(rel, &ref, "occluders", oc->occluder_count);
    compare_row(rel, &ref, "occluder polygons", oc->poly_count);
    compare_row(rel, &ref, "occluder vert ind", oc->vertex_index_count);
    GET(bspkit_get_leaf_water(map, &lw, &n, &err), "leaf water");
    compare_row(rel, &ref, "leafwaterdata", n);
    GET(bspkit_get_primitives(map, &p, &n, &err), "primitives");
    compare_row(rel, &ref, "waterstrips", n);
    GET(bspkit_get_prim_verts(map, &pv, &n, &err), "prim verts");
    compare_row(rel, &ref, "waterverts", n);
    GET(bspkit_get_prim_indices(map, &pi, &n, &err), "prim indices");
    compare_row(rel, &ref, "waterindices", n);
    if (ref.file_size == (long long)file_size) {
        GET(bspkit_lump_bytes(map, BSPKIT_S_PHYSCOLLIDE, &bytes, &n, &err), "physcollide bytes");
        compare_row(rel, &ref, "physics", n);
        GET(bspkit_lump_bytes(map, BSPKIT_S_PHYSDISP, &bytes, &n, &err), "physdisp bytes");
        compare_row(rel, &ref, "physics terrain", n);
    } else {
        printf("note %s: reference was taken from a %lld-byte build, this file has %zu bytes: byte-size rows "
               "(physics, physics terrain) not compared\n",
               rel, ref.file_size, file_size);
    }
    const char *lf = strstr(ref.text, "Level flags = ");
    if (lf) {
        uint32_t flags;
        size_t have;
        GET(bspkit_get_map_flags(map, &flags, &have, &err), "map flags");
        unsigned long want = strtoul(lf + 14, NULL, 16); /* vbspinfo prints the flags in hex */
        info_rows++;
        REQUIRE(want == flags, "vbspinfo \"Level flags = %lx\", we decode %x", want, flags);
    }
}

static void visit(const char *root, const char *rel)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    bspkit_map *map;
    bspkit_error err;
    bspkit_result r = bspkit_open_file(path, NULL, &map, &err);
    if (r != BSPKIT_OK)
        return; /* opening is the core corpus test's concern */
    if (bspkit_map_format(map)->family != BSPKIT_FAMILY_SOURCE) {
        bspkit_close(map);
        return;
    }
    maps_checked++;
    const bspkit_face *faces;
    const bspkit_leaf *leafs;
    const bspkit_texinfo *ti;
    const bspkit_vec3 *verts;
    const bspkit_plane *planes;
    const bspkit_model *models;
    const int32_t *strings;
    size_t nfaces, nleafs, nti, nverts, nplanes, nmodels, nstrings, file_size;
    bspkit_map_bytes(map, &file_size);
    if (bspkit_get_faces(map, &faces, &nfaces, &err) != BSPKIT_OK ||
        (nfaces == 0 && bspkit_get_hdr_faces(map, &faces, &nfaces, &err) != BSPKIT_OK) ||
        bspkit_get_leafs(map, &leafs, &nleafs, &err) != BSPKIT_OK ||
        bspkit_get_texinfo(map, &ti, &nti, &err) != BSPKIT_OK ||
        bspkit_get_vertexes(map, &verts, &nverts, &err) != BSPKIT_OK ||
        bspkit_get_planes(map, &planes, &nplanes, &err) != BSPKIT_OK ||
        bspkit_get_models(map, &models, &nmodels, &err) != BSPKIT_OK ||
        bspkit_get_texdata_string_table(map, &strings, &nstrings, &err) != BSPKIT_OK) {
        fail(rel, "core lumps: %s", err.message);
        bspkit_close(map);
        return;
    }
    check_overlays(rel, map, nfaces, nti);
    check_occlusion(rel, map, nverts, nplanes);
    known_reason = corpus_known_reason(rel, "physics");
    known_failed = false;
    check_physics(rel, map, nmodels);
    /* A stale entry would hide the next real failure of the map: show it. */
    if (!known_failed && corpus_known_find(rel, "physics")) {
        printf("note %s#physics: listed as a known failure but passed\n", rel);
        corpus_known_seen(rel, "physics");
    }
    known_reason = NULL;
    check_water(rel, map, leafs, nleafs, nti);
    check_primitives(rel, map, faces, nfaces);
    check_normals(rel, map, faces, nfaces);
    check_per_face(rel, map, nfaces, nstrings);
    check_reference(rel, path, map, file_size);
    bspkit_close(map);
}

static void not_checked(const char *entry, const char *key, const char *reason)
{
    (void)reason;
    if (key && strcmp(key, "physics") == 0)
        printf("note %s: listed as a known failure but not checked (no such map, or not an opening Source map)\n",
               entry);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: corpus_check_source_lumps MAPS_DIR [KNOWN_FAILURES_TSV]\n");
        return 2;
    }
    struct stat st;
    if (stat(argv[1], &st) != 0 || !S_ISDIR(st.st_mode)) {
        printf("skipped: %s not present, Source lump checks not run\n", argv[1]);
        return 0;
    }
    if (argc > 2 && corpus_known_load(argv[2]) < 0) {
        fprintf(stderr, "%s: cannot read %s\n", argv[0], argv[2]);
        return 2;
    }
    corpus_walk(argv[1], visit);
    corpus_known_unseen(not_checked);
    printf("source lumps: %d Source maps checked, %llu records checked (%llu overlays, %llu occluders, %llu physics "
           "models with %llu solids, %llu primitives, %llu vertex normal indices walked per face), %d vbspinfo rows "
           "compared, %d known failures, %d failures\n",
           maps_checked, records, overlays_seen, occluders_seen, phys_models_seen, solids_seen, prims_seen,
           normals_checked, info_rows, known_failures, failures);
    return failures ? 1 : 0;
}
