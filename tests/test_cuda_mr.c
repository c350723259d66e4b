/*
 * HDBSCAN*'s mutual-reachability tree (options.min_samples >= 2) on the
 * CUDA backend.  The CPU backend's tree, itself checked against brute-force
 * Prim under mutual reachability by test_mr_tree, is unique under the edge
 * order, so the GPU must give it edge for edge: on both indexes (the grid's
 * core distances then the late BVH, the grid alone, the BVH), both
 * precisions, and with duplicates, whose edges follow their own rule
 * (nns/duplicate_anchor.h).  Then the same tree from device input, as a
 * device result and on a context; and against gemst_prim_mr_reference
 * directly on small sets.  Skipped (exit 77) where no GPU is present.
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gridemst.h"
#include "cuda_testutil.h"
#include "testutil.h"
#include "dup_sets.h"
#include "tools/generate.h"
#include "tools/prim.h"

/* The searches of the GPU's tree. */
enum { GRID_THEN_BVH, GRID_ONLY, BVH_ONLY, SEARCHES };
static const char *const search_names[] = {"grid then BVH", "grid", "BVH"};

static gridemst_options mr_options(gridemst_backend backend, int search, gridemst_precision prec, int64_t k)
{
    gridemst_options o;
    gridemst_options_init(&o);
    o.backend = backend;
    o.nns = search == BVH_ONLY ? GRIDEMST_NNS_BVH : GRIDEMST_NNS_GRID;
    o.tuning.late_bvh = search == GRID_ONLY ? -1 : 0;
    o.precision = prec;
    o.min_samples = k;
    return o;
}

/* got's edges are ref's, one by one. */
static void require_edges(const gridemst_edge *got, const gridemst_edge *ref, int64_t m, const char *what)
{
    for (int64_t e = 0; e < m; e++)
        REQUIRE(got[e].u == ref[e].u && got[e].v == ref[e].v && got[e].w == ref[e].w,
                "%s: edge %lld is (%lld, %lld, %.17g), expected (%lld, %lld, %.17g)", what, (long long)e,
                (long long)got[e].u, (long long)got[e].v, got[e].w, (long long)ref[e].u, (long long)ref[e].v,
                ref[e].w);
}

typedef struct {
    const char *name;
    gemst_gen_kind kind;
    int dim, dups;
    int64_t n;
} mr_set;

static const mr_set sets[] = {
    {"uniform", GEMST_GEN_UNIFORM, 2, 0, 30000},   {"uniform", GEMST_GEN_UNIFORM, 3, 0, 30000},
    {"blobs", GEMST_GEN_BLOBS, 2, 0, 40000},       {"blobs", GEMST_GEN_BLOBS, 3, 0, 40000},
    {"blobs+dups", GEMST_GEN_BLOBS, 3, 1, 30000},  {"uniform+dups", GEMST_GEN_UNIFORM, 2, 1, 30000},
    {"lattice", GEMST_GEN_LATTICE, 2, 0, 20000},   {"lattice", GEMST_GEN_LATTICE, 3, 0, 27000},
    {"clustered+dups", GEMST_GEN_CLUSTERED, 3, 1, 20000},
};
#define N_SETS ((int)(sizeof sets / sizeof sets[0]))

/* min_samples: small, the default-like, and larger than some clusters of
 * the blobs and clustered sets. */
static const int64_t ks[] = {2, 5, 10, 300};
#define N_KS ((int)(sizeof ks / sizeof ks[0]))

/* Every set, min_samples, precision and search: the CPU's tree. */
START_TEST(test_against_cpu)
{
    const mr_set *s = &sets[_i];
    gemst_pointset ps = make_set(s->kind, s->n, s->dim, s->dups, 70 + (uint64_t)_i);
    for (int t = 0; t < N_KS; t++)
        for (int prec = 0; prec <= 1; prec++) {
            gridemst_options o = mr_options(GRIDEMST_BACKEND_CPU, GRID_THEN_BVH, (gridemst_precision)prec, ks[t]);
            gridemst_result ref = solve_with(ps.coords, ps.dtype, ps.n, ps.dim, &o);
            for (int search = 0; search < SEARCHES; search++) {
                o = mr_options(GRIDEMST_BACKEND_CUDA, search, (gridemst_precision)prec, ks[t]);
                o.tuning.findmin2 = (gridemst_findmin2)((t + search) % 2);
                gridemst_result got = solve_with(ps.coords, ps.dtype, ps.n, ps.dim, &o);
                char what[160];
                snprintf(what, sizeof what, "%s %dD n=%lld k=%lld %s %s findmin2 %s", s->name, s->dim,
                         (long long)s->n, (long long)ks[t], gridemst_precision_name(o.precision),
                         search_names[search], gridemst_findmin2_name(o.tuning.findmin2));
                REQUIRE(got.stats.backend == GRIDEMST_BACKEND_CUDA, "%s: not on the GPU", what);
                REQUIRE(got.stats.prune == GRIDEMST_PRUNE_NONE, "%s: pruned with %s", what,
                        gridemst_prune_name(got.stats.prune));
                REQUIRE(got.n_edges == ref.n_edges, "%s: %lld edges, expected %lld", what, (long long)got.n_edges,
                        (long long)ref.n_edges);
                REQUIRE(got.stats.n_duplicates == ref.stats.n_duplicates, "%s: %lld duplicates, expected %lld", what,
                        (long long)got.stats.n_duplicates, (long long)ref.stats.n_duplicates);
                REQUIRE(got.stats.late_bvh_iteration == (search == GRID_THEN_BVH ? 0 : -1),
                        "%s: the late BVH from iteration %d", what, got.stats.late_bvh_iteration);
                require_edges(got.edges, ref.edges, ref.n_edges, what);
                REQUIRE(got.total_weight == ref.total_weight, "%s: weight %.17g, expected %.17g", what,
                        got.total_weight, ref.total_weight);
                check_iteration_stats(&got.stats, what);
                gridemst_result_free(&got);
            }
            gridemst_result_free(&ref);
        }
    gemst_pointset_free(&ps);
}
END_TEST

/* Device input, device results, a context (and a tree on it twice): the
 * host input's tree, for both indexes and precisions.  _i: bit 0 the
 * index, bit 1 the precision. */
START_TEST(test_device_input_and_result)
{
    const int search = _i & 1 ? BVH_ONLY : GRID_THEN_BVH;
    const gridemst_precision prec = _i & 2 ? GRIDEMST_PRECISION_DOUBLE : GRIDEMST_PRECISION_FLOAT;
    gemst_pointset ps = make_set(GEMST_GEN_BLOBS, 50000, 3, 1, 11);
    gridemst_options o = mr_options(GRIDEMST_BACKEND_CPU, GRID_THEN_BVH, prec, 10);
    gridemst_result ref = solve_with(ps.coords, ps.dtype, ps.n, ps.dim, &o);
    const size_t bytes = sizeof(float) * (size_t)(ps.n * ps.dim);
    void *d_points = NULL;
    CUDA_OK(cudaMalloc(&d_points, bytes));
    CUDA_OK(cudaMemcpy(d_points, ps.coords, bytes, cudaMemcpyHostToDevice));
    gridemst_context *ctx = NULL;
    gridemst_error err;
    REQUIRE(gridemst_context_create(0, NULL, &ctx, &err) == GRIDEMST_OK, "%s", err.message);
    for (int run = 0; run < 4; run++) { /* device input: host then device result; the same on the context */
        o = mr_options(GRIDEMST_BACKEND_AUTO, search, prec, 10);
        o.result = run & 1 ? GRIDEMST_RESULT_DEVICE : GRIDEMST_RESULT_HOST;
        o.context = run & 2 ? ctx : NULL;
        gridemst_result got = GRIDEMST_RESULT_INIT;
        REQUIRE(gridemst_solve_device(d_points, ps.dtype, ps.n, ps.dim, &o, &got, &err) == GRIDEMST_OK,
                "run %d: %s", run, err.message);
        gridemst_edge *e = run & 1 ? device_edges(&got) : got.edges;
        char what[96];
        snprintf(what, sizeof what, "%s %s, %s result%s", search_names[search], gridemst_precision_name(prec),
                 run & 1 ? "device" : "host", run & 2 ? ", context" : "");
        REQUIRE(got.n_edges == ref.n_edges && got.total_weight == ref.total_weight, "%s: weight %.17g, expected %.17g",
                what, got.total_weight, ref.total_weight);
        require_edges(e, ref.edges, ref.n_edges, what);
        if (run & 1)
            free(e);
        gridemst_result_free(&got);
    }
    gridemst_context_free(ctx);
    CUDA_OK(cudaFree(d_points));
    gridemst_result_free(&ref);
    gemst_pointset_free(&ps);
}
END_TEST

/* Against brute-force Prim under mutual reachability in double (float32
 * points solved in double precision measure the reference's squared
 * lengths exactly: test_mr_tree), edge for edge, duplicates included;
 * min_samples up to every point. */
START_TEST(test_against_prim)
{
    static const struct {
        gemst_gen_kind kind;
        int dim, dups;
        int64_t n;
    } small[] = {{GEMST_GEN_BLOBS, 2, 1, 3000}, {GEMST_GEN_UNIFORM, 3, 1, 3000}, {GEMST_GEN_LATTICE, 3, 0, 1000},
                 {GEMST_GEN_CLUSTERED, 2, 0, 2000}};
    gemst_pointset ps = make_set(small[_i].kind, small[_i].n, small[_i].dim, small[_i].dups, 90 + (uint64_t)_i);
    gridemst_edge *ref = xcalloc((size_t)ps.n, sizeof *ref);
    const int64_t k_list[] = {2, 7, 40, ps.n};
    for (int t = 0; t < 4; t++) {
        double total = gemst_prim_mr_reference(ps.coords, ps.dtype, ps.n, ps.dim, k_list[t], ref);
        REQUIRE(total >= 0.0, "out of memory for the reference");
        for (int search = 0; search < SEARCHES; search++) {
            gridemst_options o = mr_options(GRIDEMST_BACKEND_CUDA, search, GRIDEMST_PRECISION_DOUBLE, k_list[t]);
            gridemst_result got = solve_with(ps.coords, ps.dtype, ps.n, ps.dim, &o);
            char what[96];
            snprintf(what, sizeof what, "set %d k=%lld %s", _i, (long long)k_list[t], search_names[search]);
            REQUIRE(got.n_edges == ps.n - 1, "%s: %lld edges", what, (long long)got.n_edges);
            REQUIRE(fabs(got.total_weight - total) <= 1e-9 * total, "%s: weight %.17g, reference %.17g", what,
                    got.total_weight, total);
            require_edges(got.edges, ref, got.n_edges, what);
            gridemst_result_free(&got);
        }
    }
    free(ref);
    gemst_pointset_free(&ps);
}
END_TEST

int main(void)
{
    if (gridemst_cuda_device_count() == 0) {
        printf("no CUDA device: skipped\n");
        return 77;
    }
    Suite *s = suite_create("cuda_mutual_reachability");
    TCase *tc = tcase_create("gpu_vs_cpu");
    tcase_set_timeout(tc, 1200);
    tcase_add_loop_test(tc, test_against_cpu, 0, N_SETS);
    tcase_add_loop_test(tc, test_device_input_and_result, 0, 4);
    tcase_add_loop_test(tc, test_against_prim, 0, 4);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
