/* Counting what float rounding did to the points (see rounding.h). */
#include "cli/rounding.h"

#include <math.h>

/* The bounding-box minimum and the power of two that maps the widest side
 * below 1, as the library's working frame has them: one pass over the
 * points, every axis at once. */
static double frame(const gemst_pointset *ps, double lo[3])
{
    double a[3] = {0, 0, 0}, b[3] = {0, 0, 0};
    for (int d = 0; d < ps->dim && ps->n > 0; d++)
        a[d] = b[d] = gemst_pointset_coord(ps, 0, d);
#pragma omp parallel for reduction(min : a[:3]) reduction(max : b[:3]) schedule(static)
    for (int64_t i = 1; i < ps->n; i++)
        for (int d = 0; d < ps->dim; d++) {
            const double v = gemst_pointset_coord(ps, i, d);
            a[d] = v < a[d] ? v : a[d];
            b[d] = v > b[d] ? v : b[d];
        }
    double widest = 0.0;
    for (int d = 0; d < ps->dim; d++) {
        lo[d] = a[d];
        widest = b[d] - a[d] > widest ? b[d] - a[d] : widest;
    }
    int k = 0;
    if (widest > 0.0)
        (void)frexp(widest, &k);
    return ldexp(1.0, -k);
}

static int same_point(const gemst_pointset *ps, int64_t i, int64_t j)
{
    for (int d = 0; d < ps->dim; d++)
        if (gemst_pointset_coord(ps, i, d) != gemst_pointset_coord(ps, j, d))
            return 0;
    return 1;
}

/* The points whose working coordinates float32 rounds. */
static int64_t count_rounded_points(const gemst_pointset *ps)
{
    double lo[3] = {0, 0, 0};
    const double scale = frame(ps, lo);
    int64_t rounded = 0;
#pragma omp parallel for reduction(+ : rounded) schedule(static)
    for (int64_t i = 0; i < ps->n; i++) {
        int changed = 0;
        for (int d = 0; d < ps->dim; d++) {
            double t = (gemst_pointset_coord(ps, i, d) - lo[d]) * scale;
            changed |= (double)(float)t != t;
        }
        rounded += changed;
    }
    return rounded;
}

void cli_rounding_check(const gemst_pointset *ps, const gridemst_result *res, int count_rounded, cli_rounding *r)
{
    r->rounded_points = count_rounded ? count_rounded_points(ps) : -1;
    /* A zero-length edge joins points of equal working coordinates, which
     * the solve counts as duplicates: with none, or with no coordinate
     * rounded, no edge merged points of other coordinates. */
    const int may_merge = res->stats.n_duplicates > 0 && r->rounded_points != 0;
    int64_t merged = 0;
#pragma omp parallel for reduction(+ : merged) schedule(static) if (may_merge)
    for (int64_t k = 0; k < (may_merge ? res->n_edges : 0); k++)
        merged += res->edges[k].w == 0.0 && !same_point(ps, res->edges[k].u, res->edges[k].v);
    r->merged_points = merged;
}
