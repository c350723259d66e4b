#include "nns/index_choice.h"

#include <math.h>

/* Bits of a code per axis (bvh/morton.h). */
static int bits_per_axis(int dim)
{
    return dim == 2 ? 32 : 21;
}

/* The level of the code's cells nearest the grid's planned side. */
static int planned_level(const gemst_frame *f, int64_t n)
{
    gemst_grid_plan plan;
    gemst_grid_plan_make(f, n, 0.0, &plan);
    const int bits = bits_per_axis(f->dim);
    const double side = plan.L * f->unit; /* in the unit box's scale */
    const int level = side > 0.0 ? (int)lround(-log2(side)) : bits;
    return level < 1 ? 1 : level > bits ? bits : level;
}

int gemst_index_shift(const gemst_frame *f, int64_t n)
{
    return f->dim * (bits_per_axis(f->dim) - planned_level(f, n));
}

/* The share of the box's volume in one cell at shift, along each axis the
 * box is wider than a cell. */
static double cell_share(const gemst_frame *f, int shift)
{
    const double side = exp2(-(double)(bits_per_axis(f->dim) - shift / f->dim));
    double share = 1.0;
    for (int d = 0; d < f->dim; d++) {
        const double extent = f->extent[d] * f->unit;
        if (extent > side)
            share *= side / extent;
    }
    return share;
}

uint32_t gemst_index_sample_size(const gemst_frame *f, int64_t n)
{
    /* m (m - 1) share pairs sharing a cell, where the points fill the box evenly */
    const double even = ceil(sqrt(GEMST_INDEX_EVEN_PAIRS / cell_share(f, gemst_index_shift(f, n)))) + 1.0;
    const double m = fmin(fmax(even, GEMST_INDEX_SAMPLE_LEAST), GEMST_INDEX_SAMPLE_MOST);
    return n < (int64_t)m ? (uint32_t)(n > 0 ? n : 0) : (uint32_t)m;
}

double gemst_index_contrast(const gemst_frame *f, int shift, gemst_index_counts counts)
{
    if (counts.distinct < 2)
        return 0.0;
    const double shared = (double)counts.pairs / (double)counts.distinct;
    return shared / ((double)(counts.distinct - 1) * cell_share(f, shift));
}

int gemst_index_prefers_bvh(double contrast)
{
    return contrast > GEMST_INDEX_EVEN_CONTRAST;
}

uint64_t gemst_index_sorted_pairs(const uint64_t *code, uint32_t m, int shift)
{
    uint64_t pairs = 0;
    for (uint32_t i = 0, j; i < m; i = j) {
        for (j = i + 1; j < m && code[j] >> shift == code[i] >> shift; j++) {
        }
        pairs += (uint64_t)(j - i) * (j - i - 1);
    }
    return pairs;
}

int gemst_index_cpu_prefers_bvh(int dim, const uint64_t *code, uint32_t m, double contrast)
{
    if (!gemst_index_prefers_bvh(contrast)) /* an even fill: every cell holds about the planned number */
        return 0;
    const int bits = bits_per_axis(dim);
    for (int level = bits; level >= 2; level--) {
        const int shift = dim * (bits - level);
        const uint64_t fine = gemst_index_sorted_pairs(code, m, shift);
        if (fine < GEMST_INDEX_LOCAL_PAIRS)
            continue;
        /* dimension log2(coarse / fine) below GEMST_INDEX_CPU_BVH_DIM */
        const double ratio = (double)gemst_index_sorted_pairs(code, m, shift + dim) / (double)fine;
        return ratio < exp2(GEMST_INDEX_CPU_BVH_DIM);
    }
    return 0;
}
