/* Timed solves on the CPU (wall clock) and on CUDA (events on a stream). */
#include "config.h"
#include "timed_solve.h"

#include <stdlib.h>
#include <string.h>

#include "common.h"

#ifdef GRIDEMST_HAVE_CUDA
#include <cuda_runtime.h>
#endif

struct bench_timer {
    const gemst_pointset *ps;
    int with_device;
#ifdef GRIDEMST_HAVE_CUDA
    int device;
    void *d_coords;
    cudaStream_t stream;
    cudaEvent_t start, stop;
    gridemst_context *context; /* on stream, for every solve that reuses one */
#endif
};

#ifdef GRIDEMST_HAVE_CUDA
static int cuda_fail(gridemst_error *err, const char *call, cudaError_t e)
{
    return gemst_fail(err, e == cudaErrorMemoryAllocation ? GRIDEMST_ERR_DEVICE_MEMORY : GRIDEMST_ERR_CUDA,
                      "%s: %s", call, cudaGetErrorString(e));
}

/* Returns from the function with a status when a CUDA call fails. */
#define CUDA_TRY(call)                                                                                            \
    do {                                                                                                          \
        cudaError_t e_ = (call);                                                                                  \
        if (e_ != cudaSuccess)                                                                                    \
            return cuda_fail(err, #call, e_);                                                                     \
    } while (0)

/* The device copy of the points, the stream and the events. */
static int open_device(bench_timer *t, int device, gridemst_error *err)
{
    const gemst_pointset *ps = t->ps;
    size_t bytes = (size_t)ps->n * (size_t)ps->dim * (ps->dtype == GRIDEMST_FLOAT32 ? sizeof(float) : sizeof(double));
    t->device = device;
    CUDA_TRY(cudaSetDevice(device));
    CUDA_TRY(cudaStreamCreateWithFlags(&t->stream, cudaStreamNonBlocking));
    CUDA_TRY(cudaEventCreate(&t->start));
    CUDA_TRY(cudaEventCreate(&t->stop));
    int rc = gridemst_context_create(device, t->stream, &t->context, err);
    if (rc != GRIDEMST_OK)
        return rc;
    if (bytes > 0) {
        CUDA_TRY(cudaMalloc(&t->d_coords, bytes));
        /* on the timer's stream, and waited for: a plain cudaMemcpy from pageable memory may
           return before the data land, and the non-blocking stream would not wait for it */
        CUDA_TRY(cudaMemcpyAsync(t->d_coords, ps->coords, bytes, cudaMemcpyHostToDevice, t->stream));
        CUDA_TRY(cudaStreamSynchronize(t->stream));
    }
    return GRIDEMST_OK;
}

/* The device time from the start event to a stop event recorded now. */
static int elapsed(bench_timer *t, double *ms, gridemst_error *err)
{
    float f = 0.0f;
    CUDA_TRY(cudaSetDevice(t->device));
    CUDA_TRY(cudaEventRecord(t->stop, t->stream));
    CUDA_TRY(cudaEventSynchronize(t->stop));
    CUDA_TRY(cudaEventElapsedTime(&f, t->start, t->stop));
    *ms = f;
    return GRIDEMST_OK;
}

/* Share k of a tree left in device memory into edges (the whole tree's
 * place for it). */
static int share_to_host(const gridemst_result *res, int k, gridemst_edge *edges, gridemst_error *err)
{
    gridemst_device_edges d;
    int64_t first = 0, count = 0;
    if (gridemst_result_device_share(res, k, &d, &first, &count) != GRIDEMST_OK)
        return gemst_fail(err, GRIDEMST_ERR_INTERNAL, "share %d of the device tree is missing", k);
    size_t m = (size_t)count;
    uint32_t *ids = malloc(sizeof *ids * 2 * (m ? m : 1));
    double *w = malloc(sizeof *w * (m ? m : 1));
    int rc = ids && w ? GRIDEMST_OK : gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory");
    if (rc == GRIDEMST_OK && m > 0) {
        cudaError_t e = cudaSetDevice(d.device); /* the share's memory is its device's */
        if (e == cudaSuccess)
            e = cudaMemcpy(ids, d.u, sizeof *ids * m, cudaMemcpyDeviceToHost);
        if (e == cudaSuccess)
            e = cudaMemcpy(ids + m, d.v, sizeof *ids * m, cudaMemcpyDeviceToHost);
        if (e == cudaSuccess)
            e = cudaMemcpy(w, d.w, sizeof *w * m, cudaMemcpyDeviceToHost);
        if (e != cudaSuccess)
            rc = cuda_fail(err, "copying the device tree", e);
    }
    for (size_t j = 0; rc == GRIDEMST_OK && j < m; j++)
        edges[first + (int64_t)j] = (gridemst_edge){ids[j], ids[m + j], w[j]};
    free(ids);
    free(w);
    return rc;
}

/* A tree left in device memory (on one device or in shares on several),
 * brought to host memory in the result's place (for the comparison of
 * trees, outside the timing). */
static int device_tree_to_host(gridemst_result *res, gridemst_error *err)
{
    size_t m = (size_t)res->n_edges;
    gridemst_edge *edges = malloc(sizeof *edges * (m ? m : 1));
    int rc = edges ? GRIDEMST_OK : gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory");
    for (int k = 0; rc == GRIDEMST_OK && k < gridemst_result_device_shares(res); k++)
        rc = share_to_host(res, k, edges, err);
    if (rc != GRIDEMST_OK) {
        free(edges);
        gridemst_result_free(res);
        return rc;
    }
    gridemst_result host = *res;
    res->edges = NULL; /* the device arrays go with their owner */
    gridemst_result_free(res);
    host.owner = NULL;
    memset(&host.device_edges, 0, sizeof host.device_edges);
    host.edges = edges;
    *res = host;
    return GRIDEMST_OK;
}

/* gridemst_solve_device on the timer's stream, between its events, on the
 * timer's context or (fresh) on a context of the call's own. */
static int solve_device(bench_timer *t, const gridemst_options *opt, int fresh, gridemst_result *res,
                        bench_times *times, gridemst_error *err)
{
    gridemst_options o = *opt;
    o.device = t->device;
    o.cuda_stream = t->stream;
    o.context = fresh ? NULL : t->context;
    CUDA_TRY(cudaSetDevice(t->device));
    CUDA_TRY(cudaEventRecord(t->start, t->stream));
    double w0 = gemst_now_ms();
    int rc = gridemst_solve_device(t->d_coords, t->ps->dtype, t->ps->n, t->ps->dim, &o, res, err);
    times->wall_ms = gemst_now_ms() - w0;
    if (rc == GRIDEMST_OK && (rc = elapsed(t, &times->ms, err)) != GRIDEMST_OK)
        gridemst_result_free(res);
    if (rc == GRIDEMST_OK && o.result == GRIDEMST_RESULT_DEVICE)
        rc = device_tree_to_host(res, err);
    return rc;
}
#endif

int bench_timer_open(const gemst_pointset *ps, int with_device, int device, bench_timer **out, gridemst_error *err)
{
    *out = NULL;
    bench_timer *t = calloc(1, sizeof *t);
    if (!t)
        return gemst_fail(err, GRIDEMST_ERR_NO_MEMORY, "out of host memory");
    t->ps = ps;
    t->with_device = with_device;
    int rc = GRIDEMST_OK;
    if (with_device) {
#ifdef GRIDEMST_HAVE_CUDA
        rc = open_device(t, device, err);
#else
        (void)device;
        rc = gemst_fail(err, GRIDEMST_ERR_UNSUPPORTED, "this build has no CUDA backend");
#endif
    }
    if (rc != GRIDEMST_OK) {
        bench_timer_close(t);
        return rc;
    }
    *out = t;
    return GRIDEMST_OK;
}

int bench_timed_solve(bench_timer *t, const gridemst_options *opt, int fresh_context, gridemst_result *res,
                      bench_times *times, gridemst_error *err)
{
    /* over several devices the solve takes host points, as on the CPU */
    if (opt->backend == GRIDEMST_BACKEND_CUDA && opt->n_devices == 0) {
#ifdef GRIDEMST_HAVE_CUDA
        if (t->with_device)
            return solve_device(t, opt, fresh_context, res, times, err);
#else
        (void)fresh_context;
#endif
        return gemst_fail(err, GRIDEMST_ERR_INVALID_ARGUMENT, "the points are not on a CUDA device");
    }
    double w0 = gemst_now_ms();
    int rc = gridemst_solve(t->ps->coords, t->ps->dtype, t->ps->n, t->ps->dim, opt, res, err);
    times->wall_ms = times->ms = gemst_now_ms() - w0;
#ifdef GRIDEMST_HAVE_CUDA
    if (rc == GRIDEMST_OK && opt->result == GRIDEMST_RESULT_DEVICE)
        rc = device_tree_to_host(res, err);
#endif
    return rc;
}

void bench_timer_close(bench_timer *t)
{
    if (!t)
        return;
#ifdef GRIDEMST_HAVE_CUDA
    /* teardown: nothing useful to do when one of these fails */
    gridemst_context_free(t->context);
    if (t->d_coords)
        (void)cudaFree(t->d_coords);
    if (t->start)
        (void)cudaEventDestroy(t->start);
    if (t->stop)
        (void)cudaEventDestroy(t->stop);
    if (t->stream)
        (void)cudaStreamDestroy(t->stream);
#endif
    free(t);
}
