/* Counting what float rounding did to the points (see rounding.h). */
#include "cli/rounding.h"

#include <math.h>

/* The bounding-box minimum and the power of two that maps the widest side
 * below 1, as the library's working frame has them. */
static double frame(const gemst_pointset *ps, double lo[3])
{
    double widest = 0.0;
    for (int d = 0; d < ps->dim; d++) {
        double a = ps->n > 0 ? gemst_pointset_coord(ps, 0, d) : 0.0, b = a;
#pragma omp parallel for reduction(min : a) reduction(max : b) schedule(static)
        for (int64_t i = 1; i < ps->n; i++) {
            double v = gemst_pointset_coord(ps, i, d);
            a = v < a ? v : a;
            b = v > b ? v : b;
        }
        lo[d] = a;
        widest = b - a > widest ? b - a : widest;
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

void cli_rounding_check(const gemst_pointset *ps, const gridemst_result *res, cli_rounding *r)
{
    double lo[3] = {0, 0, 0};
    const double scale = frame(ps, lo);
    int64_t rounded = 0, merged = 0;
#pragma omp parallel for reduction(+ : rounded) schedule(static)
    for (int64_t i = 0; i < ps->n; i++) {
        int changed = 0;
        for (int d = 0; d < ps->dim; d++) {
            double t = (gemst_pointset_coord(ps, i, d) - lo[d]) * scale;
            changed |= (double)(float)t != t;
        }
        rounded += changed;
    }
#pragma omp parallel for reduction(+ : merged) schedule(static)
    for (int64_t k = 0; k < res->n_edges; k++)
        merged += res->edges[k].w == 0.0 && !same_point(ps, res->edges[k].u, res->edges[k].v);
    r->rounded_points = rounded;
    r->merged_points = merged;
}
