/* RGBA images and PNG encoding through libpng, into memory so that files are
 * written atomically by bspkit_save_file(). */
#include "bspkit/image.h"
#include "bspkit/edit.h"
#include "core/grow.h"
#include "core/map.h"
#include "media/image_internal.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IMAGE_MAX_SIDE 32768u

bspkit_result bspkit_image_alloc(bspkit_image *img, uint32_t width, uint32_t height, bspkit_error *err)
{
    bk_error_clear(err);
    if (!img)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "image: NULL image");
    memset(img, 0, sizeof *img);
    if (width == 0 || height == 0 || width > IMAGE_MAX_SIDE || height > IMAGE_MAX_SIDE)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "image: size %ux%u outside 1..%u", width, height,
                       IMAGE_MAX_SIDE);
    img->rgba = calloc((size_t)width * height, 4);
    if (!img->rgba)
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "image: out of memory for %ux%u pixels", width, height);
    img->width = width;
    img->height = height;
    return BSPKIT_OK;
}

void bspkit_image_free(bspkit_image *img)
{
    if (!img)
        return;
    free(img->rgba);
    memset(img, 0, sizeof *img);
}

/* Growing output buffer for libpng's write callback. */
typedef struct png_sink {
    uint8_t *data;
    size_t size, cap;
    bool failed;
} png_sink;

static void sink_write(png_structp png, png_bytep bytes, png_size_t len)
{
    png_sink *s = png_get_io_ptr(png);
    if (s->failed)
        return;
    if (len > SIZE_MAX - s->size || !bk_grow((void **)&s->data, &s->cap, s->size + len, 1)) {
        s->failed = true;
        return;
    }
    memcpy(s->data + s->size, bytes, len);
    s->size += len;
}

static void sink_flush(png_structp png)
{
    (void)png;
}

/* libpng reports errors by longjmp; keep its message for ours. */
static void png_on_error(png_structp png, png_const_charp msg)
{
    char *slot = png_get_error_ptr(png);
    snprintf(slot, 128, "%s", msg);
    png_longjmp(png, 1);
}

static void png_on_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

bool bk_image_opaque(const bspkit_image *img)
{
    size_t n = (size_t)img->width * img->height;
    for (size_t i = 0; i < n; i++)
        if (img->rgba[i * 4 + 3] != 255)
            return false;
    return true;
}

/* Everything libpng touches after setjmp lives in this struct, so nothing is
 * a non-volatile local modified between setjmp and longjmp. */
typedef struct png_job {
    const bspkit_image *img;
    bool opaque;
    bool fast;
    uint8_t *row;
    png_sink sink;
    char message[128];
} png_job;

static bool encode(png_job *job)
{
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, job->message, png_on_error, png_on_warning);
    if (!png)
        return false;
    png_infop info = png_create_info_struct(png);
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        return false;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        return false;
    }
    const bspkit_image *img = job->img;
    png_set_write_fn(png, &job->sink, sink_write, sink_flush);
    png_set_IHDR(png, info, img->width, img->height, 8, job->opaque ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_RGBA,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    /* Fast settings: these images are exported in bulk, size matters less. */
    png_set_compression_level(png, job->fast ? 1 : 3);
    if (job->fast) {
        /* Adaptive filtering tries five filters per row; SUB alone keeps most of the gain. */
        png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_SUB);
    }
    png_write_info(png, info);
    for (uint32_t y = 0; y < img->height; y++) {
        const uint8_t *src = img->rgba + (size_t)y * img->width * 4;
        if (job->opaque) {
            for (uint32_t x = 0; x < img->width; x++)
                memcpy(job->row + (size_t)x * 3, src + (size_t)x * 4, 3);
            png_write_row(png, job->row);
        } else {
            png_write_row(png, (png_const_bytep)src);
        }
    }
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    return !job->sink.failed;
}

static bspkit_result encode_png(const bspkit_image *img, bool fast, uint8_t **out, size_t *size, bspkit_error *err);

bspkit_result bspkit_image_encode_png(const bspkit_image *img, uint8_t **out, size_t *size, bspkit_error *err)
{
    return encode_png(img, false, out, size, err);
}

bspkit_result bk_image_encode_png_fast(const bspkit_image *img, uint8_t **out, size_t *size, bspkit_error *err)
{
    return encode_png(img, true, out, size, err);
}

static bspkit_result encode_png(const bspkit_image *img, bool fast, uint8_t **out, size_t *size, bspkit_error *err)
{
    bk_error_clear(err);
    if (!img || !img->rgba || !out || !size || img->width == 0 || img->height == 0)
        return bk_fail(err, BSPKIT_ERR_ARGUMENT, -1, -1, -1, "png: empty image or NULL output");
    *out = NULL;
    *size = 0;
    png_job job = {.img = img, .opaque = bk_image_opaque(img), .fast = fast};
    job.row = malloc((size_t)img->width * 3);
    if (!job.row)
        return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "png: out of memory");
    bool ok = encode(&job);
    free(job.row);
    if (!ok) {
        free(job.sink.data);
        if (job.sink.failed || !job.message[0])
            return bk_fail(err, BSPKIT_ERR_NOMEM, -1, -1, -1, "png: out of memory encoding %ux%u image", img->width,
                           img->height);
        return bk_fail(err, BSPKIT_ERR_IO, -1, -1, -1, "png: %s", job.message);
    }
    *out = job.sink.data;
    *size = job.sink.size;
    return BSPKIT_OK;
}

bspkit_result bspkit_image_write_png(const bspkit_image *img, const char *path, bspkit_error *err)
{
    uint8_t *png = NULL;
    size_t size = 0;
    bspkit_result r = bspkit_image_encode_png(img, &png, &size, err);
    if (r != BSPKIT_OK)
        return r;
    r = bspkit_save_file(path, png, size, err);
    free(png);
    return r;
}
