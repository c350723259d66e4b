/*
 * Distances to Morton key ranges (region.h), on the host and the devices
 * alike (GEMST_HD): a descent of the implicit tree of dyadic cells, one
 * level after another, into the cells that the range's ends cut.
 *
 * A cell whose keys all lie in the range belongs to the region, one whose
 * keys all lie outside it does not, and only a cut cell (some of its keys
 * in the range, some not) is looked into, on the next level.  A cut cell
 * holds one of the range's two ends, so each level has at most two; the
 * descent needs no stack.  The distance to the region is the least
 * distance to a cell in the range whose parent was cut.  A cell is never
 * nearer than its parent (its bounds lie within its parent's, and each
 * rounding below is monotone), so a cut cell no nearer than the best so
 * far is dropped with all it holds.
 *
 * Every cell's bounds are exact in double (region.h); the squared
 * distance's products and sums are rounded one by one, on the devices too
 * (nvcc would otherwise fuse them into multiply-adds), so that the host
 * and the devices give every box the same distance, bit for bit.
 */
#ifndef GEMST_PARTS_REGION_DIST_H
#define GEMST_PARTS_REGION_DIST_H

#include <math.h>
#include <stdint.h>

#include "parts/region.h"

#ifdef __CUDA_ARCH__
#define GEMST_REGION_ADD(a, b) __dadd_rn((a), (b))
#define GEMST_REGION_MUL(a, b) __dmul_rn((a), (b))
#else
#define GEMST_REGION_ADD(a, b) ((a) + (b))
#define GEMST_REGION_MUL(a, b) ((a) * (b))
#endif

/* A cell of the descent: depth t, side span 2^-t, its integer coordinates
 * at that depth, its keys' common prefix, and its squared distance to the
 * box. */
typedef struct gemst_region_cell_ref {
    int t;
    double side;
    uint32_t c[3];
    uint64_t prefix;
    double d2;
} gemst_region_cell_ref;

static inline GEMST_HD double gemst_region_cell_dist2(const gemst_region_space *sp, const gemst_box *b,
                                                      const gemst_region_cell_ref *k)
{
    double s = 0.0;
    for (int d = 0; d < sp->dim; d++) {
        const double lo = GEMST_REGION_ADD(sp->base, GEMST_REGION_MUL((double)k->c[d], k->side)),
                     hi = GEMST_REGION_ADD(lo, k->side);
        const double gap = b->hi[d] < lo ? lo - b->hi[d] : b->lo[d] > hi ? b->lo[d] - hi : 0.0;
        s = GEMST_REGION_ADD(s, GEMST_REGION_MUL(gap, gap));
    }
    return s;
}

/* Where cell k's keys lie against range r: -1 all outside, 1 all inside,
 * 0 cut. */
static inline GEMST_HD int gemst_region_cell_side(int dim, const gemst_region_cell_ref *k, gemst_key_range r)
{
    const int free_bits = dim * (gemst_region_axis_bits(dim) - k->t);
    const uint64_t first = free_bits >= 64 ? 0 : k->prefix << free_bits,
                   last = free_bits >= 64 ? UINT64_MAX : first | (((uint64_t)1 << free_bits) - 1);
    if (last < r.first || first > r.last)
        return -1;
    return r.first <= first && last <= r.last ? 1 : 0;
}

/* Cell k met in the descent: a cell in the range nearer than *best
 * becomes the best; a cut one nearer joins cut[] (at most two a level). */
static inline GEMST_HD void gemst_region_visit(const gemst_region_space *sp, const gemst_region_cell_ref *k,
                                               gemst_key_range r, double *best, gemst_region_cell_ref *cut,
                                               int *n_cut)
{
    if (k->d2 >= *best)
        return;
    const int side = gemst_region_cell_side(sp->dim, k, r);
    if (side > 0)
        *best = k->d2;
    else if (side == 0)
        cut[(*n_cut)++] = *k;
}

/* The squared distance from box b to the region of range r (rounded to
 * nearest in double; INFINITY for an empty range), or a value >= cap when
 * it is at least cap (the descent stops there). */
static inline GEMST_HD double gemst_region_dist2(const gemst_region_space *sp, const gemst_box *b, gemst_key_range r,
                                                 double cap)
{
    if (gemst_key_range_empty(r))
        return INFINITY;
    const int dim = sp->dim, children = 1 << dim;
    double best = cap;
    gemst_region_cell_ref cut[2], next[2];
    int n_cut = 0;
    gemst_region_cell_ref root = {0, sp->span, {0, 0, 0}, 0, 0.0};
    root.d2 = gemst_region_cell_dist2(sp, b, &root);
    gemst_region_visit(sp, &root, r, &best, cut, &n_cut);
    /* a leaf cell has one key and is never cut: the descent ends by the leaves' level */
    while (n_cut > 0) {
        int n_next = 0;
        for (int j = 0; j < n_cut; j++) {
            const gemst_region_cell_ref *k = &cut[j];
            if (k->d2 >= best) /* best fell since k was cut */
                continue;
            for (int i = 0; i < children; i++) {
                gemst_region_cell_ref q;
                q.t = k->t + 1;
                q.side = 0.5 * k->side;
                q.prefix = (k->prefix << dim) | (uint64_t)i;
                for (int d = 0; d < 3; d++)
                    q.c[d] = d < dim ? 2 * k->c[d] + ((uint32_t)i >> d & 1) : 0;
                q.d2 = gemst_region_cell_dist2(sp, b, &q);
                gemst_region_visit(sp, &q, r, &best, next, &n_next);
            }
        }
        for (int j = 0; j < n_next; j++)
            cut[j] = next[j];
        n_cut = n_next;
    }
    return best;
}

/* The squared distance from box b to every key outside r: to the regions
 * of the ranges below and above it. */
static inline GEMST_HD double gemst_region_outside_dist2(const gemst_region_space *sp, const gemst_box *b,
                                                         gemst_key_range r)
{
    double best = INFINITY;
    if (r.first > 0) {
        const gemst_key_range below = {0, r.first - 1};
        best = gemst_region_dist2(sp, b, below, best);
    }
    if (r.last < UINT64_MAX) {
        const gemst_key_range above = {r.last + 1, UINT64_MAX};
        const double d2 = gemst_region_dist2(sp, b, above, best);
        best = d2 < best ? d2 : best;
    }
    return best;
}

/* The box of the dyadic cell of `level` (side span 2^-level) holding key. */
static inline GEMST_HD void gemst_region_cell_box(const gemst_region_space *sp, uint64_t key, int level, gemst_box *b)
{
    const int dim = sp->dim, bits = gemst_region_axis_bits(dim), shift = bits - level;
    const double side = ldexp(sp->span, -level);
    for (int d = 0; d < 3; d++) {
        uint64_t c = 0; /* the axis's bits of the key, from the top */
        for (int j = bits - 1; d < dim && j >= shift; j--)
            c = c << 1 | (key >> (dim * j + d) & 1);
        b->lo[d] = d < dim ? GEMST_REGION_ADD(sp->base, GEMST_REGION_MUL((double)c, side)) : 0.0;
        b->hi[d] = d < dim ? GEMST_REGION_ADD(b->lo[d], side) : 0.0;
    }
}

#endif
