#include "tools/prim.h"

#include <math.h>
#include <stdlib.h>

static double coord(const void *coords, gridemst_dtype dtype, int64_t i, int dim, int d)
{
    if (dtype == GRIDEMST_FLOAT32)
        return (double)((const float *)coords)[i * dim + d];
    return ((const double *)coords)[i * dim + d];
}

static double dist2(const void *coords, gridemst_dtype dtype, int dim, int64_t a, int64_t b)
{
    double s = 0.0;
    for (int d = 0; d < dim; d++) {
        double t = coord(coords, dtype, a, dim, d) - coord(coords, dtype, b, dim, d);
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

static int cmp_edge(const void *pa, const void *pb)
{
    const gridemst_edge *a = pa, *b = pb;
    if (a->w != b->w)
        return a->w < b->w ? -1 : 1;
    if (a->u != b->u)
        return a->u < b->u ? -1 : 1;
    if (a->v != b->v)
        return a->v < b->v ? -1 : 1;
    return 0;
}

void gemst_edges_sort(gridemst_edge *edges, int64_t m)
{
    qsort(edges, (size_t)m, sizeof *edges, cmp_edge);
}

/* Prim's algorithm on the complete graph whose squared edge lengths are the
 * squared distances, or with core2 (squared core distances) the mutual
 * reachabilities: the greatest of the squared distance and the ends'. */
static double prim(const void *coords, gridemst_dtype dtype, int64_t n, int dim, const double *core2,
                   gridemst_edge *edges)
{
    if (n < 2)
        return 0.0;
    double *best = malloc(sizeof *best * (size_t)n);
    int64_t *from = malloc(sizeof *from * (size_t)n);
    char *done = calloc((size_t)n, 1);
    if (!best || !from || !done) {
        free(best);
        free(from);
        free(done);
        return -1.0;
    }
    for (int64_t i = 0; i < n; i++) {
        best[i] = INFINITY;
        from[i] = -1;
    }
    double total = 0.0;
    int64_t cur = 0;
    done[0] = 1;
    for (int64_t k = 1; k < n; k++) {
        int64_t next = -1;
        for (int64_t i = 0; i < n; i++) {
            if (done[i])
                continue;
            double d2 = dist2(coords, dtype, dim, cur, i);
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
        double w = sqrt(best[next]);
        total += w;
        if (edges) {
            edges[k - 1].u = from[next] < next ? from[next] : next;
            edges[k - 1].v = from[next] < next ? next : from[next];
            edges[k - 1].w = w;
        }
        cur = next;
    }
    if (edges)
        gemst_edges_sort(edges, n - 1);
    free(best);
    free(from);
    free(done);
    return total;
}

double gemst_prim_reference(const void *coords, gridemst_dtype dtype, int64_t n, int dim, gridemst_edge *edges)
{
    return prim(coords, dtype, n, dim, NULL, edges);
}

int gemst_core_reference(const void *coords, gridemst_dtype dtype, int64_t n, int dim, int64_t k, double *core2)
{
    double *near = malloc(sizeof *near * (size_t)(k > 0 ? k : 1)); /* the k smallest so far, ascending */
    if (!near)
        return -1;
    for (int64_t a = 0; a < n; a++) {
        int64_t held = 0;
        for (int64_t b = 0; b < n; b++) {
            double d2 = dist2(coords, dtype, dim, a, b);
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
    if (min_samples < 2)
        return prim(coords, dtype, n, dim, NULL, edges);
    double *core2 = malloc(sizeof *core2 * (size_t)(n > 0 ? n : 1));
    if (!core2 || gemst_core_reference(coords, dtype, n, dim, min_samples, core2) != 0) {
        free(core2);
        return -1.0;
    }
    double total = prim(coords, dtype, n, dim, core2, edges);
    free(core2);
    return total;
}
