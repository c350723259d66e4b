/*
 * What a part's gaps leave on its device (parts/device_gaps.h): made by
 * cuda_parts_gaps.cu, read by the contraction there (its gaps; it writes
 * the components) and, when the points stay on the device, by the
 * boundary's store (cuda_parts_store.cu) until the boundary ends.  Every
 * buffer is in `mem`, on the part's context's pool and stream.
 */
#ifndef GEMST_CUDA_PARTS_KEPT_CUH
#define GEMST_CUDA_PARTS_KEPT_CUH

#include "context.h"
#include "cuda/cuda_common.cuh"
#include "cuda/cuda_download.cuh"
#include "parts/gid.h"
#include "parts/region.h"

struct gemst_device_gaps {
    gridemst_context *ctx;
    gemst_dmem mem;
    gemst_download down;  /* the copies to host memory: the cells', then the store's (staged: its pinned chunks
                             held as long) */
    int64_t n;
    int64_t n_cells;
    /* the cells, until their copy to host memory */
    uint32_t *cell_start; /* n_cells + 1 */
    uint64_t *cell_key;
    gemst_box *cell_box;
    double *gap;          /* n, by point */
    /* the points kept on the device (NULL where they were copied to host memory) */
    double *w;            /* 3 n: working coordinates */
    uint32_t *cell_of;    /* n: each point's cell */
    uint32_t *by_gap;     /* n: the points by ascending gap */
    uint32_t *by_key;     /* n: the points by ascending key, until the contraction has read them */
    uint32_t *comp;       /* n: each point's safe component in the part, from the contraction */
    const uint32_t *id;   /* n: each point's place in its slice, where the part's device holds them (not
                             owned; device_store.h), or NULL ... */
    gemst_id_runs runs;   /* ... and the part's runs, which make them ids (parts/gid.h) */
};

#endif
