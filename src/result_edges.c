#include "result_edges.h"

#include <math.h>
#include <stdlib.h>

#include "host_array.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* The fewest edges per thread. */
#define GEMST_EDGE_BLOCK 65536

static int threads_for(int64_t m, int threads)
{
#ifdef _OPENMP
    if (threads < 1)
        threads = omp_get_max_threads();
#else
    threads = 1;
#endif
    int64_t useful = m / GEMST_EDGE_BLOCK + 1;
    return useful < threads ? (int)useful : threads;
}

gridemst_edge *gemst_edges_alloc(int64_t m, int threads)
{
    gridemst_edge *edges = gemst_host_array(sizeof *edges * (size_t)m);
    if (edges)
        gemst_host_touch(edges, sizeof *edges * (size_t)m, threads_for(m, threads));
    return edges;
}

void gemst_edges_from_tree(const gemst_tree *tree, gridemst_edge *out, int threads)
{
#pragma omp parallel for num_threads(threads_for(tree->n_edges, threads)) schedule(static)
    for (int64_t e = 0; e < tree->n_edges; e++) {
        out[e].u = tree->lo[e];
        out[e].v = tree->hi[e];
        out[e].w = sqrt(tree->d2[e]) / tree->scale;
    }
}

/* The sum of group g of GEMST_TOTAL_GROUP values among count, added in
 * order; the values are at base, stride bytes apart. */
static double group_sum(const char *base, size_t stride, int64_t count, int64_t g)
{
    int64_t end = (g + 1) * GEMST_TOTAL_GROUP < count ? (g + 1) * GEMST_TOTAL_GROUP : count;
    double s = 0.0;
    for (int64_t e = g * GEMST_TOTAL_GROUP; e < end; e++)
        s += *(const double *)(base + (size_t)e * stride);
    return s;
}

/* The levels from count values at base, stride bytes apart, each summed
 * by groups into part[level & 1], until one is left. */
static void total_from(const char *base, size_t stride, int64_t count, int threads, double *part[2],
                       double *total)
{
    int64_t groups = (count + GEMST_TOTAL_GROUP - 1) / GEMST_TOTAL_GROUP;
    for (int level = 0;; level++) {
        double *out = part[level & 1];
#pragma omp parallel for num_threads(threads_for(count, threads)) schedule(static)
        for (int64_t g = 0; g < groups; g++)
            out[g] = group_sum(base, stride, count, g);
        if (groups == 1) {
            *total = out[0];
            return;
        }
        base = (const char *)out;
        stride = sizeof *out;
        count = groups;
        groups = (count + GEMST_TOTAL_GROUP - 1) / GEMST_TOTAL_GROUP;
    }
}

int gemst_edges_total(const gridemst_edge *edges, int64_t m, int threads, double *total)
{
    *total = 0.0;
    if (m == 0)
        return 0;
    int64_t groups = (m + GEMST_TOTAL_GROUP - 1) / GEMST_TOTAL_GROUP;
    double *part[2] = {malloc(sizeof(double) * (size_t)groups),
                       malloc(sizeof(double) * (size_t)(groups / GEMST_TOTAL_GROUP + 1))};
    const int rc = part[0] && part[1] ? 0 : -1;
    if (rc == 0)
        total_from((const char *)&edges[0].w, sizeof *edges, m, threads, part, total);
    free(part[0]);
    free(part[1]);
    return rc;
}

int gemst_group_sums_total(const double *sums, int64_t groups, int threads, double *total)
{
    *total = groups == 1 ? sums[0] : 0.0;
    if (groups <= 1)
        return 0;
    const int64_t above = (groups + GEMST_TOTAL_GROUP - 1) / GEMST_TOTAL_GROUP;
    double *part[2] = {malloc(sizeof(double) * (size_t)above),
                       malloc(sizeof(double) * (size_t)(above / GEMST_TOTAL_GROUP + 1))};
    const int rc = part[0] && part[1] ? 0 : -1;
    if (rc == 0)
        total_from((const char *)sums, sizeof *sums, groups, threads, part, total);
    free(part[0]);
    free(part[1]);
    return rc;
}

static int cmp_endpoints(const void *pa, const void *pb)
{
    const gridemst_edge *a = pa, *b = pb;
    if (a->u != b->u)
        return a->u < b->u ? -1 : 1;
    return (a->v > b->v) - (a->v < b->v);
}

/* Sorts by (u, v) each run of equal w that is not in that order already. */
static void sort_equal_lengths(gridemst_edge *edges, int64_t m)
{
    int64_t run = 0;
    for (int64_t e = 1; e <= m; e++) {
        if (e < m && edges[e].w == edges[run].w)
            continue;
        int sorted = 1;
        for (int64_t k = run + 1; k < e && sorted; k++)
            sorted = cmp_endpoints(&edges[k - 1], &edges[k]) < 0;
        if (!sorted)
            qsort(edges + run, (size_t)(e - run), sizeof *edges, cmp_endpoints);
        run = e;
    }
}

/* The backends sort by squared length (the CUDA one by (d2, lo, hi)); runs
 * of equal w, from equal squared lengths or from squared lengths a few
 * units in the last place apart with the same square root, are put in
 * (u, v) order here to give the promised (w, u, v) order.  A parallel look
 * for a pair out of order comes first: from the CUDA backend there is
 * rarely one. */
void gemst_edges_order_ties(gridemst_edge *edges, int64_t m, int threads)
{
    int out_of_order = 0;
#pragma omp parallel for num_threads(threads_for(m, threads)) schedule(static) reduction(| : out_of_order)
    for (int64_t e = 1; e < m; e++)
        out_of_order |= edges[e].w == edges[e - 1].w && cmp_endpoints(&edges[e - 1], &edges[e]) > 0;
    if (out_of_order)
        sort_equal_lengths(edges, m);
}

int gemst_finish_host_tree(gemst_tree *tree, int threads, gridemst_error *err)
{
    tree->edges = gemst_edges_alloc(tree->n_edges, threads);
    if (!tree->edges)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for %lld result edges",
                          (long long)tree->n_edges);
    gemst_edges_from_tree(tree, tree->edges, threads);
    gemst_edges_order_ties(tree->edges, tree->n_edges, threads);
    if (gemst_edges_total(tree->edges, tree->n_edges, threads, &tree->total_weight) != 0)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory summing the tree");
    tree->finished = 1;
    return GRIDEMST_OK;
}
