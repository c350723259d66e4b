/* Images of gridemst-segment: reading PNM, PNG and JPEG, writing PPM, PNG and
 * 16-bit PGM.  Every function that can fail returns 0 or -1, and on failure
 * writes a one-line message (no file name, no newline) to msg, which has
 * room for SEG_MSG bytes. */
#ifndef SEG_IMAGE_H
#define SEG_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#define SEG_MSG 256

/* Most pixels an image may have: labels are int32. */
#define SEG_MAX_PIXELS INT32_MAX

typedef struct seg_image {
    int64_t width, height;
    int channels;    /* 1 grey, 3 RGB */
    unsigned maxval; /* 1 .. 65535: the value of full intensity */
    uint16_t *pix;   /* width * height * channels samples, row-major, channels interleaved */
} seg_image;

/* An 8-bit RGB picture to write. */
typedef struct seg_rgb {
    int64_t width, height;
    uint8_t *pix; /* width * height * 3 */
} seg_rgb;

/* Fills msg with a printf-style message; returns -1. */
int seg_fail(char *msg, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Reads a PNM (P2, P3, P5, P6), PNG or JPEG file, told apart by their first
 * bytes.  Alpha is dropped; palettes and grey levels below 8 bits are
 * expanded.  Free *img with seg_image_free. */
int seg_image_read(const char *path, seg_image *img, char *msg);
void seg_image_free(seg_image *img);

/* The parsers behind seg_image_read: data[0 .. size) is the whole file. */
int seg_pnm_parse(const unsigned char *data, size_t size, seg_image *img, char *msg);
int seg_png_parse(const unsigned char *data, size_t size, seg_image *img, char *msg);
int seg_jpeg_parse(const unsigned char *data, size_t size, seg_image *img, char *msg);

/* Writes rgb as PNG when path ends in ".png" (any case), else as binary PPM. */
int seg_rgb_write(const char *path, const seg_rgb *rgb, char *msg);
int seg_ppm_write(const char *path, const seg_rgb *rgb, char *msg);
int seg_png_write(const char *path, const seg_rgb *rgb, char *msg);

/* Writes values (width * height, each at most 65535) as a binary PGM with
 * maxval 65535, so the samples are the values themselves. */
int seg_pgm16_write(const char *path, int64_t width, int64_t height, const int32_t *values, char *msg);

/* 1 when this build reads and writes PNG (configure found libpng). */
int seg_have_png(void);

/* 1 when this build reads JPEG (configure found libjpeg). */
int seg_have_jpeg(void);

#endif
