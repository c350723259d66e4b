#include "tools/tree_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/prim.h"

double gemst_tree_tolerance(int dim, gridemst_precision precision, double float_scale, double w)
{
    if (precision == GRIDEMST_PRECISION_DOUBLE)
        return 0.0;
    return (sqrt((double)dim) * 0x1p-24 + 0x1p-62) / float_scale + (dim + 3) * (0x1p-24 + 0x1p-53) * w;
}

/* Why the tree failed, into out->reason; returns 0 (failed). */
#define FAIL(out, ...) (snprintf((out)->reason, sizeof (out)->reason, __VA_ARGS__), 0)

/* e precedes f in the (w, u, v) order of the result. */
static int edge_before(const gridemst_edge *e, const gridemst_edge *f)
{
    if (e->w != f->w)
        return e->w < f->w;
    return e->u != f->u ? e->u < f->u : e->v < f->v;
}

static int64_t find_root(int64_t *parent, int64_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]]; /* path halving */
        x = parent[x];
    }
    return x;
}

/* n - 1 edges u < v between point ids, in (w, u, v) order, with no cycle:
 * one spanning tree.  parent: n entries of scratch. */
static int check_shape(const gridemst_edge *edges, int64_t m, int64_t n, int64_t *parent, gemst_tree_check *out)
{
    int64_t expected = n < 2 ? 0 : n - 1;
    if (m != expected)
        return FAIL(out, "%lld edges for %lld points, expected %lld", (long long)m, (long long)n,
                    (long long)expected);
    for (int64_t i = 0; i < n; i++)
        parent[i] = i;
    for (int64_t k = 0; k < m; k++) {
        const gridemst_edge *e = &edges[k];
        if (!(e->u >= 0 && e->u < e->v && e->v < n))
            return FAIL(out, "edge %lld (%lld, %lld) is not a pair u < v of point ids", (long long)k,
                        (long long)e->u, (long long)e->v);
        if (k > 0 && !edge_before(&edges[k - 1], e))
            return FAIL(out, "edges %lld and %lld are not in (w, u, v) order", (long long)k - 1, (long long)k);
        int64_t ru = find_root(parent, e->u), rv = find_root(parent, e->v);
        if (ru == rv)
            return FAIL(out, "edge %lld (%lld, %lld) closes a cycle", (long long)k, (long long)e->u,
                        (long long)e->v);
        parent[ru] = rv;
    }
    return 1;
}

/* The reference tree rooted at point 0: each point's parent, depth and
 * the length of the edge to its parent. */
typedef struct {
    int64_t *parent, *depth;
    double *up;
} rooted_tree;

/* Roots the n - 1 edges ref at point 0 (breadth first over an adjacency
 * array); 0 when memory runs out. */
static int root_tree(const gridemst_edge *ref, int64_t n, rooted_tree *t)
{
    int64_t *start = calloc((size_t)n + 1, sizeof *start), *adj = malloc(sizeof *adj * (size_t)(2 * n));
    int64_t *queue = malloc(sizeof *queue * (size_t)n);
    int ok = start && adj && queue;
    for (int64_t k = 0; ok && k < n - 1; k++) {
        start[ref[k].u + 1]++;
        start[ref[k].v + 1]++;
    }
    for (int64_t i = 0; ok && i < n; i++)
        start[i + 1] += start[i];
    for (int64_t k = 0; ok && k < n - 1; k++) { /* start[i] runs ahead, then steps back */
        adj[start[ref[k].u]++] = k;
        adj[start[ref[k].v]++] = k;
    }
    for (int64_t i = n; ok && i > 0; i--)
        start[i] = start[i - 1];
    if (ok)
        start[0] = 0;
    for (int64_t i = 0; ok && i < n; i++)
        t->parent[i] = -1;
    int64_t head = 0, tail = 0;
    if (ok) {
        queue[tail++] = 0;
        t->parent[0] = 0;
        t->depth[0] = 0;
        t->up[0] = 0.0;
    }
    while (ok && head < tail) {
        int64_t x = queue[head++];
        for (int64_t j = start[x]; j < start[x + 1]; j++) {
            const gridemst_edge *e = &ref[adj[j]];
            int64_t y = e->u == x ? e->v : e->u;
            if (t->parent[y] >= 0)
                continue;
            t->parent[y] = x;
            t->depth[y] = t->depth[x] + 1;
            t->up[y] = e->w;
            queue[tail++] = y;
        }
    }
    free(start);
    free(adj);
    free(queue);
    return ok;
}

/* The longest edge on the tree's path between a and b. */
static double path_max(const rooted_tree *t, int64_t a, int64_t b)
{
    double longest = 0.0;
    while (a != b) {
        if (t->depth[a] < t->depth[b]) {
            int64_t s = a;
            a = b;
            b = s;
        }
        longest = fmax(longest, t->up[a]);
        a = t->parent[a];
    }
    return longest;
}

/* Sorted lengths, position by position. */
static int compare_lengths(const gridemst_edge *edges, const gridemst_edge *ref, int64_t m, int dim,
                           gridemst_precision precision, double float_scale, gemst_tree_check *out)
{
    for (int64_t k = 0; k < m; k++) {
        double w = edges[k].w, r = ref[k].w, diff = fabs(w - r);
        double tol = gemst_tree_tolerance(dim, precision, float_scale, fmax(w, r));
        if (w == r)
            diff = 0.0; /* inf == inf */
        out->max_abs_diff = fmax(out->max_abs_diff, diff);
        out->tolerance = fmax(out->tolerance, tol);
        if (!(diff <= tol))
            return FAIL(out, "length %lld is %.17g, the reference's %.17g: |diff| %.3g > tolerance %.3g",
                        (long long)k, w, r, diff, tol);
    }
    return 1;
}

/* Each edge of the tree that the reference tree lacks. */
static int compare_edges(const void *coords, gridemst_dtype dtype, int64_t n, int dim, gridemst_precision precision,
                         double float_scale, const gridemst_edge *edges, const gridemst_edge *ref,
                         gemst_tree_check *out)
{
    rooted_tree t = {malloc(sizeof *t.parent * (size_t)n), malloc(sizeof *t.depth * (size_t)n),
                     malloc(sizeof *t.up * (size_t)n)};
    int rc = t.parent && t.depth && t.up && root_tree(ref, n, &t) ? 1 : -1;
    const double scale = gemst_prim_scale(coords, dtype, n, dim, GRIDEMST_PRECISION_DOUBLE, NULL);
    for (int64_t k = 0; rc == 1 && k < n - 1; k++) {
        const int64_t u = edges[k].u, v = edges[k].v;
        if (t.parent[u] == v || t.parent[v] == u)
            continue;
        if (precision == GRIDEMST_PRECISION_DOUBLE) {
            rc = FAIL(out, "edge %lld (%lld, %lld) is not in the reference tree, which has (%lld, %lld) there",
                      (long long)k, (long long)u, (long long)v, (long long)ref[k].u, (long long)ref[k].v);
            break;
        }
        double d = gemst_prim_length(coords, dtype, dim, scale, u, v), longest = path_max(&t, u, v);
        double tol = gemst_tree_tolerance(dim, precision, float_scale, longest);
        if (!(d <= longest + tol))
            rc = FAIL(out,
                      "edge %lld (%lld, %lld) of reference length %.17g is not in the reference tree, whose path "
                      "between them has no edge longer than %.17g (tolerance %.3g)",
                      (long long)k, (long long)u, (long long)v, d, longest, tol);
    }
    free(t.parent);
    free(t.depth);
    free(t.up);
    return rc;
}

int gemst_check_tree(const void *coords, gridemst_dtype dtype, int64_t n, int dim, gridemst_precision precision,
                     const gridemst_edge *edges, int64_t m, gemst_tree_check *out)
{
    memset(out, 0, sizeof *out);
    const int64_t slots = n > 1 ? n : 1;
    int64_t *parent = malloc(sizeof *parent * (size_t)slots);
    gridemst_edge *ref = malloc(sizeof *ref * (size_t)slots);
    int rc = -1;
    if (parent && ref) {
        out->reference_weight = gemst_prim_working(coords, dtype, n, dim, GRIDEMST_PRECISION_DOUBLE, ref, NULL);
        rc = out->reference_weight < 0.0 ? -1 : check_shape(edges, m, n, parent, out);
    }
    const double float_scale = gemst_prim_scale(coords, dtype, n, dim, GRIDEMST_PRECISION_FLOAT, NULL);
    if (rc == 1)
        rc = compare_lengths(edges, ref, m, dim, precision, float_scale, out);
    if (rc == 1 && n > 1)
        rc = compare_edges(coords, dtype, n, dim, precision, float_scale, edges, ref, out);
    free(parent);
    free(ref);
    return rc;
}

/* Edge k's defect, or 0: not a pair of point ids, out of order after its
 * predecessor, or of another length than its ends' (float_scale, and in
 * double precision double_scale, as gemst_prim_scale gives them). */
static int edge_defect(const void *coords, gridemst_dtype dtype, int64_t n, int dim, gridemst_precision precision,
                       double float_scale, double double_scale, const gridemst_edge *edges, int64_t k)
{
    const gridemst_edge *e = &edges[k];
    if (!(e->u >= 0 && e->u < e->v && e->v < n))
        return 1;
    if (k > 0 && !edge_before(&edges[k - 1], e))
        return 2;
    const double d = gemst_prim_length(coords, dtype, dim, double_scale, e->u, e->v);
    return fabs(e->w - d) <= gemst_tree_tolerance(dim, precision, float_scale, fmax(e->w, d)) ? 0 : 3;
}

int gemst_check_edges(const void *coords, gridemst_dtype dtype, int64_t n, int dim, gridemst_precision precision,
                      const gridemst_edge *edges, int64_t m, gemst_tree_check *out)
{
    memset(out, 0, sizeof *out);
    const int64_t expected = n < 2 ? 0 : n - 1;
    if (m != expected)
        return FAIL(out, "%lld edges for %lld points, expected %lld", (long long)m, (long long)n,
                    (long long)expected);
    const double float_scale = gemst_prim_scale(coords, dtype, n, dim, GRIDEMST_PRECISION_FLOAT, NULL),
                 double_scale = gemst_prim_scale(coords, dtype, n, dim, GRIDEMST_PRECISION_DOUBLE, NULL);
    int64_t first_bad = m;
#pragma omp parallel for schedule(static) reduction(min : first_bad)
    for (int64_t k = 0; k < m; k++)
        if (k < first_bad && edge_defect(coords, dtype, n, dim, precision, float_scale, double_scale, edges, k))
            first_bad = k;
    if (first_bad == m)
        return 1;
    const gridemst_edge *e = &edges[first_bad];
    switch (edge_defect(coords, dtype, n, dim, precision, float_scale, double_scale, edges, first_bad)) {
    case 1:
        return FAIL(out, "edge %lld (%lld, %lld) is not a pair u < v of point ids", (long long)first_bad,
                    (long long)e->u, (long long)e->v);
    case 2:
        return FAIL(out, "edges %lld and %lld are not in (w, u, v) order", (long long)first_bad - 1,
                    (long long)first_bad);
    default:
        return FAIL(out, "edge %lld (%lld, %lld) is %.17g long, its ends %.17g apart", (long long)first_bad,
                    (long long)e->u, (long long)e->v, e->w,
                    gemst_prim_length(coords, dtype, dim, double_scale, e->u, e->v));
    }
}
