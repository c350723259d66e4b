/*
 * A solve over several GPUs that leaves its tree on them
 * (GRIDEMST_RESULT_DEVICE with options.n_devices): every device holds a
 * share, and the shares, read in order and brought to host memory, are the
 * host result's edges byte for byte, with the same total.  The host result
 * itself is checked against the CPU solve by tests/test_multigpu.
 *
 * On a machine of one GPU the parts share its device (named two and three
 * times).  Exits 77 (skipped) without a GPU.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_testutil.h"
#include "gridemst.h"
#include "parts_sets.h"
#include "several_devices.h"

static int gpus;

static const int swapped[] = {1, 0}, one_twice[] = {0, 0}, one_thrice[] = {0, 0, 0};

/* Two parts, on devices 1 and 0 in that order; on one GPU, both on it. */
static const int *two_parts(void)
{
    return gpus > 1 ? swapped : one_twice;
}

static const char *two_parts_name(void)
{
    return gpus > 1 ? "devices 1,0" : "devices 0,0";
}

static void solve_ok(const dataset *ds, const gridemst_options *o, gridemst_result *r, const char *what)
{
    gridemst_error err;
    int rc = gridemst_solve(ds->coords, ds->dtype, ds->n, ds->dim, o, r, &err);
    REQUIRE(rc == GRIDEMST_OK, "%s: %s", what, err.message);
}

/* The shares of r, each on its device in the order of the devices, one
 * after the other, brought to host memory as one edge array. */
static gridemst_edge *gather_shares(const gridemst_result *r, int n_devices, const int *ordinal, const char *what)
{
    const int shares = gridemst_result_device_shares(r);
    REQUIRE(shares == (r->n_edges > 0 ? n_devices : 0), "%s: %d shares on %d devices", what, shares, n_devices);
    REQUIRE(r->device_edges.u == NULL && r->device_edges.v == NULL && r->device_edges.w == NULL,
            "%s: device_edges set beside the shares", what);
    gridemst_edge *e = xcalloc((size_t)r->n_edges + 1, sizeof *e);
    int64_t next = 0;
    for (int k = 0; k < shares; k++) {
        gridemst_device_edges share;
        int64_t first = -1, count = -1;
        REQUIRE_CMP(gridemst_result_device_share(r, k, &share, &first, &count), ==, GRIDEMST_OK);
        const int want = ordinal ? ordinal[k] : k;
        REQUIRE(share.device == want, "%s: share %d on device %d, not %d", what, k, share.device, want);
        REQUIRE(first == next && count >= 0 && first + count <= r->n_edges,
                "%s: share %d holds edges %lld to %lld, after %lld", what, k, (long long)first,
                (long long)(first + count), (long long)next);
        next = first + count;
        if (count == 0)
            continue;
        struct cudaPointerAttributes at;
        CUDA_OK(cudaPointerGetAttributes(&at, share.w));
        REQUIRE(at.type == cudaMemoryTypeDevice && at.device == want, "%s: share %d's lengths not on device %d",
                what, k, want);
        uint32_t *u = xcalloc((size_t)count, sizeof *u), *v = xcalloc((size_t)count, sizeof *v);
        double *w = xcalloc((size_t)count, sizeof *w);
        CUDA_OK(cudaSetDevice(share.device)); /* the share's memory is its device's */
        CUDA_OK(cudaMemcpy(u, share.u, sizeof *u * (size_t)count, cudaMemcpyDeviceToHost));
        CUDA_OK(cudaMemcpy(v, share.v, sizeof *v * (size_t)count, cudaMemcpyDeviceToHost));
        CUDA_OK(cudaMemcpy(w, share.w, sizeof *w * (size_t)count, cudaMemcpyDeviceToHost));
        for (int64_t j = 0; j < count; j++)
            e[first + j] = (gridemst_edge){u[j], v[j], w[j]};
        free(u);
        free(v);
        free(w);
    }
    REQUIRE(next == r->n_edges, "%s: the shares hold %lld of %lld edges", what, (long long)next,
            (long long)r->n_edges);
    gridemst_device_edges share;
    REQUIRE_CMP(gridemst_result_device_share(r, shares, &share, NULL, NULL), ==, GRIDEMST_ERR_INVALID_ARGUMENT);
    REQUIRE_CMP(gridemst_result_device_share(r, -1, &share, NULL, NULL), ==, GRIDEMST_ERR_INVALID_ARGUMENT);
    return e;
}

/* ds over the devices (NULL ordinal: every device) with the tree left on
 * them, against the same solve's host result. */
static void compare_results(const dataset *ds, int n_devices, const int *ordinal, const char *devices)
{
    char what[160];
    snprintf(what, sizeof what, "%s on %s", ds->name, devices);
    gridemst_options o;
    gridemst_options_init(&o);
    o.precision = GRIDEMST_PRECISION_FLOAT;
    o.n_devices = ordinal ? n_devices : GRIDEMST_ALL_DEVICES;
    o.devices = ordinal;
    gridemst_result host = GRIDEMST_RESULT_INIT, kept = GRIDEMST_RESULT_INIT;
    solve_ok(ds, &o, &host, what);
    o.result = GRIDEMST_RESULT_DEVICE;
    solve_ok(ds, &o, &kept, what);
    REQUIRE(kept.edges == NULL && kept.n_edges == host.n_edges, "%s: %lld edges, the host result %lld", what,
            (long long)kept.n_edges, (long long)host.n_edges);
    REQUIRE(kept.total_weight == host.total_weight, "%s: total %.17g, the host result %.17g", what,
            kept.total_weight, host.total_weight);
    gridemst_edge *e = gather_shares(&kept, n_devices, ordinal, what);
    for (int64_t k = 0; k < host.n_edges; k++)
        REQUIRE(memcmp(&e[k], &host.edges[k], sizeof e[k]) == 0,
                "%s: edge %lld is (%lld, %lld, %.17g), the host result's (%lld, %lld, %.17g)", what, (long long)k,
                (long long)e[k].u, (long long)e[k].v, e[k].w, (long long)host.edges[k].u,
                (long long)host.edges[k].v, host.edges[k].w);
    free(e);
    gridemst_result_free(&host);
    gridemst_result_free(&kept);
    REQUIRE(gridemst_result_device_shares(&kept) == 0, "%s: shares left after the free", what);
}

/* Every device; on one GPU, its device three times. */
static void compare_every_device(const dataset *ds)
{
    if (gpus > 1)
        compare_results(ds, gpus, NULL, "every device");
    else
        compare_results(ds, 3, one_thrice, "devices 0,0,0");
}

static const struct {
    set_kind kind;
    int dim;
    int64_t n;
} sets[] = {
    {SET_BLOBS, 3, 300000}, {SET_UNIFORM, 2, 300000}, {SET_DUPLICATES, 3, 100000},
    {SET_LATTICE, 3, 262144}, {SET_UNIFORM, 3, 2000000},
};

START_TEST(test_shares)
{
    dataset ds = make_set(sets[_i].kind, sets[_i].dim, sets[_i].n);
    compare_every_device(&ds);
    compare_results(&ds, 2, two_parts(), two_parts_name());
    free(ds.coords);
}
END_TEST

/* Fewer points than devices, as many, a few more (shares left empty, or
 * every part too small to keep a tree: the host puts it together), and a
 * small set, also with the safe edges marked on the host
 * (GRIDEMST_SAFE_EDGES=kruskal: the tree is put together there too). */
START_TEST(test_small_sets)
{
    uint64_t seed = 11;
    for (int64_t n = 0; n <= 9; n++) {
        dataset ds = tiny_set(n, 3, &seed);
        compare_every_device(&ds);
        free(ds.coords);
    }
    dataset ds = make_set(SET_BLOBS, 3, 20000);
    compare_results(&ds, 2, two_parts(), two_parts_name());
    ck_assert_int_eq(setenv("GRIDEMST_SAFE_EDGES", "kruskal", 1), 0);
    compare_results(&ds, 2, two_parts(), "two parts, marked on the host");
    unsetenv("GRIDEMST_SAFE_EDGES");
    free(ds.coords);
}
END_TEST

/* While the result lives, each device keeps its share and gives back the
 * rest of what the solve took; freeing the result gives the shares back. */
START_TEST(test_memory_given_back)
{
    dataset ds = make_set(SET_UNIFORM, 3, 3000000);
    gridemst_options o;
    gridemst_options_init(&o);
    o.precision = GRIDEMST_PRECISION_FLOAT;
    o.n_devices = 2;
    o.devices = two_parts();
    o.result = GRIDEMST_RESULT_DEVICE;
    const int used = gpus > 1 ? 2 : 1; /* the devices the two parts are on */
    gridemst_result r = GRIDEMST_RESULT_INIT;
    solve_ok(&ds, &o, &r, "warm-up"); /* the devices' contexts made once */
    gridemst_result_free(&r);
    size_t before[2], during[2], after[2], total;
    for (int k = 0; k < used; k++) {
        CUDA_OK(cudaSetDevice(k));
        CUDA_OK(cudaMemGetInfo(&before[k], &total));
    }
    solve_ok(&ds, &o, &r, "uniform 3D");
    for (int k = 0; k < used; k++) {
        CUDA_OK(cudaSetDevice(k));
        CUDA_OK(cudaMemGetInfo(&during[k], &total));
    }
    gridemst_result_free(&r);
    for (int k = 0; k < used; k++) {
        CUDA_OK(cudaSetDevice(k));
        CUDA_OK(cudaDeviceSynchronize());
        CUDA_OK(cudaMemGetInfo(&after[k], &total));
    }
    /* the tree: 16 bytes an edge over both devices; the pools' own granules on top */
    const size_t tree = 16 * (size_t)ds.n, slack = (size_t)256 << 20;
    for (int k = 0; k < used; k++) {
        REQUIRE(during[k] + tree + slack >= before[k], "device %d: %zu MB taken while the result lives", k,
                (before[k] - during[k]) >> 20);
        REQUIRE(after[k] + slack >= before[k], "device %d: %zu MB not given back after the free", k,
                (before[k] - after[k]) >> 20);
    }
    free(ds.coords);
}
END_TEST

int main(void)
{
    if ((gpus = several_devices(1)) == 0)
        return 77;
    Suite *s = suite_create("cuda_shares");
    TCase *tc = tcase_create("shares");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, test_shares, 0, (int)(sizeof sets / sizeof sets[0]));
    tcase_add_test(tc, test_memory_given_back);
    suite_add_tcase(s, tc);
    TCase *small = tcase_create("small"); /* for compute-sanitizer: CK_RUN_CASE=small */
    tcase_set_timeout(small, 600);
    tcase_add_test(small, test_small_sets);
    suite_add_tcase(s, small);
    return run_suite(s);
}
