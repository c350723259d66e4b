/* Pixels to points for the spanning tree. */
#include "segment.h"

#include <stdlib.h>

float *seg_features(const seg_image *img, double lambda)
{
    size_t n = (size_t)(img->width * img->height);
    float *xyz = malloc(n * 3 * sizeof *xyz);
    if (!xyz)
        return NULL;
    /* Y * 255 / maxval computed as one division of exact integers: the
     * same image at another maxval (samples times 257 at 65535) gives the
     * very same points.  The luma weights add up to 1000, so a grey RGB
     * pixel gets its grey level exactly. */
    double den = img->channels == 1 ? img->maxval : 1000.0 * img->maxval;
    const uint16_t *s = img->pix;
    for (int64_t y = 0, i = 0; y < img->height; y++) {
        for (int64_t x = 0; x < img->width; x++, i++) {
            double num = img->channels == 1 ? s[i] : 299.0 * s[3 * i] + 587.0 * s[3 * i + 1] + 114.0 * s[3 * i + 2];
            xyz[3 * i] = (float)x;
            xyz[3 * i + 1] = (float)y;
            xyz[3 * i + 2] = (float)(lambda * (num * 255.0 / den));
        }
    }
    return xyz;
}
