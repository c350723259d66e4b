#include "grid/grid_plan.h"

#include <math.h>
#include <string.h>

double gemst_default_occupancy(int dim)
{
    (void)dim; /* the CPU backend's best in 2D and 3D alike */
    return 2.0;
}

/* 2^-k for a positive width or magnitude m = f 2^k with f in [0.5, 1): it
 * maps m below 1.  A subnormal m (below 2^-1022) gets 2^1023, the largest
 * power of two a double holds (2^-k would be infinite); m = 0 gets 1. */
static double power_below_one(double m)
{
    int k = 0;
    if (m > 0.0)
        (void)frexp(m, &k);
    if (k < -GEMST_MAX_SCALE_EXP)
        k = -GEMST_MAX_SCALE_EXP;
    return ldexp(1.0, -k);
}

int gemst_frame_make(int dim, const double bbox_min[3], const double bbox_max[3], int exact_double, gemst_frame *f,
                     gridemst_error *err)
{
    double widest = 0.0, largest = 0.0;
    memset(f, 0, sizeof *f);
    f->dim = dim;
    for (int d = 0; d < dim; d++) {
        double e = bbox_max[d] - bbox_min[d];
        if (!exact_double && !isfinite(e))
            return gemst_fail(err, GRIDEMST_ERR_INPUT,
                              "the points span more than the largest double along axis %d (from %g to %g)", d,
                              bbox_min[d], bbox_max[d]);
        widest = fmax(widest, e);
        largest = fmax(largest, fmax(fabs(bbox_min[d]), fabs(bbox_max[d])));
    }
    f->scale = power_below_one(exact_double ? largest : widest);
    double top = 0.0, box = 0.0;
    for (int d = 0; d < dim; d++) {
        f->origin[d] = exact_double ? 0.0 : bbox_min[d];
        f->lo[d] = gemst_frame_working(f, bbox_min[d], d);
        f->hi[d] = gemst_frame_working(f, bbox_max[d], d);
        f->extent[d] = f->hi[d] - f->lo[d];
        top = fmax(top, fmax(fabs(f->lo[d]), fabs(f->hi[d])));
        box = fmax(box, f->extent[d]);
    }
    f->min_side = exact_double ? top * GEMST_MIN_SIDE_F64 : 0.0;
    f->unit = power_below_one(box);
    f->exact_double = exact_double;
    return GRIDEMST_OK;
}

int gemst_too_close(const gemst_frame *f, uint64_t pair, gridemst_error *err)
{
    double largest = 0.0, widest = 0.0;
    for (int d = 0; d < f->dim; d++) {
        largest = fmax(largest, fmax(fabs(f->lo[d]), fabs(f->hi[d])) / f->scale);
        widest = fmax(widest, f->extent[d] / f->scale);
    }
    const unsigned a = (unsigned)(pair >> 32), b = (unsigned)(pair & 0xffffffffu);
    if (f->exact_double)
        return gemst_fail(err, GRIDEMST_ERR_INPUT,
                          "points %u and %u are distinct but too close together for double precision next to "
                          "coordinates as large as %g: their squared distance underflows",
                          a, b, largest);
    return gemst_fail(err, GRIDEMST_ERR_INPUT,
                      "points %u and %u are distinct but too close together for float precision in a box %g wide: "
                      "their squared distance is 0 in float (double precision may tell them apart)",
                      a, b, widest);
}

/* The smallest cell side a plan may use: the frame's, and a normal float,
 * so that the side and its inverse stay finite and nonzero in either working
 * precision, and growing it by a factor always changes it. */
static double min_side(const gemst_frame *f)
{
    return fmax(f->min_side, 0x1p-126);
}

/* The plan for cell side L; cells saturates at UINT64_MAX when the product
 * would overflow (tiny L). */
static void plan_for_side(const gemst_frame *f, double L, gemst_grid_plan *plan)
{
    double cells = 1.0;
    plan->dim = f->dim;
    plan->L = L;
    for (int d = 0; d < 3; d++) {
        double c = d < f->dim ? floor(f->extent[d] / L) + 1.0 : 1.0;
        plan->nc[d] = c > (double)INT32_MAX ? INT32_MAX : (int32_t)c;
        cells *= c;
    }
    plan->cells = cells >= 0x1p64 ? UINT64_MAX : (uint64_t)cells;
}

/* Widest active (more than one cell) axes of a plan. */
static int active_axes(const gemst_grid_plan *plan)
{
    int k = 0;
    for (int d = 0; d < plan->dim; d++)
        k += plan->nc[d] > 1;
    return k;
}

int gemst_grid_plan_refine(const gemst_frame *f, int64_t n, double occupancy, double weighted, gemst_grid_plan *plan)
{
    if (!(occupancy > 0.0))
        occupancy = gemst_default_occupancy(f->dim);
    int k = active_axes(plan);
    if (k == 0 || !(weighted > 4.0 * occupancy))
        return 0;
    uint64_t cap = (uint64_t)n * GEMST_SKEW_CELLS_PER_POINT + 1024;
    if (cap > (uint64_t)UINT32_MAX - 2)
        cap = (uint64_t)UINT32_MAX - 2;
    double L = plan->L * pow(occupancy / weighted, 1.0 / k);
    if (!(L >= min_side(f)))
        L = min_side(f);
    gemst_grid_plan finer;
    plan_for_side(f, L, &finer);
    while (finer.cells > cap) {
        L *= 1.1;
        plan_for_side(f, L, &finer);
    }
    if (!(finer.L < plan->L) || finer.cells <= plan->cells)
        return 0;
    *plan = finer;
    return 1;
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
    if (!isfinite(L))
        L = 1.0;
    if (!(L >= min_side(f)))
        L = min_side(f);
    /* Keep the cell table addressable by 32-bit indices and small next to
     * the points: at most 4 cells per point (plus a little for tiny n). */
    uint64_t cap = (uint64_t)n * 4 + 1024;
    if (cap > (uint64_t)UINT32_MAX - 2)
        cap = (uint64_t)UINT32_MAX - 2;
    plan_for_side(f, L, plan);
    while (plan->cells > cap) {
        /* Too many cells (a tiny occupancy asked for): grow L towards the
         * cap, by at least 25% a step. */
        double grow = pow((double)plan->cells / (double)cap, 1.0 / f->dim);
        L *= grow > 1.25 ? grow : 1.25;
        plan_for_side(f, L, plan);
    }
}
