/*
 * The partitioned exact solve (options.partitions; docs/partitioned.md):
 * the points are split into P spatial parts, each part's tree is solved on
 * its own, and Boruvka over the components those trees leave at the parts'
 * boundaries finds the edges that cross.  On the CPU the parts are virtual:
 * one process runs every part's steps in turn, and exchange.h stands for
 * the communication between them.  With one part per GPU (devices.h) the
 * partition, the local trees, the contraction and the tree's assembly run
 * on the devices, all at once, and the exchanges over NCCL; the boundary
 * runs on the host.
 *
 * The steps, each a function of one part and of what an exchange gave it:
 *
 *   1. frame       each part's box of its slice of the input; gathered, the
 *                  whole set's working frame (partition.c)
 *   2. partition   a sample sort of the points on Morton keys into P key
 *                  ranges, the parts (partition.c)
 *   3. local tree  the CPU solver on each part, or the CUDA solver on each
 *                  part's device, in the whole set's frame (local_tree.c)
 *   4. contraction each local tree's edges that no crossing edge can
 *                  undercut join its points into safe components
 *                  (contract.c)
 *   5. boundary    Boruvka over the safe components: local candidates,
 *                  searches into halos of other parts' points, merges
 *                  (boundary.c, halo.c)
 *   6. the tree    the safe edges and Boruvka's, sorted (parts_solve.c;
 *                  on the devices, device_assemble.h)
 */
#ifndef GEMST_PARTS_H
#define GEMST_PARTS_H

#include "backend.h"
#include "parts/exchange.h"
#include "parts/gid.h"
#include "parts/point_key.h"

/* The most parts a solve may have: 64, a slice of the input each. */
#define GEMST_MAX_PARTS GEMST_MAX_SLICES

/* An edge within a part: the squared length the solver computes and its
 * ends' numbers in the part (gid.h has the whole set's edges). */
typedef struct gemst_parts_edge {
    double d2;
    uint32_t lo, hi;
} gemst_parts_edge;

/* The edge order (graph/edge_order.h): length, then lo, then hi. */
static inline int gemst_parts_edge_less(const gemst_parts_edge *a, const gemst_parts_edge *b)
{
    if (a->d2 != b->d2)
        return a->d2 < b->d2;
    return a->lo != b->lo ? a->lo < b->lo : a->hi < b->hi;
}

/* The root of x in a union-find forest, halving the path. */
static inline uint32_t gemst_parts_find(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

/* What every part knows alike. */
typedef struct gemst_parts_ctx {
    const gemst_problem *pb;
    int parts;
    int threads;                 /* OpenMP threads of the steps outside the solver */
    gemst_frame frame;           /* the whole set's working frame */
    gridemst_nns nns;            /* the index every part's solve searches (gemst_parts_choose_index) */
    gemst_region_space space;    /* where the frame's keys lie */
    gemst_parts_metric metric;
    gemst_key_range range[GEMST_MAX_PARTS]; /* each part's keys */
    gemst_xchg xchg;
} gemst_parts_ctx;

/* Point i of coords (n * dim values of the caller's type): its working
 * coordinates into w (w[2] = 0 in 2D), and its Morton key. */
static inline uint64_t gemst_parts_point(const gemst_parts_ctx *c, const void *coords, int64_t i, double w[3])
{
    return gemst_parts_key(&c->metric, &c->frame, &c->space, c->pb->dtype, coords, i, w);
}

/* Threads for a loop of `work` items: fewer for small loops, whose
 * threads would cost more to wake than they save. */
static inline int gemst_parts_threads(const gemst_parts_ctx *c, int64_t work)
{
    const int64_t useful = work / 16384 + 1;
    return useful < c->threads ? (int)useful : c->threads;
}

/* One part's share of a step (gemst_parts_each): c's threads are the
 * part's share. */
typedef int (*gemst_part_fn)(const gemst_parts_ctx *c, int p, void *arg, gridemst_error *err);

/* fn(c', p, arg) for every part p at once, with the threads shared among
 * the parts; the first part's failure, by part, is returned. */
int gemst_parts_each(const gemst_parts_ctx *c, gemst_part_fn fn, void *arg, gridemst_error *err);

/* The same with a host thread for every part (a part on a device: the
 * thread that drives it), whatever c's threads. */
int gemst_parts_each_device(const gemst_parts_ctx *c, gemst_part_fn fn, void *arg, gridemst_error *err);

typedef struct gemst_halo gemst_halo;
typedef struct gemst_part_store gemst_part_store;
typedef struct gemst_device_gaps gemst_device_gaps;

/* One part's data.  Points are numbered 0 .. n-1 in the order of their ids. */
typedef struct gemst_part {
    int64_t n;
    gemst_gid *id;            /* ids in the whole set, ascending (NULL where they stay on the part's device) */
    void *coords;             /* the caller's coordinates (the caller's type), until step 4 ends */
    double *w;                /* working coordinates, 3 per point */
    /* step 3: the local tree over the part's point numbers, in the edge order */
    int64_t n_tree;
    gemst_parts_edge *tree;   /* in host memory, or NULL where ... */
    const gemst_parts_edge *device_tree; /* ... it stays on the part's device (device_assemble.h) */
    /* step 4 */
    double *gap;              /* each point's squared distance to other parts' regions */
    uint8_t *safe;            /* each tree edge: 1 when it is in the whole set's tree (NULL: the marks stay on
                                 the part's device with its tree) */
    uint32_t *uncertain;      /* the others (tree positions) */
    int64_t n_uncertain;
    gemst_parts_edge *uncertain_edge; /* the uncertain edges themselves */
    double median_d2;         /* the squared length of the tree's middle edge (0 without edges) */
    uint32_t *comp;           /* each point's safe component (numbered across parts after step 4) */
    uint32_t n_comp;
    uint32_t comp_base;       /* the number of the part's first safe component */
    double *comp_gap;         /* each safe component's smallest gap */
    uint32_t *by_gap;         /* the points by ascending gap */
    double gaps_ms, safe_ms, components_ms; /* the contraction's sub-steps (gridemst_partition_stats) */
    double gaps_alloc_ms, gaps_device_ms, gaps_copy_ms; /* within gaps_ms */
    double contract_copy_ms;  /* on a device: the tree's copy there, the contraction's copies to host memory */
    /* cells: the dyadic cells of one level (the same in every part) that hold the part's points */
    int cell_level;
    int64_t n_cells;
    uint32_t *by_key;         /* step 4: the points in Morton order ... */
    uint32_t *cell_start;     /* ... cell c's from by_key[cell_start[c]] to by_key[cell_start[c + 1]] */
    uint64_t *cell_key;       /* each cell's keys' prefix (gemst_region_cell), ascending */
    uint32_t *cell_of;        /* each point's cell */
    gemst_box *cell_box;      /* the box of each cell's points */
    /* step 4 on a device: the points' arrays left there (device_store.h), until step 5 ends; w, gap, by_gap,
     * cell_of and comp are then NULL in host memory */
    gemst_device_gaps *on_device;
    /* step 5, which reads the part's points only through its store */
    gemst_part_store *store;  /* the points of the smallest gaps (store.h) */
    double *cell_rho;         /* each cell's halo reach (requests.h) */
    gemst_halo *halo;         /* other parts' points near this one */
    uint64_t *cell_sent;      /* per cell: the parts that have all its points in the store */
} gemst_part;

void gemst_part_free(gemst_part *part);

/* Frees the part's points' arrays on its device (on_device; NULL:
 * nothing), which must go before the device's context. */
void gemst_part_free_on_device(gemst_part *part);

/* What every part knows of pb's solve before step 1, with virtual parts
 * (c->xchg.devices NULL). */
void gemst_parts_ctx_init(gemst_parts_ctx *c, const gemst_problem *pb);

/* Steps 1 and 2: c->frame, c->range and each part's points (the
 * partition's steps timed into *ps). */
int gemst_parts_frame(gemst_parts_ctx *c, gridemst_error *err);
int gemst_parts_split(gemst_parts_ctx *c, gemst_part *parts, gridemst_partition_stats *ps, gridemst_error *err);

/* Part p's ids into host memory (part->id), where the partition left them
 * on its device only: for the steps that read them on the host
 * (GRIDEMST_SAFE_EDGES=kruskal); nothing where host memory has them. */
int gemst_parts_ids_to_host(const gemst_parts_ctx *c, int p, gemst_part *part, gridemst_error *err);

/* Sets c->nns: the index the parts' solves search.  nns auto chooses once
 * for the whole set, from a sample of its points in the whole set's frame,
 * as a single solve over them all would on the parts' backend; into
 * st->density_contrast the sample's measure. */
int gemst_parts_choose_index(gemst_parts_ctx *c, gridemst_stats *st, gridemst_error *err);

/* Step 3 for every part, each reported to the progress callback; adds
 * the solvers' statistics to *sum. */
int gemst_parts_local_trees(const gemst_parts_ctx *c, gemst_part *parts, gridemst_stats *sum, gridemst_error *err);

/* Step 4's gaps for part p (gaps.c): its w, gap, by_gap and cells (and the
 * halo's zeroed bookkeeping), in host memory.  Computed on the host's
 * threads (ctx NULL; key: 2 n entries, tmp: n, scratch), or on ctx's
 * device from the part's coordinates there (device_coords), bit for bit
 * the same; then with `keep` not NULL, *keep holds the gaps on the device
 * (device_gaps.h; the caller frees it, also after a failure), and so do
 * the points' arrays (w, gap, by_gap, by_key, cell_of and cell_start stay
 * NULL in host memory; the cells' keys and boxes come there), else they
 * are freed. */
int gemst_part_gaps(const gemst_parts_ctx *c, int p, gemst_part *part, gridemst_context *ctx,
                    const void *device_coords, uint64_t *key, uint32_t *tmp, gemst_device_gaps **keep,
                    gridemst_error *err);

/* Step 4 for one part (p), then the numbering of the safe components
 * across parts.  gemst_part_contract_on runs it on ctx's device from the
 * part's coordinates there (device_coords), or on the host (ctx NULL);
 * gemst_part_contract where c places part p. */
int gemst_part_contract(const gemst_parts_ctx *c, int p, gemst_part *part, gridemst_error *err);
int gemst_part_contract_on(const gemst_parts_ctx *c, int p, gemst_part *part, gridemst_context *ctx,
                           const void *device_coords, gridemst_error *err);
int gemst_parts_number_components(gemst_parts_ctx *c, gemst_part *parts, int64_t *components, gridemst_error *err);

/* Step 5: the edges of the whole set's tree between safe components,
 * n_components - 1 of them, into *edges (malloc'd; ids of the whole set). */
int gemst_parts_boundary(gemst_parts_ctx *c, gemst_part *parts, int64_t n_components, gemst_gid_edge **edges,
                         gridemst_stats *st, gridemst_error *err);

/* The whole solve, for gridemst_solve. */
int gemst_parts_solve(const gemst_problem *pb, gemst_tree *tree, gridemst_stats *stats, gridemst_error *err);

#endif
