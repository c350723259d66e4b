/*
 * The backend interface: what gridemst_solve hands to the CPU or CUDA
 * implementation, and what it gets back.  Both backends run the same
 * algorithm on the same per-point functions and return the identical tree.
 */
#ifndef GEMST_BACKEND_H
#define GEMST_BACKEND_H

#include "common.h"
#include "context.h"
#include "grid/grid_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gemst_problem {
    const void *coords;      /* n * dim interleaved */
    int on_device;           /* coords is device memory (gridemst_solve_device) */
    gridemst_dtype dtype;
    int64_t n;               /* >= 2 */
    int dim;                 /* 2 or 3 */
    gridemst_options opt;    /* checked; backend is CPU or CUDA */
    gridemst_context *ctx;   /* CUDA: the context the solve runs on (opt.device is its device) */
    const gemst_frame *frame; /* the working frame of a whole set, whose part coords are (a
                                 partitioned solve's), so that every part computes the same distances;
                                 NULL: the frame of coords' own bounding box */
    int raw_tree;            /* CUDA, for a partitioned solve's part: leave the tree on the device as
                                the CPU backend gives it (lo, hi, d2, not finished), in
                                gemst_tree.part_edges */
} gemst_problem;

/* The index a solve's stats report until a backend's nns auto chooses (and
 * for sets too small to search): the grid. */
static inline gridemst_nns gemst_index_before_choice(gridemst_nns nns)
{
    return nns == GRIDEMST_NNS_AUTO ? GRIDEMST_NNS_GRID : nns;
}

/* The tree in the caller's ids.  The CPU backend returns lo, hi and d2,
 * sorted by d2 (gridemst_solve then fills `edges`, which it allocated, puts
 * each run of equal lengths in (lo, hi) order and sums the weights).  The
 * CUDA backend does all of that on the device and returns the result's
 * form: `edges` in host memory (allocated by the backend; host_registered
 * when registered with CUDA), or device_edges, with total_weight. */
typedef struct gemst_tree {
    int64_t n_edges;
    uint32_t *lo, *hi;
    double *d2;              /* squared length in working units */
    double scale;            /* working units per caller unit (a power of two) */
    gridemst_edge *edges;    /* owned by gridemst_solve, not freed by gemst_tree_free */
    int host_registered;
    size_t host_capacity;    /* bytes of a registered `edges` */
    gridemst_device_edges device_edges; /* owned by gridemst_solve */
    gemst_device_share *share; /* or the tree's shares on several devices (malloc'd, each holding its
                                  context's reference), owned by gridemst_solve */
    int n_shares;
    void *part_edges;        /* raw_tree: the n_edges edges (gemst_parts_edge, parts/parts.h) in
                                the edge order, in device memory of the solve's context's pool, which
                                the caller frees */
    int finished;            /* edges or device_edges are in final (w, u, v) order */
    double total_weight;     /* when finished */
} gemst_tree;

void gemst_tree_free(gemst_tree *t);

int gemst_cpu_solve(const gemst_problem *pb, gemst_tree *tree, gridemst_stats *stats, gridemst_error *err);
/* Host bytes the CPU backend needs at its peak for pb (coords unused),
 * erring high: what its solve checks against opt.max_host_bytes. */
uint64_t gemst_cpu_host_bytes(const gemst_problem *pb);
uint64_t gemst_cpu_host_bytes_f32(const gemst_problem *pb);
uint64_t gemst_cpu_host_bytes_f64(const gemst_problem *pb);
/* nns auto's measure on the CPU from a sample of pb's points (in
 * pb->frame when given): their density contrast at the grid's scale, and
 * whether the CPU's solve would search the BVH (nns/index_choice.h). */
int gemst_cpu_choose_index(const gemst_problem *pb, int threads, int *bvh, double *contrast, gridemst_error *err);
int gemst_cpu_choose_index_f32(const gemst_problem *pb, int threads, int *bvh, double *contrast, gridemst_error *err);
int gemst_cpu_choose_index_f64(const gemst_problem *pb, int threads, int *bvh, double *contrast, gridemst_error *err);
int gemst_cpu_solve_f32(const gemst_problem *pb, gemst_tree *tree, gridemst_stats *stats, gridemst_error *err);
int gemst_cpu_solve_f64(const gemst_problem *pb, gemst_tree *tree, gridemst_stats *stats, gridemst_error *err);

/* Friends-of-friends (gridemst_fof): the points and options, the linking
 * length in the caller's units, and the periodic box (NULL: open space). */
typedef struct gemst_fof_problem {
    gemst_problem pb;
    double linking_length;
    const double *box;       /* NULL, or the box's side per axis */
} gemst_fof_problem;

/* The minimum spanning forest of the pairs of points within the linking
 * length, in the caller's ids, sorted by d2 as gemst_tree (n_edges: n less
 * the number of groups; `edges` unused). */
int gemst_cpu_fof(const gemst_fof_problem *fp, gemst_tree *forest, gridemst_stats *stats, gridemst_error *err);
int gemst_cpu_fof_f32(const gemst_fof_problem *fp, gemst_tree *forest, gridemst_stats *stats, gridemst_error *err);
int gemst_cpu_fof_f64(const gemst_fof_problem *fp, gemst_tree *forest, gridemst_stats *stats, gridemst_error *err);

/* GRIDEMST_OK, or GRIDEMST_ERR_INVALID_ARGUMENT naming the first bad
 * option (solve.c). */
int gemst_check_options(const gridemst_options *o, gridemst_error *err);

/* GRIDEMST_OK, or the error naming the first bad argument that describes
 * a solve's points: dim 2 or 3, a count from 0 to max_points, coords
 * given when there are points, a known dtype (solve.c). */
int gemst_check_points(const void *coords, gridemst_dtype dtype, int64_t n, int dim, int64_t max_points,
                       gridemst_error *err);

/* labels[i] for n points from the components of the m edges (linkage.c):
 * numbered 0, 1, ... in the order of each component's smallest point,
 * components of fewer than min_size points -1 (noise); *n_labels (may be
 * NULL) receives the numbers used. */
int gemst_label_components(int64_t n, const gridemst_edge *edges, int64_t m, int64_t min_size, int64_t *labels,
                           int64_t *n_labels, gridemst_error *err);

/* Fails unless p is device or managed memory of CUDA device `device`. */
int gemst_cuda_check_device_input(const void *p, int device, gridemst_error *err);
/* Copies bytes of device memory of `device`, which no stream is writing, to
 * host memory. */
int gemst_cuda_copy_to_host(int device, const void *d_src, void *dst, size_t bytes, gridemst_error *err);
/* Copies bytes of device memory to host memory on the options' stream. */
int gemst_cuda_download(const gridemst_options *opt, const void *d_src, void *dst, size_t bytes, gridemst_error *err);

int gemst_cuda_solve(const gemst_problem *pb, gemst_tree *tree, gridemst_stats *stats, gridemst_error *err);
int gemst_cuda_solve_f32(const gemst_problem *pb, gemst_tree *tree, gridemst_stats *stats, gridemst_error *err);
int gemst_cuda_solve_f64(const gemst_problem *pb, gemst_tree *tree, gridemst_stats *stats, gridemst_error *err);

/* Friends-of-friends on the CUDA backend, on fp->pb.ctx: each point's group
 * label (numbered as gemst_label_components numbers them, groups of fewer
 * than min_size points -1) into labels (NULL: not wanted), in host memory,
 * or in device memory with a device result; the number of groups into
 * *n_groups (may be NULL).  No forest. */
int gemst_cuda_fof(const gemst_fof_problem *fp, int64_t min_size, int64_t *labels, int64_t *n_groups,
                   gridemst_error *err);
int gemst_cuda_fof_f32(const gemst_fof_problem *fp, int64_t min_size, int64_t *labels, int64_t *n_groups,
                       gridemst_error *err);
int gemst_cuda_fof_f64(const gemst_fof_problem *fp, int64_t min_size, int64_t *labels, int64_t *n_groups,
                       gridemst_error *err);

/* Registers bytes of host memory at p with CUDA (pinned in place, so that
 * device copies reach it at the bus's speed), from a thread that works
 * for CUDA device `device`; 0 on success. */
int gemst_cuda_register_host(void *p, size_t bytes, int device);
void gemst_cuda_unregister_host(void *p);

/* Physical memory of this machine in bytes (0 when unknown). */
uint64_t gemst_host_memory_bytes(void);

/* Bounding box of host coordinates; fails with GRIDEMST_ERR_INPUT naming the
 * first point with a NaN or infinite coordinate. */
int gemst_host_bbox(const void *coords, gridemst_dtype dtype, int64_t n, int dim, int threads, double lo[3],
                    double hi[3], gridemst_error *err);

#ifdef __cplusplus
}
#endif

#endif
