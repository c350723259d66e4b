/*
 * CUDA plumbing shared by the CUDA backend: checked calls, device memory
 * that is counted (for the peak report) and freed in one place, and launch
 * sizes.  Every failure becomes a library status code with a message.
 */
#ifndef GEMST_CUDA_COMMON_CUH
#define GEMST_CUDA_COMMON_CUH

#include <cuda_runtime.h>
#include <string.h>

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

/*
 * Device allocations of one solve, counted and released together.  They
 * come from a memory pool of the solve's own, in the order of its stream:
 * cudaFree would wait for the whole device at every early release (and a
 * solve releases sorting scratch and staging buffers some forty times),
 * while a pool's buffer goes back on the stream and is reused by the next
 * allocation there.  The pool keeps what it got until the solve ends.
 * Devices without memory pools use cudaMalloc and cudaFree.
 */
#define GEMST_MAX_BUFFERS 64
typedef struct {
    void *ptr[GEMST_MAX_BUFFERS];
    size_t size[GEMST_MAX_BUFFERS];
    int count;
    size_t live, peak;
    cudaMemPool_t pool; /* NULL: cudaMalloc */
    cudaStream_t s;
} gemst_dmem;

/* Sets up the solve's allocations on device `device`, ordered on stream s. */
static inline int gemst_dmem_init(gemst_dmem *m, int device, cudaStream_t s, gridemst_error *err)
{
    int pools = 0;
    memset(m, 0, sizeof *m);
    m->s = s;
    GEMST_CU(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, device));
    if (!pools)
        return GRIDEMST_OK;
    cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    GEMST_CU(cudaMemPoolCreate(&m->pool, &props));
    uint64_t keep = UINT64_MAX; /* released only when the pool is destroyed */
    GEMST_CU(cudaMemPoolSetAttribute(m->pool, cudaMemPoolAttrReleaseThreshold, &keep));
    return GRIDEMST_OK;
}

static inline int gemst_dalloc(gemst_dmem *m, void **p, size_t bytes, const char *what, gridemst_error *err)
{
    if (m->count == GEMST_MAX_BUFFERS)
        return gemst_fail(err, GRIDEMST_ERR_INTERNAL, "too many device buffers");
    if (bytes == 0)
        bytes = 1;
    cudaError_t e = m->pool ? cudaMallocFromPoolAsync(p, bytes, m->pool, m->s) : cudaMalloc(p, bytes);
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

static inline void gemst_dmem_release(gemst_dmem *m, void *p)
{
    if (m->pool)
        cudaFreeAsync(p, m->s);
    else
        cudaFree(p);
}

/* Frees one buffer early (a no-op for NULL). */
static inline void gemst_dfree(gemst_dmem *m, void *p)
{
    for (int i = 0; p && i < m->count; i++)
        if (m->ptr[i] == p) {
            gemst_dmem_release(m, p);
            m->live -= m->size[i];
            m->ptr[i] = m->ptr[m->count - 1];
            m->size[i] = m->size[m->count - 1];
            m->count--;
            return;
        }
}

/* Device memory the solve holds: its pool's (in use or ready for reuse),
 * or its live buffers'. */
static inline size_t gemst_dmem_held(const gemst_dmem *m)
{
    uint64_t reserved = 0;
    if (m->pool && cudaMemPoolGetAttribute(m->pool, cudaMemPoolAttrReservedMemCurrent, &reserved) == cudaSuccess)
        return (size_t)reserved;
    return m->live;
}

/* The most device memory the solve held at once: what its pool got from
 * the device (buffers in use, and freed ones awaiting reuse), or the peak
 * of its live buffers. */
static inline size_t gemst_dmem_peak(const gemst_dmem *m)
{
    uint64_t high = 0;
    if (m->pool && cudaMemPoolGetAttribute(m->pool, cudaMemPoolAttrReservedMemHigh, &high) == cudaSuccess &&
        (size_t)high > m->peak)
        return (size_t)high;
    return m->peak;
}

/* Frees every buffer and the pool, once the stream's work is done. */
static inline void gemst_dfree_all(gemst_dmem *m)
{
    for (int i = 0; i < m->count; i++)
        gemst_dmem_release(m, m->ptr[i]);
    m->count = 0;
    m->live = 0;
    if (m->pool) {
        cudaStreamSynchronize(m->s);
        cudaMemPoolDestroy(m->pool);
        m->pool = NULL;
    }
}

#define GEMST_DALLOC(mem, ptr, count, what) \
    GEMST_TRY(gemst_dalloc((mem), (void **)&(ptr), (size_t)(count) * sizeof *(ptr), (what), err))

#endif
