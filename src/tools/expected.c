#include "tools/expected.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/prim.h"

/* Squared distances between distinct points below this have no exact tree:
 * subnormal ones and 0 in double, 0 in float (gridemst.h). */
static double tiny_d2(gridemst_precision precision)
{
    return precision == GRIDEMST_PRECISION_DOUBLE ? DBL_MIN : FLT_TRUE_MIN;
}

/* Point i's coordinate d: as given in double precision (which refuses to
 * merge distinct points), its working coordinate in float (which merges
 * points equal once rounded, as duplicates). */
static double point_coord(const gemst_expected *e, int64_t i, int d)
{
    if (e->precision == GRIDEMST_PRECISION_FLOAT)
        return gemst_prim_working_coord(e->coords, e->dtype, e->dim, e->precision, e->lo, e->scale, i, d);
    if (e->dtype == GRIDEMST_FLOAT32)
        return (double)((const float *)e->coords)[i * e->dim + d];
    return ((const double *)e->coords)[i * e->dim + d];
}

/* Whether points a and b differ, in that sense. */
static int distinct(const gemst_expected *e, int64_t a, int64_t b)
{
    for (int d = 0; d < e->dim; d++)
        if (point_coord(e, a, d) != point_coord(e, b, d))
            return 1;
    return 0;
}

/* Whether reference edge k joins distinct points too close together for
 * the precision. */
static int too_close(const gemst_expected *e, int64_t k)
{
    return e->d2[k] < tiny_d2(e->precision) && distinct(e, e->edges[k].u, e->edges[k].v);
}

int gemst_expect(const void *coords, gridemst_dtype dtype, int64_t n, int dim, gridemst_precision precision,
                 gemst_expected *e)
{
    const size_t m = n > 1 ? (size_t)(n - 1) : 1;
    *e = (gemst_expected){coords, dtype, n, dim, precision, GEMST_EXPECT_TREE, malloc(sizeof *e->edges * m),
                          malloc(sizeof *e->d2 * m), {0, 0, 0}, 1.0};
    if (n > 0)
        e->scale = gemst_prim_scale(coords, dtype, n, dim, precision, e->lo);
    double total = e->edges && e->d2 ? gemst_prim_working(coords, dtype, n, dim, precision, e->edges, e->d2) : -1.0;
    if (total < 0.0) {
        gemst_expected_free(e);
        return GRIDEMST_ERR_NO_MEMORY;
    }
    if (isnan(total)) { /* float: a side wider than the largest double */
        e->kind = GEMST_EXPECT_TOO_FAR;
        return GRIDEMST_OK;
    }
    for (int64_t k = 0; k + 1 < n; k++)
        if (too_close(e, k))
            e->kind = GEMST_EXPECT_TOO_CLOSE;
    for (int64_t k = 0; k + 1 < n && e->kind == GEMST_EXPECT_TREE; k++)
        if (isinf(e->edges[k].w))
            e->kind = GEMST_EXPECT_TOO_FAR;
    return GRIDEMST_OK;
}

void gemst_expected_free(gemst_expected *e)
{
    free(e->edges);
    free(e->d2);
    e->edges = NULL;
    e->d2 = NULL;
}

static int refusal_ok(const gemst_expected *e, int rc, const gridemst_error *err, char *reason, size_t size)
{
    const char *what = e->kind == GEMST_EXPECT_TOO_CLOSE ? "points too close together" : "points too far apart";
    if (rc != GRIDEMST_ERR_INPUT) {
        snprintf(reason, size, "status %d (%s) where the reference has %s", rc, rc ? err->message : "solved", what);
        return 0;
    }
    if (e->kind == GEMST_EXPECT_TOO_FAR) {
        if (strstr(err->message, "largest double"))
            return 1;
        snprintf(reason, size, "refused with \"%s\" where the reference has %s", err->message, what);
        return 0;
    }
    long long a = -1, b = -1;
    if (sscanf(err->message, "points %lld and %lld are distinct but too close", &a, &b) == 2 && a >= 0 && a < b &&
        b < e->n && distinct(e, a, b) &&
        gemst_prim_dist2(e->coords, e->dtype, e->dim, e->precision, e->lo, e->scale, a, b) <
            tiny_d2(e->precision))
        return 1;
    snprintf(reason, size, "refused with \"%s\", which names no pair too close together", err->message);
    return 0;
}

int gemst_outcome_ok(const gemst_expected *e, int rc, const gridemst_error *err, const gridemst_result *result,
                     char *reason, size_t size)
{
    if (e->kind != GEMST_EXPECT_TREE)
        return refusal_ok(e, rc, err, reason, size);
    if (rc != GRIDEMST_OK) {
        snprintf(reason, size, "status %d: %s", rc, err->message);
        return 0;
    }
    const int64_t m = e->n > 1 ? e->n - 1 : 0;
    if (result->n_edges != m) {
        snprintf(reason, size, "%lld edges, the reference %lld", (long long)result->n_edges, (long long)m);
        return 0;
    }
    for (int64_t k = 0; k < m; k++) {
        const gridemst_edge *g = &result->edges[k], *r = &e->edges[k];
        if (g->u != r->u || g->v != r->v || g->w != r->w) {
            snprintf(reason, size, "edge %lld is (%lld, %lld, %.17g), the reference's (%lld, %lld, %.17g)",
                     (long long)k, (long long)g->u, (long long)g->v, g->w, (long long)r->u, (long long)r->v, r->w);
            return 0;
        }
    }
    return 1;
}
