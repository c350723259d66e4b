/*
 * The extension's one door into libgridemst: every call into the C library
 * and every use of its types is in library.c, behind the small interface
 * below, which holds no Python object and knows nothing of Python.
 */
#ifndef PYGEMST_LIBRARY_H
#define PYGEMST_LIBRARY_H

#include <stdint.h>

/* A solved tree: owns the library's result, host or device edges. */
typedef struct pyg_tree pyg_tree;

/* What a failure should become in Python. */
typedef enum pyg_fail_kind {
    PYG_FAIL_VALUE,   /* a bad argument or bad points: ValueError */
    PYG_FAIL_MEMORY,  /* host or device memory exhausted: MemoryError */
    PYG_FAIL_RUNTIME  /* no device, a CUDA error, unsupported, internal: GridemstError */
} pyg_fail_kind;

typedef struct pyg_failure {
    pyg_fail_kind kind;
    char status[32];   /* the library's name of its status code */
    char message[512]; /* the library's message */
} pyg_failure;

/* Asked between the solve's phases from the solving thread; nonzero asks
 * the solve to stop. */
typedef int (*pyg_stop_fn)(void *arg);

/* One solve: the points, where they are, and the options by name. */
typedef struct pyg_request {
    const void *coords; /* n x dim, row-major: host memory, or device memory when on_device */
    int float64;        /* coords are float64 (else float32) */
    int64_t n;
    int dim;
    int on_device;      /* coords are CUDA device memory of `device` */
    int device;         /* CUDA device ordinal */
    void *stream;       /* a cudaStream_t to work on, or NULL for the solve's own */
    int device_result;  /* leave the tree in device memory */
    const char *precision, *backend, *index; /* option value names ("double", "auto", "auto") */
    int threads;        /* CPU threads; 0: the OpenMP default */
    int n_devices;      /* 0: one device (device); k >= 1: devices[0 .. k-1]; -1: every device present */
    const int *devices; /* the CUDA device ordinals of a solve over several (host points) */
    pyg_stop_fn stop;   /* may be NULL */
    void *stop_arg;
} pyg_request;

/* 0 and *tree on success; -1 with *fail filled otherwise. */
int pyg_solve(const pyg_request *rq, pyg_tree **tree, pyg_failure *fail);
void pyg_tree_free(pyg_tree *tree);

int64_t pyg_tree_points(const pyg_tree *tree);
int pyg_tree_dim(const pyg_tree *tree);
int64_t pyg_tree_edge_count(const pyg_tree *tree);
double pyg_tree_total_weight(const pyg_tree *tree);

/* Host trees: the edges as (u, v) pairs and lengths, n_edges entries each. */
void pyg_tree_copy_edges(const pyg_tree *tree, int64_t *uv, double *w);
/* SciPy's linkage matrix, (n - 1) x 4 doubles. */
int pyg_tree_linkage(const pyg_tree *tree, double *z, pyg_failure *fail);
/* Flat clusters: k clusters, or cut at a distance; labels has n entries. */
int pyg_tree_clusters_k(const pyg_tree *tree, int64_t k, int64_t min_size, int64_t *labels, int64_t *n_clusters,
                        pyg_failure *fail);
int pyg_tree_clusters_cut(const pyg_tree *tree, double distance, int64_t min_size, int64_t *labels,
                          int64_t *n_clusters, pyg_failure *fail);

/* Device trees: the arrays' addresses (u, v uint32; w float64) and device. */
void pyg_tree_device_arrays(const pyg_tree *tree, uintptr_t *u, uintptr_t *v, uintptr_t *w, int *device);
/* The shares a device tree lies in: 1 for a tree of one device, one a
 * device for a solve over several, 0 for a host tree or one of no edges. */
int pyg_tree_shares(const pyg_tree *tree);
/* Share k (0 <= k < pyg_tree_shares): its arrays' addresses (u, v uint32;
 * w float64) on device, which hold the sorted tree's edges first to
 * first + count - 1, and belong to that device alone. */
void pyg_tree_share(const pyg_tree *tree, int k, uintptr_t *u, uintptr_t *v, uintptr_t *w, int *device,
                    int64_t *first, int64_t *count);

const char *pyg_library_version(void);
int pyg_cuda_device_count(void);

#endif
