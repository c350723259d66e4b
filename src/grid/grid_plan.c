#include "grid/grid_plan.h"

#include <math.h>

double gemst_default_occupancy(int dim)
{
    return dim == 2 ? 2.0 : 2.0;
}

void gemst_frame_make(int dim, const double bbox_min[3], const double bbox_max[3], gemst_frame *f)
{
    double widest = 0.0;
    f->dim = dim;
    for (int d = 0; d < 3; d++) {
        f->origin[d] = d < dim ? bbox_min[d] : 0.0;
        double e = d < dim ? bbox_max[d] - bbox_min[d] : 0.0;
        if (e > widest)
            widest = e;
    }
    /* widest = m * 2^k with m in [0.5, 1): scaling by 2^-k maps it below 1. */
    int k = 0;
    if (widest > 0.0 && isfinite(widest))
        (void)frexp(widest, &k);
    f->scale = ldexp(1.0, -k);
    for (int d = 0; d < 3; d++)
        f->extent[d] = d < dim ? (bbox_max[d] - bbox_min[d]) * f->scale : 0.0;
}

/* The plan for cell side L. */
static void plan_for_side(const gemst_frame *f, double L, gemst_grid_plan *plan)
{
    plan->dim = f->dim;
    plan->L = L;
    plan->cells = 1;
    for (int d = 0; d < 3; d++) {
        double c = d < f->dim ? floor(f->extent[d] / L) + 1.0 : 1.0;
        plan->nc[d] = c > (double)INT32_MAX ? INT32_MAX : (int32_t)c;
        plan->cells *= (uint64_t)plan->nc[d];
    }
}

void gemst_grid_plan_make(const gemst_frame *f, int64_t n, double occupancy, gemst_grid_plan *plan)
{
    if (!(occupancy > 0.0))
        occupancy = gemst_default_occupancy(f->dim);
    double target = (double)n / occupancy;
    if (target < 1.0)
        target = 1.0;
    /* Solve prod over the "wide" axes of extent/L = target; an axis thinner
     * than L gets one cell and leaves the product, until none is left over. */
    int wide[3] = {0, 0, 0};
    for (int d = 0; d < f->dim; d++)
        wide[d] = f->extent[d] > 0.0;
    double L = 1.0;
    for (int round = 0; round < 3; round++) {
        double volume = 1.0;
        int k = 0;
        for (int d = 0; d < f->dim; d++)
            if (wide[d]) {
                volume *= f->extent[d];
                k++;
            }
        if (k == 0)
            break;
        L = pow(volume / target, 1.0 / k);
        int changed = 0;
        for (int d = 0; d < f->dim; d++)
            if (wide[d] && f->extent[d] < L) {
                wide[d] = 0;
                changed = 1;
            }
        if (!changed)
            break;
    }
    if (!(L > 0.0) || !isfinite(L))
        L = 1.0;
    /* Keep the cell table addressable by 32-bit indices and small next to
     * the points: at most 4 cells per point (plus a little for tiny n). */
    uint64_t cap = (uint64_t)n * 4 + 1024;
    if (cap > (uint64_t)UINT32_MAX - 2)
        cap = (uint64_t)UINT32_MAX - 2;
    plan_for_side(f, L, plan);
    while (plan->cells > cap) {
        L *= 1.25;
        plan_for_side(f, L, plan);
    }
}
