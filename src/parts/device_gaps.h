/*
 * A part's gaps (parts/gap.h) computed on a device from the part's
 * coordinates there (cuda/cuda_parts_gaps.cu): the same arrays as the
 * host's (parts/gaps.c), bit for bit.  Each point's working coordinates
 * and key; the points sorted by key (a stable radix sort, as the host's);
 * the cells' starts, keys and boxes; each cell's gap and each point's; the
 * points sorted by gap (stable: equal gaps in index order).
 *
 * In two calls, since the host sizes the cells' arrays by their count:
 *
 *   gemst_device_gaps_run    computes everything on ctx's device, copies
 *                            the points' arrays into `points` (host memory
 *                            of n entries each, w 3 n) and gives the count
 *                            of cells; the cells stay on the device in *out.
 *                            With points NULL, nothing per point comes to
 *                            host memory: the points' working coordinates,
 *                            gaps and cells and the points by gap stay on
 *                            the device for the boundary's store
 *                            (device_store.h), beside room for each point's
 *                            component (gemst_device_gaps_comp), until
 *                            gemst_device_gaps_free
 *   gemst_device_gaps_cells  copies the cells into `cells` (host memory of
 *                            n_cells entries each, cell_start n_cells + 1;
 *                            cell_start NULL: not copied), and frees them
 *                            on the device
 *   gemst_device_gaps_gap    the points' gaps in device memory, kept for
 *                            a contraction there (device_contract.h)
 *   gemst_device_gaps_comp   where that contraction leaves each point's
 *                            component (n entries in device memory), when
 *                            the points stay on the device; else NULL
 *   gemst_device_gaps_by_key the points in the order of their keys (n
 *                            entries in device memory), when the points
 *                            stay on the device, for the contraction to
 *                            number them in space's order; else NULL
 *   gemst_device_gaps_drop_by_key  frees that order (the contraction is
 *                            done with it)
 *   gemst_device_gaps_free   frees *out (NULL: nothing)
 *
 * Both add the time they took to *times: the kernels and sorts (waited for)
 * and the copies to host memory (cuda/cuda_download.cuh, on the task's
 * threads).
 *
 * The part has n >= 1 points.  A CUDA failure is GRIDEMST_ERR_CUDA,
 * running out of device memory GRIDEMST_ERR_DEVICE_MEMORY; a failed run
 * leaves *out NULL.  The calls leave the calling thread's current device
 * as they found it.  In a build without CUDA they fail with
 * GRIDEMST_ERR_UNSUPPORTED.
 */
#ifndef GEMST_PARTS_DEVICE_GAPS_H
#define GEMST_PARTS_DEVICE_GAPS_H

#include "parts/region.h"
#include "parts/working.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the gaps of a part need. */
typedef struct gemst_gaps_task {
    gemst_parts_metric metric;
    gemst_frame frame;         /* the whole set's working frame */
    gemst_region_space space;
    gemst_key_range own;       /* the part's keys */
    int level;                 /* the cells' level */
    gridemst_dtype dtype;
    const void *coords;        /* the part's n points in device memory (n * dim values of dtype) */
    int64_t n;
    int threads;               /* the host's threads that take the copies to host memory */
} gemst_gaps_task;

/* Where the time went, in ms. */
typedef struct gemst_gaps_times {
    double device_ms;          /* the kernels and sorts */
    double copy_ms;            /* the copies to host memory */
} gemst_gaps_times;

/* The points' arrays, as gemst_part names them. */
typedef struct gemst_gaps_points {
    double *w;                 /* working coordinates, 3 a point */
    double *gap;
    uint32_t *by_key, *cell_of, *by_gap;
} gemst_gaps_points;

/* The cells' arrays, as gemst_part names them. */
typedef struct gemst_gaps_cells {
    uint32_t *cell_start;
    uint64_t *cell_key;
    gemst_box *cell_box;
} gemst_gaps_cells;

typedef struct gemst_device_gaps gemst_device_gaps;

int gemst_device_gaps_run(gridemst_context *ctx, const gemst_gaps_task *t, const gemst_gaps_points *points,
                          gemst_device_gaps **out, int64_t *n_cells, gemst_gaps_times *times, gridemst_error *err);
int gemst_device_gaps_cells(gemst_device_gaps *g, const gemst_gaps_cells *cells, gemst_gaps_times *times,
                            gridemst_error *err);
const double *gemst_device_gaps_gap(const gemst_device_gaps *g);
uint32_t *gemst_device_gaps_comp(gemst_device_gaps *g);
const uint32_t *gemst_device_gaps_by_key(const gemst_device_gaps *g);
void gemst_device_gaps_drop_by_key(gemst_device_gaps *g);
void gemst_device_gaps_free(gemst_device_gaps *g);

#ifdef __cplusplus
}
#endif

#endif
