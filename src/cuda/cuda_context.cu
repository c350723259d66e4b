/* The solve context (context.h): made, checked, shared and freed. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "context.h"
#include "host_tree.h"
#include "cuda/cuda_common.cuh"

/* Waits for the context's work and frees everything it holds. */
static void destroy(gridemst_context *c)
{
    gemst_device_scope on(c->device);
    cudaStream_t s = (cudaStream_t)c->stream;
    if (s)
        cudaStreamSynchronize(s);
    for (int i = 0; i < GEMST_CONTEXT_EVENTS; i++)
        if (c->events[i])
            cudaEventDestroy((cudaEvent_t)c->events[i]);
    if (c->pool)
        cudaMemPoolDestroy((cudaMemPool_t)c->pool);
    if (c->staging)
        cudaFreeHost(c->staging);
    if (c->own_stream && s)
        cudaStreamDestroy(s);
    for (int i = 0; i < c->spares; i++)
        gemst_host_tree_free_pinned(c->spare[i], c->spare_bytes[i]);
    (void)cudaGetLastError(); /* teardown: nothing to report to */
    pthread_mutex_destroy(&c->spares_lock);
    c->magic = 0;
    free(c);
}

/* The pool keeps what it takes from the device until the context goes:
 * a later solve of the same size then allocates nothing. */
static int make_pool(gridemst_context *c, gridemst_error *err)
{
    int pools = 0;
    GEMST_CU(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, c->device));
    if (!pools)
        return GRIDEMST_OK; /* the solve then uses cudaMalloc and cudaFree */
    cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = c->device;
    cudaMemPool_t pool;
    GEMST_CU(cudaMemPoolCreate(&pool, &props));
    c->pool = pool;
    uint64_t keep = UINT64_MAX;
    GEMST_CU(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    return GRIDEMST_OK;
}

static int make_parts(gridemst_context *c, void *stream, gridemst_error *err)
{
    cudaDeviceProp prop;
    GEMST_CU(cudaGetDeviceProperties(&prop, c->device));
    snprintf(c->device_name, sizeof c->device_name, "%s", prop.name);
    if (stream) {
        c->stream = stream;
    } else {
        /* one that does not wait for other work on the legacy default stream */
        cudaStream_t s;
        GEMST_CU(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        c->stream = s;
        c->own_stream = 1;
    }
    for (int i = 0; i < GEMST_CONTEXT_EVENTS; i++) {
        cudaEvent_t e;
        GEMST_CU(cudaEventCreate(&e));
        c->events[i] = e;
    }
    GEMST_CU(cudaMallocHost(&c->staging, GEMST_STAGING_BYTES));
    return make_pool(c, err);
}

/* A context with one reference, on a device known to exist. */
static int make(int device, void *stream, gridemst_context **out, gridemst_error *err)
{
    *out = NULL;
    int count = gridemst_cuda_device_count();
    if (count == 0)
        return gemst_fail(err, GRIDEMST_ERR_NO_DEVICE, "no usable CUDA device found");
    if (device < 0 || device >= count)
        return gemst_fail(err, GRIDEMST_ERR_NO_DEVICE, "CUDA device %d requested, but only %d present", device,
                          count);
    gridemst_context *c = (gridemst_context *)calloc(1, sizeof *c);
    if (!c)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory for a context");
    c->magic = GEMST_CONTEXT_OPEN;
    c->refs = 1;
    c->device = device;
    pthread_mutex_init(&c->spares_lock, NULL);
    int rc;
    {
        gemst_device_scope on(device);
        rc = on.ok ? make_parts(c, stream, err)
                   : gemst_fail(err, GRIDEMST_ERR_CUDA, "cannot select CUDA device %d", device);
    }
    if (rc != GRIDEMST_OK) {
        destroy(c);
        return rc;
    }
    *out = c;
    return GRIDEMST_OK;
}

extern "C" gridemst_status gridemst_context_create(int device, void *cuda_stream, gridemst_context **ctx,
                                                   gridemst_error *err)
{
    if (!ctx)
        return (gridemst_status)gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "ctx must not be NULL");
    return (gridemst_status)make(device, cuda_stream, ctx, err);
}

extern "C" void gridemst_context_free(gridemst_context *ctx)
{
    if (!ctx || ctx->magic != GEMST_CONTEXT_OPEN)
        return;
    ctx->magic = 0;
    gemst_context_release(ctx);
}

extern "C" void gemst_context_retain(gridemst_context *ctx)
{
    __atomic_add_fetch(&ctx->refs, 1, __ATOMIC_ACQ_REL);
}

extern "C" void gemst_context_release(gridemst_context *ctx)
{
    int left = __atomic_sub_fetch(&ctx->refs, 1, __ATOMIC_ACQ_REL);
    if (left == 0) {
        destroy(ctx);
    } else if (ctx->magic != GEMST_CONTEXT_OPEN && ctx->pool) {
        /* only results hold it now: give back the memory they do not use */
        gemst_device_scope on(ctx->device);
        cudaStreamSynchronize((cudaStream_t)ctx->stream);
        cudaMemPoolTrimTo((cudaMemPool_t)ctx->pool, 0);
        (void)cudaGetLastError();
    }
}

extern "C" int gemst_context_take_spare(gridemst_context *ctx, size_t bytes, void **p, size_t *capacity)
{
    pthread_mutex_lock(&ctx->spares_lock);
    int best = -1;
    for (int i = 0; i < ctx->spares; i++)
        if (ctx->spare_bytes[i] >= bytes && (best < 0 || ctx->spare_bytes[i] < ctx->spare_bytes[best]))
            best = i;
    if (best >= 0) {
        *p = ctx->spare[best];
        *capacity = ctx->spare_bytes[best];
        ctx->spares--;
        ctx->spare[best] = ctx->spare[ctx->spares];
        ctx->spare_bytes[best] = ctx->spare_bytes[ctx->spares];
    }
    pthread_mutex_unlock(&ctx->spares_lock);
    return best >= 0;
}

extern "C" int gemst_context_keep_spare(gridemst_context *ctx, void *p, size_t capacity)
{
    pthread_mutex_lock(&ctx->spares_lock);
    int kept = ctx->magic == GEMST_CONTEXT_OPEN && ctx->spares < GEMST_CONTEXT_SPARES;
    if (kept) {
        ctx->spare[ctx->spares] = p;
        ctx->spare_bytes[ctx->spares] = capacity;
        ctx->spares++;
    }
    pthread_mutex_unlock(&ctx->spares_lock);
    return kept;
}

extern "C" int gemst_context_for_solve(const gridemst_options *opt, gridemst_context **ctx, gridemst_error *err)
{
    gridemst_context *c = opt->context;
    if (!c) {
        int rc = make(opt->device, opt->cuda_stream, ctx, err);
        if (rc == GRIDEMST_OK)
            (*ctx)->magic = 0; /* the solve's alone: no caller frees it */
        return rc;
    }
    if (c->magic != GEMST_CONTEXT_OPEN)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "the context was freed");
    if (opt->device != 0 && opt->device != c->device)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT,
                          "the options name CUDA device %d, but the context is on device %d", opt->device,
                          c->device);
    if (opt->cuda_stream && opt->cuda_stream != c->stream)
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT,
                          "the options name a CUDA stream other than the context's");
    gemst_context_retain(c);
    *ctx = c;
    return GRIDEMST_OK;
}

/* Frees device edges into context c's pool (ordered on its stream) and
 * drops the reference they held. */
static void free_device_edges(gridemst_context *c, const gridemst_device_edges *edges)
{
    {
        gemst_device_scope on(c->device);
        void *arrays[] = {edges->u, edges->v, edges->w};
        for (int i = 0; i < 3; i++)
            if (arrays[i])
                c->pool ? cudaFreeAsync(arrays[i], (cudaStream_t)c->stream) : cudaFree(arrays[i]);
        (void)cudaGetLastError();
    }
    gemst_context_release(c);
}

extern "C" void gemst_free_device_shares(gemst_device_share *share, int n_shares)
{
    for (int k = 0; k < n_shares; k++)
        if (share[k].ctx)
            free_device_edges(share[k].ctx, &share[k].edges);
    free(share);
}

extern "C" void gemst_result_owner_free(struct gemst_result_owner *owner, gridemst_result *result)
{
    gridemst_context *c = owner->ctx;
    if (owner->host_registered && result->edges) {
        if (!(c && gemst_context_keep_spare(c, result->edges, owner->host_capacity)))
            gemst_host_tree_free_pinned(result->edges, owner->host_capacity);
        result->edges = NULL;
    }
    if (c)
        free_device_edges(c, &result->device_edges);
    gemst_free_device_shares(owner->share, owner->n_shares);
    free(owner);
}
