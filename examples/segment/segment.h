/* From pixels to points, from the tree to segments, from segments to a
 * picture: the steps of gridemst-segment between reading and writing. */
#ifndef SEG_SEGMENT_H
#define SEG_SEGMENT_H

#include <stdint.h>

#include "gridemst.h"
#include "image.h"

/* What a pixel's colour contributes to its point. */
typedef enum seg_features {
    SEG_LUMA, /* the luma (299 R + 587 G + 114 B) / 1000 */
    SEG_RGB,  /* R, G and B */
    SEG_LAB   /* CIE L*a*b* (D65) of the sRGB colour, times 2.55: L* runs 0 to 255 */
} seg_features;

/* "luma", "rgb" or "lab" to *out: 0, or -1 for another word. */
int seg_parse_features(const char *s, seg_features *out);
const char *seg_features_name(seg_features f);

/* How many colour coordinates a pixel has: 3 for rgb and lab, 1 for luma
 * and for any grey image (its grey level, whatever f). */
int seg_colour_dims(const seg_image *img, seg_features f);

/* The colour coordinates of the pixels in row-major order, dims per pixel
 * (seg_colour_dims), each on a 0 to 255 scale whatever the maxval (a*, b*
 * are signed).  malloc'd; NULL when out of memory. */
double *seg_colours(const seg_image *img, seg_features f);

/* The pixels in row-major order as n 3D points (n * 3 floats, malloc'd;
 * NULL when out of memory): axes[j] names coordinate j of a point, 0 the
 * pixel's column x, 1 its row y, 2 + k lambda times its colour coordinate k
 * (of dims in colours). */
float *seg_points(const seg_image *img, const double *colours, int dims, double lambda, const int axes[3]);

/*
 * The spanning tree of the pixels, each the point (x, y, lambda * c) with c
 * its colour coordinates.  With one coordinate this is the exact Euclidean
 * minimum spanning tree of the 3D points.  The library solves 2D and 3D, so
 * with three (x, y, c1, c2, c3 is 5D) it is the minimum spanning tree of the
 * union of the exact trees of the ten projections of the points on three of
 * their five coordinates, each edge weighted by its 5D length.  A projection
 * never lengthens a distance, so pixels near in 5D are near in every
 * projection; the tree is a spanning tree of the 5D points, not always their
 * EMST (its weight is at least the EMST's).
 */
typedef struct seg_tree {
    int64_t n, n_edges;    /* pixels, and n - 1 edges */
    gridemst_edge *edges;  /* sorted by (w, u, v); free with seg_tree_free */
    int solves;            /* the library's solves: 1 or 10 */
    gridemst_stats stats;  /* the last solve's: backend, threads, device, note */
} seg_tree;

/* Returns GRIDEMST_OK, or a status with *err filled (the library's, or
 * GRIDEMST_ERR_NO_MEMORY). */
int seg_tree_build(const seg_image *img, seg_features f, double lambda, const gridemst_options *opt, seg_tree *t,
                   gridemst_error *err);
void seg_tree_free(seg_tree *t);

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
int seg_segment(const seg_tree *tree, const seg_params *p, int32_t *labels, seg_summary *s, char *msg);

/* A picture of the labels: each segment in a colour fixed by its label
 * (a hash), so the same labels always look the same.  Free rgb->pix. */
int seg_render(int64_t width, int64_t height, const int32_t *labels, seg_rgb *rgb, char *msg);

#endif
