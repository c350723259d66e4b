/*
 * A part's region: the points of the key space's cube whose Morton key
 * (of working coordinates) lies in a range of keys.  A range
 * of keys is a union of dyadic cells, so the region is a union of closed
 * axis-aligned cubes; every point whose key is in the range lies in it.
 * The distance from a point to a region is therefore a lower bound on its
 * distance to any point of the part, and the distance to the complement
 * of a part's own region one on its distance to any other part's point.
 */
#ifndef GEMST_PARTS_REGION_H
#define GEMST_PARTS_REGION_H

#include <math.h>
#include <stdint.h>

#include "bvh/morton.h"

/* The cube that keys cover, [base, base + span] along every axis: the
 * unit cube [0, 1] of a float frame (working coordinates from 0) or
 * [-1, 1] of a double frame (working coordinates about 0, grid/grid_plan.h).
 * Both make every cell's bounds and every point's key exact in double. */
typedef struct gemst_region_space {
    int dim;
    double base, span;
} gemst_region_space;

static inline gemst_region_space gemst_region_space_of(int dim, int exact_double)
{
    gemst_region_space sp = {dim, exact_double ? -1.0 : 0.0, exact_double ? 2.0 : 1.0};
    return sp;
}

/* Keys first .. last, both included; empty when first > last. */
typedef struct gemst_key_range {
    uint64_t first, last;
} gemst_key_range;

static inline GEMST_HD int gemst_key_range_empty(gemst_key_range r)
{
    return r.first > r.last;
}

/* Bits per axis of a key: 32 in 2D, 21 in 3D (bvh/morton.h). */
static inline GEMST_HD int gemst_region_axis_bits(int dim)
{
    return dim == 2 ? 32 : 21;
}

/* The dyadic cell of `level` (side span 2^-level) holding key, as its keys'
 * common prefix. */
static inline GEMST_HD uint64_t gemst_region_cell(int dim, uint64_t key, int level)
{
    const int free_bits = dim * (gemst_region_axis_bits(dim) - level);
    return free_bits >= 64 ? 0 : key >> free_bits;
}

/* The prefix (as gemst_region_cell gives it) of the cell of `level` at
 * integer coordinates c (c[2] ignored in 2D). */
static inline uint64_t gemst_region_cell_at(int dim, int level, const uint32_t c[3])
{
    uint64_t prefix = 0;
    for (int j = level - 1; j >= 0; j--)
        for (int d = dim - 1; d >= 0; d--)
            prefix = prefix << 1 | (c[d] >> j & 1);
    return prefix;
}

/* Working coordinate v's cell of the finest level along an axis of `bits`
 * bits, floor((v - base) 2^bits / span) capped to the cube: computed as
 * floor(v 2^bits / span) - base 2^bits / span, where every step is exact
 * (span is a power of two, base 2^bits / span an integer), so that the
 * host and the devices give every point the same cell. */
static inline GEMST_HD uint64_t gemst_region_axis_cell(const gemst_region_space *sp, double v, int bits)
{
    const double top = ldexp(1.0, bits), per_unit = top / sp->span;
    const double c = floor(v * per_unit) - sp->base * per_unit;
    return !(c > 0.0) ? 0 : c >= top ? (uint64_t)top - 1 : (uint64_t)c;
}

/* The Morton key of a point of working coordinates p (p[2] ignored in 2D). */
static inline GEMST_HD uint64_t gemst_region_key(const gemst_region_space *sp, const double p[3])
{
    const int bits = gemst_region_axis_bits(sp->dim);
    if (sp->dim == 2)
        return gemst_morton_spread2(gemst_region_axis_cell(sp, p[0], bits)) |
               gemst_morton_spread2(gemst_region_axis_cell(sp, p[1], bits)) << 1;
    return gemst_morton_spread3(gemst_region_axis_cell(sp, p[0], bits)) |
           gemst_morton_spread3(gemst_region_axis_cell(sp, p[1], bits)) << 1 |
           gemst_morton_spread3(gemst_region_axis_cell(sp, p[2], bits)) << 2;
}

/* An axis-aligned box, lo[d] <= hi[d]; a point is a box with lo == hi.
 * In 2D the third axis is ignored. */
typedef struct gemst_box {
    double lo[3], hi[3];
} gemst_box;

/* The squared distance between two boxes, in double (0 where they meet;
 * exact but for its rounding). */
static inline double gemst_box_dist2(const gemst_box *a, const gemst_box *b)
{
    double s = 0.0;
    for (int d = 0; d < 3; d++) {
        const double gap = a->hi[d] < b->lo[d] ? b->lo[d] - a->hi[d] : b->hi[d] < a->lo[d] ? a->lo[d] - b->hi[d] : 0.0;
        s += gap * gap;
    }
    return s;
}

/* The box of one point. */
static inline GEMST_HD gemst_box gemst_point_box(const double w[3])
{
    gemst_box b = {{w[0], w[1], w[2]}, {w[0], w[1], w[2]}};
    return b;
}

/* The distances from a box to a range's region, and a cell's box: parts/region_dist.h. */

/* The depth of the cells of about `points` of n points spread evenly. */
int gemst_region_level(int dim, int64_t n, int64_t points);

#endif
