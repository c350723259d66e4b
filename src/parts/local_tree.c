/*
 * Step 3 of a partitioned solve: each part's own tree, by the CPU solver
 * (the virtual parts, in turn) or by the CUDA solver on the part's device
 * (devices.h: every part at once, one host thread per device, from the
 * part's points that the partition left on the device; the tree stays
 * there, device_assemble.h).  The solver
 * works in the whole set's frame (gemst_problem.frame), so that it computes
 * every distance as a single solve over all the points does, and the
 * part's points are numbered in the order of their ids, so that its ties
 * between equal lengths fall as the whole set's do.  The tree is then the
 * minimum spanning tree of the part's points under the whole set's edge
 * order.
 */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "host_array.h"
#include "nns/index_choice.h"
#include "parts/border.h"
#include "parts/device_assemble.h"
#include "parts/parts.h"

static int cmp_edge(const void *a, const void *b)
{
    const gemst_parts_edge *x = a, *y = b;
    return gemst_parts_edge_less(x, y) ? -1 : gemst_parts_edge_less(y, x);
}

/* The solver's tree (sorted by length) as the part's edges, each run of
 * equal lengths in (lo, hi) order.  Each thread takes the runs that start
 * in its share of the tree, and finds them in tree->d2, which the sort of
 * another thread's run leaves alone. */
static void tree_edges(const gemst_parts_ctx *c, const gemst_tree *tree, gemst_parts_edge *e)
{
    const int64_t m = tree->n_edges;
    const double *d2 = tree->d2;
    const int threads = gemst_parts_threads(c, m);
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t k = 0; k < m; k++)
        e[k] = (gemst_parts_edge){d2[k], tree->lo[k], tree->hi[k]};
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int t = 0; t < threads; t++)
        for (int64_t run = m * t / threads, to = m * (t + 1) / threads; run < to;) {
            int64_t k = run + 1;
            while (k < m && d2[k] == d2[run])
                k++;
            if ((run == 0 || d2[run - 1] != d2[run]) && k - run > 1)
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
    if (st->peak_device_bytes > sum->peak_device_bytes)
        sum->peak_device_bytes = st->peak_device_bytes;
    sum->device_bytes_reserved += st->device_bytes_reserved;
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
    sum->time_ms.upload += st->time_ms.upload;
    sum->time_ms.download += st->time_ms.download;
    sum->time_ms.grid += st->time_ms.grid;
    sum->time_ms.findmin1 += st->time_ms.findmin1;
    sum->time_ms.prepare += st->time_ms.prepare;
    sum->time_ms.findmin2 += st->time_ms.findmin2;
    sum->time_ms.merge += st->time_ms.merge;
    sum->time_ms.edges += st->time_ms.edges;
}

/* A part's own box can be much larger than its points' share of the
 * space: a range of keys fills a union of cells that may leave most of its
 * bounding box empty.  Measured against that box, points spread evenly
 * over the whole set would look crowded, and each part would search the
 * BVH where a single solve searches the grid. */
int gemst_parts_choose_index(gemst_parts_ctx *c, gridemst_stats *st, gridemst_error *err)
{
    const gemst_problem *pb = c->pb;
    c->nns = pb->opt.nns;
    if (c->nns != GRIDEMST_NNS_AUTO)
        return GRIDEMST_OK;
    if (c->xchg.devices && pb->n < GEMST_INDEX_SMALL_SET) { /* the GPU's small sets: nothing measured */
        c->nns = GRIDEMST_NNS_BVH;
        return GRIDEMST_OK;
    }
    gemst_problem whole = *pb;
    whole.frame = &c->frame;
    int cpu_bvh;
    const int rc = gemst_cpu_choose_index(&whole, c->threads, &cpu_bvh, &st->density_contrast, err);
    if (rc != GRIDEMST_OK)
        return rc;
    /* on devices, the GPU's rule (cuda_index_choice.cuh) on the same measure */
    const int bvh = c->xchg.devices ? gemst_index_prefers_bvh(st->density_contrast) : cpu_bvh;
    c->nns = bvh ? GRIDEMST_NNS_BVH : GRIDEMST_NNS_GRID;
    return GRIDEMST_OK;
}

/* The solver on one part's points (at least 2): the CPU backend's, or
 * the CUDA backend's on the part's device. */
static int solve_part(const gemst_parts_ctx *c, int p, const gemst_part *part, gemst_tree *tree,
                      gridemst_stats *st, gridemst_error *err)
{
    gemst_problem lp = *c->pb;
    lp.coords = part->coords;
    lp.n = part->n;
    lp.frame = &c->frame;
    lp.opt.progress = NULL; /* the partitioned solve reports its own phases */
    lp.opt.nns = c->nns;
    if (c->nns == GRIDEMST_NNS_BVH)
        lp.opt.tuning.prune = GRIDEMST_PRUNE_NONE; /* the grid's pruning does not apply */
    if (!c->xchg.devices)
        return gemst_cpu_solve(&lp, tree, st, err);
#ifdef GRIDEMST_HAVE_CUDA
    lp.ctx = gemst_devices_context(c->xchg.devices, p);
    lp.coords = gemst_devices_part_coords(c->xchg.devices, p); /* left there by the partition */
    lp.on_device = 1;
    lp.opt.device = lp.ctx->device;
    lp.opt.n_devices = 0;
    lp.opt.devices = NULL;
    lp.opt.threads = c->threads;
    lp.raw_tree = 1; /* the tree stays on the device, where the part's later steps read it (device_assemble.h) */
    return gemst_cuda_solve(&lp, tree, st, err);
#else
    (void)p;
    return gemst_fail(err, GRIDEMST_ERR_INTERNAL, "a part on a device in a build without CUDA");
#endif
}

/* Part p's tree, and its solver's statistics into *st. */
static int part_tree(const gemst_parts_ctx *c, int p, gemst_part *part, gridemst_stats *st, gridemst_error *err)
{
    memset(st, 0, sizeof *st);
    st->nns = c->nns;
    st->prune = c->nns == GRIDEMST_NNS_BVH ? GRIDEMST_PRUNE_NONE : c->pb->opt.tuning.prune;
    if (part->n < 2) {
        st->n_unique = part->n;
        st->late_bvh_iteration = -1;
        return GRIDEMST_OK;
    }
    gemst_tree tree;
    memset(&tree, 0, sizeof tree);
    int rc = solve_part(c, p, part, &tree, st, err);
    if (rc == GRIDEMST_OK && tree.part_edges) {
        part->n_tree = tree.n_edges;
        rc = gemst_devices_keep_tree(c->xchg.devices, p, tree.part_edges, tree.n_edges, &part->device_tree, err);
        gemst_tree_free(&tree);
        return rc;
    }
    if (rc == GRIDEMST_OK) {
        part->n_tree = tree.n_edges;
        part->tree = gemst_host_array(sizeof *part->tree * (size_t)(tree.n_edges > 0 ? tree.n_edges : 1));
        if (!part->tree)
            rc = gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for a part's tree of %lld edges",
                            (long long)tree.n_edges);
    }
    if (rc == GRIDEMST_OK) {
        const double t0 = gemst_now_ms();
        tree_edges(c, &tree, part->tree);
        st->partitions.tree_edges_ms = gemst_now_ms() - t0;
    }
    gemst_tree_free(&tree);
    return rc;
}

/* The parts on devices, all at once: a host thread per device (each
 * solve holds its device's context, which allows one solve at a time). */
typedef struct {
    gemst_part *parts;
    gridemst_stats *st;
} device_trees;

static int device_tree(const gemst_parts_ctx *c, int p, void *arg, gridemst_error *err)
{
    device_trees *t = arg;
    return part_tree(c, p, &t->parts[p], &t->st[p], err);
}

int gemst_parts_local_trees(const gemst_parts_ctx *c, gemst_part *parts, gridemst_stats *sum, gridemst_error *err)
{
    const int P = c->parts;
    gridemst_stats *st = calloc((size_t)P, sizeof *st);
    if (!st)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory");
    device_trees t = {parts, st};
    int status = c->xchg.devices ? gemst_parts_each_device(c, device_tree, &t, err) : GRIDEMST_OK;
    for (int p = 0; p < P && status == GRIDEMST_OK; p++) {
        /* on the CPU each part in turn, which the progress callback may stop */
        if (!c->xchg.devices)
            status = part_tree(c, p, &parts[p], &st[p], err);
        if (status != GRIDEMST_OK)
            break;
        add_stats(sum, &st[p], parts[p].n);
        /* the CPU's parts in turn (on devices the trees stay there: 0) */
        sum->partitions.tree_edges_ms += st[p].partitions.tree_edges_ms;
        status = gemst_progress(&c->pb->opt, "local tree", p + 1, parts[p].n, err);
    }
    free(st);
    return status;
}

gemst_frame gemst_parts_working_frame(const gemst_parts_ctx *c)
{
    gemst_frame f = c->frame;
    for (int d = 0; d < 3; d++)
        f.origin[d] = 0.0;
    f.scale = 1.0;
    return f;
}

void gemst_parts_border_problem(const gemst_parts_ctx *c, const gemst_frame *frame, gemst_problem *lp)
{
    *lp = *c->pb;
    lp->dtype = GRIDEMST_FLOAT64;
    lp->frame = frame;
    lp->opt.progress = NULL;
    lp->opt.nns = GRIDEMST_NNS_AUTO; /* the points near the borders are a set of their own shape */
#ifdef GRIDEMST_HAVE_CUDA
    if (c->xchg.devices) {
        lp->ctx = gemst_devices_context(c->xchg.devices, 0);
        lp->opt.device = lp->ctx->device;
        lp->opt.n_devices = 0;
        lp->opt.devices = NULL;
        lp->opt.threads = c->threads;
    }
#endif
}

/* The solver on n points (at least 2) of working coordinates in host
 * memory, its tree into *tree (malloc'd, the edge order). */
static int solve_working(const gemst_parts_ctx *c, const double *coords, int64_t n, gemst_parts_edge **out,
                         gridemst_error *err)
{
    const gemst_frame frame = gemst_parts_working_frame(c);
    gemst_problem lp;
    gemst_parts_border_problem(c, &frame, &lp);
    lp.coords = coords;
    lp.n = n;
    gemst_tree tree;
    memset(&tree, 0, sizeof tree);
    *out = malloc(sizeof **out * (size_t)(n - 1));
    gridemst_stats st;
    memset(&st, 0, sizeof st);
    int rc = *out ? GRIDEMST_OK
                  : gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for a tree of %lld points",
                               (long long)n);
    if (rc == GRIDEMST_OK && !c->xchg.devices) {
        rc = gemst_cpu_solve(&lp, &tree, &st, err);
        if (rc == GRIDEMST_OK)
            tree_edges(c, &tree, *out);
    }
#ifdef GRIDEMST_HAVE_CUDA
    if (rc == GRIDEMST_OK && c->xchg.devices) {
        lp.raw_tree = 1;
        rc = gemst_cuda_solve(&lp, &tree, &st, err);
        if (rc == GRIDEMST_OK)
            rc = gemst_devices_take_edges(c->xchg.devices, 0, tree.part_edges, tree.n_edges, *out, c->threads, err);
    }
#endif
    gemst_tree_free(&tree);
    if (rc != GRIDEMST_OK) {
        free(*out);
        *out = NULL;
    }
    return rc;
}

int gemst_parts_solve_working(const gemst_parts_ctx *c, const double *w, int64_t n, gemst_parts_edge **tree,
                              int64_t *n_tree, gridemst_error *err)
{
    *tree = NULL;
    *n_tree = 0;
    if (n < 2)
        return GRIDEMST_OK;
    const int dim = c->metric.dim;
    double *coords = NULL; /* in 2D, w without its third coordinate */
    if (dim != 3) {
        if (!(coords = malloc(sizeof *coords * (size_t)dim * (size_t)n)))
            return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for %lld points", (long long)n);
#pragma omp parallel for num_threads(gemst_parts_threads(c, n)) schedule(static)
        for (int64_t i = 0; i < n; i++)
            for (int d = 0; d < dim; d++)
                coords[i * dim + d] = w[3 * i + d];
    }
    const int rc = solve_working(c, dim == 3 ? w : coords, n, tree, err);
    free(coords);
    if (rc == GRIDEMST_OK)
        *n_tree = n - 1;
    return rc;
}
