/* Helpers of the CUDA tests: a checked CUDA call, and a device result's
 * edges brought to the host. */
#ifndef GEMST_CUDA_TESTUTIL_H
#define GEMST_CUDA_TESTUTIL_H

#include <cuda_runtime.h>

#include "testutil.h"

#define CUDA_OK(call) ck_assert_msg((call) == cudaSuccess, "%s failed", #call)

/* Runs suite s, whose tests use *ctx, a context on device 0; or exit
 * status 77 (skipped) where no GPU is present. */
static inline int run_suite_with_context(Suite *s, gridemst_context **ctx)
{
    if (gridemst_cuda_device_count() == 0)
        return run_gpu_suite(s);
    gridemst_error err;
    if (gridemst_context_create(0, NULL, ctx, &err) != GRIDEMST_OK) {
        fprintf(stderr, "context: %s\n", err.message);
        srunner_free(srunner_create(s));
        return EXIT_FAILURE;
    }
    const int rc = run_suite(s);
    gridemst_context_free(*ctx);
    return rc;
}

/* The edges of a device result, in host memory the caller frees. */
static inline gridemst_edge *device_edges(const gridemst_result *r)
{
    size_t m = (size_t)r->n_edges;
    uint32_t *u = xcalloc(m + 1, sizeof *u), *v = xcalloc(m + 1, sizeof *v);
    double *w = xcalloc(m + 1, sizeof *w);
    CUDA_OK(cudaMemcpy(u, r->device_edges.u, sizeof *u * m, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(v, r->device_edges.v, sizeof *v * m, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(w, r->device_edges.w, sizeof *w * m, cudaMemcpyDeviceToHost));
    gridemst_edge *e = xcalloc(m + 1, sizeof *e);
    for (size_t k = 0; k < m; k++)
        e[k] = (gridemst_edge){u[k], v[k], w[k]};
    free(u);
    free(v);
    free(w);
    return e;
}

#endif
