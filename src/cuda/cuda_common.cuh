/*
 * CUDA plumbing shared by the CUDA backend: checked calls, device memory
 * that is counted (for the peak report) and freed in one place, and launch
 * sizes.  Every failure becomes a library status code with a message.
 */
#ifndef GEMST_CUDA_COMMON_CUH
#define GEMST_CUDA_COMMON_CUH

#include <cuda_runtime.h>

#include "common.h"

/* Returns from the enclosing function (which has a gridemst_error *err)
 * with GRIDEMST_ERR_CUDA when a CUDA call fails. */
#define GEMST_CU(call)                                                                                            \
    do {                                                                                                          \
        cudaError_t gemst_e_ = (call);                                                                            \
        if (gemst_e_ != cudaSuccess)                                                                              \
            return gemst_cuda_fail(err, gemst_e_, #call, __FILE__, __LINE__);                                    \
    } while (0)

/* After a kernel launch: the launch's own error. */
#define GEMST_LAUNCHED() GEMST_CU(cudaGetLastError())

/* Propagates a non-OK status. */
#define GEMST_TRY(expr)                                                                                           \
    do {                                                                                                          \
        int gemst_rc_ = (expr);                                                                                   \
        if (gemst_rc_ != GRIDEMST_OK)                                                                             \
            return gemst_rc_;                                                                                     \
    } while (0)

static inline int gemst_cuda_fail(gridemst_error *err, cudaError_t e, const char *call, const char *file, int line)
{
    (void)cudaGetLastError(); /* clear a sticky-free error so later calls can clean up */
    if (e == cudaErrorMemoryAllocation)
        return gemst_fail(err, GRIDEMST_ERR_DEVICE_MEMORY, "out of device memory in %s", call);
    return gemst_fail(err, GRIDEMST_ERR_CUDA, "CUDA error in %s (%s:%d): %s", call, file, line,
                      cudaGetErrorString(e));
}

#define GEMST_THREADS 256

static inline unsigned gemst_blocks(uint64_t work)
{
    uint64_t b = (work + GEMST_THREADS - 1) / GEMST_THREADS;
    return b ? (unsigned)b : 1u;
}

/* Device allocations of one solve, counted and released together. */
#define GEMST_MAX_BUFFERS 64
typedef struct {
    void *ptr[GEMST_MAX_BUFFERS];
    size_t size[GEMST_MAX_BUFFERS];
    int count;
    size_t live, peak;
} gemst_dmem;

static inline int gemst_dalloc(gemst_dmem *m, void **p, size_t bytes, const char *what, gridemst_error *err)
{
    if (m->count == GEMST_MAX_BUFFERS)
        return gemst_fail(err, GRIDEMST_ERR_INTERNAL, "too many device buffers");
    if (bytes == 0)
        bytes = 1;
    cudaError_t e = cudaMalloc(p, bytes);
    if (e != cudaSuccess) {
        size_t free_b = 0, total_b = 0;
        (void)cudaGetLastError();
        cudaMemGetInfo(&free_b, &total_b);
        return gemst_fail(err, GRIDEMST_ERR_DEVICE_MEMORY,
                          "out of device memory allocating %zu bytes for %s (%zu of %zu bytes free)", bytes, what,
                          free_b, total_b);
    }
    m->ptr[m->count] = *p;
    m->size[m->count] = bytes;
    m->count++;
    m->live += bytes;
    if (m->live > m->peak)
        m->peak = m->live;
    return GRIDEMST_OK;
}

/* Frees one buffer early (a no-op for NULL). */
static inline void gemst_dfree(gemst_dmem *m, void *p)
{
    for (int i = 0; p && i < m->count; i++)
        if (m->ptr[i] == p) {
            cudaFree(p);
            m->live -= m->size[i];
            m->ptr[i] = m->ptr[m->count - 1];
            m->size[i] = m->size[m->count - 1];
            m->count--;
            return;
        }
}

static inline void gemst_dfree_all(gemst_dmem *m)
{
    for (int i = 0; i < m->count; i++)
        cudaFree(m->ptr[i]);
    m->count = 0;
    m->live = 0;
}

#define GEMST_DALLOC(mem, ptr, count, what) \
    GEMST_TRY(gemst_dalloc((mem), (void **)&(ptr), (size_t)(count) * sizeof *(ptr), (what), err))

#endif
