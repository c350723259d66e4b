#include "fof/fof_plan.h"

#include <float.h>
#include <math.h>

int gemst_fof_box_frame(int dim, const double box[3], gemst_frame *f, gridemst_error *err)
{
    const double zero[3] = {0, 0, 0};
    return gemst_frame_make(dim, zero, box, 0, f, err);
}

/* t as the working precision holds it. */
static double to_working(double t, int working_double)
{
    return working_double ? t : (double)(float)t;
}

static double step(double t, int up, int working_double)
{
    if (working_double)
        return nextafter(t, up ? INFINITY : 0.0);
    return (double)nextafterf((float)t, up ? INFINITY : 0.0f);
}

static int within(double t, double b, double scale)
{
    return sqrt(t) / scale <= b;
}

double gemst_fof_threshold2(double b, double scale, int working_double)
{
    const double largest = working_double ? DBL_MAX : (double)FLT_MAX;
    double t = to_working((b * scale) * (b * scale), working_double);
    if (!(t <= largest))
        t = largest;
    while (t > 0.0 && !within(t, b, scale))
        t = step(t, 0, working_double);
    for (;;) {
        double up = step(t, 1, working_double);
        if (!(up <= largest) || !within(up, b, scale))
            return t;
        t = up;
    }
}

/* Cells per axis for side L: the extent's floor(extent / L) + 1 in open
 * space; in a periodic box the most cells of side >= L that tile it. */
static uint64_t count_cells(const gemst_fof_plan *p, const double extent[3], double L, int32_t nc[3])
{
    uint64_t cells = 1;
    for (int d = 0; d < 3; d++) {
        double c = 1.0;
        if (d < p->dim)
            c = p->periodic ? floor(p->box[d] / L) : floor(extent[d] / L) + 1.0;
        c = c < 1.0 ? 1.0 : c > (double)INT32_MAX ? (double)INT32_MAX : c;
        nc[d] = (int32_t)c;
        cells = cells > UINT64_MAX / (uint64_t)nc[d] ? UINT64_MAX : cells * (uint64_t)nc[d];
    }
    return cells;
}

void gemst_fof_plan_make(const gemst_frame *f, int64_t n, double t, const double *box, int working_double,
                         double occupancy, gemst_fof_plan *plan)
{
    const double eps = working_double ? DBL_EPSILON : (double)FLT_EPSILON;
    plan->dim = f->dim;
    plan->periodic = box != NULL;
    plan->t = t;
    plan->occupancy = occupancy > 0.0 ? occupancy : GEMST_FOF_OCCUPANCY;
    /* Points in cells two apart are farther than the linking length even
     * after the rounding of cell faces and coordinates (a few units in the
     * last place of coordinates below 1). */
    plan->min_side = sqrt(t) * (1.0 + 0x1p-10) + 64.0 * eps;
    double volume = 1.0;
    for (int d = 0; d < 3; d++) {
        plan->box[d] = box && d < f->dim ? box[d] : 0.0;
        volume *= d < f->dim ? (box ? box[d] : f->extent[d]) : 1.0;
    }
    /* the side for the occupancy: the EMST grid's plan in open space (it
     * handles flat and thin sets), the box's volume per cell otherwise */
    double L;
    if (box) {
        double target = (double)n / plan->occupancy;
        L = pow(volume / (target > 1.0 ? target : 1.0), 1.0 / f->dim);
    } else {
        gemst_grid_plan occ;
        gemst_grid_plan_make(f, n, plan->occupancy, &occ);
        L = occ.L;
    }
    if (!(L >= plan->min_side))
        L = plan->min_side;
    /* a cell table small next to the points, as the EMST grid's */
    uint64_t cap = (uint64_t)n * 4 + 1024;
    if (cap > (uint64_t)UINT32_MAX - 2)
        cap = (uint64_t)UINT32_MAX - 2;
    while ((plan->cells = count_cells(plan, f->extent, L, plan->nc)) > cap)
        L *= 1.25;
    for (int d = 0; d < 3; d++)
        plan->L[d] = box && d < f->dim ? box[d] / plan->nc[d] : L;
}

int gemst_fof_split(const gemst_fof_plan *plan, uint64_t count)
{
    if (count <= GEMST_FOF_CROWDED)
        return 1;
    double narrowest = INFINITY;
    for (int d = 0; d < plan->dim; d++) {
        if (plan->periodic && plan->nc[d] <= 2)
            return 1; /* fof_grid.h measures no gaps along such an axis */
        narrowest = plan->L[d] < narrowest ? plan->L[d] : narrowest;
    }
    /* the sub-cells' side, rounded in the working precision, stays above
     * min_side: its margin covers a relative 2^-20 */
    double by_side = floor(narrowest / (plan->min_side * (1.0 + 0x1p-20)));
    double by_count = ceil(pow((double)count / plan->occupancy, 1.0 / plan->dim));
    double m = by_side < by_count ? by_side : by_count;
    m = m > GEMST_FOF_MAX_SPLIT ? GEMST_FOF_MAX_SPLIT : m;
    return m >= 2.0 ? (int)m : 1;
}
