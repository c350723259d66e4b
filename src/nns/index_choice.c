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
