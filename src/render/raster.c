/* Edge-function rasterizer over a supersampled buffer. */
#include "render/raster.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool bk_rtarget_init(bk_rtarget *t, uint32_t width, uint32_t height, const uint8_t bg[3])
{
    memset(t, 0, sizeof *t);
    size_t n = (size_t)width * height;
    if (width == 0 || height == 0 || n / width != height || n > SIZE_MAX / sizeof(double))
        return false;
    t->depth = malloc(n * sizeof *t->depth);
    t->rgb = malloc(n * 3);
    if (!t->depth || !t->rgb) {
        bk_rtarget_free(t);
        return false;
    }
    t->width = width;
    t->height = height;
    for (size_t i = 0; i < n; i++) {
        t->depth[i] = -HUGE_VAL;
        memcpy(t->rgb + i * 3, bg, 3);
    }
    return true;
}

void bk_rtarget_free(bk_rtarget *t)
{
    free(t->depth);
    free(t->rgb);
    memset(t, 0, sizeof *t);
}

static double edge(const bk_rvert *a, const bk_rvert *b, double px, double py)
{
    return (b->x - a->x) * (py - a->y) - (b->y - a->y) * (px - a->x);
}

bool bk_raster_triangle(bk_rtarget *t, const bk_rvert tri[3], bk_rpass pass, bk_rshade_fn shade, const void *ctx)
{
    /* Counter-clockwise seen from the front is clockwise with y down: reversed, its area is positive. */
    const bk_rvert v[3] = {tri[0], tri[2], tri[1]};
    double area = edge(&v[0], &v[1], v[2].x, v[2].y);
    if (!(area > 0) || !isfinite(area))
        return false;
    double minx = fmin(v[0].x, fmin(v[1].x, v[2].x)), maxx = fmax(v[0].x, fmax(v[1].x, v[2].x));
    double miny = fmin(v[0].y, fmin(v[1].y, v[2].y)), maxy = fmax(v[0].y, fmax(v[1].y, v[2].y));
    /* Sample (x, y) has its centre at (x + 0.5, y + 0.5). */
    double fx0 = ceil(minx - 0.5), fx1 = floor(maxx - 0.5);
    double fy0 = ceil(miny - 0.5), fy1 = floor(maxy - 0.5);
    if (fx0 < 0)
        fx0 = 0;
    if (fy0 < 0)
        fy0 = 0;
    if (fx1 > (double)t->width - 1)
        fx1 = (double)t->width - 1;
    if (fy1 > (double)t->height - 1)
        fy1 = (double)t->height - 1;
    if (fx0 > fx1 || fy0 > fy1)
        return true;
    uint32_t x0 = (uint32_t)fx0, x1 = (uint32_t)fx1, y0 = (uint32_t)fy0, y1 = (uint32_t)fy1;
    double inv = 1.0 / area;
    /* Screen-space derivatives of the barycentrics, then of 1/w and of the
     * first two attributes over w: what the quotient rule needs per sample. */
    double bx[3] = {-(v[2].y - v[1].y) * inv, -(v[0].y - v[2].y) * inv, -(v[1].y - v[0].y) * inv};
    double by[3] = {(v[2].x - v[1].x) * inv, (v[0].x - v[2].x) * inv, (v[1].x - v[0].x) * inv};
    double qx = 0, qy = 0, ax[2] = {0, 0}, ay[2] = {0, 0};
    for (int j = 0; j < 3; j++) {
        qx += bx[j] * v[j].q;
        qy += by[j] * v[j].q;
        for (int k = 0; k < 2; k++) {
            ax[k] += bx[j] * v[j].q * v[j].attr[k];
            ay[k] += by[j] * v[j].q * v[j].attr[k];
        }
    }
    for (uint32_t y = y0; y <= y1; y++) {
        double py = y + 0.5;
        for (uint32_t x = x0; x <= x1; x++) {
            double px = x + 0.5;
            double b0 = edge(&v[1], &v[2], px, py);
            double b1 = edge(&v[2], &v[0], px, py);
            double b2 = edge(&v[0], &v[1], px, py);
            if (b0 < 0 || b1 < 0 || b2 < 0)
                continue;
            b0 *= inv;
            b1 *= inv;
            b2 *= inv;
            double key = b0 * v[0].key + b1 * v[1].key + b2 * v[2].key;
            size_t i = (size_t)y * t->width + x;
            if (pass == BK_RPASS_DEPTH) {
                if (key > t->depth[i])
                    t->depth[i] = key;
                continue;
            }
            if (pass == BK_RPASS_EQUAL ? key != t->depth[i] : !(key > t->depth[i]))
                continue;
            /* Perspective-correct: attributes over w interpolate linearly, then divide by the interpolated 1/w. */
            double w0 = b0 * v[0].q, w1 = b1 * v[1].q, w2 = b2 * v[2].q;
            double q = w0 + w1 + w2;
            if (!(q > 0))
                continue;
            double attr[BK_RATTRS];
            for (int k = 0; k < BK_RATTRS; k++)
                attr[k] = (w0 * v[0].attr[k] + w1 * v[1].attr[k] + w2 * v[2].attr[k]) / q;
            double grad[4];
            for (int k = 0; k < 2; k++) {
                grad[2 * k] = (ax[k] - attr[k] * qx) / q;
                grad[2 * k + 1] = (ay[k] - attr[k] * qy) / q;
            }
            uint8_t rgb[3];
            if (!shade(ctx, attr, grad, rgb))
                continue;
            t->depth[i] = key;
            memcpy(t->rgb + i * 3, rgb, 3);
        }
    }
    return true;
}

void bk_rtarget_resolve(const bk_rtarget *t, uint32_t s, uint8_t *rgba)
{
    uint32_t w = t->width / s, h = t->height / s;
    uint32_t n = s * s;
    for (uint32_t y = 0; y < h; y++) {
        for (uint32_t x = 0; x < w; x++) {
            uint32_t sum[3] = {0, 0, 0};
            for (uint32_t sy = 0; sy < s; sy++) {
                const uint8_t *row = t->rgb + ((size_t)(y * s + sy) * t->width + (size_t)x * s) * 3;
                for (uint32_t sx = 0; sx < s; sx++)
                    for (int c = 0; c < 3; c++)
                        sum[c] += row[sx * 3 + c];
            }
            uint8_t *o = rgba + ((size_t)y * w + x) * 4;
            for (int c = 0; c < 3; c++)
                o[c] = (uint8_t)((sum[c] + n / 2) / n);
            o[3] = 255;
        }
    }
}
