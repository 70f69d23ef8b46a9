/* Rendering the generated sample maps, checked against values this test
 * computes itself from the lump bytes: top-view pixels of the GoldSrc room's
 * floor equal the miptex texel (through the embedded palette) times the
 * bilinear RGB lightmap from the LIGHTING lump, averaged over the 2 x 2
 * samples; the covered pixels of a top view match the footprint of the
 * upward faces projected here (intersection over union >= 0.98); the spawn
 * eye is the entity's origin plus the eye height; a floor whose miptex is
 * renamed to sky or a tool name in the file's bytes disappears (and comes back
 * with show_hidden); a missing texture is the grey checker; far away, a
 * texture shows the mean of the texel block a sample covers; the same options
 * give the same bytes; bad options are refused. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "check.h"

#include "bspkit/render.h"
#include "bspkit/write.h"
#include "core/bytes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define W 320
#define H 180
#define SS 2

typedef struct sample_map {
    uint8_t *bytes;
    size_t size;
    bspkit_map *m;
} sample_map;

static sample_map open_sample(bspkit_sample_kind kind)
{
    sample_map s;
    CHECK(bspkit_sample_build(kind, &s.bytes, &s.size, ERR));
    bspkit_options o = {.flags = BSPKIT_OPEN_COPY};
    CHECK(bspkit_open_memory(s.bytes, s.size, &o, &s.m, ERR));
    return s;
}

static void close_sample(sample_map *s)
{
    bspkit_close(s->m);
    bspkit_free(s->bytes);
}

static const uint8_t *lump(bspkit_map *m, const char *name, size_t *size)
{
    int i = bspkit_lump_find(m, name);
    assert_true(i >= 0);
    /* Static, not local: gcc's -Wdangling-pointer takes the returned bytes
     * for the address of a local whose address the call was given. */
    static const uint8_t *d;
    CHECK(bspkit_lump_bytes(m, i, &d, size, ERR));
    return d;
}

static float f32(const uint8_t *p) { return bits_to_float(rd_le32(p)); }

/* ---- Quake/GoldSrc faces read from the lumps --------------------------------- */

typedef struct qface {
    double normal[3];
    double poly[16][3];
    int n;
    double s[4], t[4];
    uint32_t miptex;
    int32_t lightofs;
} qface;

typedef struct qmap {
    qface faces[64];
    size_t nfaces;
    double mins[3], maxs[3];
} qmap;

static void read_qmap(bspkit_map *m, qmap *q)
{
    size_t nf, np, nv, ne, nse, nti, nmod;
    const uint8_t *faces = lump(m, "FACES", &nf), *planes = lump(m, "PLANES", &np);
    const uint8_t *verts = lump(m, "VERTEXES", &nv), *edges = lump(m, "EDGES", &ne);
    const uint8_t *se = lump(m, "SURFEDGES", &nse), *ti = lump(m, "TEXINFO", &nti);
    (void)lump(m, "MODELS", &nmod);
    /* The samples have one model, the world: every face is drawn. */
    assert_int_equal(nmod, 64);
    for (int k = 0; k < 3; k++) {
        q->mins[k] = HUGE_VAL;
        q->maxs[k] = -HUGE_VAL;
    }
    q->nfaces = nf / 20;
    assert_true(q->nfaces <= 64);
    for (size_t i = 0; i < q->nfaces; i++) {
        const uint8_t *f = faces + i * 20;
        qface *o = &q->faces[i];
        uint16_t plane = rd_le16(f), side = rd_le16(f + 2);
        int32_t first = (int32_t)rd_le32(f + 4);
        uint16_t count = rd_le16(f + 8), tinfo = rd_le16(f + 10);
        o->lightofs = (int32_t)rd_le32(f + 16);
        assert_true((size_t)plane * 20 + 20 <= np && count <= 16 && (size_t)tinfo * 40 + 40 <= nti);
        for (int k = 0; k < 3; k++)
            o->normal[k] = f32(planes + plane * 20 + 4 * k) * (side ? -1 : 1);
        o->n = count;
        for (int e = 0; e < count; e++) {
            int32_t s = (int32_t)rd_le32(se + 4 * ((size_t)first + (size_t)e));
            uint32_t ei = (uint32_t)(s < 0 ? -s : s);
            assert_true((size_t)ei * 4 + 4 <= ne);
            uint16_t v = rd_le16(edges + ei * 4 + (s < 0 ? 2 : 0));
            assert_true((size_t)v * 12 + 12 <= nv);
            for (int k = 0; k < 3; k++) {
                o->poly[e][k] = f32(verts + v * 12 + 4 * k);
                q->mins[k] = fmin(q->mins[k], o->poly[e][k]);
                q->maxs[k] = fmax(q->maxs[k], o->poly[e][k]);
            }
        }
        for (int k = 0; k < 4; k++) {
            o->s[k] = f32(ti + tinfo * 40 + 4 * k);
            o->t[k] = f32(ti + tinfo * 40 + 16 + 4 * k);
        }
        o->miptex = rd_le32(ti + tinfo * 40 + 32);
    }
}

/* Point (x, y) inside the face's polygon projected straight down (convex, either winding). */
static bool inside_xy(const qface *f, double x, double y)
{
    int pos = 0, neg = 0;
    for (int i = 0; i < f->n; i++) {
        const double *a = f->poly[i], *b = f->poly[(i + 1) % f->n];
        double c = (b[0] - a[0]) * (y - a[1]) - (b[1] - a[1]) * (x - a[0]);
        pos += c > 0;
        neg += c < 0;
    }
    return pos == 0 || neg == 0;
}

/* The top view's mapping as render.h states it: the X-Y box of the world's
 * vertices fitted into the sample grid with one scale, centred; y down the image. */
typedef struct top_map {
    double scale, cx, cy, gw, gh;
} top_map;

static top_map top_mapping(const qmap *q, uint32_t w, uint32_t h, uint32_t ss)
{
    top_map t;
    t.gw = (double)w * ss;
    t.gh = (double)h * ss;
    t.scale = fmin(t.gw / (q->maxs[0] - q->mins[0]), t.gh / (q->maxs[1] - q->mins[1]));
    t.cx = (q->mins[0] + q->maxs[0]) / 2;
    t.cy = (q->mins[1] + q->maxs[1]) / 2;
    return t;
}

static void sample_world(const top_map *t, double sx, double sy, double *x, double *y)
{
    *x = t->cx + (sx + 0.5 - t->gw / 2) / t->scale;
    *y = t->cy - (sy + 0.5 - t->gh / 2) / t->scale;
}

static bspkit_image render(bspkit_map *m, bspkit_render_view view, uint32_t w, uint32_t h)
{
    bspkit_render_options o = {0};
    o.view = view;
    o.width = w;
    o.height = h;
    bspkit_image img;
    CHECK(bspkit_render(m, &o, &img, NULL, ERR));
    assert_int_equal(img.width, w);
    assert_int_equal(img.height, h);
    return img;
}

static bool is_background(const uint8_t *p) { return p[0] == 32 && p[1] == 32 && p[2] == 40; }

/* ---- texture x lightmap -------------------------------------------------------- */

static double frac_dist(double v) { return fabs(v - floor(v + 0.5)); }

/* The GoldSrc room's floor face and its miptex (level 0 and palette). */
typedef struct floor_info {
    const qface *face;
    uint32_t tw, th;
    const uint8_t *mip0, *palette;
} floor_info;

static floor_info find_floor(bspkit_map *m, const qmap *q)
{
    floor_info f = {0};
    for (size_t i = 0; i < q->nfaces; i++)
        if (q->faces[i].normal[2] > 0.9)
            f.face = &q->faces[i];
    assert_non_null(f.face);
    size_t ntex;
    const uint8_t *tex = lump(m, "TEXTURES", &ntex);
    assert_true(f.face->miptex < rd_le32(tex));
    const uint8_t *mt = tex + rd_le32(tex + 4 + 4 * f.face->miptex);
    f.tw = rd_le32(mt + 16);
    f.th = rd_le32(mt + 20);
    f.mip0 = mt + rd_le32(mt + 24);
    f.palette = mt + rd_le32(mt + 36) + (f.tw / 8) * (f.th / 8) + 2;
    return f;
}

static double tex_s(const qface *f, const double p[3]) { return p[0] * f->s[0] + p[1] * f->s[1] + p[2] * f->s[2] + f->s[3]; }
static double tex_t(const qface *f, const double p[3]) { return p[0] * f->t[0] + p[1] * f->t[1] + p[2] * f->t[2] + f->t[3]; }

/* Seen from far enough that 16 texels fall on one sample, the floor shows
 * the mean colour of the 16 x 16 texel block each sample lands in (level 4
 * of the box-filtered chain; a level is rounded each time, so within 3). */
static void test_minified_texture(void **state)
{
    (void)state;
    sample_map s = open_sample(BSPKIT_SAMPLE_GOLDSRC_ROOM);
    qmap q;
    read_qmap(s.m, &q);
    floor_info ft = find_floor(s.m, &q);
    const uint32_t size = 8; /* 128 units on 8 pixels: 16 texels a sample */
    bspkit_render_options o = {.view = BSPKIT_RENDER_TOP, .width = size, .height = size, .supersample = 1,
                               .no_lightmaps = true};
    bspkit_image img;
    CHECK(bspkit_render(s.m, &o, &img, NULL, ERR));
    top_map t = top_mapping(&q, size, size, 1);
    int checked = 0;
    for (uint32_t py = 0; py < size; py++) {
        for (uint32_t px = 0; px < size; px++) {
            double x, y;
            sample_world(&t, px, py, &x, &y);
            double p[3] = {x, y, ft.face->poly[0][2]};
            long bs = (long)floor(tex_s(ft.face, p) / 16), bt = (long)floor(tex_t(ft.face, p) / 16);
            uint32_t sum[3] = {0, 0, 0}, n = 0;
            for (long v = bt * 16; v < bt * 16 + 16; v++)
                for (long u = bs * 16; u < bs * 16 + 16; u++) {
                    long tx = (u % (long)ft.tw + (long)ft.tw) % (long)ft.tw;
                    long ty = (v % (long)ft.th + (long)ft.th) % (long)ft.th;
                    const uint8_t *rgb = ft.palette + 3 * ft.mip0[(size_t)ty * ft.tw + (size_t)tx];
                    for (int c = 0; c < 3; c++)
                        sum[c] += rgb[c];
                    n++;
                }
            const uint8_t *got = img.rgba + ((size_t)py * size + px) * 4;
            for (int c = 0; c < 3; c++) {
                int want = (int)((sum[c] + n / 2) / n);
                if (abs(got[c] - want) > 3)
                    fail_msg("pixel (%u, %u) channel %d: %d, the block mean is %d", px, py, c, got[c], want);
            }
            checked++;
        }
    }
    assert_int_equal(checked, size * size);
    bspkit_image_free(&img);
    close_sample(&s);
}

static void test_top_pixels_goldsrc(void **state)
{
    (void)state;
    sample_map s = open_sample(BSPKIT_SAMPLE_GOLDSRC_ROOM);
    qmap q;
    read_qmap(s.m, &q);
    floor_info ft = find_floor(s.m, &q);
    const qface *floor_face = ft.face;
    uint32_t tw = ft.tw, th = ft.th;
    const uint8_t *mip0 = ft.mip0, *palette = ft.palette;
    size_t nlight;
    const uint8_t *light = lump(s.m, "LIGHTING", &nlight);
    /* Lightmap extents: floor/ceil of the texture-space range over 16. */
    double smin = HUGE_VAL, tmin = HUGE_VAL, smax = -HUGE_VAL, tmax = -HUGE_VAL;
    for (int i = 0; i < floor_face->n; i++) {
        const double *p = floor_face->poly[i];
        double sv = tex_s(floor_face, p), tv = tex_t(floor_face, p);
        smin = fmin(smin, sv);
        smax = fmax(smax, sv);
        tmin = fmin(tmin, tv);
        tmax = fmax(tmax, tv);
    }
    int lw = (int)(ceil(smax / 16) - floor(smin / 16)) + 1, lh = (int)(ceil(tmax / 16) - floor(tmin / 16)) + 1;
    assert_true((size_t)floor_face->lightofs + (size_t)lw * lh * 3 <= nlight);
    const uint8_t *lm = light + floor_face->lightofs;

    bspkit_image img = render(s.m, BSPKIT_RENDER_TOP, W, H);
    top_map t = top_mapping(&q, W, H, SS);
    int checked = 0;
    for (uint32_t py = 2; py < H; py += 7) {
        for (uint32_t px = 2; px < W; px += 7) {
            int sum[3] = {0, 0, 0};
            bool usable = true;
            for (int k = 0; k < SS * SS && usable; k++) {
                double x, y;
                sample_world(&t, px * SS + (k % SS), py * SS + (k / SS), &x, &y);
                if (!inside_xy(floor_face, x, y) || !inside_xy(floor_face, x + 0.05, y + 0.05) ||
                    !inside_xy(floor_face, x - 0.05, y - 0.05)) {
                    usable = false;
                    break;
                }
                double p[3] = {x, y, floor_face->poly[0][2]};
                double sv = tex_s(floor_face, p), tv = tex_t(floor_face, p);
                /* Samples on a texel edge could fall either side of it. */
                if (frac_dist(sv) < 0.01 || frac_dist(tv) < 0.01) {
                    usable = false;
                    break;
                }
                long tx = ((long)floor(sv) % (long)tw + (long)tw) % (long)tw;
                long ty = ((long)floor(tv) % (long)th + (long)th) % (long)th;
                const uint8_t *rgb = palette + 3 * mip0[(size_t)ty * tw + (size_t)tx];
                double ls = sv / 16 - floor(smin / 16), lt = tv / 16 - floor(tmin / 16);
                int x0 = (int)floor(ls), y0 = (int)floor(lt);
                double ax = ls - x0, ay = lt - y0;
                int xs[2] = {x0 < 0 ? 0 : x0 > lw - 1 ? lw - 1 : x0, x0 + 1 > lw - 1 ? lw - 1 : x0 + 1};
                int ys[2] = {y0 < 0 ? 0 : y0 > lh - 1 ? lh - 1 : y0, y0 + 1 > lh - 1 ? lh - 1 : y0 + 1};
                for (int c = 0; c < 3; c++) {
                    double l00 = lm[(ys[0] * lw + xs[0]) * 3 + c], l10 = lm[(ys[0] * lw + xs[1]) * 3 + c];
                    double l01 = lm[(ys[1] * lw + xs[0]) * 3 + c], l11 = lm[(ys[1] * lw + xs[1]) * 3 + c];
                    double l = (l00 * (1 - ax) + l10 * ax) * (1 - ay) + (l01 * (1 - ax) + l11 * ax) * ay;
                    sum[c] += (int)floor(rgb[c] * l / 255 + 0.5);
                }
            }
            if (!usable)
                continue;
            const uint8_t *got = img.rgba + ((size_t)py * W + px) * 4;
            for (int c = 0; c < 3; c++) {
                int want = (sum[c] + SS * SS / 2) / (SS * SS);
                if (abs(got[c] - want) > 1)
                    fail_msg("pixel (%u, %u) channel %d: %d, expected %d", px, py, c, got[c], want);
            }
            checked++;
        }
    }
    /* Left of the room (the bounds are square, the image is not). */
    assert_true(is_background(img.rgba + ((size_t)(H / 2) * W + 2) * 4));
    assert_true(checked > 100);
    bspkit_image_free(&img);
    close_sample(&s);
}

/* ---- top-view footprint ---------------------------------------------------------- */

/* With one sample a pixel, a pixel is covered exactly when its centre is;
 * with more, edge pixels blend and count as covered when any sample is. */
static void check_footprint(bspkit_sample_kind kind, uint32_t w, uint32_t h, uint32_t ss)
{
    sample_map s = open_sample(kind);
    qmap q;
    read_qmap(s.m, &q);
    bspkit_render_options o = {.view = BSPKIT_RENDER_TOP, .width = w, .height = h, .supersample = ss};
    bspkit_image img;
    CHECK(bspkit_render(s.m, &o, &img, NULL, ERR));
    top_map t = top_mapping(&q, w, h, 1);
    size_t inter = 0, uni = 0, covered = 0;
    for (uint32_t py = 0; py < h; py++) {
        for (uint32_t px = 0; px < w; px++) {
            double x, y;
            sample_world(&t, px, py, &x, &y);
            bool want = false;
            for (size_t i = 0; i < q.nfaces && !want; i++)
                want = q.faces[i].normal[2] > 1e-6 && inside_xy(&q.faces[i], x, y);
            bool got = !is_background(img.rgba + ((size_t)py * w + px) * 4);
            inter += want && got;
            uni += want || got;
            covered += want;
        }
    }
    double iou = uni ? (double)inter / (double)uni : 0;
    printf("%s top view %ux%u, %ux%u samples: %zu pixels expected, IoU %.4f\n", bspkit_sample_name(kind), w, h, ss,
           ss, covered, iou);
    assert_true(covered > (size_t)w * h / 10);
    assert_true(iou >= 0.98);
    bspkit_image_free(&img);
    close_sample(&s);
}

static void test_top_footprint(void **state)
{
    (void)state;
    check_footprint(BSPKIT_SAMPLE_GOLDSRC_ROOM, W, H, 2);
    check_footprint(BSPKIT_SAMPLE_QUAKE_ROOM, 97, 211, 1);
    check_footprint(BSPKIT_SAMPLE_QUAKE_ROOM, 401, 233, 4);
}

/* ---- hidden faces -------------------------------------------------------------------- */

static size_t covered_pixels(const bspkit_image *img)
{
    size_t n = 0;
    for (size_t i = 0; i < (size_t)img->width * img->height; i++)
        n += !is_background(img->rgba + i * 4);
    return n;
}

/* The GoldSrc room with its floor/ceiling miptex renamed in the file's bytes:
 * as "sky" or "aaatrigger" the floor is hidden from the top view (walls are
 * edge-on there), and show_hidden brings it back. */
static void test_hidden_faces(void **state)
{
    (void)state;
    static const char *const NAMES[] = {"sky", "aaatrigger", "clip"};
    for (size_t n = 0; n < sizeof NAMES / sizeof NAMES[0]; n++) {
        sample_map s = open_sample(BSPKIT_SAMPLE_GOLDSRC_ROOM);
        qmap q;
        read_qmap(s.m, &q);
        uint32_t floor_miptex = UINT32_MAX;
        for (size_t i = 0; i < q.nfaces; i++)
            if (q.faces[i].normal[2] > 0.9)
                floor_miptex = q.faces[i].miptex;
        bspkit_lump_info li;
        CHECK(bspkit_get_lump_info(s.m, bspkit_lump_find(s.m, "TEXTURES"), &li));
        uint8_t *copy = malloc(s.size);
        assert_non_null(copy);
        memcpy(copy, s.bytes, s.size);
        assert_true((uint64_t)li.offset + 8 + 4 * (uint64_t)floor_miptex <= s.size);
        uint64_t name_at = (uint64_t)li.offset + rd_le32(copy + li.offset + 4 + 4 * (size_t)floor_miptex);
        assert_true(name_at + 16 <= s.size);
        memset(copy + name_at, 0, 16);
        memcpy(copy + name_at, NAMES[n], strlen(NAMES[n]));
        bspkit_map *m;
        bspkit_options o = {.flags = BSPKIT_OPEN_COPY};
        CHECK(bspkit_open_memory(copy, s.size, &o, &m, ERR));
        bspkit_render_options ro = {.view = BSPKIT_RENDER_TOP, .width = 160, .height = 160};
        bspkit_image hidden, shown;
        CHECK(bspkit_render(m, &ro, &hidden, NULL, ERR));
        ro.show_hidden = true;
        CHECK(bspkit_render(m, &ro, &shown, NULL, ERR));
        /* The floor fills the square image when shown; hidden, only a wall's edge may touch a pixel. */
        printf("floor named %s: %zu pixels covered hidden, %zu shown\n", NAMES[n], covered_pixels(&hidden),
               covered_pixels(&shown));
        assert_true(covered_pixels(&hidden) < 160 * 4);
        assert_true(covered_pixels(&shown) == 160 * 160);
        bspkit_image_free(&hidden);
        bspkit_image_free(&shown);
        bspkit_close(m);
        free(copy);
        close_sample(&s);
    }
}

/* Quake 2 textures live outside the map: the room's floor is the checker,
 * 128 and 96 grey, never white; with lightmaps off nothing else shows. */
static void test_missing_checker(void **state)
{
    (void)state;
    sample_map s = open_sample(BSPKIT_SAMPLE_QUAKE2_ROOM);
    bspkit_render_options o = {.view = BSPKIT_RENDER_TOP, .width = 120, .height = 120, .supersample = 1,
                               .no_lightmaps = true};
    bspkit_image img;
    bspkit_render_stats st;
    CHECK(bspkit_render(s.m, &o, &img, &st, ERR));
    assert_true(st.missing_textures > 0);
    size_t light = 0, dark = 0;
    for (size_t i = 0; i < (size_t)120 * 120; i++) {
        const uint8_t *p = img.rgba + i * 4;
        if (is_background(p))
            continue;
        assert_true(p[0] == p[1] && p[1] == p[2]);
        assert_true(p[0] == 128 || p[0] == 96);
        light += p[0] == 128;
        dark += p[0] == 96;
    }
    assert_true(light > 1000 && dark > 1000);
    bspkit_image_free(&img);
    close_sample(&s);
}

/* ---- spawn eye, determinism, options ---------------------------------------------- */

static void test_spawn_eye(void **state)
{
    (void)state;
    struct {
        bspkit_sample_kind kind;
        double eye;
    } cases[] = {{BSPKIT_SAMPLE_GOLDSRC_ROOM, 28}, {BSPKIT_SAMPLE_QUAKE_ROOM, 22}, {BSPKIT_SAMPLE_SOURCE_ROOM, 64}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        sample_map s = open_sample(cases[c].kind);
        size_t n;
        const char *ent = (const char *)lump(s.m, "ENTITIES", &n);
        const char *cls = strstr(ent, "info_player_start");
        assert_non_null(cls);
        /* The origin key may come before or after the classname inside the block. */
        const char *open = cls;
        while (open > ent && *open != '{')
            open--;
        const char *org = strstr(open, "\"origin\" \"");
        assert_non_null(org);
        assert_true(org < strchr(cls, '}'));
        double o[3];
        assert_int_equal(sscanf(org + 10, "%lf %lf %lf", &o[0], &o[1], &o[2]), 3);
        bspkit_render_options opt = {.width = 64, .height = 36};
        bspkit_render_stats st;
        bspkit_image img;
        CHECK(bspkit_render(s.m, &opt, &img, &st, ERR));
        assert_true(st.eye.origin[0] == o[0] && st.eye.origin[1] == o[1]);
        assert_true(fabs(st.eye.origin[2] - (o[2] + cases[c].eye)) < 1e-9);
        /* Inside the closed room every pixel sees a wall. */
        for (size_t i = 0; i < (size_t)64 * 36; i++)
            assert_false(is_background(img.rgba + i * 4));
        bspkit_image_free(&img);
        close_sample(&s);
    }
}

/* A small file's bytes (up to 1 MB). */
static uint8_t *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    uint8_t *d = malloc(1 << 20);
    assert_non_null(d);
    *size = fread(d, 1, 1 << 20, f);
    fclose(f);
    return d;
}

static void test_deterministic(void **state)
{
    (void)state;
    for (int k = 0; k < BSPKIT_SAMPLE_COUNT; k++) {
        sample_map s = open_sample((bspkit_sample_kind)k);
        for (int v = BSPKIT_RENDER_TOP; v <= BSPKIT_RENDER_ISO; v++) {
            bspkit_image a = render(s.m, (bspkit_render_view)v, 200, 120);
            bspkit_image b = render(s.m, (bspkit_render_view)v, 200, 120);
            assert_memory_equal(a.rgba, b.rgba, (size_t)200 * 120 * 4);
            size_t drawn = 0;
            for (size_t i = 0; i < (size_t)200 * 120; i++)
                drawn += !is_background(a.rgba + i * 4);
            assert_true(drawn > 1000);
            bspkit_image_free(&a);
            bspkit_image_free(&b);
        }
        close_sample(&s);
    }
    /* The PNG files too, byte for byte. */
    sample_map s = open_sample(BSPKIT_SAMPLE_SOURCE_ROOM);
    char pa[] = "/tmp/bspkit_render_a_XXXXXX", pb[] = "/tmp/bspkit_render_b_XXXXXX";
    int fa = mkstemp(pa), fb = mkstemp(pb);
    assert_true(fa >= 0 && fb >= 0);
    close(fa);
    close(fb);
    bspkit_render_options o = {.view = BSPKIT_RENDER_ISO, .width = 160, .height = 90};
    CHECK(bspkit_render_png(s.m, pa, &o, NULL, ERR));
    CHECK(bspkit_render_png(s.m, pb, &o, NULL, ERR));
    size_t na, nb;
    uint8_t *da = slurp(pa, &na), *db = slurp(pb, &nb);
    assert_true(na > 8 && na == nb);
    assert_memory_equal(da, db, na);
    assert_memory_equal(da, "\x89PNG", 4);
    free(da);
    free(db);
    unlink(pa);
    unlink(pb);
    close_sample(&s);
}

static void test_options(void **state)
{
    (void)state;
    sample_map s = open_sample(BSPKIT_SAMPLE_GOLDSRC_ROOM);
    bspkit_image img;
    bspkit_render_options o = {.width = 16};
    assert_int_equal(bspkit_render(s.m, &o, &img, NULL, ERR), BSPKIT_ERR_ARGUMENT);
    o = (bspkit_render_options){.supersample = 5};
    assert_int_equal(bspkit_render(s.m, &o, &img, NULL, ERR), BSPKIT_ERR_ARGUMENT);
    o = (bspkit_render_options){.view = BSPKIT_RENDER_CAMERA, .camera = {.fov = 180}};
    assert_int_equal(bspkit_render(s.m, &o, &img, NULL, ERR), BSPKIT_ERR_ARGUMENT);
    o = (bspkit_render_options){.view = BSPKIT_RENDER_TOP, .have_bounds = true, .bounds_min = {1, 0, 0}};
    assert_int_equal(bspkit_render(s.m, &o, &img, NULL, ERR), BSPKIT_ERR_ARGUMENT);
    o = (bspkit_render_options){.width = 16384, .height = 16384};
    assert_int_equal(bspkit_render(s.m, &o, &img, NULL, ERR), BSPKIT_ERR_LIMIT);
    close_sample(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_top_pixels_goldsrc), cmocka_unit_test(test_top_footprint),
        cmocka_unit_test(test_hidden_faces),       cmocka_unit_test(test_missing_checker),
        cmocka_unit_test(test_minified_texture),
        cmocka_unit_test(test_spawn_eye),          cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
