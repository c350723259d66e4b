/* From pixels to points, from the tree to segments, from segments to a
 * picture: the steps of gridemst-segment between reading and writing. */
#ifndef SEG_SEGMENT_H
#define SEG_SEGMENT_H

#include <stdint.h>

#include "gridemst.h"
#include "image.h"

/* The points (x, y, lambda * Y) of the pixels in row-major order, as n * 3
 * floats (malloc'd; NULL when out of memory): x the column, y the row, Y the
 * grey level or, in colour, the luma (299 R + 587 G + 114 B) / 1000, on a 0 to
 * 255 scale whatever the maxval. */
float *seg_features(const seg_image *img, double lambda);

typedef struct seg_params {
    int64_t k;        /* > 0: this many segments (-k); 0: cut at distance */
    double cut;       /* with k == 0: cut the edges longer than this */
    int64_t min_size; /* >= 1: a segment has at least this many pixels */
} seg_params;

typedef struct seg_summary {
    int64_t segments, smallest, largest; /* count, and their sizes in pixels */
    int64_t splits;                      /* tree edges that may be cut under min_size */
} seg_summary;

/*
 * Labels the tree's n points (pixels) with segments numbered 0, 1, ... in
 * the order of each segment's first pixel.  An edge of the tree may be cut
 * only when both parts it joins in the single-linkage hierarchy (the
 * components of the lighter edges at its two ends) have at least min_size
 * pixels.  With k, the k - 1 heaviest such edges (in the tree's edge order)
 * are cut: k segments, fewer when fewer edges qualify; otherwise those longer
 * than cut.  This is cutting the edges, then merging each region smaller than
 * min_size into the region across its lightest cut edge, lightest first.
 * Returns 0, or -1 with a message when out of memory.
 */
int seg_segment(const gridemst_result *tree, const seg_params *p, int32_t *labels, seg_summary *s, char *msg);

/* A picture of the labels: each segment in a colour fixed by its label
 * (a hash), so the same labels always look the same.  Free rgb->pix. */
int seg_render(int64_t width, int64_t height, const int32_t *labels, seg_rgb *rgb, char *msg);

#endif
