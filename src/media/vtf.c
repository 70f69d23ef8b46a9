/* VTF (Valve Texture Format) 7.0-7.5: header, resource directory (7.3+),
 * and the largest mip of the first frame/face/slice decoded to RGBA.
 * Layout facts: the high-resolution data holds every mip from the smallest
 * to the largest; inside one mip come frames, then faces, then depth
 * slices. Before 7.3 it follows the header and the low-resolution
 * thumbnail; from 7.3 the resource tagged 0x30 gives its offset. */
#include "bspkit/textures.h"
#include "core/map.h"

#include <stdio.h>
#include <string.h>

#define VTF_MIN_HEADER_70 63  /* through the thumbnail height */
#define VTF_MIN_HEADER_72 65  /* + depth */
#define VTF_MIN_HEADER_73 80  /* + resource count and padding */
#define VTF_RESOURCE_SIZE 8
#define VTF_FLAG_ENVMAP 0x4000u
#define VTF_NO_SPHERE_FRAME 0xFFFFu
#define VTF_FORMAT_NONE (-1)

enum {
    FMT_RGBA8888 = 0, FMT_ABGR8888, FMT_RGB888, FMT_BGR888, FMT_RGB565, FMT_I8, FMT_IA88, FMT_P8, FMT_A8,
    FMT_RGB888_BLUESCREEN, FMT_BGR888_BLUESCREEN, FMT_ARGB8888, FMT_BGRA8888, FMT_DXT1, FMT_DXT3, FMT_DXT5,
    FMT_BGRX8888, FMT_BGR565, FMT_BGRX5551, FMT_BGRA4444, FMT_DXT1_ONEBITALPHA, FMT_BGRA5551, FMT_UV88
};

/* Per format: name, bytes per pixel (or per 4x4 block when `block`), and
 * whether this file decodes it. Size 0: unknown, so data after it cannot be
 * located. */
typedef struct vtf_format {
    const char *name;
    uint8_t bytes;
    bool block;
    bool supported;
} vtf_format;

static const vtf_format FORMATS[] = {
    {"RGBA8888", 4, false, true},       {"ABGR8888", 4, false, true},
    {"RGB888", 3, false, true},         {"BGR888", 3, false, true},
    {"RGB565", 2, false, true},         {"I8", 1, false, true},
    {"IA88", 2, false, true},           {"P8", 1, false, false},
    {"A8", 1, false, true},             {"RGB888_BLUESCREEN", 3, false, false},
    {"BGR888_BLUESCREEN", 3, false, false}, {"ARGB8888", 4, false, true},
    {"BGRA8888", 4, false, true},       {"DXT1", 8, true, true},
    {"DXT3", 16, true, true},           {"DXT5", 16, true, true},
    {"BGRX8888", 4, false, true},       {"BGR565", 2, false, true},
    {"BGRX5551", 2, false, false},      {"BGRA4444", 2, false, true},
    {"DXT1_ONEBITALPHA", 8, true, true}, {"BGRA5551", 2, false, true},
    {"UV88", 2, false, true},           {"UVWQ8888", 4, false, false},
    {"RGBA16161616F", 8, false, false}, {"RGBA16161616", 8, false, false},
    {"UVLX8888", 4, false, false},      {"R32F", 4, false, false},
    {"RGB323232F", 12, false, false},   {"RGBA32323232F", 16, false, false},
    {"NV_DST16", 0, false, false},      {"NV_DST24", 0, false, false},
    {"NV_INTZ", 0, false, false},       {"NV_RAWZ", 0, false, false},
    {"ATI_DST16", 0, false, false},     {"ATI_DST24", 0, false, false},
    {"NV_NULL", 0, false, false},       {"ATI2N", 16, true, false},
    {"ATI1N", 8, true, false},
};
#define FORMAT_COUNT ((int32_t)(sizeof FORMATS / sizeof FORMATS[0]))

static const vtf_format *format_of(int32_t f) { return f >= 0 && f < FORMAT_COUNT ? &FORMATS[f] : NULL; }

static uint64_t mul_sat(uint64_t a, uint64_t b) { return a && b > UINT64_MAX / a ? UINT64_MAX : a * b; }
static uint64_t add_sat(uint64_t a, uint64_t b) { return b > UINT64_MAX - a ? UINT64_MAX : a + b; }

/* Bytes of one w x h image in format `f`; 0 when the size is unknown. */
static uint64_t image_bytes(const vtf_format *f, uint32_t w, uint32_t h)
{
    if (f->block)
        return (uint64_t)((w + 3) / 4) * ((h + 3) / 4) * f->bytes;
    return (uint64_t)w * h * f->bytes;
}

static uint32_t mip_side(uint32_t side, uint32_t level) { return level >= 32 || (side >> level) == 0 ? 1 : side >> level; }

/* Everything the decoder needs beyond the public info. */
typedef struct vtf_layout {
    bspkit_vtf_info info;
    uint32_t header_size;
    uint32_t first_frame;
    int32_t low_format;
    uint32_t low_width, low_height;
    uint32_t resources;
} vtf_layout;

static bspkit_result vtf_fail(bspkit_error *err, bspkit_result code, uint64_t at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static bspkit_result vtf_fail(bspkit_error *err, bspkit_result code, uint64_t at, const char *fmt, ...)
{
    char what[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return bk_fail(err, code, -1, (int64_t)at, -1, "vtf: %s", what);
}

static bspkit_result parse_header(const uint8_t *d, size_t size, vtf_layout *l, bspkit_error *err)
{
    memset(l, 0, sizeof *l);
    if (size < 16)
        return vtf_fail(err, size ? BSPKIT_ERR_TRUNCATED : BSPKIT_ERR_EMPTY, size, "%zu bytes cannot hold a header",
                        size);
    if (memcmp(d, "VTFX", 4) == 0)
        return vtf_fail(err, BSPKIT_ERR_UNSUPPORTED, 0, "Xbox 360 / PS3 VTF (\"VTFX\") files are not read");
    if (memcmp(d, "VTF\0", 4) != 0)
        return vtf_fail(err, BSPKIT_ERR_UNKNOWN_FORMAT, 0, "not a VTF file (no \"VTF\" signature)");
    bspkit_vtf_info *in = &l->info;
    in->version_major = rd_le32(d + 4);
    in->version_minor = rd_le32(d + 8);
    if (in->version_major != 7 || in->version_minor > 5)
        return vtf_fail(err, BSPKIT_ERR_UNSUPPORTED, 4, "version %u.%u is not 7.0-7.5", in->version_major,
                        in->version_minor);
    uint32_t minor = in->version_minor;
    uint32_t need = minor >= 3 ? VTF_MIN_HEADER_73 : minor == 2 ? VTF_MIN_HEADER_72 : VTF_MIN_HEADER_70;
    l->header_size = rd_le32(d + 12);
    if (size < need)
        return vtf_fail(err, BSPKIT_ERR_TRUNCATED, size, "%zu bytes cannot hold a %u.%u header (%u bytes)", size,
                        in->version_major, minor, need);
    if (l->header_size < need || l->header_size > size)
        return vtf_fail(err, BSPKIT_ERR_TEXTURES, 12, "header size %u is outside %u..%zu", l->header_size, need, size);
    in->width = rd_le16(d + 16);
    in->height = rd_le16(d + 18);
    in->flags = rd_le32(d + 20);
    in->frames = rd_le16(d + 24);
    l->first_frame = rd_le16(d + 26);
    in->format = rd_i32(d + 52, false);
    in->mip_count = d[56];
    l->low_format = rd_i32(d + 57, false);
    l->low_width = d[61];
    l->low_height = d[62];
    in->depth = minor >= 2 ? rd_le16(d + 63) : 1;
    if (in->depth == 0)
        in->depth = 1;
    if (in->frames == 0)
        in->frames = 1;
    /* Cube maps carry a seventh (sphere map) face from 7.1 to 7.4 unless the
     * first frame is 0xFFFF; 7.0 and 7.5 have six. */
    if (in->flags & VTF_FLAG_ENVMAP)
        in->faces = minor >= 1 && minor < 5 && l->first_frame != VTF_NO_SPHERE_FRAME ? 7 : 6;
    else
        in->faces = 1;
    const vtf_format *f = format_of(in->format);
    in->format_name = f ? f->name : in->format == VTF_FORMAT_NONE ? "NONE" : "unknown";
    in->format_supported = f && f->supported;
    if (in->width == 0 || in->height == 0)
        return vtf_fail(err, BSPKIT_ERR_TEXTURES, 16, "size %ux%u has a zero side", in->width, in->height);
    if (in->mip_count == 0)
        return vtf_fail(err, BSPKIT_ERR_TEXTURES, 56, "mip count is 0");
    if (minor >= 3) {
        l->resources = rd_le32(d + 68);
        if ((uint64_t)VTF_MIN_HEADER_73 + (uint64_t)l->resources * VTF_RESOURCE_SIZE > l->header_size)
            return vtf_fail(err, BSPKIT_ERR_TEXTURES, 68, "%u resources do not fit in the %u-byte header",
                            l->resources, l->header_size);
    }
    return BSPKIT_OK;
}

bspkit_result bspkit_vtf_read_info(const void *data, size_t size, bspkit_vtf_info *out, bspkit_error *err)
{
    bk_error_clear(err);
    if (!out || (!data && size))
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "vtf: NULL argument");
    vtf_layout l;
    bspkit_result r = parse_header(data, size, &l, err);
    *out = l.info;
    return r;
}

/* File offset of the high-resolution data (all mips). */
static bspkit_result high_res_offset(const uint8_t *d, size_t size, const vtf_layout *l, uint64_t *at,
                                     bspkit_error *err)
{
    if (l->info.version_minor >= 3) {
        for (uint32_t i = 0; i < l->resources; i++) {
            const uint8_t *r = d + VTF_MIN_HEADER_73 + (size_t)i * VTF_RESOURCE_SIZE;
            if (r[0] == 0x30 && r[1] == 0 && r[2] == 0) {
                *at = rd_le32(r + 4);
                return BSPKIT_OK;
            }
        }
        return vtf_fail(err, BSPKIT_ERR_TEXTURES, VTF_MIN_HEADER_73, "no high-resolution image resource (tag 0x30)");
    }
    uint64_t low = 0;
    if (l->low_format != VTF_FORMAT_NONE && l->low_width && l->low_height) {
        const vtf_format *lf = format_of(l->low_format);
        if (!lf || lf->bytes == 0)
            return vtf_fail(err, BSPKIT_ERR_UNSUPPORTED, 57, "thumbnail format %d has no known size", l->low_format);
        low = image_bytes(lf, l->low_width, l->low_height);
    }
    (void)size;
    *at = (uint64_t)l->header_size + low;
    return BSPKIT_OK;
}

/* ---- pixel decoding ---- */

static uint8_t expand5(uint32_t v) { return (uint8_t)((v << 3) | (v >> 2)); }
static uint8_t expand6(uint32_t v) { return (uint8_t)((v << 2) | (v >> 4)); }
static uint8_t expand4(uint32_t v) { return (uint8_t)(v * 17); }

/* 565 with red in the high bits, as DXT colour endpoints store it. */
static void rgb565(uint16_t c, uint8_t *px)
{
    px[0] = expand5(c >> 11);
    px[1] = expand6((c >> 5) & 63);
    px[2] = expand5(c & 31);
    px[3] = 255;
}

/* The four colours of a DXT colour block; `allow_3` selects DXT1 behaviour
 * (colour0 <= colour1: three colours and transparent black). */
static void dxt_palette(const uint8_t *b, bool allow_3, uint8_t pal[4][4])
{
    uint16_t c0 = rd_le16(b), c1 = rd_le16(b + 2);
    rgb565(c0, pal[0]);
    rgb565(c1, pal[1]);
    pal[2][3] = pal[3][3] = 255;
    if (c0 > c1 || !allow_3) {
        for (int k = 0; k < 3; k++) {
            pal[2][k] = (uint8_t)((2 * pal[0][k] + pal[1][k]) / 3);
            pal[3][k] = (uint8_t)((pal[0][k] + 2 * pal[1][k]) / 3);
        }
    } else {
        for (int k = 0; k < 3; k++) {
            pal[2][k] = (uint8_t)((pal[0][k] + pal[1][k]) / 2);
            pal[3][k] = 0;
        }
        pal[3][3] = 0;
    }
}

/* DXT5 alpha: eight values, or six plus 0 and 255 when alpha0 <= alpha1. */
static void dxt5_alphas(uint8_t a0, uint8_t a1, uint8_t out[8])
{
    out[0] = a0;
    out[1] = a1;
    if (a0 > a1) {
        for (int i = 1; i <= 6; i++)
            out[i + 1] = (uint8_t)(((7 - i) * a0 + i * a1) / 7);
    } else {
        for (int i = 1; i <= 4; i++)
            out[i + 1] = (uint8_t)(((5 - i) * a0 + i * a1) / 5);
        out[6] = 0;
        out[7] = 255;
    }
}

static void decode_dxt(const uint8_t *src, int32_t format, bspkit_image *img)
{
    uint32_t bw = (img->width + 3) / 4, bh = (img->height + 3) / 4;
    size_t block = format == FMT_DXT1 || format == FMT_DXT1_ONEBITALPHA ? 8 : 16;
    for (uint32_t by = 0; by < bh; by++) {
        for (uint32_t bx = 0; bx < bw; bx++) {
            const uint8_t *b = src + ((size_t)by * bw + bx) * block;
            const uint8_t *colour = block == 8 ? b : b + 8;
            uint8_t pal[4][4];
            dxt_palette(colour, block == 8, pal);
            uint32_t idx = rd_le32(colour + 4);
            uint8_t alphas[8];
            uint64_t abits = 0;
            if (format == FMT_DXT5) {
                dxt5_alphas(b[0], b[1], alphas);
                for (int k = 0; k < 6; k++)
                    abits |= (uint64_t)b[2 + k] << (8 * k);
            } else if (format == FMT_DXT3) {
                abits = rd_le64(b);
            }
            for (uint32_t i = 0; i < 16; i++) {
                uint32_t x = bx * 4 + i % 4, y = by * 4 + i / 4;
                if (x >= img->width || y >= img->height)
                    continue; /* the padding of a partial block */
                uint8_t *px = img->rgba + ((size_t)y * img->width + x) * 4;
                memcpy(px, pal[(idx >> (2 * i)) & 3], 4);
                if (format == FMT_DXT3)
                    px[3] = expand4((uint32_t)(abits >> (4 * i)) & 15);
                else if (format == FMT_DXT5)
                    px[3] = alphas[(abits >> (3 * i)) & 7];
            }
        }
    }
}

static void decode_pixel(const uint8_t *s, size_t bytes, int32_t format, uint8_t *px)
{
    uint16_t v = bytes == 2 ? rd_le16(s) : 0; /* the word of the 16-bit formats */
    px[3] = 255;
    switch (format) {
    case FMT_RGBA8888: px[0] = s[0]; px[1] = s[1]; px[2] = s[2]; px[3] = s[3]; break;
    case FMT_ABGR8888: px[0] = s[3]; px[1] = s[2]; px[2] = s[1]; px[3] = s[0]; break;
    case FMT_RGB888: px[0] = s[0]; px[1] = s[1]; px[2] = s[2]; break;
    case FMT_BGR888: px[0] = s[2]; px[1] = s[1]; px[2] = s[0]; break;
    case FMT_ARGB8888: px[0] = s[1]; px[1] = s[2]; px[2] = s[3]; px[3] = s[0]; break;
    case FMT_BGRA8888: px[0] = s[2]; px[1] = s[1]; px[2] = s[0]; px[3] = s[3]; break;
    case FMT_BGRX8888: px[0] = s[2]; px[1] = s[1]; px[2] = s[0]; break;
    /* 16-bit formats: a little-endian word, channels named from bit 0 up. */
    case FMT_RGB565: px[0] = expand5(v & 31); px[1] = expand6((v >> 5) & 63); px[2] = expand5(v >> 11); break;
    case FMT_BGR565: px[2] = expand5(v & 31); px[1] = expand6((v >> 5) & 63); px[0] = expand5(v >> 11); break;
    case FMT_BGRA4444:
        px[2] = expand4(v & 15); px[1] = expand4((v >> 4) & 15); px[0] = expand4((v >> 8) & 15);
        px[3] = expand4(v >> 12);
        break;
    case FMT_BGRA5551:
        px[2] = expand5(v & 31); px[1] = expand5((v >> 5) & 31); px[0] = expand5((v >> 10) & 31);
        px[3] = (v >> 15) ? 255 : 0;
        break;
    case FMT_I8: px[0] = px[1] = px[2] = s[0]; break;
    case FMT_IA88: px[0] = px[1] = px[2] = s[0]; px[3] = s[1]; break;
    case FMT_A8: px[0] = px[1] = px[2] = 0; px[3] = s[0]; break;
    case FMT_UV88: px[0] = s[0]; px[1] = s[1]; px[2] = 0; break;
    default: px[0] = px[1] = px[2] = 0; break;
    }
}

bspkit_result bspkit_vtf_decode(const void *data, size_t size, bspkit_image *out, bspkit_vtf_info *info,
                                bspkit_error *err)
{
    bk_error_clear(err);
    if (!out || (!data && size))
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "vtf: NULL argument");
    memset(out, 0, sizeof *out);
    const uint8_t *d = data;
    vtf_layout l;
    bspkit_result r = parse_header(d, size, &l, err);
    if (info)
        *info = l.info;
    if (r != BSPKIT_OK)
        return r;
    const bspkit_vtf_info *in = &l.info;
    const vtf_format *f = format_of(in->format);
    if (!f || !f->supported)
        return vtf_fail(err, BSPKIT_ERR_UNSUPPORTED, 52, "image format %s (%d) is not decoded", in->format_name,
                        in->format);
    uint64_t at = 0;
    r = high_res_offset(d, size, &l, &at, err);
    if (r != BSPKIT_OK)
        return r;
    /* Skip every smaller mip (all frames, faces and slices of each). */
    uint64_t per_image = (uint64_t)in->frames * in->faces;
    for (uint32_t level = in->mip_count; level-- > 1;) {
        uint64_t one = image_bytes(f, mip_side(in->width, level), mip_side(in->height, level));
        at = add_sat(at, mul_sat(mul_sat(one, per_image), mip_side(in->depth, level)));
    }
    uint64_t need = image_bytes(f, in->width, in->height);
    if (!range_ok(at, need, size))
        return vtf_fail(err, BSPKIT_ERR_TRUNCATED, at < size ? at : size,
                        "the %ux%u %s image needs %llu bytes at byte %llu, past the end of the %zu-byte file",
                        in->width, in->height, in->format_name, (unsigned long long)need,
                        (unsigned long long)at, size);
    r = bspkit_image_alloc(out, in->width, in->height, err);
    if (r != BSPKIT_OK)
        return r;
    const uint8_t *src = d + at;
    if (f->block) {
        decode_dxt(src, in->format, out);
    } else {
        size_t n = (size_t)in->width * in->height;
        for (size_t i = 0; i < n; i++)
            decode_pixel(src + i * f->bytes, f->bytes, in->format, out->rgba + 4 * i);
    }
    return BSPKIT_OK;
}
