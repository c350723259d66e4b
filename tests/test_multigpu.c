/*
 * The solve over several GPUs (options.n_devices) against two independent
 * computations of the same tree: the single-GPU solve and the CPU solve.
 * The tree is unique under the edge order, so every solve must return the
 * identical edge array (memcmp of the sorted edges) and the same total.
 *
 * The sets aim at the parts' boundaries, as tests/test_parts.c's do for the
 * CPU's virtual parts: uniform and clustered points, thin shells,
 * duplicates where the first splits cross, lattices (every nearest distance
 * tied), points on the splits' planes, and sets smaller than the number of
 * devices.  Each is solved on every device (GRIDEMST_ALL_DEVICES), on the
 * first two where there are more, on devices 1 and 0 in that order, and
 * on devices 0, 1 and 0 (two parts sharing device 0); on a machine of one
 * GPU, on its device named twice and three times;
 * the partition on the devices must give the parts the CPU's virtual
 * parts get (their sizes, their trees' safe edges, the bytes exchanged).
 * The boundary's store is filled from the devices, extended as by default
 * and at every step that asks (GRIDEMST_PARTS_STORE=exact), and from host
 * memory where the safe edges are marked on the host.
 *
 * Exits 77 (skipped) without a GPU.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "gridemst.h"
#include "parts_sets.h"
#include "several_devices.h"

static int gpus; /* CUDA devices present */

/* The device lists each set is solved on: on one GPU, its device named
 * two and three times (parts sharing a device exchange by copies). */
static const int first_two[] = {0, 1}, swapped[] = {1, 0}, shared[] = {0, 1, 0}, one_twice[] = {0, 0},
                 one_thrice[] = {0, 0, 0};
#define MAX_LISTS 4
typedef struct {
    int n_devices;
    const int *devices;
    const char *name;
} device_list;

static int device_lists(device_list *out)
{
    int k = 0;
    if (gpus == 1) {
        out[k++] = (device_list){2, one_twice, "devices 0,0"};
        out[k++] = (device_list){3, one_thrice, "devices 0,0,0"};
        return k;
    }
    out[k++] = (device_list){GRIDEMST_ALL_DEVICES, NULL, "all devices"};
    if (gpus > 2)
        out[k++] = (device_list){2, first_two, "devices 0,1"};
    out[k++] = (device_list){2, swapped, "devices 1,0"};
    out[k++] = (device_list){3, shared, "devices 0,1,0"};
    return k;
}

static gridemst_options options(gridemst_backend backend, gridemst_precision prec)
{
    gridemst_options o;
    gridemst_options_init(&o);
    o.backend = backend;
    o.precision = prec;
    return o;
}

static void solve_ok(const dataset *ds, const gridemst_options *o, gridemst_result *r, const char *what)
{
    gridemst_error err;
    int rc = gridemst_solve(ds->coords, ds->dtype, ds->n, ds->dim, o, r, &err);
    REQUIRE(rc == GRIDEMST_OK, "%s: %s", what, err.message);
}

/* got's edges are ref's, byte for byte, and its total the same. */
static void check_identical(const gridemst_result *ref, const char *ref_name, const gridemst_result *got,
                            const char *what)
{
    REQUIRE(got->n_edges == ref->n_edges, "%s: %lld edges, the %s %lld", what, (long long)got->n_edges, ref_name,
            (long long)ref->n_edges);
    for (int64_t k = 0; k < ref->n_edges; k++) {
        const gridemst_edge *a = &ref->edges[k], *b = &got->edges[k];
        REQUIRE(memcmp(a, b, sizeof *a) == 0, "%s: edge %lld is (%lld, %lld, %.17g), the %s (%lld, %lld, %.17g)",
                what, (long long)k, (long long)b->u, (long long)b->v, b->w, ref_name, (long long)a->u,
                (long long)a->v, a->w);
    }
    REQUIRE(got->total_weight == ref->total_weight, "%s: total %.17g, the %s %.17g", what, got->total_weight,
            ref_name, ref->total_weight);
}

/* The CPU's virtual parts, as many as the devices, split the points as
 * the devices do (the same keys and splitters), so that every step after
 * the partition has the same work and moves the same bytes. */
static void check_same_parts(const dataset *ds, const gridemst_options *on_devices, int parts,
                             const gridemst_result *got, const char *what)
{
    gridemst_options o = *on_devices;
    o.backend = GRIDEMST_BACKEND_CPU;
    o.n_devices = 0;
    o.devices = NULL;
    o.partitions = parts;
    gridemst_result cpu = GRIDEMST_RESULT_INIT;
    /* the border step, which runs by default over devices */
    const char *border = getenv("GRIDEMST_PARTS_BORDER");
    if (!border)
        ck_assert_int_eq(setenv("GRIDEMST_PARTS_BORDER", "on", 1), 0);
    solve_ok(ds, &o, &cpu, what);
    if (!border)
        unsetenv("GRIDEMST_PARTS_BORDER");
    const gridemst_partition_stats *a = &cpu.stats.partitions, *b = &got->stats.partitions;
    const struct {
        const char *name;
        int64_t cpu, devices;
    } same[] = {
        {"largest part", a->largest_part, b->largest_part},
        {"smallest part", a->smallest_part, b->smallest_part},
        {"safe edges", a->safe_edges, b->safe_edges},
        {"components", a->components, b->components},
        {"uncertain edges", a->uncertain_edges, b->uncertain_edges},
        {"bytes exchanged", a->exchanged_bytes, b->exchanged_bytes},
        {"border points", cpu.stats.partition_border_points, got->stats.partition_border_points},
        {"border edges", cpu.stats.partition_border_edges, got->stats.partition_border_edges},
        {"border rounds", cpu.stats.partition_border_rounds, got->stats.partition_border_rounds},
    };
    for (size_t k = 0; k < sizeof same / sizeof same[0]; k++)
        REQUIRE(same[k].cpu == same[k].devices, "%s: %s %lld, the CPU's %d virtual parts %lld", what, same[k].name,
                (long long)same[k].devices, parts, (long long)same[k].cpu);
    gridemst_result_free(&cpu);
}

/* ds on the CPU, on one GPU and on each device list, in one precision. */
static void compare_solves(const dataset *ds, gridemst_precision prec, const gridemst_options *tweak)
{
    char what[160];
    gridemst_result cpu = GRIDEMST_RESULT_INIT, gpu = GRIDEMST_RESULT_INIT;
    gridemst_options o = tweak ? *tweak : options(GRIDEMST_BACKEND_CPU, prec);
    o.backend = GRIDEMST_BACKEND_CPU;
    o.precision = prec;
    snprintf(what, sizeof what, "%s, %s, cpu", ds->name, gridemst_precision_name(prec));
    solve_ok(ds, &o, &cpu, what);
    o.backend = GRIDEMST_BACKEND_CUDA;
    snprintf(what, sizeof what, "%s, %s, one GPU", ds->name, gridemst_precision_name(prec));
    solve_ok(ds, &o, &gpu, what);
    check_identical(&cpu, "cpu solve's", &gpu, what);
    device_list lists[MAX_LISTS];
    const int n_lists = device_lists(lists);
    for (int l = 0; l < n_lists; l++) {
        snprintf(what, sizeof what, "%s, %s, %s", ds->name, gridemst_precision_name(prec), lists[l].name);
        gridemst_result got = GRIDEMST_RESULT_INIT;
        o.n_devices = lists[l].n_devices;
        o.devices = lists[l].devices;
        solve_ok(ds, &o, &got, what);
        check_identical(&gpu, "single GPU's", &got, what);
        check_identical(&cpu, "cpu solve's", &got, what);
        if (ds->n >= 2) {
            const int parts = lists[l].n_devices == GRIDEMST_ALL_DEVICES ? gpus : lists[l].n_devices;
            REQUIRE(got.stats.backend == GRIDEMST_BACKEND_CUDA, "%s: backend %s", what,
                    gridemst_backend_name(got.stats.backend));
            REQUIRE(got.stats.partitions.parts == (parts > 64 ? 64 : parts), "%s: %d parts", what,
                    got.stats.partitions.parts);
            REQUIRE(got.stats.partitions.exchanged_bytes > 0, "%s: nothing exchanged", what);
            /* nns auto chooses for the whole set, as one GPU does (the
             * measure's working points may round apart by an ulp) */
            REQUIRE(got.stats.nns == gpu.stats.nns &&
                        fabs(got.stats.density_contrast - gpu.stats.density_contrast) <=
                            0.01 * gpu.stats.density_contrast,
                    "%s: index %s at density contrast %g, one GPU's %s at %g", what,
                    gridemst_nns_name(got.stats.nns), got.stats.density_contrast, gridemst_nns_name(gpu.stats.nns),
                    gpu.stats.density_contrast);
            check_same_parts(ds, &o, parts > 64 ? 64 : parts, &got, what);
        }
        gridemst_result_free(&got);
        o.n_devices = 0;
        o.devices = NULL;
    }
    gridemst_result_free(&cpu);
    gridemst_result_free(&gpu);
}

/* The sets, each in 2D and 3D, in float and double precision. */
static const struct {
    set_kind kind;
    int64_t n;
} sets[] = {
    {SET_UNIFORM, 300000}, {SET_BLOBS, 300000},     {SET_CLUSTERED, 100000}, {SET_SHELL, 100000},
    {SET_DUPLICATES, 100000}, {SET_LATTICE, 262144}, {SET_PLANES, 100000},
};

START_TEST(test_sets)
{
    const int s = _i / 2, dim = 2 + _i % 2;
    dataset ds = make_set(sets[s].kind, dim, sets[s].n);
    compare_solves(&ds, GRIDEMST_PRECISION_FLOAT, NULL);
    compare_solves(&ds, GRIDEMST_PRECISION_DOUBLE, NULL);
    free(ds.coords);
}
END_TEST

/* Large enough for the GPU's own choices of cells (from half a million
 * points on). */
START_TEST(test_large)
{
    dataset ds = make_set(_i == 0 ? SET_UNIFORM : SET_BLOBS, 3, 2000000);
    compare_solves(&ds, GRIDEMST_PRECISION_FLOAT, NULL);
    free(ds.coords);
}
END_TEST

/* The parts' solves take the caller's search options. */
START_TEST(test_local_options)
{
    dataset ds = make_set(SET_BLOBS, 3, 200000);
    for (int v = 0; v < 2; v++) {
        gridemst_options o = options(GRIDEMST_BACKEND_CPU, GRIDEMST_PRECISION_FLOAT);
        o.nns = v == 0 ? GRIDEMST_NNS_BVH : GRIDEMST_NNS_GRID;
        o.tuning.prune = v == 1 ? GRIDEMST_PRUNE_NONE : GRIDEMST_PRUNE_STATIC;
        compare_solves(&ds, GRIDEMST_PRECISION_FLOAT, &o);
    }
    free(ds.coords);
}
END_TEST

/* The store's extensions at every step that asks for more, filled from
 * the devices (GRIDEMST_PARTS_STORE=exact); the safe edges marked on the
 * host, where the points' arrays come back to host memory and the store
 * is filled there (GRIDEMST_SAFE_EDGES=kruskal); the boundary Boruvka
 * alone (GRIDEMST_PARTS_BORDER=off), and after one round of the border
 * step at any size (=once). */
START_TEST(test_store_ways)
{
    static const char *const var[] = {"GRIDEMST_PARTS_STORE", "GRIDEMST_SAFE_EDGES", "GRIDEMST_PARTS_BORDER",
                                      "GRIDEMST_PARTS_BORDER"};
    static const char *const value[] = {"exact", "kruskal", "off", "once"};
    dataset ds = make_set(_i / 2 ? SET_CLUSTERED : SET_BLOBS, 2 + _i % 2, 200000);
    for (int v = 0; v < (int)(sizeof var / sizeof var[0]); v++) {
        ck_assert_int_eq(setenv(var[v], value[v], 1), 0);
        compare_solves(&ds, GRIDEMST_PRECISION_FLOAT, NULL);
        unsetenv(var[v]); /* the tests share this process */
    }
    free(ds.coords);
}
END_TEST

/* Fewer points than devices, as many, a few more: parts left empty. */
START_TEST(test_tiny_sets)
{
    uint64_t seed = 5;
    for (int64_t n = 0; n <= 9; n++)
        for (int dim = 2; dim <= 3; dim++) {
            dataset ds = tiny_set(n, dim, &seed);
            compare_solves(&ds, GRIDEMST_PRECISION_FLOAT, NULL);
            free(ds.coords);
        }
}
END_TEST

/* Every point equal: one device holds them all. */
START_TEST(test_all_equal)
{
    dataset ds = doubles(5000, 3);
    for (int64_t i = 0; i < 3 * ds.n; i++)
        ((double *)ds.coords)[i] = 0.25;
    snprintf(ds.name, sizeof ds.name, "equal points");
    compare_solves(&ds, GRIDEMST_PRECISION_DOUBLE, NULL);
    free(ds.coords);
}
END_TEST

/* What a solve over several devices refuses, with the reason. */
START_TEST(test_bad_requests)
{
    const int two_parts[2] = {0, gpus > 1};
    double xyz[6] = {0, 0, 1, 1, 2, 0};
    int missing[2] = {0, 999};
    gridemst_result r = GRIDEMST_RESULT_INIT;
    gridemst_error err;
    gridemst_options o = options(GRIDEMST_BACKEND_AUTO, GRIDEMST_PRECISION_FLOAT);
    o.n_devices = 2;
    o.devices = missing;
    REQUIRE_CMP(gridemst_solve(xyz, GRIDEMST_FLOAT64, 3, 2, &o, &r, &err), ==, GRIDEMST_ERR_NO_DEVICE);
    REQUIRE(strstr(err.message, "999") != NULL, "message: %s", err.message);
    o.devices = two_parts;
    o.partitions = 3;
    REQUIRE_CMP(gridemst_solve(xyz, GRIDEMST_FLOAT64, 3, 2, &o, &r, &err), ==, GRIDEMST_ERR_INVALID_ARGUMENT);
    REQUIRE(strstr(err.message, "one part per device") != NULL, "message: %s", err.message);
    o.partitions = 0;
    o.device = 1;
    REQUIRE_CMP(gridemst_solve(xyz, GRIDEMST_FLOAT64, 3, 2, &o, &r, &err), ==, GRIDEMST_ERR_INVALID_ARGUMENT);
    o.device = 0;
    o.min_samples = 2;
    REQUIRE_CMP(gridemst_solve(xyz, GRIDEMST_FLOAT64, 3, 2, &o, &r, &err), ==, GRIDEMST_ERR_UNSUPPORTED);
    REQUIRE(strstr(err.message, "mutual-reachability") != NULL, "message: %s", err.message);
    o.min_samples = 0;
    o.partitions = 2;
    o.n_devices = 0;
    o.backend = GRIDEMST_BACKEND_CUDA;
    o.device = gpus; /* the parts on one device: one that is present */
    REQUIRE_CMP(gridemst_solve(xyz, GRIDEMST_FLOAT64, 3, 2, &o, &r, &err), ==, GRIDEMST_ERR_NO_DEVICE);
    o.device = 0;
    o.n_devices = 1;
    o.devices = two_parts + 1;
    o.cuda_stream = (void *)1; /* a solve over several parts makes its own streams */
    REQUIRE_CMP(gridemst_solve(xyz, GRIDEMST_FLOAT64, 3, 2, &o, &r, &err), ==, GRIDEMST_ERR_INVALID_ARGUMENT);
    gridemst_result_free(&r);
}
END_TEST

/* partitions P with the cuda backend and no list of devices: the P parts
 * on options.device, the identical tree. */
START_TEST(test_parts_on_one_device)
{
    dataset ds = make_set(SET_BLOBS, 3, 200000);
    gridemst_result cpu = GRIDEMST_RESULT_INIT, got = GRIDEMST_RESULT_INIT;
    gridemst_options o = options(GRIDEMST_BACKEND_CPU, GRIDEMST_PRECISION_FLOAT);
    solve_ok(&ds, &o, &cpu, "blobs 3D, cpu");
    o.backend = GRIDEMST_BACKEND_CUDA;
    o.partitions = 3;
    o.device = gpus - 1;
    solve_ok(&ds, &o, &got, "blobs 3D, 3 parts on the last device");
    check_identical(&cpu, "cpu solve's", &got, "blobs 3D, 3 parts on the last device");
    REQUIRE(got.stats.backend == GRIDEMST_BACKEND_CUDA && got.stats.partitions.parts == 3, "backend %s, %d parts",
            gridemst_backend_name(got.stats.backend), got.stats.partitions.parts);
    gridemst_result_free(&cpu);
    gridemst_result_free(&got);
    free(ds.coords);
}
END_TEST

/* A non-finite coordinate, in the first slice and in the last, in float
 * and in double (the slices are boxed on their devices): refused, naming
 * the point by its id in the whole set, as the CPU's parts name it. */
START_TEST(test_non_finite)
{
    const int64_t n = 20000;
    const int64_t bad_ids[] = {7, n - 3};
    for (int dt = 0; dt < 2; dt++)
        for (int k = 0; k < 2; k++) {
            dataset ds = dt ? doubles(n, 3) : make_set(SET_UNIFORM, 3, n);
            const int64_t at = 3 * bad_ids[k] + 1;
            if (ds.dtype == GRIDEMST_FLOAT64)
                ((double *)ds.coords)[at] = k ? INFINITY : NAN;
            else
                ((float *)ds.coords)[at] = k ? INFINITY : NAN;
            gridemst_options o = options(GRIDEMST_BACKEND_AUTO, GRIDEMST_PRECISION_FLOAT);
            const int two_parts[2] = {0, gpus > 1};
            o.n_devices = 2;
            o.devices = two_parts;
            gridemst_result r = GRIDEMST_RESULT_INIT;
            gridemst_error err;
            char want[64];
            snprintf(want, sizeof want, "point %lld has a non-finite coordinate", (long long)bad_ids[k]);
            const int rc = gridemst_solve(ds.coords, ds.dtype, ds.n, ds.dim, &o, &r, &err);
            REQUIRE(rc == GRIDEMST_ERR_INPUT && strstr(err.message, want),
                    "%s with point %lld non-finite: status %d, %s", dt ? "double" : "float",
                    (long long)bad_ids[k], rc, rc == GRIDEMST_OK ? "" : err.message);
            gridemst_result_free(&r);
            free(ds.coords);
        }
}
END_TEST

int main(void)
{
    if ((gpus = several_devices(1)) == 0)
        return 77;
    printf("%d CUDA devices\n", gpus);
    Suite *s = suite_create("multigpu");
    TCase *tc = tcase_create("devices_vs_one");
    tcase_set_timeout(tc, 1200);
    tcase_add_loop_test(tc, test_sets, 0, 2 * (int)(sizeof sets / sizeof sets[0]));
    tcase_add_loop_test(tc, test_large, 0, 2);
    tcase_add_test(tc, test_local_options);
    tcase_add_loop_test(tc, test_store_ways, 0, 4);
    tcase_add_test(tc, test_tiny_sets);
    tcase_add_test(tc, test_all_equal);
    tcase_add_test(tc, test_bad_requests);
    tcase_add_test(tc, test_parts_on_one_device);
    tcase_add_test(tc, test_non_finite);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
