/*
 * Trees left in device memory (GRIDEMST_RESULT_DEVICE) and contexts that
 * repeated solves reuse.  Every tree must be the one the CPU backend gives
 * for the same points, edge for edge, total weight included.  Skipped
 * (exit 77) where no GPU is present; built only with CUDA.
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gridemst.h"
#include "cuda_testutil.h"
#include "testutil.h"
#include "tools/generate.h"
#include "tools/pointset.h"

static gridemst_options options(gridemst_backend backend, gridemst_precision precision, gridemst_nns nns)
{
    gridemst_options o;
    gridemst_options_init(&o);
    o.backend = backend;
    o.precision = precision;
    o.nns = nns;
    return o;
}

/* got (a host or device result) is the tree of ref (a host result). */
static void same_tree(const gridemst_result *ref, const gridemst_result *got, const char *what)
{
    ck_assert_msg(got->n_edges == ref->n_edges, "%s: %lld edges, not %lld", what, (long long)got->n_edges,
                  (long long)ref->n_edges);
    ck_assert_msg(got->total_weight == ref->total_weight, "%s: total %.17g, not %.17g", what, got->total_weight,
                  ref->total_weight);
    gridemst_edge *e = got->edges;
    if (got->device_edges.w) {
        ck_assert_msg(got->edges == NULL, "%s: a device result with host edges", what);
        e = device_edges(got);
    }
    ck_assert_msg(memcmp(e, ref->edges, sizeof *e * (size_t)ref->n_edges) == 0, "%s: not the CPU's tree", what);
    if (e != got->edges)
        free(e);
}

static void solve_ok(const gemst_pointset *ps, const gridemst_options *o, gridemst_result *r, const char *what)
{
    gridemst_error err;
    int rc = gridemst_solve(ps->coords, ps->dtype, ps->n, ps->dim, o, r, &err);
    ck_assert_msg(rc == GRIDEMST_OK, "%s: %s", what, err.message);
}

/* Host and device results on every precision, dimension and index, against
 * the CPU backend. */
START_TEST(test_device_result_matches_cpu)
{
    const int dim = _i & 1 ? 3 : 2;
    const gridemst_precision precision = _i & 2 ? GRIDEMST_PRECISION_DOUBLE : GRIDEMST_PRECISION_FLOAT;
    const gridemst_nns nns = _i & 4 ? GRIDEMST_NNS_BVH : GRIDEMST_NNS_GRID;
    gemst_pointset ps;
    gridemst_error err;
    ck_assert_int_eq(gemst_generate(GEMST_GEN_BLOBS, 120000, dim, 3, &ps, &err), GRIDEMST_OK);
    gridemst_options cpu = options(GRIDEMST_BACKEND_CPU, precision, nns), cuda = cpu;
    cuda.backend = GRIDEMST_BACKEND_CUDA;
    gridemst_result ref = GRIDEMST_RESULT_INIT, host = GRIDEMST_RESULT_INIT, device = GRIDEMST_RESULT_INIT;
    solve_ok(&ps, &cpu, &ref, "cpu");
    solve_ok(&ps, &cuda, &host, "cuda, host result");
    cuda.result = GRIDEMST_RESULT_DEVICE;
    solve_ok(&ps, &cuda, &device, "cuda, device result");
    same_tree(&ref, &host, "host result");
    same_tree(&ref, &device, "device result");
    ck_assert_int_eq(device.device_edges.device, 0);
    /* one device's tree is one share, the whole of device_edges; a host tree none */
    gridemst_device_edges share;
    int64_t first = -1, count = -1;
    ck_assert_int_eq(gridemst_result_device_shares(&device), 1);
    ck_assert_int_eq(gridemst_result_device_share(&device, 0, &share, &first, &count), GRIDEMST_OK);
    ck_assert(share.u == device.device_edges.u && share.v == device.device_edges.v &&
              share.w == device.device_edges.w && share.device == 0);
    ck_assert(first == 0 && count == device.n_edges);
    ck_assert_int_eq(gridemst_result_device_share(&device, 1, &share, NULL, NULL), GRIDEMST_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(gridemst_result_device_share(&device, 0, NULL, NULL, NULL), GRIDEMST_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(gridemst_result_device_shares(&host), 0);
    gridemst_result_free(&device);
    ck_assert(device.device_edges.u == NULL && device.owner == NULL);
    ck_assert_int_eq(gridemst_result_device_shares(&device), 0);
    gridemst_result_free(&host);
    gridemst_result_free(&ref);
    gemst_pointset_free(&ps);
}
END_TEST

/* Two edges whose squared lengths differ (1 and 1 + 2^-52) but whose
 * lengths in double are equal (both 1): the one of greater squared length
 * has the smaller ids, so the device must reorder the pair to give the
 * (w, u, v) order the CPU gives. */
START_TEST(test_equal_lengths_from_distinct_squares)
{
    double xy[] = {0, 100, 1, 100 + 0x1p-26, 0, 0, 1, 0};
    gemst_pointset ps = {.coords = xy, .dtype = GRIDEMST_FLOAT64, .n = 4, .dim = 2};
    gridemst_options cpu = options(GRIDEMST_BACKEND_CPU, GRIDEMST_PRECISION_DOUBLE, GRIDEMST_NNS_GRID), cuda = cpu;
    cuda.backend = GRIDEMST_BACKEND_CUDA;
    gridemst_result ref = GRIDEMST_RESULT_INIT, host = GRIDEMST_RESULT_INIT, device = GRIDEMST_RESULT_INIT;
    solve_ok(&ps, &cpu, &ref, "cpu");
    ck_assert(ref.edges[0].w == 1.0 && ref.edges[1].w == 1.0);
    ck_assert(ref.edges[0].u == 0 && ref.edges[0].v == 1 && ref.edges[1].u == 2 && ref.edges[1].v == 3);
    solve_ok(&ps, &cuda, &host, "cuda, host result");
    cuda.result = GRIDEMST_RESULT_DEVICE;
    solve_ok(&ps, &cuda, &device, "cuda, device result");
    same_tree(&ref, &host, "host result");
    same_tree(&ref, &device, "device result");
    gridemst_result_free(&device);
    gridemst_result_free(&host);
    gridemst_result_free(&ref);
}
END_TEST

/* One context through sizes, dimensions, precisions, indexes and both
 * results: every tree is the fresh solve's, and a solve no larger than an
 * earlier one takes no new device memory. */
START_TEST(test_context_reuse)
{
    gridemst_context *ctx;
    gridemst_error err;
    ck_assert_int_eq(gridemst_context_create(0, NULL, &ctx, &err), GRIDEMST_OK);
    const struct {
        gemst_gen_kind kind;
        int64_t n;
        int dim;
        gridemst_precision precision;
        gridemst_nns nns;
        gridemst_result_place result;
        int smaller; /* no larger than an earlier solve in every buffer: takes no new memory */
    } steps[] = {
        {GEMST_GEN_UNIFORM, 300000, 3, GRIDEMST_PRECISION_FLOAT, GRIDEMST_NNS_GRID, GRIDEMST_RESULT_DEVICE, 0},
        {GEMST_GEN_UNIFORM, 300000, 3, GRIDEMST_PRECISION_FLOAT, GRIDEMST_NNS_GRID, GRIDEMST_RESULT_DEVICE, 1},
        {GEMST_GEN_UNIFORM, 200000, 3, GRIDEMST_PRECISION_FLOAT, GRIDEMST_NNS_GRID, GRIDEMST_RESULT_HOST, 1},
        {GEMST_GEN_NORMAL, 200000, 2, GRIDEMST_PRECISION_FLOAT, GRIDEMST_NNS_GRID, GRIDEMST_RESULT_HOST, 0},
        {GEMST_GEN_BLOBS, 100000, 3, GRIDEMST_PRECISION_DOUBLE, GRIDEMST_NNS_BVH, GRIDEMST_RESULT_DEVICE, 0},
        {GEMST_GEN_CLUSTERED, 50000, 2, GRIDEMST_PRECISION_DOUBLE, GRIDEMST_NNS_GRID, GRIDEMST_RESULT_HOST, 0},
        {GEMST_GEN_UNIFORM, 300000, 3, GRIDEMST_PRECISION_FLOAT, GRIDEMST_NNS_GRID, GRIDEMST_RESULT_HOST, 1},
    };
    for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
        gemst_pointset ps;
        ck_assert_int_eq(gemst_generate(steps[k].kind, steps[k].n, steps[k].dim, 7, &ps, &err), GRIDEMST_OK);
        gridemst_options fresh = options(GRIDEMST_BACKEND_CUDA, steps[k].precision, steps[k].nns), reused = fresh;
        reused.context = ctx;
        reused.result = steps[k].result;
        gridemst_result ref = GRIDEMST_RESULT_INIT, got = GRIDEMST_RESULT_INIT;
        char what[64];
        snprintf(what, sizeof what, "step %zu", k);
        solve_ok(&ps, &fresh, &ref, what);
        ck_assert_msg(ref.stats.device_bytes_reserved > 0, "%s: a fresh context took no memory", what);
        solve_ok(&ps, &reused, &got, what);
        same_tree(&ref, &got, what);
        if (steps[k].smaller)
            ck_assert_msg(got.stats.device_bytes_reserved == 0, "%s: the context took %lld more bytes", what,
                          (long long)got.stats.device_bytes_reserved);
        gridemst_result_free(&got);
        gridemst_result_free(&ref);
        gemst_pointset_free(&ps);
    }
    gridemst_context_free(ctx);
}
END_TEST

/* A context on the caller's stream follows the caller's work on it. */
START_TEST(test_context_on_caller_stream)
{
    gemst_pointset ps;
    gridemst_error err;
    ck_assert_int_eq(gemst_generate(GEMST_GEN_UNIFORM, 100000, 2, 4, &ps, &err), GRIDEMST_OK);
    size_t bytes = sizeof(float) * (size_t)(ps.n * ps.dim);
    float *dev;
    CUDA_OK(cudaMalloc((void **)&dev, bytes));
    cudaStream_t s;
    CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    gridemst_context *ctx;
    ck_assert_int_eq(gridemst_context_create(0, s, &ctx, &err), GRIDEMST_OK);
    gridemst_options o = options(GRIDEMST_BACKEND_CUDA, GRIDEMST_PRECISION_FLOAT, GRIDEMST_NNS_GRID);
    gridemst_result ref = GRIDEMST_RESULT_INIT, got = GRIDEMST_RESULT_INIT;
    solve_ok(&ps, &o, &ref, "host input");
    o.context = ctx;
    o.result = GRIDEMST_RESULT_DEVICE;
    for (int round = 0; round < 3; round++) {
        CUDA_OK(cudaMemsetAsync(dev, 0, bytes, s));
        CUDA_OK(cudaMemcpyAsync(dev, ps.coords, bytes, cudaMemcpyHostToDevice, s));
        int rc = gridemst_solve_device(dev, GRIDEMST_FLOAT32, ps.n, ps.dim, &o, &got, &err);
        ck_assert_msg(rc == GRIDEMST_OK, "round %d: %s", round, err.message);
        same_tree(&ref, &got, "the caller's stream");
        gridemst_result_free(&got);
    }
    gridemst_context_free(ctx);
    CUDA_OK(cudaStreamSynchronize(s));
    CUDA_OK(cudaStreamDestroy(s));
    CUDA_OK(cudaFree(dev));
    gridemst_result_free(&ref);
    gemst_pointset_free(&ps);
}
END_TEST

/* Results outlive their context, and a context outlives its caller's free
 * while results hold it: solving on it then fails cleanly. */
START_TEST(test_context_lifetime_and_misuse)
{
    gemst_pointset ps;
    gridemst_error err;
    ck_assert_int_eq(gemst_generate(GEMST_GEN_UNIFORM, 20000, 3, 9, &ps, &err), GRIDEMST_OK);
    gridemst_context *ctx;
    ck_assert_int_eq(gridemst_context_create(0, NULL, &ctx, &err), GRIDEMST_OK);
    gridemst_options o = options(GRIDEMST_BACKEND_CUDA, GRIDEMST_PRECISION_FLOAT, GRIDEMST_NNS_GRID);
    gridemst_result ref = GRIDEMST_RESULT_INIT, kept = GRIDEMST_RESULT_INIT, r = GRIDEMST_RESULT_INIT;
    solve_ok(&ps, &o, &ref, "reference");
    o.context = ctx;
    o.result = GRIDEMST_RESULT_DEVICE;
    solve_ok(&ps, &o, &kept, "on the context");

    /* options that disagree with the context */
    o.device = 1;
    ck_assert_int_eq(gridemst_solve(ps.coords, ps.dtype, ps.n, ps.dim, &o, &r, &err), GRIDEMST_ERR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(err.message, "device 1") != NULL, "message: %s", err.message);
    o.device = 0;
    cudaStream_t other;
    CUDA_OK(cudaStreamCreate(&other));
    o.cuda_stream = other;
    ck_assert_int_eq(gridemst_solve(ps.coords, ps.dtype, ps.n, ps.dim, &o, &r, &err), GRIDEMST_ERR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(err.message, "stream") != NULL, "message: %s", err.message);
    o.cuda_stream = NULL;
    CUDA_OK(cudaStreamDestroy(other));
    /* the CPU backend has no contexts and no device results */
    o.backend = GRIDEMST_BACKEND_CPU;
    ck_assert_int_eq(gridemst_solve(ps.coords, ps.dtype, ps.n, ps.dim, &o, &r, &err), GRIDEMST_ERR_INVALID_ARGUMENT);
    o.context = NULL;
    ck_assert_int_eq(gridemst_solve(ps.coords, ps.dtype, ps.n, ps.dim, &o, &r, &err), GRIDEMST_ERR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(err.message, "device memory needs the cuda backend") != NULL, "message: %s", err.message);
    o.backend = GRIDEMST_BACKEND_CUDA;
    o.context = ctx;
    /* a host pointer as device input, on a context */
    ck_assert_int_eq(gridemst_solve_device(ps.coords, ps.dtype, ps.n, ps.dim, &o, &r, &err),
                     GRIDEMST_ERR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(err.message, "host memory") != NULL, "message: %s", err.message);

    /* freed by the caller while a result holds it */
    gridemst_context_free(ctx);
    ck_assert_int_eq(gridemst_solve(ps.coords, ps.dtype, ps.n, ps.dim, &o, &r, &err), GRIDEMST_ERR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(err.message, "freed") != NULL, "message: %s", err.message);
    ck_assert(r.edges == NULL && r.device_edges.u == NULL);
    same_tree(&ref, &kept, "a result of a freed context");
    gridemst_result_free(&kept); /* the context goes with it */

    /* a device result of a plain call outlives the call's own context */
    o.context = NULL;
    solve_ok(&ps, &o, &kept, "a plain call");
    solve_ok(&ps, &o, &r, "a second plain call");
    same_tree(&ref, &kept, "a plain call's device result");
    gridemst_result_free(&r);
    gridemst_result_free(&kept);

    /* bad arguments to the context itself */
    ck_assert_int_eq(gridemst_context_create(gridemst_cuda_device_count(), NULL, &ctx, &err), GRIDEMST_ERR_NO_DEVICE);
    ck_assert_ptr_null(ctx);
    ck_assert_int_eq(gridemst_context_create(0, NULL, NULL, &err), GRIDEMST_ERR_INVALID_ARGUMENT);
    gridemst_context_free(NULL);
    gridemst_result_free(&ref);
    gemst_pointset_free(&ps);
}
END_TEST

int main(void)
{
    if (gridemst_cuda_device_count() == 0) {
        printf("no CUDA device: skipped\n");
        return 77;
    }
    Suite *s = suite_create("cuda_context");
    TCase *tc = tcase_create("context");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, test_device_result_matches_cpu, 0, 8);
    tcase_add_test(tc, test_equal_lengths_from_distinct_squares);
    tcase_add_test(tc, test_context_reuse);
    tcase_add_test(tc, test_context_on_caller_stream);
    tcase_add_test(tc, test_context_lifetime_and_misuse);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
