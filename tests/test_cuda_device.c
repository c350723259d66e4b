/*
 * gridemst_solve_device: points the caller already holds in device or
 * managed memory, on the library's stream or the caller's.  Every tree must
 * be the one gridemst_solve gives for the same points from host memory.
 * Skipped (exit 77) where no GPU is present; built only with CUDA.
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

static gridemst_options cuda_options(gridemst_precision precision)
{
    gridemst_options o;
    gridemst_options_init(&o);
    o.nns = GRIDEMST_NNS_GRID;
    o.backend = GRIDEMST_BACKEND_CUDA;
    o.precision = precision;
    return o;
}

static void same_tree(const gridemst_result *a, const gridemst_result *b, const char *what)
{
    ck_assert_msg(a->n_edges == b->n_edges && a->total_weight == b->total_weight &&
                      memcmp(a->edges, b->edges, sizeof *a->edges * (size_t)a->n_edges) == 0,
                  "%s: not the host input's tree", what);
}

/* The points of ps as a new array of dtype. */
static void *host_copy(const gemst_pointset *ps, gridemst_dtype dtype, size_t *bytes)
{
    size_t count = (size_t)(ps->n * ps->dim);
    *bytes = count * (dtype == GRIDEMST_FLOAT32 ? 4 : 8);
    void *p = xcalloc(count, dtype == GRIDEMST_FLOAT32 ? 4 : 8);
    for (size_t i = 0; i < count; i++) {
        double v = gemst_pointset_coord(ps, (int64_t)i / ps->dim, (int)((int64_t)i % ps->dim));
        if (dtype == GRIDEMST_FLOAT32)
            ((float *)p)[i] = (float)v;
        else
            ((double *)p)[i] = v;
    }
    return p;
}

/* Device, managed, float32 and float64 input, float and double precision,
 * 2D and 3D, grid and BVH, against the same points solved from host memory. */
START_TEST(test_device_input_matches_host)
{
    const gridemst_dtype dtype = _i & 1 ? GRIDEMST_FLOAT64 : GRIDEMST_FLOAT32;
    const int dim = _i & 2 ? 3 : 2, managed = (_i & 4) != 0, bvh = (_i & 8) != 0;
    gemst_pointset ps;
    gridemst_error err;
    ck_assert_int_eq(gemst_generate(GEMST_GEN_CLUSTERED, 50000, dim, 5, &ps, &err), GRIDEMST_OK);
    size_t bytes;
    void *host = host_copy(&ps, dtype, &bytes), *dev;
    if (managed)
        CUDA_OK(cudaMallocManaged(&dev, bytes, cudaMemAttachGlobal));
    else
        CUDA_OK(cudaMalloc(&dev, bytes));
    CUDA_OK(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice));
    for (int prec = 0; prec <= 1; prec++) {
        gridemst_options o = cuda_options((gridemst_precision)prec);
        gridemst_result ref = GRIDEMST_RESULT_INIT, got = GRIDEMST_RESULT_INIT;
        o.nns = bvh ? GRIDEMST_NNS_BVH : GRIDEMST_NNS_GRID;
        ck_assert_int_eq(gridemst_solve(host, dtype, ps.n, dim, &o, &ref, &err), GRIDEMST_OK);
        int rc = gridemst_solve_device(dev, dtype, ps.n, dim, &o, &got, &err);
        ck_assert_msg(rc == GRIDEMST_OK, "solve_device: %s", err.message);
        same_tree(&ref, &got, managed ? "managed memory" : "device memory");
        ck_assert_int_eq(got.stats.backend, GRIDEMST_BACKEND_CUDA);
        ck_assert_int_eq(got.stats.nns, o.nns);
        /* the input is only read */
        void *back = xcalloc(bytes, 1);
        CUDA_OK(cudaMemcpy(back, dev, bytes, cudaMemcpyDeviceToHost));
        ck_assert(memcmp(back, host, bytes) == 0);
        free(back);
        gridemst_result_free(&ref);
        gridemst_result_free(&got);
    }
    CUDA_OK(cudaFree(dev));
    free(host);
    free(ps.coords);
}
END_TEST

/* On the caller's stream the solve follows the work queued before it: the
 * points are overwritten on the stream right before the call, with no
 * synchronization between, and the tree must be that of the new points. */
START_TEST(test_caller_stream)
{
    gemst_pointset a, b;
    gridemst_error err;
    ck_assert_int_eq(gemst_generate(GEMST_GEN_UNIFORM, 200000, 3, 1, &a, &err), GRIDEMST_OK);
    ck_assert_int_eq(gemst_generate(GEMST_GEN_NORMAL, 200000, 3, 2, &b, &err), GRIDEMST_OK);
    size_t bytes;
    double *first = host_copy(&a, GRIDEMST_FLOAT64, &bytes), *second = host_copy(&b, GRIDEMST_FLOAT64, &bytes);
    double *pinned, *dev;
    CUDA_OK(cudaMallocHost((void **)&pinned, bytes));
    memcpy(pinned, second, bytes);
    CUDA_OK(cudaMalloc((void **)&dev, bytes));
    CUDA_OK(cudaMemcpy(dev, first, bytes, cudaMemcpyHostToDevice));
    cudaStream_t s;
    CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    gridemst_options o = cuda_options(GRIDEMST_PRECISION_DOUBLE);
    gridemst_result ref = GRIDEMST_RESULT_INIT, got = GRIDEMST_RESULT_INIT;
    ck_assert_int_eq(gridemst_solve(second, GRIDEMST_FLOAT64, b.n, 3, &o, &ref, &err), GRIDEMST_OK);
    o.cuda_stream = s;
    for (int round = 0; round < 3; round++) {
        CUDA_OK(cudaMemsetAsync(dev, 0, bytes, s));
        CUDA_OK(cudaMemcpyAsync(dev, pinned, bytes, cudaMemcpyHostToDevice, s));
        int rc = gridemst_solve_device(dev, GRIDEMST_FLOAT64, b.n, 3, &o, &got, &err);
        ck_assert_msg(rc == GRIDEMST_OK, "solve_device on a stream: %s", err.message);
        same_tree(&ref, &got, "caller's stream");
        gridemst_result_free(&got);
    }
    /* the stream is the caller's: still usable after the solves */
    CUDA_OK(cudaStreamSynchronize(s));
    CUDA_OK(cudaStreamDestroy(s));
    gridemst_result_free(&ref);
    CUDA_OK(cudaFree(dev));
    CUDA_OK(cudaFreeHost(pinned));
    free(first);
    free(second);
    free(a.coords);
    free(b.coords);
}
END_TEST

START_TEST(test_device_input_errors)
{
    gridemst_options o = cuda_options(GRIDEMST_PRECISION_FLOAT);
    gridemst_result r = GRIDEMST_RESULT_INIT;
    gridemst_error err;
    double host[6] = {0, 0, 3, 4, 6, 8};
    double *dev;
    CUDA_OK(cudaMalloc((void **)&dev, sizeof host));
    CUDA_OK(cudaMemcpy(dev, host, sizeof host, cudaMemcpyHostToDevice));

    /* host memory, plain or pinned, is refused with a message saying so */
    ck_assert_int_eq(gridemst_solve_device(host, GRIDEMST_FLOAT64, 3, 2, &o, &r, &err), GRIDEMST_ERR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(err.message, "host memory") != NULL, "message: %s", err.message);
    ck_assert(r.edges == NULL && r.n_edges == 0);
    double *pinned;
    CUDA_OK(cudaMallocHost((void **)&pinned, sizeof host));
    ck_assert_int_eq(gridemst_solve_device(pinned, GRIDEMST_FLOAT64, 3, 2, &o, &r, &err),
                     GRIDEMST_ERR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(err.message, "pinned host memory") != NULL, "message: %s", err.message);
    CUDA_OK(cudaFreeHost(pinned));

    /* the CPU backend cannot read device memory; AUTO means CUDA */
    o.backend = GRIDEMST_BACKEND_CPU;
    ck_assert_int_eq(gridemst_solve_device(dev, GRIDEMST_FLOAT64, 3, 2, &o, &r, &err), GRIDEMST_ERR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(err.message, "cuda backend") != NULL, "message: %s", err.message);
    o.backend = GRIDEMST_BACKEND_AUTO;
    ck_assert_int_eq(gridemst_solve_device(dev, GRIDEMST_FLOAT64, 3, 2, &o, &r, &err), GRIDEMST_OK);
    ck_assert_int_eq(r.stats.backend, GRIDEMST_BACKEND_CUDA);
    /* the tree of (0,0), (3,4), (6,8): two edges of length 5 */
    ck_assert_int_eq(r.n_edges, 2);
    ck_assert(r.edges[0].u == 0 && r.edges[0].v == 1 && r.edges[0].w == 5.0);
    ck_assert(r.edges[1].u == 1 && r.edges[1].v == 2 && r.edges[1].w == 5.0);
    gridemst_result_free(&r);

    /* 0 and 1 points: an empty tree; a NaN is found on the device too */
    ck_assert_int_eq(gridemst_solve_device(NULL, GRIDEMST_FLOAT64, 0, 2, &o, &r, &err), GRIDEMST_OK);
    ck_assert_int_eq(r.n_edges, 0);
    ck_assert_int_eq(gridemst_solve_device(dev, GRIDEMST_FLOAT64, 1, 2, &o, &r, &err), GRIDEMST_OK);
    ck_assert_int_eq(r.n_edges, 0);
    host[2] = NAN;
    CUDA_OK(cudaMemcpy(dev, host, sizeof host, cudaMemcpyHostToDevice));
    ck_assert_int_eq(gridemst_solve_device(dev, GRIDEMST_FLOAT64, 3, 2, &o, &r, &err), GRIDEMST_ERR_INPUT);
    ck_assert_msg(strstr(err.message, "point 1 ") != NULL, "message: %s", err.message);
    ck_assert_int_eq(gridemst_solve_device(dev + 2, GRIDEMST_FLOAT64, 1, 2, &o, &r, &err), GRIDEMST_ERR_INPUT);

    /* a device the memory does not belong to */
    if (gridemst_cuda_device_count() > 1) {
        o.device = 1;
        ck_assert_int_eq(gridemst_solve_device(dev, GRIDEMST_FLOAT64, 3, 2, &o, &r, &err),
                         GRIDEMST_ERR_INVALID_ARGUMENT);
        ck_assert_msg(strstr(err.message, "device 0") != NULL, "message: %s", err.message);
    }
    CUDA_OK(cudaFree(dev));
}
END_TEST

int main(void)
{
    if (gridemst_cuda_device_count() == 0) {
        printf("no CUDA device: skipped\n");
        return 77;
    }
    Suite *s = suite_create("cuda_device");
    TCase *tc = tcase_create("device_input");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, test_device_input_matches_host, 0, 16);
    tcase_add_test(tc, test_caller_stream);
    tcase_add_test(tc, test_device_input_errors);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
