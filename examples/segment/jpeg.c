/* JPEG input through libjpeg, when configure found it; otherwise JPEG input
 * fails with a message that names the missing support. */
#include "config.h"
#include "image.h"

#ifdef GEMST_HAVE_LIBJPEG

#include <setjmp.h>
#include <stdio.h> /* jpeglib.h needs FILE and size_t first */
#include <stdlib.h>

#include <jpeglib.h> /* before jerror.h, whose messages depend on the library's version */
#include <jerror.h>

/* libjpeg's default error handler prints and calls exit(); ours writes the
 * message and jumps back to the setjmp in seg_jpeg_parse. */
typedef struct jpeg_ctx {
    struct jpeg_error_mgr mgr; /* first: libjpeg passes &mgr, we cast back */
    jmp_buf back;
    char *msg;
} jpeg_ctx;

static void fail_with_message(j_common_ptr cinfo)
{
    jpeg_ctx *ctx = (jpeg_ctx *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    cinfo->err->format_message(cinfo, text);
    seg_fail(ctx->msg, "bad JPEG: %s", text);
    longjmp(ctx->back, 1);
}

/* Warnings (level -1) that mean damaged pixels are errors: libjpeg would go
 * on and fill the rest of a truncated or corrupt image with grey, which
 * would segment as a region of its own.  Other warnings (an unknown JFIF
 * version, bytes between markers) leave the pixels intact; trace messages
 * (level >= 0) are ignored. */
static void on_message(j_common_ptr cinfo, int level)
{
    if (level != -1)
        return;
    switch (cinfo->err->msg_code) {
    case JWRN_JPEG_EOF:
        seg_fail(((jpeg_ctx *)cinfo->err)->msg, "bad JPEG: truncated file (premature end of data)");
        longjmp(((jpeg_ctx *)cinfo->err)->back, 1);
#if JPEG_LIB_VERSION >= 70 || defined(D_ARITH_CODING_SUPPORTED) /* as jerror.h declares it */
    case JWRN_ARITH_BAD_CODE:
#endif
    case JWRN_BOGUS_PROGRESSION:
    case JWRN_HIT_MARKER:
    case JWRN_HUFF_BAD_CODE:
    case JWRN_MUST_RESYNC:
    case JWRN_NOT_SEQUENTIAL:
        fail_with_message(cinfo);
        break;
    default:
        break;
    }
}

int seg_jpeg_parse(const unsigned char *data, size_t size, seg_image *img, char *msg)
{
    struct jpeg_decompress_struct cinfo;
    jpeg_ctx ctx;
    cinfo.err = jpeg_std_error(&ctx.mgr);
    ctx.mgr.error_exit = fail_with_message;
    ctx.mgr.emit_message = on_message;
    ctx.msg = msg;
    /* changed after setjmp, used after longjmp: volatile */
    uint16_t *volatile pix = NULL;
    JSAMPLE *volatile row = NULL;
    if (setjmp(ctx.back)) {
        free(pix);
        free(row);
        jpeg_destroy_decompress(&cinfo);
        return -1;
    }
    jpeg_create_decompress(&cinfo);
    /* the cast: older libjpeg declares the buffer without const; it is only read */
    jpeg_mem_src(&cinfo, (unsigned char *)data, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);
    /* grey stays grey; YCbCr and RGB become RGB; CMYK and YCCK, whose
     * conversion to RGB depends on an ink profile, are refused */
    if (cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK) {
        seg_fail(msg, "CMYK JPEG images are not supported (convert to RGB first)");
        longjmp(ctx.back, 1);
    }
    cinfo.out_color_space = cinfo.jpeg_color_space == JCS_GRAYSCALE ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_start_decompress(&cinfo);
    uint64_t width = cinfo.output_width, height = cinfo.output_height;
    int channels = cinfo.output_components;
    if (width * height > SEG_MAX_PIXELS) {
        seg_fail(msg, "image too large: %llu x %llu pixels (at most %ld)", (unsigned long long)width,
                 (unsigned long long)height, (long)SEG_MAX_PIXELS);
        longjmp(ctx.back, 1);
    }
    size_t row_samples = (size_t)width * (size_t)channels;
    pix = malloc((size_t)(width * height) * (size_t)channels * sizeof *pix);
    row = malloc(row_samples * sizeof *row);
    if (!pix || !row) {
        seg_fail(msg, "out of memory");
        longjmp(ctx.back, 1);
    }
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW rows[1] = {row};
        uint16_t *out = pix + (size_t)cinfo.output_scanline * row_samples;
        jpeg_read_scanlines(&cinfo, rows, 1);
        for (size_t i = 0; i < row_samples; i++)
            out[i] = row[i];
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    free(row);
    img->width = (int64_t)width;
    img->height = (int64_t)height;
    img->channels = channels;
    img->maxval = 255;
    img->pix = pix;
    return 0;
}

int seg_have_jpeg(void)
{
    return 1;
}

#else /* no libjpeg */

int seg_jpeg_parse(const unsigned char *data, size_t size, seg_image *img, char *msg)
{
    (void)data;
    (void)size;
    (void)img;
    return seg_fail(msg, "JPEG input needs libjpeg, which this build lacks (install libjpeg-dev and reconfigure)");
}

int seg_have_jpeg(void)
{
    return 0;
}

#endif
