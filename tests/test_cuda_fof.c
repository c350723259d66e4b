/*
 * Friends-of-friends on the CUDA backend against the CPU backend: the
 * identical labels (numbering included) and group count on generated sets
 * and hand-made ones (heavy duplicates, points on and beyond the faces of a
 * periodic box, a cluster far denser than the linking length, a lattice
 * whose spacing is the linking length), open and periodic, 2D and 3D, both
 * precisions, min_size 1 and more; points in device memory, labels left
 * there; bad input.  The CPU backend is checked against brute force by
 * test_fof.  Skipped (exit 77) where no GPU is present.
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

typedef struct {
    const void *coords;
    gridemst_dtype dtype;
    int64_t n;
    int dim;
    double b;
    const double *box; /* NULL: open space */
    int64_t min_size;
} fof_case;

static gridemst_options fof_options(gridemst_backend backend, gridemst_precision precision)
{
    gridemst_options o;
    gridemst_options_init(&o);
    o.backend = backend;
    o.precision = precision;
    return o;
}

static void run_fof(const fof_case *c, gridemst_backend backend, gridemst_precision precision, int64_t *labels,
                    int64_t *groups, const char *what)
{
    gridemst_options o = fof_options(backend, precision);
    gridemst_error err;
    int rc = gridemst_fof(c->coords, c->dtype, c->n, c->dim, c->b, c->box, c->min_size, &o, labels, groups, NULL,
                          &err);
    REQUIRE(rc == GRIDEMST_OK, "%s: %s backend failed: %s", what, gridemst_backend_name(backend), err.message);
}

/* Labels and group counts of both backends, compared; returns the groups
 * of the CPU's. */
static int64_t same_as_cpu(const fof_case *c, gridemst_precision precision, const char *what)
{
    int64_t *cpu = xcalloc((size_t)c->n + 1, sizeof *cpu), *gpu = xcalloc((size_t)c->n + 1, sizeof *gpu);
    int64_t cpu_groups = -1, gpu_groups = -2;
    run_fof(c, GRIDEMST_BACKEND_CPU, precision, cpu, &cpu_groups, what);
    run_fof(c, GRIDEMST_BACKEND_CUDA, precision, gpu, &gpu_groups, what);
    REQUIRE(gpu_groups == cpu_groups, "%s: %lld groups on the GPU, %lld on the CPU", what, (long long)gpu_groups,
            (long long)cpu_groups);
    for (int64_t i = 0; i < c->n; i++)
        REQUIRE(gpu[i] == cpu[i], "%s: point %lld labelled %lld on the GPU, %lld on the CPU", what, (long long)i,
                (long long)gpu[i], (long long)cpu[i]);
    free(cpu);
    free(gpu);
    return cpu_groups;
}

/* Generated sets: kind, dim, n; each at 0.2 and 0.9 of the mean spacing,
 * open and in the unit box (the generators' points lie in [0, 1)). */
typedef struct {
    gemst_gen_kind kind;
    int dim;
    int64_t n;
} gen_case;

static const gen_case gen_cases[] = {
    {GEMST_GEN_UNIFORM, 2, 200000},   {GEMST_GEN_UNIFORM, 3, 300000}, {GEMST_GEN_BLOBS, 2, 200000},
    {GEMST_GEN_BLOBS, 3, 300000},     {GEMST_GEN_CLUSTERED, 3, 200000}, {GEMST_GEN_SHELLS, 3, 200000},
    {GEMST_GEN_FILAMENTS, 3, 200000}, {GEMST_GEN_NORMAL, 2, 100000},
};

START_TEST(test_generated_sets)
{
    const gen_case *g = &gen_cases[_i];
    gemst_pointset ps;
    gridemst_error err;
    ck_assert_int_eq(gemst_generate(g->kind, g->n, g->dim, 11 + (uint64_t)_i, &ps, &err), GRIDEMST_OK);
    const double unit[3] = {1.0, 1.0, 1.0}, spacing = pow(1.0 / (double)g->n, 1.0 / g->dim);
    const double factors[2] = {0.2, 0.9};
    for (int k = 0; k < 8; k++) {
        const fof_case c = {ps.coords, ps.dtype, ps.n, g->dim, factors[k & 1] * spacing, k & 2 ? unit : NULL,
                            k & 4 ? 4 : 1};
        for (int prec = 0; prec < 2; prec++) {
            char what[160];
            snprintf(what, sizeof what, "%s %dD n %lld b %g %s min_size %lld %s", gemst_gen_kind_name(g->kind),
                     g->dim, (long long)g->n, c.b, c.box ? "periodic" : "open", (long long)c.min_size,
                     prec ? "double" : "float");
            const int64_t groups = same_as_cpu(&c, prec ? GRIDEMST_PRECISION_DOUBLE : GRIDEMST_PRECISION_FLOAT, what);
            /* pairs exist: some group has two points or more */
            REQUIRE(c.min_size > 1 || groups < c.n, "%s: no pair of friends; a test that cannot fail", what);
        }
    }
    gemst_pointset_free(&ps);
}
END_TEST

/*
 * Hand-made sets of n points of dimension dim (float64), their linking
 * length and box:
 *   0 heavy duplicates: a fifth of the points copies of one point, the
 *     rest in pairs and uniform;
 *   1 points on the faces of the periodic box [0, 1.5)^dim, just inside
 *     them, and beyond them (wrapped);
 *   2 a cluster far denser than the linking length (tight sub-cells) in a
 *     uniform background;
 *   3 a lattice of spacing 1/64 at b = 1/64 (every neighbour pair exactly
 *     at b).
 */
static double *special_points(int which, int64_t n, int dim, double *b, double *box, int *periodic)
{
    double *p = xcalloc((size_t)(n * dim), sizeof *p);
    uint64_t seed = 77 + (uint64_t)which;
    *periodic = 0;
    *b = 0.2 * pow(1.0 / (double)n, 1.0 / dim);
    for (int d = 0; d < 3; d++)
        box[d] = 1.0;
    for (int64_t i = 0; i < n; i++)
        for (int d = 0; d < dim; d++) {
            double v = rng_unit(&seed);
            if (which == 0 && i % 5 == 0)
                v = 0.375;
            else if (which == 0 && i % 5 == 1)
                v = p[(i - 1) * dim + d] * 0.5;
            else if (which == 1) {
                const double edge[6] = {0.0, 1.5, -0.0, nextafter(1.5, 0.0), 1.5 + 1e-3, -1e-3};
                v = i % 3 == 0 ? edge[rng_below(&seed, 6)] : 1.5 * v;
            } else if (which == 2 && i % 2 == 0) {
                v = 0.5 + (v - 0.5) * 0.02 * *b;
            } else if (which == 3) {
                const int64_t side = dim == 3 ? 32 : 256;
                int64_t k = i % (dim == 3 ? side * side * side : side * side);
                for (int e = 0; e < d; e++)
                    k /= side;
                v = (double)(k % side) / 64.0;
            }
            p[i * dim + d] = v;
        }
    if (which == 1) {
        *periodic = 1;
        for (int d = 0; d < 3; d++)
            box[d] = 1.5;
        *b *= 1.5;
    } else if (which == 3) {
        *b = 1.0 / 64.0;
    }
    return p;
}

START_TEST(test_special_sets)
{
    const int which = _i % 4, dim = _i / 4 % 2 ? 3 : 2;
    const int64_t n = 60000;
    double b, box[3];
    int periodic;
    double *p = special_points(which, n, dim, &b, box, &periodic);
    for (int k = 0; k < 8; k++) {
        const fof_case c = {p, GRIDEMST_FLOAT64, n, dim, k & 4 ? 3 * b : b, periodic || (k & 1) ? box : NULL,
                            k & 2 ? 3 : 1};
        for (int prec = 0; prec < 2; prec++) {
            char what[160];
            snprintf(what, sizeof what, "set %d %dD b %g %s min_size %lld %s", which, dim, c.b,
                     c.box ? "periodic" : "open", (long long)c.min_size, prec ? "double" : "float");
            const int64_t groups = same_as_cpu(&c, prec ? GRIDEMST_PRECISION_DOUBLE : GRIDEMST_PRECISION_FLOAT, what);
            REQUIRE(c.min_size > 1 || groups < c.n, "%s: no pair of friends; a test that cannot fail", what);
        }
    }
    free(p);
}
END_TEST

/* Points in device (or managed) memory, labels in host or device memory:
 * the labels of the same points from host memory on the CPU backend. */
START_TEST(test_device_input)
{
    const gridemst_dtype dtype = _i & 1 ? GRIDEMST_FLOAT64 : GRIDEMST_FLOAT32;
    const int dim = _i & 2 ? 3 : 2, managed = (_i & 4) != 0, periodic = (_i & 8) != 0;
    gemst_pointset ps;
    gridemst_error err;
    ck_assert_int_eq(gemst_generate(GEMST_GEN_BLOBS, 100000, dim, 5 + (uint64_t)_i, &ps, &err), GRIDEMST_OK);
    const size_t count = (size_t)(ps.n * dim), esize = dtype == GRIDEMST_FLOAT32 ? 4 : 8;
    void *host = xcalloc(count, esize);
    for (size_t i = 0; i < count; i++) {
        const double v = gemst_pointset_coord(&ps, (int64_t)(i / (size_t)dim), (int)(i % (size_t)dim));
        if (dtype == GRIDEMST_FLOAT32)
            ((float *)host)[i] = (float)v;
        else
            ((double *)host)[i] = v;
    }
    void *dev = NULL;
    int64_t *d_labels = NULL;
    if (managed)
        CUDA_OK(cudaMallocManaged(&dev, count * esize, cudaMemAttachGlobal));
    else
        CUDA_OK(cudaMalloc(&dev, count * esize));
    CUDA_OK(cudaMemcpy(dev, host, count * esize, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMalloc((void **)&d_labels, sizeof *d_labels * (size_t)ps.n));
    const double unit[3] = {1.0, 1.0, 1.0};
    const fof_case c = {host, dtype, ps.n, dim, 0.5 * pow(1.0 / (double)ps.n, 1.0 / dim), periodic ? unit : NULL, 2};
    int64_t *want = xcalloc((size_t)ps.n, sizeof *want), *got = xcalloc((size_t)ps.n, sizeof *got);
    int64_t want_groups = -1;
    run_fof(&c, GRIDEMST_BACKEND_CPU, GRIDEMST_PRECISION_FLOAT, want, &want_groups, "device input");
    for (int on_device = 0; on_device < 2; on_device++) {
        gridemst_options o = fof_options(GRIDEMST_BACKEND_AUTO, GRIDEMST_PRECISION_FLOAT);
        o.result = on_device ? GRIDEMST_RESULT_DEVICE : GRIDEMST_RESULT_HOST;
        int64_t groups = -2;
        memset(got, 0xff, sizeof *got * (size_t)ps.n);
        int rc = gridemst_fof_device(dev, dtype, ps.n, dim, c.b, c.box, c.min_size, &o, on_device ? d_labels : got,
                                     &groups, &err);
        REQUIRE(rc == GRIDEMST_OK, "device input failed: %s", err.message);
        if (on_device)
            CUDA_OK(cudaMemcpy(got, d_labels, sizeof *got * (size_t)ps.n, cudaMemcpyDeviceToHost));
        REQUIRE(groups == want_groups, "device input (labels on the %s): %lld groups, CPU %lld",
                on_device ? "device" : "host", (long long)groups, (long long)want_groups);
        REQUIRE(memcmp(got, want, sizeof *got * (size_t)ps.n) == 0, "device input (labels on the %s): not the CPU's",
                on_device ? "device" : "host");
    }
    /* host points, labels left on the device */
    gridemst_options o = fof_options(GRIDEMST_BACKEND_CUDA, GRIDEMST_PRECISION_FLOAT);
    o.result = GRIDEMST_RESULT_DEVICE;
    CUDA_OK(cudaMemset(d_labels, 0xff, sizeof *d_labels * (size_t)ps.n));
    REQUIRE(gridemst_fof(host, dtype, ps.n, dim, c.b, c.box, c.min_size, &o, d_labels, NULL, NULL, &err) ==
                GRIDEMST_OK,
            "host input, device labels: %s", err.message);
    CUDA_OK(cudaMemcpy(got, d_labels, sizeof *got * (size_t)ps.n, cudaMemcpyDeviceToHost));
    REQUIRE(memcmp(got, want, sizeof *got * (size_t)ps.n) == 0, "host input, device labels: not the CPU's");
    CUDA_OK(cudaFree(dev));
    CUDA_OK(cudaFree(d_labels));
    free(host);
    free(want);
    free(got);
    gemst_pointset_free(&ps);
}
END_TEST

/* Sets of 0, 1 and 2 points; labels alone or the count alone. */
START_TEST(test_tiny_sets)
{
    const double p[6] = {0.5, 0.5, 0.5, 0.5, 0.25, 0.75};
    for (int64_t n = 0; n <= 3; n++)
        for (int64_t min_size = 0; min_size <= 3; min_size++) {
            const fof_case c = {p, GRIDEMST_FLOAT64, n, 2, 0.1, NULL, min_size};
            char what[64];
            snprintf(what, sizeof what, "%lld points, min_size %lld", (long long)n, (long long)min_size);
            same_as_cpu(&c, GRIDEMST_PRECISION_FLOAT, what);
        }
    gridemst_options o = fof_options(GRIDEMST_BACKEND_CUDA, GRIDEMST_PRECISION_DOUBLE);
    gridemst_error err;
    int64_t groups = -1;
    REQUIRE_CMP(gridemst_fof(p, GRIDEMST_FLOAT64, 3, 2, 0.1, NULL, 1, &o, NULL, &groups, NULL, &err), ==,
                GRIDEMST_OK);
    REQUIRE_CMP(groups, ==, 2);
}
END_TEST

/* Bad input: the CPU backend's errors, and those of device memory. */
START_TEST(test_bad_input)
{
    double p[8] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8};
    const double box[2] = {1.0, 1.0}, flat[2] = {1.0, 0.0};
    int64_t labels[4];
    gridemst_error err;
    gridemst_options cuda = fof_options(GRIDEMST_BACKEND_CUDA, GRIDEMST_PRECISION_FLOAT);
    gridemst_options cpu = fof_options(GRIDEMST_BACKEND_CPU, GRIDEMST_PRECISION_FLOAT);
    REQUIRE_CMP(gridemst_fof(p, GRIDEMST_FLOAT64, 4, 2, 0.5, box, 0, &cuda, labels, NULL, NULL, &err), ==,
                GRIDEMST_ERR_INVALID_ARGUMENT);
    REQUIRE(strstr(err.message, "half the periodic box") != NULL, "message: %s", err.message);
    REQUIRE_CMP(gridemst_fof(p, GRIDEMST_FLOAT64, 4, 2, 0.1, flat, 0, &cuda, labels, NULL, NULL, &err), ==,
                GRIDEMST_ERR_INVALID_ARGUMENT);
    REQUIRE_CMP(gridemst_fof(p, GRIDEMST_FLOAT64, 4, 2, -1.0, NULL, 0, &cuda, labels, NULL, NULL, &err), ==,
                GRIDEMST_ERR_INVALID_ARGUMENT);
    gridemst_result forest = GRIDEMST_RESULT_INIT;
    REQUIRE_CMP(gridemst_fof(p, GRIDEMST_FLOAT64, 4, 2, 0.1, NULL, 0, &cuda, labels, NULL, &forest, &err), ==,
                GRIDEMST_ERR_UNSUPPORTED);
    REQUIRE(strstr(err.message, "cpu backend only") != NULL, "message: %s", err.message);
    p[5] = NAN;
    REQUIRE_CMP(gridemst_fof(p, GRIDEMST_FLOAT64, 4, 2, 0.1, NULL, 0, &cuda, labels, NULL, NULL, &err), ==,
                GRIDEMST_ERR_INPUT);
    REQUIRE(strstr(err.message, "point 2") != NULL, "message: %s", err.message);
    p[5] = 0.6;
    /* host memory where device memory is wanted, and the other way round */
    REQUIRE_CMP(gridemst_fof_device(p, GRIDEMST_FLOAT64, 4, 2, 0.1, NULL, 0, &cuda, labels, NULL, &err), ==,
                GRIDEMST_ERR_INVALID_ARGUMENT);
    gridemst_options on_device = cuda;
    on_device.result = GRIDEMST_RESULT_DEVICE;
    REQUIRE_CMP(gridemst_fof(p, GRIDEMST_FLOAT64, 4, 2, 0.1, NULL, 0, &on_device, labels, NULL, NULL, &err), ==,
                GRIDEMST_ERR_INVALID_ARGUMENT);
    REQUIRE(strstr(err.message, "labels") != NULL, "message: %s", err.message);
    double *dev = NULL;
    CUDA_OK(cudaMalloc((void **)&dev, sizeof p));
    CUDA_OK(cudaMemcpy(dev, p, sizeof p, cudaMemcpyHostToDevice));
    REQUIRE_CMP(gridemst_fof_device(dev, GRIDEMST_FLOAT64, 4, 2, 0.1, NULL, 0, &cpu, labels, NULL, &err), ==,
                GRIDEMST_ERR_INVALID_ARGUMENT);
    const double nan = NAN;
    CUDA_OK(cudaMemcpy(dev + 7, &nan, sizeof nan, cudaMemcpyHostToDevice));
    REQUIRE_CMP(gridemst_fof_device(dev, GRIDEMST_FLOAT64, 4, 2, 0.1, NULL, 0, &cuda, labels, NULL, &err), ==,
                GRIDEMST_ERR_INPUT);
    REQUIRE(strstr(err.message, "point 3") != NULL, "message: %s", err.message);
    CUDA_OK(cudaFree(dev));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cuda_fof");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, test_generated_sets, 0, (int)(sizeof gen_cases / sizeof gen_cases[0]));
    tcase_add_loop_test(tc, test_special_sets, 0, 8);
    tcase_add_loop_test(tc, test_device_input, 0, 16);
    tcase_add_test(tc, test_tiny_sets);
    tcase_add_test(tc, test_bad_input);
    suite_add_tcase(s, tc);
    return run_gpu_suite(s);
}
