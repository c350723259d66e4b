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
 * come from the memory pool of the solve's context, in the order of its
 * stream: cudaFree would wait for the whole device at every early release
 * (and a solve releases sorting scratch and staging buffers some forty
 * times), while a pool's buffer goes back on the stream and is reused by
 * the next allocation there.  The pool keeps what it got for the next solve
 * on the context.  Devices without memory pools use cudaMalloc and cudaFree.
 */
#define GEMST_MAX_BUFFERS 64
typedef struct {
    void *ptr[GEMST_MAX_BUFFERS];
    size_t size[GEMST_MAX_BUFFERS];
    int count;
    size_t live, peak;
    uint64_t reserved_before; /* the pool's memory when the solve started */
    cudaMemPool_t pool; /* NULL: cudaMalloc */
    cudaStream_t s;
} gemst_dmem;

/* The pool's memory taken from the device (0 without a pool). */
static inline uint64_t gemst_pool_reserved(cudaMemPool_t pool)
{
    uint64_t reserved = 0;
    if (pool && cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved) != cudaSuccess) {
        (void)cudaGetLastError();
        reserved = 0;
    }
    return reserved;
}

/* Sets up the solve's allocations from `pool` (NULL: cudaMalloc), ordered
 * on stream s. */
static inline void gemst_dmem_init(gemst_dmem *m, cudaMemPool_t pool, cudaStream_t s)
{
    memset(m, 0, sizeof *m);
    m->pool = pool;
    m->s = s;
    m->reserved_before = gemst_pool_reserved(pool);
}

/* Device memory of `bytes` from the pool (or cudaMalloc), not counted among
 * the solve's buffers: for what outlives the solve. */
static inline int gemst_dalloc_kept(cudaMemPool_t pool, cudaStream_t s, void **p, size_t bytes, const char *what,
                                    gridemst_error *err)
{
    if (bytes == 0)
        bytes = 1;
    cudaError_t e = pool ? cudaMallocFromPoolAsync(p, bytes, pool, s) : cudaMalloc(p, bytes);
    if (e != cudaSuccess) {
        size_t free_b = 0, total_b = 0;
        (void)cudaGetLastError();
        cudaMemGetInfo(&free_b, &total_b);
        return gemst_fail(err, GRIDEMST_ERR_DEVICE_MEMORY,
                          "out of device memory allocating %zu bytes for %s (%zu of %zu bytes free)", bytes, what,
                          free_b, total_b);
    }
    return GRIDEMST_OK;
}

/* Counts p, `bytes` of device memory from m's pool (or cudaMalloc), among
 * m's buffers, freed with them. */
static inline int gemst_dadopt(gemst_dmem *m, void *p, size_t bytes, gridemst_error *err)
{
    if (m->count == GEMST_MAX_BUFFERS)
        return gemst_fail(err, GRIDEMST_ERR_INTERNAL, "too many device buffers");
    m->ptr[m->count] = p;
    m->size[m->count] = bytes;
    m->count++;
    m->live += bytes;
    if (m->live > m->peak)
        m->peak = m->live;
    return GRIDEMST_OK;
}

static inline int gemst_dalloc(gemst_dmem *m, void **p, size_t bytes, const char *what, gridemst_error *err)
{
    if (m->count == GEMST_MAX_BUFFERS)
        return gemst_fail(err, GRIDEMST_ERR_INTERNAL, "too many device buffers");
    GEMST_TRY(gemst_dalloc_kept(m->pool, m->s, p, bytes, what, err));
    return gemst_dadopt(m, *p, bytes, err);
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

/* Device memory the solve can use without taking more from the device: its
 * live buffers and what the pool holds ready for reuse. */
static inline size_t gemst_dmem_held(const gemst_dmem *m)
{
    uint64_t reserved = gemst_pool_reserved(m->pool);
    return reserved > m->live ? (size_t)reserved : m->live;
}

/* What the pool took from the device since the solve started. */
static inline size_t gemst_dmem_reserved(const gemst_dmem *m)
{
    uint64_t now = gemst_pool_reserved(m->pool);
    return now > m->reserved_before ? (size_t)(now - m->reserved_before) : 0;
}

/* The most device memory the solve held at once: the peak of its live
 * buffers, or on a fresh pool what the pool took (the buffers and the
 * gaps between them), whichever is more. */
static inline size_t gemst_dmem_peak(const gemst_dmem *m)
{
    size_t taken = gemst_dmem_reserved(m);
    return taken > m->peak ? taken : m->peak;
}

/* Frees every buffer (into the pool, on the stream). */
static inline void gemst_dfree_all(gemst_dmem *m)
{
    for (int i = 0; i < m->count; i++)
        gemst_dmem_release(m, m->ptr[i]);
    m->count = 0;
    m->live = 0;
}

/* Runs the rest of the calling block on `device` (or, made without one,
 * on whichever devices it sets), restoring the caller's device when it
 * ends; ok: the device was set (or the caller's was read). */
struct gemst_device_scope {
    int previous, ok;
    gemst_device_scope() { ok = cudaGetDevice(&previous) == cudaSuccess; }
    explicit gemst_device_scope(int device)
    {
        ok = cudaGetDevice(&previous) == cudaSuccess && cudaSetDevice(device) == cudaSuccess;
    }
    ~gemst_device_scope()
    {
        if (ok)
            cudaSetDevice(previous);
    }
};

#define GEMST_DALLOC(mem, ptr, count, what) \
    GEMST_TRY(gemst_dalloc((mem), (void **)&(ptr), (size_t)(count) * sizeof *(ptr), (what), err))

#endif
