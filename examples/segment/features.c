/* The colour coordinates of the pixels, and the points built from them. */
#include "segment.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[] = {"luma", "rgb", "lab"};

int seg_parse_features(const char *s, seg_features *out)
{
    for (int k = 0; k < 3; k++) {
        if (strcmp(s, names[k]) == 0) {
            *out = (seg_features)k;
            return 0;
        }
    }
    return -1;
}

const char *seg_features_name(seg_features f)
{
    return names[f];
}

int seg_colour_dims(const seg_image *img, seg_features f)
{
    return img->channels == 1 || f == SEG_LUMA ? 1 : 3;
}

/* sRGB (0 to 1, gamma-encoded) to linear light. */
static double linear(double v)
{
    return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
}

/* The CIE L*a*b* companding function. */
static double lab_f(double t)
{
    const double d = 6.0 / 29.0;
    return t > d * d * d ? cbrt(t) : t / (3 * d * d) + 4.0 / 29.0;
}

/* CIE L*a*b* of an sRGB colour (components 0 to 1), white point D65, times
 * 2.55 so that L* runs from 0 to 255 as luma does. */
static void srgb_to_lab(double r, double g, double b, double *out)
{
    r = linear(r), g = linear(g), b = linear(b);
    /* XYZ over the D65 white's, from the sRGB primaries (IEC 61966-2-1) */
    double x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047;
    double y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b;
    double z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883;
    double fx = lab_f(x), fy = lab_f(y), fz = lab_f(z);
    out[0] = 2.55 * (116 * fy - 16);
    out[1] = 2.55 * 500 * (fx - fy);
    out[2] = 2.55 * 200 * (fy - fz);
}

double *seg_colours(const seg_image *img, seg_features f)
{
    size_t n = (size_t)(img->width * img->height);
    int dims = seg_colour_dims(img, f);
    double *c = malloc(n * (size_t)dims * sizeof *c);
    if (!c)
        return NULL;
    const uint16_t *s = img->pix;
    double maxval = img->maxval;
    for (size_t i = 0; i < n; i++) {
        if (img->channels == 1) {
            c[i] = s[i] * 255.0 / maxval;
        } else if (f == SEG_LUMA) {
            /* one division of exact integers: the same image at another
             * maxval (samples times 257 at 65535) gives the very same
             * value, and the weights add up to 1000, so a grey RGB pixel
             * gets its grey level exactly */
            double num = 299.0 * s[3 * i] + 587.0 * s[3 * i + 1] + 114.0 * s[3 * i + 2];
            c[i] = num * 255.0 / (1000.0 * maxval);
        } else if (f == SEG_RGB) {
            for (int k = 0; k < 3; k++)
                c[3 * i + k] = s[3 * i + k] * 255.0 / maxval;
        } else {
            srgb_to_lab(s[3 * i] / maxval, s[3 * i + 1] / maxval, s[3 * i + 2] / maxval, c + 3 * i);
        }
    }
    return c;
}

float *seg_points(const seg_image *img, const double *colours, int dims, double lambda, const int axes[3])
{
    size_t n = (size_t)(img->width * img->height);
    float *xyz = malloc(n * 3 * sizeof *xyz);
    if (!xyz)
        return NULL;
    for (int64_t y = 0, i = 0; y < img->height; y++) {
        for (int64_t x = 0; x < img->width; x++, i++) {
            for (int j = 0; j < 3; j++) {
                int axis = axes[j];
                double v = axis == 0   ? (double)x
                           : axis == 1 ? (double)y
                                       : lambda * colours[(size_t)i * (size_t)dims + (size_t)(axis - 2)];
                xyz[3 * i + j] = (float)v;
            }
        }
    }
    return xyz;
}
