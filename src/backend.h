/*
 * The backend interface: what gridemst_solve hands to the CPU or CUDA
 * implementation, and what it gets back.  Both backends run the same
 * algorithm on the same per-point functions and return the identical tree.
 */
#ifndef GEMST_BACKEND_H
#define GEMST_BACKEND_H

#include "common.h"

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
} gemst_problem;

/* The tree in the caller's ids, sorted by d2 (gridemst_solve puts each run
 * of equal lengths in (lo, hi) order).  gridemst_solve allocates `edges`
 * (n - 1 of them) before the solve: the CUDA backend writes the tree there
 * in the caller's form, lengths included, and leaves lo, hi and d2 NULL;
 * the CPU backend returns lo, hi and d2. */
typedef struct gemst_tree {
    int64_t n_edges;
    uint32_t *lo, *hi;
    double *d2;              /* squared length in working units */
    double scale;            /* working units per caller unit (a power of two) */
    gridemst_edge *edges;    /* owned by gridemst_solve, not freed by gemst_tree_free */
} gemst_tree;

void gemst_tree_free(gemst_tree *t);

int gemst_cpu_solve(const gemst_problem *pb, gemst_tree *tree, gridemst_stats *stats, gridemst_error *err);
/* Host bytes the CPU backend needs at its peak for pb (coords unused),
 * erring high: what its solve checks against opt.max_host_bytes. */
uint64_t gemst_cpu_host_bytes(const gemst_problem *pb);
uint64_t gemst_cpu_host_bytes_f32(const gemst_problem *pb);
uint64_t gemst_cpu_host_bytes_f64(const gemst_problem *pb);
int gemst_cpu_solve_f32(const gemst_problem *pb, gemst_tree *tree, gridemst_stats *stats, gridemst_error *err);
int gemst_cpu_solve_f64(const gemst_problem *pb, gemst_tree *tree, gridemst_stats *stats, gridemst_error *err);

/* Fails unless p is device or managed memory of CUDA device `device`. */
int gemst_cuda_check_device_input(const void *p, int device, gridemst_error *err);
/* Copies bytes of device memory to host memory on the options' stream. */
int gemst_cuda_download(const gridemst_options *opt, const void *d_src, void *dst, size_t bytes, gridemst_error *err);

int gemst_cuda_solve(const gemst_problem *pb, gemst_tree *tree, gridemst_stats *stats, gridemst_error *err);
int gemst_cuda_solve_f32(const gemst_problem *pb, gemst_tree *tree, gridemst_stats *stats, gridemst_error *err);
int gemst_cuda_solve_f64(const gemst_problem *pb, gemst_tree *tree, gridemst_stats *stats, gridemst_error *err);

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
