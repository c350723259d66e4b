/* Reading an image file whole and telling PNM, PNG and JPEG apart; choosing the output
 * format from the file name. */
#include "image.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int seg_fail(char *msg, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, SEG_MSG, fmt, ap);
    va_end(ap);
    return -1;
}

/* The whole file in *data (size bytes); free it with free(). */
static int read_file(const char *path, unsigned char **data, size_t *size, char *msg)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return seg_fail(msg, "cannot open: %s", strerror(errno));
    size_t cap = 1 << 16, len = 0;
    unsigned char *buf = malloc(cap);
    int rc = -1;
    if (!buf) {
        seg_fail(msg, "out of memory");
        goto done;
    }
    for (;;) {
        len += fread(buf + len, 1, cap - len, f);
        if (ferror(f)) {
            seg_fail(msg, "read error: %s", strerror(errno));
            goto done;
        }
        if (len < cap)
            break; /* end of file */
        unsigned char *grown = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
        if (!grown) {
            seg_fail(msg, "out of memory reading the file");
            goto done;
        }
        buf = grown;
        cap *= 2;
    }
    *data = buf;
    *size = len;
    buf = NULL;
    rc = 0;
done:
    free(buf);
    fclose(f);
    return rc;
}

int seg_image_read(const char *path, seg_image *img, char *msg)
{
    static const unsigned char png_signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    static const unsigned char jpeg_start[3] = {0xff, 0xd8, 0xff}; /* SOI, then a marker */
    unsigned char *data = NULL;
    size_t size = 0;
    memset(img, 0, sizeof *img);
    if (read_file(path, &data, &size, msg) != 0)
        return -1;
    int rc;
    if (size == 0)
        rc = seg_fail(msg, "empty file");
    else if (size >= 2 && data[0] == 'P' && data[1] >= '1' && data[1] <= '7')
        rc = seg_pnm_parse(data, size, img, msg);
    else if (size >= sizeof png_signature && memcmp(data, png_signature, sizeof png_signature) == 0)
        rc = seg_png_parse(data, size, img, msg);
    else if (size >= sizeof jpeg_start && memcmp(data, jpeg_start, sizeof jpeg_start) == 0)
        rc = seg_jpeg_parse(data, size, img, msg);
    else
        rc = seg_fail(msg, "not a PNM, PNG or JPEG image (unknown magic number)");
    free(data);
    if (rc != 0)
        seg_image_free(img);
    return rc;
}

void seg_image_free(seg_image *img)
{
    free(img->pix);
    memset(img, 0, sizeof *img);
}

int seg_rgb_write(const char *path, const seg_rgb *rgb, char *msg)
{
    size_t len = strlen(path);
    if (len >= 4 && strcasecmp(path + len - 4, ".png") == 0)
        return seg_png_write(path, rgb, msg);
    return seg_ppm_write(path, rgb, msg);
}
