/*
 * Step 3 of a partitioned solve: a part's own tree, by the CPU solver.  The
 * solver works in the whole set's frame (gemst_problem.frame), so that it
 * computes every distance as a single solve over all the points does, and
 * the part's points are numbered in the order of their ids, so that its
 * ties between equal lengths fall as the whole set's do.  The tree is then
 * the minimum spanning tree of the part's points under the whole set's edge
 * order.
 */
#include <stdlib.h>
#include <string.h>

#include "parts/parts.h"

static int cmp_edge(const void *a, const void *b)
{
    const gemst_parts_edge *x = a, *y = b;
    return gemst_parts_edge_less(x, y) ? -1 : gemst_parts_edge_less(y, x);
}

/* The solver sorts its tree by length: each run of equal lengths into
 * (lo, hi) order. */
static void order_ties(gemst_parts_edge *e, int64_t m)
{
    for (int64_t run = 0, k = 1; k <= m; k++)
        if (k == m || e[k].d2 != e[run].d2) {
            if (k - run > 1)
                qsort(e + run, (size_t)(k - run), sizeof *e, cmp_edge);
            run = k;
        }
}

/* The counts of one part's solve (of n points) added to the whole's; the
 * index and the grid's plan are the largest part's, the late BVH's
 * iteration the latest. */
static void add_stats(gridemst_stats *sum, const gridemst_stats *st, int64_t n)
{
    if (n == sum->partitions.largest_part) {
        sum->nns = st->nns;
        sum->prune = st->prune;
        sum->cell_side = st->cell_side;
        sum->cell_occupancy = st->cell_occupancy;
        sum->crowded_cell = st->crowded_cell;
    }
    if (st->late_bvh_iteration > sum->late_bvh_iteration)
        sum->late_bvh_iteration = st->late_bvh_iteration;
    sum->threads = st->threads > sum->threads ? st->threads : sum->threads;
    sum->n_unique += st->n_unique;
    sum->n_duplicates += st->n_duplicates;
    sum->cells += st->cells;
    sum->crowded_cells += st->crowded_cells;
    sum->nested_cells += st->nested_cells;
    sum->block_points += st->block_points;
    sum->fallback_searches += st->fallback_searches;
    sum->time_ms.grid += st->time_ms.grid;
    sum->time_ms.findmin1 += st->time_ms.findmin1;
    sum->time_ms.prepare += st->time_ms.prepare;
    sum->time_ms.findmin2 += st->time_ms.findmin2;
    sum->time_ms.merge += st->time_ms.merge;
    sum->time_ms.edges += st->time_ms.edges;
}

int gemst_part_local_tree(const gemst_parts_ctx *c, gemst_part *part, gridemst_stats *sum, gridemst_error *err)
{
    if (part->n < 2) {
        sum->n_unique += part->n;
        return GRIDEMST_OK;
    }
    gemst_problem lp = *c->pb;
    lp.coords = part->coords;
    lp.n = part->n;
    lp.frame = &c->frame;
    lp.opt.progress = NULL; /* the partitioned solve reports its own phases */
    gemst_tree tree;
    gridemst_stats st;
    memset(&tree, 0, sizeof tree);
    memset(&st, 0, sizeof st);
    int rc = gemst_cpu_solve(&lp, &tree, &st, err);
    if (rc == GRIDEMST_OK) {
        part->n_tree = tree.n_edges;
        part->tree = malloc(sizeof *part->tree * (size_t)(tree.n_edges > 0 ? tree.n_edges : 1));
        if (!part->tree)
            rc = gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for a part's tree of %lld edges",
                            (long long)tree.n_edges);
    }
    if (rc == GRIDEMST_OK) {
        for (int64_t k = 0; k < tree.n_edges; k++)
            part->tree[k] = (gemst_parts_edge){tree.d2[k], tree.lo[k], tree.hi[k]};
        order_ties(part->tree, part->n_tree);
        add_stats(sum, &st, part->n);
    }
    gemst_tree_free(&tree);
    return rc;
}
