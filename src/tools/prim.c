#include "tools/prim.h"

#include <math.h>
#include <stdlib.h>

static double coord(const void *coords, gridemst_dtype dtype, int64_t i, int dim, int d)
{
    if (dtype == GRIDEMST_FLOAT32)
        return (double)((const float *)coords)[i * dim + d];
    return ((const double *)coords)[i * dim + d];
}

/* 2^-k for a positive width or magnitude m = f 2^k, f in [0.5, 1); 2^1023
 * at most, 1 for m = 0. */
static double power_below_one(double m)
{
    int k = 0;
    if (m > 0.0)
        (void)frexp(m, &k);
    return ldexp(1.0, k < -1023 ? 1023 : -k);
}

double gemst_prim_scale(const void *coords, gridemst_dtype dtype, int64_t n, int dim, gridemst_precision precision,
                        double lo[3])
{
    double largest = 0.0, widest = 0.0;
    for (int d = 0; d < dim; d++) {
        double min = INFINITY, max = -INFINITY;
        for (int64_t i = 0; i < n; i++) {
            double x = coord(coords, dtype, i, dim, d);
            min = x < min ? x : min;
            max = x > max ? x : max;
            largest = fabs(x) > largest ? fabs(x) : largest;
        }
        if (lo)
            lo[d] = min;
        widest = n > 0 && max - min > widest ? max - min : widest;
    }
    if (precision == GRIDEMST_PRECISION_FLOAT)
        return isfinite(widest) ? power_below_one(widest) : NAN;
    return power_below_one(largest);
}

double gemst_prim_working_coord(const void *coords, gridemst_dtype dtype, int dim, gridemst_precision precision,
                                const double lo[3], double scale, int64_t i, int d)
{
    double x = coord(coords, dtype, i, dim, d);
    return precision == GRIDEMST_PRECISION_FLOAT ? (double)(float)((x - lo[d]) * scale) : x * scale;
}

/* The working points. */
static double *working_points(const void *coords, gridemst_dtype dtype, int64_t n, int dim,
                              gridemst_precision precision, double *scale)
{
    double lo[3] = {0, 0, 0};
    *scale = gemst_prim_scale(coords, dtype, n, dim, precision, lo);
    double *w = malloc(sizeof *w * (size_t)(n * dim));
    for (int64_t i = 0; w && i < n; i++)
        for (int d = 0; d < dim; d++)
            w[i * dim + d] = gemst_prim_working_coord(coords, dtype, dim, precision, lo, *scale, i, d);
    return w;
}

/* ((dx dx + dy dy) + dz dz), every operation rounded to the precision. */
static double dist2(const double *w, int dim, gridemst_precision precision, int64_t a, int64_t b)
{
    if (precision == GRIDEMST_PRECISION_FLOAT) {
        float s = 0.0f;
        for (int d = 0; d < dim; d++) {
            float t = (float)w[b * dim + d] - (float)w[a * dim + d];
            s += t * t;
        }
        return (double)s;
    }
    double s = 0.0;
    for (int d = 0; d < dim; d++) {
        double t = w[b * dim + d] - w[a * dim + d];
        s += t * t;
    }
    return s;
}

/* Edge (a, b) of squared length d2 precedes (c, e) of squared length f2. */
static int edge_before(double d2, int64_t a, int64_t b, double f2, int64_t c, int64_t e)
{
    int64_t lo1 = a < b ? a : b, hi1 = a < b ? b : a;
    int64_t lo2 = c < e ? c : e, hi2 = c < e ? e : c;
    if (d2 != f2)
        return d2 < f2;
    if (lo1 != lo2)
        return lo1 < lo2;
    return hi1 < hi2;
}

static int cmp_edge(const gridemst_edge *a, const gridemst_edge *b)
{
    if (a->w != b->w)
        return a->w < b->w ? -1 : 1;
    if (a->u != b->u)
        return a->u < b->u ? -1 : 1;
    if (a->v != b->v)
        return a->v < b->v ? -1 : 1;
    return 0;
}

static int cmp_edge_void(const void *a, const void *b)
{
    return cmp_edge(a, b);
}

void gemst_edges_sort(gridemst_edge *edges, int64_t m)
{
    qsort(edges, (size_t)m, sizeof *edges, cmp_edge_void);
}

/* An edge and its squared length, sorted together. */
typedef struct {
    gridemst_edge e;
    double d2;
} edge_d2;

static int cmp_edge_d2(const void *a, const void *b)
{
    return cmp_edge(&((const edge_d2 *)a)->e, &((const edge_d2 *)b)->e);
}

/* Prim on the working points w (scale: working units per caller unit),
 * with core2 (squared core distances in working units) the mutual
 * reachability: the greatest of the squared distance and the ends' core2. */
static double prim_on(const double *w, double scale, int64_t n, int dim, gridemst_precision precision,
                      const double *core2, gridemst_edge *edges, double *d2_out)
{
    double *best = malloc(sizeof *best * (size_t)n);
    int64_t *from = malloc(sizeof *from * (size_t)n);
    char *done = calloc((size_t)n, 1);
    edge_d2 *tree = malloc(sizeof *tree * (size_t)(n - 1));
    double total = -1.0;
    if (!best || !from || !done || !tree)
        goto out;
    for (int64_t i = 0; i < n; i++) {
        best[i] = INFINITY;
        from[i] = -1;
    }
    total = 0.0;
    int64_t cur = 0;
    done[0] = 1;
    for (int64_t k = 1; k < n; k++) {
        int64_t next = -1;
        for (int64_t i = 0; i < n; i++) {
            if (done[i])
                continue;
            double d2 = dist2(w, dim, precision, cur, i);
            if (core2)
                d2 = fmax(d2, fmax(core2[cur], core2[i]));
            if (from[i] < 0 || edge_before(d2, cur, i, best[i], from[i], i)) {
                best[i] = d2;
                from[i] = cur;
            }
            if (next < 0 || edge_before(best[i], from[i], i, best[next], from[next], next))
                next = i;
        }
        done[next] = 1;
        edge_d2 *t = &tree[k - 1];
        t->e.u = from[next] < next ? from[next] : next;
        t->e.v = from[next] < next ? next : from[next];
        t->e.w = sqrt(best[next]) / scale;
        t->d2 = best[next];
        total += t->e.w;
        cur = next;
    }
    qsort(tree, (size_t)(n - 1), sizeof *tree, cmp_edge_d2);
    for (int64_t k = 0; k < n - 1; k++) {
        if (edges)
            edges[k] = tree[k].e;
        if (d2_out)
            d2_out[k] = tree[k].d2;
    }
out:
    free(best);
    free(from);
    free(done);
    free(tree);
    return total;
}

double gemst_prim_working(const void *coords, gridemst_dtype dtype, int64_t n, int dim, gridemst_precision precision,
                          gridemst_edge *edges, double *d2_out)
{
    if (n < 2)
        return 0.0;
    double scale;
    double *w = working_points(coords, dtype, n, dim, precision, &scale);
    double total = !w ? -1.0 : isnan(scale) ? NAN : prim_on(w, scale, n, dim, precision, NULL, edges, d2_out);
    free(w);
    return total;
}

/* For each point the k-th smallest of its squared distances to all n
 * working points, itself (0) and its duplicates included. */
static int core_distances(const double *w, int64_t n, int dim, gridemst_precision precision, int64_t k, double *core2)
{
    double *near = malloc(sizeof *near * (size_t)(k > 0 ? k : 1)); /* the k smallest so far, ascending */
    if (!near)
        return -1;
    for (int64_t a = 0; a < n; a++) {
        int64_t held = 0;
        for (int64_t b = 0; b < n; b++) {
            double d2 = dist2(w, dim, precision, a, b);
            if (held == k && d2 >= near[k - 1])
                continue;
            int64_t at = held < k ? held++ : k - 1;
            for (; at > 0 && near[at - 1] > d2; at--)
                near[at] = near[at - 1];
            near[at] = d2;
        }
        core2[a] = k > 0 && held == k ? near[k - 1] : 0.0;
    }
    free(near);
    return 0;
}

double gemst_prim_mr_reference(const void *coords, gridemst_dtype dtype, int64_t n, int dim, int64_t min_samples,
                               gridemst_edge *edges)
{
    if (min_samples < 2 || n < 2)
        return gemst_prim_reference(coords, dtype, n, dim, edges);
    double scale;
    double *w = working_points(coords, dtype, n, dim, GRIDEMST_PRECISION_DOUBLE, &scale);
    double *core2 = malloc(sizeof *core2 * (size_t)n);
    double total = -1.0;
    if (w && core2 && core_distances(w, n, dim, GRIDEMST_PRECISION_DOUBLE, min_samples, core2) == 0)
        total = prim_on(w, scale, n, dim, GRIDEMST_PRECISION_DOUBLE, core2, edges, NULL);
    free(w);
    free(core2);
    return total;
}

double gemst_prim_dist2(const void *coords, gridemst_dtype dtype, int dim, gridemst_precision precision,
                        const double lo[3], double scale, int64_t a, int64_t b)
{
    double w[6];
    for (int d = 0; d < dim; d++) {
        w[d] = gemst_prim_working_coord(coords, dtype, dim, precision, lo, scale, a, d);
        w[dim + d] = gemst_prim_working_coord(coords, dtype, dim, precision, lo, scale, b, d);
    }
    return dist2(w, dim, precision, 0, 1);
}

double gemst_prim_length(const void *coords, gridemst_dtype dtype, int dim, double scale, int64_t a, int64_t b)
{
    const double origin[3] = {0, 0, 0};
    return sqrt(gemst_prim_dist2(coords, dtype, dim, GRIDEMST_PRECISION_DOUBLE, origin, scale, a, b)) / scale;
}

double gemst_prim_reference(const void *coords, gridemst_dtype dtype, int64_t n, int dim, gridemst_edge *edges)
{
    return gemst_prim_working(coords, dtype, n, dim, GRIDEMST_PRECISION_DOUBLE, edges, NULL);
}
