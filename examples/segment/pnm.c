/* Netpbm: PGM and PPM in their plain (P2, P3) and binary (P5, P6) forms,
 * maxval 1 to 65535 (binary samples of two bytes, most significant first,
 * when maxval > 255), '#' comments between header fields.  Only the first
 * image of a multi-image file is read. */
#include "image.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cursor {
    const unsigned char *p, *end;
} cursor;

static int is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static int is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

/* Skips blanks and comments ('#' to the end of the line). */
static void skip_space(cursor *c)
{
    while (c->p < c->end) {
        if (*c->p == '#') {
            while (c->p < c->end && *c->p != '\n' && *c->p != '\r')
                c->p++;
        } else if (is_space(*c->p)) {
            c->p++;
        } else {
            break;
        }
    }
}

/* A header field's digits as the file writes them, for messages: a
 * clamped value would misquote the file. */
typedef struct digits {
    const unsigned char *s;
    int len;
} digits;

/* The digits as a string, the first 20 of a longer run followed by "...". */
static const char *quote(const digits *d, char buf[32])
{
    if (d->len > 20)
        snprintf(buf, 32, "%.20s...", (const char *)d->s);
    else
        snprintf(buf, 32, "%.*s", d->len, (const char *)d->s);
    return buf;
}

/* After blanks and comments, a decimal number; values above limit are
 * clamped to limit + 1 (limit < UINT64_MAX / 10).  Returns 0, -1 at the end
 * of the data, -2 at a character that is not a digit. */
static int read_number(cursor *c, uint64_t limit, uint64_t *out)
{
    skip_space(c);
    if (c->p == c->end)
        return -1;
    if (!is_digit(*c->p))
        return -2;
    uint64_t v = 0;
    while (c->p < c->end && is_digit(*c->p)) {
        v = v * 10 + (uint64_t)(*c->p++ - '0');
        if (v > limit)
            v = limit + 1;
    }
    *out = v;
    return 0;
}

/* A header field; *text gets its digits as written. */
static int header_field(cursor *c, const char *name, uint64_t limit, uint64_t *out, digits *text, char *msg)
{
    skip_space(c);
    text->s = c->p;
    int rc = read_number(c, limit, out);
    text->len = (int)(c->p - text->s);
    if (rc == -1)
        return seg_fail(msg, "truncated header: no %s", name);
    if (rc == -2)
        return seg_fail(msg, "bad header: the %s is not a decimal number", name);
    return 0;
}

/* The plain raster: samples as decimal numbers. */
static int parse_plain(cursor *c, uint64_t n_samples, unsigned maxval, uint16_t *out, char *msg)
{
    for (uint64_t i = 0; i < n_samples; i++) {
        uint64_t v;
        int rc = read_number(c, maxval, &v);
        if (rc == -1)
            return seg_fail(msg, "truncated raster: %llu of %llu samples", (unsigned long long)i,
                            (unsigned long long)n_samples);
        if (rc == -2)
            return seg_fail(msg, "bad raster: sample %llu is not a decimal number", (unsigned long long)i);
        if (v > maxval)
            return seg_fail(msg, "bad raster: sample %llu exceeds maxval %u", (unsigned long long)i, maxval);
        out[i] = (uint16_t)v;
    }
    return 0;
}

/* The binary raster (its length already checked): one byte per sample, or
 * two (most significant first) when maxval > 255. */
static int parse_binary(cursor *c, uint64_t n_samples, unsigned maxval, uint16_t *out, char *msg)
{
    for (uint64_t i = 0; i < n_samples; i++) {
        unsigned v = maxval > 255 ? (unsigned)c->p[2 * i] << 8 | c->p[2 * i + 1] : c->p[i];
        if (v > maxval)
            return seg_fail(msg, "bad raster: sample %llu is %u, above maxval %u", (unsigned long long)i, v, maxval);
        out[i] = (uint16_t)v;
    }
    return 0;
}

int seg_pnm_parse(const unsigned char *data, size_t size, seg_image *img, char *msg)
{
    memset(img, 0, sizeof *img);
    if (size < 2 || data[0] != 'P')
        return seg_fail(msg, "not a PNM image (unknown magic number)");
    int plain, channels;
    switch (data[1]) {
    case '2': plain = 1, channels = 1; break;
    case '3': plain = 1, channels = 3; break;
    case '5': plain = 0, channels = 1; break;
    case '6': plain = 0, channels = 3; break;
    case '1':
    case '4': return seg_fail(msg, "PBM bitmaps (P%c) are not supported: convert to PGM", data[1]);
    case '7': return seg_fail(msg, "PAM (P7) is not supported: convert to PGM or PPM");
    default: return seg_fail(msg, "not a PNM image (unknown magic number)");
    }
    cursor c = {data + 2, data + size};
    if (c.p < c.end && !is_space(*c.p) && *c.p != '#')
        return seg_fail(msg, "not a PNM image (unknown magic number)");
    uint64_t width, height, maxval;
    digits w, h, m;
    if (header_field(&c, "width", SEG_MAX_PIXELS, &width, &w, msg) != 0 ||
        header_field(&c, "height", SEG_MAX_PIXELS, &height, &h, msg) != 0 ||
        header_field(&c, "maxval", 65535, &maxval, &m, msg) != 0)
        return -1;
    char wq[32], hq[32], mq[32];
    if (width == 0 || height == 0)
        return seg_fail(msg, "the image has no pixels (%s x %s)", quote(&w, wq), quote(&h, hq));
    if (maxval == 0 || maxval > 65535)
        return seg_fail(msg, "bad header: maxval %s (must be 1 to 65535)", quote(&m, mq));
    if (width * height > SEG_MAX_PIXELS)
        return seg_fail(msg, "image too large: %s x %s pixels (at most %ld)", quote(&w, wq), quote(&h, hq),
                        (long)SEG_MAX_PIXELS);
    /* exactly one blank ends the header */
    if (c.p == c.end)
        return seg_fail(msg, "truncated: no raster after the header");
    if (!is_space(*c.p))
        return seg_fail(msg, "bad header: the maxval is not a decimal number");
    c.p++;
    uint64_t n_samples = width * height * (uint64_t)channels, have = (uint64_t)(c.end - c.p);
    /* check the length before allocating: a plain sample takes at least one
     * digit and one blank */
    if (plain && n_samples > have / 2 + 1)
        return seg_fail(msg, "truncated raster: %llu samples cannot fit in the %llu bytes left",
                        (unsigned long long)n_samples, (unsigned long long)have);
    uint64_t need = n_samples * (maxval > 255 ? 2 : 1);
    if (!plain && need > have)
        return seg_fail(msg, "truncated raster: %llu of %llu bytes", (unsigned long long)have,
                        (unsigned long long)need);
    uint16_t *pix = malloc(n_samples * sizeof *pix);
    if (!pix)
        return seg_fail(msg, "out of memory for %llu x %llu pixels", (unsigned long long)width,
                        (unsigned long long)height);
    int rc = plain ? parse_plain(&c, n_samples, (unsigned)maxval, pix, msg)
                   : parse_binary(&c, n_samples, (unsigned)maxval, pix, msg);
    if (rc != 0) {
        free(pix);
        return -1;
    }
    img->width = (int64_t)width;
    img->height = (int64_t)height;
    img->channels = channels;
    img->maxval = (unsigned)maxval;
    img->pix = pix;
    return 0;
}

/* Writes a netpbm header and its raster; reports errors of every step,
 * closing included (a full disk may show only there). */
static int write_netpbm(const char *path, const char *header, const void *raster, size_t bytes, char *msg)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return seg_fail(msg, "cannot open for writing: %s", strerror(errno));
    int ok = fputs(header, f) >= 0 && fwrite(raster, 1, bytes, f) == bytes;
    int saved = errno;
    if (fclose(f) != 0 && ok) {
        ok = 0;
        saved = errno;
    }
    if (!ok)
        return seg_fail(msg, "write error: %s", strerror(saved));
    return 0;
}

int seg_ppm_write(const char *path, const seg_rgb *rgb, char *msg)
{
    char header[64];
    snprintf(header, sizeof header, "P6\n%lld %lld\n255\n", (long long)rgb->width, (long long)rgb->height);
    return write_netpbm(path, header, rgb->pix, (size_t)(rgb->width * rgb->height * 3), msg);
}

int seg_pgm16_write(const char *path, int64_t width, int64_t height, const int32_t *values, char *msg)
{
    size_t n = (size_t)(width * height);
    unsigned char *raster = malloc(2 * n);
    if (!raster)
        return seg_fail(msg, "out of memory");
    for (size_t i = 0; i < n; i++) {
        raster[2 * i] = (unsigned char)(values[i] >> 8);
        raster[2 * i + 1] = (unsigned char)(values[i] & 0xff);
    }
    char header[64];
    snprintf(header, sizeof header, "P5\n%lld %lld\n65535\n", (long long)width, (long long)height);
    int rc = write_netpbm(path, header, raster, 2 * n, msg);
    free(raster);
    return rc;
}
