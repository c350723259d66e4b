#include "nns/index_choice.h"

#include <math.h>

/* Bits of a code per axis (bvh/morton.h). */
static int bits_per_axis(int dim)
{
    return dim == 2 ? 32 : 21;
}

void gemst_index_shifts(const gemst_frame *f, int64_t n, int shift[2])
{
    gemst_grid_plan plan;
    gemst_grid_plan_make(f, n, 0.0, &plan);
    const int bits = bits_per_axis(f->dim);
    const double side = plan.L * f->unit; /* in the unit box's scale */
    int level = side > 0.0 ? (int)lround(-log2(side)) : bits;
    /* the coarser level is at least 1: a shift of the code's full width is undefined */
    level = level < 2 ? 2 : level > bits ? bits : level;
    shift[0] = f->dim * (bits - level);
    shift[1] = f->dim * (bits - level + 1);
}

int gemst_index_prefers_bvh(int dim, const uint64_t pairs[2])
{
    if (pairs[0] < GEMST_INDEX_MIN_PAIRS || pairs[1] < GEMST_INDEX_MIN_PAIRS)
        return 0;
    /* dimension log2(pairs[1] / pairs[0]) below dim - 1/2 */
    const double ratio = (double)pairs[1] / (double)pairs[0];
    return ratio < exp2((double)dim - 0.5);
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

int gemst_index_cpu_prefers_bvh(int dim, const uint64_t *code, uint32_t m)
{
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
