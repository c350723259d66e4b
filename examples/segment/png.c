/* PNG through libpng, when configure found it; otherwise PNG input and
 * output fail with a message that names the missing support. */
#include "config.h"
#include "image.h"

#ifdef GEMST_HAVE_LIBPNG

#include <errno.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libpng reports errors through a callback that must not return: it
 * writes the message and jumps back to the setjmp of the caller. */
typedef struct png_ctx {
    char *msg;
    const char *what; /* starts the message: "bad PNG" or "cannot write PNG" */
    const unsigned char *data; /* reading: the file in memory */
    size_t size, pos;
} png_ctx;

static void on_error(png_structp png, png_const_charp text)
{
    png_ctx *ctx = png_get_error_ptr(png);
    seg_fail(ctx->msg, "%s: %s", ctx->what, text);
    png_longjmp(png, 1);
}

/* Warnings (an odd colour profile, say) do not matter for segmentation. */
static void on_warning(png_structp png, png_const_charp text)
{
    (void)png;
    (void)text;
}

static void read_memory(png_structp png, png_bytep out, size_t len)
{
    png_ctx *ctx = png_get_io_ptr(png);
    if (len > ctx->size - ctx->pos)
        png_error(png, "truncated file");
    memcpy(out, ctx->data + ctx->pos, len);
    ctx->pos += len;
}

int seg_png_parse(const unsigned char *data, size_t size, seg_image *img, char *msg)
{
    png_ctx ctx = {msg, "bad PNG", data, size, 0};
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &ctx, on_error, on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_read_struct(&png, NULL, NULL);
        return seg_fail(msg, "out of memory");
    }
    /* changed after setjmp, used after longjmp: volatile */
    unsigned char *volatile raster = NULL;
    png_bytep *volatile rows = NULL;
    uint16_t *volatile pix = NULL;
    if (setjmp(png_jmpbuf(png))) {
        free(raster);
        free(rows);
        free(pix);
        png_destroy_read_struct(&png, &info, NULL);
        return -1;
    }
    png_set_read_fn(png, &ctx, read_memory);
    png_read_info(png, info);
    png_uint_32 width = png_get_image_width(png, info), height = png_get_image_height(png, info);
    if ((uint64_t)width * height > SEG_MAX_PIXELS) {
        seg_fail(msg, "image too large: %lu x %lu pixels (at most %ld)", (unsigned long)width,
                 (unsigned long)height, (long)SEG_MAX_PIXELS);
        png_longjmp(png, 1);
    }
    /* palette to RGB, grey below 8 bits to 8 bits, no alpha: grey or RGB
     * samples of 8 or 16 bits remain */
    png_set_expand(png);
    png_set_strip_alpha(png);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    int channels = png_get_channels(png, info), depth = png_get_bit_depth(png, info);
    size_t row_bytes = png_get_rowbytes(png, info);
    if ((channels != 1 && channels != 3) || (depth != 8 && depth != 16))
        png_error(png, "unexpected layout after expansion");
    raster = malloc(row_bytes * height);
    rows = malloc(height * sizeof *rows);
    pix = malloc((size_t)width * height * (size_t)channels * sizeof *pix);
    if (!raster || !rows || !pix)
        png_error(png, "out of memory");
    for (png_uint_32 y = 0; y < height; y++)
        rows[y] = raster + y * row_bytes;
    png_read_image(png, rows);
    png_read_end(png, NULL);
    size_t n_samples = (size_t)width * height * (size_t)channels;
    for (size_t i = 0; i < n_samples; i++)
        pix[i] = depth == 16 ? (uint16_t)(raster[2 * i] << 8 | raster[2 * i + 1]) : raster[i];
    img->width = width;
    img->height = height;
    img->channels = channels;
    img->maxval = depth == 16 ? 65535 : 255;
    img->pix = pix;
    free(raster);
    free(rows);
    png_destroy_read_struct(&png, &info, NULL);
    return 0;
}

int seg_png_write(const char *path, const seg_rgb *rgb, char *msg)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return seg_fail(msg, "cannot open for writing: %s", strerror(errno));
    png_ctx ctx = {msg, "cannot write PNG", NULL, 0, 0};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &ctx, on_error, on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        fclose(f);
        return seg_fail(msg, "out of memory");
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        fclose(f);
        return -1;
    }
    png_init_io(png, f);
    png_set_IHDR(png, info, (png_uint_32)rgb->width, (png_uint_32)rgb->height, 8, PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int64_t y = 0; y < rgb->height; y++)
        png_write_row(png, rgb->pix + y * rgb->width * 3);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    if (fclose(f) != 0)
        return seg_fail(msg, "write error: %s", strerror(errno));
    return 0;
}

int seg_have_png(void)
{
    return 1;
}

#else /* no libpng */

int seg_png_parse(const unsigned char *data, size_t size, seg_image *img, char *msg)
{
    (void)data;
    (void)size;
    (void)img;
    return seg_fail(msg, "PNG input needs libpng, which this build lacks (install libpng-dev and reconfigure)");
}

int seg_png_write(const char *path, const seg_rgb *rgb, char *msg)
{
    (void)path;
    (void)rgb;
    return seg_fail(msg, "PNG output needs libpng, which this build lacks (write a .ppm file, or install "
                         "libpng-dev and reconfigure)");
}

int seg_have_png(void)
{
    return 0;
}

#endif
