/* Quake face extents on both code paths: the AVX2 path (where the CPU has
 * it) and the SSE2 path each give exactly the luxel grids of the scalar
 * rule written out here, over faces with odd and even corner counts,
 * vertices on and off the 16-texel grid, signed zeros, huge and non-finite
 * coordinates, and indices out of range. Then validation's lightmap size
 * check, whose entries are made a piece at a time, across the pieces' edges. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "check.h"
#include "analysis/lightmap_internal.h"
#include "core/cpu.h"
#include "bspkit/bspkit.h"
#include "bspkit/lighting.h"
#include "bspkit/write.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { VERTS = 700, EDGES = 900, FACES = 3000, TEXINFOS = 40, MAX_CORNERS = 9 };

static uint64_t rng = 0x9E3779B97F4A7C15u;
static uint32_t next_u32(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

/* A coordinate as maps hold them: mostly integers (often on the 16-unit
 * grid), some fractions, and now and then a signed zero, a huge value or a
 * non-finite one. */
static float coordinate(void)
{
    uint32_t r = next_u32() % 100;
    if (r < 40)
        return (float)((int32_t)(next_u32() % 512) - 256) * 16.0f;
    if (r < 70)
        return (float)((int32_t)(next_u32() % 8192) - 4096);
    if (r < 90)
        return (float)((int32_t)(next_u32() % 200000) - 100000) / 37.0f;
    if (r < 94)
        return (next_u32() & 1) ? -0.0f : 0.0f;
    if (r < 97)
        return (next_u32() & 1) ? 3.0e10f : -1.5e9f;
    return (next_u32() & 1) ? NAN : INFINITY;
}

static float texture_component(void)
{
    static const float plain[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 2.0f, 0.25f};
    uint32_t r = next_u32() % 10;
    if (r < 5)
        return plain[next_u32() % (sizeof plain / sizeof plain[0])];
    return (float)((int32_t)(next_u32() % 20001) - 10000) / 7919.0f; /* off any binary grid */
}

/* The luxel columns a range of texel coordinates touches, 16 texels each. */
static void luxel_span(double lo, double hi, int32_t *first, int32_t *count)
{
    *first = (int32_t)floor(lo / 16.0);
    *count = (int32_t)ceil(hi / 16.0) - *first + 1;
}

/* The rule, one axis at a time, as id's float sum and ericw-tools' double
 * sum compute it; per axis the smaller grid. False for a bad index or a
 * range out of bounds. */
static bool reference_extents(const bspkit_face *f, const int32_t *se, size_t nse, const bspkit_edge *e,
                              size_t ne, const bspkit_vec3 *v, size_t nv, const bspkit_texinfo *ti,
                              int32_t mins[2], int32_t size[2])
{
    if (f->first_edge < 0 || f->num_edges <= 0 || (size_t)f->first_edge + (size_t)f->num_edges > nse)
        return false;
    for (int axis = 0; axis < 2; axis++) {
        const float *tv = ti->texture_vecs[axis];
        double lo = INFINITY, hi = -INFINITY;
        float flo = INFINITY, fhi = -INFINITY;
        for (int32_t k = 0; k < f->num_edges; k++) {
            int32_t s = se[f->first_edge + k];
            uint32_t edge = s < 0 ? (uint32_t)(-(int64_t)s) : (uint32_t)s;
            if (edge >= ne)
                return false;
            uint32_t vi = e[edge].v[s < 0 ? 1 : 0];
            if (vi >= nv)
                return false;
            const bspkit_vec3 *p = &v[vi];
            double d = (double)p->x * tv[0] + (double)p->y * tv[1] + (double)p->z * tv[2] + tv[3];
            float fs = p->x * tv[0];
            fs = fs + (float)(p->y * tv[1]);
            fs = fs + (float)(p->z * tv[2]);
            fs = fs + tv[3];
            /* A NaN projection compares false and is passed over. */
            lo = d < lo ? d : lo;
            hi = d > hi ? d : hi;
            flo = fs < flo ? fs : flo;
            fhi = fs > fhi ? fs : fhi;
        }
        if (!(lo > -1e9 && hi < 1e9 && lo <= hi && flo > -1e9f && fhi < 1e9f && flo <= fhi))
            return false;
        int32_t dfirst, dcount, ffirst, fcount;
        luxel_span(lo, hi, &dfirst, &dcount);
        luxel_span(flo, fhi, &ffirst, &fcount);
        bool float_narrower = fcount < dcount;
        mins[axis] = float_narrower ? ffirst : dfirst;
        size[axis] = float_narrower ? fcount : dcount;
    }
    return true;
}

/* A Quake map of these faces over one plane, with `light_size` bytes of
 * (zero) lighting. */
typedef struct face_set {
    const bspkit_vec3 *v;
    size_t nv;
    const bspkit_edge *e;
    size_t ne;
    const int32_t *se;
    size_t nse;
    const bspkit_texinfo *ti;
    size_t nti;
    const bspkit_face *f;
    size_t nf;
} face_set;

static uint8_t *build_faces(const face_set *fs, bool goldsrc, size_t light_size, size_t *size)
{
    bspkit_builder *b;
    CHECK(bspkit_builder_new(goldsrc ? BSPKIT_FAMILY_GOLDSRC : BSPKIT_FAMILY_QUAKE, goldsrc ? 30 : 29, &b, ERR));
    bspkit_plane pl = {{0, 0, 1}, 0, 2};
    uint8_t *light = calloc(1, light_size);
    assert_non_null(light);
    CHECK(bspkit_builder_set_planes(b, &pl, 1, ERR));
    CHECK(bspkit_builder_set_vertexes(b, fs->v, fs->nv, ERR));
    CHECK(bspkit_builder_set_edges(b, fs->e, fs->ne, ERR));
    CHECK(bspkit_builder_set_surfedges(b, fs->se, fs->nse, ERR));
    CHECK(bspkit_builder_set_texinfo(b, fs->ti, fs->nti, ERR));
    CHECK(bspkit_builder_set_faces(b, fs->f, fs->nf, ERR));
    CHECK(bspkit_builder_set_lighting(b, false, light, light_size, ERR));
    bspkit_write_options wo = {0};
    uint8_t *bytes;
    CHECK(bspkit_builder_write(b, &wo, &bytes, size, ERR));
    bspkit_builder_free(b);
    free(light);
    return bytes;
}

static void test_extents_both_paths(void **state)
{
    (void)state;
    static bspkit_vec3 v[VERTS];
    static bspkit_edge e[EDGES];
    static int32_t se[FACES * MAX_CORNERS + 2];
    static bspkit_face f[FACES];
    bspkit_texinfo ti[TEXINFOS];
    memset(ti, 0, sizeof ti);
    for (size_t i = 0; i < VERTS; i++)
        v[i] = (bspkit_vec3){coordinate(), coordinate(), coordinate()};
    for (size_t i = 0; i < EDGES; i++) {
        /* A few edges name a vertex past the end. */
        uint32_t limit = next_u32() % 200 == 0 ? VERTS + 50 : VERTS;
        e[i].v[0] = next_u32() % limit;
        e[i].v[1] = next_u32() % limit;
    }
    for (size_t i = 0; i < TEXINFOS; i++)
        for (int axis = 0; axis < 2; axis++)
            for (int k = 0; k < 4; k++)
                ti[i].texture_vecs[axis][k] = k == 3 ? (float)((int32_t)(next_u32() % 64) - 32) * 0.5f
                                                     : texture_component();
    size_t nse = 0;
    size_t odd = 0, even = 0;
    memset(f, 0, sizeof f);
    for (size_t i = 0; i < FACES; i++) {
        int32_t corners = 1 + (int32_t)(next_u32() % MAX_CORNERS);
        if (corners % 2)
            odd++;
        else
            even++;
        f[i].first_edge = (int32_t)nse;
        f[i].num_edges = corners;
        f[i].texinfo = (int32_t)(next_u32() % TEXINFOS);
        f[i].styles[0] = 0;
        f[i].styles[1] = f[i].styles[2] = f[i].styles[3] = 255;
        f[i].light_offset = (int32_t)(next_u32() % (1 << 16)); /* some lightmaps then run past the lump */
        f[i].dispinfo = -1;
        for (int32_t k = 0; k < corners; k++) {
            /* Edge 0 is never walked; now and then an edge past the end. */
            int32_t edge = 1 + (int32_t)(next_u32() % (next_u32() % 300 == 0 ? EDGES + 40 : EDGES - 1));
            se[nse++] = (next_u32() & 1) ? -edge : edge;
        }
    }
    assert_true(odd > 0 && even > 0);
    /* The last face: two corners whose float sums fall below the 16-texel
     * lines the double sums are just above, at both ends (found by a
     * search). Both grids then span 53 luxels, from -30 and from -31: the
     * float grid is not smaller, so the double one stands. */
    v[0] = (bspkit_vec3){0x1.eab6f6p+10f, 0x1.ca5abep+11f, 0.0f};
    v[1] = (bspkit_vec3){-0x1.cda956p+10f, -0x1.851f96p+11f, 0.0f};
    e[1].v[0] = 0;
    e[1].v[1] = 1;
    memset(&ti[0], 0, sizeof ti[0]);
    ti[0].texture_vecs[0][0] = 0x1.96290ep-2f;
    ti[0].texture_vecs[0][1] = -0x1.5f766ap-2f;
    ti[0].texture_vecs[1][2] = 1.0f;
    f[FACES - 1].first_edge = (int32_t)nse;
    f[FACES - 1].num_edges = 2;
    f[FACES - 1].texinfo = 0;
    se[nse++] = 1;
    se[nse++] = -1;

    const face_set fs = {v, VERTS, e, EDGES, se, nse, ti, TEXINFOS, f, FACES};
    size_t size;
    uint8_t *bytes = build_faces(&fs, false, 1 << 16, &size);

    for (int pass = 0; pass < 2; pass++) {
        bk_cpu_allow_avx2(pass == 0);
        bspkit_map *m;
        CHECK(bspkit_open_memory(bytes, size, NULL, &m, ERR));
        /* The faces as read back: the reference sees what the library sees. */
        const bspkit_face *rf;
        const bspkit_vec3 *rv;
        const bspkit_edge *re;
        const int32_t *rse;
        const bspkit_texinfo *rti;
        size_t nf, nv, ne, ns, nt;
        CHECK(bspkit_get_faces(m, &rf, &nf, ERR));
        CHECK(bspkit_get_vertexes(m, &rv, &nv, ERR));
        CHECK(bspkit_get_edges(m, &re, &ne, ERR));
        CHECK(bspkit_get_surfedges(m, &rse, &ns, ERR));
        CHECK(bspkit_get_texinfo(m, &rti, &nt, ERR));
        const bspkit_face_lightmap *lm;
        size_t n;
        CHECK(bspkit_get_face_lightmaps(m, false, &lm, &n, ERR));
        assert_int_equal(n, FACES);
        size_t lit = 0, unlit = 0;
        for (size_t i = 0; i < n; i++) {
            int32_t mins[2], dim[2];
            bool ok = reference_extents(&rf[i], rse, ns, re, ne, rv, nv, &rti[rf[i].texinfo], mins, dim);
            if (lm[i].lit != ok)
                fail_msg("pass %d face %zu: lit %d, the rule says %d", pass, i, lm[i].lit, ok);
            if (!ok) {
                unlit++;
                continue;
            }
            lit++;
            if (lm[i].mins[0] != mins[0] || lm[i].mins[1] != mins[1] || lm[i].width != dim[0] ||
                lm[i].height != dim[1])
                fail_msg("pass %d face %zu: mins (%d, %d) size %d x %d, the rule says (%d, %d) %d x %d", pass, i,
                         lm[i].mins[0], lm[i].mins[1], lm[i].width, lm[i].height, mins[0], mins[1], dim[0],
                         dim[1]);
        }
        assert_true(lm[FACES - 1].lit);
        assert_int_equal(lm[FACES - 1].mins[0], -30);
        assert_int_equal(lm[FACES - 1].width, 53);
        /* Both outcomes are exercised, not just one. */
        assert_true(lit > FACES / 4);
        assert_true(unlit > FACES / 20);

        /* Validation's screen: "fits" only where the entry is unlit or fits. */
        bk_lightmap_faces lf;
        CHECK(bk_lightmap_faces_begin(m, &lf, ERR));
        assert_int_equal(lf.faces_n, FACES);
        static bool may[FACES];
        bk_lightmap_faces_screen(&lf, 0, FACES, may);
        size_t cleared = 0, overflowing = 0;
        for (size_t i = 0; i < n; i++) {
            bool fits = !lm[i].lit || lm[i].bytes <= (1u << 16) - (uint64_t)rf[i].light_offset;
            overflowing += !fits;
            cleared += !may[i];
            if (!may[i] && !fits)
                fail_msg("pass %d face %zu: screened as fitting, but %" PRIu64 " bytes at %d", pass, i, lm[i].bytes,
                         rf[i].light_offset);
        }
        assert_true(overflowing > FACES / 20);
        assert_true(cleared > FACES / 4);
        bk_lightmap_faces_end(&lf);
        bspkit_close(m);
    }
    bk_cpu_allow_avx2(true);
    bspkit_free_buffer(bytes);
}

static void put_le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* A copy of `map` with a BSPX block holding one lump, as ericw-tools
 * appends it: 4-byte aligned, "BSPX", the count, 32-byte entries (name,
 * offset, size), the data. */
static uint8_t *with_bspx_lump(const uint8_t *map, size_t map_size, const char *name, const uint8_t *data,
                               size_t size, size_t *out_size)
{
    size_t start = (map_size + 3) & ~(size_t)3, at = start + 8 + 32;
    uint8_t *out = calloc(1, at + size);
    assert_non_null(out);
    memcpy(out, map, map_size);
    memcpy(out + start, "BSPX", 4);
    put_le32(out + start + 4, 1);
    strncpy((char *)out + start + 8, name, 24);
    put_le32(out + start + 8 + 24, (uint32_t)at);
    put_le32(out + start + 8 + 28, (uint32_t)size);
    memcpy(out + at, data, size);
    *out_size = at + size;
    return out;
}

/* Face i as a rectangle of its own four vertexes, edges 1 + 4i .. 4 + 4i
 * and surfedges 4i .. 4i + 3: (1 .. 8) x (1 .. 8) luxels somewhere on
 * z = 0, or with `fixed` the same 125 x 128 units at (8, 0) for every face. */
static void rectangle_face(bspkit_vec3 *v, bspkit_edge *e, int32_t *se, bspkit_face *f, size_t i, bool fixed)
{
    float x0 = (float)((int32_t)(next_u32() % 64) - 32) * 16.0f, y0 = (float)(next_u32() % 40) * 8.0f;
    float w = (float)(1 + next_u32() % 8) * 16.0f - 3.0f, h = (float)(1 + next_u32() % 8) * 16.0f;
    if (fixed)
        x0 = 8.0f, y0 = 0.0f, w = 125.0f, h = 128.0f;
    v[4 * i + 0] = (bspkit_vec3){x0, y0, 0};
    v[4 * i + 1] = (bspkit_vec3){x0 + w, y0, 0};
    v[4 * i + 2] = (bspkit_vec3){x0 + w, y0 + h, 0};
    v[4 * i + 3] = (bspkit_vec3){x0, y0 + h, 0};
    for (int k = 0; k < 4; k++) {
        e[1 + 4 * i + (size_t)k].v[0] = (uint32_t)(4 * i + (size_t)k);
        e[1 + 4 * i + (size_t)k].v[1] = (uint32_t)(4 * i + (size_t)(k + 1) % 4);
        se[4 * i + (size_t)k] = (int32_t)(1 + 4 * i + (size_t)k);
    }
    f->first_edge = (int32_t)(4 * i);
    f->num_edges = 4;
}

/* Validates `m`; warned[i] for each face i (of n) warned that its lightmap
 * runs past the lighting lump, each at most once. */
static void short_lightmaps(bspkit_map *m, bool *warned, size_t n)
{
    bspkit_report rep;
    memset(&rep, 0, sizeof rep);
    CHECK(bspkit_validate_ex(m, 0, &rep, ERR));
    memset(warned, 0, n * sizeof *warned);
    for (size_t k = 0; k < rep.count; k++)
        if (strstr(rep.problems[k].message, "lightmap at") != NULL) {
            assert_true(rep.problems[k].record >= 0 && (size_t)rep.problems[k].record < n);
            assert_false(warned[rep.problems[k].record]);
            warned[rep.problems[k].record] = true;
        }
    bspkit_report_free(&rep);
}

/* Validation's lightmap size check over 300 faces, the entries made a piece
 * at a time: each face's lightmap ends exactly at the end of the lighting
 * lump, except the chosen ones (around the pieces' edges) that need one byte
 * more. The warnings must name exactly those, and the kept table must agree.
 * Sizes come from the reference rule above, then (second round) from a BSPX
 * DECOUPLED_LM lump that gives each face another size, then (third) the
 * reference rule in a GoldSrc map, three bytes a luxel. */
static void test_validate_sizes_across_pieces(void **state)
{
    (void)state;
    enum { N = 300, LIGHT = 1 << 14 };
    static const size_t short_ones[] = {0, 1, 62, 63, 64, 65, 127, 128, 129, 200, 255, 256, 299};
    const size_t nshort = sizeof short_ones / sizeof short_ones[0];
    static bspkit_vec3 v[4 * N];
    static bspkit_edge e[4 * N + 1];
    static int32_t se[4 * N];
    static bspkit_face f[N];
    static uint8_t decoupled[N * 40];
    static int32_t expected_styles[N];
    bspkit_texinfo ti[2];
    memset(ti, 0, sizeof ti);
    memset(f, 0, sizeof f);
    ti[0].texture_vecs[0][0] = 1.0f; /* s = x, t = y */
    ti[0].texture_vecs[1][1] = 1.0f;
    ti[1] = ti[0];
    ti[1].texture_vecs[0][3] = 7.5f; /* an offset, and a fraction of a luxel */
    for (int round = 0; round < 3; round++) {
        memset(decoupled, 0, sizeof decoupled);
        for (size_t i = 0; i < N; i++) {
            /* A rectangle of (1 .. 8) x (1 .. 8) luxels somewhere on z = 0. */
            rectangle_face(v, e, se, &f[i], i, false);
            f[i].texinfo = (int32_t)(i % 2);
            /* 1 to 4 styles, the count the styles before the first 255 */
            int32_t styles = 1 + (int32_t)(i % 4);
            for (int k = 0; k < 4; k++)
                f[i].styles[k] = k < styles ? (uint8_t)(k * 2 + (i % 7 == 0 ? 200 : 0)) : 255;
            if (i % 11 == 5)
                f[i].styles[styles > 1 ? 1 : 2] = 255; /* a gap: what follows it is not counted */
            styles = f[i].styles[1] == 255 ? 1 : styles;
            f[i].dispinfo = -1;
            int32_t mins[2], dim[2];
            assert_true(reference_extents(&f[i], se, 4 * N, e, 4 * N + 1, v, 4 * N, &ti[i % 2], mins, dim));
            if (round == 1) { /* DECOUPLED_LM: width, height (16 bits each), offset, then 8 floats */
                dim[0] = (int32_t)(2 + (i * 7) % 5); /* at least 2 bytes: a short one still starts inside the lump */
                dim[1] = (int32_t)(1 + i % 3);
                decoupled[40 * i] = (uint8_t)dim[0];
                decoupled[40 * i + 2] = (uint8_t)dim[1];
            }
            int32_t need = dim[0] * dim[1] * styles * (round == 2 ? 3 : 1); /* GoldSrc: RGB */
            expected_styles[i] = styles;
            bool is_short = false;
            for (size_t k = 0; k < nshort; k++)
                is_short |= short_ones[k] == i;
            f[i].light_offset = LIGHT - need + (is_short ? 1 : 0);
        }
        const face_set fs = {v, 4 * N, e, 4 * N + 1, se, 4 * N, ti, 2, f, N};
        size_t size;
        uint8_t *bytes = build_faces(&fs, round == 2, LIGHT, &size);
        uint8_t *file = bytes;
        if (round == 1)
            file = with_bspx_lump(bytes, size, "DECOUPLED_LM", decoupled, sizeof decoupled, &size);

        for (int pass = 0; pass < 2; pass++) {
            bk_cpu_allow_avx2(pass == 0);
            bspkit_map *m;
            CHECK(bspkit_open_memory(file, size, NULL, &m, ERR));
            bool warned[N];
            short_lightmaps(m, warned, N);
            const bspkit_face_lightmap *lm;
            size_t n;
            CHECK(bspkit_get_face_lightmaps(m, false, &lm, &n, ERR));
            assert_int_equal(n, N);
            for (size_t i = 0; i < N; i++) {
                bool is_short = false;
                for (size_t k = 0; k < nshort; k++)
                    is_short |= short_ones[k] == i;
                if (warned[i] != is_short)
                    fail_msg("round %d pass %d face %zu: warned %d, short %d", round, pass, i, warned[i], is_short);
                assert_int_equal(lm[i].decoupled, round == 1);
                assert_int_equal(lm[i].styles, expected_styles[i]);
                if (round != 1)
                    assert_int_equal(lm[i].in_range, !is_short);
            }
            bspkit_close(m);
        }
        bk_cpu_allow_avx2(true);
        if (file != bytes)
            free(file);
        bspkit_free_buffer(bytes);
    }
}

/* Validation clears most faces from a bound made of all vertexes' extent,
 * so here the extent is one face's: every face of a map is the same quad
 * (a diamond with fractional corners, a few units across, each extreme at
 * one corner; its corners anywhere among eleven vertexes, the others
 * inside it), each with its own texinfo
 * (axis-aligned or turned, scaled, offset by fractions of a luxel) and 1
 * to 4 styles, and its lightmap ends exactly at the lump's end or one byte
 * past it. 200 such maps, Quake and GoldSrc in turn; the warnings must be
 * exactly the short faces, by the reference rule. */
static void test_validate_sizes_tight_bounds(void **state)
{
    (void)state;
    enum { N = 24, NV = 11, LIGHT = 1 << 14 };
    bspkit_vec3 v[NV];
    bspkit_edge e[5] = {{{0, 0}}}; /* edge 0 is never walked, but it is written */
    int32_t se[4];
    bspkit_face f[N];
    bspkit_texinfo ti[N];
    size_t warned_total = 0, bound_cleared = 0, bound_kept = 0;
    for (int map = 0; map < 200; map++) {
        bool goldsrc = map % 2;
        memset(f, 0, sizeof f);
        memset(ti, 0, sizeof ti);
        float x0 = (float)(int32_t)(next_u32() % 4096) / 64.0f - 32.0f, y0 = (float)(next_u32() % 4096) / 64.0f;
        float w = 0.01f + (float)(next_u32() % 3000) / 64.0f, h = 0.01f + (float)(next_u32() % 3000) / 64.0f;
        uint32_t slot[4]; /* where the corners go among the vertexes */
        for (int k = 0; k < 4; k++) {
            bool taken;
            do {
                slot[k] = next_u32() % NV;
                taken = false;
                for (int j = 0; j < k; j++)
                    taken |= slot[j] == slot[k];
            } while (taken);
        }
        for (int k = 0; k < NV; k++) /* inside the quad */
            v[k] = (bspkit_vec3){x0 + w * 0.5f, y0 + h * 0.5f, 0};
        /* A diamond: each extreme of x and y at one corner only. */
        v[slot[0]] = (bspkit_vec3){x0 + w * 0.5f, y0, 0};
        v[slot[1]] = (bspkit_vec3){x0 + w, y0 + h * 0.5f, 0};
        v[slot[2]] = (bspkit_vec3){x0 + w * 0.5f, y0 + h, 0};
        v[slot[3]] = (bspkit_vec3){x0, y0 + h * 0.5f, 0};
        for (int k = 0; k < 4; k++) {
            e[1 + k].v[0] = slot[k];
            e[1 + k].v[1] = slot[(k + 1) % 4];
            se[k] = 1 + k;
        }
        bool is_short[N];
        for (int i = 0; i < N; i++) {
            float scale = (float)(1 + next_u32() % 8) / 4.0f, turn = (next_u32() % 3 == 0) ? 0.6f : 0.0f;
            float c = turn ? 0.8f : 1.0f;
            ti[i].texture_vecs[0][0] = c * scale, ti[i].texture_vecs[0][1] = turn * scale;
            ti[i].texture_vecs[1][0] = -turn * scale, ti[i].texture_vecs[1][1] = c * scale;
            ti[i].texture_vecs[0][3] = (float)(int32_t)(next_u32() % 512) / 16.0f - 16.0f;
            ti[i].texture_vecs[1][3] = (float)(int32_t)(next_u32() % 512) / 16.0f - 16.0f;
            f[i].first_edge = 0;
            f[i].num_edges = 4;
            f[i].texinfo = i;
            int32_t styles = 1 + (int32_t)(next_u32() % 4);
            for (int k = 0; k < 4; k++)
                f[i].styles[k] = k < styles ? (uint8_t)k : 255;
            f[i].dispinfo = -1;
            int32_t mins[2], dim[2];
            assert_true(reference_extents(&f[i], se, 4, e, 5, v, NV, &ti[i], mins, dim));
            int32_t need = dim[0] * dim[1] * styles * (goldsrc ? 3 : 1);
            is_short[i] = next_u32() % 2;
            f[i].light_offset = LIGHT - need + (is_short[i] ? 1 : 0);
            assert_true(f[i].light_offset > 0 && f[i].light_offset < LIGHT);
        }
        const face_set fs = {v, NV, e, 5, se, 4, ti, N, f, N};
        size_t size;
        uint8_t *bytes = build_faces(&fs, goldsrc, LIGHT, &size);
        bspkit_map *m;
        CHECK(bspkit_open_memory(bytes, size, NULL, &m, ERR));
        bool warned[N];
        short_lightmaps(m, warned, N);
        for (int i = 0; i < N; i++) {
            if (warned[i] != is_short[i])
                fail_msg("map %d face %d: warned %d, short %d", map, i, warned[i], is_short[i]);
            warned_total += warned[i];
        }
        /* The bound step before the screen, over light offsets across the
         * lump: it may clear a face only where the reference size fits. */
        bk_lightmap_faces lf;
        CHECK(bk_lightmap_faces_begin(m, &lf, ERR));
        assert_non_null(lf.style_bytes_bound);
        for (int i = 0; i < N; i++) {
            int32_t mins[2], dim[2];
            assert_true(reference_extents(&f[i], se, 4, e, 5, v, NV, &ti[i], mins, dim));
            int64_t need = (int64_t)dim[0] * dim[1] * (1 + (int64_t)(f[i].styles[1] != 255) +
                                                       (f[i].styles[2] != 255) + (f[i].styles[3] != 255)) *
                           (goldsrc ? 3 : 1);
            bspkit_face g = lf.faces[i];
            for (int32_t o = (int32_t)(next_u32() % 61); o < LIGHT; o += 61) {
                g.light_offset = o;
                if (bk_lightmap_face_needs_screen(&lf, (size_t)i, &g, (size_t)i)) {
                    bound_kept++;
                } else {
                    bound_cleared++;
                    if (need > LIGHT - o)
                        fail_msg("map %d face %d: cleared by the bound at %d, but needs %lld bytes", map, i, o,
                                 (long long)need);
                }
            }
        }
        bk_lightmap_faces_end(&lf);
        bspkit_close(m);
        bspkit_free_buffer(bytes);
    }
    assert_true(warned_total > 200 * N / 4);
    /* Both answers are given: most offsets leave room, the last ones do not. */
    assert_true(bound_cleared > bound_kept);
    assert_true(bound_kept > 200 * N);
}

/* Validation's face checks take eight faces a step on the AVX2 path, and
 * send on only the faces that may have something to report: the reports
 * must be those of the face-at-a-time path, in the same order. 1,003 faces
 * (several chunks of 256 and a tail short of eight), then a few to a few
 * hundred (tails after none, one or more steps), with every fault the
 * checks report mixed in at random: planes, edge spans and texinfo out of
 * range, too few edges, light offsets before, inside, at and past the end
 * of the lump, lightmaps one byte short, styles with gaps, texinfo drawn
 * without a lightmap; Quake and GoldSrc. In the last two rounds every face
 * is the same rectangle, so the texinfo bound is nearly the faces' size
 * and decides close to the end of the lump. */
static void test_validate_faces_both_paths(void **state)
{
    (void)state;
    enum { N = 1003, LIGHT = 1 << 15, TI = 6 };
    static bspkit_vec3 v[4 * N];
    static bspkit_edge e[4 * N + 1];
    static int32_t se[4 * N];
    static bspkit_face f[N];
    bspkit_texinfo ti[TI];
    size_t kinds[6] = {0};
    static const char *const kind_text[6] = {"plane", "first_edge", "texinfo", "only", "outside", "lightmap at"};
    /* Then small counts: a tail short of eight after none, one or more
     * whole steps (the AVX2 path takes it as the top of the last eight). */
    static const size_t counts[] = {N, N, N, N, 8, 9, 12, 13, 15, 17, 23, 263};
    for (int round = 0; round < (int)(sizeof counts / sizeof counts[0]); round++) {
        const size_t n = counts[round];
        bool goldsrc = round % 2;
        memset(ti, 0, sizeof ti);
        memset(f, 0, sizeof f);
        for (int t = 0; t < TI; t++) {
            ti[t].texture_vecs[0][0] = 1.0f / (float)(1 + t % 3);
            ti[t].texture_vecs[1][1] = 1.0f;
            ti[t].flags = t == TI - 1 ? 1 : 0; /* special: no lightmap */
        }
        for (size_t i = 0; i < n; i++) {
            rectangle_face(v, e, se, &f[i], i, round >= 2);
            f[i].texinfo = (int32_t)(next_u32() % TI);
            int32_t styles = (int32_t)(next_u32() % 5);
            for (int k = 0; k < 4; k++)
                f[i].styles[k] = k < styles ? (uint8_t)(next_u32() % 255) : 255;
            if (next_u32() % 9 == 0)
                f[i].styles[next_u32() % 4] = 255; /* a gap */
            f[i].dispinfo = -1;
            int32_t mins[2], dim[2];
            assert_true(reference_extents(&f[i], se, 4 * N, e, 4 * N + 1, v, 4 * N, &ti[f[i].texinfo], mins, dim));
            int32_t used = 0;
            while (used < 4 && f[i].styles[used] != 255)
                used++;
            int32_t need = dim[0] * dim[1] * used * (goldsrc ? 3 : 1);
            /* Mostly well inside the lump (the bound clears those), some at
             * its end, one byte short, outside it, or without a lightmap. */
            switch (next_u32() % 8) {
            case 0: f[i].light_offset = LIGHT - need; break;
            case 1: f[i].light_offset = LIGHT - need + 1; break;
            case 2: f[i].light_offset = -1; break;
            case 3:
                f[i].light_offset = (int32_t)(next_u32() % 5);
                f[i].light_offset = (next_u32() % 2) ? LIGHT + f[i].light_offset : -2 - f[i].light_offset;
                break;
            default: f[i].light_offset = (int32_t)(next_u32() % (LIGHT / 4)); break;
            }
            switch (next_u32() % 40) {
            case 0: f[i].plane = 1 + next_u32() % 3; break; /* the map has one plane */
            case 1: f[i].first_edge = (int32_t)(4 * N) - (int32_t)(next_u32() % 3); break;
            case 2: f[i].first_edge = -1 - (int32_t)(next_u32() % 3); break;
            case 3: f[i].texinfo = TI + (int32_t)(next_u32() % 3); break;
            case 4: f[i].num_edges = (int32_t)(next_u32() % 3); break;
            default: break;
            }
        }
        const face_set fs = {v, 4 * N, e, 4 * N + 1, se, 4 * N, ti, TI, f, n};
        size_t size;
        uint8_t *bytes = build_faces(&fs, goldsrc, LIGHT, &size);
        bspkit_report rep[2];
        for (int pass = 0; pass < 2; pass++) {
            bk_cpu_allow_avx2(pass == 0);
            bspkit_map *m;
            CHECK(bspkit_open_memory(bytes, size, NULL, &m, ERR));
            memset(&rep[pass], 0, sizeof rep[pass]);
            CHECK(bspkit_validate_ex(m, 0, &rep[pass], ERR));
            bspkit_close(m);
        }
        bk_cpu_allow_avx2(true);
        assert_int_equal(rep[0].errors, rep[1].errors);
        assert_int_equal(rep[0].warnings, rep[1].warnings);
        assert_int_equal(rep[0].count, rep[1].count);
        for (size_t k = 0; k < rep[0].count; k++) {
            const bspkit_problem *a = &rep[0].problems[k], *b = &rep[1].problems[k];
            if (a->severity != b->severity || a->code != b->code || a->lump != b->lump || a->record != b->record ||
                a->offset != b->offset || strcmp(a->message, b->message) != 0)
                fail_msg("round %d problem %zu: \"%s\" (record %lld) against \"%s\" (record %lld)", round, k,
                         a->message, (long long)a->record, b->message, (long long)b->record);
            for (int j = 0; j < 6; j++)
                kinds[j] += strstr(a->message, kind_text[j]) != NULL;
        }
        bspkit_report_free(&rep[0]);
        bspkit_report_free(&rep[1]);
        bspkit_free_buffer(bytes);
    }
    /* Every kind of report was there to be compared. */
    for (int j = 0; j < 6; j++)
        if (kinds[j] < 10)
            fail_msg("only %zu reports mentioning \"%s\"", kinds[j], kind_text[j]);
}

/* The bound table from all vertexes' extent is the same on both paths
 * (eight vertexes a step with AVX2, four with SSE2, the rest one by one):
 * maps of 1 to 40 vertexes, coordinates as maps hold them (now and then
 * not finite, at any position, which leaves the table out). */
static void test_vertex_bounds_both_paths(void **state)
{
    (void)state;
    enum { MAXV = 40, TI = 3 };
    bspkit_vec3 v[MAXV];
    bspkit_edge e[2] = {{{0, 0}}, {{0, 0}}};
    int32_t se[3] = {1, 1, 1};
    bspkit_face f[1];
    bspkit_texinfo ti[TI];
    size_t tables = 0, none = 0;
    for (int round = 0; round < 400; round++) {
        size_t nv = 1 + (size_t)round % MAXV;
        for (size_t i = 0; i < nv; i++)
            v[i] = (bspkit_vec3){coordinate(), coordinate(), coordinate()};
        if (round % 3) /* mostly finite, so that tables are compared */
            for (size_t i = 0; i < nv; i++)
                if (!isfinite(v[i].x) || !isfinite(v[i].y) || !isfinite(v[i].z))
                    v[i] = (bspkit_vec3){(float)i, -(float)i, 0.5f};
        memset(ti, 0, sizeof ti);
        for (int t = 0; t < TI; t++)
            for (int axis = 0; axis < 2; axis++)
                for (int k = 0; k < 4; k++)
                    ti[t].texture_vecs[axis][k] = texture_component();
        memset(f, 0, sizeof f);
        f[0].num_edges = 3;
        f[0].light_offset = 0;
        f[0].styles[1] = f[0].styles[2] = f[0].styles[3] = 255;
        f[0].dispinfo = -1;
        const face_set fs = {v, nv, e, 2, se, 3, ti, TI, f, 1};
        size_t size;
        uint8_t *bytes = build_faces(&fs, round % 2, 1 << 12, &size);
        uint64_t bound[2][TI];
        bool have[2];
        for (int pass = 0; pass < 2; pass++) {
            bk_cpu_allow_avx2(pass == 0);
            bspkit_map *m;
            CHECK(bspkit_open_memory(bytes, size, NULL, &m, ERR));
            bk_lightmap_faces lf;
            CHECK(bk_lightmap_faces_begin(m, &lf, ERR));
            have[pass] = lf.style_bytes_bound != NULL;
            if (have[pass])
                memcpy(bound[pass], lf.style_bytes_bound, sizeof bound[pass]);
            bk_lightmap_faces_end(&lf);
            bspkit_close(m);
        }
        bk_cpu_allow_avx2(true);
        if (have[0] != have[1] || (have[0] && memcmp(bound[0], bound[1], sizeof bound[0]) != 0))
            fail_msg("round %d (%zu vertexes): the two paths' bound tables differ", round, nv);
        if (have[0])
            tables++;
        else
            none++;
        bspkit_free_buffer(bytes);
    }
    assert_true(tables > 100);
    assert_true(none > 20);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_extents_both_paths),
        cmocka_unit_test(test_validate_sizes_across_pieces),
        cmocka_unit_test(test_validate_sizes_tight_bounds),
        cmocka_unit_test(test_validate_faces_both_paths),
        cmocka_unit_test(test_vertex_bounds_both_paths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
